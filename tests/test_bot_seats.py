"""The stand-in bot in games played through the game server (judge.game.bot_seats): it plays a power in civil
disorder where the game says ``--bots cd``, fills the empty seats of a practice game (``--bots fill``), hands a power
back at once on TAKEOVER, is never mailed, and never stands in the way of a draw the humans agree on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gamekit import Table

from judge.game import records
from judge.game.settings import Bots, GameSettings
from judge.store.statuses import Role

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def game(t: Table) -> records.Game:
    loaded = records.load_game(t.db, "g")
    assert loaded is not None
    return loaded


def italy_resigns_and_the_others_are_ready(t: Table) -> None:
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    for power in POWERS:
        if power != "Italy":
            t.reply(addr(power), sign(power, "READY"))


def italy_orders(t: Table) -> list[str]:
    (row,) = [r for r in t.db.execute("select orders from phases where phase = 'S1901M'").fetchall()]
    return json.loads(row[0]).get("Italy", [])


def test_without_bots_a_power_in_civil_disorder_holds(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", reuse=True)
    italy_resigns_and_the_others_are_ready(t)
    assert game(t).phase == "F1901M"
    assert italy_orders(t) == []
    assert GameSettings.from_json("{}").bots is Bots.NONE  # an old game's settings: no bots


def test_with_bots_cd_the_bot_plays_a_power_in_civil_disorder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--bots", "cd", reuse=True)
    italy_resigns_and_the_others_are_ready(t)
    assert game(t).phase == "F1901M"
    lines = italy_orders(t)
    assert len(lines) == 3 and any(" - " in line for line in lines)  # the bot's orders, as a results mail shows them
    results = [m for m in t.outbox() if m["to_addr"] == addr("France") and "results of Spring 1901" in m["subject"]]
    assert results and all(line in results[-1]["body"] for line in lines)
    assert t.show("g", capsys)["units"]["Italy"] != ["F nap", "A rom", "A ven"]  # it moved


def test_takeover_hands_the_power_back_at_once(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--bots", "cd", reuse=True)
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    text = t.reply("new@p.test", "TAKEOVER g Italy pw-new-italy")
    assert "Italy" in text
    for power in POWERS:
        t.reply(
            addr(power) if power != "Italy" else "new@p.test", sign(power, "READY").replace("pw-Italy", "pw-new-italy")
        )
    assert game(t).phase == "F1901M"
    assert italy_orders(t) == []  # the new player gave none: the bot did not play for him


def test_fill_seats_bots_in_the_empty_seats_of_a_practice_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--bots", "fill") == 0
    assert t.cli("game", "join", "g", "--power", "France", "--email", addr("France"), "--password", "pw-France") == 0
    assert t.cli("game", "start", "g") == 0
    seats = [p for p in records.players(t.db, game(t).id) if p.role == Role.PLAYER]
    assert {p.power for p in seats} == set(POWERS)
    bots = [p for p in seats if p.power != "France"]
    assert all(p.resigned and p.email.endswith("@bot.invalid") for p in bots)
    assert not [m for m in t.outbox() if m["to_addr"].endswith("@bot.invalid")]  # a bot is never mailed
    t.reply(addr("France"), sign("France", "A par - bur", "READY"))  # the one human is ready: the bots play at once
    assert game(t).phase == "F1901M"
    shown = t.show("g", capsys)
    assert shown["units"]["France"] == ["F bre", "A bur", "A mar"] or "A bur" not in shown["units"]["France"]
    moved = sum(1 for p in POWERS if p != "France" and shown["units"][p] != start_units(p))
    assert moved >= 4  # the bots move
    t.reply("new@p.test", "TAKEOVER g Germany pw-new-germany")
    seat = next(p for p in records.players(t.db, game(t).id) if p.power == "Germany")
    assert seat.email == "new@p.test" and seat.active


def start_units(power: str) -> list[str]:
    return {
        "Austria": ["F tri", "A bud", "A vie"],
        "England": ["F edi", "F lon", "A lvp"],
        "Germany": ["F kie", "A ber", "A mun"],
        "Italy": ["F nap", "A rom", "A ven"],
        "Russia": ["F sev", "F stp/sc", "A mos", "A war"],
        "Turkey": ["F ank", "A con", "A smy"],
    }[power]


def test_a_fill_game_plays_out_with_the_bots(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--bots", "fill", "--deadline", "24h") == 0
    assert t.cli("game", "join", "g", "--power", "Austria", "--email", addr("Austria"), "--password", "pw-Austria") == 0
    assert t.cli("game", "start", "g") == 0
    for _ in range(10):  # the human sends nothing; deadlines pass; the bots play every phase they owe
        t.later(hours=25)
        assert t.cli("game", "tick") == 0
    g = game(t)
    assert g.position is not None and g.position.phase.year >= 1903
    assert sum(g.position.centre_count(p) for p in POWERS if p != "Austria") > 22 - 3  # the bots took centres
