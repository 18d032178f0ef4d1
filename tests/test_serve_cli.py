"""`judge init`, `judge check-config`, `judge serve` exit codes, and `judge demo` end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mailservers import PASSWORD, ImapTap, SmtpSink, start_imap, write_config

from judge.cli import main
from judge.config import ConfigError, config_from_data, load_config

ROOT = Path(__file__).resolve().parent.parent


def test_init_writes_a_valid_example(tmp_path: Path) -> None:
    path = tmp_path / "judge.toml"
    assert main(["init", str(path)]) == 0
    assert path.stat().st_mode & 0o777 == 0o600  # it may come to hold a password
    cfg = load_config(path, environ={"JUDGE_IMAP_PASSWORD": "from-env", "JUDGE_SMTP_PASSWORD": "smtp-env"})
    assert cfg.address == "judge@example.org" and cfg.imap is not None and cfg.imap.password == "from-env"
    assert cfg.smtp is not None and cfg.smtp.password == "smtp-env"
    assert "from-env" not in repr(cfg)  # secrets stay out of logs and tracebacks
    assert main(["init", str(path)]) == 1  # never overwrites without --force


def test_bad_config_lists_every_problem_and_exits_2(tmp_path: Path, capsys) -> None:
    with pytest.raises(ConfigError) as err:
        config_from_data({"judge": {}, "imap": {"port": "x", "security": "tls", "colour": 1}}, {})
    text = str(err.value)
    assert "address" in text and "host" in text and "security" in text and "colour" in text and "port" in text
    bad = tmp_path / "bad.toml"
    bad.write_text("[judge]\naddress = 'nobody'\n")
    assert main(["serve", "--config", str(bad), "--once"]) == 2
    assert main(["check-config", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "judge init" in capsys.readouterr().err


def test_check_config_tries_both_servers(tmp_path: Path, capsys) -> None:
    imap = start_imap("pymap", tmp_path / "imap")
    smtp = SmtpSink().start()
    try:
        path = write_config(tmp_path / "judge.toml", imap, smtp, tmp_path / "judge.db", password="wrong")
        assert main(["check-config", "--config", str(path), "--connect"]) == 1
        out = capsys.readouterr().out
        assert "imap 127.0.0.1" in out and "FAILED" in out and f"smtp 127.0.0.1:{smtp.port}: ok" in out
        assert "wrong" not in out
        path.write_text(path.read_text().replace('"wrong"', f'"{PASSWORD}"'))
        assert main(["check-config", "--config", str(path), "--connect"]) == 0
    finally:
        smtp.stop()
        imap.stop()


@pytest.mark.slow
def test_demo_plays_a_game_by_mail(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "judge.cli", "demo", "--years", "1", "--dir", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "all seven players joined by mail" in out
    assert "S1901M adjudicated -> F1901M" in out
    assert "Diplomacy game demo: results of Fall 1901 movement" in out
    assert "Supply centres (solo at 18)" in out
    assert "phases played by mail" in out
    assert f"archive: {(tmp_path / 'd' / 'web' / 'index.html').resolve().as_uri()}" in out
    assert (tmp_path / "d" / "judge.db").is_file() and (tmp_path / "d" / "mail" / "england").is_dir()


@pytest.mark.parametrize("go_ahead", ["answered", "not yet answered"])
def test_sigterm_stops_the_daemon_while_it_waits(tmp_path: Path, go_ahead: str) -> None:
    """SIGTERM in IDLE stops it at once; also before the server has answered the IDLE (it used to send LOGOUT into
    the IDLE then, and wait for the server's answer until its timeout, 60 s)."""
    import signal

    imap = start_imap("pymap", tmp_path / "imap")
    tap = ImapTap(imap.port).start()  # to see the daemon's commands: it is waited for in IDLE, not slept on
    tap.slow_idle = go_ahead == "not yet answered"
    smtp = SmtpSink().start()
    try:
        path = write_config(tmp_path / "judge.toml", tap, smtp, tmp_path / "judge.db", imap_extra="poll_seconds = 600")
        proc = subprocess.Popen(
            [sys.executable, "-m", "judge.cli", "serve", "--config", str(path)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            ready = tap.waiting_in_idle if go_ahead == "answered" else lambda: tap.count("IDLE") > 0
            tap.wait_until(lambda t: ready() or proc.poll() is not None)
            assert proc.poll() is None, "the daemon ended before it waited for mail"
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(15) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        assert proc.stderr is not None and "s3cret" not in proc.stderr.read()  # no password in the log
    finally:
        tap.stop()
        smtp.stop()
        imap.stop()


def test_the_embedded_smtp_answers_451_while_its_imap_is_down_and_delivers_once_it_is_back(tmp_path: Path) -> None:
    """The demo's SMTP server stores each mail in its IMAP server: while that one is out, a mail is refused for now
    (451, the sender tries again), never accepted and lost."""
    import smtplib
    from email.message import EmailMessage

    from judge.transport.embedded import EmbeddedImap, EmbeddedSmtp

    imap = EmbeddedImap(tmp_path / "mail", ["judge"], PASSWORD).start()
    smtp = EmbeddedSmtp(imap, "demo.judge").start()
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "england@demo.judge", "judge@demo.judge", "orders"
    msg.set_content("F lon - nth")
    try:
        imap.stop()
        with pytest.raises(smtplib.SMTPDataError) as refused, smtplib.SMTP("127.0.0.1", smtp.port, timeout=30) as c:
            c.send_message(msg)
        assert refused.value.smtp_code == 451
        imap.start()  # back, with the same mailboxes
        with smtplib.SMTP("127.0.0.1", smtp.port, timeout=30) as client:
            client.send_message(msg)
        assert [b"F lon - nth" in raw for raw in imap.messages("judge")] == [True]
    finally:
        smtp.stop()
        imap.stop()


def test_the_demo_player_sends_again_after_a_temporary_refusal() -> None:
    from aiosmtpd.controller import Controller

    from judge.cli.demo import _send
    from judge.transport.embedded import free_port

    class RefusesOnce:
        def __init__(self) -> None:
            self.answers = ["451 4.3.0 try again later", "250 OK"]
            self.accepted: list[bytes] = []

        async def handle_DATA(self, server: object, session: object, envelope: Any) -> str:
            answer = self.answers.pop(0)
            if answer.startswith("250"):
                self.accepted.append(envelope.original_content)
            return answer

    handler = RefusesOnce()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        _send(controller.port, "england@demo.judge", "F lon - nth", "orders")
    finally:
        controller.stop()
    assert handler.answers == [] and len(handler.accepted) == 1
