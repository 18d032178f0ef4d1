#!/usr/bin/env python3
"""Write the database of an earlier judge with that version's own command line and mail path.

    python tests/data/old_databases/make.py COMMIT LABEL

checks COMMIT out into a temporary detached worktree, installs it into a throwaway venv (its own dependencies), and
plays one fixed scenario through *its* ``judge game …`` and ``judge mail handle`` with a fixed clock (``--now``):
a forming game, a running game three phases in (orders, press, a rejected and an open draw, orders given for the
current phase, a READY, a sign-on failure) and a game finished by an accepted draw. Nothing is ever sent: every mail
the judge queued stays queued. It writes ``LABEL.db.xz`` (the database, checkpointed, vacuumed and compressed: the
first versions' outbox holds a map picture in every results mail) and ``LABEL.json``, the manifest of what the database
holds in terms no version owns, which tests/test_upgrade.py compares with what the current judge reads after the
upgrade. See README.md.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
START = datetime(2027, 1, 4, 12, 0, tzinfo=UTC)  # a Monday; every step of the scenario is an offset from it
POWERS = ["England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey"]
MASTER = "gm@example.org"
STRANGER = "mallory@example.net"


def address(power: str) -> str:
    return f"{power.lower()}@example.org"


# The orders of the running game's played phases, by mail: (power, lines).
SPRING_1901 = {
    "England": ["F lon - nth", "F edi - nwg", "A lvp - yor"],
    "France": ["A par - bur", "A mar - spa", "F bre - mao"],
    "Germany": ["F kie - den", "A mun - ruh", "A ber - kie"],
    "Italy": ["F nap - ion", "A rom - apu", "A ven H"],
    "Austria": ["A vie - gal", "A bud - ser", "F tri - alb"],
    "Russia": ["A mos - ukr", "F sev - rum", "F stp/sc - bot", "A war - gal"],
    "Turkey": ["F ank - bla", "A con - bul", "A smy - arm"],
}
FALL_1901 = {
    "England": ["F nth - nwy", "F nwg S F nth - nwy", "A yor H"],
    "France": ["A bur - bel", "A spa H", "F mao - por"],
    "Germany": ["F den H", "A ruh - hol", "A kie H"],
    "Italy": ["F ion - tun", "A apu H", "A ven H"],
    "Austria": ["A ser H", "F alb - gre", "A vie H"],
    "Russia": ["F bot - swe", "F rum H", "A ukr H", "A war H"],
    "Turkey": ["A bul H", "F bla H", "A arm H"],
}
WINTER_1901 = {
    "England": ["Build F lon"],
    "France": ["Build A par", "Build F bre"],
    "Germany": ["Build A ber", "Build A mun"],
    "Russia": ["Build F stp/nc"],
}
# the current phase, S1902M: given by mail and never adjudicated by the old version
SPRING_1902 = {
    "France": ["A Belgium - Holland", "a par-bur", "F bre - eng"],
    "England": ["F nwy - ska", "F nwg - nth", "F lon H", "A yor - wal"],
}


class Judge:
    """One old version's ``judge`` run on one database with a clock the scenario moves."""

    def __init__(self, exe: Path, db: Path, work: Path) -> None:
        self.exe, self.db, self.work = exe, db, work
        self.now = START
        self.steps: list[dict[str, Any]] = []
        self.mails = 0
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
        self.env.update({"JUDGE_DB": str(db), "TZ": "UTC", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"})

    def at(self, when: datetime) -> None:
        assert when >= self.now, (when, self.now)
        self.now = when

    def later(self, **delta: float) -> None:
        self.at(self.now + timedelta(**delta))

    def stamp(self) -> str:
        return self.now.strftime("%Y-%m-%dT%H:%M:%SZ")

    def run(self, *args: str, stdin: bytes | None = None) -> str:
        done = subprocess.run(
            [str(self.exe), *args, "--now", self.stamp()],
            input=stdin,
            capture_output=True,
            cwd=self.work,
            env=self.env,
            check=False,
        )
        out = done.stdout.decode("utf-8", "replace")
        if done.returncode != 0:
            raise SystemExit(f"judge {' '.join(args)} failed ({done.returncode}):\n{out}{done.stderr.decode()}")
        return out

    def cli(self, *args: str) -> str:
        self.steps.append({"at": self.stamp(), "cli": ["judge", *args]})
        return self.run(*args)

    def mail(self, sender: str, lines: list[str], subject: str = "orders") -> str:
        """Mail ``lines`` from ``sender`` through ``judge mail handle -``; the replies it printed."""
        self.mails += 1
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = "judge@example.org"
        msg["Subject"] = subject
        msg["Date"] = format_datetime(self.now)
        msg["Message-ID"] = f"<old-{self.mails}@players.example>"
        msg.set_content("\n".join(lines) + "\n")
        self.steps.append({"at": self.stamp(), "mail": {"from": sender, "body": lines}})
        out = self.run("mail", "handle", "-", stdin=bytes(msg))
        self.later(minutes=1)
        return out

    def show(self, game: str) -> dict[str, Any]:
        shown: dict[str, Any] = json.loads(self.run("game", "show", game, "--json"))
        return shown

    def past_deadline(self, game: str) -> None:
        """The clock a minute past the game's deadline, and ``judge game tick`` (as the daemon does)."""
        deadline = parse_utc(self.show(game)["deadline"])
        self.at(max(self.now, deadline + timedelta(minutes=1)))
        self.cli("game", "tick")
        self.later(minutes=1)


def parse_utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def features(source: Path) -> dict[str, bool]:
    """What this version's command language offers beyond the first version's (from its docs/commands.md)."""
    commands = (source / "docs" / "commands.md").read_text(encoding="utf-8")
    return {"diary": "### DIARY" in commands, "postal_press": "### POSTAL PRESS" in commands}


def signon(power: str, game: str, password: str) -> str:
    return f"SIGNON {power} {game} {password}"


def running_password(power: str) -> str:
    return f"pw-{power.lower()}"


def drawn_password(power: str) -> str:
    return f"dr-{power.lower()}"


def seat_seven(judge: Judge, game: str, password: Any) -> None:
    for power in POWERS:
        judge.cli("game", "join", game, "--email", address(power), "--password", password(power), "--power", power)


def play_phase(judge: Judge, game: str, orders: dict[str, list[str]], extra: dict[str, list[str]]) -> None:
    for power in POWERS:
        lines = orders.get(power, []) + extra.get(power, [])
        if lines:
            judge.mail(address(power), [signon(power, game, running_password(power)), *lines])


def scenario(judge: Judge, offers: dict[str, bool]) -> dict[str, Any]:
    """Play the scenario; what it did that the database does not say by itself (passwords, the draws' phases)."""
    judge.cli("game", "create", "forming", "--variant", "classic", "--deadline", "48h")
    judge.cli("game", "join", "forming", "--email", "first@example.org", "--password", "fm-first")
    judge.cli("game", "join", "forming", "--email", "second@example.org", "--password", "fm-second")
    judge.mail("third@example.org", ["JOIN forming fm-third France Italy"], subject="join")

    judge.cli("game", "create", "drawn", "--variant", "classic", "--deadline", "48h")
    seat_seven(judge, "drawn", drawn_password)
    judge.cli("game", "start", "drawn", "--seed", "7")
    judge.later(minutes=30)
    for power in ["Austria", *(p for p in POWERS if p != "Austria")]:
        vote = "DRAW" if power == "Austria" else "DRAW ACCEPT"
        judge.mail(address(power), [signon(power, "drawn", drawn_password(power)), vote], subject="draw")

    judge.later(hours=1)
    judge.cli("game", "create", "running", "--variant", "classic", "--deadline", "48h", "--master", MASTER)
    seat_seven(judge, "running", running_password)
    judge.cli("game", "start", "running", "--seed", "1")
    judge.later(hours=1)
    press = ["BROADCAST", "Peace in our time.", "ENDPRESS"]
    play_phase(judge, "running", SPRING_1901, {"England": press, "France": ["DRAW"], "Germany": ["DRAW REJECT"]})
    judge.past_deadline("running")
    play_phase(judge, "running", FALL_1901, {})
    judge.past_deadline("running")
    play_phase(judge, "running", WINTER_1901, {})
    judge.past_deadline("running")
    return current_phase(judge, offers)


def current_phase(judge: Judge, offers: dict[str, bool]) -> dict[str, Any]:
    """S1902M of the running game: orders in, a READY, an open draw, press, a timezone, a failed sign-on."""
    judge.later(hours=2)
    judge.mail(address("France"), [signon("France", "running", running_password("France")), *SPRING_1902["France"]])
    england = [*SPRING_1902["England"], "PRESS TO France", "Shall we keep the Channel empty?", "ENDPRESS", "READY"]
    judge.mail(address("England"), [signon("England", "running", running_password("England")), *england])
    judge.mail(address("Italy"), [signon("Italy", "running", running_password("Italy")), "DRAW"])
    judge.mail(address("Austria"), [signon("Austria", "running", running_password("Austria")), "DRAW ACCEPT"])
    judge.mail(
        address("Germany"),
        [signon("Germany", "running", running_password("Germany")), "SET TIMEZONE Europe/Berlin"],
        subject="settings",
    )
    turkey = [signon("Turkey", "running", running_password("Turkey"))]
    if offers["postal_press"]:
        turkey += ["POSTAL PRESS", "Turkey keeps the Black Sea open.", "ENDPRESS"]
    if offers["diary"]:
        turkey += ["DIARY", "Russia will not see it coming.", "ENDDIARY"]
    if len(turkey) > 1:
        judge.mail(address("Turkey"), turkey, subject="press")
    judge.mail(address("Russia"), [signon("Russia", "running", "wrong-password")], subject="oops")
    return {
        "draws": [
            {"game": "running", "phase": "S1901M", "proposer": "France", "outcome": "rejected by Germany"},
            {"game": "running", "phase": "S1902M", "proposer": "Italy", "outcome": "open, accepted by Austria"},
            {"game": "drawn", "phase": "S1901M", "proposer": "Austria", "outcome": "accepted by all"},
        ],
        "signon_failures": [{"address": address("Russia"), "game": "running", "power": "Russia"}],
    }


def rows(conn: sqlite3.Connection, sql: str, *params: Any) -> list[dict[str, Any]]:
    conn.row_factory = sqlite3.Row
    return [dict(r) for r in conn.execute(sql, params)]


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"pragma table_info({table})")}


def manifest_games(judge: Judge, conn: sqlite3.Connection) -> list[dict[str, Any]]:
    passwords = {"running": running_password, "drawn": drawn_password}
    forming = {"first@example.org": "fm-first", "second@example.org": "fm-second", "third@example.org": "fm-third"}
    games = []
    for name in ("forming", "running", "drawn"):
        shown = judge.show(name)
        game_id, settings = conn.execute("select id, settings from games where name = ?", [name]).fetchone()
        orders = {
            r["power"]: json.loads(r["lines"])
            for r in rows(conn, "select * from orders where game_id = ? and phase = ?", game_id, shown["phase"] or "")
        }
        preferences = {
            r["email"]: json.loads(r["preferences"] or "[]")
            for r in rows(conn, "select email, preferences from players where game_id = ?", game_id)
        }
        players = []
        for p in shown["players"]:
            password = passwords[name](p["power"]) if name in passwords else forming[p["email"]]
            power = p["power"]
            players.append(
                {
                    "power": power,
                    "email": p["email"],
                    "password": password,
                    "ready": bool(p["ready"]),
                    "preferences": preferences[p["email"]],
                    "orders": orders.get(power) if power else None,
                }
            )
        games.append(
            {
                "name": name,
                "variant": shown["variant"],
                "status": shown["status"],
                "phase": shown["phase"],
                "deadline": shown["deadline"],
                "result": shown["result"],
                "master": json.loads(settings or "{}").get("master"),
                "players": players,
                "history": history(conn, game_id),
            }
        )
    return games


def history(conn: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    """The played phases, first to last, each with the lines each power gave for it (as the old version kept them)."""
    out = []
    for played in rows(conn, "select phase from phases where game_id = ? order by rowid", game_id):
        given = rows(conn, "select power, lines from orders where game_id = ? and phase = ?", game_id, played["phase"])
        out.append({"phase": played["phase"], "orders": {r["power"]: json.loads(r["lines"]) for r in given}})
    return out


def manifest_draws(conn: sqlite3.Connection, made: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for draw in made:
        game_id = conn.execute("select id from games where name = ?", [draw["game"]]).fetchone()[0]
        stored = rows(conn, "select * from draws where game_id = ? and proposer = ?", game_id, draw["proposer"])
        assert len(stored) == 1, stored
        row = stored[0]
        out.append(
            {
                "game": draw["game"],
                "made_in_phase": draw["phase"],
                "turn": draw["phase"][:-1],
                "stored_key": row["phase"],
                "proposer": row["proposer"],
                "votes": json.loads(row["votes"]),
                "status": row["status"],
            }
        )
    return out


def manifest_outbox(conn: sqlite3.Connection) -> dict[str, Any]:
    games = {r["id"]: r["name"] for r in rows(conn, "select id, name from games")}
    image = "image is not null" if "image" in columns(conn, "outbox") else "0"
    picture = "picture_id is not null" if "picture_id" in columns(conn, "outbox") else "0"
    queued = rows(
        conn,
        f"select id, to_addr, subject, game_id, in_reply_to, {image} as image, {picture} as picture from outbox "
        "where status = 'queued' order by id",
    )
    statuses = rows(conn, "select status, count(*) as n from outbox group by status")
    return {
        "statuses": {r["status"]: r["n"] for r in statuses},
        "queued": [
            {
                "id": r["id"],
                "to": r["to_addr"],
                "subject": r["subject"],
                "game": games.get(r["game_id"]),
                "in_reply_to": r["in_reply_to"],
                "map": bool(r["image"] or r["picture"]),
            }
            for r in queued
        ],
    }


def manifest_press(conn: sqlite3.Connection) -> dict[str, Any]:
    kept: dict[str, list[dict[str, Any]]] = {}
    for table in ("diaries", "postal_press"):
        if table in {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}:
            kept[table] = [
                {"game": r["name"], "power": r["power"], "phase": r["phase"], "body": r["body"]}
                for r in rows(conn, f"select t.*, g.name from {table} t join games g on g.id = t.game_id order by t.id")
            ]
    mailed = [
        {"to": r["to_addr"], "subject": r["subject"], "body_has": line}
        for line in ("Peace in our time.", "Shall we keep the Channel empty?")
        for r in rows(conn, "select to_addr, subject from outbox where body like ? order by id", f"%{line}%")
        if "press" in r["subject"].lower()
    ]
    return {"mailed": mailed, **kept}


def manifest_failures(conn: sqlite3.Connection, made: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for failure in made:
        n = conn.execute("select count(*) from signon_failures where address = ?", [failure["address"]]).fetchone()[0]
        out.append({**failure, "count": n})
    return out


def manifest(judge: Judge, commit: str, label: str, made: dict[str, Any], offers: dict[str, bool]) -> dict[str, Any]:
    conn = sqlite3.connect(judge.db)
    try:
        return {
            "label": label,
            "commit": commit,
            "commit_subject": git("log", "-1", "--format=%s", commit),
            "commit_date": git("log", "-1", "--format=%cI", commit),
            "database": None,  # filled in when the file is written
            "migrations": [r[0] for r in conn.execute("select name from _sqlite_migrations order by applied_at, name")],
            "offers": offers,
            "clock_after": judge.stamp(),
            "games": manifest_games(judge, conn),
            "draws": manifest_draws(conn, made["draws"]),
            "press": manifest_press(conn),
            "signon_failures": manifest_failures(conn, made["signon_failures"]),
            "users": rows(conn, "select email, timezone, language from users order by email"),
            "outbox": manifest_outbox(conn),
            "steps": judge.steps,
        }
    finally:
        conn.close()


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def install(commit: str, folder: Path) -> tuple[Path, Path]:
    """The commit in a detached worktree under ``folder`` and installed into a venv there: (source, judge)."""
    source = folder / "source"
    git("worktree", "add", "--detach", str(source), commit)
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(source)], check=True)
    return source, venv / "bin" / "judge"


def finish(db: Path, label: str) -> Path:
    """Checkpoint and vacuum the database and write it here compressed (xz): the file written."""
    conn = sqlite3.connect(db)
    conn.execute("pragma wal_checkpoint(TRUNCATE)")
    conn.execute("pragma journal_mode = DELETE")
    conn.execute("vacuum")
    conn.close()
    for stale in HERE.glob(f"{label}.db*"):
        stale.unlink()
    target = HERE / f"{label}.db.xz"
    target.write_bytes(lzma.compress(db.read_bytes(), preset=9 | lzma.PRESET_EXTREME))
    return target


def make(commit: str, label: str, keep: bool, reuse: Path | None) -> None:
    commit = git("rev-parse", "--verify", f"{commit}^{{commit}}")
    if Path("/etc/judge/judge.toml").exists():
        raise SystemExit("a configuration in /etc/judge would be read by the old version: run this elsewhere")
    folder = Path(tempfile.mkdtemp(prefix=f"judge-olddb-{label}-"))
    try:
        source, exe = (reuse, reuse / ".venv" / "bin" / "judge") if reuse else install(commit, folder)
        work = folder / "work"
        work.mkdir()
        judge = Judge(exe, work / "judge.db", work)
        offers = features(source)
        made = scenario(judge, offers)
        facts = manifest(judge, commit, label, made, offers)
        target = finish(judge.db, label)
        facts["database"] = target.name
        facts["database_bytes"] = judge.db.stat().st_size
        (HERE / f"{label}.json").write_text(json.dumps(facts, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{target.name}: {target.stat().st_size} bytes ({facts['database_bytes']} uncompressed)")
    finally:
        if keep:
            print(f"kept {folder}")
        else:
            if reuse is None:
                git("worktree", "remove", "--force", str(folder / "source"))
            shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("commit", help="the version's commit")
    parser.add_argument("label", help="the files' name, e.g. v1-b27f680")
    parser.add_argument("--keep", action="store_true", help="keep the worktree, venv and database folder")
    parser.add_argument(
        "--reuse", type=Path, default=None, help="a checkout of the commit with its venv in .venv, installed before"
    )
    args = parser.parse_args()
    make(args.commit, args.label, args.keep, args.reuse)


if __name__ == "__main__":
    main()
