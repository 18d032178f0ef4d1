"""The rules edition named where a player or host reads a game's rules (issue 21): GET RULES, `judge game show`,
and the text SANDBOX by mail, which takes a ``rules`` header line (``rules datc-3``) and names the edition it played
by, in English, Russian and German."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gamekit import Table
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from judge.commands.sandbox_reply import header_line, sandbox_input

EDITION_LINE = {
    ("en", "2000"): "Rules edition: 2000 (the 2000 rulebook, as DATC v2.4 prefers)",
    ("en", "datc-3"): "Rules edition: datc-3 (the changes of DATC v3.0:",
    ("ru", "2000"): "Редакция правил: 2000 (правила 2000 года, как их толкует DATC v2.4)",
    ("ru", "datc-3"): "Редакция правил: datc-3 (изменения DATC v3.0:",
    ("de", "2000"): "Regelfassung: 2000 (die Regeln von 2000, wie DATC v2.4 sie auslegt)",
    ("de", "datc-3"): "Regelfassung: datc-3 (die Änderungen von DATC v3.0:",
}
SHORT = {"en": "Rules edition: {}", "ru": "Редакция правил: {}", "de": "Regelfassung: {}"}
READER = {"en": "france@p.test", "ru": "russia@p.test", "de": "germany@p.test"}

# DATC 6.G.19 (as tests/test_editions.py): the French convoy order is needed for no route; datc-3 voids it
G19 = """SANDBOX
{header}
France: A mar, F wes
Italy: F lyo, A spa
ORDERS
France: A Marseilles - Spain
France: F Western Mediterranean Convoys A Marseilles - Spain
Italy: F Gulf of Lyon Convoys A Marseilles - Spain
Italy: A Spain - Marseilles
ENDSANDBOX"""


def _game(tmp_path: Path, rules: str) -> Table:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--rules", rules, reuse=True)
    t.reply("russia@p.test", "SIGNON Russia g pw-Russia\nSET LANGUAGE ru")
    t.reply("germany@p.test", "SIGNON Germany g pw-Germany\nSET LANGUAGE de")
    return t


@pytest.mark.parametrize("rules", ["2000", "datc-3"])
def test_get_rules_names_the_games_edition(tmp_path: Path, rules: str) -> None:
    t = _game(tmp_path, rules)
    for language, to in READER.items():
        power = to.split("@")[0].capitalize()
        told = t.reply(to, f"SIGNON {power} g pw-{power}\nGET RULES")
        assert EDITION_LINE[(language, rules)] in told, (language, told)
        other = "datc-3" if rules == "2000" else "2000"
        assert EDITION_LINE[(language, other)] not in told


@pytest.mark.parametrize("rules", ["2000", "datc-3"])
def test_game_show_names_the_edition(tmp_path: Path, capsys: Any, rules: str) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--rules", rules) == 0
    assert t.show("g", capsys)["rules"] == rules
    assert t.cli("game", "show", "g") == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(f"rules edition {rules}"), first


@pytest.mark.parametrize(
    ("header", "edition", "france"),
    [
        ("variant classic phase S1901M", "2000", "A spa, F wes"),  # the default: the armies swap
        ("variant classic phase S1901M rules 2000", "2000", "A spa, F wes"),
        ("rules datc-3 phase S1901M", "datc-3", "A mar, F wes"),  # any order: the convoy is void, they bounce
        ("phase S1901M\nrules DATC-3", "datc-3", "A mar, F wes"),  # a line of its own, any case
    ],
)
def test_the_text_sandbox_plays_and_names_its_edition(tmp_path: Path, header: str, edition: str, france: str) -> None:
    t = _game(tmp_path, "2000")  # its players read English, Russian and German; the game's edition plays no part
    for language, sender in READER.items():
        told = t.reply(sender, G19.format(header=header))
        assert SHORT[language].format(edition) in told, told
        other = "A mar, F wes" if france == "A spa, F wes" else "A spa, F wes"
        assert france in told and other not in told, told  # France's units after the phase


def test_the_text_sandbox_says_which_editions_there_are(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    told = t.reply("a@p.test", G19.format(header="rules 1982"))
    assert 'rules must be "2000" or "datc-3"' in told


def test_sandbox_from_game_refuses_a_rules_line_and_names_the_games(tmp_path: Path) -> None:
    t = _game(tmp_path, "datc-3")
    body = "SANDBOX FROM GAME g\nrules 2000\nORDERS\nFrance: A par - bur\nENDSANDBOX"
    assert "leave out the variant, phase and rules line" in t.reply("a@p.test", body)
    told = t.reply("a@p.test", "SANDBOX FROM GAME g\nORDERS\nFrance: A par - bur\nENDSANDBOX")
    assert "Rules edition: datc-3" in told


keys = st.sampled_from(["variant", "phase", "rules", "VARIANT", "Rules", "map", "orders"])
values = st.one_of(
    st.sampled_from(["classic", "S1901M", "f1902r", "datc-3", "2000", "chaos", "x y", "A par", ""]),
    st.text(max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(keys, values), max_size=4))
def test_a_header_line_is_read_whole_or_not_at_all(pairs: list[tuple[str, str]]) -> None:
    line = " ".join(f"{k} {v}" for k, v in pairs)
    assume(line.splitlines() == [line])  # one line (a SANDBOX block is read line by line)
    found = header_line(line)
    words = line.split()
    if found is None:
        return
    assert words and len(words) == 2 * len(found)  # every word is a key or its value
    assert set(found) <= {"variant", "phase", "rules"}
    for key, value in found.items():
        assert value in words and key in (w.lower() for w in words[0::2])
    data = sandbox_input(line)
    assert ("rules" in data) == ("rules" in found) and "problems" not in data


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_text_is_a_header_line_or_not_without_raising(text: str) -> None:
    found = header_line(text)
    assert found is None or set(found) <= {"variant", "phase", "rules"}
