"""The host's own variants and templates (``[judge] variants_dir``, ``templates_dir``, ``--variant PATH``), and a
variant schema strict enough that no misspelling silently changes a game."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge import config
from judge.cli import main
from judge.data import resources
from judge.data.resources import data_dir

CLASSIC = (data_dir("variants") / "classic.toml").read_text()


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A host folder with its own variants and templates and a judge.toml naming them (relative paths)."""
    monkeypatch.chdir(tmp_path)
    for name in ("JUDGE_CONFIG", "JUDGE_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "none.toml")
    (tmp_path / "variants").mkdir()
    (tmp_path / "variants" / "mini.toml").write_text(CLASSIC.replace('name = "Classic"', 'name = "Mini Europe"'))
    (tmp_path / "variants" / "classic.toml").write_text(
        CLASSIC.replace('name = "Classic"', 'name = "Host Classic"').replace(
            "solo = 18                # more than half of the 34 centres",
            'solo = "half"\nby_year = { 1905 = 16 }\nlast_year = 1910\ntie_break = ["France", "England"]\n'
            'tie_others = "play-on"',
        )
    )
    (tmp_path / "templates" / "en").mkdir(parents=True)
    (tmp_path / "templates" / "en" / "announcement.txt.j2").write_text(
        "Subject: [our club] {{ game.name }}: {{ what }}\nOur club's own words: {{ what }}.\n"
    )
    (tmp_path / "judge.toml").write_text("""
[judge]
address = "judge@club.test"
db = "games.db"
variants_dir = "variants"
templates_dir = "templates"
[imap]
host = "127.0.0.1"
username = "judge"
password = "imap-secret"
[smtp]
host = "127.0.0.1"
""")
    (tmp_path / "judge.toml").chmod(0o600)  # it holds a password
    yield tmp_path
    resources.set_host_dirs()  # later tests in this process see only the shipped files


def test_host_variants_beside_the_shipped_ones_and_winning_a_clash(host: Path, capsys) -> None:
    assert main(["variant", "list"]) == 0
    out = capsys.readouterr().out
    lines = {line.split("\t")[0]: line for line in out.splitlines()}
    assert {"classic", "coldwar", "mini", "chaos", "france_austria"} <= set(lines)
    assert "Host Classic (host:" in lines["classic"] and "Mini Europe (host:" in lines["mini"]
    assert "Cold War (shipped)" in lines["coldwar"]
    assert "solo at 18 (more than half of 34 centres)" in lines["classic"]
    assert "from 1905: 16" in lines["classic"] and "last year 1910" in lines["classic"]
    assert "France > England" in lines["classic"] and "a tie among the others plays on" in lines["classic"]
    assert "solo at 18 (2/3 of 27 centres, rounded up)" in lines["coldwar"]
    assert main(["game", "create", "g", "--variant", "mini"]) == 0
    assert main(["game", "create", "h"]) == 0
    capsys.readouterr()
    assert main(["game", "list"]) == 0
    listed = capsys.readouterr().out
    assert "mini" in listed and "classic" in listed


def test_host_templates_win(host: Path) -> None:
    from judge.store import open_db

    assert main(["game", "create", "g"]) == 0
    for i, power in enumerate(("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")):
        assert main(["game", "join", "g", "--power", power, "--email", f"p{i}@p.test", "--password", "secret"]) == 0
    assert main(["game", "start", "g"]) == 0
    assert main(["game", "pause", "g"]) == 0
    rows = list(open_db(host / "games.db").query("select subject, body, html from outbox"))
    paused = [r for r in rows if "paused" in r["subject"]]
    assert paused and all(r["subject"].startswith("[our club] g") for r in paused)
    assert "Our club's own words" in paused[0]["body"]
    started = [r for r in rows if "has started" in r["subject"]]
    assert started and started[0]["html"]  # the shipped templates still serve everything the host did not replace


def test_variant_by_path(host: Path, capsys, tmp_path: Path) -> None:
    path = host / "elsewhere" / "island.toml"
    path.parent.mkdir()
    path.write_text(CLASSIC.replace('name = "Classic"', 'name = "Island"'))
    assert main(["game", "create", "g", "--variant", str(path)]) == 0
    assert main(["game", "create", "bad", "--variant", str(host / "nosuch.toml")]) == 1
    assert "no variant file" in capsys.readouterr().err
    assert main(["game", "show", "g", "--json"]) == 0
    assert str(path) in capsys.readouterr().out  # the game keeps its file by the absolute path
    assert main(["variant", "check", str(path)]) == 0
    assert "Island" in capsys.readouterr().out


BROKEN = [
    (
        'bel = { name = "Belgium", kind = "coast", centre = true',
        'bel = { name = "Belgium", kind = "coast", centr = true',
        "province bel: unknown key 'centr'; did you mean 'centre'?",
        "centr =",
    ),
    (
        'bel = { name = "Belgium", kind = "coast", centre = true',
        'bel = { name = "Belgium", kind = "coast", centre = "yes"',
        "province bel: centre must be true or false, not 'yes'",
        'centre = "yes"',
    ),
    (
        'bel = { name = "Belgium", kind = "coast", centre = true',
        'bel = { name = "Belgium", kind = "land", centre = true, aliases = "belg"',
        "province bel: aliases must be a list",
        'aliases = "belg"',
    ),
    (
        "solo = 18 ",
        "solo = 18\nby_year = { 1890 = 50 }\n",
        "[victory.by_year] 1890: before the start year 1901",
        "by_year",
    ),
    ("solo = 18 ", "solo = 18\nby_year = { 1905 = 50 }\n", "1905 = 50: more than the 34 centres", "by_year"),
    ("solo = 18 ", "solo = 18\nlast_year = 1800\n", "last_year 1800 must be after the start year 1901", "last_year"),
    (
        "solo = 18 ",
        "solo = 18\nlast_year = 1910\nby_year = { 1915 = 10 }\n",
        "1915: after the last year 1910",
        "by_year",
    ),
    (
        "solo = 18 ",
        'solo = 18\nlast_year = 1910\ntie_break = ["France"]\n',
        "tie_break does not name Austria",
        "tie_break",
    ),
    (
        "solo = 18 ",
        'solo = 18\nlast_year = 1910\ntie_break = ["Frnace"]\ntie_others = "play-on"\n',
        "'Frnace' is not one of the powers; did you mean 'France'?",
        "tie_break",
    ),
    ("solo = 18 ", 'solo = 18\ntie_others = "coin"\n', "tie_others must be one of play-on", "tie_others"),
    ("solo = 18 ", "solo = true\n", "solo must be a number", "solo = true"),
    ("solo = 18 ", "solo = 18\nsol = 17\n", "[victory] unknown key 'sol'; did you mean 'solo'?", "sol = 17"),
    ("[start]\nyear = 1901", '[start]\nyear = "1901"', "[start] year must be a whole number", 'year = "1901"'),
    ("[start]\nyear = 1901", "[start]\nyaer = 1901\nyear = 1901", "[start] unknown key 'yaer'", "yaer"),
    ('name = "Classic"', 'name = "Classic"\npowrs = []', "unknown key 'powrs'; did you mean 'powers'?", "powrs"),
    (
        'bel = { name = "Belgium"',
        'bel = { name = "Belgium", kind = "coast" }\nbel = { name = "Belgium"',
        "province 'bel' is given twice",
        'bel = { name = "Belgium" }',
    ),
]


@pytest.mark.parametrize("old,new,expected,on_line", BROKEN, ids=[b[2][:40] for b in BROKEN])
def test_the_variant_schema_is_strict(tmp_path: Path, capsys, old: str, new: str, expected: str, on_line: str) -> None:
    assert old in CLASSIC
    text = CLASSIC.replace(old, new, 1)
    path = tmp_path / "broken.toml"
    path.write_text(text)
    assert main(["variant", "check", str(path)]) == 1
    out = capsys.readouterr().out
    line = next((x for x in out.splitlines() if expected in x), None)
    assert line is not None, out
    number = int(line.split("line ")[1].split(":")[0])  # the problem names its line, and it is the right one
    assert on_line.split(" ")[0] in text.splitlines()[number - 1], (line, text.splitlines()[number - 1])


def test_check_shows_every_victory_setting(tmp_path: Path, capsys) -> None:
    path = tmp_path / "v.toml"
    path.write_text(
        CLASSIC.replace(
            "solo = 18 ",
            'solo = "2/3"\nby_year = { 1905 = 16, 1910 = 14 }\n'
            "last_year = 1912\n"
            'tie_break = ["Turkey", "Austria", "England", "France", "Germany", '
            '"Italy", "Russia"]\n',
        )
    )
    assert main(["variant", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "solo at 23 (2/3 of 34 centres, rounded up)" in out
    assert "from 1905: 16, 1910: 14" in out and "last year 1912" in out
    assert "Turkey > Austria > England" in out and "others" not in out


_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3000, 3000),
    st.text(max_size=8),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "start", "victory", "provinces.bel", "provinces.par", "army", "units"]),
            st.sampled_from(
                [
                    "name",
                    "kind",
                    "centre",
                    "home",
                    "coasts",
                    "aliases",
                    "at",
                    "year",
                    "season",
                    "solo",
                    "by_year",
                    "last_year",
                    "tie_break",
                    "tie_others",
                    "powers",
                    "bel",
                    "France",
                    "centr",
                    "zzz",
                ]
            ),
            _values.filter(lambda v: v is not None),
        ),
        max_size=4,
    )
)
def test_any_change_to_a_variant_loads_or_says_why(changes: list) -> None:
    import tomllib

    from judge.rules.variant import VariantError, variant_from_data

    data = tomllib.loads(CLASSIC)
    for where, key, value in changes:
        table = data
        for part in [p for p in where.split(".") if p]:
            table = table[part] if isinstance(table.get(part), dict) else table.setdefault(part, {})
        if isinstance(table, dict):
            table[key] = value
    try:
        variant_from_data(data, "x")
    except VariantError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
