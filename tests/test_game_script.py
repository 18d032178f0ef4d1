"""A classic game played by mail and `judge game process`, and a Cold War game to a solo at its threshold.

Joins by mail, sign-ons, orders of every kind (move, hold, support, convoy, retreat, build, waive), a bounce, a
dislodgement and a retreat, builds, a player who never sends orders, a rejected and an accepted draw, a resignation.
"""

from __future__ import annotations

import json
from pathlib import Path

from gamekit import Table

from judge.game import records

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def addr(power: str) -> str:
    return f"{power.lower()}@players.test"


def orders(t: Table, power: str, *lines: str, ready: bool = True) -> str:
    body = "\n".join([f"SIGNON {power} g1 pw-{power}", *lines, *(["READY"] if ready else [])])
    return t.reply(addr(power), body)


def test_classic_game_by_mail(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g1", "--variant", "classic", "--deadline", "48h", "--master", "gm@judge.test") == 0
    for power in POWERS:  # every player asks for a different power first
        text = t.reply(addr(power), f"JOIN g1 pw-{power} {power}")
        assert "joined g1" in text, text
    assert "already joined" in t.reply(addr("France"), "JOIN g1 another France")
    assert t.cli("game", "start", "g1", "--seed", "7") == 0
    shown = t.show("g1", capsys)
    assert shown["status"] == "active" and shown["phase"] == "S1901M"
    assert {p["power"]: p["email"] for p in shown["players"]} == {p: addr(p) for p in POWERS}
    started = [m for m in t.outbox() if "has started" in m["subject"]]
    assert len(started) == 7

    # --- Spring 1901: bounces in Galicia and the Black Sea; Italy sends nothing (NMR) ---------------------------------
    t.later(hours=1)
    assert "OK: A par - bur" in orders(t, "France", "A Paris - Burgundy", "A mar - spa", "F bre - mao")
    orders(t, "Germany", "A mun - ruh", "A ber - mun", "F kie - hol")
    orders(t, "England", "F lon - nth", "F edi - nwg", "A lvp - yor")
    orders(t, "Russia", "A war - gal", "F sev - bla", "A mos - ukr", "F stp/sc - bot")
    orders(t, "Austria", "A vie - gal", "A bud - ser", "F tri - alb")
    text = orders(t, "Turkey", "F ank - bla", "A con - bul", "A smy - arm", "F ank H")  # the last order counts
    assert "F ank H" in text.split("Your orders:")[1]
    assert t.show("g1", capsys)["phase"] == "S1901M"  # Italy owes orders and is not ready
    assert t.cli("game", "process", "g1") == 0
    shown = t.show("g1", capsys)
    assert shown["phase"] == "F1901M"
    units = shown["units"]
    assert "A gal" not in units["Austria"] and "A vie" in units["Austria"] and "A war" in units["Russia"]
    assert "F bla" in units["Russia"]  # Turkey held in the end
    assert "A bur" in units["France"] and "A ruh" in units["Germany"]
    results = [m for m in t.outbox() if "results of Spring 1901" in m["subject"]]
    assert len(results) == 8  # seven players and the game master
    body = results[0]["body"]
    assert "A vie - gal" in body and "bounced" in body and "no order: holds" in body

    # --- Fall 1901: a supported attack dislodges France from Burgundy; England convoys to Norway -------------------
    t.later(hours=2)
    orders(t, "Germany", "A ruh - bur", "A mun S A ruh - bur", "F hol H")
    orders(t, "France", "A bur H", "A spa - por", "F mao - spa/nc")
    orders(t, "England", "F nth C A yor - nwy", "A yor - nwy", "F nwg H")
    assert "ERROR" in orders(t, "Italy", "A ven - tri - xyz", ready=False)
    orders(t, "Italy", "A ven H", "A rom H", "F nap - ion")
    for power in ("Austria", "Russia", "Turkey"):
        orders(t, power, "")  # ready, no orders: units hold
    shown = t.show("g1", capsys)
    assert shown["phase"] == "F1901R", "everyone was ready: adjudicated at once"
    assert "A bur" in shown["units"]["Germany"] and "A nwy" in shown["units"]["England"]
    text = orders(t, "France", "A bur - ruh", ready=False)
    assert "cannot retreat to ruh" in text and "gas" in text  # not to where the attack came from
    orders(t, "France", "A bur - gas", ready=False)
    assert t.cli("game", "process", "g1") == 0
    shown = t.show("g1", capsys)
    assert shown["phase"] == "W1901A"
    assert "A gas" in shown["units"]["France"]
    assert "hol" in shown["supply_centers"]["Germany"] and "nwy" in shown["supply_centers"]["England"]

    # --- Winter 1901: builds, a waive, a build in a foreign centre refused ------------------------------------------
    text = orders(t, "England", "Build F edi", "Build A lvp", ready=False)
    assert "OK: build F edi" in text
    assert "Build A lvp" in text  # accepted as written; only one build is due, the first counts
    text = orders(t, "Germany", "Build A par", "Build A ber")
    assert "is not a home centre of Germany" in text and "OK: build A ber" in text
    orders(t, "France", "Waive")
    assert t.cli("game", "process", "g1") == 0
    shown = t.show("g1", capsys)
    assert shown["phase"] == "S1902M"
    assert "F edi" in shown["units"]["England"] and "A lvp" not in shown["units"]["England"]
    assert "A ber" in shown["units"]["Germany"] and len(shown["units"]["France"]) == 3

    # --- Spring 1902: a draw proposed and rejected; Italy resigns --------------------------------------------------
    text = orders(t, "England", "DRAW PROPOSE", ready=False)
    assert "draw proposed" in text
    assert "one proposal per turn" in orders(t, "Russia", "DRAW PROPOSE", ready=False)
    assert "rejected" in orders(t, "France", "DRAW REJECT", ready=False)
    assert "has resigned" in orders(t, "Italy", "RESIGN", ready=False)
    shown = t.show("g1", capsys)
    italy = next(p for p in shown["players"] if p["power"] == "Italy")
    assert italy["resigned"] and shown["status"] == "active"
    assert t.cli("game", "process", "g1") == 0

    # --- Fall 1902: a draw accepted by every player still in the game (not Italy) ---------------------------------
    assert t.show("g1", capsys)["phase"] == "F1902M"
    orders(t, "Turkey", "DRAW PROPOSE", ready=False)
    for power in ("Austria", "England", "France", "Germany", "Russia"):
        text = orders(t, power, "DRAW ACCEPT", ready=False)
    assert "game is over" in text
    shown = t.show("g1", capsys)
    assert shown["status"] == "finished"
    assert shown["result"] == {
        "kind": "draw",
        "powers": ["Austria", "England", "France", "Germany", "Russia", "Turkey"],
    }
    assert any("is over" in m["subject"] for m in t.outbox() if m["to_addr"] == addr("Italy"))
    assert "no orders are due" in orders(t, "England", "F nth - hel", ready=False)
    phases = shown["phases"]
    assert phases[:4] == ["S1901M", "F1901M", "F1901R", "W1901A"]


def test_coldwar_game_to_solo_at_two_thirds(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "cw", "--variant", "coldwar") == 0
    assert t.cli("game", "join", "cw", "--power", "NATO", "--email", "nato@p.test", "--password", "pw-nato") == 0
    assert t.cli("game", "join", "cw", "--power", "USSR", "--email", "ussr@p.test", "--password", "pw-ussr") == 0
    assert t.cli("game", "start", "cw") == 0
    # Set the board late in the game: NATO owns 16 centres and attacks two more; USSR holds everything else.
    game = records.load_game(t.db, "cw")
    assert game is not None
    nato_centres = [
        "aus",
        "ist",
        "lon",
        "los",
        "nyk",
        "par",
        "ala",
        "bra",
        "egy",
        "ind",
        "ins",
        "jap",
        "sai",
        "seo",
        "swe",
        "ege",
    ]
    centres = {c.abbr for c in game.variant.geo.provinces if c.centre}
    assert set(nato_centres) <= centres and len(centres) == 27
    board = {
        "phase": "F1965M",
        "units": {"NATO": ["A que", "A col"], "USSR": ["A mos"]},
        "supply_centers": {"NATO": nato_centres, "USSR": sorted(centres - set(nato_centres) - {"tor", "pan"})},
    }
    from judge.rules.position_json import position_from_json

    with t.db.atomic():
        game.position = position_from_json(game.variant, board)
        records.save_game(t.db, game, t.now)
    # Fall 1965: NATO takes Toronto only -> 17 centres: no solo under the two-thirds rule (the web judges' 17 would)
    text = t.reply("nato@p.test", "SIGNON NATO cw pw-nato\nA que - tor\nA col H")
    assert "OK: A que - tor" in text, text
    assert t.cli("game", "process", "cw") == 0
    shown = t.show("cw", capsys)
    assert len(shown["supply_centers"]["NATO"]) == 17 and shown["status"] == "active"
    assert shown["phase"] == "W1965A"
    assert t.cli("game", "process", "cw") == 0  # NATO's builds waived (no orders)
    assert t.cli("game", "process", "cw") == 0  # Spring 1966: everything holds
    assert t.show("cw", capsys)["phase"] == "F1966M"
    t.reply("nato@p.test", "SIGNON NATO cw pw-nato\nA col - pan")
    assert t.cli("game", "process", "cw") == 0
    shown = t.show("cw", capsys)
    assert len(shown["supply_centers"]["NATO"]) == 18
    assert shown["status"] == "finished" and shown["result"] == {"kind": "solo", "winner": "NATO"}
    assert shown["deadline"] is None
    assert t.cli("game", "process", "cw") == 1  # no further phases run
    over = [m for m in t.outbox() if "is over" in m["subject"]]
    assert {m["to_addr"] for m in over} == {"nato@p.test", "ussr@p.test"}
    assert "NATO won" in over[0]["body"]
    assert json.loads(json.dumps(shown))  # the --json output is plain JSON
