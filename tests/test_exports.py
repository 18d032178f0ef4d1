"""The open exports (judge.exports, `judge game export`): a classic game of 20 years played through the game server
by the stand-in bot (``--bots fill``: judge.bots.standin.orders_for plays every seat but Austria's, whose player
sends nothing), then

- MILA's saved game: loaded with MILA's own ``diplomacy`` package and replayed phase by phase by MILA's engine
  (each phase's orders set and processed), every board on the way and the last one the judge's;
- the judge's JSON: read back to the same story, written again to the same JSON (and each order line, for any
  order of the classic map, by hypothesis); no address in it; a Fog of War game exports nothing;
- the GIF: at most 1 MB for the 20 years, one frame per phase, each captioned with its phase's name.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from diplomacy import Game as MilaGame  # type: ignore[import-untyped]
from diplomacy.utils.export import from_saved_game_format  # type: ignore[import-untyped]
from gamekit import POWERS, Table
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

from judge.data.catalog import load_variant
from judge.exports import ExportError
from judge.exports.gif import FRAME_WIDTH, MAX_BYTES, NARROWER, Frame, _captioned, animated_gif, gif_at, story_frames
from judge.exports.judge_json import FORMAT_VERSION, game_from_json, game_to_json, line_from_json, line_to_json
from judge.exports.mila import game_to_mila, mila_order, mila_rules
from judge.game import records
from judge.game.story import OrderLine, Story, Viewer, story_of
from judge.i18n import phase_words, translate
from judge.rules.geography import UnitKind
from judge.rules.order_json import order_to_json
from judge.rules.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Outcome,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
    order_text,
)
from judge.rules.phase import Step
from judge.rules.position_json import position_from_json

CLASSIC = load_variant("classic")
LAST_YEAR = 1920


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Table:
    """A classic game played by the stand-in bot from 1901 to the end of 1920: deadlines pass, `judge game tick`
    plays every phase (Austria's player never orders: its units hold, its removals are civil disorder's)."""
    t = Table(tmp_path_factory.mktemp("export") / "judge.db")
    assert t.cli("game", "create", "g", "--bots", "fill", "--deadline", "24h") == 0
    assert t.cli("game", "join", "g", "--power", "Austria", "--email", "austria@p.test", "--password", "pw-A") == 0
    assert t.cli("game", "start", "g") == 0
    for _ in range(200):
        game = records.load_game(t.db, "g")
        assert game is not None and game.position is not None
        if game.status.value != "active" or game.position.phase.year > LAST_YEAR:
            break
        t.later(hours=25)
        assert t.cli("game", "tick") == 0
    return t


def game_of(t: Table) -> records.Game:
    game = records.load_game(t.db, "g")
    assert game is not None
    return game


@pytest.fixture(scope="module")
def story(played: Table) -> Story:
    return story_of(played.db, game_of(played), Viewer.PUBLIC)


def test_the_game_is_long_and_has_every_kind_of_phase(story: Story) -> None:
    played = story.played
    assert played[-1].phase.year >= LAST_YEAR and len({p.phase.year for p in played}) >= 20
    steps = {p.phase.step for p in played}
    assert steps == {Step.MOVEMENT, Step.RETREAT, Step.ADJUSTMENT}
    kinds = {(line.typed or {}).get("type") for p in played for line in p.lines}
    assert {"move", "support", "hold", "retreat", "disband", "build"} <= kinds


# --- MILA ------------------------------------------------------------------------------------------------------------


def mila_units(pos: Any) -> dict[str, list[str]]:
    """The judge's board as MILA names its units (``A PAR``, ``F STP/SC``), by upper-case power."""
    out: dict[str, list[str]] = {p.upper(): [] for p in CLASSIC.powers}
    for unit in pos.units.values():
        out[unit.power.upper()].append(f"{unit.kind.value} {CLASSIC.geo.loc_names[unit.loc].upper()}")
    return {p: sorted(u) for p, u in out.items()}


def mila_centres(pos: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {p.upper(): [] for p in CLASSIC.powers}
    for prov, power in pos.owners.items():
        out[power.upper()].append(CLASSIC.geo.loc_names[prov].upper())
    return {p: sorted(c) for p, c in out.items()}


def test_mila_loads_the_export_and_replays_it_to_the_judges_final_board(story: Story) -> None:
    saved = json.loads(json.dumps(game_to_mila(story)))  # as a file holds it
    assert saved["map"] == "standard" and saved["phases"][0]["name"] == "S1901M"
    loaded = from_saved_game_format(saved)  # MILA's own reader
    final = story.played[-1].after
    assert final is not None
    assert loaded.get_current_phase() == final.phase.code
    assert {p: sorted(u) for p, u in loaded.get_units().items()} == mila_units(final)

    mila = MilaGame(map_name="standard", rules=saved["rules"])  # MILA's engine plays every phase again
    for phase in saved["phases"][:-1]:
        assert mila.get_current_phase() == phase["name"]
        state = phase["state"]
        assert {p: sorted(u) for p, u in mila.get_units().items()} == {p: sorted(u) for p, u in state["units"].items()}
        assert {p: sorted(c) for p, c in mila.get_centers().items()} == {
            p: sorted(c) for p, c in state["centers"].items()
        }
        for power, orders in phase["orders"].items():
            mila.set_orders(power, orders)
            assert sorted(mila.get_orders(power)) == sorted(orders), (phase["name"], power)  # MILA took each one
        mila.process()
    assert mila.get_current_phase() == final.phase.code
    assert {p: sorted(u) for p, u in mila.get_units().items()} == mila_units(final)
    assert {p: sorted(c) for p, c in mila.get_centers().items()} == mila_centres(final)
    years = {int(p["name"][1:5]) for p in saved["phases"]}
    assert len(years) >= 10
    orders = [o for p in saved["phases"] for os_ in p["orders"].values() for o in os_]
    assert any(o.endswith(" B") for o in orders) and any(" R " in o for o in orders) and any(" S " in o for o in orders)


def test_mila_refuses_a_game_off_the_classic_board() -> None:
    with pytest.raises(ExportError, match="classic board"):
        mila_rules(load_variant("coldwar"))
    assert mila_rules(CLASSIC) == []
    assert mila_rules(load_variant("build_anywhere")) == ["BUILD_ANY"]


# --- the judge's JSON -------------------------------------------------------------------------------------------------


def test_the_json_reads_back_to_the_same_story_and_json(story: Story) -> None:
    data = json.loads(json.dumps(game_to_json(story)))
    assert data["format_version"] == FORMAT_VERSION and data["variant"]["key"] == "classic"
    again = game_from_json(data, CLASSIC)
    assert [(p.phase, p.before, p.after) for p in again.phases] == [(p.phase, p.before, p.after) for p in story.phases]
    assert game_to_json(again) == data
    assert len(data["phases"]) == len(story.phases)
    first = data["phases"][0]
    assert first["phase"] == "S1901M" and first["before"]["units"]["France"] == ["F bre", "A mar", "A par"]
    assert {line["outcome"] for p in data["phases"] for line in p["orders"]} >= {"succeeds", "bounced"}


def test_the_json_has_no_address_and_a_fog_of_war_game_exports_nothing(played: Table, story: Story) -> None:
    text = json.dumps(game_to_json(story))
    assert "@" not in text and "pw-" not in text
    fogged = replace(story, fogged=True, phases=())
    for export in (game_to_json, game_to_mila):
        with pytest.raises(ExportError, match="Fog of War"):
            export(fogged)
    with pytest.raises(ExportError, match="Fog of War"):
        story_frames(played.db, game_of(played), fogged, "en")


def test_an_anonymous_game_hides_who_plays(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--anonymous", reuse=True)
    story = story_of(t.db, game_of(t), Viewer.PUBLIC)
    data = game_to_json(story)
    assert data["anonymous"] is True and "@" not in json.dumps(data)


def test_reading_what_is_no_export_says_why() -> None:
    with pytest.raises(ExportError, match="format_version"):
        game_from_json({"format": "judge-game", "format_version": 99}, CLASSIC)
    with pytest.raises(ExportError, match="not a readable"):
        game_from_json({"format": "judge-game", "format_version": FORMAT_VERSION, "variant": {}}, CLASSIC)


LOCS = st.integers(0, len(CLASSIC.geo.loc_names) - 1)
KINDS = st.sampled_from([UnitKind.ARMY, UnitKind.FLEET])
ORDERS: st.SearchStrategy[Order] = st.one_of(
    st.builds(Hold, KINDS, LOCS),
    st.builds(Move, KINDS, LOCS, LOCS, st.booleans()),
    st.builds(SupportHold, KINDS, LOCS, LOCS),
    st.builds(SupportMove, KINDS, LOCS, LOCS, LOCS),
    st.builds(Convoy, st.just(UnitKind.FLEET), LOCS, LOCS, LOCS),
    st.builds(Retreat, KINDS, LOCS, LOCS),
    st.builds(Disband, KINDS, LOCS),
    st.builds(Build, KINDS, LOCS),
    st.just(Waive()),
)


@settings(max_examples=300, deadline=None)
@given(
    order=ORDERS,
    power=st.sampled_from(CLASSIC.powers),
    written=st.none() | st.text(max_size=40),
    outcome=st.none() | st.sampled_from(list(Outcome)),
    reason=st.none() | st.text(min_size=1, max_size=40),
    retreats=st.lists(st.sampled_from(CLASSIC.geo.loc_names), max_size=4).map(tuple),
)
def test_an_order_line_round_trips(
    order: Order, power: str, written: str | None, outcome: Outcome | None, reason: str | None, retreats: Any
) -> None:
    """Every order of the classic map, with any outcome, reason and retreats, is read back as it was written."""
    line = OrderLine(
        power,
        written,
        order_text(CLASSIC.geo, order),
        order_to_json(CLASSIC.geo, order),
        outcome,
        reason,
        outcome is Outcome.DISLODGED,
        retreats,
    )
    data = json.loads(json.dumps(line_to_json(line)))
    back = line_from_json(CLASSIC, data)
    expected = replace(line, reason=translate(reason, "en") if reason else None)
    assert back == expected
    assert line_to_json(back) == data


def test_a_typed_order_the_map_does_not_know_is_refused() -> None:
    line = {
        "power": "France",
        "written": "A par - xyz",
        "order": None,
        "typed": {"type": "move", "unit": "A", "at": "par", "to": "xyz"},
        "outcome": "void",
        "reason": None,
        "dislodged": False,
        "retreats": [],
    }
    with pytest.raises(ExportError, match="no order of Classic"):
        line_from_json(CLASSIC, line)


# --- the GIF ---------------------------------------------------------------------------------------------------------


def binary(im: Image.Image) -> Image.Image:
    return im.convert("L").point(lambda v: 255 if v > 128 else 0)


def test_the_gif_of_20_years_is_at_most_1_mb_with_a_captioned_frame_per_phase(played: Table, story: Story) -> None:
    frames = story_frames(played.db, game_of(played), story, "de")
    assert [f.caption for f in frames] == [translate(phase_words(p.phase), "de") for p in story.phases]
    assert frames[0].caption == "Frühjahr 1901, Bewegung"
    data = animated_gif(frames)
    assert len(data) <= MAX_BYTES
    with Image.open(io.BytesIO(data)) as gif:
        assert gif.format == "GIF" and gif.n_frames == len(story.phases) >= 60
        assert gif.size[0] == FRAME_WIDTH  # 20 years fit at the full width
        for i, frame in enumerate(frames):
            gif.seek(i)
            shown = binary(gif.convert("RGB").crop((0, 0, gif.size[0], 30)))
            caption = binary(_captioned(Frame(frame.caption, frame.png), gif.size[0]).crop((0, 0, gif.size[0], 30)))
            assert ImageChops.difference(shown, caption).getbbox() is None, frame.caption  # its phase's name


def test_a_gif_over_the_limit_is_written_narrower(played: Table, story: Story) -> None:
    frames = story_frames(played.db, game_of(played), story, "en")[:4]
    full = gif_at(frames, FRAME_WIDTH)
    smaller = animated_gif(frames, max_bytes=len(full) - 1)
    with Image.open(io.BytesIO(smaller)) as gif:
        assert gif.size[0] == NARROWER[0] and gif.n_frames == 4
    with pytest.raises(ExportError):
        animated_gif([])


# --- `judge game export` ----------------------------------------------------------------------------------------------


def test_the_command_writes_each_format(played: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert played.cli("game", "export", "g", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["game"] == "g"
    target = tmp_path / "g.mila.json"
    assert played.cli("game", "export", "g", "--format", "mila", "-o", str(target)) == 0
    assert json.loads(target.read_text())["map"] == "standard"
    gif = tmp_path / "g.gif"
    assert played.cli("game", "export", "g", "--format", "gif", "-o", str(gif), "--language", "ru") == 0
    assert f"wrote {gif}" in capsys.readouterr().out
    assert gif.read_bytes().startswith(b"GIF89a")
    assert played.cli("game", "export", "nope", "--format", "json") == 1
    assert "there is no game called 'nope'" in capsys.readouterr().err


def test_a_gif_is_not_written_to_a_terminal(played: Table) -> None:
    main, other = os.openpty()  # standard output a terminal, as a person at a shell has it
    try:
        run = subprocess.run(
            [sys.executable, "-m", "judge.cli", "game", "export", "g", "--format", "gif", "--db", str(played.path)],
            stdout=other,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
    finally:
        os.close(other)
        os.close(main)
    assert run.returncode == 2
    assert b"a GIF is binary and standard output is a terminal: give -o FILE" in run.stderr


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def test_a_finished_game_with_press_exports_its_result_and_public_press_only(tmp_path: Path) -> None:
    """One phase played with a broadcast, press to one power (private: never exported) and grey press, then a draw
    the game master declares: the JSON tells the result and the public press, MILA's messages the signed
    broadcast, and both read back."""
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--press", "both", reuse=True)
    t.reply("france@p.test", sign("France", "BROADCAST", "Peace in our time", "ENDPRESS"))
    t.reply("germany@p.test", sign("Germany", "PRESS TO France", "A secret deal", "ENDPRESS"))
    t.reply("italy@p.test", sign("Italy", "BROADCAST GREY", "Who am I?", "ENDPRESS"))
    t.later(minutes=5)
    t.reply("france@p.test", sign("France", "A par - bur", "A mar S A par - bur", "READY"))
    t.reply("germany@p.test", sign("Germany", "A mun - bur", "READY"))
    for power in ("Austria", "England", "Italy", "Russia", "Turkey"):
        t.reply(f"{power.lower()}@p.test", sign(power, "READY"))
    assert t.cli("game", "end", "g", "--draw", "France", "Germany") == 0
    story = story_of(t.db, game_of(t), Viewer.PUBLIC)
    data = json.loads(json.dumps(game_to_json(story)))
    assert data["status"] == "finished" and data["finished_at"] is not None
    assert data["result"]["kind"] == "draw" and data["result"]["powers"] == ["France", "Germany"]
    assert [p["phase"] for p in data["phases"]] == ["S1901M"]  # a finished game has no phase being played
    bodies = {(p["sender"], p["body"].strip()) for p in data["press"]}
    assert ("France", "Peace in our time") in bodies and ("an anonymous power", "Who am I?") in bodies
    assert "A secret deal" not in json.dumps(data)
    assert game_to_json(game_from_json(data, CLASSIC)) == data
    germany = [o for o in data["phases"][0]["orders"] if o["power"] == "Germany" and o["written"]]
    assert germany[0]["outcome"] == "bounced" and germany[0]["reason"] == "bounced with A par"

    saved = game_to_mila(story)
    messages = [m for p in saved["phases"] for m in p["messages"]]
    assert [(m["sender"], m["recipient"], m["message"].strip()) for m in messages] == [
        ("FRANCE", "GLOBAL", "Peace in our time")
    ]
    assert "NO_PRESS" not in saved["rules"]
    assert saved["phases"][0]["orders"]["FRANCE"] == ["A PAR - BUR", "A MAR S A PAR - BUR", "F BRE H"]
    assert saved["phases"][0]["results"]["A MUN"] == ["bounce"]
    loaded = from_saved_game_format(saved)
    assert loaded.get_current_phase() == "F1901M" and "A BUR" in loaded.get_units("FRANCE")
    assert [m.message.strip() for m in loaded.message_history["S1901M"].values()] == ["Peace in our time"]


@pytest.mark.parametrize(
    "typed,mila",
    [
        ({"type": "hold", "unit": "A", "at": "par"}, "A PAR H"),
        ({"type": "move", "unit": "A", "at": "lon", "to": "nwy", "via_convoy": True}, "A LON - NWY VIA"),
        ({"type": "move", "unit": "F", "at": "mao", "to": "spa/nc", "via_convoy": False}, "F MAO - SPA/NC"),
        ({"type": "support", "unit": "F", "at": "gas", "target": "mao", "to": "spa/nc"}, "F GAS S F MAO - SPA"),
        ({"type": "support", "unit": "A", "at": "bur", "target": "par"}, "A BUR S A PAR"),
        ({"type": "support", "unit": "A", "at": "bur", "target": "ruh"}, None),  # no unit there: no words for it
        ({"type": "convoy", "unit": "F", "at": "nth", "target": "lon", "to": "nwy"}, "F NTH C A LON - NWY"),
        ({"type": "retreat", "unit": "F", "at": "stp/sc", "to": "bot"}, "F STP/SC R BOT"),
        ({"type": "disband", "unit": "A", "at": "mun"}, "A MUN D"),
        ({"type": "build", "unit": "F", "at": "stp/nc"}, "F STP/NC B"),
        ({"type": "waive"}, "WAIVE"),
        ({"type": "hold", "unit": None, "at": "par"}, None),
    ],
)
def test_each_kind_of_order_in_milas_words(typed: dict[str, Any], mila: str | None) -> None:
    board = {"units": {"France": ["A par", "F mao"], "England": ["A lon"]}}
    pos = position_from_json(CLASSIC, {"phase": "S1901M", **board})
    assert mila_order(CLASSIC, typed, pos) == mila


def test_press_sent_in_the_second_of_the_adjudication_is_kept(tmp_path: Path) -> None:
    """A broadcast sent in the same second as the phase it was sent in is played (no clock moved between them) is
    that phase's, and a broadcast after a game ends belongs to its last phase: neither is lost."""
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--press", "both", reuse=True)
    t.reply("france@p.test", sign("France", "BROADCAST", "Same second", "ENDPRESS"))
    for power in POWERS:
        t.reply(f"{power.lower()}@p.test", sign(power, "READY"))
    assert t.cli("game", "end", "g", "--draw", "France", "Germany") == 0
    t.reply("england@p.test", sign("England", "BROADCAST", "After the end", "ENDPRESS"))
    data = game_to_json(story_of(t.db, game_of(t), Viewer.PUBLIC))
    assert [p["phase"] for p in data["phases"]] == ["S1901M"]
    assert {p["body"].strip(): p["phase"] for p in data["press"]} == {
        "Same second": "S1901M",
        "After the end": "S1901M",
    }
