"""The words on the map picture come from the catalogs, in the reader's language: legend, power names and title,
each drawn whole (never cut short with "...")."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from judge.data.catalog import load_variant
from judge.reports.map_words import LEGEND, map_title, map_words
from judge.reports.maps import draw_map, legend_words
from judge.reports.maps.draw import _fit
from judge.reports.maps.style import BOARD_LEGEND_SIZE
from judge.rules.phase import Phase
from judge.rules.position_json import position_from_json
from tests.gamekit import Table

LANGUAGES = ["en", "ru", "de"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_drawing_defaults_are_the_catalogs_words(language: str) -> None:
    classic = load_variant("classic")
    words = map_words(classic, language)
    assert {k: words[k] for k in LEGEND} == legend_words(language)
    if language != "en":
        assert words["Germany"] != "Germany" and words["support"] != "support"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", ["classic", "coldwar"])
def test_every_legend_word_is_drawn_whole(name: str, language: str) -> None:
    variant = load_variant(name)
    drawing = draw_map(
        variant, position_from_json(variant, {}), language=language, words=map_words(variant, language), title="t"
    )
    assert all(not entry.text.split("  ")[0].endswith("...") for entry in drawing.legend)
    width = drawing.image.size[0]
    kx = 10 + 2 * min(150, max(110, (width - 3 * 150) // 2))
    sample_width = min(260, (width - kx - 6) // 3)
    room = sample_width - (30 if sample_width < 200 else 52) - 20
    for key in LEGEND:
        if key not in ("centres", "neutral"):
            assert _fit(drawing.words[key], BOARD_LEGEND_SIZE, room) == drawing.words[key], (key, drawing.words[key])


def test_the_title_names_the_phase_in_the_readers_language() -> None:
    phase = Phase.parse("S1901M")
    assert map_title("g1", phase, "en") == "g1 - Spring 1901 movement"
    assert map_title("g1", phase, "de") == "g1 - Frühjahr 1901, Bewegung"
    assert map_title("g1", phase, "ru") == "g1 - Весна 1901, движение"


def test_a_results_picture_of_a_game_is_drawn_with_the_readers_words(tmp_path: Path) -> None:
    """The game's pictures per language differ by their words (the same board otherwise)."""
    from judge.game.records import set_user

    t = Table(tmp_path / "judge.db", datetime(2026, 12, 1, 12, tzinfo=UTC))
    t.seven("g", reuse=True)
    set_user(t.db, "russia@p.test", language="ru", timezone="UTC")
    t.later(hours=1)
    assert t.cli("game", "process", "g") == 0
    pictures = list(t.db.query("select language, png from pictures where phase = 'S1901M'"))
    assert sorted(p["language"] for p in pictures) == ["en", "ru"]
    assert pictures[0]["png"] != pictures[1]["png"]
