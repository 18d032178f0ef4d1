"""Facts written once (judge/facts.py) agree with what the judge ships and are what every part of it checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from gamekit import Table

from judge.commands import body
from judge.facts import LANGUAGES, MAX_GAME_NAME_LENGTH, is_game_name
from judge.i18n import LOCALE_DIR

ROOT = Path(__file__).parent.parent


def test_one_set_of_templates_and_a_catalog_for_every_language_but_english() -> None:
    assert [p.name for p in (ROOT / "templates").iterdir() if p.is_dir()] == ["en"]  # the one set, in English
    assert sorted(p.name for p in LOCALE_DIR.iterdir() if p.is_dir()) == sorted(set(LANGUAGES) - {"en"})


@pytest.mark.parametrize(
    "name,ok",
    [
        *[("g", True), ("Game-1_x", True), ("9", True), ("_g", False), ("-g", False), ("", False), ("a b", False)],
        *[("a" * MAX_GAME_NAME_LENGTH, True), ("a" * (MAX_GAME_NAME_LENGTH + 1), False), ("ä", False)],
    ],
)
def test_one_game_name_rule_for_the_command_line_and_mail(tmp_path: Path, name: str, ok: bool) -> None:
    assert is_game_name(name) is ok
    signon = body.parse_body(f"SIGNON France {name} secret").items if name else ()
    assert bool(signon) is ok
    if name and " " not in name:
        table = Table(tmp_path / "judge.db")
        assert (table.cli("game", "create", name) == 0) is ok


def test_one_backoff_doubles_to_its_cap_and_spreads_by_its_jitter() -> None:
    import random
    from datetime import timedelta

    from judge.timeutil import backoff_pause

    first, cap = timedelta(seconds=30), timedelta(hours=6)
    assert [backoff_pause(n, first, cap) for n in (0, 1, 2, 3)] == [first, first, first * 2, first * 4]
    assert backoff_pause(11, first, cap) == cap and backoff_pause(10_000, first, cap) == cap
    rng = random.Random(7)
    spread = [backoff_pause(3, first, cap, 0.25, rng) for _ in range(200)]
    assert all(first * 4 * 0.75 <= p <= first * 4 * 1.25 for p in spread) and len(set(spread)) > 100
