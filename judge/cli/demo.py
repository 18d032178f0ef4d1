"""`judge demo`: a short classic game by mail on embedded mail servers, played to an agreed draw by seven scripted
players who read English, Russian and German, with a game master at work on the way.

Everything goes through the real paths: players mail JOIN (with SET LANGUAGE) and their orders over SMTP, each in
their own words; the daemon (`judge serve`'s loop, in a thread) reads them by IMAP, adjudicates when everyone is ready
(or at the short deadlines) and mails the results, which land in each player's mailbox in the player's language. The
game master moves a deadline by mail and changes a setting with the command line's own function; a player
broadcasts; after the years asked for, one player proposes a draw by mail and the others accept it. The scripted
players read the board from the results (here: from the database, read-only, as a shortcut) and choose random legal
orders. At the end every mail the judge sent is written out as a file, a folder per mailbox.
"""

from __future__ import annotations

import random
import re
import smtplib
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from functools import partial
from pathlib import Path
from typing import TextIO

from sqlite_utils import Database

from judge.cli.demo_orders import choose_orders
from judge.config import Config, ImapConfig, SmtpConfig, WebConfig
from judge.game import records, service
from judge.game.master import change_setting
from judge.game.master_mail import set_master_password
from judge.game.settings import GameSettings
from judge.store import mail_queue, open_db, write
from judge.store.events import EventKind, events_of
from judge.store.statuses import GameStatus
from judge.timeutil import backoff_pause
from judge.transport.daemon import serve
from judge.transport.embedded import EmbeddedImap, EmbeddedSmtp
from judge.web.archive import build_all

__all__ = ["choose_orders", "run_demo"]

DOMAIN = "demo.judge"
PASSWORD = "demo"
GAME = "demo"
MASTER = f"gm@{DOMAIN}"  # the game master's address: a mailbox of its own, like the players'
MASTER_PASSWORD = "gm-secret"
SEND_ATTEMPTS = 5  # a player's mail refused for now (4xx) is sent again 0.2 s later, doubling to 2 s: 3 s in all
# the language each power's player reads and writes (SET LANGUAGE in the JOIN mail)
LANGUAGES = {
    "Austria": "de",
    "England": "en",
    "France": "en",
    "Germany": "de",
    "Italy": "en",
    "Russia": "ru",
    "Turkey": "ru",
}
PROPOSER = "Russia"  # proposes the draw (another power still in the game if Russia is out)
BROADCASTER = "Germany"  # broadcasts in German once the press is grey
SHOWN = ("England", "Germany", "Russia")  # one player per language: their first orders and mails are printed
BROADCAST = "Frieden im Norden! Wer mit uns zieht, zieht nicht gegen uns."


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
    ``database`` (``judge --db FILE demo``). ``years`` game years are played, then the draw is agreed in the next
    Spring."""
    started = time.monotonic()
    base = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="judge-demo-"))
    base.mkdir(parents=True, exist_ok=True)
    db_path = Path(database) if database else base / "judge.db"
    web = (base / "web").resolve()  # the game's public archive, written by the daemon after every adjudication
    users = ["judge"] + [p.lower() for p in LANGUAGES] + ["gm"]
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
        # the results mails link to the pages on this disk (a host serves the folder at an https:// address)
        web=WebConfig(dir=str(web), base_url=web.as_uri()),
    )
    stop = threading.Event()
    daemon = threading.Thread(target=serve, args=(cfg,), kwargs={"stop": stop}, daemon=True)

    def say(*words: object) -> None:
        if not quiet:
            print(*words, file=out, flush=True)

    try:
        db = open_db(db_path)
        _create(db)
        daemon.start()
        say(f"judge demo: IMAP on 127.0.0.1:{imap.port}, SMTP on 127.0.0.1:{smtp.port}, files in {base}")
        demo = _Demo(db, smtp.port, say, random.Random(seed))
        demo.join_and_start()
        demo.master_by_mail()
        phases = demo.play(years)
        demo.agree_draw()
        _wait(lambda: not mail_queue.mail_waiting(db), 60)
        elapsed = time.monotonic() - started
        boxes = {user: imap.messages(user) for user in users[1:]}  # every mail the judge sent, oldest first
        _report(boxes, say)
        written = _write_mails(boxes, base / "mails")
        index = build_all(db, web)  # the daemon wrote each phase's page; the whole archive once more, at the end
        shown = service.show_game(db, GAME)
        tally = ", ".join(f"{p} {len(c)}" for p, c in shown["supply_centers"].items())
        print(
            f"judge demo: {phases} phases played by mail in {elapsed:.1f} s; {_ending(_game(db))}; centres: {tally}\n"
            f"mailboxes: {base / 'mail'} (IMAP users: the powers and gm, password {PASSWORD}), database: {db_path}\n"
            f"mails: {base / 'mails'} (the {written} mails the judge sent, a .eml file each: a folder per player, "
            "and gm for the game master)",
            file=out,
        )
        print(f"archive: {index.as_uri()} (the game's page: {(web / GAME / 'index.html').as_uri()})", file=out)
        return 0
    finally:
        stop.set()
        daemon.join(30)
        smtp.stop()
        imap.stop()


def _create(db: Database) -> None:
    """The demo's game, as the host creates it: short deadlines, the game master's address and master password."""
    with write(db):
        if records.load_game(db, GAME) is None:
            service.create_game(
                db,
                GAME,
                "classic",
                GameSettings(movement_deadline=120, retreat_deadline=60, adjustment_deadline=60, master=MASTER),
                service_now(),
            )
            set_master_password(db, GAME, MASTER_PASSWORD, service_now())


@dataclass
class _Demo:
    """The scripted players and game master at work on the running game: each step mails the judge and waits until
    the judge has acted on it (read in the database, as a shortcut for reading the answer)."""

    db: Database
    smtp_port: int
    say: Callable[..., None]
    rng: random.Random

    def mail(self, user: str, *lines: str, subject: str) -> None:
        _send(self.smtp_port, f"{user.lower()}@{DOMAIN}", "\n".join(lines), subject)

    def signed_on(self, power: str, *lines: str, subject: str) -> None:
        """A mail from the power's player, signed on with the power named in the player's language."""
        name = _game(self.db).variant.power(power).word(LANGUAGES[power])
        self.mail(power, f"SIGNON {name} {GAME} pw-{power}", *lines, subject=subject)

    def happened(self, kind: EventKind) -> bool:
        return bool(events_of(self.db, _game(self.db).id, kind))

    def join_and_start(self) -> None:
        """Each player JOINs by mail naming the power in their language, with SET LANGUAGE; the host starts it."""
        variant = _game(self.db).variant
        readers = "; ".join(
            f"{lang}: {', '.join(p for p in LANGUAGES if LANGUAGES[p] == lang)}"
            for lang in dict.fromkeys(LANGUAGES.values())
        )
        self.say(f"game {GAME} (classic), game master {MASTER}; seven players join by mail, each in their language")
        self.say(f"  ({readers})")
        for power, language in LANGUAGES.items():
            name = variant.power(power).word(language)
            self.mail(power, f"JOIN {GAME} pw-{power} {name}", f"SET LANGUAGE {language}", subject="join")
        _wait(lambda: len([p for p in records.players(self.db, _game(self.db).id) if p.role == "player"]) == 7, 60)
        with write(self.db):
            service.start_game(self.db, GAME, service_now(), self.rng)
        self.say("all seven players joined by mail; the game has started")

    def master_by_mail(self) -> None:
        """The game master, by mail: more time for the first orders (the players are told, each in their language)."""
        self.mail("gm", f"MASTER {GAME} {MASTER_PASSWORD}", "SET DEADLINE +6h", subject="more time")
        _wait(lambda: self.happened(EventKind.EXTENDED), 60)
        self.say(f"the game master, by mail: MASTER {GAME} ****, SET DEADLINE +6h -> the players are told")

    def play(self, years: int) -> int:
        """``years`` game years by mail, every player READY at once; in the second phase the game master makes the
        press grey at the command line and a player broadcasts. The number of phases played."""
        first = _game(self.db).position
        assert first is not None  # a started game has a position
        last_year = first.phase.year + years - 1
        phases = 0
        while True:
            game = _game(self.db)
            if game.status is not GameStatus.ACTIVE or game.position is None or game.position.phase.year > last_year:
                return phases
            press: list[str] = []
            if phases == 1:
                with write(self.db):
                    change_setting(self.db, GAME, "press", "grey", service_now())
                self.say(f"the game master: judge game settings {GAME} press grey -> every player is told")
                press = ["BROADCAST", BROADCAST, "ENDPRESS"]
                self.say(f"  {BROADCASTER} broadcasts in German, grey (from 'an anonymous power'): {BROADCAST}")
            for power, language in LANGUAGES.items():
                lines = choose_orders(game.variant, game.position, power, self.rng, language)
                extra = press if power == BROADCASTER else []
                self.signed_on(power, *extra, *lines, "READY", subject=f"{game.phase} orders")
                if phases == 0 and power in SHOWN:
                    self.say(f"  {power} ({language}) writes: {'; '.join(lines)}")
            _wait(partial(_moved_on, self.db, game.phase), 180)
            phases += 1
            self.say(f"  {game.phase} adjudicated -> {_game(self.db).phase}")

    def agree_draw(self) -> None:
        """One player proposes a draw by mail; once the judge has it, every other player still in accepts."""
        game = _game(self.db)
        if game.status is not GameStatus.ACTIVE:
            return
        voters = [p.power for p in records.players(self.db, game.id) if p.active and p.power]
        proposer = PROPOSER if PROPOSER in voters else voters[0]
        self.signed_on(proposer, "DRAW PROPOSE", subject="draw?")
        _wait(lambda: self.happened(EventKind.DRAW_PROPOSE), 60)
        self.say(f"  {game.phase}: {proposer} proposes a draw by mail (DRAW PROPOSE); the others are told")
        for power in voters:
            if power != proposer:
                self.signed_on(power, "DRAW ACCEPT", subject="draw")
        _wait(lambda: _game(self.db).status is not GameStatus.ACTIVE, 60)
        self.say("  the others accept by mail (DRAW ACCEPT): the game is over")


def _ending(game: records.Game) -> str:
    """How the game stands, in words: the draw and who shares it, a win, or the phase it is in."""
    result = game.result or {}
    if result.get("kind") == "draw":
        return f"a draw agreed by mail among {', '.join(result.get('powers', []))}"
    if result.get("kind") == "solo":
        return f"won by {result.get('winner')}"
    return f"now {game.phase}"


def _write_mails(boxes: dict[str, list[bytes]], folder: Path) -> int:
    """Every mail of the mailboxes as a file, ``<folder>/<user>/001 <subject>.eml``, oldest first; how many."""
    for user, raws in boxes.items():
        box = folder / user
        box.mkdir(parents=True, exist_ok=True)
        for number, raw in enumerate(raws, 1):
            subject = str(message_from_bytes(raw, policy=policy.default)["Subject"] or "")
            name = " ".join(re.sub(r'[\\/:*?"<>|\x00-\x1f]', " ", subject).split())[:80]  # a name any system takes
            (box / f"{number:03d} {name}.eml").write_bytes(raw)
    return sum(len(raws) for raws in boxes.values())


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


def _report(boxes: dict[str, list[bytes]], say: Callable[..., None]) -> None:
    """What the players and the game master received: every subject for one player per language and the game
    master, the counts for the others; then England's last results and the last news Russia received (the end)."""
    say("\nWhat each received (every subject for one player per language, and the game master):")
    read = {user: [message_from_bytes(raw, policy=policy.default) for raw in raws] for user, raws in boxes.items()}
    for user, mails in read.items():
        power = user.capitalize()
        listed = power in SHOWN or user == "gm"
        who = f"{power} ({LANGUAGES[power]})" if power in LANGUAGES else "the game master (en)"
        say(f"  {who}: {len(mails)} mails" + (":" if listed else ""))
        for m in mails if listed else []:
            say(f"    {m['Subject']}")
    results = [m for m in read.get("england", []) if "results of" in str(m["Subject"])]
    news = [m for m in read.get("russia", []) if not str(m["Subject"]).startswith("Re:")]  # not answers
    for title, last in (
        ("The last results mail, as England read it", results[-1:]),
        ("The last news, as Russia read it", news[-1:]),
    ):
        plain = last[0].get_body(preferencelist=("plain",)) if last else None
        if plain is not None:
            say(f"\n{title}:\n")
            say(plain.get_content())
