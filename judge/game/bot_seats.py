"""The stand-in bot's seats (``bots`` setting): at the deadline it gives the orders of each power in civil disorder
that has none (``cd``, ``fill``), and a practice game starts with it in the seats nobody joined (``fill``). A power
taken over (TAKEOVER, or the game master's replace) is the player's again at once: the bot plays only powers in civil
disorder. The bot is pure (judge.bots); this module only asks it, inside the caller's transaction.
"""

from __future__ import annotations

import zlib
from datetime import datetime

from sqlite_utils import Database

from judge.bots.standin import orders_for
from judge.facts import BOT_DOMAIN, Bots
from judge.game.civil_disorder import in_civil_disorder
from judge.game.duties import owing_powers
from judge.game.records import Game, Player, insert_player, players
from judge.rules.orders import order_text
from judge.rules.turn import Submitted


def bot_address(power: str) -> str:
    """The address of the seat a bot fills: never mailed (judge.game.notices.post leaves it out)."""
    return f"{''.join(c for c in power.lower() if c.isalnum()) or 'power'}@{BOT_DOMAIN}"


def seed_of(game: Game) -> int:
    """The bot's seed in a game: the same game plays the same way again."""
    return zlib.crc32(game.name.encode("utf-8"))


def bot_powers(db: Database, game: Game) -> list[str]:
    """The powers the bot plays now: those in civil disorder, where the game lets it."""
    if game.settings.bots is Bots.NONE:
        return []
    return [p.power for p in players(db, game.id) if p.power and in_civil_disorder(p)]


def bot_orders(db: Database, game: Game, given: dict[str, list[Submitted]]) -> dict[str, list[Submitted]]:
    """The bot's orders for each power it plays that owes orders and gave none (each with its text as a results
    mail shows it)."""
    pos = game.position
    if pos is None:
        return {}
    owing = owing_powers(game)
    out: dict[str, list[Submitted]] = {}
    for power in bot_powers(db, game):
        if power not in owing or given.get(power):
            continue
        orders = orders_for(game.variant, pos, power, seed_of(game), game.settings.rules)
        out[power] = [Submitted(power, order_text(game.variant.geo, o, pos.units), o) for o in orders]
    return out


def fill_seats(db: Database, game: Game, now: datetime) -> list[Player]:
    """``fill``: a seat in civil disorder, played by the bot, for every power nobody holds (at the start)."""
    held = {p.power for p in players(db, game.id) if p.power}
    for power in game.variant.powers:
        if power not in held:
            insert_player(db, Player(0, game.id, power, bot_address(power), "", resigned=True), now)
    return players(db, game.id)
