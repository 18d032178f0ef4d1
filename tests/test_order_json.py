"""Typed orders as JSON (judge.rules.order_json), what the game server stores for each order of a played phase, and
migration m007, which gives rows stored before it their typed orders from the canonical text."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from judge.data.catalog import load_variant
from judge.rules.geography import UnitKind
from judge.rules.order_json import ORDER_TYPES, order_to_json
from judge.rules.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
    order_text,
)
from judge.store import open_db, write
from judge.store.schema import legacy_typed_order

CLASSIC = load_variant("classic")
LOCS = range(len(CLASSIC.geo.loc_names))
KINDS = st.sampled_from([UnitKind.ARMY, UnitKind.FLEET, None])
loc = st.sampled_from(LOCS)

ORDERS: st.SearchStrategy[Order] = st.one_of(
    st.builds(Hold, KINDS, loc),
    st.builds(Move, KINDS, loc, loc, st.booleans()),
    st.builds(SupportHold, KINDS, loc, loc),
    st.builds(SupportMove, KINDS, loc, loc, loc),
    st.builds(Convoy, KINDS, loc, loc, loc),
    st.builds(Retreat, KINDS, loc, loc),
    st.builds(Disband, KINDS, loc),
    st.builds(Build, st.sampled_from([UnitKind.ARMY, UnitKind.FLEET]), loc),
    st.just(Waive()),
)


def test_each_kind_of_order() -> None:
    geo = CLASSIC.geo
    at = geo.loc
    assert order_to_json(geo, Move(UnitKind.ARMY, at("lon"), at("nwy"), True)) == {
        "type": "move",
        "unit": "A",
        "at": "lon",
        "to": "nwy",
        "via_convoy": True,
    }
    assert order_to_json(geo, SupportMove(None, at("mun"), at("ber"), at("kie"))) == {
        "type": "support",
        "unit": None,
        "at": "mun",
        "target": "ber",
        "to": "kie",
    }
    assert order_to_json(geo, SupportHold(UnitKind.FLEET, at("kie"), at("ber")))["target"] == "ber"
    assert order_to_json(geo, Convoy(UnitKind.FLEET, at("nth"), at("lon"), at("nwy")))["type"] == "convoy"
    assert order_to_json(geo, Build(UnitKind.FLEET, at("stp/nc"))) == {"type": "build", "unit": "F", "at": "stp/nc"}
    assert order_to_json(geo, Waive()) == {"type": "waive"}


def test_a_unit_type_left_out_is_filled_in_from_the_board() -> None:
    geo = CLASSIC.geo
    start = {u.loc: u for u in CLASSIC.start_units}
    units = {geo.loc_province[loc]: u for loc, u in start.items()}
    assert order_to_json(geo, Hold(None, geo.loc("par")), units)["unit"] == "A"
    assert order_to_json(geo, Hold(None, geo.loc("bur")), units)["unit"] is None  # nobody there


@given(ORDERS)
def test_the_migration_reads_every_canonical_text_as_the_typed_order(order: Order) -> None:
    geo = CLASSIC.geo
    typed = order_to_json(geo, order)
    assert typed["type"] in ORDER_TYPES
    assert legacy_typed_order(order_text(geo, order)) == typed


@given(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.sampled_from(["A", "F", "S", "C", "-", "par"]))))
def test_the_migration_reader_never_raises(text: object) -> None:
    if isinstance(text, list):
        text = " ".join(text)
    typed = legacy_typed_order(text)
    assert typed is None or typed["type"] in ORDER_TYPES


def test_the_migration_reader_refuses_what_the_judge_never_wrote() -> None:
    for text in ("", "A par jumps", "F nth C A lon", "A par - bur now", "A mun S A ber kie", "build A", "A"):
        assert legacy_typed_order(text) is None, text


def test_m007_gives_rows_stored_before_it_their_typed_orders(tmp_path: Path) -> None:
    path = tmp_path / "judge.db"
    db = open_db(path)
    old = [
        {"power": "France", "input": "a par-bur", "order": "A par - bur", "outcome": "succeeds", "reason": None},
        {"power": "France", "input": None, "order": None, "outcome": "void", "reason": "no order"},
    ]
    with write(db):
        db.execute(
            "insert into phases (game_id, phase, board_before, orders, results, board_after, adjudicated_at) "
            "values (1, 'S1901M', '{}', '{}', ?, '{}', '2026-01-01T00:00:00Z')",
            [json.dumps(old)],
        )
        db.execute("insert into phases (game_id, phase, results) values (1, 'F1901M', 'not json')")
        db.execute("delete from _sqlite_migrations where name = 'm007_typed_orders'")
    db.close()
    again = open_db(path)  # applies m007 once more, as to a database from before it
    rows = {r["phase"]: r["results"] for r in again.query("select phase, results from phases")}
    lines = json.loads(rows["S1901M"])
    assert lines[0]["typed"] == {"type": "move", "unit": "A", "at": "par", "to": "bur", "via_convoy": False}
    assert lines[1]["typed"] is None
    assert [{k: v for k, v in line.items() if k != "typed"} for line in lines] == old  # nothing else changed
    assert rows["F1901M"] == "not json"  # a row it cannot read is left as it was
