"""The configuration: found the same way by every command, one strict schema, secrets from outside the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge import config
from judge.cli import main
from judge.config import ConfigError, config_from_data, find_config, load_config

GOOD = {
    "judge": {"address": "judge@example.org", "db": "games.db"},
    "imap": {"host": "imap.example.org", "username": "judge", "password": "imap-secret"},
    "smtp": {"host": "smtp.example.org", "username": "judge", "password": "smtp-secret"},
}


def _with(section: str, **values: object) -> dict:
    data = {name: dict(body) for name, body in GOOD.items()}
    data[section].update(values)
    return data


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder, with no configuration in the environment or the system folder."""
    monkeypatch.chdir(tmp_path)
    for name in ("JUDGE_CONFIG", "JUDGE_DB", "JUDGE_IMAP_PASSWORD", "JUDGE_SMTP_PASSWORD", "CREDENTIALS_DIRECTORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "etc" / "judge.toml")
    return tmp_path


def _write(path: Path, db: str = "games.db", extra: str = "", timezone: str = "UTC") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"""
[judge]
address = "judge@example.org"
db = "{db}"
timezone = "{timezone}"
{extra}
[imap]
host = "127.0.0.1"
username = "judge"
password = "imap-secret"
[smtp]
host = "127.0.0.1"
""")
    path.chmod(0o600)  # it holds a password
    return path


def test_the_search_order(nowhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_config(None) is None
    system = _write(config.SYSTEM_CONFIG)
    assert find_config(None) == system
    local = _write(nowhere / "judge.toml")
    assert find_config(None) == Path("judge.toml") and local.is_file()
    monkeypatch.setenv("JUDGE_CONFIG", "/somewhere/else.toml")
    assert find_config(None) == Path("/somewhere/else.toml")  # named, so a missing file is an error, not skipped
    assert find_config("given.toml") == Path("given.toml")


def test_game_commands_use_the_configured_database_from_any_folder(nowhere: Path, monkeypatch, capsys) -> None:
    home = nowhere / "srv"
    cfg = _write(home / "judge.toml", db="games.db")  # relative: beside the config file, not the working folder
    elsewhere = nowhere / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["game", "list"]) == 2  # no configuration here: one line says what to do
    assert "judge init" in capsys.readouterr().err
    assert main(["--config", str(cfg), "game", "create", "g"]) == 0
    assert (home / "games.db").is_file() and not (elsewhere / "judge.db").exists()
    monkeypatch.setenv("JUDGE_CONFIG", str(cfg))
    capsys.readouterr()
    assert main(["game", "list"]) == 0 and capsys.readouterr().out.startswith("g ")
    assert main(["game", "show", "g", "--config", str(cfg)]) == 0
    assert main(["game", "list", "--db", str(elsewhere / "other.db")]) == 1  # --db still wins, and is not created
    assert not (elsewhere / "other.db").exists()
    monkeypatch.delenv("JUDGE_CONFIG")
    _write(config.SYSTEM_CONFIG, db=str(home / "games.db"))
    capsys.readouterr()
    assert main(["game", "list"]) == 0 and "g " in capsys.readouterr().out  # the system file, last


BAD = [
    (_with("judge", timezone="Mars/Base"), "[judge] timezone"),
    (_with("imap", idle="no"), "[imap] idle: true or false"),
    (_with("imap", idle=1), "[imap] idle: true or false"),
    (_with("imap", poll_seconds="soon"), "[imap] poll_seconds: a whole number from 1 to 3600"),
    (_with("imap", poll_seconds=-5), "[imap] poll_seconds"),
    (_with("imap", poll_seconds=True), "[imap] poll_seconds"),
    (_with("judge", max_replies_per_hour="lots"), "[judge] max_replies_per_hour: a whole number"),
    (_with("judge", max_replies_per_hour=-1), "[judge] max_replies_per_hour"),
    (_with("smtp", port=0), "[smtp] port: a whole number from 1 to 65535"),
    (_with("smtp", port=70000), "[smtp] port"),
    (_with("imap", security="tls"), "[imap] security: one of ssl, starttls, none"),
    (_with("judge", language="fr"), "[judge] language: one of en, ru, de"),
    (_with("judge", address="nobody"), "[judge] address"),
    (_with("imap", pol_seconds=30), "[imap] pol_seconds: unknown setting; did you mean 'poll_seconds'?"),
    (_with("judge", adress="x@y.org"), "did you mean 'address'?"),
    (_with("imap", password=""), "[imap] password: empty"),
    (_with("smtp", password=""), "[smtp] password: empty"),
    (_with("smtp", username="", password="x"), "[smtp] username: required when a password is given"),
    (_with("judge", mail_retention_days=0), "[judge] mail_retention_days"),
    (_with("smtp", max_delivery_days="5"), "[smtp] max_delivery_days"),
    (_with("judge", variants_dir="/nonexistent/variants"), "[judge] variants_dir: /nonexistent/variants is not a"),
    (_with("imap", host=""), "[imap] host: required"),
    (_with("imap", folder=""), "[imap] folder"),
    (_with("judge", db=" "), "[judge] db: a file name"),
    ({**GOOD, "imapp": {}}, "[imapp]: unknown section; did you mean 'imap'?"),
    ({"judge": GOOD["judge"], "imap": GOOD["imap"]}, "[smtp]: missing section"),
    ({**GOOD, "smtp": "localhost"}, "smtp: must be a [smtp] section"),
    (_with("imap", security="none"), '[imap] security: "none" sends mail and password in clear text'),
    (_with("smtp", host="mail.google.com", security="none"), "loopback host only (127.0.0.1, ::1, localhost), not"),
    (_with("smtp", host="127.0.0.1.example.org", security="none"), "[smtp] security"),
    (_with("imap", host="::2", security="none"), "[imap] security"),
]


@pytest.mark.parametrize("data,expected", BAD, ids=[e for _, e in BAD])
def test_every_bad_value_is_named(data: dict, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data(data, {}, "judge.toml")
    message = str(caught.value)
    assert expected in message and "\n" not in message
    assert "imap-secret" not in message and "smtp-secret" not in message
    assert "__init__" not in message and "positional argument" not in message  # never Python's own words


def test_every_problem_at_once() -> None:
    data = _with("imap", idle="no", poll_seconds="soon", colour=1)
    data["judge"]["timezone"] = "Mars/Base"
    with pytest.raises(ConfigError) as caught:
        config_from_data(data, {}, "judge.toml")
    assert "4 problems" in str(caught.value)


def test_the_keys_other_parts_of_the_judge_read_have_defaults() -> None:
    cfg = config_from_data(GOOD, {}, "")
    assert cfg.smtp is not None and cfg.smtp.max_delivery_days == 5
    assert (cfg.mail_retention_days, cfg.handled_retention_days, cfg.max_mail_age_days) == (30, 90, 7)
    assert cfg.imap is not None and cfg.imap.quarantine_folder == "Quarantine"
    data = _with("smtp", max_delivery_days=3)
    data["judge"].update(mail_retention_days=10, handled_retention_days=20, max_mail_age_days=2, timezone="Asia/Tokyo")
    data["imap"]["quarantine_folder"] = "Odd"
    cfg = config_from_data(data, {}, "")
    assert cfg.smtp is not None and cfg.smtp.max_delivery_days == 3 and cfg.max_mail_age_days == 2
    assert cfg.imap is not None and cfg.imap.quarantine_folder == "Odd" and str(cfg.zone) == "Asia/Tokyo"


def test_secrets_from_the_environment_a_file_or_systemd(tmp_path: Path) -> None:
    bare = {name: {k: v for k, v in body.items() if k != "password"} for name, body in GOOD.items()}
    env = {"JUDGE_IMAP_PASSWORD": "from-env", "JUDGE_SMTP_PASSWORD": "smtp-env"}
    cfg = config_from_data(bare, env, "")
    assert cfg.imap is not None and cfg.imap.password == "from-env" and "from-env" not in repr(cfg)
    secret = tmp_path / "imap-password"
    secret.write_text("from-file\n")
    secret.chmod(0o600)
    data = {**bare, "imap": {**bare["imap"], "password_file": "imap-password"}}  # relative to the config file
    cfg = config_from_data(data, {"JUDGE_SMTP_PASSWORD": "x"}, str(tmp_path / "judge.toml"))
    assert cfg.imap is not None and cfg.imap.password == "from-file"
    secret.chmod(0o644)
    with pytest.raises(ConfigError, match="readable by every user"):
        config_from_data(data, {"JUDGE_SMTP_PASSWORD": "x"}, str(tmp_path / "judge.toml"))
    with pytest.raises(ConfigError, match="not both"):
        config_from_data(
            {**data, "imap": {**data["imap"], "password": "inline"}},
            {"JUDGE_SMTP_PASSWORD": "x"},
            str(tmp_path / "judge.toml"),
        )
    creds = tmp_path / "creds"
    creds.mkdir()
    (creds / "imap-password").write_text("from-systemd")
    (creds / "smtp-password").write_text("smtp-systemd")
    for path in creds.iterdir():
        path.chmod(0o400)
    cfg = config_from_data(bare, {"CREDENTIALS_DIRECTORY": str(creds)}, "")
    assert cfg.imap is not None and cfg.smtp is not None
    assert (cfg.imap.password, cfg.smtp.password) == ("from-systemd", "smtp-systemd")


def test_check_config_and_serve_accept_and_refuse_the_same(nowhere: Path, capsys) -> None:
    good = _write(nowhere / "good.toml", db=str(nowhere / "state" / "games.db"))
    assert main(["check-config", "--config", str(good)]) == 2  # the database folder does not exist yet
    assert main(["serve", "--once", "--config", str(good)]) == 2
    err = capsys.readouterr().err
    assert err.count("install -d") == 2 and "Traceback" not in err
    (nowhere / "state").mkdir()
    assert main(["check-config", "--config", str(good)]) == 0
    assert "servers not tried" in capsys.readouterr().out
    no_smtp = nowhere / "nosmtp.toml"
    no_smtp.write_text(good.read_text().split("[smtp]")[0])
    assert main(["check-config", "--config", str(no_smtp)]) == 2
    assert main(["serve", "--once", "--config", str(no_smtp)]) == 2
    unknown = nowhere / "unknown.toml"
    unknown.write_text(good.read_text().replace("[imap]", "[imap]\npoll_secs = 5"))
    assert main(["check-config", "--config", str(unknown)]) == 2
    assert main(["serve", "--once", "--config", str(unknown)]) == 2
    assert capsys.readouterr().err.count("did you mean 'poll_seconds'") == 2


def test_database_folder_must_be_writable(nowhere: Path, capsys) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    locked = nowhere / "locked"
    locked.mkdir(mode=0o500)
    cfg = _write(nowhere / "judge.toml", db=str(locked / "games.db"))
    assert main(["check-config", "--config", str(cfg)]) == 2
    assert "not writable" in capsys.readouterr().err


def test_extend_to_is_read_in_the_host_zone(nowhere: Path, capsys) -> None:
    cfg = _write(nowhere / "judge.toml", timezone="Europe/Berlin")
    now = ["--now", "2026-12-01T12:00:00Z"]
    assert main(["--config", str(cfg), "game", "create", "g", "--master", "gm@p.test", *now]) == 0
    for i, power in enumerate(("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")):
        assert (
            main(
                [
                    "game",
                    "join",
                    "g",
                    "--power",
                    power,
                    "--email",
                    f"p{i}@p.test",
                    "--password-file",
                    str(_secret(nowhere)),
                    *now,
                ]
            )
            == 0
        )
    assert main(["game", "start", "g", *now]) == 0
    capsys.readouterr()
    assert main(["game", "extend", "g", "--to", "2026-12-05T18:00", *now]) == 0
    assert "2026-12-05T17:00:00+00:00" in capsys.readouterr().out  # 18:00 in Berlin (CET) is 17:00 UTC
    assert main(["game", "extend", "g", "--to", "2026-12-06T18:00Z", *now]) == 0
    assert "2026-12-06T18:00:00+00:00" in capsys.readouterr().out  # an explicit offset wins


def _secret(folder: Path) -> Path:
    path = folder / "pw.txt"
    path.write_text("player-secret\n")
    return path


def test_init_writes_toml_that_reads_back_mode_0600(nowhere: Path) -> None:
    path = nowhere / "judge.toml"
    assert main(["init", str(path), "--address", 'odd"name@example.org', "--db", "/srv/j.db"]) == 0
    assert path.stat().st_mode & 0o777 == 0o600
    import tomllib

    data = tomllib.loads(path.read_text())
    assert data["judge"]["address"] == 'odd"name@example.org' and data["judge"]["db"] == "/srv/j.db"
    path.chmod(0o644)
    assert main(["init", str(path), "--force"]) == 0
    assert path.stat().st_mode & 0o777 == 0o600  # tightened on overwrite too


values = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=12), st.lists(st.integers(), max_size=2)
)
keys = st.sampled_from(
    [
        "host",
        "port",
        "security",
        "username",
        "password",
        "idle",
        "poll_seconds",
        "timeout",
        "folder",
        "address",
        "db",
        "timezone",
        "language",
        "max_replies_per_hour",
        "colour",
        "password_file",
        "max_delivery_days",
        "variants_dir",
    ]
)
sections = st.dictionaries(keys, values.filter(lambda v: v is not None), max_size=6)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["judge", "imap", "smtp", "extra"]), sections, max_size=4))
def test_any_file_gives_a_config_or_a_config_error(data: dict) -> None:
    try:
        cfg = config_from_data(data, {}, "")
    except ConfigError as exc:
        assert "\n" not in str(exc)
    else:
        assert cfg.address and cfg.imap is not None and cfg.smtp is not None


def test_game_commands_need_no_secrets(nowhere: Path, capsys) -> None:
    """The game master runs `judge game …` as the judge's user, who cannot read the root-only password file."""
    cfg = _write(nowhere / "judge.toml")
    cfg.write_text(cfg.read_text().replace('password = "imap-secret"', 'password_file = "/root-only/imap-password"'))
    assert main(["--config", str(cfg), "game", "create", "g"]) == 0
    assert main(["--config", str(cfg), "game", "list"]) == 0
    capsys.readouterr()
    assert main(["check-config", "--config", str(cfg)]) == 2  # the daemon's view: the password cannot be read
    assert "imap-password" in capsys.readouterr().err


def test_every_setting_is_documented() -> None:
    from dataclasses import fields

    docs = (Path(__file__).resolve().parent.parent / "docs" / "deploy.md").read_text()
    for section, cls in config.SECTIONS.items():
        rows = [line.split("|")[1] for line in docs.splitlines() if line.startswith(f"| `[{section}] ")]
        named = {word.strip("` ,") for row in rows for word in row.replace(f"[{section}]", "").split(",")}
        for f in fields(cls):
            if not f.metadata.get("internal"):
                assert f.name in named, f"[{section}] {f.name} is missing from the table in docs/deploy.md"


def test_the_commands_in_deploy_md_are_real(tmp_path: Path) -> None:
    """Each `judge …` line of docs/deploy.md is a valid command line, and the guide's configuration (the init line
    with the edits its comments describe) passes check-config."""
    import shlex

    from judge.cli import _parser

    docs = (Path(__file__).resolve().parent.parent / "docs" / "deploy.md").read_text()
    lines = [
        line.split("/opt/judge/.venv/bin/judge ", 1)[1].split("#")[0]
        for line in docs.splitlines()
        if "/opt/judge/.venv/bin/judge " in line
    ]
    assert len(lines) >= 4
    for line in lines:
        _parser().parse_args(shlex.split(line))  # a CliError (exit 2) if the guide drifts from the command line
    init = next(shlex.split(line) for line in lines if line.startswith("init "))
    path = tmp_path / "judge.toml"
    init[1] = str(path)
    init[init.index("--db") + 1] = str(tmp_path / "judge.db")
    assert main(init) == 0
    text = path.read_text()
    for old, new in (
        ('host = "imap.example.org"', 'host = "127.0.0.1"'),
        ("port = 993", "port = 143"),
        ('security = "ssl"', 'security = "none"'),
        ('username = "judge@example.org"\n# w', 'username = "judgemail"\n# w'),
        ('host = "smtp.example.org"', 'host = "127.0.0.1"'),
        ("port = 587", "port = 25"),
        ('security = "starttls"', 'security = "none"'),
    ):
        assert old in text, old
        text = text.replace(old, new, 1)
    text = text.replace('username = "judge@example.org"', 'username = ""')  # the SMTP login: none for Postfix
    path.write_text(text)
    secret = tmp_path / "imap-password"
    secret.write_text("mailbox-secret\n")
    secret.chmod(0o600)
    env = {"CREDENTIALS_DIRECTORY": str(tmp_path)}
    cfg = load_config(path, env)
    assert cfg.imap is not None and cfg.imap.username == "judgemail" and cfg.imap.password == "mailbox-secret"
    assert cfg.smtp is not None and cfg.smtp.username == "" and cfg.smtp.port == 25


@pytest.mark.parametrize("host", ["127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost", "LOCALHOST", "localhost."])
def test_no_tls_for_a_loopback_host(host: str) -> None:
    cfg = config_from_data(_with("imap", host=host, security="none"), {}, "")
    assert cfg.imap is not None and cfg.imap.security == "none"
    assert config.is_loopback(host)


def test_a_file_holding_a_password_that_every_user_can_read_is_refused(nowhere: Path, capsys) -> None:
    path = _write(nowhere / "judge.toml")
    path.chmod(0o644)
    with pytest.raises(ConfigError) as caught:
        load_config(path, {})
    message = str(caught.value)
    assert "holds a password and is readable by every user (mode 0644)" in message and "chmod 0600" in message
    assert "imap-secret" not in message and "\n" not in message
    assert main(["check-config", "--config", str(path)]) == 2
    assert "readable by every user" in capsys.readouterr().err
    # the same file with the password kept elsewhere: nothing in it to hide
    secret = nowhere / "imap-password"
    secret.write_text("imap-secret\n")
    secret.chmod(0o600)
    path.write_text(path.read_text().replace('password = "imap-secret"', f'password_file = "{secret}"'))
    path.chmod(0o644)
    cfg = load_config(path, {})
    assert cfg.imap is not None and cfg.imap.password == "imap-secret" and cfg.warnings == ()


def test_a_file_holding_a_password_that_its_group_can_read_is_warned_of(nowhere: Path, capsys) -> None:
    path = _write(nowhere / "judge.toml")
    assert load_config(path, {}).warnings == ()  # 0600: nothing to say
    path.chmod(0o640)
    cfg = load_config(path, {})
    assert len(cfg.warnings) == 1 and "readable by its group (mode 0640)" in cfg.warnings[0]
    assert main(["check-config", "--config", str(path)]) == 0
    captured = capsys.readouterr()
    assert "ok" in captured.out and "judge: warning:" in captured.err and "imap-secret" not in captured.err


def _dkim(**values: object) -> dict:
    data = {name: dict(body) for name, body in GOOD.items()}
    data["dkim"] = dict(values)
    return data


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (_with("judge", sender_check="pgp"), "[judge] sender_check: one of none, dkim"),
        (_dkim(resolver="dns.example.org"), "[dkim] resolver: the address of a DNS resolver"),
        (_dkim(resolver="127.0.0.1:0"), "[dkim] resolver"),
        (_dkim(timeout=0), "[dkim] timeout: a whole number from 1 to 30"),
        (_dkim(alignment="loose"), "[dkim] alignment: one of relaxed, strict"),
        (_dkim(selector="bad selector"), "[dkim] selector: a DNS label"),
        (_dkim(domain="example"), "[dkim] domain: a domain name"),
        (_dkim(authserv_id="mx; dkim=pass"), "[dkim] authserv_id"),
        (_dkim(selector="judge1"), "[dkim] sign_key: required with a selector"),
        (_dkim(sign_key="/nonexistent/dkim.key", selector="judge1"), "[dkim] sign_key: cannot read"),
        ({**GOOD, "dkim": "on"}, "dkim: must be a [dkim] section"),
    ],
)
def test_every_bad_dkim_value_is_named(data: dict, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data(data, {}, "judge.toml")
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_the_dkim_section_is_optional_and_its_defaults() -> None:
    cfg = config_from_data(GOOD, {}, "")
    assert cfg.sender_check == "none" and cfg.dkim.resolver == "" and cfg.dkim.timeout == 5
    assert cfg.dkim.domain == "example.org" and not cfg.dkim.signs and cfg.dkim.alignment == "relaxed"
    cfg = config_from_data(
        {**_with("judge", sender_check="dkim"), "dkim": {"resolver": "[::1]:5353", "domain": "Mail.Example.ORG"}},
        {},
        "",
    )
    assert cfg.sender_check == "dkim" and config.resolver_address(cfg.dkim.resolver) == ("::1", 5353)
    assert cfg.dkim.domain == "mail.example.org"


def test_the_signing_key_from_a_file_or_a_credential(tmp_path: Path) -> None:
    key = tmp_path / "dkim.key"
    key.write_text("-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0\n-----END RSA PRIVATE KEY-----\n")
    for mode, problem in ((0o644, "readable by every user"), (0o660, "may be changed or read by others (mode 0660)")):
        key.chmod(mode)
        with pytest.raises(ConfigError) as caught:
            config_from_data(_dkim(sign_key=str(key), selector="judge1"), {}, "")
        assert problem in str(caught.value) and "c2VjcmV0" not in str(caught.value)
    key.chmod(0o640)  # root:judge, as the guide has it for the configuration
    cfg = config_from_data(_dkim(sign_key="dkim.key", selector="judge1"), {}, str(tmp_path / "judge.toml"))
    assert cfg.dkim.signs and "c2VjcmV0" in cfg.dkim.key and "c2VjcmV0" not in repr(cfg)
    assert cfg.dkim.sign_key == str(key)
    assert not config_from_data(_dkim(sign_key=str(key), selector="judge1"), {}, "", secrets=False).dkim.signs
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "dkim-key").write_text(key.read_text())
    (credentials / "dkim-key").chmod(0o400)
    env = {"CREDENTIALS_DIRECTORY": str(credentials)}
    assert config_from_data(_dkim(selector="judge1"), env, "").dkim.signs
    with pytest.raises(ConfigError) as caught:
        config_from_data(_dkim(), env, "")  # a key and nowhere to say where its public half is
    assert "[dkim] selector: required to sign" in str(caught.value)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.tuples(st.ip_addresses(v=4), st.none() | st.integers(1, 65535)).map(
            lambda t: (f"{t[0]}:{t[1]}" if t[1] else str(t[0]), (str(t[0]), t[1] or 53))
        ),
        st.tuples(st.ip_addresses(v=6), st.none() | st.integers(1, 65535)).map(
            lambda t: (f"[{t[0]}]:{t[1]}" if t[1] else str(t[0]), (str(t[0]), t[1] or 53))
        ),
        st.text(max_size=40).map(lambda text: (text, None)),
    )
)
def test_resolver_addresses_read_back_or_are_refused(case: tuple[str, tuple[str, int] | None]) -> None:
    text, expected = case
    found = config.resolver_address(text)
    if expected is not None:
        assert found == expected
    else:
        assert found is None or (0 < found[1] < 65536 and found[0] in text)
    assert (config._resolver(text) is None) == (found is not None or not text)


def test_a_signing_domain_that_does_not_speak_for_the_address_is_warned_of(tmp_path: Path) -> None:
    key = tmp_path / "dkim.key"
    key.write_text("-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0\n-----END RSA PRIVATE KEY-----\n")
    key.chmod(0o600)
    for domain, warned in (("example.org", False), ("other.org", True)):
        cfg = config_from_data(_dkim(sign_key=str(key), selector="judge1", domain=domain), {}, "")
        assert bool(cfg.warnings) == warned, domain
    sub = _dkim(sign_key=str(key), selector="judge1")
    sub["judge"]["address"] = "judge@games.example.org"
    assert config_from_data({**sub, "dkim": {**sub["dkim"], "domain": "example.org"}}, {}, "").warnings == ()
