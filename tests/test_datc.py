"""Every DATC case in tests/datc/*.toml, one pytest id per case, played through the sandbox contract."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from judge.game.sandbox import run

DATC = Path(__file__).parent / "datc"


def _cases() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(DATC.glob("6*.toml")):
        cases.extend(tomllib.loads(path.read_text(encoding="utf-8"))["case"])
    return cases


CASES = _cases()


def _norm_units(table: dict[str, list[str]]) -> dict[str, list[str]]:
    return {p: sorted(u.lower() for u in us) for p, us in table.items() if us}


def _norm_dislodged(table: dict[str, list[Any]]) -> dict[str, list[str]]:
    return {p: sorted((d["unit"] if isinstance(d, dict) else d).lower() for d in ds) for p, ds in table.items() if ds}


def _check(step: dict[str, Any], result: dict[str, Any], label: str) -> None:
    assert result["error"] is None, f"{label}: {result['error']}"
    expect = step["expect"]
    got_units = _norm_units(result["units"])
    want_units = _norm_units(expect.get("units", {}))
    got_dis = _norm_dislodged(result["dislodged"])
    want_dis = _norm_dislodged(expect.get("dislodged", {}))
    outcomes = {r["input"]: r["outcome"] for r in result["results"] if r["input"] is not None}
    want_out = expect.get("outcomes", {})
    got_out = {k: outcomes.get(k) for k in want_out}
    detail = "\n".join(
        f"  {r['power']}: {r['input']!r} -> {r['order']} {r['outcome']} ({r['reason']})" for r in result["results"]
    )
    assert (got_units, got_dis, got_out) == (want_units, want_dis, want_out), f"{label}\n{detail}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_datc(case: dict[str, Any]) -> None:
    data = {k: case[k] for k in ("phase", "units", "orders", "dislodged", "standoffs", "supply_centers") if k in case}
    data["variant"] = "classic"
    data["id"] = case["id"]
    result = run(data)
    _check(case, result, f"{case['id']} {case.get('title', '')}")
    for n, step in enumerate(case.get("then", []), start=1):
        nxt = {
            "variant": "classic",
            "id": f"{case['id']}+{n}",
            "phase": step.get("phase", result["next_phase"]),
            "units": result["units"],
            "dislodged": result["dislodged"],
            "standoffs": result["standoffs"],
            "supply_centers": step.get("supply_centers", result["supply_centers"]),
            "orders": step.get("orders", {}),
        }
        result = run(nxt)
        _check(step, result, f"{case['id']} step {n}")


def test_every_section_is_covered() -> None:
    sections = {c["id"].split(".")[1] for c in CASES}
    assert sections >= set("ABCDE"), sorted(sections)
    assert len({c["id"] for c in CASES}) == len(CASES), "duplicate case ids"


# --- rules editions (docs/rules.md "Rules editions"; tests/datc/editions.toml) ----------------------------------------

EDITIONS = ("2000", "datc-3")
EDITION_CASES = tomllib.loads((DATC / "editions.toml").read_text(encoding="utf-8"))["case"]


def _play(case: dict[str, Any], rules: str, expect: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Play ``case`` and its further steps under ``rules``; ``expect`` picks a step's expectations."""
    data = {k: case[k] for k in ("phase", "units", "orders", "dislodged", "standoffs", "supply_centers") if k in case}
    data.update(variant="classic", id=case["id"], rules=rules)
    result = run(data)
    _check({"expect": expect(case)}, result, f"{case['id']} ({rules}) {case.get('title', '')}")
    for n, step in enumerate(case.get("then", []), start=1):
        nxt = {
            "variant": "classic",
            "rules": rules,
            "phase": step.get("phase", result["next_phase"]),
            "units": result["units"],
            "dislodged": result["dislodged"],
            "standoffs": result["standoffs"],
            "supply_centers": step.get("supply_centers", result["supply_centers"]),
            "orders": step.get("orders", {}),
        }
        result = run(nxt)
        _check({"expect": expect(step)}, result, f"{case['id']} ({rules}) step {n}")


@pytest.mark.parametrize("rules", EDITIONS)
@pytest.mark.parametrize("case", EDITION_CASES, ids=[c["id"] for c in EDITION_CASES])
def test_datc_edition(case: dict[str, Any], rules: str) -> None:
    """Each case whose result depends on the edition, played under both, against its expectation under each."""
    _play(case, rules, lambda step: step["expect"][rules])


def test_edition_cases_expect_both_editions() -> None:
    for case in EDITION_CASES:
        for step in [case, *case.get("then", [])]:
            assert set(step["expect"]) == set(EDITIONS), case["id"]


CHANGED = {c["id"] for c in EDITION_CASES}


@pytest.mark.parametrize("case", [c for c in CASES if c["id"] not in CHANGED], ids=lambda c: c["id"])
def test_datc_unchanged_in_datc3(case: dict[str, Any]) -> None:
    """Every other DATC case gives the v2.4 result in the datc-3 edition too: the editions differ only where
    editions.toml says."""
    _play(case, "datc-3", lambda step: step["expect"])
