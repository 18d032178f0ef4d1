"""The `judge sandbox` JSON contract: output shape, phases, bad input, batch mode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge.game.sandbox import run, run_json_line

EXAMPLE = {
    "id": "example",
    "variant": "classic",
    "phase": "S1901M",
    "units": {
        "England": ["F nth", "A lon"],
        "Russia": ["F stp/sc"],
        "Germany": ["A mun"],
        "Austria": ["A boh", "A tyr"],
    },
    "supply_centers": {"England": ["edi", "lon", "lvp"]},
    "orders": {
        "England": ["F North Sea - Holland", "A lon H"],
        "Russia": ["f stp/sc - bot"],
        "Austria": ["A boh - mun", "A tyr S A boh - mun"],
    },
}

KEYS = {"id", "phase", "results", "units", "dislodged", "standoffs", "supply_centers", "next_phase", "error"}


def test_movement_result_shape() -> None:
    out = run(EXAMPLE)
    assert set(out) >= KEYS
    assert out["error"] is None and out["id"] == "example" and out["phase"] == "S1901M"
    assert out["units"] == {"Austria": ["A mun", "A tyr"], "England": ["F hol", "A lon"], "Russia": ["F bot"]}
    assert out["dislodged"] == {
        "Germany": [
            {
                "unit": "A mun",
                "attacker_from": "boh",
                "attacker_via_convoy": False,
                "retreats": ["ber", "bur", "kie", "ruh", "sil"],
            }
        ]
    }
    assert out["next_phase"] == "S1901R"
    assert out["supply_centers"] == {"England": ["edi", "lon", "lvp"]}
    first = out["results"][0]
    assert first == {
        "power": "England",
        "input": "F North Sea - Holland",
        "order": "F nth - hol",
        "outcome": "succeeds",
        "reason": None,
    }
    nmr = [r for r in out["results"] if r["power"] == "Germany"]
    assert nmr == [
        {
            "power": "Germany",
            "input": None,
            "order": "A mun H",
            "outcome": "dislodged",
            "reason": "dislodged by A boh (2 vs 1)",
        }
    ]


def test_retreat_then_fall_then_winter_builds() -> None:
    moved = run(EXAMPLE)
    retreat = run(
        {
            "variant": "classic",
            "phase": moved["next_phase"],
            "units": moved["units"],
            "dislodged": moved["dislodged"],
            "supply_centers": moved["supply_centers"],
            "orders": {"Germany": ["A mun - kie"]},
        }
    )
    assert retreat["error"] is None
    assert "A kie" in retreat["units"]["Germany"] and retreat["dislodged"] == {}
    assert retreat["next_phase"] == "F1901M"
    fall = run(
        {
            "variant": "classic",
            "phase": "F1901M",
            "units": retreat["units"],
            "supply_centers": retreat["supply_centers"],
            "orders": {},
        }
    )
    # Fall: Austria keeps Munich, Germany Kiel, England Holland; centres change hands, then Winter adjustments
    assert fall["supply_centers"]["Austria"] == ["mun"]
    assert fall["supply_centers"]["England"] == ["edi", "hol", "lon", "lvp"]
    assert fall["next_phase"] == "W1901A"
    winter = run(
        {
            "variant": "classic",
            "phase": "W1901A",
            "units": fall["units"],
            "supply_centers": fall["supply_centers"],
            "orders": {"England": ["Build F edi", "Build A lvp", "Build A lon"]},
        }
    )
    assert winter["error"] is None and winter["next_phase"] == "S1902M"
    outcomes = [r["outcome"] for r in winter["results"] if r["power"] == "England"]
    assert outcomes == ["succeeds", "succeeds", "void"]  # 4 centres, 2 units: two builds, lon is occupied
    assert sorted(winter["units"]["England"]) == ["A lon", "A lvp", "F edi", "F hol"]


def test_empty_phases_are_skipped_and_centres_change_after_fall() -> None:
    out = run(
        {
            "variant": "classic",
            "phase": "F1901M",
            "units": {"France": ["A bur"]},
            "supply_centers": {"France": ["par"]},
            "orders": {"France": ["A bur - bel"]},
        }
    )
    assert out["supply_centers"] == {"France": ["bel", "par"]}
    assert out["next_phase"] == "W1901A"  # France may build in Paris
    out = run(
        {
            "variant": "classic",
            "phase": "S1901M",
            "units": {"France": ["A bur"]},
            "supply_centers": {"France": ["par"]},
            "orders": {"France": ["A bur - bel"]},
        }
    )
    assert out["supply_centers"] == {"France": ["par"]}  # no change after Spring
    assert out["next_phase"] == "F1901M"  # no retreats: skipped
    out = run(
        {
            "variant": "classic",
            "phase": "F1901M",
            "units": {"France": ["A par"]},
            "supply_centers": {"France": ["par"]},
            "orders": {},
        }
    )
    assert out["next_phase"] == "S1902M"  # nothing to adjust: winter skipped


def test_solo_victory_is_reported_after_fall() -> None:
    centres = [
        "bre",
        "mar",
        "par",
        "spa",
        "por",
        "bel",
        "hol",
        "mun",
        "kie",
        "ber",
        "den",
        "swe",
        "nwy",
        "lon",
        "edi",
        "lvp",
        "tun",
    ]
    out = run(
        {
            "variant": "classic",
            "phase": "F1905M",
            "units": {"France": ["A bur"]},
            "supply_centers": {"France": centres},
            "orders": {"France": ["A bur - mun"]},
        }
    )
    assert out["winner"] is None  # mun was already French: 17
    out = run(
        {
            "variant": "classic",
            "phase": "F1905M",
            "units": {"France": ["A pie"]},
            "supply_centers": {"France": centres},
            "orders": {"France": ["A pie - ven"]},
        }
    )
    assert out["winner"] == "France"  # 18 of 34


def test_coldwar_position() -> None:
    out = run({"variant": "coldwar", "orders": {"USSR": ["A mos - cau", "F hav - gom"], "NATO": ["F lon - nts"]}})
    assert out["error"] is None and out["phase"] == "S1960M" and out["next_phase"] == "F1960M"
    assert "A cau" in out["units"]["USSR"] and "F nts" in out["units"]["NATO"]
    fleet_edge = run({"variant": "coldwar", "units": {"USSR": ["F nvi"]}, "orders": {"USSR": ["F nvi - sea"]}})
    assert fleet_edge["results"][0]["outcome"] == "void"  # nvi-sea is army-only


def test_order_for_another_powers_unit_is_void() -> None:
    out = run({"units": {"England": ["F lon"]}, "orders": {"Germany": ["F lon - nth"]}})
    assert out["results"][0]["outcome"] == "void" and "belongs to England" in out["results"][0]["reason"]
    assert out["units"] == {"England": ["F lon"]}


def test_missing_coast_is_an_error_with_the_choices() -> None:
    out = run({"units": {"France": ["F mao"]}, "orders": {"France": ["F mao - spa"]}})
    assert out["results"][0]["outcome"] == "void"
    assert "spa/nc or spa/sc" in out["results"][0]["reason"]


def test_bad_inputs_give_clear_errors() -> None:
    cases = [
        ("{not json", "malformed JSON"),
        (json.dumps({"variant": "atlantis"}), "unknown variant 'atlantis'"),
        (json.dumps({"units": {"England": ["A nth"]}}), "cannot stand"),
        (json.dumps({"units": {"England": ["F stp"]}}), "must name its coast"),
        (json.dumps({"units": {"Narnia": ["A par"]}}), "unknown power 'Narnia'"),
        (json.dumps({"phase": "X1901M"}), "not like S1901M"),
        (json.dumps({"units": {"France": ["A par"], "Germany": ["A par"]}}), "two units"),
        (json.dumps([1, 2]), "JSON object"),
        (json.dumps({"orders": {"France": "A par - bur"}}), "list of strings"),
    ]
    for line, message in cases:
        out = run_json_line(line)
        assert out["error"] is not None and message in out["error"], (line, out["error"])
        assert out["results"] == [] and out["next_phase"] is None


def _judge(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent.parent,
        timeout=120,
    )


def test_cli_single_and_batch() -> None:
    single = _judge("sandbox", "-", stdin=json.dumps(EXAMPLE))
    assert single.returncode == 0, single.stderr
    assert json.loads(single.stdout)["next_phase"] == "S1901R"
    lines = [json.dumps({**EXAMPLE, "id": i}) for i in range(300)]
    lines[7] = "garbage"
    batch = _judge("sandbox", "--batch", stdin="\n".join(lines) + "\n")
    assert batch.returncode == 0, batch.stderr
    out = [json.loads(x) for x in batch.stdout.splitlines()]
    assert len(out) == 300
    assert [o["id"] for o in out if o["error"] is None] == [i for i in range(300) if i != 7]
    assert out[7]["error"].startswith("malformed JSON")
    bad = _judge("sandbox", stdin='{"variant": "nope"}')
    assert bad.returncode == 1 and "unknown variant" in json.loads(bad.stdout)["error"]


# --- malformed input: a JSON error object per line, never a traceback -------------------------------------------

MALFORMED = [
    '{"phase": 1901}',
    '{"orders": {"": []}}',
    '{"variant": "' + "x" * 300 + '"}',
    "[" * 100_000 + "]" * 100_000,
    '{"id": 1e999}',
    '{"id": {"a": 1}}',
    '{"orders": {"Narnia": ["A par H"]}}',
    '{"orders": {"France": ["' + "A par - bur " * 200 + '"]}}',
    '{"units": {"France": [5]}}',
    "\ufffd\ufffd",
    "",
]


@pytest.mark.parametrize("line", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_input_is_an_error_object(line: str) -> None:
    result = run_json_line(line)
    assert result["error"] and result["results"] == [] and result["phase"] is None
    json.dumps(result, allow_nan=False)


def test_batch_answers_every_line_and_goes_on(tmp_path: Path) -> None:
    good = json.dumps({"id": "ok", "orders": {"France": ["A par - bur"]}})
    data = ("\n".join([*MALFORMED[:3], MALFORMED[4], good]) + "\n").encode() + b"\xff\xfe{]\n" + good.encode() + b"\n"
    proc = subprocess.run(
        [sys.executable, "-m", "judge.cli", "sandbox", "--batch"], input=data, capture_output=True, check=False
    )
    assert proc.stderr == b""
    out = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(out) == 7
    assert [bool(o["error"]) for o in out] == [True, True, True, True, False, True, False]
    assert out[4]["id"] == "ok" and out[6]["phase"] == "S1901M"


def test_an_over_long_batch_line_is_skipped_without_holding_it() -> None:
    import io

    from judge.game.sandbox import MAX_INPUT_CHARS, read_lines

    data = '{"id": 1}\n' + "x" * (2 * MAX_INPUT_CHARS + 5) + '\n{"id": 2}\r\n\n'
    lines = list(read_lines(io.StringIO(data)))
    assert [len(line) for line in lines] == [9, MAX_INPUT_CHARS + 1, 9, 0]
    results = [run_json_line(line) for line in lines]
    assert [r["id"] for r in results] == [1, None, 2, None]
    assert "longer than" in results[1]["error"] and "malformed JSON" in results[3]["error"]
