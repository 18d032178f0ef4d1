"""Orders given for the current phase (and those kept for a later one) are stored typed beside the lines as written:
read once, when they arrive; adjudication, the order sets and who owes what read the typed order, never the words;
migration m009 reads the lines stored before it once. Also ``order_from_json``, the way back from the stored form."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from gamekit import Table
from hypothesis import given
from hypothesis import strategies as st
from test_order_json import ORDERS

from judge.data.catalog import load_variant
from judge.game import records
from judge.game.duties import orders_complete
from judge.rules.geography import UnitKind
from judge.rules.order_json import order_from_json, order_to_json
from judge.rules.orders import Hold, Move
from judge.rules.parse import OrderError, parse_order
from judge.rules.phase import Step
from judge.store import open_db, write

CLASSIC = load_variant("classic")
JUDGE = Path(__file__).resolve().parent.parent / "judge"


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


# --- the stored form and back ---------------------------------------------------------------------------------------


@given(ORDERS)
def test_every_order_comes_back_from_its_stored_form(order: Any) -> None:
    geo = CLASSIC.geo
    assert order_from_json(geo, json.loads(json.dumps(order_to_json(geo, order)))) == order


@given(st.text(max_size=40), st.sampled_from(list(Step)))
def test_every_line_read_on_arrival_is_stored_exactly(line: str, step: Step) -> None:
    geo = CLASSIC.geo
    read = parse_order(line, geo, step)
    if not isinstance(read, OrderError):
        assert order_from_json(geo, order_to_json(geo, read)) == read


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.sampled_from(["A", "F", "par", "stp/nc", "move", "zzz", ""]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["type", "unit", "at", "to"]), inner),
    max_leaves=8,
)
TYPED = st.fixed_dictionaries(
    {"type": st.sampled_from(["hold", "move", "support", "convoy", "retreat", "disband", "build", "waive", "x"])},
    optional={k: JSONISH for k in ("unit", "at", "to", "target", "via_convoy")},
)


@given(st.one_of(JSONISH, TYPED))
def test_a_stored_form_that_is_no_order_gives_none_and_never_raises(data: object) -> None:
    order = order_from_json(CLASSIC.geo, data)
    if order is not None:  # what it reads is what it would store
        assert order_from_json(CLASSIC.geo, order_to_json(CLASSIC.geo, order)) == order


def test_a_stored_form_naming_a_place_the_map_lacks_is_no_order() -> None:
    geo = CLASSIC.geo
    assert order_from_json(geo, {"type": "move", "unit": "A", "at": "par", "to": "atlantis"}) is None
    assert order_from_json(geo, {"type": "support", "unit": "A", "at": "par", "target": "bur", "to": "x"}) is None
    assert order_from_json(geo, {"type": "build", "unit": None, "at": "par"}) is None
    assert order_from_json(geo, {"type": "hold", "unit": "T", "at": "par"}) is None
    assert order_from_json(geo, {"type": "hold", "unit": None, "at": "par"}) == Hold(None, geo.loc("par"))


# --- adjudication reads the typed order, not the words --------------------------------------------------------------


def test_orders_are_stored_typed_and_played_from_the_typed_order(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", reuse=True)
    t.reply(addr("France"), sign("France", "Army Paris to Burgundy", "a mar h", "F Brest - Mid-Atlantic Ocean"))
    game = records.load_game(t.db, "g")
    assert game is not None
    row = next(iter(t.db.query("select lines, typed from orders where power = 'France'")))
    assert json.loads(row["lines"]) == ["Army Paris to Burgundy", "a mar h", "F Brest - Mid-Atlantic Ocean"]
    typed = json.loads(row["typed"])
    assert typed[0] == {"type": "move", "unit": "A", "at": "par", "to": "bur", "via_convoy": False}
    assert typed[1] == {"type": "hold", "unit": "A", "at": "mar"}
    geo = CLASSIC.geo
    read = [s.order for s in records.given_orders(t.db, game, "S1901M")["France"]]
    assert read[0] == Move(UnitKind.ARMY, geo.loc("par"), geo.loc("bur"))
    assert read[1] == Hold(UnitKind.ARMY, geo.loc("mar"))
    # the words are no longer read: garbage in their place changes nothing the judge does with the orders
    with write(t.db):
        t.db.execute(
            "update orders set lines = ? where power = 'France'", [json.dumps(["xyzzy", "no order", "at all"])]
        )
    assert orders_complete(t.db, game, "France")
    assert t.cli("game", "process", "g") == 0
    results = json.loads(next(iter(t.db.query("select results from phases where phase = 'S1901M'")))["results"])
    france = {r["input"]: (r["order"], r["outcome"]) for r in results if r["power"] == "France" and r["input"]}
    assert france == {
        "xyzzy": ("A par - bur", "succeeds"),
        "no order": ("A mar H", "succeeds"),
        "at all": ("F bre - mao", "succeeds"),
    }


# --- m009: the lines stored before it, read once --------------------------------------------------------------------

ORDERS_IN = {
    "France": ["Army Paris to Burgundy", "a mar h", "F Brest - Mid-Atlantic Ocean", "PHASE F1901M", "A bur - mun"],
    "England": ["F lon - nth", "F edi - nwg", "A lvp - yor"],
    "Italy": ["A ven - tyr", "a rom-ven", "F nap - ion"],
}


def _played(path: Path, *, before_m009: bool) -> dict[str, Any]:
    """Give ``ORDERS_IN`` by mail; with ``before_m009`` the orders are then stored as before it (the lines alone, and
    a line the parser does not take for Germany) and the database opened again, which applies m009; then S1901M is
    played. What the judge kept and did."""
    t = Table(path)
    t.seven("g", reuse=True)
    for power, lines in ORDERS_IN.items():
        t.reply(addr(power), sign(power, *lines))
    stored = {r["power"]: json.loads(r["typed"]) for r in t.db.query("select power, typed from orders")}
    if before_m009:
        with write(t.db):
            t.db.execute(
                "insert into orders (game_id, phase, power, lines, typed) values (1, 'S1901M', 'Germany', ?, ?)",
                [json.dumps(["A kie jumps"]), "[]"],
            )
            for table in ("orders", "future_orders"):
                t.db.execute(f"alter table {table} drop column typed")
            t.db.execute("delete from _sqlite_migrations where name = 'm009_typed_given_orders'")
        t.db.close()
        t.db = open_db(path)  # an old file: m009 reads the lines stored as written
    after = {r["power"]: json.loads(r["typed"]) for r in t.db.query("select power, typed from orders")}
    kept = [(r["lines"], r["typed"]) for r in t.db.query("select lines, typed from future_orders")]
    assert t.cli("game", "process", "g") == 0
    results = json.loads(next(iter(t.db.query("select results from phases where phase = 'S1901M'")))["results"])
    next_orders = {
        r["power"]: (r["lines"], r["typed"]) for r in t.db.query("select * from orders where phase = 'F1901M'")
    }
    return {"stored": stored, "after": after, "kept": kept, "results": results, "next": next_orders}


def test_m009_reads_the_orders_stored_before_it_as_they_were_read_on_arrival(tmp_path: Path) -> None:
    now = _played(tmp_path / "now.db", before_m009=False)
    old = _played(tmp_path / "old.db", before_m009=True)
    germany = old["after"].pop("Germany")
    assert germany == [None]  # words the parser does not take: kept, with no typed order
    assert old["after"] == now["stored"] == now["after"]  # the same typed orders as arrival stores
    assert now["kept"] and old["kept"] == now["kept"]  # PHASE F1901M's line, typed too
    assert json.loads(now["kept"][0][1]) == [
        {"type": "move", "unit": "A", "at": "bur", "to": "mun", "via_convoy": False}
    ]
    void = [r for r in old["results"] if r["input"] == "A kie jumps"]
    assert [(r["power"], r["outcome"], r["reason"]) for r in void] == [
        ("Germany", "void", "this order was stored before an upgrade of the judge and could not be read then")
    ]
    assert [r for r in old["results"] if r not in void] == now["results"]  # the phase played the same
    assert old["next"] == now["next"] and set(now["next"]) == {"France"}  # the kept order merged when F1901M opened


def test_m009_keeps_the_lines_it_cannot_read(tmp_path: Path) -> None:
    path = tmp_path / "judge.db"
    db = open_db(path)
    with write(db):
        db.execute("insert into games (id, name, variant, status) values (9, 'lost', 'no-such-variant', 'active')")
        db.execute(
            "insert into orders (game_id, phase, power, lines, typed) values (9, 'S1901M', 'France', ?, '[]')",
            [json.dumps(["A par - bur"])],
        )  # a game whose variant is gone: nothing to read with
        db.execute(
            "insert into future_orders (game_id, phase, power, lines, typed) "
            "values (9, 'bad', 'France', 'not json', '[]')"
        )
        for table in ("orders", "future_orders"):
            db.execute(f"alter table {table} drop column typed")
        db.execute("delete from _sqlite_migrations where name = 'm009_typed_given_orders'")
    db.close()
    again = open_db(path)
    assert [(r["lines"], r["typed"]) for r in again.query("select lines, typed from orders")] == [
        ('["A par - bur"]', "[null]")
    ]
    assert [(r["lines"], r["typed"]) for r in again.query("select lines, typed from future_orders")] == [("[]", "[]")]


# --- the contract: order text is parsed where it arrives, and nowhere else --------------------------------------------

PARSERS = {"parse_order", "parse_submissions"}
# where order lines arrive: the order set (mail and the command line), PHASE orders, the sandbox's request; the rules
# engine itself; and migration m009, which reads the lines stored before it once
ARRIVALS = {"judge.game.order_sets", "judge.game.future_orders", "judge.game.sandbox", "judge.store.schema"}


def _parsing_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("judge"):
            found += [alias.name for alias in node.names if alias.name in PARSERS]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name == "judge.rules.parse"]
    return found


def test_order_text_is_parsed_only_where_it_arrives() -> None:
    readers = []
    for path in sorted(JUDGE.rglob("*.py")):
        module = ".".join(path.relative_to(JUDGE.parent).with_suffix("").parts)
        if module.startswith(("judge.rules.", "judge.commands.")) or module in ARRIVALS:
            continue
        if _parsing_imports(path):
            readers.append(module)
    assert readers == []
    for reader in ("duties", "adjudication", "summaries", "views", "records"):  # and the check sees the readers
        assert (JUDGE / "game" / f"{reader}.py").is_file()
    assert _parsing_imports(JUDGE / "game" / "order_sets.py") == ["parse_order"]  # it sees an import when there is one
