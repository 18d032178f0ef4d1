"""The command language of an email body (judge.commands.body, grammar, items): commands, blocks, quoting, limits.

One-line command cases are data in tests/commands_cases.toml; the shape of whole messages is tested here.
"""

from __future__ import annotations

import ast
import dataclasses
import random
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from judge.commands import arguments, body, grammar, items, master_grammar, set_grammar
from judge.commands.body import parse_body, tidy
from judge.commands.grammar import mask_secrets
from judge.commands.items import (
    Clear,
    Help,
    Join,
    LineProblem,
    OrderLine,
    ParsedBody,
    Press,
    Ready,
    Resign,
    Sandbox,
    SignOff,
    SignOn,
)

_DATA = tomllib.loads((Path(__file__).parent / "commands_cases.toml").read_text(encoding="utf-8"))


def _cases(kind: str) -> list[Any]:
    return [case for group in _DATA[kind] for case in group["cases"]]


def _expected(line: str, want: dict[str, object]) -> object:
    cls = getattr(items, str(want["type"]))
    values = {
        f.name: want.get(f.name)
        for f in dataclasses.fields(cls)
        if f.name not in ("line", "text") and (f.name in want or f.default is dataclasses.MISSING)
    }
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    return cls(line=1, text=line.strip(), **values)


_SECRET = re.compile(r"\s*(?:SIGNON|JOIN|SET PASSWORD)\s+\S+\s+\S", re.IGNORECASE)


def _texts(body: ParsedBody) -> list[tuple[int, str]]:
    return [(item.line, item.text) for item in body.items]


def _reasons(body: ParsedBody) -> list[tuple[int, str]]:
    return [(p.line, p.reason) for p in body.problems]


# --- one line -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("line,want", _cases("ok"), ids=lambda x: x if isinstance(x, str) else "")
def test_command(line: str, want: dict[str, object]) -> None:
    body = parse_body(line)
    assert body.problems == ()
    assert body.items == (_expected(line, want),)


@pytest.mark.parametrize("line,words", _cases("problem"), ids=lambda x: x if isinstance(x, str) else "")
def test_malformed_command_is_a_problem(line: str, words: str) -> None:
    body = parse_body(line)
    assert body.items == ()
    assert len(body.problems) == 1
    problem = body.problems[0]
    assert (problem.line, problem.text) == (1, mask_secrets(line.strip()))
    assert words in problem.reason
    if _SECRET.match(line):  # the password is never quoted back
        assert problem.text.endswith("****") and "secret" not in problem.text and "two words" not in problem.text


@pytest.mark.parametrize("line", _cases("order"))
def test_order_line(line: str) -> None:
    assert parse_body(line) == ParsedBody((OrderLine(1, line.strip()),), ())


def test_every_command_word_has_a_case() -> None:
    """The case table covers each item type (Press, Diary and Sandbox are blocks, tested below)."""
    seen = {str(want["type"]) for _, want in _cases("ok")}
    all_types = {cls.__name__ for cls in items.Item.__args__}
    assert all_types - seen == {"OrderLine", "Press", "Diary", "Sandbox"}


# --- a whole message ------------------------------------------------------------------------------------------------


def test_lines_numbered_stripped_and_blank_lines_skipped() -> None:
    body = parse_body("\n  SIGNON Fmygame secret  \n\n\tF bre - mao\t\n   \nA par - bur\nREADY\n")
    assert body.problems == ()
    assert body.items == (
        SignOn(2, "SIGNON Fmygame secret", "F", "mygame", "secret", True, ("Fmygame", "secret")),
        OrderLine(4, "F bre - mao"),
        OrderLine(6, "A par - bur"),
        Ready(7, "READY", True),
    )


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings(newline: str) -> None:
    body = parse_body(newline.join(["CLEAR", "", "F bre - mao", "HELP"]))
    assert body.items == (Clear(1, "CLEAR"), OrderLine(3, "F bre - mao"), Help(4, "HELP"))


def test_mixed_line_endings_count_one_line_each() -> None:
    body = parse_body("a\r\nb\rc\nd")
    assert _texts(body) == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]


def test_byte_order_mark_is_ignored() -> None:
    assert parse_body("\ufeffREADY").items == (Ready(1, "READY", True),)


def test_items_keep_message_order_and_problems_are_sorted() -> None:
    body = parse_body("JOIN x\nF bre - mao\nDRAW\nREADY now\nRESIGN")
    assert [type(i).__name__ for i in body.items] == ["OrderLine", "Draw", "Resign"]
    assert [p.line for p in body.problems] == [1, 4]


def test_items_are_frozen() -> None:
    item = parse_body("READY").items[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.ready = False  # type: ignore[misc, union-attr]


# --- press ----------------------------------------------------------------------------------------------------------


def test_press_to_powers_keeps_the_body_verbatim() -> None:
    text = (
        "F bre - mao\nPRESS TO France, Germany\n\nDear France,\n  RESIGN is not what I mean.\n\n"
        "> a quote in press\nSIGNOFF\nENDSANDBOX\nJOIN x\nendpress\nREADY\n"
    )
    body = parse_body(text)
    assert body.problems == ()
    assert body.items == (
        OrderLine(1, "F bre - mao"),
        Press(
            2,
            "PRESS TO France, Germany",
            ("France", "Germany"),
            "Dear France,\n  RESIGN is not what I mean.\n\n> a quote in press\nSIGNOFF\nENDSANDBOX\nJOIN x",
        ),
        Ready(12, "READY", True),
    )


@pytest.mark.parametrize(
    "header,to",
    [
        ("PRESS TO France", ("France",)),
        ("press to france germany", ("france", "germany")),
        ("PRESS TO: England;Russia", ("England", "Russia")),
        ("PRESS France, Turkey", ("France", "Turkey")),
        ("Press To USSR", ("USSR",)),
    ],
)
def test_press_recipients_as_written(header: str, to: tuple[str, ...]) -> None:
    body = parse_body(f"{header}\nhello\nENDPRESS")
    assert body.items == (Press(1, header, to, "hello"),)


def test_broadcast_and_end_press_in_two_words() -> None:
    body = parse_body("Broadcast\nHello, everyone.\n  END   PRESS  \nCLEAR")
    assert body.problems == ()
    assert body.items == (Press(1, "Broadcast", None, "Hello, everyone."), Clear(4, "CLEAR"))


def test_blank_lines_around_the_press_text_are_dropped() -> None:
    body = parse_body("PRESS TO France\n\n \nhi\n\nthere\n\n   \n\nENDPRESS")
    assert body.items == (Press(1, "PRESS TO France", ("France",), "hi\n\nthere"),)


def test_trailing_whitespace_in_press_is_dropped_but_tabs_inside_kept() -> None:
    body = parse_body("BROADCAST\n\ta\tb   \nENDPRESS")
    assert body.items == (Press(1, "BROADCAST", None, "\ta\tb"),)


def test_press_without_endpress_runs_to_the_end_and_is_kept() -> None:
    body = parse_body("READY\nPRESS TO Italy\nlet us talk\nREADY\n")
    assert body.items == (Ready(1, "READY", True), Press(2, "PRESS TO Italy", ("Italy",), "let us talk\nREADY"))
    assert _reasons(body) == [
        (2, "PRESS without ENDPRESS: the press ran to the end of the message; end it with a line ENDPRESS")
    ]


def test_broadcast_without_endpress_stops_at_the_signature() -> None:
    body = parse_body("BROADCAST\nhi\n-- \nAlice, alice@example.org\n")
    assert body.items == (Press(1, "BROADCAST", None, "hi"),)
    assert "BROADCAST without ENDPRESS" in body.problems[0].reason


def test_forgotten_endpress_never_sends_the_quoted_message() -> None:
    text = (
        "PRESS TO France\nyes, agreed\nOn Mon, 30 Nov 2026 at 10:00, Germany <de@judge.example> wrote:\n"
        "PRESS TO Germany\nsecret plan\nENDPRESS\n"
    )
    body = parse_body(text)
    assert body.items == (Press(1, "PRESS TO France", ("France",), "yes, agreed"),)
    assert len(body.problems) == 1


@pytest.mark.parametrize(
    "header,words",
    [
        ("PRESS", "PRESS needs the powers it goes to: PRESS TO France, Germany"),
        ("PRESS TO", "PRESS needs the powers it goes to"),
        ("PRESS TO France, 1", "'1' is not a power name"),
        ("BROADCAST now", "BROADCAST takes nothing after it"),
    ],
)
def test_malformed_press_header_swallows_its_block(header: str, words: str) -> None:
    body = parse_body(f"{header}\nRESIGN\nCLEAR\nENDPRESS\nREADY")
    assert body.items == (Ready(5, "READY", True),)  # RESIGN and CLEAR are inside the press, not commands
    assert len(body.problems) == 1
    assert body.problems[0].line == 1 and words in body.problems[0].reason
    assert header.startswith("BROADCAST") or "this press was not sent" in body.problems[0].reason


def test_empty_press_is_a_problem() -> None:
    body = parse_body("PRESS TO France\n\n  \nENDPRESS")
    assert body.items == ()
    assert _reasons(body) == [(1, "this press is empty and was not sent; put the text between PRESS and ENDPRESS")]


def test_press_with_an_unreadable_line_is_not_sent() -> None:
    body = parse_body("PRESS TO France\nfine\nbad\x00line\nENDPRESS\nREADY")
    assert body.items == (Ready(5, "READY", True),)
    assert [p.line for p in body.problems] == [1, 3]
    assert body.problems[0].reason == "this press was not sent because line 3 in it could not be read"
    assert "control characters" in body.problems[1].reason


def test_press_cut_by_the_line_limit_is_not_sent() -> None:
    body = parse_body("PRESS TO France\n" + "line\n" * 10 + "ENDPRESS\n", max_lines=5)
    assert body.items == ()
    assert [p.line for p in body.problems] == [1, 1, 6]
    reasons = {p.reason for p in body.problems}
    assert "this press was not sent because line 6 in it could not be read" in reasons
    assert any(r.startswith("PRESS without ENDPRESS") for r in reasons)


# --- sandbox --------------------------------------------------------------------------------------------------------

SANDBOX_BODY = "variant classic phase S1901M\nEngland: F nth, A lon\nORDERS\nEngland: F nth - nwy\nENDPRESS"


def test_sandbox_block() -> None:
    body = parse_body(f"sandbox\n{SANDBOX_BODY}\nENDSANDBOX\nHELP")
    assert body.problems == ()
    assert body.items == (Sandbox(1, "sandbox", SANDBOX_BODY), Help(8, "HELP"))


def test_sandbox_end_in_two_words_and_without_end() -> None:
    assert parse_body("SANDBOX\nORDERS\nEnd Sandbox").items == (Sandbox(1, "SANDBOX", "ORDERS"),)
    body = parse_body("SANDBOX\nORDERS\nEngland: F nth - nwy")
    assert body.items == (Sandbox(1, "SANDBOX", "ORDERS\nEngland: F nth - nwy"),)
    assert _reasons(body) == [
        (1, "SANDBOX without ENDSANDBOX: the sandbox ran to the end of the message; end it with a line ENDSANDBOX")
    ]


def test_sandbox_problems() -> None:
    body = parse_body("SANDBOX coldwar\nORDERS\nENDSANDBOX")
    assert body.items == () and "SANDBOX takes nothing after it" in body.problems[0].reason
    body = parse_body("SANDBOX\nENDSANDBOX")
    assert body.items == () and "this sandbox is empty and was not run" in body.problems[0].reason


# --- the end of the message: SIGNOFF, signature, quoting ------------------------------------------------------------


def test_signoff_ends_the_message() -> None:
    body = parse_body("READY\nSIGNOFF\nRESIGN\nJOIN x\n")
    assert body.items == (Ready(1, "READY", True), SignOff(2, "SIGNOFF"))
    assert body.problems == ()


def test_signoff_with_words_is_a_problem_and_still_ends_the_message() -> None:
    body = parse_body("SIGNOFF thanks\nRESIGN")
    assert body.items == ()
    assert _reasons(body) == [(1, "SIGNOFF takes nothing after it: write SIGNOFF alone on its line")]


@pytest.mark.parametrize("separator", ["-- ", "--", "  --  "])
def test_signature_ends_the_message(separator: str) -> None:
    body = parse_body(f"F bre - mao\n{separator}\nRESIGN\nAlice")
    assert body.items == (OrderLine(1, "F bre - mao"),)
    assert body.problems == ()


def test_double_dash_in_an_order_is_not_a_signature() -> None:
    assert _texts(parse_body("A par -- bur\n---\nREADY")) == [(1, "A par -- bur"), (2, "---"), (3, "READY")]


def test_quoted_lines_are_skipped() -> None:
    body = parse_body("> RESIGN\nREADY\n>> JOIN x\n  > CLEAR\nF bre - mao")
    assert body.items == (Ready(2, "READY", True), OrderLine(5, "F bre - mao"))


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, 30 Nov 2026 at 10:00, Alice <a@x> wrote:",
        "On 30/11/2026 10:00, judge@example.org wrote:",
        "On Monday, November 30, 2026, Judge <judge@example.org> writes:",
        "30.11.2026 10:00, Alice пишет:",
        "В понедельник, 30 ноября 2026 г. в 10:00 Alice <a@x> написал:",
        "30 ноября 2026 г., в 10:00, Алиса <a@x> написала:",
        "30.11.2026, 10:00, Alice написал(а):",
        "пн, 30 нояб. 2026 г. в 10:00, Judge <judge@example.org>:",
        "Am 30.11.2026 um 10:00 schrieb Alice <a@x>:",
        "Le 30/11/2026 à 10:00, Alice a écrit :",
        "-----Original Message-----",
        "----- Original Message -----",
        "-----Исходное сообщение-----",
    ],
)
def test_attribution_ends_the_message(attribution: str) -> None:
    body = parse_body(f"F bre - mao\n{attribution}\nRESIGN\n> CLEAR\nREADY")
    assert body.items == (OrderLine(1, "F bre - mao"),)
    assert body.problems == ()


def test_wrapped_attribution_is_dropped_whole() -> None:
    body = parse_body("READY\nOn Mon, 30 Nov 2026 at 10:00, Alice Long Name <\nalice@example.org> wrote:\n> RESIGN")
    assert body.items == (Ready(1, "READY", True),)


def test_wrapped_attribution_after_an_open_press_is_not_press() -> None:
    body = parse_body("BROADCAST\nhello\nOn Mon, 30 Nov 2026 at 10:00, Alice Long Name <\nalice@example.org> wrote:\n")
    assert body.items == (Press(1, "BROADCAST", None, "hello"),)


def test_quoted_attribution_does_not_end_the_message() -> None:
    body = parse_body("> On Mon, 30 Nov 2026 at 10:00, Alice <a@x> wrote:\n> > x\nREADY")
    assert body.items == (Ready(3, "READY", True),)


def test_a_line_ending_in_wrote_without_date_or_address_is_read() -> None:
    body = parse_body("Germany wrote:\nREADY")
    assert _texts(body) == [(1, "Germany wrote:"), (2, "READY")]


# --- limits and garbage ---------------------------------------------------------------------------------------------


def test_too_many_lines_stops_with_one_problem() -> None:
    body = parse_body("F bre - mao\n" * 450, max_lines=400)
    assert len(body.items) == 400 and body.items[-1].line == 400
    assert _reasons(body) == [
        (401, "the message has more than 400 lines; the judge read the first 400 and none from here on")
    ]


def test_line_limit_is_a_parameter_and_counts_blank_lines() -> None:
    body = parse_body("READY\n\n\nCLEAR\nHELP", max_lines=3)
    assert body.items == (Ready(1, "READY", True),)
    assert [(p.line, p.text) for p in body.problems] == [(4, "CLEAR")]


def test_limit_problem_names_the_first_unread_line_with_text() -> None:
    body = parse_body("READY\r\nCLEAR\r\n\r\n   \r\n  HELP  \r\nRESIGN", max_lines=2)
    assert [(p.line, p.text) for p in body.problems] == [(5, "HELP")]


@pytest.mark.parametrize("newline", ["\n", "\r", "\r\n"])
def test_limit_problem_line_number_with_any_line_ending(newline: str) -> None:
    body = parse_body(newline.join(["READY", "", "", "", "CLEAR"]), max_lines=1)
    assert [(p.line, p.text) for p in body.problems] == [(5, "CLEAR")]


def test_only_blank_lines_beyond_the_limit_is_no_problem() -> None:
    body = parse_body("READY\nCLEAR\n\n   \n\t\n", max_lines=2)
    assert len(body.items) == 2 and body.problems == ()


def test_message_ending_before_the_limit_is_no_problem() -> None:
    body = parse_body("READY\n-- \n" + "x\n" * 1000)
    assert body.items == (Ready(1, "READY", True),) and body.problems == ()


def test_long_line_is_a_problem_with_a_short_excerpt() -> None:
    body = parse_body("READY\n" + "A" * 1001 + "\nCLEAR\n" + "B" * 1000)
    assert body.items == (Ready(1, "READY", True), Clear(3, "CLEAR"), OrderLine(4, "B" * 1000))
    assert [p.line for p in body.problems] == [2]
    problem = body.problems[0]
    assert problem.text == "A" * 60 + "…"
    assert problem.reason.startswith("this line is longer than 1000 characters")


def test_line_length_is_a_parameter_and_measured_after_stripping() -> None:
    body = parse_body("   READY   \nCLEAR ALL", max_line_length=5)
    assert body.items == (Ready(1, "READY", True),)
    assert [p.line for p in body.problems] == [2]


@pytest.mark.parametrize("bad", ["\x00", "\x07", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\u2028"])
def test_control_characters_are_a_problem(bad: str) -> None:
    body = parse_body(f"READY\nF bre{bad} - mao\nCLEAR")
    assert body.items == (Ready(1, "READY", True), Clear(3, "CLEAR"))
    assert len(body.problems) == 1
    problem = body.problems[0]
    assert problem.line == 2 and "control characters" in problem.reason
    assert problem.text == "F bre\ufffd - mao"  # safe to quote back in a reply


def test_tab_and_non_breaking_space_are_whitespace() -> None:
    assert parse_body("SIGNON\tFrance\u00a0mygame  secret").items == (
        SignOn(1, "SIGNON\tFrance mygame  secret", "France", "mygame", "secret", False),
    )


def _check_invariants(text: str, body: ParsedBody) -> None:
    """Every item and problem points at a real line, and a one-line item's text is that line stripped."""
    lines = re.split(r"\r\n|\r|\n", text.removeprefix("\ufeff"))
    for item in body.items:
        assert 1 <= item.line <= len(lines)
        # the text is the line stripped, with invisible characters and a list marker or PGP dash-escape removed
        assert item.text in tidy(lines[item.line - 1]).strip()
    for problem in body.problems:
        assert 1 <= problem.line <= len(lines)
        assert isinstance(problem.reason, str) and problem.reason
        assert len(problem.text) <= 1000


_ALPHABET = (
    list("abcXYZ019 -_/:,;>@()\t")
    + ["\n", "\r\n", "\r", "\x00", "\x1b", "\x85", "\u2028", "\ufeff", "é", "Я", "\U0001f600", "\udcff"]
    + [
        f" {w} "
        for w in (
            "SIGNON",
            "PRESS TO",
            "ENDPRESS",
            "BROADCAST",
            "SANDBOX",
            "ENDSANDBOX",
            "SIGNOFF",
            "READY",
            "NOT",
            "JOIN",
            "SET",
            "HISTORY",
            "DRAW",
            "wrote:",
            "--",
            "On ",
        )
    ]
)


@pytest.mark.parametrize("seed", range(200))
def test_random_garbage_never_raises(seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(0, 400)))
    body = parse_body(text, max_lines=rng.choice([1, 5, 400]), max_line_length=rng.choice([10, 1000]))
    _check_invariants(text, body)


_HUGE: dict[str, Callable[[], str]] = {
    "one 10 MB line": lambda: "A par - bur " * 850_000,
    "10 MB of newlines": lambda: "\n" * 10_000_000,
    "10 MB of newlines, then text": lambda: "\r\n" * 5_000_000 + "READY",
    "10 MB of short lines": lambda: "F bre - mao\n" * 900_000,
    "10 MB of binary": lambda: bytes(range(256)).decode("latin-1") * 40_000,
    "10 MB of at-signs and dashes": lambda: ("@" * 499 + "-" * 499 + ":\n") * 10_000,
    "an open press of 10 MB": lambda: "PRESS TO France\n" + "x" * 10_000_000,
}


@pytest.mark.parametrize("name", sorted(_HUGE))
def test_huge_input_is_bounded(name: str) -> None:
    # speed is not asserted here (no timed tests); the limits keep what is read and echoed small
    body = parse_body(_HUGE[name]())
    assert len(body.items) <= 1000 and len(body.problems) <= 1002
    assert all(len(p.text) <= 61 for p in body.problems)


def test_huge_input_keeps_the_facts() -> None:
    body = parse_body("\r\n" * 5_000_000 + "READY")
    assert body.items == () and [(p.line, p.text) for p in body.problems] == [(5_000_001, "READY")]
    body = parse_body("x" * 10_000_000)
    assert body.items == () and body.problems[0].text == "x" * 60 + "…"


# --- the documentation --------------------------------------------------------------------------------------------


def test_examples_in_the_docs_read_without_problems() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "commands.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(.*?)```", doc, re.DOTALL)
    assert len(blocks) >= 6
    for block in blocks:
        assert parse_body(block).problems == (), block
    example = parse_body(blocks[-1])
    assert [type(i).__name__ for i in example.items] == [
        "SignOn",
        "OrderLine",
        "OrderLine",
        "OrderLine",
        "Press",
        "Ready",
        "SignOff",
    ]


# --- purity ---------------------------------------------------------------------------------------------------------


_LANGUAGE_MODULES = [items, arguments, grammar, set_grammar, master_grammar, body]


@pytest.mark.parametrize("module", _LANGUAGE_MODULES, ids=lambda m: m.__name__)
def test_module_is_pure(module: Any) -> None:
    """Standard library text handling only (and the phase codes of the rules engine, and the command language's own
    modules): no I/O, clock or printing."""
    path = Path(module.__file__)
    allowed = {m.__name__ for m in _LANGUAGE_MODULES} | {
        "__future__",
        "re",
        "dataclasses",
        "typing",
        "collections.abc",
        "itertools",
        "enum",
        "judge.rules.phase",
        "judge.rules.words",
        "judge.facts",
        "datetime",  # dates as values (SET ABSENCE); never the clock, checked below
    }
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert {a.name for a in node.names} <= allowed, node.lineno
        elif isinstance(node, ast.ImportFrom):
            assert node.module in allowed, node.lineno
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in {"print", "open", "input", "exec", "eval"}, node.lineno
        elif isinstance(node, ast.Attribute):
            assert node.attr not in {"now", "today", "utcnow"}, node.lineno


def test_join_and_resign_types_exported() -> None:
    """The names the game server imports exist with the documented fields."""
    assert [f.name for f in dataclasses.fields(Join)] == ["line", "text", "game", "password", "preferences"]
    assert [f.name for f in dataclasses.fields(SignOn)] == [
        "line",
        "text",
        "power",
        "game",
        "password",
        "initial",
        "bare",
    ]
    assert [f.name for f in dataclasses.fields(Press)] == ["line", "text", "to", "body", "shade", "postal"]
    assert [f.name for f in dataclasses.fields(LineProblem)] == ["line", "text", "reason"]
    assert [f.name for f in dataclasses.fields(Resign)] == ["line", "text"]


# --- real mail: what is read and what is skipped --------------------------------------------------------------------

_READING = [
    # (body, the item texts read)
    ("Thanks!\nREADY\nA par - bur", ["Thanks!", "READY", "A par - bur"]),  # a closing line before anything is read
    ("READY\nThanks!\nA mar - spa", ["READY", "Thanks!", "A mar - spa"]),  # orders after it: not a signature
    ("READY\n\nCheers,\nAlice\nParis\n\nOn Mon, 30 Nov 2026, J <j@x.org> wrote:\n> CLEAR", ["READY"]),
    ("READY\nViele Grüße\nAlice", ["READY"]),
    ("READY\nС уважением,\nАлиса", ["READY"]),
    ("READY\nSent from my iPhone\nCLEAR", ["READY", "CLEAR"]),  # footers are skipped wherever they are
    (
        "READY\nVon meinem iPhone gesendet\nGet Outlook for iOS\nEnvoyé de mon iPad\nОтправлено с iPhone\nCLEAR",
        ["READY", "CLEAR"],
    ),
    ("READY\nFrom: Judge <j@x.org>\nSent: Monday\nTo: a@x.org\nSubject: Re: x\n\nCLEAR", ["READY"]),
    ("READY\nVon: Judge <j@x.org>\nGesendet: Montag\nAn: a@x.org\nBetreff: AW: x\nCLEAR", ["READY"]),
    ("READY\n*From:* Judge <j@x.org> *Sent:* Monday *To:* a *Subject:* x\nCLEAR", ["READY"]),
    ("READY\nDe : Judge\nEnvoyé : lundi\nÀ : a\nObjet : x\nCLEAR", ["READY"]),
    ("READY\nFrom: a friend of mine\nCLEAR", ["READY", "From: a friend of mine", "CLEAR"]),  # no header block
    ("READY\n________________________________\nCLEAR", ["READY"]),
    ("READY\n----- Ursprüngliche Nachricht -----\nCLEAR", ["READY"]),
    ("READY\n[judge-mail] Mail from the Diplomacy judge\nCLEAR", ["READY"]),
    ("READY\n> [judge-mail] Mail from the Diplomacy judge\nCLEAR", ["READY", "CLEAR"]),  # quoted: skipped only
    ("On Mon, 30 Nov 2026 at 10:00, J <j@x.org> wrote:\n> old\n\nREADY\n> older\nCLEAR", ["READY", "CLEAR"]),
    ("Am 30.11.2026 10:00, schrieb Judge:\n> old\nREADY", ["READY"]),
    ("El lun, 30 nov 2026 a las 10:00, Judge (<j@x.org>) escribió:\n> old\nREADY", ["READY"]),
    (
        "- A vie - tri\n* F tri - adr\n• A bud - ser\n1. F ank - bla\n2) A con - bul",
        ["A vie - tri", "F tri - adr", "A bud - ser", "F ank - bla", "A con - bul"],
    ),
    ("RE\u200bADY\n\ufeffCLEAR\nA\u00a0par - bur", ["READY", "CLEAR", "A par - bur"]),
    (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nREADY\n- - A par - bur\n- -- \nCLEAR\n"
        "-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\nHELP",
        ["READY", "A par - bur"],
    ),
    ("READY\n---------- Forwarded message ---------\nFrom: x\nCLEAR", ["READY"]),
    ("READY\nBegin forwarded message:\n\nCLEAR", ["READY"]),
    ("READY\nOn Tue, Dec 1, 2026 at 10:00 AM Judge <j@x.org>\nwrote:\n> old\nCLEAR", ["READY", "CLEAR"]),
    ("den - swe\nOn Mon, 30 Nov 2026 at 10:00, J <j@x.org> wrote:\n> old", ["den - swe"]),
    ("READY\nAm Di., 1. Dez. 2026 um 10:00 Uhr schrieb Judge <j@x.org>:\n> old\nCLEAR", ["READY", "CLEAR"]),
    ("READY\nIl giorno mar 1 dic 2026 alle ore 10:00 Judge <j@x.org> ha scritto:\n> old\nCLEAR", ["READY", "CLEAR"]),
    ("READY\nVerstuurd vanaf mijn iPhone\nCLEAR", ["READY", "CLEAR"]),
]


def test_a_closing_line_inside_a_press_is_press() -> None:
    body = parse_body("READY\nPRESS TO Germany\nLet us be friends.\nCheers,\nFrançoise\nENDPRESS\nCLEAR\nThanks\nF.")
    assert body.items == (
        Ready(1, "READY", True),
        Press(2, "PRESS TO Germany", ("Germany",), "Let us be friends.\nCheers,\nFrançoise"),
        Clear(7, "CLEAR"),
    )
    assert body.problems == ()


@pytest.mark.parametrize("body,read", _READING, ids=range(len(_READING)))
def test_real_mail_reading(body: str, read: list[str]) -> None:
    parsed = parse_body(body)
    assert [item.text for item in parsed.items] == read
    assert parsed.problems == ()


def test_forwards_and_quoted_mail_are_flagged() -> None:
    assert parse_body("READY\n---------- Forwarded message ---------\nCLEAR").forwarded
    assert parse_body("READY\n-----Original Message-----\nCLEAR").quoted_mail
    plain = parse_body("READY\nCLEAR")
    assert not plain.forwarded and not plain.quoted_mail


def test_an_encrypted_message_is_a_problem() -> None:
    parsed = parse_body("-----BEGIN PGP MESSAGE-----\n\nhQEMA\n-----END PGP MESSAGE-----\nREADY")
    assert [i.text for i in parsed.items] == ["READY"]
    assert "encrypted (PGP) message cannot be read" in parsed.problems[0].reason
