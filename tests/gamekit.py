"""Helpers for game-server tests: a real SQLite file, mail handled through the same code path as the daemon."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import itertools
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from judge.cli import main
from judge.cli.common import use_host_dirs
from judge.commands.handler import handle_raw
from judge.config import find_config
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

    def seven(self, name: str, *options: str, email: Any = None, reuse: bool = False) -> None:
        """Create a classic game with ``options``, seat the seven powers (``power@p.test``, ``pw-Power``), start it.

        With ``reuse``, the game is built once per test run for the same arguments and clock and copied into this
        table's database (see :func:`reuse_built`): for the fixtures and tests that patch nothing the game's setup goes
        through. It falls back to building the game here when the database is not empty or a configuration is found.
        """
        addresses = [email(power) if email else f"{power.lower()}@p.test" for power in POWERS]
        if reuse:
            key = (name, *options, "|", *addresses, "|", self.now.isoformat(), "|", *map(_file_digest, options))
            now = self.now
            if reuse_built(self.db, key, lambda path: Table(path, now)._seven(name, options, addresses)):
                return
        self._seven(name, options, addresses)

    def _seven(self, name: str, options: tuple[str, ...], addresses: list[str]) -> None:
        assert self.cli("game", "create", name, *options) == 0
        for power, address in zip(POWERS, addresses, strict=True):
            assert (
                self.cli("game", "join", name, "--power", power, "--email", address, "--password", f"pw-{power}") == 0
            )
        assert self.cli("game", "start", name) == 0

    def outbox(self) -> list[dict[str, Any]]:
        return list(self.db.query("select * from outbox order by id"))


def _is_empty(db: Database) -> bool:
    """No row in any table of the database but the migrations applied when it was opened (and the judge's version
    recorded against them)."""
    return all(db[name].count == 0 for name in db.table_names() if name not in ("_sqlite_migrations", "judge_versions"))


class _Games:
    """Games built once per test run, each kept in its own database file, copied on request (:func:`reuse_built`).

    Creating, seating and starting a game costs about 0.7 s (seven scrypt hashes, the start mails and their map);
    the fixtures that start every test with the same game pay it once. A copy goes through SQLite's backup into the
    test's open connection, so the database, its file and the test's clock are the test's own as before, and what
    the build printed is printed again. The key holds everything the build reads: for :meth:`Table.seven`, the
    arguments (and the bytes of any file an option names), the addresses and the clock; a configuration file in reach
    (which may move variants or templates) turns the copy off.

    The copies share their password hashes, so a sign-on verified in one test is remembered by the process in the
    next, as the judge remembers it from one mail to the next: the answer is the same, only scrypt is not paid again.
    A test that counts scrypt calls forgets the verified sign-ons first (``passwords.forget_verified``).
    """

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.built: dict[tuple[str, ...], tuple[Database, str, str]] = {}

    def copy(self, db: Database, key: tuple[str, ...], build: Callable[[Path], None]) -> bool:
        if find_config(None) is not None or not _is_empty(db):
            return False
        if key not in self.built:
            self.built[key] = self._build(build)
        source, out, err = self.built[key]
        source.conn.backup(db.conn)
        use_host_dirs(None)  # as the commands themselves do when they find no configuration
        sys.stdout.write(out)
        sys.stderr.write(err)
        return True

    def _build(self, build: Callable[[Path], None]) -> tuple[Database, str, str]:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="judge-test-games-"))
            atexit.register(shutil.rmtree, self.folder, True)
        path = self.folder / f"game{len(self.built)}.db"
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            build(path)
        return open_db(path), out.getvalue(), err.getvalue()


def reuse_built(db: Database, key: tuple[str, ...], build: Callable[[Path], None]) -> bool:
    """Fill the empty database ``db`` with a copy of what ``build`` writes into a new database file at the path it is
    given, built once per test run for ``key`` (which must name everything the build reads). False, and nothing
    done, where ``db`` is not empty or a configuration file is in reach: the caller then builds in ``db`` itself."""
    return _GAMES.copy(db, key, build)


def _file_digest(option: str) -> str:
    """The SHA-256 of the file an option names, so an edited variant file is a new game; "" for other options."""
    with contextlib.suppress(OSError, ValueError):
        path = Path(option)
        if path.is_file():
            return hashlib.sha256(path.read_bytes()).hexdigest()
    return ""


_GAMES = _Games()
