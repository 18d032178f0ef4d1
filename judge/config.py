"""The daemon's configuration: one TOML file read into frozen dataclasses; secrets may come from the environment.

Path: ``--config``, else ``$JUDGE_CONFIG``, else ``./judge.toml``. ``JUDGE_IMAP_PASSWORD`` and ``JUDGE_SMTP_PASSWORD``
override the passwords in the file. A bad file raises ``ConfigError`` listing every problem (the daemon exits 2).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SECURITY = ("ssl", "starttls", "none")


class ConfigError(Exception):
    """The configuration cannot be used; the message lists every problem."""


@dataclass(frozen=True)
class ImapConfig:
    host: str
    port: int = 993
    security: str = "ssl"
    username: str = ""
    password: str = field(default="", repr=False)
    folder: str = "INBOX"
    processed_folder: str = "Processed"
    rejected_folder: str = "Rejected"
    idle: bool = True
    poll_seconds: int = 60
    timeout: int = 60
    quarantine_folder: str = "Quarantine"  # mail that could not be parsed or handled (reason in the database)


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int = 587
    security: str = "starttls"
    username: str = ""
    password: str = field(default="", repr=False)
    timeout: int = 60
    max_delivery_days: float = 5  # a mail the server keeps deferring (4xx) is given up after this long


@dataclass(frozen=True)
class Config:
    address: str  # the judge's own address: From of every mail it sends, and where players write
    db: str = "judge.db"
    timezone: str = "UTC"
    imap: ImapConfig | None = None
    smtp: SmtpConfig | None = None
    max_replies_per_hour: int = 30  # per recipient, for mail that answers a message
    source: str = ""  # the file it came from
    language: str = "en"  # the language of players who have not chosen one (SET LANGUAGE)
    mail_retention_days: float = 30  # bodies of sent mail are pruned after this (the record stays)
    handled_retention_days: float = 90  # records of handled mail and sign-on failures are pruned after this


def config_path(explicit: str | None) -> Path:
    return Path(explicit or os.environ.get("JUDGE_CONFIG") or "judge.toml")


def load_config(path: Path, environ: dict[str, str] | None = None) -> Config:
    env = os.environ if environ is None else environ
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; write one with: judge init {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return config_from_data(data, env, str(path))


def config_from_data(data: dict[str, Any], env: dict[str, str] | os._Environ[str], source: str = "") -> Config:
    problems: list[str] = []
    judge = data.get("judge", {})
    address = str(judge.get("address", "")).strip()
    if "@" not in address:
        problems.append("[judge] address: the judge's mail address, e.g. judge@example.org")
    imap = _section(data, "imap", ImapConfig, env.get("JUDGE_IMAP_PASSWORD"), problems)
    smtp = _section(data, "smtp", SmtpConfig, env.get("JUDGE_SMTP_PASSWORD"), problems)
    db_path = str(judge.get("db", "judge.db"))
    language = str(judge.get("language", "en"))
    if language not in ("en", "ru", "de"):
        problems.append("[judge] language: en, ru or de")
    for section, key in (("judge", "mail_retention_days"), ("judge", "handled_retention_days"),
                         ("smtp", "max_delivery_days")):
        value = (data.get(section) or {}).get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
            problems.append(f"[{section}] {key}: a number of days above 0")
    if problems:
        raise ConfigError(f"{source or 'config'}: {len(problems)} problem(s):\n" +
                          "\n".join(f"  - {p}" for p in problems))
    return Config(address.lower(), db_path, str(judge.get("timezone", "UTC")), imap, smtp,  # type: ignore[arg-type]
                  int(judge.get("max_replies_per_hour", 30)), source, language,
                  mail_retention_days=float(judge.get("mail_retention_days", 30)),
                  handled_retention_days=float(judge.get("handled_retention_days", 90)))


def _section(data: dict[str, Any], name: str, cls: Any, secret: str | None, problems: list[str]) -> Any:
    raw = data.get(name)
    if raw is None:
        return None
    known = set(cls.__dataclass_fields__)
    for key in raw:
        if key not in known:
            problems.append(f"[{name}] {key}: unknown setting (known: {', '.join(sorted(known))})")
    values = {k: v for k, v in raw.items() if k in known}
    if secret:
        values["password"] = secret
    if not values.get("host"):
        problems.append(f"[{name}] host: the server's name")
    if values.get("security", cls.__dataclass_fields__["security"].default) not in SECURITY:
        problems.append(f"[{name}] security: one of {', '.join(SECURITY)}")
    port = values.get("port", cls.__dataclass_fields__["port"].default)
    if not isinstance(port, int) or not 0 < port < 65536:
        problems.append(f"[{name}] port: a number from 1 to 65535")
    try:
        return cls(**values)
    except TypeError as exc:
        problems.append(f"[{name}]: {exc}")
        return None


EXAMPLE = '''# judge.toml - the configuration of `judge serve` (see docs/deploy.md)
# Secrets may stay out of this file: JUDGE_IMAP_PASSWORD and JUDGE_SMTP_PASSWORD override the passwords below.

[judge]
address = "judge@example.org"       # players write here; every mail the judge sends comes from here
db = "/var/lib/judge/judge.db"      # the SQLite file with every game
timezone = "Europe/Berlin"          # the host's zone for logs; players choose their own with SET TIMEZONE
language = "en"                     # en, ru or de: for players who have not chosen (SET LANGUAGE)
max_replies_per_hour = 30           # answers to one address per hour, against mail loops

[imap]                              # the mailbox the judge reads orders from
host = "imap.example.org"
port = 993
security = "ssl"                    # "ssl" (port 993), "starttls" (143) or "none" (loopback only)
username = "judge@example.org"
password = ""                       # better: JUDGE_IMAP_PASSWORD in the environment
folder = "INBOX"
processed_folder = "Processed"      # handled mail is moved here, never deleted
rejected_folder = "Rejected"        # mail that could not be read (too large, not text) goes here
idle = true                         # wake at once with IMAP IDLE where the server has it
poll_seconds = 60                   # and look for new mail at least this often in any case

[smtp]                              # the server the judge sends through
host = "smtp.example.org"
port = 587
security = "starttls"               # "starttls" (587), "ssl" (465) or "none" (loopback only)
username = "judge@example.org"
password = ""                       # better: JUDGE_SMTP_PASSWORD in the environment
'''
