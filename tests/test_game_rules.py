"""Each rule of the game server on its own: deadlines, grace, sign-on security, idempotency, bad input, press,
observers, the game master's controls, victory overrides, elimination, draws lapsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gamekit import Table, raw_mail

from judge.commands.handler import handle_raw
from judge.game import records
from judge.rules.position_json import position_from_json

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


@pytest.fixture
def t(tmp_path: Path) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", "--deadline", "48h", "--retreat-deadline", "24h", reuse=True)
    return table


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def game(t: Table) -> records.Game:
    loaded = records.load_game(t.db, "g")
    assert loaded is not None
    return loaded


def test_deadline_passes_no_orders_hold(t: Table, capsys) -> None:
    assert t.cli("game", "tick") == 0
    assert game(t).phase == "S1901M"  # not yet due
    t.later(hours=48, seconds=1)
    assert t.cli("game", "tick") == 0
    shown = t.show("g", capsys)
    assert shown["phase"] == "F1901M" and shown["units"]["France"] == ["F bre", "A mar", "A par"]
    assert shown["deadline"] == "2026-12-05T12:00:01Z"  # the next 48 hours run from adjudication


def test_grace_period_sends_late_notices_once(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--grace", "12h", reuse=True)
    for power in POWERS[1:]:
        t.reply(addr(power), sign(power, "READY"))  # ready without orders: not late ... but without orders
    t.reply(addr("England"), sign("England", "F lon - nth"))
    t.later(hours=48, seconds=1)
    t.cli("game", "tick")
    notices = [m for m in t.outbox() if "are late" in m["subject"]]
    assert {m["to_addr"] for m in notices} == {addr(p) for p in POWERS if p != "England"}
    assert game(t).phase == "S1901M" and game(t).in_grace
    t.later(hours=6)
    t.cli("game", "tick")
    assert game(t).phase == "S1901M"
    t.later(hours=6, seconds=1)
    t.cli("game", "tick")
    assert game(t).phase == "F1901M"
    assert len([m for m in t.outbox() if "are late" in m["subject"]]) == len(notices)


def test_ready_from_all_owing_powers_adjudicates_at_once(t: Table) -> None:
    for power in POWERS[:-1]:
        t.reply(addr(power), sign(power, "READY"))
    assert game(t).phase == "S1901M"
    text = t.reply(addr("Turkey"), sign("Turkey", "NOT READY", "READY"))
    assert "ready" in text
    assert game(t).phase == "F1901M"


def test_resigned_power_is_not_waited_for(t: Table) -> None:
    t.reply(addr("Italy"), sign("Italy", "RESIGN"))
    for power in POWERS:
        if power != "Italy":
            t.reply(addr(power), sign(power, "READY"))
    assert game(t).phase == "F1901M"


def test_failed_signons_reveal_nothing_and_lock_out(t: Table) -> None:
    unknown_game = t.reply("eve@evil.test", "SIGNON France nosuchgame whatever\nA par - bur")
    wrong_password = t.reply("eve@evil.test", "SIGNON France g wrong\nA par - bur")
    for text in (unknown_game, wrong_password):
        assert "sign-on failed: no such game or password" in text
    # the powers are public: an unknown one is named as such, with the variant's powers
    unknown_power = t.reply("eve@evil.test", "SIGNON Narnia g wrong")
    assert "sign-on failed: 'Narnia' is not a power of game g; its powers are Austria, England, France" in unknown_power
    assert "sign on first" in wrong_password  # the order line was not taken
    alerts = [m for m in t.outbox() if "failed sign-on" in m["subject"]]
    assert [m["to_addr"] for m in alerts] == [addr("France")]  # only for a real seat, told to its player
    assert "eve@evil.test" in alerts[0]["body"]
    t.reply("eve@evil.test", "SIGNON France g wrong2")
    t.reply("eve@evil.test", "SIGNON France g wrong3")
    held = t.reply("eve@evil.test", "SIGNON France g pw-France")  # right password, but not checked for a while
    assert "too many failed sign-ons as France in g; the password was not checked" in held
    assert "signed on" in t.reply(addr("France"), sign("France"))  # the player's own address is never held back
    t.later(minutes=1, seconds=1)
    assert "signed on as France" in t.reply("eve@evil.test", "SIGNON France g pw-France")


def test_passwords_are_stored_hashed(t: Table) -> None:
    stored = [r["password_hash"] for r in t.db.query("select password_hash from players")]
    assert all(h.startswith("scrypt$") and "pw-" not in h for h in stored)
    t.reply(addr("France"), sign("France", "SET PASSWORD newsecret"))
    assert "signed on" in t.reply(addr("France"), "SIGNON France g newsecret")
    assert "newsecret" not in json.dumps(list(t.db.query("select * from events")))


def test_classic_signon_form(t: Table) -> None:
    assert "signed on as France in g" in t.reply(addr("France"), "SIGNON Fg pw-France\nA par - bur")
    assert "OK: A par - bur" in t.reply(addr("France"), "signon Fg pw-France\nA par - bur")


def test_same_message_twice_has_one_effect(t: Table) -> None:
    raw = raw_mail(addr("France"), sign("France", "A par - bur"), message_id="<once@p.test>")
    first = handle_raw(t.db, raw, t.now)
    again = handle_raw(t.db, raw, t.now)
    assert len(first) == 1 and again == []
    resent = raw_mail(addr("France"), sign("France", "A par - pic"), message_id="<once@p.test>")
    assert handle_raw(t.db, resent, t.now) == []  # same Message-ID from the same sender: already handled
    assert records.orders_of(t.db, game(t).id, "S1901M")["France"] == ["A par - bur"]
    assert len(list(t.db.query("select * from messages"))) == 1


def test_later_orders_replace_earlier_ones_for_the_same_unit(t: Table) -> None:
    t.reply(addr("France"), sign("France", "A par - bur", "A mar - spa"))
    text = t.reply(addr("France"), sign("France", "A par - pic"))
    listed = text.split("Your orders:")[1]
    assert "A par - pic" in listed and "A mar - spa" in listed and "A par - bur" not in listed
    assert "F bre" in text.split("Without orders")[1]


def test_wrong_orders_are_rejected_line_by_line(t: Table) -> None:
    text = t.reply(addr("France"), sign("France", "A ber - kie", "Build A par", "A par - mun", "A par - bur"))
    assert "belongs to Germany" in text
    assert "belongs in an adjustment phase" in text
    assert "cannot reach Munich" in text
    assert "OK: A par - bur" in text
    assert records.orders_of(t.db, game(t).id, "S1901M")["France"] == ["A par - bur"]


@pytest.mark.parametrize(
    "body",
    [
        "",
        "\x00\x01\x02 garbage \xff",
        "x" * 10_000_000,
        "\n".join(f"line {i}" for i in range(100_000)),
        "SIGNON",
        "JOIN",
        "PRESS TO France\nhello",
    ],
)
def test_bad_input_gets_a_reply_and_changes_nothing(t: Table, body: str) -> None:
    before = json.dumps(list(t.db.query("select * from games"))) + json.dumps(list(t.db.query("select * from orders")))
    replies = t.mail("someone@p.test", body)
    assert len(replies) == 1 and replies[0]["to_addr"] == "someone@p.test"
    after = json.dumps(list(t.db.query("select * from games"))) + json.dumps(list(t.db.query("select * from orders")))
    assert before == after


def test_binary_and_automatic_mail_is_not_answered(t: Table) -> None:
    assert handle_raw(t.db, b"\xff\xfe\x00binary" * 1000, t.now) == []
    auto = raw_mail("mailer-daemon@p.test", "Undeliverable")
    assert handle_raw(t.db, auto, t.now) == []
    outcomes = [r["outcome"] for r in t.db.query("select outcome from messages")]
    assert all(o.startswith("dropped") for o in outcomes) and len(outcomes) == 2


@pytest.mark.parametrize("press,expect_sender", [("white", "France"), ("grey", "an anonymous power")])
def test_press_is_relayed(tmp_path: Path, press: str, expect_sender: str) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--press", press, reuse=True)
    text = t.reply(addr("France"), sign("France", "PRESS TO England, Germany", "Let us talk.", "READY", "ENDPRESS"))
    assert "press sent to England, Germany" in text
    press_mail = [m for m in t.outbox() if "press from" in m["subject"]]
    assert sorted(m["to_addr"] for m in press_mail) == [addr("England"), addr("Germany")]
    assert f"Press from {expect_sender}" in press_mail[0]["body"] and "READY" in press_mail[0]["body"]
    t.reply(addr("Italy"), sign("Italy", "BROADCAST", "Hello all", "ENDPRESS"))
    assert len([m for m in t.outbox() if "press from" in m["subject"]]) == 2 + 6


def test_no_press_game_refuses_press(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--press", "none", reuse=True)
    assert "has no press" in t.reply(addr("France"), sign("France", "BROADCAST", "hi", "ENDPRESS"))
    assert not [m for m in t.outbox() if "press from" in m["subject"]]


def test_observers_receive_results(t: Table) -> None:
    assert "you will receive the results of g" in t.reply("fan@p.test", "OBSERVE g")
    t.cli("game", "process", "g")
    assert [m for m in t.outbox() if m["to_addr"] == "fan@p.test" and "results of" in m["subject"]]


def test_pause_resume_extend(t: Table, capsys) -> None:
    t.later(hours=10)
    assert t.cli("game", "pause", "g") == 0
    t.later(hours=100)
    t.cli("game", "tick")
    shown = t.show("g", capsys)
    assert shown["status"] == "paused" and shown["deadline"] is None and shown["phase"] == "S1901M"
    assert t.cli("game", "resume", "g") == 0
    assert t.show("g", capsys)["deadline"] == "2026-12-07T16:00:00Z"  # the 38 hours that were left
    assert t.cli("game", "extend", "g", "24h") == 0
    assert t.show("g", capsys)["deadline"] == "2026-12-08T16:00:00Z"
    assert t.cli("game", "pause", "nosuch") == 1


def test_rollback_returns_to_an_earlier_phase_and_is_logged(t: Table, capsys) -> None:
    t.reply(addr("France"), sign("France", "A par - bur"))
    t.cli("game", "process", "g")
    t.cli("game", "process", "g")
    assert t.show("g", capsys)["phase"] == "S1902M"
    assert t.cli("game", "rollback", "g", "F1901M") == 0
    shown = t.show("g", capsys)
    assert shown["phase"] == "F1901M" and "A bur" in shown["units"]["France"]
    assert shown["phases"] == ["S1901M", "F1901M"]
    events = [e["kind"] for e in t.db.query("select kind from events")]
    assert "rollback" in events
    assert t.cli("game", "rollback", "g", "F1905M") == 1


def test_replace_player(t: Table) -> None:
    assert t.cli("game", "replace", "g", "--power", "France", "--email", "new@p.test", "--password", "pw-new") == 0
    assert "sign-on failed" in t.reply(addr("France"), sign("France"))
    assert "signed on as France" in t.reply("new@p.test", "SIGNON France g pw-new")


def _board(t: Table, board: dict) -> None:
    g = game(t)
    with t.db.atomic():
        g.position = position_from_json(g.variant, board)
        records.save_game(t.db, g, t.now)


def test_game_solo_override(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    t.cli("game", "create", "g", "--variant", "coldwar", "--solo", "17")
    t.cli("game", "join", "g", "--power", "NATO", "--email", "n@p.test", "--password", "pw-nato")
    t.cli("game", "join", "g", "--power", "USSR", "--email", "u@p.test", "--password", "pw-ussr")
    t.cli("game", "start", "g")
    nato = [
        "aus",
        "ist",
        "lon",
        "los",
        "nyk",
        "par",
        "ala",
        "bra",
        "egy",
        "ind",
        "ins",
        "jap",
        "sai",
        "seo",
        "swe",
        "ege",
    ]
    _board(
        t,
        {
            "phase": "F1961M",
            "units": {"NATO": ["A que"], "USSR": ["A mos"]},
            "supply_centers": {"NATO": nato, "USSR": ["mos"]},
        },
    )
    t.reply("n@p.test", "SIGNON NATO g pw-nato\nA que - tor")
    t.cli("game", "process", "g")
    assert t.show("g", capsys)["result"] == {"kind": "solo", "winner": "NATO"}


def test_last_year_victory(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--last-year", "1902", reuse=True)
    t.reply(addr("Russia"), sign("Russia", "A war - gal"))
    t.cli("game", "process", "g")
    t.reply(addr("Russia"), sign("Russia", "A gal - rum"))
    for _ in range(3):
        t.cli("game", "process", "g")
    shown = t.show("g", capsys)
    assert shown["status"] == "active" and shown["phase"] == "F1902M"
    t.cli("game", "process", "g")
    shown = t.show("g", capsys)
    assert shown["result"] == {"kind": "solo", "winner": "Russia"}  # 5 centres, the most after the Fall of 1902


def test_elimination_is_told(t: Table) -> None:
    _board(
        t,
        {
            "phase": "F1905M",
            "units": {"France": ["A par"], "Germany": ["A bur", "A pic"]},
            "supply_centers": {
                "Germany": ["ber", "kie", "mun"],
                "France": ["par"],
                "Austria": ["vie"],
                "England": ["lon"],
                "Italy": ["rom"],
                "Russia": ["mos"],
                "Turkey": ["ank"],
            },
        },
    )
    t.reply(addr("Germany"), sign("Germany", "A bur - par", "A pic S A bur - par"))
    t.cli("game", "process", "g")  # France dislodged, no retreat ordered
    t.cli("game", "process", "g")  # retreats: disbanded; Germany takes Paris
    eliminated = [m for m in t.outbox() if "is eliminated" in m["subject"]]
    assert [m["to_addr"] for m in eliminated] == [addr("France")]
    france = next(p for p in records.players(t.db, game(t).id) if p.power == "France")
    assert france.eliminated and not france.active


def test_draw_proposal_lapses_at_adjudication(t: Table) -> None:
    t.reply(addr("England"), sign("England", "DRAW PROPOSE"))
    t.cli("game", "process", "g")
    assert "no draw is proposed" in t.reply(addr("France"), sign("France", "DRAW ACCEPT"))
    assert "draw proposed" in t.reply(addr("France"), sign("France", "DRAW PROPOSE"))


def test_show_json_shape_and_outbox_list(t: Table, capsys) -> None:
    shown = t.show("g", capsys)
    assert set(shown) == {
        "name",
        "variant",
        "status",
        "phase",
        "deadline",
        "rules",  # the rules edition, 2000 or datc-3
        "units",
        "supply_centers",
        "players",
        "result",
        "phases",
        "settings",
        "victory",
        "paused_remaining",
        "takeovers",  # TAKEOVER requests waiting for the game master
    }
    assert set(shown["players"][0]) == {
        "power",
        "email",
        "ready",
        "resigned",
        "eliminated",
        "orders_submitted",
        "owes_orders",
        "order_lines",
        "bot",  # the stand-in bot plays it now
        "record",  # the player's record across games (None for a bot)
    }
    assert shown["settings"]["movement_deadline"] == "2d" and shown["settings"]["press"] == "white"
    capsys.readouterr()
    assert t.cli("outbox", "list", "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and set(rows[0]) >= {"to", "subject", "body", "status"}
    assert {r["status"] for r in rows} == {"queued"}


def test_timezone_and_language_settings(t: Table) -> None:
    text = t.reply(addr("France"), sign("France", "SET TIMEZONE europe/berlin"))
    assert "Europe/Berlin" in text and "CET" in text.split("Deadline:")[1]
    assert "did you mean" in t.reply(addr("France"), sign("France", "SET TIMEZONE Europe/Berln"))
    assert "speaks" in t.reply(addr("France"), sign("France", "SET LANGUAGE xx"))
    assert "sign on first" in t.reply(addr("France"), "SET LANGUAGE de")  # a forged From changes nothing


def test_history_and_list(t: Table) -> None:
    t.reply(addr("France"), sign("France", "A par - bur"))
    t.cli("game", "process", "g")
    text = t.reply("anyone@p.test", "HISTORY g S1901M\nLIST\nLIST g")
    assert "A par - bur" in text and "succeeds" in text and "active" in text


def test_store_is_wal_and_keeps_every_phase_and_event(t: Table) -> None:
    assert t.db.execute("pragma journal_mode").fetchone()[0] == "wal"
    t.reply(addr("France"), sign("France", "A par - bur"))
    t.cli("game", "process", "g")
    row = next(iter(t.db.query("select * from phases where phase = 'S1901M'")))
    assert json.loads(row["orders"]) == {"France": ["A par - bur"]}
    assert "A par" in json.loads(row["board_before"])["units"]["France"]
    assert "A bur" in json.loads(row["board_after"])["units"]["France"]
    results = json.loads(row["results"])
    assert {
        "power": "France",
        "input": "A par - bur",
        "order": "A par - bur",
        "typed": {"type": "move", "unit": "A", "at": "par", "to": "bur", "via_convoy": False},
        "outcome": "succeeds",
        "reason": None,
        "why": None,
    } in results
    kinds = [e["kind"] for e in t.db.query("select kind from events order by id")]
    assert kinds[:2] == ["create", "join"] and "start" in kinds and kinds[-1] == "adjudicate"
    from judge.store import open_db

    again = open_db(t.path)  # reopening applies no migration twice
    from judge.store.schema import migrations

    assert len(list(again.query("select * from _sqlite_migrations"))) == len(migrations._migrations)


def test_power_assignment_modes(tmp_path: Path, capsys) -> None:
    t = Table(tmp_path / "judge.db")
    t.cli("game", "create", "m", "--assign", "master")
    t.cli("game", "join", "m", "--email", "x@p.test", "--password", "pw-x")
    for power in POWERS[1:]:
        t.cli("game", "join", "m", "--power", power, "--email", addr(power), "--password", f"pw-{power}")
    assert t.cli("game", "start", "m") == 1  # the master must give everyone a power
    t.cli("game", "create", "r", "--assign", "random")
    for power in POWERS:
        t.reply(addr(power), f"JOIN r pw-{power} {power}")
    assert t.cli("game", "start", "r", "--seed", "3") == 0
    seats = {p["power"] for p in t.show("r", capsys)["players"]}
    assert seats == set(POWERS)


def test_clear_withdraws_orders(t: Table) -> None:
    t.reply(addr("France"), sign("France", "A par - bur", "A mar - spa"))
    text = t.reply(addr("France"), sign("France", "CLEAR", "F bre - mao"))
    assert "withdrawn" in text
    assert records.orders_of(t.db, game(t).id, "S1901M")["France"] == ["F bre - mao"]


def test_sandbox_and_help_by_mail(t: Table) -> None:
    text = t.reply(
        "anyone@p.test",
        "SANDBOX\nphase F1901M\nEngland: F nth, A yor\nGermany: F hel\nORDERS\n"
        "England: F nth C A yor - nwy\nEngland: A yor - nwy\nENDSANDBOX\nHELP",
    )
    assert "A yor - nwy: succeeds" in text and "England    F nth, A nwy" in text
    assert "SIGNON <power> <game> <password>" in text
    assert game(t).phase == "S1901M"  # no game was touched


def test_mail_handle_command_line(t: Table, tmp_path: Path) -> None:
    import subprocess
    import sys

    message = tmp_path / "m.eml"
    message.write_bytes(raw_mail(addr("France"), sign("France", "A par - bur")))
    done = subprocess.run(
        [sys.executable, "-m", "judge.cli", "mail", "handle", str(message), "--db", str(t.path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parent.parent,
    )
    assert done.returncode == 0, done.stderr
    assert f"To: {addr('France')}" in done.stdout and "OK: A par - bur" in done.stdout
    assert records.orders_of(t.db, game(t).id, "S1901M")["France"] == ["A par - bur"]
