"""A player's choices of the mail that keeps deadlines in mind: SET REMINDER (the lead times of his reminders) and
SET CALENDAR (the deadline invitations). Like judge.game.service, each works in the caller's transaction."""

from __future__ import annotations

from sqlite_utils import Database

from judge.game.records import Game, Player, save_player
from judge.i18n import T, Text
from judge.store import game_rows
from judge.timeutil import format_lead_times


def set_reminders(db: Database, game: Game, player: Player, leads: tuple[int, ...] | None) -> Text:
    """Keep ``leads`` (seconds; empty: none; None: the game's) as the player's reminders in ``game``; the next round
    looks at them again."""
    player.reminders = leads
    save_player(db, player)
    game_rows.forget_remind_at(db, game.id)
    if leads is None:
        return T(
            "you get the reminders of game {game}: {leads}",
            game=game.name,
            leads=format_lead_times(game.settings.reminders),
        )
    if not leads:
        return T("no more reminders in game {game}", game=game.name)
    return T("reminders in game {game}: {leads} before each deadline", game=game.name, leads=format_lead_times(leads))


def set_calendar(db: Database, game: Game, player: Player, on: bool) -> Text:
    """SET CALENDAR ON / OFF: whether the player's deadline mail carries a calendar invitation."""
    player.calendar = on
    save_player(db, player)
    if on:
        return T("your deadline mail in game {game} carries a calendar invitation", game=game.name)
    return T("no more calendar invitations in game {game}", game=game.name)
