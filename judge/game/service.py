"""What the game master can do to a game, and what happens when a phase is adjudicated.

Every function works inside the caller's transaction and takes ``now`` from the caller: nothing here reads the clock.
Mail to players is queued in the outbox (judge.game.notify), never sent from here.
"""

from __future__ import annotations

import difflib
import json
import random
from datetime import datetime, timedelta
from typing import Any

from sqlite_utils import Database

from judge.data.catalog import load_variant
from judge.facts import MAX_GAME_NAME_LENGTH, MIN_PASSWORD_LENGTH, is_game_name
from judge.game import notify
from judge.game.passwords import hash_password
from judge.game.records import (
    Game,
    Player,
    game_names,
    insert_game,
    insert_player,
    load_game,
    log_event,
    orders_of,
    players,
    save_game,
    save_player,
)
from judge.game.settings import GameSettings
from judge.i18n import T
from judge.rules.adjustments import adjustment_delta, can_build_somewhere
from judge.rules.board import Position, Unit
from judge.rules.orders import order_text
from judge.rules.phase import Phase, Season, Step
from judge.rules.position_json import position_from_json, position_to_json
from judge.rules.turn import TurnResult, parse_submissions, play
from judge.store import write
from judge.timeutil import iso_utc, parse_iso_utc


class GameError(Exception):
    """A request that cannot be carried out; the message says why and changes nothing."""


def get_game(db: Database, name: str) -> Game:
    game = load_game(db, name)
    if game is None:
        raise GameError(T("there is no game called {name}", name=repr(name)))
    return game


# --- setting a game up ---------------------------------------------------------------------------------------------


def create_game(
    db: Database, name: str, variant_name: str, settings: GameSettings, now: datetime, sender: str = "master"
) -> Game:
    key = name.strip().lower()
    if not is_game_name(key):
        raise GameError(
            f"a game name is 1 to {MAX_GAME_NAME_LENGTH} letters, digits, '-' or '_', starting with a letter or digit"
        )
    if load_game(db, key) is not None:
        raise GameError(f"a game called {key!r} already exists")
    try:
        variant = load_variant(variant_name)
    except KeyError as exc:
        raise GameError(str(exc.args[0])) from None
    problems = settings.check(variant)
    if problems:
        raise GameError("; ".join(problems))
    game = insert_game(db, key, variant, settings, now)
    log_event(db, game.id, now, sender, "create", {"variant": variant.key, "settings": json.loads(settings.to_json())})
    return game


def join_game(
    db: Database,
    name: str,
    email: str,
    password: str,
    now: datetime,
    *,
    power: str | None = None,
    preferences: tuple[str, ...] = (),
    sender: str | None = None,
) -> Player:
    """Seat a player in a forming game (by the master with a power, or by mail with preferences)."""
    game = get_game(db, name)
    if game.status != "forming":
        raise GameError(T("game {game} has already started; ask the game master to replace a player", game=game.name))
    if not password or len(password) < MIN_PASSWORD_LENGTH:
        raise GameError(T("choose a password of at least {count} characters", count=MIN_PASSWORD_LENGTH))
    seated = [p for p in players(db, game.id) if p.role == "player"]
    if any(p.email == email.lower() for p in seated) and not game.settings.shared_addresses:
        raise GameError(T("{address} has already joined {game}", address=email, game=game.name))
    if len(seated) >= len(game.variant.powers):
        raise GameError(T("{game} is full ({count} players)", game=game.name, count=len(game.variant.powers)))
    if power is not None:
        found = game.variant.power_named(power)
        if found is None:
            raise GameError(f"{game.variant.name} has no power {power!r}; it has {', '.join(game.variant.powers)}")
        if any(p.power == found for p in seated):
            raise GameError(f"{found} is already taken in {game.name}")
        power = found
    unknown = [x for x in preferences if game.variant.power_named(x) is None]
    if unknown:  # a typo ('Frnace') is an error, not a silently dropped wish
        near = difflib.get_close_matches(unknown[0].lower(), [p.lower() for p in game.variant.powers], n=1, cutoff=0.5)
        named = {p.lower(): p for p in game.variant.powers}
        if near:
            raise GameError(
                T(
                    "{variant} has no power {name}; did you mean {power}? Nothing was changed; send JOIN again",
                    variant=game.variant.name,
                    name=repr(unknown[0]),
                    power=T(named[near[0]]),
                )
            )
        raise GameError(
            T(
                "{variant} has no power {name}; it has {powers}. Nothing was changed; send JOIN again",
                variant=game.variant.name,
                name=repr(unknown[0]),
                powers=[T(p) for p in game.variant.powers],
            )
        )
    prefs = [p for p in (game.variant.power_named(x) for x in preferences) if p]
    player = Player(0, game.id, power, email.lower(), hash_password(password), preferences=prefs)
    insert_player(db, player, now)
    log_event(db, game.id, now, sender or email, "join", {"email": email.lower(), "power": power})
    if len(seated) + 1 == len(game.variant.powers):
        from judge.game.master import game_filled

        game_filled(db, game, now)
    return [p for p in players(db, game.id) if p.email == email.lower() and p.role == "player"][-1]


def observe_game(db: Database, name: str, email: str, now: datetime) -> None:
    game = get_game(db, name)
    if any(p.email == email.lower() for p in players(db, game.id)):
        return
    insert_player(db, Player(0, game.id, None, email.lower(), "", role="observer"), now)
    log_event(db, game.id, now, email, "observe", None)


def start_game(db: Database, name: str, now: datetime, rng: random.Random, sender: str = "master") -> Game:
    game = get_game(db, name)
    if game.status != "forming":
        raise GameError(f"game {game.name} is not forming (it is {game.status})")
    seated = [p for p in players(db, game.id) if p.role == "player"]
    powers = list(game.variant.powers)
    if len(seated) != len(powers):
        raise GameError(f"{game.name} needs {len(powers)} players and has {len(seated)}")
    _assign_powers(seated, powers, game.settings.assignment, rng)
    for p in seated:
        save_player(db, p)
    variant = game.variant
    game.position = Position(
        Phase(variant.start_year, Season.SPRING, Step.MOVEMENT),
        {variant.geo.loc_province[u.loc]: Unit(u.power, u.kind, u.loc) for u in variant.start_units},
        variant.start_ownership(),
    )
    game.status = "active"
    game.deadline = now + game.settings.deadline_for(Step.MOVEMENT)
    save_game(db, game, now)
    log_event(db, game.id, now, sender, "start", {p.power: p.email for p in seated})
    notify.game_started(db, game, players(db, game.id), now)
    return game


def _assign_powers(seated: list[Player], powers: list[str], how: str, rng: random.Random) -> None:
    free = [p for p in powers if p not in {s.power for s in seated}]
    waiting = [s for s in seated if s.power is None]
    if how == "master" and waiting:
        raise GameError(
            "the game master assigns powers, and these players have none yet: " + ", ".join(s.email for s in waiting)
        )
    rng.shuffle(waiting)
    if how == "preference":
        for s in waiting:
            wanted = [p for p in s.preferences if p in free]
            if wanted:
                s.power = wanted[0]
                free.remove(wanted[0])
    rng.shuffle(free)
    for s in waiting:
        if s.power is None:
            s.power = free.pop()


# --- the game master's controls ------------------------------------------------------------------------------------


def pause_game(db: Database, name: str, now: datetime, sender: str = "master") -> Game:
    game = get_game(db, name)
    if game.status != "active":
        raise GameError(f"game {game.name} is {game.status}, not active")
    game.paused_remaining = max(0, int((game.deadline - now).total_seconds())) if game.deadline else 0
    game.status, game.deadline = "paused", None
    save_game(db, game, now)
    log_event(db, game.id, now, sender, "pause", None)
    notify.announce(db, game, players(db, game.id), now, "paused")
    return game


def resume_game(db: Database, name: str, now: datetime, sender: str = "master") -> Game:
    game = get_game(db, name)
    if game.status != "paused":
        raise GameError(f"game {game.name} is {game.status}, not paused")
    game.status = "active"
    game.deadline = now + timedelta(seconds=max(game.paused_remaining or 0, 3600))
    game.paused_remaining = None
    save_game(db, game, now)
    log_event(db, game.id, now, sender, "resume", None)
    notify.announce(db, game, players(db, game.id), now, "resumed")
    return game


def replace_player(
    db: Database, name: str, power: str, email: str, password: str, now: datetime, sender: str = "master"
) -> Player:
    game = get_game(db, name)
    found = game.variant.power_named(power)
    seat = next((p for p in players(db, game.id) if p.role == "player" and p.power == found), None)
    if seat is None:
        raise GameError(f"nobody plays {power!r} in {game.name}")
    old = seat.email
    seat.email, seat.password_hash, seat.resigned = email.lower(), hash_password(password), False
    save_player(db, seat)
    log_event(db, game.id, now, sender, "replace", {"power": found, "from": old, "to": email.lower()})
    return seat


def rollback_game(db: Database, name: str, phase_code: str, now: datetime, sender: str = "master") -> Game:
    """Return the game to the start of an earlier phase; later phases and their orders are discarded (logged)."""
    game = get_game(db, name)
    code = phase_code.strip().upper()
    rows = list(db.query("select rowid, board_before from phases where game_id = ? and phase = ?", [game.id, code]))
    if not rows:
        raise GameError(f"{game.name} has no played phase {code}")
    later = [
        r["phase"]
        for r in db.query(
            "select phase from phases where game_id = ? and rowid >= ? order by rowid", [game.id, rows[0]["rowid"]]
        )
    ]
    db.execute(f"delete from phases where game_id = ? and phase in ({','.join('?' * len(later))})", [game.id, *later])
    db.execute(
        "delete from orders where game_id = ? and phase not in (select phase from phases where game_id = ?)",
        [game.id, game.id],
    )
    db.execute("update draws set status = 'lapsed' where game_id = ? and status = 'open'", [game.id])
    game.position = position_from_json(game.variant, json.loads(rows[0]["board_before"]))
    game.status, game.result, game.in_grace = "active", None, False
    game.deadline = now + game.settings.deadline_for(game.position.phase.step)
    for p in players(db, game.id):
        p.ready = False
        p.eliminated = p.eliminated and not _has_presence(game.position, p.power)
        save_player(db, p)
    save_game(db, game, now)
    log_event(db, game.id, now, sender, "rollback", {"to": code, "discarded": later})
    notify.announce(db, game, players(db, game.id), now, "rolled back")
    return game


def _has_presence(pos: Position, power: str | None) -> bool:
    return power is not None and (any(u.power == power for u in pos.units.values()) or power in pos.owners.values())


# --- who owes what -------------------------------------------------------------------------------------------------


def owing_powers(game: Game) -> set[str]:
    """Powers that have orders to give in the current phase."""
    pos = game.position
    if pos is None:
        return set()
    step = pos.phase.step
    if step is Step.MOVEMENT:
        return {u.power for u in pos.units.values()}
    if step is Step.RETREAT:
        return {d.unit.power for d in pos.dislodged.values()}
    return {
        p
        for p in game.variant.powers
        if (d := adjustment_delta(game.variant, pos, p)) < 0 or (d > 0 and can_build_somewhere(game.variant, pos, p))
    }


# --- adjudication --------------------------------------------------------------------------------------------------


def process_game(db: Database, name: str, now: datetime, sender: str = "master") -> TurnResult:
    """Adjudicate the current phase now, as if its deadline had passed."""
    game = get_game(db, name)
    if game.status not in ("active", "paused"):
        raise GameError(f"game {game.name} is {game.status}")
    return adjudicate(db, game, now, sender)


def sides(db: Database, game: Game) -> tuple[tuple[str, ...], ...]:
    """With the ``combined`` setting: the powers each player (address) holds, when more than one, in variant order."""
    if not game.settings.combined:
        return ()
    held: dict[str, list[str]] = {}
    for p in players(db, game.id):
        if p.role == "player" and p.power and p.email:
            held.setdefault(p.email, []).append(p.power)
    order = {power: i for i, power in enumerate(game.variant.powers)}
    return tuple(tuple(sorted(ps, key=order.__getitem__)) for ps in held.values() if len(ps) > 1)


def adjudicate(db: Database, game: Game, now: datetime, sender: str) -> TurnResult:
    assert game.position is not None
    variant, before = game.variant, game.position
    phase = before.phase.code
    submitted = orders_of(db, game.id, phase)
    turn = play(
        variant,
        before,
        parse_submissions(variant, before.phase.step, submitted),
        game.settings.victory(variant),
        sides(db, game),
    )
    results = [
        {
            "power": r.power,
            "input": r.input,
            "order": order_text(variant.geo, r.order, before.units) if r.order is not None else None,
            "outcome": r.outcome.value,
            "reason": r.reason,
        }
        for r in turn.results
    ]
    db.table("phases").upsert(
        {
            "game_id": game.id,
            "phase": phase,
            "board_before": json.dumps(position_to_json(variant, before)),
            "orders": json.dumps(submitted),
            "results": json.dumps(results),
            "board_after": json.dumps(position_to_json(variant, turn.position)),
            "adjudicated_at": iso_utc(now),
        },
        pk=("game_id", "phase"),
    )
    from judge.game.draws import lapse

    lapse(db, game.id, turn.position.phase)
    game.position = turn.position
    game.in_grace = game.reminded = False
    seats = players(db, game.id)
    newly_out = []
    for p in seats:
        p.ready = False
        if p.role == "player" and p.power and not p.eliminated and not _has_presence(turn.position, p.power):
            p.eliminated = True
            newly_out.append(p)
        save_player(db, p)
    if turn.winner is not None:
        game.status, game.deadline = "finished", None
        game.result = {"kind": "solo", "winner": turn.winner}
        side = next((s for s in sides(db, game) if turn.winner in s), None)
        if side is not None:
            game.result["powers"] = list(side)
    elif turn.draw:
        game.status, game.deadline = "finished", None
        held = {side[0]: side for side in sides(db, game)}  # a combined side shares the draw with all its powers
        game.result = {
            "kind": "draw",
            "powers": sorted(p for name in turn.draw for p in held.get(name, (name,))),
            "by": "rule",
        }
    elif game.status == "active":
        game.deadline = now + game.settings.deadline_for(turn.position.phase.step)
    save_game(db, game, now)
    log_event(
        db,
        game.id,
        now,
        sender,
        "adjudicate",
        {"phase": phase, "next": turn.position.phase.code, "winner": turn.winner},
    )
    notify.results(db, game, seats, before, turn, results, now)
    for p in newly_out:
        notify.eliminated(db, game, p, now)
    from judge.game.master import after_adjudication

    after_adjudication(db, game, before, submitted, now)
    if game.status == "finished":
        notify.game_over(db, game, seats, now)
    return turn


REMINDER_BEFORE = timedelta(hours=12)


def _reminder_window(settings: GameSettings, phase_code: str) -> timedelta:
    """Reminders go out 12 hours before the deadline, or a quarter of the phase's time when that is shorter."""
    return min(REMINDER_BEFORE, settings.deadline_for(Phase.parse(phase_code).step) / 4)


def remind(db: Database, now: datetime, limit: int | None = None) -> int:
    """Remind players who have sent no orders yet, once per phase; return how many games were reminded.

    Games are chosen by a read, and each is checked again inside its own write transaction (still active, the
    deadline still set and not passed, the phase unchanged, not reminded yet), so a pause, an extension or an
    adjudication landing in between is respected.
    """
    done = 0
    for row in list(
        db.query(
            "select name, phase, deadline, settings from games where status = 'active' "
            "and deadline > ? and deadline <= ? and coalesce(reminded, 0) = 0 order by deadline",
            [iso_utc(now), iso_utc(now + REMINDER_BEFORE)],
        )
    ):
        if limit is not None and done >= limit:
            break
        try:
            window = _reminder_window(GameSettings.from_json(row["settings"]), row["phase"])
        except (ValueError, KeyError, TypeError):
            continue
        if parse_iso_utc(row["deadline"]) - now > window:
            continue
        with write(db):
            game = load_game(db, row["name"])
            if (
                game is None
                or game.status != "active"
                or game.deadline is None
                or game.position is None
                or game.reminded
                or game.phase != row["phase"]
                or game.deadline <= now
                or game.deadline - now > _reminder_window(game.settings, game.position.phase.code)
            ):
                continue
            for p in _late_players(db, game, players(db, game.id)):
                notify.reminder(db, game, p, now)
            game.reminded = True
            save_game(db, game, now)
            done += 1
    return done


def due_games(db: Database, now: datetime, limit: int | None = None) -> list[tuple[str, str]]:
    """(name, phase) of the active games whose deadline has passed, earliest deadline first."""
    sql = (
        "select name, phase from games where status = 'active' and deadline is not null and deadline <= ? "
        "order by deadline, id"
    )
    params: list[Any] = [iso_utc(now)]
    if limit is not None:
        sql += " limit ?"
        params.append(limit)
    return [(r["name"], r["phase"]) for r in db.query(sql, params)]


def tick(db: Database, now: datetime, limit: int | None = None) -> list[str]:
    """Adjudicate active games whose deadline has passed (after a grace period, when the game has one), at most
    ``limit`` of them; return the names of those adjudicated.

    Each game is its own write transaction that checks again that the game is still active, its deadline still due
    and its phase unchanged: a game master's ``process``, ``extend`` or ``pause`` (or another round) that landed
    since the choice wins, and the game is left alone.
    """
    remind(db, now)
    return [name for name, phase in due_games(db, now, limit) if tick_game(db, name, phase, now)]


def tick_game(db: Database, name: str, phase: str, now: datetime) -> bool:
    """One game whose deadline was seen passed at ``phase``: in its own write transaction, checked again, then
    adjudicated (True), or given its grace period, or left alone when something changed meanwhile (False)."""
    with write(db):
        game = load_game(db, name)
        if (
            game is None
            or game.status != "active"
            or game.deadline is None
            or game.deadline > now
            or game.phase != phase
        ):
            return False
        seats = players(db, game.id)
        late = _late_players(db, game, seats)
        if game.settings.grace and not game.in_grace and late:
            game.in_grace = True
            game.deadline = now + timedelta(seconds=game.settings.grace)
            save_game(db, game, now)
            log_event(db, game.id, now, "judge", "grace", {"late": [p.power for p in late]})
            for p in late:
                notify.late_notice(db, game, p, now)
            return False
        adjudicate(db, game, now, "deadline")
        return True


def _late_players(db: Database, game: Game, seats: list[Player]) -> list[Player]:
    owing = owing_powers(game)
    given = orders_of(db, game.id, game.phase or "")
    return [p for p in seats if p.active and p.power in owing and not given.get(p.power)]


def maybe_adjudicate_when_ready(db: Database, game: Game, now: datetime) -> TurnResult | None:
    """Adjudicate at once when every active player who owes orders has said READY.

    Called inside the caller's write transaction; the game is read again there, so a phase another writer has just
    adjudicated (or a game just paused) is left alone."""
    current = load_game(db, game.name)
    if current is None or current.phase != game.phase:
        return None
    game = current
    seats = players(db, game.id)
    owing = owing_powers(game)
    voters = [p for p in seats if p.active and p.power in owing]
    if game.status == "active" and voters and all(p.ready for p in voters):
        return adjudicate(db, game, now, "ready")
    return None


# --- showing ---------------------------------------------------------------------------------------------------------


def show_game(db: Database, name: str) -> dict[str, Any]:
    game = get_game(db, name)
    board = position_to_json(game.variant, game.position) if game.position else {"units": {}, "supply_centers": {}}
    given = orders_of(db, game.id, game.phase) if game.phase else {}
    phases = [r["phase"] for r in db.query("select phase from phases where game_id = ? order by rowid", [game.id])]
    return {
        "name": game.name,
        "variant": game.variant.key,
        "status": game.status,
        "phase": game.phase,
        "deadline": iso_utc(game.deadline) if game.deadline else None,
        "units": board["units"],
        "supply_centers": board["supply_centers"],
        "players": [
            {
                "power": p.power,
                "email": p.email,
                "ready": p.ready,
                "resigned": p.resigned,
                "eliminated": p.eliminated,
                "orders_submitted": bool(p.power and given.get(p.power)),
            }
            for p in players(db, game.id)
            if p.role == "player"
        ],
        "result": game.result,
        "phases": phases + ([game.phase] if game.phase and game.status != "finished" else []),
    }


def list_games(db: Database) -> list[dict[str, Any]]:
    out = []
    for name in game_names(db):
        game = get_game(db, name)
        out.append(
            {
                "name": game.name,
                "variant": game.variant.key,
                "status": game.status,
                "phase": game.phase,
                "deadline": iso_utc(game.deadline) if game.deadline else None,
            }
        )
    return out
