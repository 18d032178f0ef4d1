"""Issue 13's victory rules, each as a scripted game by mail (plus the pure rule on its own): ties over the automatic
line, a last-year tie, one draw proposal per turn, victory points per place, one player holding two powers."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from gamekit import Table

from judge.data.catalog import variant_from_toml
from judge.data.resources import search_dirs
from judge.game import records
from judge.rules.position_json import position_from_json
from judge.rules.variant import VariantError
from judge.rules.victory import TieOthers, Verdict, Victory

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
HOMES = {
    "Austria": ["bud", "tri", "vie"],
    "England": ["edi", "lon", "lvp"],
    "France": ["bre", "mar", "par"],
    "Germany": ["ber", "kie", "mun"],
    "Italy": ["nap", "rom", "ven"],
    "Russia": ["mos", "sev", "stp", "war"],
    "Turkey": ["ank", "con", "smy"],
}


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str, game: str = "g") -> str:
    return "\n".join([f"SIGNON {power} {game} pw-{power}", *lines])


def board(t: Table, data: dict, name: str = "g") -> None:
    g = records.load_game(t.db, name)
    assert g is not None
    with t.db.atomic():
        g.position = position_from_json(g.variant, data)
        records.save_game(t.db, g, t.now)


def result(t: Table, name: str = "g") -> tuple[str, dict | None]:
    g = records.load_game(t.db, name)
    assert g is not None
    return g.status, g.result


def two_at_17(t: Table) -> None:
    """France and Germany own 17 centres each at Fall 1905 (the others none), one army each, holding."""
    centres = sorted(
        {c for cs in HOMES.values() for c in cs}
        | {"bel", "hol", "den", "nwy", "swe", "spa", "por", "tun", "ser", "rum", "bul", "gre"}
    )
    assert len(centres) == 34
    board(
        t,
        {
            "phase": "F1905M",
            "units": {"France": ["A bre"], "Germany": ["A war"]},
            "supply_centers": {"France": centres[:17], "Germany": centres[17:]},
        },
    )


# --- the rule on its own ---------------------------------------------------------------------------------------------


def test_rule_ties_over_the_line() -> None:
    order = Victory(10, tie_break=("B", "A"))
    assert order.decide({"A": 10, "B": 10}, 20, 1901).winner == "B"
    single = Victory(10)
    assert single.decide({"A": 10, "B": 10}, 20, 1901).verdict is Verdict.PLAY_ON  # the line needs one leader
    assert single.decide({"A": 11, "B": 10}, 20, 1901).winner == "A"  # the one leader above it
    drawn = Victory(10, tie_others=TieOthers.DRAW)
    assert drawn.decide({"A": 10, "B": 10, "C": 0}, 20, 1901).powers == ("A", "B")
    partial = Victory(10, tie_break=("C",), tie_others=TieOthers.PLAY_ON)
    assert partial.decide({"A": 10, "B": 10}, 20, 1901).verdict is Verdict.PLAY_ON


def test_rule_last_year_tie_is_a_draw_never_running_on() -> None:
    rule = Victory(Fraction(1, 1), last_year=1905)
    assert rule.decide({"A": 4, "B": 4, "C": 2}, 20, 1904).verdict is Verdict.PLAY_ON
    out = rule.decide({"A": 4, "B": 4, "C": 2}, 20, 1905)
    assert out.verdict is Verdict.DRAW and out.powers == ("A", "B")
    assert Victory(20, last_year=1905, tie_break=("B", "A")).decide({"A": 4, "B": 4}, 20, 1905).winner == "B"
    on = Victory(20, last_year=1905, tie_others=TieOthers.PLAY_ON)
    assert on.decide({"A": 4, "B": 4}, 20, 1905).verdict is Verdict.PLAY_ON  # declared, not silent
    assert on.decide({"A": 5, "B": 4}, 20, 1906).winner == "A"


def test_rule_points_and_sides() -> None:
    rule = Victory(5, points=((0, 3), (1, 2)))  # province 0 a centre worth 3, province 1 a non-centre worth 2
    centres = frozenset({0, 2, 3})
    assert rule.total(centres) == 3 + 1 + 1 + 2
    assert rule.scores(centres, {0: "A", 2: "B", 3: "B"}, {1: "B", 4: "A"}) == {"A": 3, "B": 4}
    sides = (("A", "C"),)
    out = Victory(6).decide({"A": 3, "B": 5, "C": 3}, 12, 1901, sides)
    assert out.winner == "A"  # the side A+C: 6, named by its first power


# --- variant data and game settings stay strict -------------------------------------------------------------------


def classic_text() -> str:
    return next(d / "classic.toml" for d in search_dirs("variants") if (d / "classic.toml").is_file()).read_text()


@pytest.mark.parametrize(
    "victory, problem",
    [
        ("solo = 17", "at or below half"),
        ("solo = 18\nby_year = { 1905 = 10 }", "at or below half"),
        ("solo = 18\npoints = { par = 3, xyz = 2 }", "not a province"),
        ("solo = 18\npoints = { par = -1 }", "0 or more"),
        ("solo = 18\npoints = { par = 40 }", "at or below half"),
        ('solo = 18\ntie_others = "coin"', "tie_others must be one of"),
        ('solo = 17\ntie_break = ["France"]', "does not name"),
    ],
)
def test_variant_victory_problems(victory: str, problem: str) -> None:
    text = classic_text().replace("solo = 18", victory, 1)
    with pytest.raises(VariantError) as err:
        variant_from_toml(text, "mine")
    assert problem in str(err.value)


def test_variant_half_counts_points() -> None:
    text = classic_text().replace("solo = 18", 'solo = "half"\npoints = { par = 3, bur = 2 }', 1)
    v = variant_from_toml(text, "mine")
    assert v.victory.total(v.centres) == 34 + 2 + 2 and v.solo_threshold(1901) == 20


def test_game_solo_at_half_needs_a_tie_rule(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--solo", "17") != 0
    assert "tie rule" in capsys.readouterr().err
    assert records.load_game(t.db, "g") is None
    assert t.cli("game", "create", "g", "--solo", "17", "--tie-break", "Italy,France") != 0
    assert "does not name" in capsys.readouterr().err  # a partial order says what a tie of the others means
    assert t.cli("game", "create", "g", "--solo", "17", "--tie-break", "Italy,France", "--tie-others", "draw") == 0
    assert t.cli("game", "create", "h", "--solo", "17", "--tie-others", "play-on") == 0
    assert t.cli("game", "create", "k", "--solo", "17", "--tie-break", "england,frnace") != 0
    assert "'frnace' is not one of the powers" in capsys.readouterr().err
    assert t.cli("game", "create", "m", "--solo", "18") == 0
    assert t.cli("game", "settings", "m", "solo", "16") != 0  # the same rule for a later change
    assert t.cli("game", "settings", "m", "tie_others", "draw") == 0
    assert t.cli("game", "settings", "m", "solo", "16") == 0


# --- scripted games by mail ---------------------------------------------------------------------------------------


def test_by_mail_tie_over_the_line_goes_by_the_order(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--solo", "17", "--tie-break", "Germany,France,Austria,England,Italy,Russia,Turkey", reuse=True)
    two_at_17(t)
    t.reply(addr("France"), sign("France", "A bre H"))
    t.reply(addr("Germany"), sign("Germany", "A war H"))
    assert t.cli("game", "process", "g") == 0
    assert result(t) == ("finished", {"kind": "solo", "winner": "Germany"})
    over = [m for m in t.outbox() if m["to_addr"] == addr("France") and "is over" in m["subject"]]
    assert over and "Germany won" in over[0]["body"]


def test_by_mail_tie_over_the_line_without_order_plays_on(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--solo", "17", "--tie-others", "play-on", reuse=True)
    two_at_17(t)
    t.reply(addr("France"), sign("France", "A bre H"))
    assert t.cli("game", "process", "g") == 0
    status, res = result(t)
    assert status == "active" and res is None  # two leaders on the line: no single leader, the game goes on


def test_by_mail_tie_over_the_line_declared_a_draw(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--solo", "17", "--tie-others", "draw", reuse=True)
    two_at_17(t)
    assert t.cli("game", "process", "g") == 0
    assert result(t) == ("finished", {"kind": "draw", "powers": ["France", "Germany"], "by": "rule"})


def test_by_mail_last_year_tie_ends_in_a_draw(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--last-year", "1902", reuse=True)
    # Fall 1901: Germany takes Holland and France takes Spain: Russia, France and Germany at 4
    board(
        t,
        {
            "phase": "F1902M",
            "units": {"France": ["A gas"], "Germany": ["A ruh"], "England": ["F lon"]},
            "supply_centers": {p: cs for p, cs in HOMES.items()},
        },
    )
    t.reply(addr("France"), sign("France", "A gas - spa"))
    t.reply(addr("Germany"), sign("Germany", "A ruh - hol"))
    assert t.cli("game", "process", "g") == 0
    status, res = result(t)
    assert status == "finished" and res == {"kind": "draw", "powers": ["France", "Germany", "Russia"], "by": "rule"}
    for lang_word in ("last year",):
        over = [m for m in t.outbox() if m["to_addr"] == addr("Italy") and "is over" in m["subject"]]
        assert lang_word in over[0]["body"] and "France, Germany, Russia" in over[0]["body"]


def test_by_mail_one_draw_proposal_per_turn(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", reuse=True)
    board(
        t,
        {
            "phase": "F1901M",
            "units": {"Austria": ["F tri"], "Italy": ["A ven"], "England": ["F lon"]},
            "supply_centers": {p: cs for p, cs in HOMES.items()},
        },
    )
    assert "draw proposed" in t.reply(addr("England"), sign("England", "DRAW PROPOSE"))
    t.reply(addr("Austria"), sign("Austria", "F tri - alb"))
    t.reply(addr("Italy"), sign("Italy", "A ven - tri"))
    assert t.cli("game", "process", "g") == 0
    g = records.load_game(t.db, "g")
    assert g is not None and g.phase == "W1901A"  # the same turn: Fall with its adjustments
    assert "one proposal per turn" in t.reply(addr("Russia"), sign("Russia", "DRAW PROPOSE"))
    assert "accepted the draw" in t.reply(addr("France"), sign("France", "DRAW ACCEPT"))  # still open
    assert t.cli("game", "process", "g") == 0
    g = records.load_game(t.db, "g")
    assert g is not None and g.phase == "S1902M"
    assert "no draw is proposed" in t.reply(addr("Germany"), sign("Germany", "DRAW ACCEPT"))  # lapsed with its turn
    assert "draw proposed" in t.reply(addr("Russia"), sign("Russia", "DRAW PROPOSE"))  # a new turn, a new proposal


def points_variant(tmp_path: Path) -> Path:
    path = tmp_path / "points.toml"
    path.write_text(
        classic_text().replace(
            "solo = 18",
            "solo = 9\nby_year = { 1902 = 20 }\n"
            'tie_break = ["Austria", "England", "France", "Germany", '
            '"Italy", "Russia", "Turkey"]\npoints = { par = 3, bur = 2 }',
            1,
        )
    )
    return path


def test_by_mail_victory_points_shown_and_winning(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--variant", str(points_variant(tmp_path)))
    board(
        t,
        {
            "phase": "F1901M",
            "units": {"France": ["A pic", "A gas"], "Germany": ["A mun"]},
            "supply_centers": {p: cs for p, cs in HOMES.items()},
        },
    )
    t.reply(addr("France"), sign("France", "A pic - bel", "A gas - bur"))
    t.reply(addr("Germany"), sign("Germany", "A mun H"))
    assert t.cli("game", "process", "g") == 0
    # France: bre 1 + mar 1 + par 3 + bel 1 + Burgundy occupied 2 = 8, under 9: plays on
    res = [m for m in t.outbox() if m["to_addr"] == addr("England") and "Fall 1901 movement" in m["subject"]]
    assert res and "Victory points" in res[0]["body"] and "France 8" in res[0]["body"]
    assert result(t)[0] == "active"
    # SUMMARY counts points in a game that counts points: France 5 at the start (par 3), 8 after 1901
    text = t.reply("x@q.test", "SUMMARY g")
    assert "Victory points in g, at the start and after each year:" in text and "Supply centres in" not in text
    table = text.split("after each year:")[1].splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in table if line.strip() and line.startswith("  ")}
    assert rows["start"] == ["1901"] and rows["France"] == ["5", "8"] and rows["Germany"] == ["3", "3"]
    t.reply(addr("Russia"), sign("Russia", "SET LANGUAGE ru"))
    assert "Победные очки в партии g" in t.reply(addr("Russia"), sign("Russia", "SUMMARY"))


def test_by_mail_a_points_solo_tells_the_points_year_by_year(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--variant", str(points_variant(tmp_path)))
    board(
        t,
        {
            "phase": "F1901M",
            "units": {"France": ["A pic", "A gas", "F mao"], "Germany": ["A mun"]},
            "supply_centers": {p: cs for p, cs in HOMES.items()},
        },
    )
    t.reply(addr("Russia"), sign("Russia", "SET LANGUAGE ru"))
    t.reply(addr("Germany"), sign("Germany", "SET LANGUAGE de"))
    t.reply(addr("France"), sign("France", "A pic - bel", "A gas - bur", "F mao - por"))
    assert t.cli("game", "process", "g") == 0
    status, res = result(t)
    assert status == "finished" and res is not None and res["winner"] == "France"  # 3 + 1 + 1 + 1 + 1 + 2 = 9
    told = {
        m["to_addr"]: m["body"]
        for m in t.outbox()
        if "Победные очки по итогам" in m["body"] or "Siegpunkte am" in m["body"]
    }
    assert set(told) == {addr("Russia"), addr("Germany")}
    over = [m for m in t.outbox() if m["to_addr"] == addr("England") and "is over" in m["subject"]]
    assert len(over) == 1
    body = over[0]["body"]
    table = body.split("Victory points after each year (the solo line is in points):")[1].splitlines()
    rows = [line.split() for line in table if line.startswith("    ")]
    header = rows[0]
    assert header[0] == "Year" and rows[1][0] == "1901"
    points = dict(zip(header[1:], rows[1][1:], strict=True))
    assert points["Fra"] == "9" and points["Ger"] == "3" and points["Rus"] == "4"
    assert "Supply centres after each year" in body  # the centres too, as in any game


def _west_game(tmp_path: Path) -> Table:
    """A started game whose France and Germany share one player (west@p.test), counted together, to 1902."""
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--shared-addresses", "--combined", "--last-year", "1902") == 0
    for power in POWERS:
        email = "west@p.test" if power in ("France", "Germany") else addr(power)
        assert t.cli("game", "join", "g", "--power", power, "--email", email, "--password", f"pw-{power}") == 0
    assert t.cli("game", "start", "g") == 0
    return t


def test_by_mail_one_player_two_powers_combined(tmp_path: Path) -> None:
    t = _west_game(tmp_path)
    board(
        t,
        {
            "phase": "F1902M",
            "units": {"France": ["A par"], "Germany": ["A ber"]},
            "supply_centers": {p: cs for p, cs in HOMES.items()},
        },
    )
    t.mail("west@p.test", sign("France", "A par H"))
    assert t.cli("game", "process", "g") == 0
    status, res = result(t)
    assert status == "finished" and res is not None and res["winner"] == "France"  # 3 + 3 beats Russia's 4
    assert res["powers"] == ["France", "Germany"]
    over = [m for m in t.outbox() if m["to_addr"] == "west@p.test" and "is over" in m["subject"]]
    assert len(over) == 1  # the player is addressed once


def test_by_mail_combined_side_tied_at_the_last_year_shares_the_draw(tmp_path: Path) -> None:
    t = _west_game(tmp_path)
    centres = {p: list(cs) for p, cs in HOMES.items()}
    centres["Russia"] += ["rum", "swe"]  # Russia 6, France + Germany 3 + 3
    board(t, {"phase": "F1902M", "units": {"Russia": ["A mos"]}, "supply_centers": centres})
    t.mail("west@p.test", sign("Germany", "READY"))
    assert t.cli("game", "process", "g") == 0
    assert result(t) == ("finished", {"kind": "draw", "powers": ["France", "Germany", "Russia"], "by": "rule"})


def test_by_mail_a_resigned_power_leaves_its_combined_side(tmp_path: Path) -> None:
    t = _west_game(tmp_path)
    board(
        t,
        {
            "phase": "F1902M",
            "units": {"France": ["A par"], "Germany": ["A ber"], "Russia": ["A mos"]},
            "supply_centers": {p: cs for p, cs in HOMES.items()},
        },
    )
    assert "Germany has resigned" in t.reply("west@p.test", sign("Germany", "RESIGN"))
    t.mail("west@p.test", sign("France", "A par H"))
    assert t.cli("game", "process", "g") == 0
    # France 3 alone (Germany's 3 no longer count with it) loses the last year to Russia's 4
    assert result(t) == ("finished", {"kind": "solo", "winner": "Russia"})


def test_by_mail_an_ejected_power_leaves_its_combined_side(tmp_path: Path) -> None:
    t = _west_game(tmp_path)
    centres = {p: list(cs) for p, cs in HOMES.items()}
    centres["Russia"] = ["mos", "sev", "stp"]  # Russia 3, France 3, Germany 3, Austria 3, …
    centres["Germany"] = ["ber", "kie", "mun", "war"]  # Germany 4 alone leads once France is out of its side
    board(t, {"phase": "F1902M", "units": {"Germany": ["A ber"]}, "supply_centers": centres})
    assert t.cli("game", "eject", "g", "France") == 0  # the seat keeps the address, the power is in civil disorder
    t.mail("west@p.test", sign("Germany", "A ber H"))
    assert t.cli("game", "process", "g") == 0
    status, res = result(t)
    assert status == "finished" and res == {"kind": "solo", "winner": "Germany"}  # alone: no "powers" of a side


def test_game_solo_at_half_counts_the_variants_own_tie_rule(tmp_path: Path, capsys) -> None:
    path = tmp_path / "ordered.toml"
    order = '["Germany", "France", "Austria", "England", "Italy", "Russia", "Turkey"]'
    path.write_text(classic_text().replace("solo = 18", f"solo = 18\ntie_break = {order}", 1))
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--variant", str(path), "--solo", "16") == 0  # the variant's order settles
    assert t.cli("game", "create", "h", "--solo", "16") != 0  # classic has no tie rule: refused
    assert "tie rule" in capsys.readouterr().err
    assert t.cli("game", "settings", "g", "solo", "12") == 0


@pytest.fixture
def host_variants(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The host's own variants folder, named by a judge.toml that the command line reads (and the mail handler)."""
    from judge.data import resources

    folder = tmp_path / "variants"
    folder.mkdir()
    config = tmp_path / "judge.toml"
    config.write_text(
        '[judge]\naddress = "judge@club.test"\nvariants_dir = "variants"\n'
        '[imap]\nhost = "127.0.0.1"\nusername = "judge"\npassword = "imap-secret"\n[smtp]\nhost = "127.0.0.1"\n'
    )
    config.chmod(0o600)  # it holds a password
    monkeypatch.setenv("JUDGE_CONFIG", str(config))
    resources.set_host_dirs(variants=folder)
    yield folder
    resources.set_host_dirs()  # later tests see only the shipped files


def test_by_mail_tie_over_the_line_goes_by_the_variants_order(tmp_path: Path, host_variants: Path) -> None:
    order = '["Germany", "France", "Austria", "England", "Italy", "Russia", "Turkey"]'
    (host_variants / "ordered17.toml").write_text(
        classic_text()
        .replace('name = "Classic"', 'name = "Ordered 17"')
        .replace("solo = 18", f"solo = 17\ntie_break = {order}", 1)
    )
    t = Table(tmp_path / "judge.db")
    assert "created g (Ordered 17)" in t.reply("gm@p.test", "CREATE g pw-master-1 variant=ordered17")
    for power in POWERS:
        assert "joined g" in t.reply(addr(power), f"JOIN g pw-{power} {power}")
    assert t.cli("game", "start", "g") == 0
    two_at_17(t)
    t.reply(addr("France"), sign("France", "A bre H"))
    t.reply(addr("Germany"), sign("Germany", "A war H"))
    assert "adjudicated" in t.reply("gm@p.test", "MASTER g pw-master-1\nPROCESS").lower()
    assert result(t) == ("finished", {"kind": "solo", "winner": "Germany"})  # 17 each: Germany is first in the order
    over = [m for m in t.outbox() if m["to_addr"] == addr("France") and "is over" in m["subject"]]
    assert over and "Germany won" in over[0]["body"]
    assert "A tie of leaders goes by the order Germany, France" in t.reply("x@p.test", "GET RULES g")


def test_by_mail_a_game_with_its_own_point_values(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    # Paris 3 and Burgundy 2 make 38 points: the classic 18 is below half of them, so the game needs its own line
    refused = t.reply("gm@p.test", "CREATE g pw-master-1 points=par:3,bur:2")
    assert "ERROR" in refused and "18 is at or below half of the 38 points" in refused
    assert "not a province of Classic; did you mean 'par'" in t.reply("gm@p.test", "CREATE g pw-master-1 points=parr:3")
    assert "not written like par:3" in t.reply("gm@p.test", "CREATE g pw-master-1 points=par3")
    assert t.cli("game", "show", "g") == 1  # nothing was created
    assert "created g" in t.reply("gm@p.test", "CREATE g pw-master-1 points=par:3,bur:2 solo=20")
    for power in POWERS:
        assert "joined g" in t.reply(addr(power), f"JOIN g pw-{power} {power}")
    assert t.cli("game", "start", "g") == 0
    assert t.show("g", capsys)["settings"]["points"] == {"par": 3, "bur": 2}
    rules = t.reply("x@p.test", "GET RULES g")
    assert "Victory points: Paris 3, Burgundy 2; every other supply centre is worth 1" in rules
    assert "A power wins alone with 20 points (in 1901)" in rules
    board(
        t,
        {
            "phase": "F1901M",
            "units": {"France": ["A pic", "A gas"], "Germany": ["A mun"]},
            "supply_centers": {p: cs for p, cs in HOMES.items()},
        },
    )
    t.reply(addr("France"), sign("France", "A pic - bel", "A gas - bur"))
    assert "adjudicated" in t.reply("gm@p.test", "MASTER g pw-master-1\nPROCESS").lower()
    # France: bre 1 + mar 1 + par 3 + bel 1 + Burgundy occupied 2 = 8; the line is the game's 20
    res = [m for m in t.outbox() if m["to_addr"] == addr("England") and "Fall 1901 movement" in m["subject"]]
    assert res and "France 8" in res[0]["body"] and "Supply centres (solo at 20):" in res[0]["body"]
    # a later change goes through the same checks; none returns to the variant's (classic: no points)
    assert t.cli("game", "settings", "g", "points", "par:3 xyz:1") != 0
    assert "'xyz' is not a province of Classic" in capsys.readouterr().err
    assert t.cli("game", "settings", "g", "points", "par:-1") != 0
    assert "0 or more" in capsys.readouterr().err
    assert t.cli("game", "settings", "g", "points", "none") == 0
    assert "Victory points" not in t.reply("x@p.test", "GET RULES g")
    assert t.cli("game", "create", "h", "--points", "par:3", "--solo", "19") == 0
    assert t.cli("game", "create", "k", "--points", "par") == 2


def test_by_mail_an_anonymous_combined_game_shows_each_powers_points(tmp_path: Path) -> None:
    def play(name: str, *options: str) -> tuple[str, str]:
        """The results mail of Fall 1901, and a sandbox of the last year's Fall from the game as it stands."""
        create = ("--shared-addresses", "--combined", "--points", "par:3", "--solo", "19", "--last-year", "1903")
        assert t.cli("game", "create", name, *create, *options) == 0
        for power in POWERS:
            email = f"west-{name}@p.test" if power in ("France", "Germany") else f"{power.lower()}-{name}@p.test"
            assert t.cli("game", "join", name, "--power", power, "--email", email, "--password", f"pw-{power}") == 0
        assert t.cli("game", "start", name) == 0
        board(t, {"phase": "F1901M", "units": {}, "supply_centers": dict(HOMES)}, name)
        assert t.cli("game", "process", name) == 0
        mail = [m for m in t.outbox() if m["to_addr"] == f"italy-{name}@p.test" and "Fall 1901" in m["subject"]]
        centres = {**HOMES, "Russia": [*HOMES["Russia"], "rum"]}  # Russia 5, France 5 (Paris 3), Germany 3
        board(t, {"phase": "F1903M", "units": {}, "supply_centers": centres}, name)
        return mail[0]["body"], t.reply("x@else.test", f"SANDBOX FROM GAME {name}\nENDSANDBOX")

    t = Table(tmp_path / "judge.db")
    results, sandbox = play("open")
    assert "France+Germany 8" in results  # France 3 + 2 (Paris 3) and Germany 3: one side
    assert "France wins" in sandbox  # the side's 8 leads Russia's 5 at the last year
    results, sandbox = play("hidden", "--anonymous")
    assert "France 5" in results and "Germany 3" in results and "France+Germany" not in results
    assert "a draw among France, Russia" in sandbox  # each power alone: France 5 and Russia 5 tie


# --- SANDBOX FROM GAME ----------------------------------------------------------------------------------------------


def game_rows(t: Table) -> list[str]:
    return [
        line
        for line in t.db.conn.iterdump()
        if any(f'INSERT INTO "{table}"' in line for table in ("games", "players", "orders", "phases", "draws"))
    ]


def test_by_mail_sandbox_from_game_uses_the_game_and_leaves_it_alone(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--solo", "17", "--tie-break", "Germany,France,Austria,England,Italy,Russia,Turkey", reuse=True)
    two_at_17(t)
    t.reply(addr("France"), sign("France", "A bre - pic"))  # real orders of the game, kept as they were
    before = game_rows(t)
    text = t.reply(
        "someone@else.test", "SANDBOX FROM GAME g\nFrance: A bre, A gas\nORDERS\nFrance: A gas - spa\nENDSANDBOX"
    )
    assert "from game g" in text and "Centres after:" in text
    # Spain was Germany's (the later half of the list); France takes it: 18 to 16, a solo by the game's own line
    assert "France     18" in text and "Germany    16" in text and "France wins" in text
    assert game_rows(t) == before  # the game itself is untouched
    tie = t.reply("someone@else.test", "SANDBOX FROM GAME g\nENDSANDBOX")  # the position as it stands: a 17-17 tie
    assert "Germany wins" in tie  # settled by the game's own tie-break order, not the variant's 18
    assert game_rows(t) == before
    assert "there is no game 'nope'" in t.reply("x@else.test", "SANDBOX FROM GAME nope\nENDSANDBOX")
    assert "SANDBOX FROM GAME and the game's name" in t.reply("x@else.test", "SANDBOX FROM g\nENDSANDBOX")
    assert "leave out the variant" in t.reply("x@else.test", "SANDBOX FROM GAME g\nvariant coldwar\nENDSANDBOX")


def test_cli_sandbox_from_game(tmp_path: Path, capsys) -> None:
    import json

    from judge.cli import main

    t = Table(tmp_path / "judge.db")
    t.seven("g", "--last-year", "1902", reuse=True)
    board(
        t,
        {
            "phase": "F1902M",
            "units": {"France": ["A gas"], "Germany": ["A ruh"]},
            "supply_centers": {p: cs for p, cs in HOMES.items()},
        },
    )
    before = game_rows(t)
    path = tmp_path / "changes.json"
    path.write_text(json.dumps({"orders": {"France": ["A gas - spa"], "Germany": ["A ruh - hol"]}}))
    capsys.readouterr()
    assert main(["sandbox", "--db", str(t.path), "--from-game", "g", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["draw"] == ["France", "Germany", "Russia"] and out["winner"] is None  # the game's last year applies
    assert "spa" in out["supply_centers"]["France"] and "hol" in out["supply_centers"]["Germany"]
    assert game_rows(t) == before
    path.write_text(json.dumps({"phase": "S1901M"}))
    assert main(["sandbox", "--db", str(t.path), "--from-game", "g", str(path)]) == 1
    assert "leave out 'phase'" in capsys.readouterr().out
    assert main(["sandbox", "--db", str(t.path), "--from-game", "g", "--batch", str(path)]) == 2


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from judge.commands.body import parse_body  # noqa: E402
from judge.commands.items import Sandbox  # noqa: E402
from judge.commands.sandbox_reply import run_sandbox_text  # noqa: E402
from judge.game.sandbox import _error  # noqa: E402

_WORD = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc", "Cf")), min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(name=_WORD, body=st.text(max_size=200))
def test_property_sandbox_from_game_header_and_body_never_crash(name: str, body: str) -> None:
    parsed = parse_body(f"SANDBOX FROM GAME {name}\n{body}\nENDSANDBOX")
    boxes = [i for i in parsed.items if isinstance(i, Sandbox)]
    if boxes:
        assert boxes[0].from_game == name
        seen: list[dict] = []

        def play(data: dict) -> dict:
            seen.append(data)
            assert "variant" not in data and "phase" not in data  # the game's own are played
            return _error(None, "no such game")

        text = run_sandbox_text(boxes[0].body, play, name).worded("en")
        assert text.startswith("SANDBOX")


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60))
def test_property_point_values_are_read_or_refused_with_a_reason(text: str) -> None:
    from judge.game.settings import read_points

    try:
        table = read_points(text)
    except ValueError as exc:
        assert str(exc).startswith("points: ")
        return
    assert table and all(re.fullmatch(r"[a-z][a-z0-9_]*", place) for place, _ in table)
    assert all(isinstance(n, int) and 0 <= n <= 999999 for _, n in table)


def test_point_values_refused_as_written() -> None:
    from judge.game.settings import read_points

    for text, reason in (("par3", "not written like par:3"), ("par:²", "a whole number"), ("  ", "give places")):
        with pytest.raises(ValueError, match=reason):
            read_points(text)


@settings(max_examples=200, deadline=None)
@given(
    table=st.lists(
        st.tuples(st.sampled_from(["par", "BUR", "rom", "Sev", "nth"]), st.integers(min_value=0, max_value=99)),
        min_size=1,
        max_size=5,
    ),
    joiner=st.sampled_from([",", " ", ", ", ";"]),
    sign=st.sampled_from([":", "="]),
)
def test_property_point_values_written_are_read_back(table: list[tuple[str, int]], joiner: str, sign: str) -> None:
    from judge.game.settings import read_points

    text = joiner.join(f"{place}{sign}{value}" for place, value in table)
    assert read_points(text) == tuple((place.lower(), value) for place, value in table)
