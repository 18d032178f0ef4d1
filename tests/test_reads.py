"""The information commands by mail: ORDERS, WHOGAME, SUMMARY, GET, MAP (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gamekit import Table
from hypothesis import given
from hypothesis import strategies as st

from judge.commands import items as c
from judge.commands.body import parse_body


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


@pytest.fixture
def t(tmp_path: Path) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", "--deadline", "48h", "--retreat-deadline", "24h", reuse=True)
    return table


def _after(text: str, marker: str) -> str:
    assert marker in text, text
    return text.split(marker, 1)[1]


# --- ORDERS ---------------------------------------------------------------------------------------------------------


def test_orders_lists_given_orders_and_units_still_owed(t: Table) -> None:
    t.reply(addr("France"), sign("France", "A par - bur", "F bre - mao"))
    text = t.reply(addr("France"), sign("France", "ORDERS"))
    note = _after(text, "France, Spring 1901 movement:")
    assert "A par - bur" in note and "F bre - mao" in note
    assert "still without orders: A mar" in note and "not ready" in note
    assert "A par - bur" not in t.reply(addr("Germany"), sign("Germany", "ORDERS"))  # only one's own


def test_orders_in_adjustments_counts_builds_due_and_who_owes_nothing(t: Table) -> None:
    for power, orders in {"France": ["A par - bur", "F bre - mao"], "Russia": ["F sev - bla"]}.items():
        t.reply(addr(power), sign(power, *orders))
    t.cli("game", "process", "g")  # S1901M
    t.reply(addr("France"), sign("France", "F mao - spa/sc", "A bur - bel"))
    t.cli("game", "process", "g")  # F1901M: France gains two centres; Winter next
    text = t.reply(addr("France"), sign("France", "ORDERS"))
    assert "France, Winter 1901 adjustments:" in text and "2 more builds (or waives) due" in text
    t.reply(addr("France"), sign("France", "Build A par"))
    assert "1 more builds (or waives) due" in t.reply(addr("France"), sign("France", "ORDERS"))
    assert "Turkey owes no orders in this phase" in t.reply(addr("Turkey"), sign("Turkey", "ORDERS"))


def test_orders_needs_a_sign_on_and_a_running_game(t: Table, tmp_path: Path) -> None:
    assert "sign on first" in t.reply("x@p.test", "ORDERS")
    assert "ORDERS takes nothing after it" in t.reply(addr("France"), sign("France", "ORDERS now"))
    t.cli("game", "create", "forming")
    t.cli("game", "join", "forming", "--power", "France", "--email", "f2@p.test", "--password", "pw-France2")
    assert "no orders are due" in t.reply("f2@p.test", "SIGNON France forming pw-France2\nORDERS")


def test_orders_answers_in_russian(t: Table) -> None:
    t.reply(addr("France"), sign("France", "SET LANGUAGE ru"))
    text = t.reply(addr("France"), sign("France", "ORDERS"))
    assert "ещё без приказов" in text


# --- WHOGAME --------------------------------------------------------------------------------------------------------


def test_whogame_lists_powers_and_players(t: Table) -> None:
    t.reply("watcher@p.test", "OBSERVE g")
    text = t.reply("anyone@q.test", "WHOGAME g")
    for power in ("Austria", "England", "Turkey"):
        assert f"{power.lower()}@p.test" in text
    assert "Observers: 1" in text and "watcher@p.test" not in text
    signed = t.reply(addr("France"), sign("France", "WHOGAME"))  # the game signed on to
    assert "germany@p.test" in signed


def test_whogame_in_an_anonymous_game_shows_powers_only(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--anonymous", reuse=True)
    text = t.reply("anyone@q.test", "WHOGAME g")
    assert "Austria" in text and "Turkey" in text and "@p.test" not in text
    assert "anonymous" in text
    assert t.cli("game", "end", "g", "--abandoned") == 0
    assert "austria@p.test" in t.reply("anyone@q.test", "WHOGAME g")  # told at the end


def test_whogame_errors(t: Table) -> None:
    assert "WHOGAME needs a game" in t.reply("x@p.test", "WHOGAME")
    assert "WHOGAME takes at most a game" in t.reply("x@p.test", "WHOGAME g h")
    assert "is not a game name" in t.reply("x@p.test", "WHOGAME g!")
    assert "ERROR" in t.reply("x@p.test", "WHOGAME nosuchgame")


# --- SUMMARY --------------------------------------------------------------------------------------------------------


def test_summary_counts_centres_per_year_and_tells_seat_changes(t: Table) -> None:
    at_start = t.reply("x@q.test", "SUMMARY g")
    assert "start" in at_start and "has not started yet" not in at_start
    t.reply(addr("France"), sign("France", "A par - bur", "F bre - mao"))
    t.cli("game", "process", "g")
    t.reply(addr("France"), sign("France", "F mao - spa/sc", "A bur - bel"))
    t.cli("game", "process", "g")
    assert t.cli("game", "replace", "g", "--power", "Italy", "--email", "new@p.test", "--password", "pw-newitaly") == 0
    t.reply(addr("Turkey"), sign("Turkey", "RESIGN"))
    text = t.reply("x@q.test", "SUMMARY g")
    rows = {line.split()[0]: line.split()[1:] for line in _after(text, "after each year:").splitlines() if line.strip()}
    assert rows["start"] == ["1901"]
    assert rows["France"] == ["3", "5"] and rows["Austria"] == ["3", "3"]
    assert "Italy was taken over by a new player on 2026-12-01" in text
    assert "Turkey resigned on 2026-12-01" in text


def test_summary_errors_and_german(t: Table, tmp_path: Path) -> None:
    assert "SUMMARY needs a game" in t.reply("x@p.test", "SUMMARY")
    assert "SUMMARY takes at most a game" in t.reply("x@p.test", "SUMMARY a b")
    t.cli("game", "create", "later")
    assert "later has not started yet" in t.reply("x@p.test", "SUMMARY later")
    t.reply(addr("France"), sign("France", "SET LANGUAGE de"))
    assert "Versorgungszentren in der Partie g" in t.reply(addr("France"), sign("France", "SUMMARY"))


# --- GET ------------------------------------------------------------------------------------------------------------


def test_get_help_orders_and_rules(t: Table) -> None:
    assert "SIGNON <power> <game> <password>" in t.reply("x@p.test", "GET HELP")
    assert "Build F stp/nc" in t.reply("x@p.test", "get orders")
    rules = t.reply("x@p.test", "GET RULES g")
    assert "House rules of g (Classic):" in rules
    assert "Deadlines: movement 2 days, retreats 24 hours" in rules
    assert "Press: white" in rules and "wins alone with 18 supply centres" in rules
    assert "House rules of g" in t.reply(addr("France"), sign("France", "GET RULES"))


def test_get_errors_and_russian(t: Table) -> None:
    assert "there is no file 'rumours'; ask for help, rules, orders" in t.reply("x@p.test", "GET RUMOURS")
    assert "GET needs what to send" in t.reply("x@p.test", "GET")
    assert "GET RULES needs a game" in t.reply("x@p.test", "GET RULES")
    assert "there is no file" in t.reply("x@p.test", "GET HELP g")
    t.reply(addr("France"), sign("France", "SET LANGUAGE ru"))
    text = t.reply(addr("France"), sign("France", "GET RULES", "GET ORDERS"))
    assert "Правила партии g" in text and "Как писать приказы" in text


# --- MAP ------------------------------------------------------------------------------------------------------------


def _map_mail(t: Table, sender: str, body: str) -> tuple[str, dict[str, object]]:
    out = t.mail(sender, body)
    reply = next(r for r in out if r["subject"].startswith("Re:"))
    maps = [r for r in t.outbox() if r["to_addr"] == sender and "map of" in r["subject"].lower()]
    assert maps, t.outbox()
    return reply["body"], maps[-1]


def test_map_of_the_current_phase_is_mailed_with_its_picture(t: Table) -> None:
    said, mail = _map_mail(t, "x@q.test", "MAP g")
    assert "the map of Spring 1901 movement is sent in a mail of its own" in said
    assert isinstance(mail["image"], bytes) and mail["image"].startswith(b"\x89PNG")
    assert "stands now" in str(mail["body"]) and "before the deadline" in str(mail["body"])


def test_map_of_a_played_phase_reuses_the_results_picture(t: Table) -> None:
    t.reply(addr("France"), sign("France", "A par - bur"))
    t.cli("game", "process", "g")
    results = next(r for r in t.outbox() if r["subject"].startswith("Diplomacy game g: results"))
    said, mail = _map_mail(t, addr("France"), sign("France", "MAP S1901M"))
    assert mail["picture_id"] == results["picture_id"] and mail["picture_id"] is not None
    assert "orders of the phase and what became of them" in str(mail["body"]) and "Spring 1901 movement" in said
    said, mail = _map_mail(t, "x@q.test", "MAP g F1901M")
    assert mail["image"] is not None and "Fall 1901 movement" in said  # F1901M is the current phase


def test_map_errors(t: Table) -> None:
    assert "has no phase F1905M" in t.reply("x@p.test", "MAP g F1905M")
    assert "MAP needs a game" in t.reply("x@p.test", "MAP")
    assert "MAP may name a game and a phase" in t.reply("x@p.test", "MAP g F1901M extra")
    assert "phase 'X1901M' is not like" in t.reply("x@p.test", "MAP g X1901M")
    t.cli("game", "create", "later")
    assert "later has not started yet" in t.reply("x@p.test", "MAP later")


def test_map_in_german_is_mailed_in_german(t: Table) -> None:
    t.reply(addr("France"), sign("France", "SET LANGUAGE de"))
    t.mail(addr("France"), sign("France", "MAP"))
    mail = [r for r in t.outbox() if r["to_addr"] == addr("France") and "Karte" in r["subject"]]
    assert mail and "Frühjahr 1901" in mail[-1]["subject"]
    assert "ist angehängt" in str(mail[-1]["body"])


# --- the parser -----------------------------------------------------------------------------------------------------


@given(st.lists(st.text(alphabet="abcdefghijS1901MFWRA!-_ ", max_size=12), max_size=4))
def test_reads_parsers_never_raise_and_read_or_refuse(words: list[str]) -> None:
    for command in ("ORDERS", "WHOGAME", "SUMMARY", "GET", "MAP"):
        parsed = parse_body(" ".join([command, *words]))
        assert len(parsed.items) + len(parsed.problems) == 1
        if parsed.items:
            item = parsed.items[0]
            assert type(item) in (c.MyOrders, c.WhoGame, c.Summary, c.GetFile, c.MapOf)


def test_map_parser_reads_game_and_phase() -> None:
    (item,) = parse_body("MAP g f1901r").items
    assert item == c.MapOf(1, "MAP g f1901r", "g", "F1901R")
    (item,) = parse_body("map S1902M").items
    assert item == c.MapOf(1, "map S1902M", None, "S1902M")
    (item,) = parse_body("MAP MyGame").items
    assert item == c.MapOf(1, "MAP MyGame", "mygame", None)
    (item,) = parse_body("GET rules MyGame").items
    assert item == c.GetFile(1, "GET rules MyGame", "rules", "mygame")


# --- HISTORY --------------------------------------------------------------------------------------------------------


def test_history_tells_each_phase_as_its_results_mail_did(t: Table) -> None:
    assert "Phases played in g: none yet" in t.reply("x@q.test", "HISTORY g")
    t.reply(addr("France"), sign("France", "A par - bur", "F bre - mao"))
    t.reply(addr("Germany"), sign("Germany", "A mun - bur"))
    t.cli("game", "process", "g")
    mailed = next(r for r in t.outbox() if r["subject"].startswith("Diplomacy game g: results"))["body"]
    told = t.reply("x@q.test", "HISTORY g S1901M")
    for part in ("Results of Spring 1901 movement in game g", "bounced", "Supply centres (solo at 18):", "Units after"):
        assert part in mailed and part in told
    results = mailed.split("Results of", 1)[1].split("Next:", 1)[0]
    assert results.replace("The map of the phase is attached (map.png).\n", "") in told  # the same words
    assert "Next:" not in told  # no deadline of a past phase
    t.reply(addr("France"), sign("France", "F mao - spa/sc"))
    t.cli("game", "process", "g")
    both = t.reply("x@q.test", "HISTORY g")
    assert both.index("Spring 1901 movement in game g") < both.index("Fall 1901 movement in game g")
    assert "ERROR: g has no played phase S1905M" in t.reply("x@q.test", "HISTORY g S1905M")


def test_history_names_the_earlier_phases_beyond_thirty_and_speaks_russian(t: Table) -> None:
    from judge.commands import info_commands

    for _ in range(3):
        t.cli("game", "process", "g")
    limit = info_commands._HISTORY_PHASES
    info_commands._HISTORY_PHASES = 2
    try:
        text = t.reply("x@q.test", "HISTORY g")
    finally:
        info_commands._HISTORY_PHASES = limit
    assert "Earlier phases (HISTORY g <phase>): S1901M" in text
    assert text.count("Results of") == 2
    t.reply(addr("France"), sign("France", "SET LANGUAGE ru"))
    assert "Результаты фазы «Весна 1901" in t.reply(addr("France"), sign("France", "HISTORY g S1901M"))


def test_summary_tells_the_year_a_power_was_eliminated(t: Table) -> None:
    from judge.game import records
    from judge.rules.position_json import position_from_json

    g = records.load_game(t.db, "g")
    assert g is not None
    board = {
        "phase": "F1905M",
        "units": {"France": ["A par"], "Germany": ["A bur", "A pic"]},
        "supply_centers": {"Germany": ["ber", "kie", "mun"], "France": ["par"], "Austria": ["vie"]},
    }
    with t.db.atomic():
        g.position = position_from_json(g.variant, board)
        records.save_game(t.db, g, t.now)
    t.reply(addr("Germany"), sign("Germany", "A bur - par", "A pic S A bur - par"))
    t.cli("game", "process", "g")  # France dislodged
    t.cli("game", "process", "g")  # its retreat not ordered: disbanded, Paris German
    text = t.reply("x@q.test", "SUMMARY g")
    assert "France was eliminated in 1905" in text
    table = _after(text, "after each year:").splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in table if line.startswith("  ")}
    assert rows["start"] == ["1905"] and rows["Germany"] == ["3", "4"] and rows["France"] == ["1", "0"]


def test_get_rules_tells_every_house_rule_set(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven(
        "g",
        "--grace",
        "6h",
        "--press",
        "grey",
        "--anonymous",
        "--last-year",
        "1910",
        "--tie-break",
        "France,England",
        "--tie-others",
        "draw",
        "--combined",
        "--shared-addresses",
        reuse=True,
    )
    rules = t.reply("x@p.test", "GET RULES g")
    for told in (
        "Orders are still taken 6 hours after a deadline",
        "Press: grey (the sender is not named)",
        "After the Fall of 1910 the leader wins",
        "A tie of leaders goes by the order France, England",
        "A tie that order does not settle is a draw among the tied leaders",
        "A player holding several powers counts them together for victory",
        "Anonymous: players' addresses are not shown until the game ends",
    ):
        assert told in rules
    assert "single leader" not in rules  # the game's own tie rule is told instead of the default
    assert t.cli("game", "create", "quiet", "--press", "none", "--tie-others", "play-on") == 0
    quiet = t.reply("x@p.test", "GET RULES quiet")
    assert "Press: none" in quiet and "A tie that order does not settle plays on" in quiet


def test_history_tells_the_victory_points_and_postal_press_of_a_phase(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--points", "par:3,bur:2", "--solo", "20")
    t.reply(addr("France"), sign("France", "POSTAL PRESS", "To all of Europe:", "  peace!", "ENDPRESS"))
    t.reply(addr("France"), sign("France", "A par - bur", "F bre - mao"))
    t.cli("game", "process", "g")  # S1901M: the postal press is published with these results
    t.reply(addr("France"), sign("France", "F mao - spa/sc"))
    t.cli("game", "process", "g")  # F1901M: France takes Spain and holds Burgundy: 3 + 1 + 1 + 1 + 2 = 8
    mailed = {
        r["subject"]: r["body"] for r in t.outbox() if r["to_addr"] == addr("Italy") and "results" in r["subject"]
    }
    spring = next(b for subject, b in mailed.items() if "Spring 1901" in subject)
    fall = next(b for subject, b in mailed.items() if "Fall 1901" in subject)
    assert "From France:\nTo all of Europe:\n  peace!" in spring and "Victory points" not in spring
    assert "Victory points (the solo line is in points):" in fall and "France 8" in fall and "peace!" not in fall
    told_spring = t.reply("x@q.test", "HISTORY g S1901M")
    assert "From France:\nTo all of Europe:\n  peace!" in told_spring and "Victory points" not in told_spring
    told_fall = t.reply("x@q.test", "HISTORY g F1901M")
    points_line = next(line for line in fall.splitlines() if line.startswith("Victory points"))
    assert points_line in told_fall and "peace!" not in told_fall  # the same line as the results mail
    t.reply(addr("Germany"), sign("Germany", "SET LANGUAGE de"))
    assert "Siegpunkte" in t.reply(addr("Germany"), sign("Germany", "HISTORY g F1901M"))


def test_get_rules_tells_the_default_tie_rule(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--last-year", "1910")
    rules = t.reply("x@p.test", "GET RULES g")
    assert "A tie of leaders at the winning line plays on: the line needs a single leader" in rules
    assert "A tie of leaders after the Fall of 1910 is a draw among them" in rules
    t.reply(addr("Russia"), sign("Russia", "SET LANGUAGE ru"))
    russian = t.reply(addr("Russia"), sign("Russia", "GET RULES g"))
    assert "нужен единственный лидер" in russian and "после осени 1910 года — ничья между ними" in russian
    t.reply(addr("Germany"), sign("Germany", "SET LANGUAGE de"))
    german = t.reply(addr("Germany"), sign("Germany", "GET RULES g"))
    assert "an der Siegmarke wird weitergespielt" in german and "nach dem Herbst 1910 ist ein Remis" in german
    assert t.cli("game", "create", "plain") == 0  # no last year: only the line's rule
    plain = t.reply("x@p.test", "GET RULES plain")
    assert "the line needs a single leader" in plain and "after the Fall of" not in plain
    order = "Austria,England,France,Germany,Italy,Russia,Turkey"
    assert t.cli("game", "create", "ordered", "--tie-break", order) == 0  # an order that settles every tie
    assert "single leader" not in t.reply("x@p.test", "GET RULES ordered")


def test_whogame_of_a_forming_game_shows_unassigned_seats(t: Table) -> None:
    t.cli("game", "create", "forming")
    t.reply("new@p.test", "JOIN forming s3cret-pw")
    text = t.reply("x@q.test", "WHOGAME forming")
    assert "forming (Classic): forming" in text or "forming (Classic)" in text
    assert "  ?" in text and "new@p.test" in text


def test_orders_counts_removals_due_and_summary_tells_an_ejection(t: Table) -> None:
    from judge.game import records
    from judge.rules.position_json import position_from_json

    g = records.load_game(t.db, "g")
    assert g is not None
    board = {
        "phase": "W1901A",
        "units": {"France": ["A par", "A mar", "F bre"], "Germany": ["A mun"]},
        "supply_centers": {"France": ["par", "mar"], "Germany": ["ber", "kie", "mun", "bre"]},
    }
    with t.db.atomic():
        g.position = position_from_json(g.variant, board)
        records.save_game(t.db, g, t.now)
    assert "1 more removals due" in t.reply(addr("France"), sign("France", "ORDERS"))
    assert "1 more removals due" not in t.reply(addr("France"), sign("France", "Remove F bre", "ORDERS"))
    assert t.cli("game", "eject", "g", "Italy") == 0
    assert "Italy's player was removed by the game master on 2026-12-01" in t.reply("x@q.test", "SUMMARY g")


def test_a_message_gets_one_map_and_three_histories(t: Table) -> None:
    text = t.reply("x@q.test", "MAP g\nMAP g\nHISTORY g\nHISTORY g\nHISTORY g\nHISTORY g")
    assert text.count("is sent in a mail of its own") == 1
    assert "at most 1 MAP lines are answered per message" in text
    assert "at most 3 HISTORY lines are answered per message" in text
    assert len([r for r in t.outbox() if r["to_addr"] == "x@q.test" and "map of" in r["subject"]]) == 1


def test_orders_covers_every_power_the_sender_holds(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven(
        "g",
        "--shared-addresses",
        email=lambda power: "two@p.test" if power in ("France", "Italy") else addr(power),
        reuse=True,
    )
    t.reply("two@p.test", "SIGNON Italy g pw-Italy\nA ven - pie")
    text = t.reply("two@p.test", "SIGNON France g pw-France\nA par - bur\nORDERS")
    note = _after(text, "France, Spring 1901 movement:")
    assert "A par - bur" in note and "Italy, Spring 1901 movement:" in note and "A ven - pie" in note
