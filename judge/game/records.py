"""Games, players, orders and events as the game server's values, read from and written to the store (the SQL is in
judge/store/).

Every function here works inside the caller's transaction (``judge.store.write``); none commits on its own.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from judge.game.ports import load_variant
from judge.game.reminders import Reminded
from judge.game.settings import GameSettings
from judge.rules.board import Position
from judge.rules.geography import Geography
from judge.rules.order_json import order_from_json, order_to_json
from judge.rules.orders import Order
from judge.rules.parse import OrderError
from judge.rules.position_json import position_from_json, position_to_json
from judge.rules.turn import Submitted
from judge.rules.variant import Variant
from judge.store import events, game_rows, order_rows
from judge.store.game_rows import game_names as game_names
from judge.store.mail_queue import new_message_id as new_message_id
from judge.store.mail_queue import queue_mail as queue_mail
from judge.store.master_rows import set_create_by_mail_policy as set_create_by_mail_policy
from judge.store.order_rows import orders_of as orders_of
from judge.store.statuses import GameStatus, Role
from judge.store.users import default_language as default_language
from judge.store.users import set_default_language as set_default_language
from judge.store.users import set_judge_address as set_judge_address
from judge.store.users import set_user as set_user
from judge.store.users import user_settings as user_settings  # the store's, named here for callers
from judge.timeutil import iso_utc, parse_iso_utc


@dataclass
class Game:
    id: int
    name: str
    variant: Variant
    status: GameStatus
    settings: GameSettings
    position: Position | None = None
    deadline: datetime | None = None
    result: dict[str, Any] | None = None
    paused_remaining: int | None = None
    in_grace: bool = False

    @property
    def phase(self) -> str | None:
        return self.position.phase.code if self.position else None


@dataclass
class Player:
    id: int
    game_id: int
    power: str | None
    email: str
    password_hash: str
    role: Role = Role.PLAYER
    ready: bool = False
    resigned: bool = False
    eliminated: bool = False
    preferences: list[str] = field(default_factory=list)
    wait: bool = False  # SET WAIT: the game does not resolve early (orders-in) while this player waits
    reminders: tuple[int, ...] | None = None  # SET REMINDER: lead times in seconds; None: the game's setting
    calendar: bool = True  # SET CALENDAR OFF: no deadline invitations
    reminded: Reminded = field(default_factory=Reminded)  # lead times found passed at the last look

    def lead_times(self, game: Game) -> tuple[int, ...]:
        """The reminder lead times this player gets: his own, else the game's."""
        return self.reminders if self.reminders is not None else game.settings.reminders

    @property
    def active(self) -> bool:
        """Plays on: has a power, has not resigned, is not eliminated."""
        return self.role == Role.PLAYER and self.power is not None and not self.resigned and not self.eliminated


def load_game(db: Database, name: str) -> Game | None:
    row = game_rows.game_row(db, name.strip().lower())
    return _game(row) if row is not None else None


def load_game_by_id(db: Database, game_id: int) -> Game:
    return _game(game_rows.game_row_by_id(db, game_id))


def _game(row: dict[str, Any]) -> Game:
    variant = load_variant(row["variant"])
    settings = GameSettings.from_json(row["settings"])
    position = _position(variant, row["position"]) if row["position"] else None
    return Game(
        row["id"],
        row["name"],
        variant,
        GameStatus(row["status"]),
        settings,
        position,
        parse_iso_utc(row["deadline"]) if row["deadline"] else None,
        json.loads(row["result"]) if row["result"] else None,
        row["paused_remaining"],
        bool(row["in_grace"]),
    )


_POSITIONS: OrderedDict[tuple[str, str], Position] = OrderedDict()  # stored text -> board (immutable)
_POSITIONS_LOCK = threading.Lock()


def _position(variant: Variant, text: str) -> Position:
    """The board stored as ``text``, parsed once while it is in use (a message reads its game several times)."""
    key = (variant.key, text)
    with _POSITIONS_LOCK:
        found = _POSITIONS.get(key)
    if found is None:
        found = position_from_json(variant, json.loads(text))
        with _POSITIONS_LOCK:
            _POSITIONS[key] = found
            while len(_POSITIONS) > 256:
                _POSITIONS.popitem(last=False)
    return found


def insert_game(db: Database, name: str, variant: Variant, settings: GameSettings, now: datetime) -> Game:
    row = {
        "name": name.strip().lower(),
        "variant": variant.key,
        "status": GameStatus.FORMING,
        "phase": None,
        "deadline": None,
        "settings": settings.to_json(),
        "position": None,
        "result": None,
        "paused_remaining": None,
        "in_grace": 0,
        "created_at": iso_utc(now),
        "updated_at": iso_utc(now),
    }
    return load_game_by_id(db, game_rows.insert_game_row(db, row))


def save_game(db: Database, game: Game, now: datetime) -> None:
    game_rows.update_game_row(
        db,
        game.id,
        {
            "status": game.status,
            "phase": game.phase,
            "deadline": iso_utc(game.deadline) if game.deadline else None,
            "settings": game.settings.to_json(),
            "in_grace": int(game.in_grace),
            "position": json.dumps(position_to_json(game.variant, game.position)) if game.position else None,
            "result": json.dumps(game.result) if game.result is not None else None,
            "paused_remaining": game.paused_remaining,
            "updated_at": iso_utc(now),
        },
    )


def players(db: Database, game_id: int) -> list[Player]:
    return [_player(r) for r in game_rows.player_rows(db, game_id)]


def _player(row: dict[str, Any]) -> Player:
    return Player(
        row["id"],
        row["game_id"],
        row["power"],
        row["email"],
        row["password_hash"] or "",
        Role(row["role"]),
        bool(row["ready"]),
        bool(row["resigned"]),
        bool(row["eliminated"]),
        json.loads(row["preferences"] or "[]"),
        bool(row.get("wait")),
        tuple(json.loads(row["reminders"])) if row.get("reminders") is not None else None,
        row.get("calendar") != 0,
        _reminded(row.get("reminded")),
    )


def _reminded(text: str | None) -> Reminded:
    data = json.loads(text) if text else {}
    return Reminded(str(data.get("phase") or ""), frozenset(int(s) for s in data.get("leads") or ()))


def insert_player(db: Database, player: Player, now: datetime) -> None:
    game_rows.insert_player_row(db, {"game_id": player.game_id, **_player_columns(player), "joined_at": iso_utc(now)})


def save_player(db: Database, player: Player) -> None:
    game_rows.update_player_row(db, player.id, _player_columns(player))


def _player_columns(player: Player) -> dict[str, Any]:
    """A seat as the store keeps it (all but its game and when it joined)."""
    return {
        "power": player.power,
        "email": player.email.lower(),
        "password_hash": player.password_hash,
        "role": player.role,
        "ready": int(player.ready),
        "resigned": int(player.resigned),
        "eliminated": int(player.eliminated),
        "preferences": json.dumps(player.preferences),
        "wait": int(player.wait),
        "reminders": json.dumps(list(player.reminders)) if player.reminders is not None else None,
        "calendar": int(player.calendar),
        "reminded": json.dumps({"phase": player.reminded.phase, "leads": sorted(player.reminded.leads)})
        if player.reminded.phase
        else None,
    }


def given_orders(db: Database, game: Game, phase: str) -> dict[str, list[Submitted]]:
    """Each power's orders for ``phase`` as given: the line as written and the order it was read as on arrival (an
    OrderError for a line from before m009 that could not be read then). Nothing parses the words again."""
    return {
        power: read_given(game.variant.geo, power, given)
        for power, given in order_rows.given_orders(db, game.id, phase).items()
    }


def read_given(geo: Geography, power: str, given: list[order_rows.Given]) -> list[Submitted]:
    """``power``'s stored lines and typed orders, read back: each typed order as the Order it stands for."""
    return [Submitted(power, text, _given_order(geo, text, typed)) for text, typed in given]


def _given_order(geo: Geography, text: str, typed: object) -> Order | OrderError:
    order = order_from_json(geo, typed)
    if order is None:
        return OrderError(text, "this order was stored before an upgrade of the judge and could not be read then")
    return order


def stored_given(geo: Geography, given: list[Submitted]) -> list[order_rows.Given]:
    """``given`` as the store keeps it: each line as written beside its typed order (none for an OrderError)."""
    return [(s.text or "", None if isinstance(s.order, OrderError) else order_to_json(geo, s.order)) for s in given]


def set_orders(db: Database, game: Game, phase: str, power: str, given: list[Submitted], now: datetime) -> None:
    """``power``'s orders for ``phase``: the lines as written with the orders they were read as on arrival."""
    order_rows.set_orders(db, game.id, phase, power, stored_given(game.variant.geo, given), iso_utc(now))


def log_event(db: Database, game_id: int | None, now: datetime, sender: str, kind: str, detail: Any = None) -> None:
    """Append to the event log (never updated or deleted)."""
    events.log_event(db, game_id, iso_utc(now), sender, kind, detail)
