"""The judge's configuration: one TOML file, one strict schema, found the same way by every command.

Where: ``--config``, else ``$JUDGE_CONFIG``, else ``./judge.toml``, else ``/etc/judge/judge.toml`` (``find_config``).

The schema is the dataclasses below: every field's type, default, range or choices and help text. It is checked by
hand-written code (``config_from_data``) rather than a validation library: the file is small, the messages must speak
the host's language ("[imap] poll_seconds: a whole number from 1 to 3600, not 'soon'") and name the nearest known key
for a misspelling, and the judge then needs no further dependency. Booleans are never numbers, numbers are never
strings, and unknown sections or keys are errors.

Secrets: each server's password comes from, in this order, ``$JUDGE_IMAP_PASSWORD``/``$JUDGE_SMTP_PASSWORD``, the
file named by ``password_file``, the systemd credential ``imap-password``/``smtp-password`` (``LoadCredential=``,
found in ``$CREDENTIALS_DIRECTORY``), or ``password`` in the file itself; the DKIM signing key from the file named by
``[dkim] sign_key`` or the credential ``dkim-key``. A file holding a password that every user can read is refused, as
is a key file that every user can read or that anyone but its owner can change; a configuration holding a password
that its group can read is allowed with a warning (``Config.warnings``). A bad file raises ``ConfigError`` listing
every problem (the daemon exits 2).
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import re
import stat
import tomllib
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from judge.facts import LANGUAGES, MAX_MAIL_AGE_DAYS, MAX_REPLIES_PER_HOUR

SECURITY = ("ssl", "starttls", "none")
SENDER_CHECKS = ("none", "dkim")  # [judge] sender_check: what a mail needs besides its password to act for a seat
ALIGNMENTS = ("relaxed", "strict")
DKIM_KEY_CREDENTIAL = "dkim-key"
SYSTEM_CONFIG = Path("/etc/judge/judge.toml")
CONFIG_ENV = "JUDGE_CONFIG"
DB_ENV = "JUDGE_DB"


class ConfigError(Exception):
    """The configuration cannot be used; the message lists every problem."""


def _spec(
    help: str,
    *,
    low: int | None = None,
    high: int | None = None,
    choices: tuple[str, ...] = (),
    check: Callable[[Any], str | None] | None = None,
    internal: bool = False,
) -> dict[str, Any]:
    return {"help": help, "low": low, "high": high, "choices": choices, "check": check, "internal": internal}


def _host(value: str) -> str | None:
    ok = not value or re.fullmatch(r"[A-Za-z0-9.\-:\[\]_]+", value)
    if ok and value.count(":") == 1:  # "name:993" (an IPv6 address has two colons or more)
        return "a host name or address without its port (the port goes in port)"
    return None if ok else "a host name or address"


def _address(value: str) -> str | None:
    ok = not value or re.fullmatch(r"[^@\s<>\"]+@[^@\s<>\"]+\.[^@\s<>\"]+|[^@\s<>\"]+@localhost", value)
    return None if ok else "the judge's mail address, e.g. judge@example.org"


def _zone(value: str) -> str | None:
    if not value.strip():
        return "an IANA time zone such as Europe/Berlin or UTC"
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        return "an IANA time zone such as Europe/Berlin or UTC"
    return None


def _creators(value: str) -> str | None:
    words = [w for w in re.split(r"[\s,;]+", value.strip()) if w]
    if words in (["anyone"], ["nobody"]) or (words and all("@" in w and " " not in w for w in words)):
        return None
    return '"anyone", "nobody", or the addresses (and @domain entries) that may, separated by commas'


def _folder(value: str) -> str | None:
    return None if value.strip() else "a mailbox folder name"


def resolver_address(text: str) -> tuple[str, int] | None:
    """``[dkim] resolver`` read: ``"127.0.0.1"``, ``"127.0.0.1:5353"``, ``"::1"`` or ``"[::1]:53"`` as (address,
    port); None when it is none of these (a name would need a resolver of its own)."""
    match = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?|([0-9.]+)(?::(\d{1,5}))?|([0-9A-Fa-f:]+)", text.strip())
    if match is None:
        return None
    address = match.group(1) or match.group(3) or match.group(5)
    port = int(match.group(2) or match.group(4) or 53)
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return None
    return (address, port) if 0 < port < 65536 else None


def _resolver(value: str) -> str | None:
    if not value or resolver_address(value):
        return None
    return 'the address of a DNS resolver, with its port if not 53: "127.0.0.1", "127.0.0.1:5353", "[::1]:53"'


def _authserv_id(value: str) -> str | None:
    ok = not value or re.fullmatch(r"[A-Za-z0-9.\-_]+", value)
    return (
        None if ok else "the authserv-id your mail server writes first in Authentication-Results, e.g. mx.example.org"
    )


def _selector(value: str) -> str | None:
    ok = not value or re.fullmatch(r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-]{0,60}[A-Za-z0-9_])?", value)
    return None if ok else "a DNS label such as judge2026 (the key is published at <selector>._domainkey.<domain>)"


def _domain(value: str) -> str | None:
    ok = not value or re.fullmatch(r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9\-]{2,63}", value)
    return None if ok else "a domain name such as example.org"


@dataclass(frozen=True)
class ImapConfig:
    host: str = field(default="", metadata=_spec("the IMAP server", check=_host))
    port: int = field(default=993, metadata=_spec("993 for ssl, 143 for starttls", low=1, high=65535))
    security: str = field(
        default="ssl", metadata=_spec('"ssl" (port 993), "starttls" (143) or "none" (loopback only)', choices=SECURITY)
    )
    username: str = field(default="", metadata=_spec("the mailbox's login"))
    password: str = field(
        default="", repr=False, metadata=_spec("better: password_file, a systemd credential or $JUDGE_IMAP_PASSWORD")
    )
    folder: str = field(default="INBOX", metadata=_spec("where orders arrive", check=_folder))
    processed_folder: str = field(
        default="Processed", metadata=_spec("handled mail is moved here, never deleted", check=_folder)
    )
    rejected_folder: str = field(
        default="Rejected", metadata=_spec("mail that could not be read (too large, not text) goes here", check=_folder)
    )
    idle: bool = field(default=True, metadata=_spec("wake at once with IMAP IDLE where the server has it"))
    poll_seconds: int = field(default=60, metadata=_spec("look for new mail at least this often", low=1, high=3600))
    timeout: int = field(default=60, metadata=_spec("seconds before a silent server counts as down", low=1, high=600))
    quarantine_folder: str = field(
        default="Quarantine", metadata=_spec("mail that cannot be handled is moved here with a reason", check=_folder)
    )
    password_file: str = field(default="", metadata=_spec("a file holding only the password (mode 0600 or 0400)"))


@dataclass(frozen=True)
class SmtpConfig:
    host: str = field(default="", metadata=_spec("the SMTP server the judge sends through", check=_host))
    port: int = field(
        default=587, metadata=_spec("587 for starttls, 465 for ssl, 25 for a local MTA", low=1, high=65535)
    )
    security: str = field(
        default="starttls", metadata=_spec('"starttls" (587), "ssl" (465) or "none" (loopback only)', choices=SECURITY)
    )
    username: str = field(default="", metadata=_spec("the login; empty: send without logging in (a local MTA)"))
    password: str = field(
        default="", repr=False, metadata=_spec("better: password_file, a systemd credential or $JUDGE_SMTP_PASSWORD")
    )
    timeout: int = field(default=60, metadata=_spec("seconds before a silent server counts as down", low=1, high=600))
    max_delivery_days: int = field(
        default=5, metadata=_spec("give up on a message the server keeps refusing", low=1, high=60)
    )
    password_file: str = field(default="", metadata=_spec("a file holding only the password (mode 0600 or 0400)"))


@dataclass(frozen=True)
class DkimConfig:
    resolver: str = field(
        default="",
        metadata=_spec("the DNS resolver DKIM keys are looked up at (empty: the system's)", check=_resolver),
    )
    timeout: int = field(default=5, metadata=_spec("seconds to wait for the resolver", low=1, high=30))
    authserv_id: str = field(
        default="",
        metadata=_spec(
            "your own mail server's authserv-id: its topmost Authentication-Results is trusted", check=_authserv_id
        ),
    )
    alignment: str = field(
        default="relaxed",
        metadata=_spec(
            '"relaxed" (a subdomain counts for its domain) or "strict" (d= equals the From domain)', choices=ALIGNMENTS
        ),
    )
    sign_key: str = field(
        default="",
        metadata=_spec(
            "the judge's own DKIM private key, to sign its mail (a file of mode 0600 or 0640; or the credential "
            "dkim-key)"
        ),
    )
    selector: str = field(default="", metadata=_spec("the selector the public key is published under", check=_selector))
    domain: str = field(
        default="", metadata=_spec("the signing domain (default: the judge's address's)", check=_domain)
    )
    key: str = field(default="", repr=False, metadata=_spec("", internal=True))  # the key's text, when signing

    @property
    def signs(self) -> bool:
        return bool(self.key)


def _base_url(value: str) -> str | None:
    ok = not value or re.fullmatch(r"https?://[^\s\"<>]+", value)
    return None if ok else "the address the archive's folder is served at, e.g. https://example.org/diplomacy"


@dataclass(frozen=True)
class WebConfig:
    dir: str = field(
        default="",
        metadata=_spec(
            "the public archive's folder, rewritten after every adjudication (relative: to this file's folder; "
            "empty: no archive); the host's web server serves it as files (docs/web.md)"
        ),
    )
    base_url: str = field(
        default="",
        metadata=_spec("where that folder is served; results mails link to the game's page", check=_base_url),
    )


@dataclass(frozen=True)
class Config:
    address: str = field(
        default="", metadata=_spec("players write here; every mail the judge sends comes from here", check=_address)
    )
    db: str = field(
        default="judge.db",
        metadata=_spec(
            "the SQLite file with every game (relative: to this file's folder)",
            check=lambda v: None if v.strip() else "a file name",
        ),
    )
    timezone: str = field(
        default="UTC", metadata=_spec("the host's zone: `judge game extend --to` times without an offset", check=_zone)
    )
    imap: ImapConfig | None = field(default=None, metadata=_spec("", internal=True))
    smtp: SmtpConfig | None = field(default=None, metadata=_spec("", internal=True))
    max_replies_per_hour: int = field(
        default=MAX_REPLIES_PER_HOUR,
        metadata=_spec("answers to one address per hour, against mail loops", low=1, high=10000),
    )
    source: str = field(default="", metadata=_spec("", internal=True))  # the file it came from
    # what is allowed but unwise (a password in a file its group can read): `check-config` and `serve` say it
    warnings: tuple[str, ...] = field(default=(), metadata=_spec("", internal=True))
    language: str = field(
        default="en", metadata=_spec("for players who have not chosen (SET LANGUAGE)", choices=LANGUAGES)
    )
    mail_retention_days: int = field(default=30, metadata=_spec("keep sent mail this long", low=1, high=3650))
    handled_retention_days: int = field(
        default=90, metadata=_spec("remember handled messages this long", low=1, high=3650)
    )
    picture_retention_days: int = field(
        default=7,
        metadata=_spec(
            "keep map pictures this long once their mail is sent (0: not after; older ones are drawn again when asked)",
            low=0,
            high=3650,
        ),
    )
    max_mail_age_days: int = field(
        default=MAX_MAIL_AGE_DAYS, metadata=_spec("older mail is not acted on", low=1, high=365)
    )
    variants_dir: str = field(
        default="",
        metadata=_spec("the host's own variant files, beside the shipped ones (the host's win on a name clash)"),
    )
    templates_dir: str = field(
        default="",
        metadata=_spec(
            "the host's own mail templates (templates_dir/<name>.txt.j2 for every language, "
            "templates_dir/<language>/<name>.txt.j2 for one), winning on a name clash"
        ),
    )
    backup_dir: str = field(
        default="",
        metadata=_spec(
            "where the backup taken before a database migration goes (relative: to this file's folder; "
            "default: beside the database)"
        ),
    )
    sender_check: str = field(
        default="none",
        metadata=_spec(
            '"dkim": a mail acts for a seat only with a DKIM signature of its From domain (docs/mail.md); "none"',
            choices=SENDER_CHECKS,
        ),
    )
    dkim: DkimConfig = field(default_factory=DkimConfig, metadata=_spec("", internal=True))
    web: WebConfig = field(default_factory=WebConfig, metadata=_spec("", internal=True))

    openpgp_key: str = field(
        default="",
        metadata=_spec(
            "the judge's OpenPGP secret key file, without a passphrase, mode 0600 (relative: to this file's folder; "
            "or the systemd credential openpgp-key): every mail the judge sends is signed with it, mail encrypted to "
            "it is read; none: the judge's mail is not signed"
        ),
    )
    create_by_mail: str = field(
        default="anyone",
        metadata=_spec(
            'who may CREATE a game by mail: "anyone", "nobody", or addresses and @domains, e.g. "gm@example.org, '
            '@club.example"',
            check=_creators,
        ),
    )

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)


SECTIONS: dict[str, type] = {
    "judge": Config,
    "imap": ImapConfig,
    "smtp": SmtpConfig,
    "dkim": DkimConfig,
    "web": WebConfig,
}
OPTIONAL_SECTIONS = frozenset({"dkim", "web"})
SECRETS = {"imap": ("JUDGE_IMAP_PASSWORD", "imap-password"), "smtp": ("JUDGE_SMTP_PASSWORD", "smtp-password")}


# --- finding the file --------------------------------------------------------------------------------------------


def find_config(explicit: str | None, environ: Mapping[str, str] | None = None) -> Path | None:
    """The configuration file every command uses, or None when there is none anywhere.

    An explicit ``--config`` or ``$JUDGE_CONFIG`` is returned even when missing (loading it then says so)."""
    env = os.environ if environ is None else environ
    if explicit:
        return Path(explicit)
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV])
    for candidate in (Path("judge.toml"), SYSTEM_CONFIG):
        if candidate.is_file():
            return candidate
    return None


def config_path(explicit: str | None) -> Path:
    """The file to use; ``./judge.toml`` when none is found (so the error names where to write one)."""
    return find_config(explicit) or Path("judge.toml")


def searched() -> str:
    return f"--config, ${CONFIG_ENV}, ./judge.toml, {SYSTEM_CONFIG}"


# --- loading -------------------------------------------------------------------------------------------------------


def load_config(path: Path, environ: Mapping[str, str] | None = None, *, secrets: bool = True) -> Config:
    """Read and validate ``path``. Without ``secrets`` (commands that never log in, such as `judge game`), the
    passwords are neither read nor required, so the game master needs no access to them."""
    env = os.environ if environ is None else environ
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; write one with: judge init {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except PermissionError:
        raise ConfigError(f"{path}: not readable by this user (run as the judge's user, or check its mode)") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"{_one_line(str(path))}: cannot read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    try:
        mode: int | None = path.stat().st_mode
    except OSError:  # read a moment ago: gone since; nothing to say about its mode
        mode = None
    return config_from_data(data, env, str(path), secrets=secrets, file_mode=mode)


def config_from_data(
    data: dict[str, Any],
    env: Mapping[str, str],
    source: str = "",
    *,
    secrets: bool = True,
    file_mode: int | None = None,
) -> Config:
    """Validate the parsed file against the schema; every problem is listed in one ``ConfigError``.

    ``file_mode`` is the mode of the file the data came from (None: not from a file): a file that holds a password
    must not be readable by every user (refused), and better not by its group either (a warning)."""
    problems = _section_problems(data)
    base = Path(source).resolve().parent if source else Path.cwd()
    sections: dict[str, dict[str, Any]] = {}
    for name, cls in SECTIONS.items():
        raw = data.get(name)
        if isinstance(raw, dict):
            values = _section(name, cls, raw, problems)
            if name in SECRETS and secrets:
                values["password"] = _password(name, raw, values, env, base, problems)
            sections[name] = values
    judge = sections.get("judge", {})
    if "judge" in sections and not judge.get("address"):
        problems.append("[judge] address: required: the judge's mail address, e.g. judge@example.org")
    for name in ("imap", "smtp"):
        server = sections.get(name)
        if server is not None:
            problems += _server_problems(name, server, secrets)
    dkim = _dkim_values(sections.get("dkim", {}), str(judge.get("address", "")), env, base, secrets, problems)
    problems += _consistency_problems(judge, sections.get("imap", {}))
    problems += _exposure_problems(data, file_mode, source)
    judge.setdefault("db", "judge.db")
    for key in ("db", "variants_dir", "templates_dir", "backup_dir"):
        if judge.get(key) and judge[key] != ":memory:":
            judge[key] = str(base / Path(judge[key]).expanduser())
    _folder_problems(judge, problems)
    web = dict(sections.get("web", {}))
    if web.get("dir"):
        web["dir"] = str(base / Path(web["dir"]).expanduser())
    web["base_url"] = str(web.get("base_url") or "").rstrip("/")
    if "judge" in sections:  # its mode is checked where it is read (judge serve, check-config)
        judge["openpgp_key"] = _secret_key_file(judge.get("openpgp_key", ""), env, base, problems if secrets else [])
    if problems:
        count = "" if len(problems) == 1 else f"{len(problems)} problems: "
        raise ConfigError(f"{source or 'config'}: {count}" + "; ".join(problems))
    judge["address"] = judge["address"].lower()
    return Config(
        **judge,
        imap=ImapConfig(**sections["imap"]),
        smtp=SmtpConfig(**sections["smtp"]),
        dkim=DkimConfig(**dkim),
        web=WebConfig(**web),
        source=source,
        warnings=tuple(_exposure_warnings(data, file_mode, source) + _signing_warnings(judge["address"], dkim)),
    )


def _dkim_values(
    dkim: dict[str, Any], address: str, env: Mapping[str, str], base: Path, secrets: bool, problems: list[str]
) -> dict[str, Any]:
    """The [dkim] section completed: the key read (with ``secrets``), its file's path absolute, the signing domain
    the judge's address's unless given."""
    if secrets:
        dkim["key"] = _signing_key(dkim, env, base, problems)
    if dkim.get("sign_key"):
        dkim["sign_key"] = str(base / Path(dkim["sign_key"]).expanduser())
    dkim["domain"] = str(dkim.get("domain") or address.rpartition("@")[2]).lower()
    return dkim


def _folder_problems(judge: dict[str, Any], problems: list[str]) -> None:
    for key in ("variants_dir", "templates_dir", "backup_dir"):
        if judge.get(key) and not Path(judge[key]).is_dir():
            problems.append(f"[judge] {key}: {_one_line(judge[key])} is not a folder")


def _section_problems(data: dict[str, Any]) -> list[str]:
    """Sections unknown, missing, or given as a plain value."""
    problems = [f"[{name}]: unknown section{_nearest(name, SECTIONS)}" for name in data if name not in SECTIONS]
    for name in SECTIONS:
        if name not in data:
            if name in OPTIONAL_SECTIONS:
                continue
            problems.append(
                f"[{name}]: missing section"
                + (" (the judge's address)" if name == "judge" else f" (the {name.upper()} server)")
            )
        elif not isinstance(data[name], dict):
            problems.append(f"{name}: must be a [{name}] section, not a value")
    return problems


def _server_problems(name: str, values: dict[str, Any], secrets: bool) -> list[str]:
    """What the [imap] or [smtp] section lacks to log in."""
    problems = []
    if not values.get("host"):
        problems.append(f"[{name}] host: required: the {name.upper()} server's name")
    if name == "imap" and not values.get("username"):
        problems.append("[imap] username: required: the mailbox's login")
    if secrets and (name == "imap" or values.get("username")) and not values.get("password"):
        problems.append(
            f"[{name}] password: empty; give password_file, the systemd credential "
            f"{SECRETS[name][1]}, ${SECRETS[name][0]} or password"
        )
    if name == "smtp" and values.get("password") and not values.get("username"):
        problems.append("[smtp] username: required when a password is given")
    host = str(values.get("host", ""))
    if values.get("security") == "none" and host and not is_loopback(host):
        problems.append(
            f'[{name}] security: "none" sends mail and password in clear text, so it is for a loopback host only '
            f'(127.0.0.1, ::1, localhost), not {host!r}; use "ssl" or "starttls"'
        )
    return problems


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine: localhost, an address in 127.0.0.0/8, or ::1 (also as ``[::1]``)."""
    name = host.strip().lower().removeprefix("[").removesuffix("]").rstrip(".")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _holds_password(data: dict[str, Any]) -> bool:
    return any(isinstance(data.get(name), dict) and data[name].get("password") for name in SECRETS)


def _exposure_problems(data: dict[str, Any], mode: int | None, source: str) -> list[str]:
    """A file holding a password that every user of the machine can read is refused (as a password_file is)."""
    if mode is None or not _holds_password(data) or not mode & stat.S_IROTH:
        return []
    return [
        f"{_one_line(source)} holds a password and is readable by every user (mode {stat.S_IMODE(mode):04o}); "
        f"chmod 0600 (or 0640 with the judge's group) it, or move the password to a password_file or credential"
    ]


def _signing_warnings(address: str, dkim: dict[str, Any]) -> list[str]:
    """A signing domain that is neither the judge's address's domain nor a parent of it: receivers that check DMARC
    do not count the signature for the judge's mail."""
    domain, own = str(dkim.get("domain", "")), address.rpartition("@")[2]
    if not dkim.get("key") or not domain or own == domain or own.endswith("." + domain):
        return []
    return [
        f"[dkim] domain: {domain} is not {own} nor a parent of it, so the signature does not speak for the "
        f"judge's address"
    ]


def _exposure_warnings(data: dict[str, Any], mode: int | None, source: str) -> list[str]:
    """A file holding a password that its group can read: allowed (the guide gives the judge's group read access
    to a file owned by root), but better kept out of it."""
    if mode is None or not _holds_password(data) or not mode & stat.S_IRGRP or mode & stat.S_IROTH:
        return []
    return [
        f"{_one_line(source)} holds a password and is readable by its group (mode {stat.S_IMODE(mode):04o}); "
        f"better keep the password in a password_file (mode 0600) or a systemd credential"
    ]


def _consistency_problems(judge: dict[str, Any], imap: dict[str, Any]) -> list[str]:
    """Settings each valid alone that together would make the judge act on mail twice."""
    problems = []
    defaults = {f.name: f.default for f in fields(Config)}
    kept, age = (judge.get(k, defaults[k]) for k in ("handled_retention_days", "max_mail_age_days"))
    if isinstance(kept, int) and isinstance(age, int) and kept <= age:
        problems.append(
            f"[judge] handled_retention_days: more than max_mail_age_days ({age}), not {kept}: handled "
            f"mail forgotten while it is still new enough to act on would be acted on again if resent"
        )
    inbox = str(imap.get("folder", "INBOX"))
    for key in ("processed_folder", "rejected_folder", "quarantine_folder"):
        folder = str(imap.get(key, ""))
        if folder and (folder == inbox or folder.upper() == inbox.upper() == "INBOX"):
            problems.append(
                f"[imap] {key}: a folder other than the one read ({inbox}), not {folder!r}: mail moved "
                f"there would be read again"
            )
    return problems


def _nearest(key: str, known: Any) -> str:
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(sorted(known))})"


def _section(name: str, cls: type, raw: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    schema = {f.name: f for f in fields(cls) if not f.metadata.get("internal")}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        spec = schema.get(key)
        if spec is None:
            problems.append(f"[{name}] {key}: unknown setting{_nearest(key, schema)}")
            continue
        problem = _check_value(hints[key], spec.metadata, value)
        if problem:
            problems.append(f"[{name}] {key}: {problem}, not {value!r}")
        else:
            values[key] = value
    return values


def _check_value(kind: Any, meta: Mapping[str, Any], value: Any) -> str | None:
    if kind is bool:
        return None if isinstance(value, bool) else "true or false"
    if kind is int:
        low, high = meta["low"], meta["high"]
        span = f" from {low} to {high}" if low is not None and high is not None else ""
        if not isinstance(value, int) or isinstance(value, bool):
            return f"a whole number{span}"
        if (low is not None and value < low) or (high is not None and value > high):
            return f"a whole number{span}"
        return None
    if not isinstance(value, str):
        return "a string in quotes"
    if meta["choices"] and value not in meta["choices"]:
        return "one of " + ", ".join(meta["choices"])
    check: Callable[[str], str | None] | None = meta["check"]
    return check(value) if check else None


def _password(
    name: str, raw: dict[str, Any], values: dict[str, Any], env: Mapping[str, str], base: Path, problems: list[str]
) -> str:
    variable, credential = SECRETS[name]
    if values.get("password") and values.get("password_file"):
        problems.append(f"[{name}] password_file: give either password or password_file, not both")
    if env.get(variable):
        return env[variable]
    if values.get("password_file"):
        return _read_secret(Path(base / values["password_file"]), f"[{name}] password_file", problems)
    creds = env.get("CREDENTIALS_DIRECTORY")
    if creds and (Path(creds) / credential).is_file():
        return _read_secret(Path(creds) / credential, f"systemd credential {credential}", problems)
    return str(values.get("password", ""))


def _signing_key(dkim: dict[str, Any], env: Mapping[str, str], base: Path, problems: list[str]) -> str:
    """The judge's DKIM signing key: from [dkim] sign_key, else the systemd credential dkim-key; "" when neither.
    A key file others can read, or anyone but its owner can change, is refused (as ssh refuses a private key)."""
    text = ""
    creds = env.get("CREDENTIALS_DIRECTORY")
    if dkim.get("sign_key"):
        path = base / Path(dkim["sign_key"]).expanduser()
        text = _read_secret(path, "[dkim] sign_key", problems, loose=stat.S_IRWXO | stat.S_IWGRP)
    elif creds and (Path(creds) / DKIM_KEY_CREDENTIAL).is_file():
        text = _read_secret(Path(creds) / DKIM_KEY_CREDENTIAL, f"systemd credential {DKIM_KEY_CREDENTIAL}", problems)
    if text and not dkim.get("selector"):
        problems.append("[dkim] selector: required to sign with the key: the name it is published under in DNS")
    if dkim.get("selector") and not text and not dkim.get("sign_key"):
        problems.append(
            f"[dkim] sign_key: required with a selector: the key file, or the credential {DKIM_KEY_CREDENTIAL}"
        )
    return text


def _secret_key_file(value: str, env: Mapping[str, str], base: Path, problems: list[str]) -> str:
    """The judge's OpenPGP secret key file: ``openpgp_key`` (relative to the config's folder), else the systemd
    credential ``openpgp-key``; "" for none. Refused when it is not a readable file, or when users other than the
    judge's may read it (a secret key is a password that cannot be changed in place)."""
    what = "[judge] openpgp_key"
    if value:
        path = base / Path(value).expanduser()
    else:
        creds = env.get("CREDENTIALS_DIRECTORY")
        if not creds or not (Path(creds) / "openpgp-key").is_file():
            return ""
        path, what = Path(creds) / "openpgp-key", "systemd credential openpgp-key"
    try:
        mode = path.stat().st_mode
        with path.open("rb"):
            pass
    except OSError as exc:
        problems.append(f"{what}: cannot read {_one_line(str(path))}: {exc.strerror or exc}")
        return ""
    except ValueError:
        problems.append(f"{what}: {str(path)!r} is not a file name")
        return ""
    if not stat.S_ISREG(mode):
        problems.append(f"{what}: {_one_line(str(path))} is not a file")
    elif mode & (stat.S_IRGRP | stat.S_IROTH | stat.S_IWGRP | stat.S_IWOTH):
        problems.append(f"{what}: {_one_line(str(path))} is readable or writable by other users; chmod 0600 it")
    return str(path)


def _one_line(text: str) -> str:
    """A file name as an error shows it: quoted when it holds a line break or other control character."""
    return repr(text) if any(ord(ch) < 32 or ord(ch) == 127 for ch in text) else text


def _read_secret(path: Path, what: str, problems: list[str], *, loose: int = stat.S_IROTH) -> str:
    try:
        mode = path.stat().st_mode
        secret = path.read_text(encoding="utf-8").strip("\r\n")
    except OSError as exc:
        problems.append(f"{what}: cannot read {_one_line(str(path))}: {exc.strerror or exc}")
        return ""
    except ValueError:  # a NUL in the name: no such file can exist
        problems.append(f"{what}: {str(path)!r} is not a file name")
        return ""
    except UnicodeDecodeError:
        problems.append(f"{what}: {path} is not UTF-8 text")
        return ""
    if mode & loose & stat.S_IROTH:
        problems.append(f"{what}: {path} is readable by every user; chmod 0600 it")
    elif mode & loose:
        problems.append(
            f"{what}: {path} may be changed or read by others (mode {stat.S_IMODE(mode):04o}); chmod 0600 it"
        )
    if not secret:
        problems.append(f"{what}: {path} is empty")
    return secret


# --- the database --------------------------------------------------------------------------------------------------


def database_problem(path: str | Path, *, create: bool) -> str | None:
    """Why the database at ``path`` cannot be used (None when it can): its folder must exist and be writable; without
    ``create`` the file itself must already exist."""
    if str(path) == ":memory:":
        return None
    db = Path(path)
    folder = db.parent if str(db.parent) else Path(".")
    if db.is_dir():
        return f"the database {db} is a folder; set [judge] db to a file in it"
    if not db.exists():
        if not create:
            return (
                f"there is no database at {db}: no game was ever created there; create one with "
                f"`judge game create NAME` (check --config/--db if it should exist)"
            )
        if not folder.is_dir():
            return (
                f"the database folder {folder} does not exist; create it (sudo install -d -o judge -m 0750 "
                f"{folder}) or set [judge] db"
            )
        if not os.access(folder, os.W_OK | os.X_OK):
            return f"the database folder {folder} is not writable by this user (run as the judge's user)"
        return None
    if not os.access(db, os.R_OK | os.W_OK) or not os.access(folder, os.W_OK | os.X_OK):
        return f"the database {db} (or its folder) is not writable by this user (run as the judge's user)"
    return None


# --- writing an example --------------------------------------------------------------------------------------------

EXAMPLE_VALUES: dict[str, dict[str, Any]] = {
    "judge": {
        "address": "judge@example.org",
        "db": "/var/lib/judge/judge.db",
        "timezone": "UTC",
        "language": "en",
        "max_replies_per_hour": MAX_REPLIES_PER_HOUR,
        "max_mail_age_days": MAX_MAIL_AGE_DAYS,
        "sender_check": "none",
    },
    "imap": {
        "host": "imap.example.org",
        "port": 993,
        "security": "ssl",
        "username": "judge@example.org",
        "folder": "INBOX",
        "processed_folder": "Processed",
        "rejected_folder": "Rejected",
        "idle": True,
        "poll_seconds": 60,
    },
    "smtp": {"host": "smtp.example.org", "port": 587, "security": "starttls", "username": "judge@example.org"},
}


def example_toml(values: Mapping[str, Mapping[str, Any]] = EXAMPLE_VALUES) -> str:
    """A commented configuration: every value written by tomli-w, every comment from the schema's help text."""
    import tomli_w

    out = [
        "# judge.toml - the judge's configuration (docs/deploy.md). Check it with: judge check-config",
        "# Passwords: best kept out of this file - a systemd credential (imap-password, smtp-password), a",
        "# password_file (mode 0600), or $JUDGE_IMAP_PASSWORD / $JUDGE_SMTP_PASSWORD.",
        "",
    ]
    for name, cls in SECTIONS.items():
        out.append(f"[{name}]")
        helps = {f.name: f.metadata.get("help", "") for f in fields(cls)}
        for key, value in values.get(name, {}).items():
            out.append(f"# {helps[key]}")
            out.append(tomli_w.dumps({key: value}).rstrip("\n"))
        if name in SECRETS:
            out.append(f'# password_file = "/etc/judge/{SECRETS[name][1]}"   # {helps["password_file"]}')
        if name == "dkim":  # all optional: shown, not set
            out.append('# DKIM (docs/mail.md#dkim): read with [judge] sender_check = "dkim"; signing the judge\'s mail')
            for key, example in (("resolver", '"127.0.0.1"'), ("sign_key", '"/etc/judge/dkim.key"')):
                out.append(f"# {key} = {example}   # {helps[key]}")
            out.append(f'# selector = "judge1"   # {helps["selector"]}')
        if name == "web":  # optional: shown, not set
            out.append(
                "# the public archive of the games, as static files (docs/web.md); `judge web build` writes it all"
            )
            out.append(f'# dir = "/var/www/diplomacy"   # {helps["dir"]}')
            out.append(f'# base_url = "https://example.org/diplomacy"   # {helps["base_url"]}')
        out.append("")
    text = "\n".join(out)
    tomllib.loads(text)  # what we write must read back
    return text
