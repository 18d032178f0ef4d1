"""`judge demo`: a classic game by mail on embedded mail servers, played by seven scripted players.

Everything goes through the real paths: players mail JOIN and their orders over SMTP; the daemon (`judge serve`'s
loop, in a thread) reads them by IMAP, adjudicates when everyone is ready (or at the short deadlines) and mails the
results, which land in each player's mailbox. The scripted players read the board from the results (here: from the
database, read-only, as a shortcut) and choose random legal orders.
"""

from __future__ import annotations

import random
import smtplib
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from functools import partial
from pathlib import Path
from typing import TextIO

from sqlite_utils import Database

from judge.config import Config, ImapConfig, SmtpConfig
from judge.game import records, service
from judge.game.settings import GameSettings
from judge.rules.adjustments import adjustment_delta, free_build_sites
from judge.rules.board import Position
from judge.rules.legality import retreat_options
from judge.rules.phase import Step
from judge.rules.variant import Variant
from judge.store import mail_queue, open_db, write
from judge.store.statuses import GameStatus
from judge.timeutil import backoff_pause
from judge.transport.daemon import serve
from judge.transport.embedded import EmbeddedImap, EmbeddedSmtp

DOMAIN = "demo.judge"
PASSWORD = "demo"
GAME = "demo"
SEND_ATTEMPTS = 5  # a player's mail refused for now (4xx) is sent again 0.2 s later, doubling to 2 s: 3 s in all


def choose_orders(variant: Variant, pos: Position, power: str, rng: random.Random) -> list[str]:
    """Random legal orders for one power: mostly moves, some holds; retreats where possible; builds in free homes."""
    geo = variant.geo
    names = geo.loc_names
    step = pos.phase.step
    if step is Step.MOVEMENT:
        lines = []
        for unit in pos.units_of(power):
            here = f"{unit.kind.value} {names[unit.loc]}"
            options = geo.destinations(unit.kind, unit.loc)
            if options and rng.random() < 0.75:
                lines.append(f"{here} - {names[rng.choice(options)]}")
            else:
                lines.append(f"{here} H")
        return lines
    if step is Step.RETREAT:
        lines = []
        for prov, dis in pos.dislodged.items():
            if dis.unit.power == power:
                here = f"{dis.unit.kind.value} {names[dis.unit.loc]}"
                options = retreat_options(geo, pos, prov)
                lines.append(f"{here} - {names[rng.choice(options)]}" if options else f"{here} disband")
        return lines
    delta = adjustment_delta(variant, pos, power)
    free = list(free_build_sites(variant, pos, power))
    lines = [f"Build A {names[c]}" for c in free[: max(delta, 0)]]
    if delta < 0:  # remove the units farthest down the list; the rest is left to civil disorder
        lines = [f"Remove {u.kind.value} {names[u.loc]}" for u in pos.units_of(power)[:1]]
    if delta > 0 and not lines:
        lines = ["Waive"]
    return lines


def _send(smtp_port: int, sender: str, body: str, subject: str) -> None:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = f"judge@{DOMAIN}"
    msg["Subject"] = subject
    msg.set_content(body)
    for attempt in range(SEND_ATTEMPTS):  # a player's mail client tries again after a temporary failure (4xx)
        try:
            with smtplib.SMTP("127.0.0.1", smtp_port, timeout=30) as client:
                client.send_message(msg)
            return
        except smtplib.SMTPResponseException as exc:
            if not 400 <= exc.smtp_code < 500 or attempt == SEND_ATTEMPTS - 1:
                raise
        time.sleep(backoff_pause(attempt + 1, timedelta(seconds=0.2), timedelta(seconds=2)).total_seconds())


def run_demo(
    directory: str | None,
    *,
    years: int = 2,
    seed: int = 1,
    quiet: bool = False,
    out: TextIO = sys.stdout,
    database: str | None = None,
) -> int:
    """Play the demo in ``directory`` (a new temporary folder by default); its database there as judge.db, or at
    ``database`` (``judge --db FILE demo``)."""
    started = time.monotonic()
    base = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="judge-demo-"))
    base.mkdir(parents=True, exist_ok=True)
    db_path = Path(database) if database else base / "judge.db"
    variant_powers = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
    users = ["judge"] + [p.lower() for p in variant_powers]
    imap = EmbeddedImap(base / "mail", users, PASSWORD).start()
    smtp = EmbeddedSmtp(imap, DOMAIN).start()
    cfg = Config(
        address=f"judge@{DOMAIN}",
        db=str(db_path),
        imap=ImapConfig(
            host="127.0.0.1",
            port=imap.port,
            security="none",
            username="judge",
            password=PASSWORD,
            poll_seconds=1,
            timeout=30,
        ),
        smtp=SmtpConfig(host="127.0.0.1", port=smtp.port, security="none", timeout=30),
        max_replies_per_hour=1000,
    )
    stop = threading.Event()
    daemon = threading.Thread(target=serve, args=(cfg,), kwargs={"stop": stop}, daemon=True)
    rng = random.Random(seed)

    def say(*words: object) -> None:
        if not quiet:
            print(*words, file=out, flush=True)

    try:
        db = open_db(db_path)
        with write(db):
            if records.load_game(db, GAME) is None:
                service.create_game(
                    db,
                    GAME,
                    "classic",
                    GameSettings(
                        movement_deadline=120, retreat_deadline=60, adjustment_deadline=60, master=f"judge@{DOMAIN}"
                    ),
                    service_now(),
                )
        daemon.start()
        say(f"judge demo: IMAP on 127.0.0.1:{imap.port}, SMTP on 127.0.0.1:{smtp.port}, files in {base}")
        for power in variant_powers:
            _send(smtp.port, f"{power.lower()}@{DOMAIN}", f"JOIN {GAME} pw-{power} {power}", "join")
        _wait(lambda: len([p for p in records.players(db, _game(db).id) if p.role == "player"]) == 7, 60)
        with write(db):
            service.start_game(db, GAME, service_now(), rng)
        say("all seven players joined by mail; the game has started")
        started_at = _game(db).position
        assert started_at is not None  # a started game has a position
        last_year = started_at.phase.year + years - 1
        phases = 0
        while True:
            game = _game(db)
            if game.status is not GameStatus.ACTIVE or game.position is None or game.position.phase.year > last_year:
                break
            phase = game.phase
            for power in variant_powers:
                lines = choose_orders(game.variant, game.position, power, rng)
                body = "\n".join([f"SIGNON {power} {GAME} pw-{power}", *lines, "READY"])
                _send(smtp.port, f"{power.lower()}@{DOMAIN}", body, f"{phase} orders")
            _wait(partial(_moved_on, db, phase), 180)
            phases += 1
            say(f"  {phase} adjudicated -> {_game(db).phase}")
        _wait(lambda: not mail_queue.mail_waiting(db), 60)
        elapsed = time.monotonic() - started
        _report(imap, variant_powers, say, quiet)
        shown = service.show_game(db, GAME)
        tally = ", ".join(f"{p} {len(c)}" for p, c in shown["supply_centers"].items())
        print(
            f"judge demo: {phases} phases played by mail in {elapsed:.1f} s; now {shown['phase']}; centres: "
            f"{tally}\nmailboxes: {base / 'mail'} (IMAP user/password: <power>/{PASSWORD}), database: {db_path}",
            file=out,
        )
        return 0
    finally:
        stop.set()
        daemon.join(30)
        smtp.stop()
        imap.stop()


def service_now() -> datetime:
    from judge.transport.daemon import utcnow

    return utcnow()


def _game(db: Database) -> records.Game:
    game = records.load_game(db, GAME)
    assert game is not None
    return game


def _moved_on(db: Database, phase: str | None) -> bool:
    game = _game(db)
    return game.phase != phase or game.status is not GameStatus.ACTIVE


def _wait(condition: Callable[[], bool], seconds: float) -> None:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the demo game did not move on in time")
        time.sleep(0.1)


def _report(imap: EmbeddedImap, powers: list[str], say: Callable[..., None], quiet: bool) -> None:
    say("\nWhat each player received:")
    last_results = None
    for power in powers:
        mails = [message_from_bytes(raw, policy=policy.default) for raw in imap.messages(power.lower())]
        say(f"  {power} ({len(mails)} mails):")
        for m in mails:
            say(f"    {m['Subject']}")
            if power == "England" and "results of" in str(m["Subject"]):
                last_results = m
    if last_results is not None and not quiet:
        say("\nThe last results mail, as England read it:\n")
        plain = last_results.get_body(preferencelist=("plain",))
        say(plain.get_content() if plain is not None else "")
