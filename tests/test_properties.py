"""Property tests (hypothesis) of everything that reads player input: the order parser, the body reader, the raw
message reader, the sandbox and the whole handle path. They never raise, bad input changes nothing, and what they
keep or answer is bounded by construction (sizes and counts are asserted, never the clock)."""

from __future__ import annotations

import json
import re
from email.message import EmailMessage
from typing import Any

import pytest
from gamekit import Table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.commands.body import parse_body
from judge.commands.handler import handle_message
from judge.data.catalog import load_variant
from judge.game.sandbox import run, run_json_line
from judge.mail.bounds import MAX_PARTS
from judge.mail.message import MAX_BODY_CHARS, Problem, parse_incoming
from judge.rules.orders import order_text
from judge.rules.parse import OrderError, parse_order
from judge.rules.phase import Step

CLASSIC = load_variant("classic")
CRASHED = "the judge could not play this input"  # the sandbox's catch-all for the unforeseen: never reached

# Characters that have broken parsers before: case-folding traps, compatibility forms, dashes, arrows, invisible
# characters, controls, surrogates, separators.
_TRAPS = [
    *"ſKİıßﬁﬀΣσς\u2010\u2011\u2012\u2013\u2014\u2015\u2212⇒➔→",
    *"\u200b\u00ad\ufeff\u00a0\u2028\u0085\x00\x1b()[]/,;:.-> \t",
    "\udcff",
    "\n",
    "\r\n",
]
_WORDS = [
    "A",
    "F",
    "par",
    "bur",
    "spa",
    "nc",
    "sc",
    "/",
    "stp",
    "S",
    "C",
    "-",
    "H",
    "via",
    "convoy",
    "Build",
    "Waive",
    "Paris",
    "north",
    "coast",
    "Spain",
    "SIGNON",
    "PRESS",
    "ENDPRESS",
    "SANDBOX",
    "ENDSANDBOX",
    "READY",
    "wrote:",
    "On",
    ">",
    "--",
    "From:",
    "Sent:",
    "[judge-mail]",
    "-----BEGIN PGP SIGNED MESSAGE-----",
    "-----BEGIN PGP SIGNATURE-----",
    "1.",
    "•",
]
text = st.lists(st.one_of(st.sampled_from(_TRAPS), st.sampled_from(_WORDS), st.text(max_size=4)), max_size=60).map(
    " ".join
)
lines = st.lists(text, max_size=30).map("\n".join)


@settings(max_examples=400, deadline=None)
@given(text, st.sampled_from(list(Step)))
def test_order_parser_never_raises(line: str, step: Step) -> None:
    result = parse_order(line, CLASSIC.geo, step)
    if isinstance(result, OrderError):
        assert result.reason
    else:  # an order it accepts, written back in its canonical form, reads as the same order
        assert parse_order(order_text(CLASSIC.geo, result), CLASSIC.geo, step) == result


@settings(max_examples=300, deadline=None)
@given(lines, st.integers(1, 50))
def test_body_reader_never_raises_and_is_bounded(body: str, max_lines: int) -> None:
    parsed = parse_body(body, max_lines=max_lines)
    count = len(body.split("\n"))
    assert len(parsed.items) <= max_lines and len(parsed.problems) <= max_lines + 2
    for entry in [*parsed.items, *parsed.problems]:
        assert 1 <= entry.line <= max(count, max_lines + count) and len(entry.text) <= 1000


@settings(max_examples=200, deadline=None)
@given(lines)
def test_quoted_text_is_never_read(body: str) -> None:
    quoted = "\n".join("> " + line for line in re.split(r"\r\n|\r|\n", body))
    parsed = parse_body(f"READY\n{quoted}\nOn Mon, 30 Nov 2026 at 10:00, x <a@b.c> wrote:\n{quoted}")
    assert [item.text for item in parsed.items] == ["READY"]


@settings(max_examples=200, deadline=None)
@given(lines)
def test_nothing_below_the_judges_marker_is_read(body: str) -> None:
    parsed = parse_body(f"CLEAR\n[judge-mail] Mail from the Diplomacy judge\n{body}")
    assert [item.text for item in parsed.items] == ["CLEAR"] and parsed.problems == ()


_HEADER_NAMES = [
    "From",
    "Subject",
    "Message-ID",
    "Content-Type",
    "Content-Transfer-Encoding",
    "Date",
    "References",
    "Reply-To",
    "Received",
    "Auto-Submitted",
    "X-Autoreply",
    "Content-Disposition",
]
_HEADER_VALUES = [
    "a@example.org",
    "=?utf-8?q?x?=",
    "=?punycode?q?abc?=",
    "=?utf-7?b?Kw-?=",
    "<m@x>",
    "\x00",
    "text/plain; charset=punycode",
    "text/plain; charset=utf-7",
    "multipart/mixed; boundary=b",
    "message/rfc822",
    "base64",
    "quoted-printable",
    "attachment; filename=a.txt",
    "text/html",
    "multipart/alternative; boundary=b",
    "auto-replied",
    "Tue, 01 Dec 2026 10:00:00 +0100",
    "yes",
]
header = st.tuples(
    st.sampled_from(_HEADER_NAMES),
    st.lists(st.one_of(st.sampled_from(_HEADER_VALUES), st.text(max_size=8)), max_size=6).map(" ".join),
)
raw_mail = st.builds(
    lambda headers, body, repeat: ("\n".join(f"{k}: {v}" for k, v in headers) + "\n\n" + body * repeat).encode(
        "utf-8", "surrogateescape"
    ),
    st.lists(header, max_size=12),
    st.one_of(lines, st.just("--b\nContent-Type: text/plain\n\nA par H\n")),
    st.integers(1, 300),
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(raw_mail, st.binary(max_size=2000)))
def test_raw_message_reader_never_raises_and_is_bounded(raw: bytes) -> None:
    got = parse_incoming(raw)
    assert got.size == len(raw)
    # read by the reader's own rules, not by parse_incoming's catch-all for the unforeseen: that one answers
    # "unreadable" with no sender, while the reader only says "unreadable" of a body when it kept a sender
    assert not (got.problem == Problem.UNREADABLE and not got.sender), raw[:200]
    assert len(got.body) <= MAX_BODY_CHARS and len(got.attachments) <= MAX_PARTS
    assert len(got.subject) <= 1000 and len(got.references) <= 20
    assert "\x00" not in got.sender + got.message_id


json_value = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.text(max_size=10),
        st.sampled_from(["classic", "S1901M", "F1901R", "W1901A", "France", "A par", "F stp/sc", "A par - bur", "par"]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "variant",
                    "phase",
                    "units",
                    "orders",
                    "supply_centers",
                    "dislodged",
                    "standoffs",
                    "France",
                    "England",
                    "",
                ]
            ),
            children,
            max_size=6,
        ),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_value)
def test_sandbox_never_raises(data: Any) -> None:
    result = run(data)
    assert set(result) >= {"id", "error", "results"}
    assert CRASHED not in (result["error"] or ""), result["error"]  # refused by a rule, not by the catch-all
    json.dumps(result)  # always writable
    line = run_json_line(json.dumps(data))
    assert line["error"] == result["error"] or line["error"] is None or result["error"] is None


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_sandbox_lines_never_raise(line: str) -> None:
    result = run_json_line(line)
    assert result["error"] is None or (result["error"] and CRASHED not in result["error"]), result
    json.dumps(result)  # always writable


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Table:
    t = Table(tmp_path_factory.mktemp("props") / "judge.db")
    t.seven("g", reuse=True)
    return t


def _state(t: Table) -> list[Any]:
    return [list(t.db.query(f"select * from {name}")) for name in ("games", "players", "orders", "users", "draws")]


senders = st.sampled_from(["france@p.test", "eve@evil.test", "germany@p.test", "x\x00y@p.test", "judge@judge.test"])
bodies = st.lists(
    st.one_of(
        text,
        st.sampled_from(
            [
                "SIGNON France g wrong",
                "SIGNON France nosuch pw",
                "A par - bur",
                "READY",
                "CLEAR",
                "DRAW",
                "RESIGN",
                "SET LANGUAGE ru",
                "SET TIMEZONE Europe/Berlin",
                "SET PASSWORD abcdef",
                "PRESS TO Germany",
                "hello",
                "ENDPRESS",
                "SANDBOX",
                "Narnia: A par",
                "ENDSANDBOX",
                "JOIN g abcd",
                "OBSERVE nosuch",
            ]
        ),
    ),
    max_size=12,
).map("\n".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(senders, bodies)
def test_handle_path_never_raises_and_without_a_sign_on_changes_nothing(table: Table, sender: str, body: str) -> None:
    t = table
    t.later(minutes=7)
    before = _state(t)
    msg = EmailMessage()
    msg["From"] = sender
    msg["Subject"] = "orders"
    msg.set_content(body.encode("utf-8", "replace").decode("utf-8"))
    handled = handle_message(t.db, bytes(msg), t.now, judge_address="judge@judge.test")
    assert handled.outcome.split(":")[0] in ("handled", "dropped", "refused", "duplicate")
    assert _state(t) == before  # nobody signed on (no right password): no game state changed
    assert len(handled.replies) <= 2
    for reply in handled.replies:
        assert "pw-" not in reply["body"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(raw_mail, st.binary(max_size=500)))
def test_handle_path_never_raises_on_raw_garbage(table: Table, raw: bytes) -> None:
    t = table
    t.later(minutes=7)
    before = _state(t)
    handled = handle_message(t.db, raw, t.now, judge_address="judge@judge.test")
    assert not handled.outcome.startswith("error")
    assert _state(t) == before


_NOT_ORDERS = [
    "hello",
    "see",
    "you",
    "xyz",
    "Françoise",
    ",",
    "!",
    "1901",
    "Paris",
    "Brest",
    "Marseille",
    "Burgundy",
    "Picardy",
    "Gascony",
    "Spain",
    "north",
    "\u200b",
    "\u00a0",
    "—",
]
garbage_line = (
    st.lists(st.sampled_from(_NOT_ORDERS), min_size=1, max_size=5)
    .map(" ".join)
    .filter(
        lambda line: isinstance(parse_order(line, CLASSIC.geo, Step.MOVEMENT), OrderError)
    )  # "Paris — Brest" is one
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(garbage_line, max_size=12), st.permutations(["A par - bur", "F bre - mao", "A mar - spa"]), st.randoms()
)
def test_lines_that_are_not_orders_never_replace_orders(
    table: Table, garbage: list[str], orders: list[str], rnd: Any
) -> None:
    from judge.game.records import orders_of, set_orders
    from judge.game.service import get_game

    t = table
    t.later(minutes=7)
    game = get_game(t.db, "g")
    with t.db.atomic():
        set_orders(t.db, game, game.phase or "", "France", [], t.now)
    lines = list(garbage)
    for order in orders:
        lines.insert(rnd.randrange(len(lines) + 1), order)
    msg = EmailMessage()
    msg["From"] = "france@p.test"
    msg["Subject"] = "orders"
    msg["Message-ID"] = f"<{t.now.timestamp()}@p.test>"  # each example is a new message
    msg.set_content("\n".join(["SIGNON France g pw-France", *lines]))
    handled = handle_message(t.db, bytes(msg), t.now, judge_address="judge@judge.test")
    assert handled.outcome == "handled"
    assert sorted(orders_of(t.db, game.id, game.phase or "")["France"]) == sorted(orders)
    body = handled.replies[0]["body"]
    assert body.count("ERROR") == sum(1 for line in garbage if line.strip(" \u200b\u00a0"))
