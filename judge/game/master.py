"""The game master's toolkit: replace, eject, end, delete, deadlines, settings, a full view of a game, and the mail the
game master gets (a game fills, a player keeps missing deadlines).

Like judge.game.service, every function works inside the caller's transaction and takes ``now`` from the caller;
mail is queued in the outbox. Each action mails only the people it concerns, once per address:

- replace: the new player (power, game, how to sign on and choose their own password) and the old one;
- eject: the ejected player;
- an extension: each player who still owes orders; a shortening: every player who owes orders this phase;
- end, settings, pause/resume (judge.game.service): every player of the game;
- delete: the players who had joined the (never started) game.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

from sqlite_utils import Database

from judge.facts import MAX_DEADLINE, MAX_DEADLINE_DAYS, MIN_PASSWORD_LENGTH
from judge.game import notify
from judge.game.records import Game, Player, log_event, orders_of, players, save_game, save_player
from judge.game.service import GameError, _late_players, get_game, owing_powers, replace_player, show_game
from judge.game.settings import ASSIGNMENTS, PRESS_KINDS, GameSettings
from judge.rules.position_json import position_from_json
from judge.timeutil import iso_utc, parse_duration

MISSED_IN_A_ROW = 2  # the game master hears of a player who misses this many deadlines in a row


class Ending(Enum):
    """How the game master ends a game."""

    DRAW = "draw"
    ABANDONED = "abandoned"


class DeadlineChange(Enum):
    EXTENDED = "extended"
    SHORTENED = "shortened"


def _seat(db: Database, game: Game, power: str) -> Player:
    found = game.variant.power_named(power)
    if found is None:
        raise GameError(f"{game.variant.name} has no power {power!r}; it has {', '.join(game.variant.powers)}")
    seat = next((p for p in players(db, game.id) if p.role == "player" and p.power == found), None)
    if seat is None:
        raise GameError(f"nobody plays {found} in {game.name}")
    return seat


# --- seats ---------------------------------------------------------------------------------------------------------


def replace(
    db: Database, name: str, power: str, email: str, password: str, now: datetime, sender: str = "master"
) -> Player:
    """Give ``power`` to ``email``; the new player is told how to sign on, the old one that they no longer play."""
    game = get_game(db, name)
    if game.status == "finished":
        raise GameError(f"game {game.name} is over")
    seat = _seat(db, game, power)
    address = email.strip().lower()
    if "@" not in address:
        raise GameError(f"{email!r} is not a mail address")
    if seat.email == address:
        raise GameError(f"{address} already plays {seat.power} in {game.name}")
    others = [p.power for p in players(db, game.id) if p.role == "player" and p.email == address]
    if others and not game.settings.shared_addresses:
        raise GameError(
            f"{address} already plays {', '.join(str(p) for p in others)} in {game.name}; one address "
            f"holds two powers only where the game allows it (judge game settings {game.name} "
            f"shared_addresses true)"
        )
    if len(password) < MIN_PASSWORD_LENGTH:
        raise GameError(f"choose a password of at least {MIN_PASSWORD_LENGTH} characters")
    old = seat.email
    new = replace_player(db, game.name, seat.power or power, address, password, now, sender)
    new.ready = False
    save_player(db, new)
    if old:
        notify.send(db, old, "seat_change", now, game=game, what="replaced_out", power=new.power)
    notify.send(db, address, "seat_change", now, game=game, what="replaced_in", power=new.power)
    return new


def eject(db: Database, name: str, power: str, now: datetime, sender: str = "master") -> Player:
    """Take ``power`` from its player: before the start the seat is freed; afterwards the power is in civil disorder
    (its units hold, it is not waited for) until ``replace`` gives it to someone else."""
    game = get_game(db, name)
    if game.status == "finished":
        raise GameError(f"game {game.name} is over")
    seat = _seat(db, game, power)
    if game.status == "forming":
        db.execute("delete from players where id = ?", [seat.id])
    else:
        seat.resigned, seat.ready, seat.password_hash = True, False, ""
        save_player(db, seat)
    log_event(db, game.id, now, sender, "eject", {"power": seat.power, "email": seat.email})
    notify.send(db, seat.email, "seat_change", now, game=game, what="ejected", power=seat.power)
    return seat


# --- the end of a game ---------------------------------------------------------------------------------------------


def end(
    db: Database, name: str, how: Ending, now: datetime, *, draw: tuple[str, ...] = (), sender: str = "master"
) -> Game:
    """End a running game: a draw among the named powers, or abandoned (no result)."""
    game = get_game(db, name)
    if game.status not in ("active", "paused"):
        raise GameError(
            f"game {game.name} is {game.status}; only a running game can be ended "
            + ("(a forming game can be deleted)" if game.status == "forming" else "")
        )
    if how is Ending.DRAW:
        powers = []
        for text in draw:
            found = game.variant.power_named(text)
            if found is None:
                raise GameError(f"{game.variant.name} has no power {text!r}; it has {', '.join(game.variant.powers)}")
            if found not in powers:
                powers.append(found)
        if len(powers) < 2:
            raise GameError("a draw needs at least two powers")
        seats = {p.power: p for p in players(db, game.id) if p.role == "player"}
        out = [p for p in powers if p in seats and seats[p].eliminated]
        if out:
            raise GameError(f"{', '.join(out)} {'is' if len(out) == 1 else 'are'} out of the game")
        game.result = {"kind": "draw", "powers": [p for p in game.variant.powers if p in powers], "by": "master"}
    else:
        game.result = {"kind": "abandoned", "by": "master"}
    game.status, game.deadline, game.paused_remaining, game.in_grace = "finished", None, None, False
    db.execute("update draws set status = 'lapsed' where game_id = ? and status = 'open'", [game.id])
    save_game(db, game, now)
    log_event(db, game.id, now, sender, "end", game.result)
    notify.game_over(db, game, players(db, game.id), now)
    return game


def delete(db: Database, name: str, now: datetime, sender: str = "master") -> list[str]:
    """Remove a game that never started; the players who had joined are told. Returns their addresses."""
    game = get_game(db, name)
    if game.status != "forming":
        raise GameError(f"game {game.name} has started; end it instead (judge game end {game.name} --abandoned)")
    told = list(dict.fromkeys(p.email for p in players(db, game.id)))
    for address in told:
        notify.send(db, address, "announcement", now, game=game, what="deleted")
    db.execute("delete from players where game_id = ?", [game.id])
    db.execute("delete from games where id = ?", [game.id])
    log_event(db, None, now, sender, "delete", {"game": game.name, "variant": game.variant.key, "told": told})
    return told


# --- deadlines -----------------------------------------------------------------------------------------------------


def change_deadline(
    db: Database,
    name: str,
    now: datetime,
    *,
    by: timedelta | None = None,
    to: datetime | None = None,
    shorten: bool = False,
    sender: str = "master",
) -> Game:
    """Move the current deadline later (``by``), earlier (``by`` with ``shorten``), or to ``to`` (a UTC time, earlier
    or later). A paused game keeps its time left instead: ``by`` adds to it or takes from it."""
    game = get_game(db, name)
    if (by is None) == (to is None):
        raise GameError("give a duration (24h) or --to a time, not both")
    if game.status == "paused":
        if to is not None:
            raise GameError(f"game {game.name} is paused: give a duration to change the time left, or resume it first")
        assert by is not None
        left = timedelta(seconds=game.paused_remaining or 0)
        left = left - by if shorten else left + by
        if left < timedelta(hours=1):
            raise GameError("that leaves less than an hour; a paused game resumes with at least an hour")
        game.paused_remaining = int(left.total_seconds())
        change = DeadlineChange.SHORTENED if shorten else DeadlineChange.EXTENDED
        detail = {"paused_remaining": game.paused_remaining}
    else:
        if game.status != "active" or game.deadline is None:
            raise GameError(f"game {game.name} has no running deadline (it is {game.status})")
        if to is None:
            assert by is not None
            to = game.deadline - by if shorten else max(game.deadline, now) + by
        if to <= now:
            raise GameError(f"{iso_utc(to)} has passed; to adjudicate now use: judge game process {game.name}")
        if to - now > MAX_DEADLINE:
            raise GameError(f"a deadline may be at most {MAX_DEADLINE_DAYS} days away")
        if to == game.deadline:
            raise GameError(f"the deadline is already {iso_utc(to)}")
        change = DeadlineChange.EXTENDED if to > game.deadline else DeadlineChange.SHORTENED
        # a later deadline earns a fresh reminder before it; an earlier one keeps a reminder already sent
        game.deadline, game.reminded = to, game.reminded and change is DeadlineChange.SHORTENED
        detail = {"deadline": iso_utc(to)}
    save_game(db, game, now)
    log_event(db, game.id, now, sender, change.value, detail)
    seats = players(db, game.id)
    if change is DeadlineChange.EXTENDED:
        concerned = _late_players(db, game, seats)  # those who still owe orders
    else:
        owing = owing_powers(game)
        concerned = [p for p in seats if p.active and p.power in owing]
    for address in dict.fromkeys(p.email for p in concerned):
        notify.send(db, address, "announcement", now, game=game, what=change.value)
    return game


# --- settings ------------------------------------------------------------------------------------------------------

SETTING_KEYS = {
    "press": "white, grey or none",
    "deadline": "movement phases, e.g. 48h",
    "retreat_deadline": "e.g. 24h",
    "adjust_deadline": "e.g. 24h",
    "grace": "e.g. 12h, or 0",
    "solo": "centres to win, or default",
    "last_year": "a year, or none",
    "anonymous": "true or false",
    "shared_addresses": "true or false",
    "master": "an address, or none",
    "assignment": "master, preference or random (before the start)",
    "tie_break": "powers in order, e.g. England,France (or none)",
    "tie_others": "play-on, draw or none",
    "combined": "true or false",
}


def _flag(value: str) -> bool:
    low = value.strip().lower()
    if low in ("true", "yes", "on", "1"):
        return True
    if low in ("false", "no", "off", "0"):
        return False
    raise GameError(f"{value!r}: say true or false")


def _whole(value: str, what: str) -> int:
    try:
        return int(value.strip())
    except ValueError:
        raise GameError(f"{what}: {value!r} is not a whole number") from None


def _seconds(value: str) -> int:
    try:
        return int(parse_duration(value).total_seconds())
    except ValueError as exc:
        raise GameError(str(exc)) from None


def change_setting(db: Database, name: str, key: str, value: str, now: datetime, sender: str = "master") -> Game:
    """Change one of a game's settings (``SETTING_KEYS``); the players are told of changes that concern them."""
    game = get_game(db, name)
    k = key.strip().lower().replace("-", "_")
    if game.status == "finished":
        raise GameError(f"game {game.name} is over")
    s = game.settings
    none = value.strip().lower() in ("none", "default", "-", "")
    if k == "press":
        if value not in PRESS_KINDS:
            raise GameError(f"press: one of {', '.join(PRESS_KINDS)}")
        new = dataclasses.replace(s, press=value)
    elif k in ("deadline", "movement_deadline"):
        new = dataclasses.replace(s, movement_deadline=_seconds(value))
    elif k == "retreat_deadline":
        new = dataclasses.replace(s, retreat_deadline=_seconds(value))
    elif k in ("adjust_deadline", "adjustment_deadline"):
        new = dataclasses.replace(s, adjustment_deadline=_seconds(value))
    elif k == "grace":
        new = dataclasses.replace(s, grace=0 if value.strip() == "0" or none else _seconds(value))
    elif k == "solo":
        new = dataclasses.replace(s, solo=None if none else _whole(value, "solo"))
    elif k == "last_year":
        new = dataclasses.replace(s, last_year=None if none else _whole(value, "last_year"))
    elif k == "tie_break":
        order = tuple(game.variant.power_named(w) or w for w in value.replace(",", " ").split())
        new = dataclasses.replace(s, tie_break=None if none else order)
    elif k == "tie_others":
        new = dataclasses.replace(s, tie_others=None if none else value.strip().lower())
    elif k in ("anonymous", "shared_addresses", "combined"):
        new = dataclasses.replace(s, **{k: _flag(value)})
    elif k == "master":
        if not none and "@" not in value:
            raise GameError(f"master: {value!r} is not a mail address")
        new = dataclasses.replace(s, master=None if none else value.strip().lower())
    elif k == "assignment":
        if game.status != "forming":
            raise GameError("assignment can only change before the game starts")
        if value not in ASSIGNMENTS:
            raise GameError(f"assignment: one of {', '.join(ASSIGNMENTS)}")
        new = dataclasses.replace(s, assignment=value)
    else:
        import difflib

        close = difflib.get_close_matches(k, list(SETTING_KEYS), n=1)
        raise GameError(
            f"unknown setting {key!r}"
            + (f"; did you mean {close[0]!r}?" if close else "")
            + f" (settings: {', '.join(SETTING_KEYS)})"
        )
    problems = new.check(game.variant)
    if problems:
        raise GameError("; ".join(problems))
    if new == s:
        raise GameError(f"{k} is already {value}")
    if k == "shared_addresses" and not new.shared_addresses:
        seats = [p.email for p in players(db, game.id) if p.role == "player"]
        if len(set(seats)) != len(seats):
            raise GameError("an address already plays two powers here; replace one of them first")
    game.settings = new
    save_game(db, game, now)
    field = _canonical(k)
    shown = settings_view(new).get(field)
    log_event(db, game.id, now, sender, "settings", {field: shown})
    if k not in ("master", "assignment"):  # the game master's own business
        for address in dict.fromkeys(p.email for p in players(db, game.id) if p.email):
            notify.send(
                db,
                address,
                "announcement",
                now,
                game=game,
                what="settings",
                detail=f"{field} = {'none' if shown is None else str(shown).lower()}",
            )
    return game


def _canonical(key: str) -> str:
    return {"deadline": "movement_deadline", "adjust_deadline": "adjustment_deadline"}.get(key, key)


def settings_view(s: GameSettings) -> dict[str, Any]:
    """The settings as a host reads them: durations as 48h, 1d12h."""
    from judge.timeutil import format_duration

    out: dict[str, Any] = dataclasses.asdict(s)
    for k in ("movement_deadline", "retreat_deadline", "adjustment_deadline", "grace"):
        out[k] = format_duration(timedelta(seconds=out[k]))
    return out


# --- a full view ---------------------------------------------------------------------------------------------------


def show(db: Database, name: str) -> dict[str, Any]:
    """``judge game show``: service.show_game plus, per player, whether they owe orders, how many lines they gave
    and READY, and every setting of the game."""
    shown = show_game(db, name)
    game = get_game(db, name)
    owing = owing_powers(game) if game.status in ("active", "paused") else set()
    given = orders_of(db, game.id, game.phase) if game.phase else {}
    for p in shown["players"]:
        p["owes_orders"] = p["power"] in owing
        p["order_lines"] = len(given.get(p["power"], [])) if p["power"] else 0
    shown["settings"] = settings_view(game.settings)
    shown["victory"] = {
        "solo_now": game.settings.victory(game.variant).threshold(
            game.variant.victory.total(game.variant.centres),
            game.position.phase.year if game.position else game.variant.start_year,
        )
    }
    shown["paused_remaining"] = game.paused_remaining
    return shown


# --- mail to the game master ---------------------------------------------------------------------------------------


def game_filled(db: Database, game: Game, now: datetime) -> None:
    """Every power has a player: the game master can start the game."""
    if game.settings.master:
        notify.send(
            db,
            game.settings.master,
            "master_notice",
            now,
            game=game,
            what="filled",
            power=None,
            email=None,
            count=len(game.variant.powers),
        )


def after_adjudication(db: Database, game: Game, before: Any, submitted: dict[str, list[str]], now: datetime) -> None:
    """Tell the game master about each player who has now missed ``MISSED_IN_A_ROW`` deadlines in a row (once)."""
    if not game.settings.master:
        return
    was = dataclasses.replace(game, position=before)
    owed = owing_powers(was)
    for seat in players(db, game.id):
        if not seat.active or seat.power not in owed or submitted.get(seat.power):
            continue
        if _missed_in_a_row(db, game, seat.power) == MISSED_IN_A_ROW:
            notify.send(
                db,
                game.settings.master,
                "master_notice",
                now,
                game=game,
                what="missed",
                power=seat.power,
                email=seat.email,
                count=MISSED_IN_A_ROW,
            )


def _missed_in_a_row(db: Database, game: Game, power: str) -> int:
    """Deadlines in a row, up to the last adjudicated phase, at which ``power`` owed orders and gave none."""
    missed = 0
    taken_over = ""  # a new player starts with a clean slate
    for event in db.query("select at, detail from events where game_id = ? and kind = 'replace'", [game.id]):
        if json.loads(event["detail"] or "{}").get("power") == power:
            taken_over = max(taken_over, event["at"])
    for row in db.query(
        "select board_before, orders, adjudicated_at from phases where game_id = ? order by rowid desc", [game.id]
    ):
        if taken_over and row["adjudicated_at"] <= taken_over:
            break
        pos = position_from_json(game.variant, json.loads(row["board_before"]))
        if power not in owing_powers(dataclasses.replace(game, position=pos)):
            continue
        if json.loads(row["orders"] or "{}").get(power):
            break
        missed += 1
        if missed > MISSED_IN_A_ROW:
            break
    return missed
