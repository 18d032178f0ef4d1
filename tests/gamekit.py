"""Helpers for game-server tests: a real SQLite file, mail handled through the same code path as the daemon."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from judge.cli import main
from judge.commands.handler import handle_raw
from judge.store import open_db

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
_ids = itertools.count(1)


def raw_mail(sender: str, body: str, subject: str = "orders", message_id: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "judge@judge.test"
    msg["Subject"] = subject
    msg["Message-ID"] = message_id or f"<t{next(_ids)}@test>"
    msg.set_content(body)
    return bytes(msg)


class Table:
    """One game database and a clock the test moves by hand."""

    def __init__(self, path: Path, now: datetime = START) -> None:
        self.path = path
        self.now = now
        self.db = open_db(path)

    def later(self, **delta: float) -> datetime:
        self.now = self.now + timedelta(**delta)
        return self.now

    def mail(self, sender: str, body: str, **kw: Any) -> list[dict[str, Any]]:
        return handle_raw(self.db, raw_mail(sender, body, **kw), self.now)

    def reply(self, sender: str, body: str, **kw: Any) -> str:
        """The body of the reply to the sender (there is exactly one)."""
        out = [r for r in self.mail(sender, body, **kw) if r["to_addr"] == sender and r["subject"].startswith("Re:")]
        assert len(out) == 1, out
        return out[0]["body"]

    def cli(self, *args: str) -> int:
        return main([*args, "--db", str(self.path), "--now", self.now.strftime("%Y-%m-%dT%H:%M:%SZ")])

    def show(self, name: str, capsys: Any) -> dict[str, Any]:
        capsys.readouterr()
        assert self.cli("game", "show", name, "--json") == 0
        return json.loads(capsys.readouterr().out)

    def seven(self, name: str, *options: str, email: Any = None) -> None:
        """Create a classic game with ``options``, seat the seven powers (``power@p.test``, ``pw-Power``), start it."""
        assert self.cli("game", "create", name, *options) == 0
        for power in POWERS:
            address = email(power) if email else f"{power.lower()}@p.test"
            assert (
                self.cli("game", "join", name, "--power", power, "--email", address, "--password", f"pw-{power}") == 0
            )
        assert self.cli("game", "start", name) == 0

    def outbox(self) -> list[dict[str, Any]]:
        return list(self.db.query("select * from outbox order by id"))
