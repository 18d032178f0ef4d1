"""The judge's own JSON export of a game (docs/exports.md says every field, with an example): the variant, the
players as the public may know them, every phase's board before and after it, its orders with their outcomes, the
centres per year, the public press and the result.

``game_to_json`` writes a story; ``game_from_json`` reads the JSON back to a story (the caller loads the variant it
names), so that ``game_to_json(game_from_json(data, variant)) == data``: every field is written from a typed value
and read back to one. Positions are ``judge.rules.position_json``'s, orders ``judge.rules.order_json``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judge import __version__
from judge.exports import ExportError, refuse_fog
from judge.game.story import (
    GameResult,
    OrderLine,
    PressItem,
    PressVenue,
    ResultKind,
    Story,
    StoryPhase,
    StorySeat,
    Viewer,
)
from judge.i18n import translate
from judge.rules.order_json import order_from_json
from judge.rules.orders import Outcome
from judge.rules.phase import Phase
from judge.rules.position_json import PositionError, position_from_json, position_to_json
from judge.rules.variant import Variant
from judge.store.statuses import GameStatus

FORMAT = "judge-game"
FORMAT_VERSION = 1


def game_to_json(story: Story) -> dict[str, Any]:
    """``story`` as the judge's JSON export (a public story: no address is ever written). ExportError for a Fog of
    War game still running."""
    refuse_fog(story)
    variant = story.variant
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "judge_version": __version__,
        "game": story.name,
        "variant": {
            "key": variant.key,
            "name": variant.name,
            "map": variant.board_name,
            "powers": list(variant.powers),
        },
        "status": story.status.value,
        "anonymous": story.anonymous,
        "started_at": story.started_at,
        "finished_at": story.finished_at,
        "players": [
            {"power": s.power, "resigned": s.resigned, "eliminated": s.eliminated, "bot": s.bot} for s in story.seats
        ],
        "phases": [_phase_to_json(variant, phase) for phase in story.phases],
        "centres": [{"year": year, "centres": dict(counts)} for year, counts in story.years],
        "points": None if story.points is None else [{"year": y, "points": dict(p)} for y, p in story.points],
        "eliminated": [{"power": power, "year": year} for power, year in story.eliminated],
        "press": [_press_to_json(item) for item in story.press],
        "result": _result_to_json(story.result),
    }


def _phase_to_json(variant: Variant, phase: StoryPhase) -> dict[str, Any]:
    return {
        "phase": phase.code,
        "played": phase.played,
        "played_at": phase.played_at,
        "before": position_to_json(variant, phase.before),
        "orders": [line_to_json(line) for line in phase.lines],
        "after": position_to_json(variant, phase.after) if phase.after is not None else None,
        "centres": dict(phase.centres),
    }


def line_to_json(line: OrderLine) -> dict[str, Any]:
    """One order of a played phase: the line written (None: the judge's own, for a unit with no order), the order
    as read (canonical text and typed), its outcome and the reason in English, and for a unit it dislodged where
    that may retreat."""
    return {
        "power": line.power,
        "written": line.written,
        "order": line.order,
        "typed": line.typed,
        "outcome": line.outcome.value if line.outcome is not None else None,
        "reason": translate(line.reason, "en") if line.reason else None,
        "dislodged": line.dislodged,
        "retreats": list(line.retreats),
    }


def _press_to_json(item: PressItem) -> dict[str, Any]:
    return {"venue": item.venue.value, "phase": item.phase, "sender": item.sender, "body": item.body, "at": item.at}


def _result_to_json(result: GameResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "kind": result.kind.value,
        "winner": result.winner,
        "powers": list(result.powers),
        "by": result.by,
        "conceded": result.conceded,
        "named": result.named,
    }


# --- reading it back ------------------------------------------------------------------------------------------------


def game_from_json(data: Mapping[str, Any], variant: Variant) -> Story:
    """The story ``data`` (as ``game_to_json`` wrote it) tells, on ``variant`` (the one ``data["variant"]["key"]``
    names, loaded by the caller). ExportError naming what is wrong for data that is not such an export."""
    try:
        if data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
            raise ExportError(f"not a {FORMAT} export of format_version {FORMAT_VERSION}")
        if data["variant"]["key"] != variant.key:
            raise ExportError(f"the export is of variant {data['variant']['key']!r}, not {variant.key!r}")
        return Story(
            name=str(data["game"]),
            variant=variant,
            status=GameStatus(data["status"]),
            viewer=Viewer.PUBLIC,
            fogged=False,
            anonymous=bool(data["anonymous"]),
            seats=tuple(
                StorySeat(str(s["power"]), None, bool(s["resigned"]), bool(s["eliminated"]), bool(s["bot"]))
                for s in data["players"]
            ),
            phases=tuple(_phase_from_json(variant, p) for p in data["phases"]),
            years=tuple((int(y["year"]), _counts(y["centres"])) for y in data["centres"]),
            points=None
            if data["points"] is None
            else tuple((int(y["year"]), _counts(y["points"])) for y in data["points"]),
            eliminated=tuple((str(e["power"]), int(e["year"])) for e in data["eliminated"]),
            press=tuple(_press_from_json(p) for p in data["press"]),
            result=_result_from_json(data["result"]),
            started_at=data["started_at"],
            finished_at=data["finished_at"],
        )
    except ExportError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # PositionError is a ValueError
        what = exc if isinstance(exc, PositionError) else f"{type(exc).__name__}: {exc}"
        raise ExportError(f"not a readable {FORMAT} export: {what}") from None


def _phase_from_json(variant: Variant, data: Mapping[str, Any]) -> StoryPhase:
    phase = Phase.parse(data["phase"])
    before = position_from_json(variant, data["before"])
    if before.phase != phase:
        raise ExportError(f"phase {phase.code}: its board is of {before.phase.code}")
    after = position_from_json(variant, data["after"]) if data["after"] is not None else None
    if bool(data["played"]) != (after is not None):
        raise ExportError(f"phase {phase.code}: a played phase has a board after it, the current one none")
    return StoryPhase(
        phase,
        before,
        after,
        tuple(line_from_json(variant, line) for line in data["orders"]),
        _counts(data["centres"]),
        (),
        data["played_at"],
    )


def line_from_json(variant: Variant, data: Mapping[str, Any]) -> OrderLine:
    """The order line ``data`` (as ``line_to_json`` wrote it); ExportError for a typed order the variant cannot
    read."""
    typed = data["typed"]
    if typed is not None and order_from_json(variant.geo, typed) is None:
        raise ExportError(f"{data['power']}: {typed!r} is no order of {variant.name}")
    outcome = data["outcome"]
    return OrderLine(
        str(data["power"]),
        data["written"],
        data["order"],
        dict(typed) if typed is not None else None,
        Outcome(outcome) if outcome is not None else None,
        data["reason"],
        bool(data["dislodged"]),
        tuple(str(r) for r in data["retreats"]),
    )


def _press_from_json(data: Mapping[str, Any]) -> PressItem:
    return PressItem(PressVenue(data["venue"]), str(data["phase"]), str(data["sender"]), str(data["body"]), data["at"])


def _result_from_json(data: Mapping[str, Any] | None) -> GameResult | None:
    if data is None:
        return None
    return GameResult(
        ResultKind(data["kind"]),
        data["winner"],
        tuple(data["powers"]),
        data["by"],
        data["conceded"],
        bool(data["named"]),
    )


def _counts(data: Mapping[str, Any]) -> dict[str, int]:
    return {str(power): int(count) for power, count in data.items()}
