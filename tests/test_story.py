"""A game's story as its viewer may see it (judge.game.story, issue 25): every phase with its orders and outcomes,
the centres year by year, the public press only, and the viewing rule for anonymous and Fog of War games."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gamekit import POWERS, Table

from judge.game.lookup import get_game
from judge.game.story import ANONYMOUS_SENDER, PressVenue, ResultKind, Viewer, story_of
from judge.rules.orders import Outcome


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def played(t: Table, *options: str) -> Table:
    t.seven("g", "--deadline", "48h", "--press", "both", *options, reuse=True)
    t.reply(addr("France"), sign("France", "A par - bur", "F bre - mao", "BROADCAST", "Peace to all", "ENDPRESS"))
    t.reply(addr("Germany"), sign("Germany", "A mun - bur", "PRESS TO E", "a secret for England", "ENDPRESS"))
    t.reply(addr("Italy"), sign("Italy", "POSTAL PRESS", "Rome speaks", "ENDPRESS"))
    assert t.cli("game", "process", "g") == 0
    return t


def test_the_public_story_tells_the_phases_and_the_public_press_only(tmp_path: Path) -> None:
    t = played(Table(tmp_path / "judge.db"))
    story = story_of(t.db, get_game(t.db, "g"))
    assert [p.code for p in story.phases] == ["S1901M", "F1901M"]
    spring, fall = story.phases
    assert spring.played and not fall.played and fall.lines == ()
    bounce = {line.order: line.outcome for line in spring.lines if line.order in ("A par - bur", "A mun - bur")}
    assert bounce == {"A par - bur": Outcome.BOUNCED, "A mun - bur": Outcome.BOUNCED}
    assert {line.power for line in spring.lines} == set(POWERS)  # every unit, ordered or not
    assert next(line for line in spring.lines if line.order == "F bre - mao").outcome is Outcome.SUCCEEDS
    bodies = [(p.venue, p.sender, p.body.strip()) for p in story.press]
    assert (PressVenue.BROADCAST, "France", "Peace to all") in bodies
    assert (PressVenue.POSTAL, "Italy", "Rome speaks") in bodies
    assert not [b for b in bodies if "secret" in b[2]]  # private press is never in a story
    assert story.years[0] == (1900, dict.fromkeys(POWERS, 3) | {"Russia": 4})
    assert all(seat.address is None for seat in story.seats)  # the public never sees an address
    assert story.result is None and not story.fogged and not story.anonymous
    player = story_of(t.db, get_game(t.db, "g"), Viewer.PLAYER)
    assert {s.power: s.address for s in player.seats}["France"] == "france@p.test"


def test_an_anonymous_game_hides_who_plays_and_who_wrote_until_it_ends(tmp_path: Path) -> None:
    t = played(Table(tmp_path / "judge.db"), "--anonymous")
    story = story_of(t.db, get_game(t.db, "g"), Viewer.PLAYER)
    assert story.anonymous and all(seat.address is None for seat in story.seats)
    assert {p.sender for p in story.press} == {ANONYMOUS_SENDER}
    assert story_of(t.db, get_game(t.db, "g"), Viewer.HOST).seats[0].address == "austria@p.test"
    assert t.cli("game", "end", "g", "--draw", "France", "Italy") == 0
    ended = story_of(t.db, get_game(t.db, "g"), Viewer.PLAYER)
    assert not ended.anonymous and {s.power: s.address for s in ended.seats}["Italy"] == "italy@p.test"
    assert ended.result is not None and ended.result.kind is ResultKind.DRAW
    assert ended.result.powers == ("France", "Italy") and ended.finished_at is not None
    assert [p.code for p in ended.phases] == ["S1901M"]  # the phase never played is no part of a finished story


def test_a_fog_of_war_game_shows_nothing_until_it_ends(tmp_path: Path) -> None:
    t = played(Table(tmp_path / "judge.db"))
    game = get_game(t.db, "g")
    object.__setattr__(game, "variant", _fogged(game.variant))
    story = story_of(t.db, game)
    assert story.fogged and story.phases == () and story.press == () and story.years == ()
    assert story_of(t.db, game, Viewer.HOST).phases  # the host's own tools see it all
    assert t.cli("game", "end", "g", "--draw", "France", "Italy") == 0
    game = get_game(t.db, "g")
    object.__setattr__(game, "variant", _fogged(game.variant))
    assert [p.code for p in story_of(t.db, game).phases] == ["S1901M"]


def _fogged(variant: object) -> object:
    """The variant with Fog of War on (``Variant.fog``, or the attribute set where the field does not exist yet)."""
    if hasattr(variant, "fog"):
        return replace(variant, fog=True)  # type: ignore[type-var]
    fogged = replace(variant)  # type: ignore[type-var]
    object.__setattr__(fogged, "fog", True)
    return fogged


def test_diaries_are_told_once_the_game_is_over(tmp_path: Path) -> None:
    t = played(Table(tmp_path / "judge.db"))
    t.reply(addr("Turkey"), sign("Turkey", "DIARY", "I shall take Vienna", "ENDDIARY"))
    assert not [p for p in story_of(t.db, get_game(t.db, "g")).press if p.venue is PressVenue.DIARY]
    assert t.cli("game", "end", "g", "--abandoned") == 0
    story = story_of(t.db, get_game(t.db, "g"))
    diaries = [(p.sender, p.phase, p.body.strip()) for p in story.press if p.venue is PressVenue.DIARY]
    assert diaries == [("Turkey", "F1901M", "I shall take Vienna")]
    assert story.result is not None and story.result.kind is ResultKind.ABANDONED
