"""The rules edition per game (issue 21): the game setting ``rules``, ``judge game create --rules``, the sandbox's
``"rules"``, SANDBOX FROM GAME with the game's edition. The cases themselves are table-driven in
tests/datc/editions.toml (tests/test_datc.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gamekit import Table

from judge.game import records
from judge.game.sandbox import run
from judge.game.settings import GameSettings
from judge.rules.edition import RulesEdition
from judge.rules.position_json import position_from_json, position_to_json

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]

# DATC 6.G.19: the French convoy order is needed for no route; datc-3 voids it, so the armies bounce
G19 = {
    "phase": "S1901M",
    "units": {"France": ["A mar", "F wes"], "Italy": ["F lyo", "A spa"]},
    "orders": {
        "France": ["A Marseilles - Spain", "F Western Mediterranean Convoys A Marseilles - Spain"],
        "Italy": ["F Gulf of Lyon Convoys A Marseilles - Spain", "A Spain - Marseilles"],
    },
}


def test_sandbox_rules_default_and_datc3() -> None:
    default = run(dict(G19))
    assert default["error"] is None and "A spa" in default["units"]["France"]  # 2000: the armies swap
    assert run({**G19, "rules": "2000"})["units"] == default["units"]
    datc3 = run({**G19, "rules": "datc-3"})
    assert datc3["error"] is None and datc3["units"]["France"] == ["A mar", "F wes"]
    void = [r for r in datc3["results"] if r["outcome"] == "void"]
    assert [r["input"] for r in void] == ["F Western Mediterranean Convoys A Marseilles - Spain"]
    assert "not needed for any convoy" in void[0]["reason"]


@pytest.mark.parametrize("bad", ["datc-2", "", "DATC 3", 3, None, ["datc-3"], {"x": 1}, True])
def test_sandbox_rules_must_be_an_edition(bad: Any) -> None:
    out = run({**G19, "rules": bad})
    assert out["error"] is not None and out["error"].startswith('rules must be "2000" or "datc-3"'), out["error"]
    assert out["results"] == []


def test_sandbox_rules_is_case_sensitive_only_in_spelling() -> None:
    assert run({**G19, "rules": "DATC-3"})["error"] is not None  # the values are written as documented


def test_settings_rules_default_and_old_games() -> None:
    assert GameSettings().rules is RulesEdition.Y2000
    assert GameSettings.from_json(None).rules is RulesEdition.Y2000
    old = json.dumps({"press": "white", "solo": None})  # a game stored before editions: no "rules" key
    assert GameSettings.from_json(old).rules is RulesEdition.Y2000
    s = GameSettings(rules=RulesEdition.DATC3)
    assert GameSettings.from_json(s.to_json()) == s
    assert json.loads(s.to_json())["rules"] == "datc-3"


def _seat_all(t: Table, name: str) -> None:
    for power in POWERS:
        email = f"{power.lower()}@p.test"
        assert t.cli("game", "join", name, "--power", power, "--email", email, "--password", f"pw-{power}") == 0


def _board(t: Table, name: str, data: dict[str, Any]) -> None:
    g = records.load_game(t.db, name)
    assert g is not None
    with t.db.atomic():
        g.position = position_from_json(g.variant, data)
        records.save_game(t.db, g, t.now)


def _units(t: Table, name: str) -> dict[str, list[str]]:
    g = records.load_game(t.db, name)
    assert g is not None and g.position is not None
    units: dict[str, list[str]] = position_to_json(g.variant, g.position)["units"]
    return units


def test_game_create_rules_and_changes_before_the_start(tmp_path: Path, capsys: Any) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "old") == 0
    assert t.show("old", capsys)["settings"]["rules"] == "2000"
    assert t.cli("game", "create", "new", "--rules", "datc-3") == 0
    assert t.show("new", capsys)["settings"]["rules"] == "datc-3"
    assert t.cli("game", "create", "bad", "--rules", "1971") == 2
    assert t.cli("game", "settings", "old", "rules", "datc-3") == 0
    assert t.show("old", capsys)["settings"]["rules"] == "datc-3"
    assert t.cli("game", "settings", "old", "rules", "1982") != 0
    assert "rules: one of 2000, datc-3" in capsys.readouterr().err
    _seat_all(t, "new")
    assert t.cli("game", "start", "new") == 0
    assert t.cli("game", "settings", "new", "rules", "2000") != 0
    assert "rules can only change before the game starts" in capsys.readouterr().err


@pytest.mark.parametrize(("rules", "french"), [("2000", ["A spa", "F wes"]), ("datc-3", ["A mar", "F wes"])])
def test_a_game_is_adjudicated_by_its_edition_and_sandbox_from_game_uses_it(
    tmp_path: Path, capsys: Any, rules: str, french: list[str]
) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--rules", rules) == 0
    _seat_all(t, "g")
    assert t.cli("game", "start", "g") == 0
    _board(t, "g", {"phase": "S1901M", "units": G19["units"]})
    from judge.cli import main

    path = tmp_path / "orders.json"
    path.write_text(json.dumps({"orders": G19["orders"]}))
    capsys.readouterr()
    assert main(["sandbox", "--db", str(t.path), "--from-game", "g", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["units"]["France"] == french  # the game's edition
    path.write_text(json.dumps({"rules": "2000"}))
    assert main(["sandbox", "--db", str(t.path), "--from-game", "g", str(path)]) == 1
    assert "leave out 'rules'" in capsys.readouterr().out
    for power, lines in G19["orders"].items():
        body = f"SIGNON {power} g pw-{power}\n" + "\n".join(lines) + "\nSIGNOFF"
        t.mail(f"{power.lower()}@p.test", body)
    assert t.cli("game", "process", "g") == 0
    assert _units(t, "g")["France"] == french
