"""The adjudicator reproduces all 1000 movement phases of the benchmark corpus (tests/data, from ../shared/bench).

No timing here: speed is measured by bench/replay.py, not by tests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import replay  # noqa: E402

from judge.data.catalog import load_variant  # noqa: E402
from judge.rules.edition import RulesEdition  # noqa: E402
from judge.rules.movement import adjudicate_movement  # noqa: E402

CORPUS = Path(__file__).parent / "data" / "corpus_movement.jsonl"


@pytest.fixture(scope="module")
def cases() -> list[replay.Case]:
    variant = load_variant("classic")
    return [replay.prepare(variant, json.loads(line)) for line in CORPUS.read_text().splitlines()]


def test_all_corpus_phases_agree(cases: list[replay.Case]) -> None:
    variant = load_variant("classic")
    wrong = []
    for case in cases:
        result = adjudicate_movement(variant.geo, case.position.units, case.orders, RulesEdition.Y2000)
        if replay.board_after(variant, case, result) != replay.expected(case.line):
            wrong.append(f"game {case.line['game']} {case.line['phase']}")
    assert len(cases) == 1000
    assert wrong == []


def test_replay_reads_support_coasts_as_the_corpus_engine_did() -> None:
    variant = load_variant("classic")
    texts = replay.corpus_texts(variant, {"RUSSIA": ["F RUM S F CON - BUL/SC", "F BLA - BUL/EC"]})
    assert texts == {"Russia": ["F RUM S F CON - BUL", "F BLA - BUL/EC"]}
