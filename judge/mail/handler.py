"""Handling one incoming message: its commands and orders change the store, its replies go to the outbox.

``handle_raw`` is the one code path for the daemon and for ``judge mail handle``. The whole effect of a message —
game changes, queued replies and the record that the message was handled (by Message-ID and the sha256 of its bytes)
— commits in one transaction, so a message handled twice has no second effect.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from sqlite_utils import Database

from judge.game import draws, notify, service
from judge.game.records import (Game, Player, load_game, log_event, players, save_player, set_orders, set_user,
                                user_settings)
from judge.game.service import GameError
from judge.mail import commands as c
from judge.mail.message import Incoming, parse_incoming
from judge.game.orders import merge_orders, order_summary
from judge.mail.sandbox_text import run_sandbox_text
from judge.passwords import hash_password, verify_password
from judge.render import LANGUAGES, render_mail
from judge.timeutil import check_timezone, iso_utc
from judge.store import write

log = logging.getLogger(__name__)

MAX_FAILED_SIGNONS = 5
MAX_REPLIES_PER_HOUR = 30  # answers to one address per hour: a mail loop stops here
MAX_MESSAGE_BYTES = 1_000_000


@dataclass
class Reply:
    """What the reply to this message says, built up line by line."""

    lines: list[tuple[str, str]] = field(default_factory=list)  # (the line as written, what became of it)
    notes: list[str] = field(default_factory=list)  # longer answers: HELP, LIST, HISTORY, SANDBOX

    def say(self, text: str, response: str) -> None:
        self.lines.append((text, response))


@dataclass
class Session:
    """The state of one message being handled: who signed on, and what changed."""

    msg: Incoming
    now: datetime
    game: Game | None = None
    player: Player | None = None
    changed_orders: bool = False
    ready_changed: bool = False


@dataclass(frozen=True)
class Handled:
    outcome: str  # handled | duplicate | dropped: … | refused: … | error
    replies: list[dict[str, Any]]  # the outbox rows this message queued

    @property
    def rejected(self) -> bool:
        """Mail that could not be read at all (it belongs in the rejected folder)."""
        return self.outcome.startswith("refused")


def handle_raw(db: Database, raw: bytes, now: datetime) -> list[dict[str, Any]]:
    """Handle one raw message; return the outbox rows it queued (empty when it was a duplicate or dropped)."""
    return handle_message(db, raw, now).replies


def handle_message(db: Database, raw: bytes, now: datetime, *, judge_address: str = "",
                   max_replies_per_hour: int = MAX_REPLIES_PER_HOUR, declared_size: int | None = None) -> Handled:
    """Handle one raw message in one transaction (a savepoint when the caller has one open).

    ``declared_size`` is the size the mail server reported when only the headers were fetched (too large to read).
    """
    msg = parse_incoming(raw, loop_token=judge_address or "judge")
    if declared_size is not None and declared_size > MAX_MESSAGE_BYTES:
        msg = replace(msg, problem=f"too large ({declared_size // 1024} KB; the judge reads at most "
                                   f"{MAX_MESSAGE_BYTES // 1024} KB)")
    if judge_address and msg.sender == judge_address.lower():
        msg = replace(msg, auto=True)
    with write(db):
        if _seen(db, msg):
            return Handled("duplicate", [])
        first_new = _last_outbox_id(db)
        outcome = _handle_guarded(db, msg, now, max_replies_per_hour)
        db.table("messages").insert({"message_id": msg.message_id, "digest": msg.digest, "sender": msg.sender,
                                     "received_at": iso_utc(now), "outcome": outcome})
    return Handled(outcome, list(db.query("select * from outbox where id > ? order by id", [first_new])))


def _seen(db: Database, msg: Incoming) -> bool:
    if list(db.query("select 1 from messages where digest = ?", [msg.digest])):
        return True
    return bool(msg.message_id) and bool(list(db.query("select 1 from messages where message_id = ? and sender = ?",
                                                       [msg.message_id, msg.sender])))


def _last_outbox_id(db: Database) -> int:
    rows = list(db.query("select max(id) as m from outbox"))
    return rows[0]["m"] or 0


def _handle_guarded(db: Database, msg: Incoming, now: datetime, max_replies_per_hour: int) -> str:
    """Handle the message; an unexpected failure undoes its effect and answers with an apology."""
    if msg.auto or not msg.sender:
        return "dropped: " + ("automatic message" if msg.auto else "no sender")
    since = iso_utc(now - timedelta(hours=1))
    answered = list(db.query("select count(*) as n from outbox where to_addr = ? and in_reply_to is not null "
                             "and created_at > ?", [msg.reply_to or msg.sender, since]))[0]["n"]
    if answered >= max_replies_per_hour:
        return "dropped: reply rate limit"
    if msg.problem:
        _reply(db, msg, now, Reply(notes=[f"Your message could not be read: {msg.problem}."]), None)
        return f"refused: {msg.problem}"
    try:
        with write(db):
            return _handle(db, msg, now)
    except Exception:  # a bug must not lose the message or leave half an effect
        log.exception("handling message %s from %s failed", msg.message_id, msg.sender)
        _reply(db, msg, now, Reply(notes=["The judge could not handle your message because of an internal error. "
                                          "Nothing in it took effect; the game master has been told."]), None)
        return "error"


def _handle(db: Database, msg: Incoming, now: datetime) -> str:
    parsed = c.parse_body(msg.body)
    session = Session(msg, now)
    reply = Reply()
    if not parsed.items and not parsed.problems:
        reply.notes.append("Your message had no commands or orders in it. Send HELP for the commands.")
    entries: list[Any] = sorted([*parsed.items, *parsed.problems], key=lambda x: x.line)
    for entry in entries:
        if isinstance(entry, c.LineProblem):
            reply.say(entry.text, f"ERROR: {entry.reason}")
            continue
        try:
            _command(db, session, reply, entry)
        except GameError as exc:
            reply.say(entry.text, f"ERROR: {exc}")
    summary = None
    if session.game is not None and session.player is not None:
        game = service.get_game(db, session.game.name)
        if game.status in ("active", "paused") and game.position is not None:
            summary = order_summary(db, game, session.player)
    _reply(db, msg, now, reply, summary, session)
    if session.game is not None and (session.changed_orders or session.ready_changed):
        game = service.get_game(db, session.game.name)
        service.maybe_adjudicate_when_ready(db, game, now)
    return "handled"


def _reply(db: Database, msg: Incoming, now: datetime, reply: Reply, summary: dict[str, Any] | None,
           session: Session | None = None) -> None:
    game = session.game if session else None
    if game is not None:
        game = service.get_game(db, game.name)
    notify.send(db, msg.reply_to or msg.sender, "reply", now, game=game if summary is not None else None,
                in_reply_to=msg.message_id or "", reply=reply, summary=summary, original_subject=msg.subject,
                player=session.player if session else None, game_name=game.name if game else None)


# --- the commands ---------------------------------------------------------------------------------------------------

def _command(db: Database, s: Session, reply: Reply, item: c.Item) -> None:
    if isinstance(item, c.SignOn):
        _signon(db, s, reply, item)
    elif isinstance(item, c.OrderLine):
        game, player = _signed(db, s)
        if game.status not in ("active", "paused") or game.position is None:
            raise GameError(f"game {game.name} is {game.status}: no orders are due")
        if not player.active:
            raise GameError(f"{player.power} no longer gives orders in {game.name}")
        response = merge_orders(db, game, player, item.text, s.now)
        s.changed_orders = s.changed_orders or response.startswith("OK")
        reply.say(item.text, response)
    elif isinstance(item, c.Ready):
        game, player = _signed(db, s)
        player.ready = item.ready
        save_player(db, player)
        s.ready_changed = True
        reply.say(item.text, "ready" if item.ready else "not ready")
    elif isinstance(item, c.Clear):
        game, player = _signed(db, s)
        if game.phase:
            set_orders(db, game.id, game.phase, player.power or "", [], s.now)
        reply.say(item.text, "all your orders for this phase are withdrawn")
    elif isinstance(item, c.Draw):
        game, player = _signed(db, s)
        reply.say(item.text, draws.vote(db, game, player, item.action, s.now))
    elif isinstance(item, c.Resign):
        game, player = _signed(db, s)
        reply.say(item.text, _resign(db, game, player, s.now))
    elif isinstance(item, c.Press):
        game, player = _signed(db, s)
        reply.say(item.text, _press(db, game, player, item, s.now))
    elif isinstance(item, c.Join):
        seat = service.join_game(db, item.game, s.msg.sender, item.password, s.now, preferences=item.preferences)
        reply.say(f"JOIN {item.game} ****", f"{seat.email} joined {item.game.lower()}; the game starts when the "
                                            "game master starts it")
    elif isinstance(item, c.Observe):
        service.observe_game(db, item.game, s.msg.sender, s.now)
        reply.say(item.text, f"you will receive the results of {item.game.lower()}")
    elif isinstance(item, c.ListGames):
        reply.say(item.text, "see below")
        reply.notes.append(_list_text(db, item.game))
    elif isinstance(item, c.History):
        reply.say(item.text, "see below")
        reply.notes.append(_history_text(db, item.game, item.phase))
    elif isinstance(item, c.Sandbox):
        reply.say("SANDBOX", "see below")
        reply.notes.append(run_sandbox_text(item.body))
    elif isinstance(item, c.SetPassword):
        game, player = _signed(db, s)
        if len(item.password) < 4:
            raise GameError("choose a password of at least 4 characters")
        player.password_hash = hash_password(item.password)
        save_player(db, player)
        log_event(db, game.id, s.now, s.msg.sender, "password", {"power": player.power})
        reply.say("SET PASSWORD ****", "your password is changed")
    elif isinstance(item, c.SetTimezone):
        try:
            zone = check_timezone(item.zone)
        except ValueError as exc:
            raise GameError(str(exc)) from None
        set_user(db, s.msg.sender, timezone=zone)
        reply.say(item.text, f"deadlines will be shown in {zone}")
    elif isinstance(item, c.SetLanguage):
        if item.language not in LANGUAGES:
            raise GameError(f"the judge speaks {', '.join(LANGUAGES)}")
        set_user(db, s.msg.sender, language=item.language)
        reply.say(item.text, f"replies will be in {item.language}")
    elif isinstance(item, c.Help):
        reply.say(item.text, "see below")
        reply.notes.append(render_mail("help", user_settings(db, s.msg.sender)["language"]).text)
    elif isinstance(item, c.SignOff):
        reply.say(item.text, "end of message")


def _signed(db: Database, s: Session) -> tuple[Game, Player]:
    """The game and player signed on as, read afresh (an earlier line of the message may have changed them)."""
    if s.game is None or s.player is None:
        raise GameError("sign on first: SIGNON <power> <game> <password>")
    s.game = service.get_game(db, s.game.name)
    s.player = next(p for p in players(db, s.game.id) if p.id == s.player.id)
    return s.game, s.player


def _signon(db: Database, s: Session, reply: Reply, item: c.SignOn) -> None:
    sender = s.msg.sender
    since = iso_utc(s.now - timedelta(hours=1))
    failures = list(db.query("select count(*) as n from signon_failures where address = ? and at > ?",
                             [sender, since]))[0]["n"]
    if failures >= MAX_FAILED_SIGNONS:
        reply.say(_masked(item), "ERROR: too many failed sign-ons from your address; try again in an hour")
        return
    game = load_game(db, item.game)
    seat = None
    if game is not None:
        power = _power_for(game, item)
        seat = next((p for p in players(db, game.id) if p.role == "player" and p.power == power), None)
    if game is not None and seat is not None and verify_password(item.password, seat.password_hash):
        s.game, s.player = game, seat
        reply.say(_masked(item), f"signed on as {seat.power} in {game.name}")
        return
    db.table("signon_failures").insert({"address": sender, "at": iso_utc(s.now)})
    log_event(db, game.id if game else None, s.now, sender, "signon-failed",
              {"game": item.game.lower(), "power": item.power})
    reply.say(_masked(item), "ERROR: sign-on failed: no such game, power or password")
    if game is not None and seat is not None and seat.email != sender:
        notify.send(db, seat.email, "signon_alert", s.now, game=game, player=seat, address=sender)


def _masked(item: c.SignOn) -> str:
    return f"SIGNON {item.power}{'' if item.initial else ' '}{item.game} ****"


def _power_for(game: Game, item: c.SignOn) -> str | None:
    if not item.initial:
        return game.variant.power_named(item.power)
    matches = [p for p in game.variant.powers if p[0].upper() == item.power.upper()]
    return matches[0] if len(matches) == 1 else None


def _resign(db: Database, game: Game, player: Player, now: datetime) -> str:
    if player.resigned:
        return "you have already resigned"
    player.resigned, player.ready = True, False
    save_player(db, player)
    log_event(db, game.id, now, player.email, "resign", {"power": player.power})
    for p in players(db, game.id):
        if p.id != player.id:
            notify.send(db, p.email, "resigned", now, game=game, player=player)
    draws.recount(db, game, now)
    return f"{player.power} has resigned; its units are in civil disorder"


def _press(db: Database, game: Game, player: Player, item: c.Press, now: datetime) -> str:
    kind = game.settings.press
    if kind == "none":
        raise GameError(f"game {game.name} has no press")
    seats = players(db, game.id)
    if item.to is None:
        recipients = [p for p in seats if p.id != player.id]
        to_label = "everyone"
    else:
        wanted = []
        for name in item.to:
            power = game.variant.power_named(name)
            if power is None:
                raise GameError(f"{game.variant.name} has no power {name!r}; it has {', '.join(game.variant.powers)}")
            wanted.append(power)
        recipients = [p for p in seats if p.power in wanted and p.id != player.id]
        to_label = ", ".join(wanted)
    sender = "an anonymous power" if kind == "grey" else player.power
    for p in recipients:
        notify.send(db, p.email, "press", now, game=game, sender=sender, to_label=to_label, body=item.body)
    log_event(db, game.id, now, player.email, "press", {"from": player.power, "to": to_label, "body": item.body})
    return f"press sent to {to_label}" + (" without your name (grey press)" if kind == "grey" else "")


def _list_text(db: Database, name: str | None) -> str:
    if name:
        shown = service.show_game(db, name)
        lines = [f"{shown['name']} ({shown['variant']}): {shown['status']}, phase {shown['phase'] or '-'}"]
        for p in shown["players"]:
            lines.append(f"  {p['power'] or '?':<10} {'resigned' if p['resigned'] else ''}"
                         f"{'eliminated' if p['eliminated'] else ''}")
        for power, centres in shown["supply_centers"].items():
            lines.append(f"  {power}: {len(centres)} centres")
        return "\n".join(lines)
    games = service.list_games(db)
    if not games:
        return "There are no games."
    return "\n".join(f"{g['name']:<20} {g['variant']:<10} {g['status']:<9} {g['phase'] or ''}" for g in games)


def _history_text(db: Database, name: str, phase: str | None) -> str:
    game = service.get_game(db, name)
    rows = list(db.query("select phase, results from phases where game_id = ? order by rowid", [game.id]))
    if phase is None:
        return f"Phases played in {game.name}: " + (", ".join(r["phase"] for r in rows) or "none yet")
    picked = [r for r in rows if r["phase"] == phase.upper()]
    if not picked:
        raise GameError(f"{game.name} has no played phase {phase.upper()}")
    lines = [f"{game.name}, {picked[0]['phase']}:"]
    for r in json.loads(picked[0]["results"]):
        lines.append(f"  {r['power']:<10} {r['order'] or r['input']}: {r['outcome']}")
    return "\n".join(lines)
