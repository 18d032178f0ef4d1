"""The game master's toolkit: who is told what (once), deadlines, seats, the end of a game, settings, the views."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from gamekit import POWERS, Table

from judge.reports.render import LANGUAGES, render_mail


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


@pytest.fixture
def t(tmp_path: Path) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", "--master", "gm@p.test", reuse=True)
    return table


def mails(t: Table, since: int = 0) -> list[dict]:
    return [m for m in t.outbox() if m["id"] > since]


def last_id(t: Table) -> int:
    rows = t.outbox()
    return rows[-1]["id"] if rows else 0


def test_the_master_hears_when_the_game_fills(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--master", "gm@p.test") == 0
    for power in POWERS[:-1]:
        t.cli("game", "join", "g", "--power", power, "--email", addr(power), "--password", f"pw-{power}")
    assert not [m for m in t.outbox() if m["to_addr"] == "gm@p.test"]
    t.cli("game", "join", "g", "--power", "Turkey", "--email", addr("Turkey"), "--password", "pw-Turkey")
    filled = [m for m in t.outbox() if m["to_addr"] == "gm@p.test"]
    assert len(filled) == 1 and "all players have joined" in filled[0]["subject"]
    assert "judge game start g" in filled[0]["body"]


def test_replace_tells_both_players_and_never_the_password(t: Table, capsys) -> None:
    mark = last_id(t)
    assert t.cli("game", "replace", "g", "--power", "France", "--email", "New@p.test", "--password", "pw-new-fr") == 0
    sent = mails(t, mark)
    assert sorted(m["to_addr"] for m in sent) == ["france@p.test", "new@p.test"]
    new = next(m for m in sent if m["to_addr"] == "new@p.test")
    assert "you now play France" in new["subject"]
    assert "SIGNON France g <password>" in new["body"] and "SET PASSWORD" in new["body"]
    assert "pw-new-fr" not in new["body"] and "pw-new-fr" not in (new["html"] or "")
    assert "orders are due" in new["body"]
    old = next(m for m in sent if m["to_addr"] == "france@p.test")
    assert "no longer play France" in old["subject"]
    assert "sign-on failed" in t.reply(addr("France"), sign("France"))
    assert "signed on as France" in t.reply("new@p.test", "SIGNON France g pw-new-fr")


def test_one_address_two_powers_only_where_allowed(t: Table, capsys) -> None:
    capsys.readouterr()
    assert t.cli("game", "replace", "g", "--power", "France", "--email", addr("England"), "--password", "pwpw") == 1
    assert "shared_addresses" in capsys.readouterr().err
    assert t.cli("game", "settings", "g", "shared_addresses", "true") == 0
    assert t.cli("game", "replace", "g", "--power", "France", "--email", addr("England"), "--password", "pwpw") == 0
    capsys.readouterr()
    assert t.cli("game", "settings", "g", "shared_addresses", "false") == 1  # not while one address holds two
    assert "replace one of them first" in capsys.readouterr().err
    mark = last_id(t)
    t.cli("game", "pause", "g")
    assert [m["to_addr"] for m in mails(t, mark)].count(addr("England")) == 1  # one mail per address


def test_an_extension_mails_each_player_who_owes_orders_once(t: Table, capsys) -> None:
    t.reply(addr("France"), sign("France", "A par - bur"))
    mark = last_id(t)
    for _ in range(19):
        assert t.cli("game", "extend", "g", "1h") == 0
    sent = mails(t, mark)
    assert "france@p.test" not in {m["to_addr"] for m in sent}  # France has sent orders
    assert "gm@p.test" not in {m["to_addr"] for m in sent}
    per = {a: sum(1 for m in sent if m["to_addr"] == a) for a in {m["to_addr"] for m in sent}}
    assert per == {addr(p): 19 for p in POWERS if p != "France"}  # one mail per extension, no more
    assert all("deadline extended" in m["subject"] for m in sent)
    shown = t.show("g", capsys)
    assert shown["deadline"] == "2026-12-04T07:00:00Z"  # 48h + 19h


def test_shortening_and_absolute_deadlines(t: Table, capsys) -> None:
    t.reply(addr("France"), sign("France", "A par - bur"))
    mark = last_id(t)
    assert t.cli("game", "shorten", "g", "24h") == 0
    sent = mails(t, mark)
    assert len({m["to_addr"] for m in sent}) == 7 == len(sent)  # everyone who owes orders, even those who sent some
    assert "brought forward" in sent[0]["subject"]
    assert t.show("g", capsys)["deadline"] == "2026-12-02T12:00:00Z"
    assert t.cli("game", "extend", "g", "--to", "2026-12-02T10:00") == 0  # earlier: a shortening too (UTC host)
    assert t.show("g", capsys)["deadline"] == "2026-12-02T10:00:00Z"
    assert t.cli("game", "shorten", "g", "2d") == 1  # into the past: refused, unchanged
    assert t.show("g", capsys)["deadline"] == "2026-12-02T10:00:00Z"


def test_extension_while_paused(t: Table, capsys) -> None:
    t.later(hours=40)
    assert t.cli("game", "pause", "g") == 0
    assert t.cli("game", "extend", "g", "1d") == 0
    shown = t.show("g", capsys)
    assert shown["status"] == "paused" and shown["paused_remaining"] == 32 * 3600
    assert t.cli("game", "shorten", "g", "32h") == 1  # would leave less than an hour
    assert t.cli("game", "extend", "g", "--to", "2026-12-09T00:00") == 1
    t.later(hours=100)
    assert t.cli("game", "resume", "g") == 0
    assert t.show("g", capsys)["deadline"] == "2026-12-08T16:00:00Z"  # resumed with the 32 hours left


def test_eject_and_replace(t: Table, capsys) -> None:
    mark = last_id(t)
    assert t.cli("game", "eject", "g", "italy") == 0
    sent = mails(t, mark)
    assert [m["to_addr"] for m in sent] == [addr("Italy")] and "removed" in sent[0]["subject"]
    assert "sign-on failed" in t.reply(addr("Italy"), sign("Italy"))
    italy = next(p for p in t.show("g", capsys)["players"] if p["power"] == "Italy")
    assert italy["resigned"] and italy["owes_orders"]
    for power in POWERS:
        if power != "Italy":
            t.reply(addr(power), sign(power, "READY"))
    assert t.show("g", capsys)["phase"] == "F1901M"  # the ejected power is not waited for
    assert t.cli("game", "replace", "g", "--power", "Italy", "--email", "it2@p.test", "--password", "pw-it2") == 0
    assert "signed on as Italy" in t.reply("it2@p.test", "SIGNON Italy g pw-it2")


def test_end_with_a_draw_or_abandoned_and_delete(t: Table, tmp_path: Path, capsys) -> None:
    mark = last_id(t)
    assert t.cli("game", "end", "g", "--draw", "france", "England", "russia") == 0
    shown = t.show("g", capsys)
    assert shown["status"] == "finished" and shown["deadline"] is None
    assert shown["result"] == {"kind": "draw", "powers": ["England", "France", "Russia"], "by": "master"}
    over = [m for m in mails(t, mark) if "is over" in m["subject"]]
    assert len({m["to_addr"] for m in over}) == len(over) == 8  # seven players and the master, once each
    assert "draw among England, France, Russia" in over[0]["body"]
    assert t.cli("game", "end", "g", "--abandoned") == 0  # already over: nothing changed
    assert t.cli("game", "create", "h") == 0
    t.cli("game", "join", "h", "--email", "x@p.test", "--password", "pw-x")
    mark = last_id(t)
    assert t.cli("game", "delete", "h") == 0
    assert [m["to_addr"] for m in mails(t, mark)] == ["x@p.test"]
    assert t.cli("game", "show", "h") == 1
    assert t.cli("game", "delete", "g") == 1  # a game that started is ended, not deleted
    t2 = Table(tmp_path / "two.db")
    t2.seven("a", reuse=True)
    assert t2.cli("game", "end", "a", "--abandoned") == 0
    body = next(m for m in t2.outbox() if "is over" in m["subject"])["body"]
    assert "abandoned" in body


def test_missing_two_deadlines_in_a_row_is_told_to_the_master_once(t: Table) -> None:
    holds = {
        "Austria": "A vie H",
        "England": "F lon H",
        "France": "A par H",
        "Germany": "A ber H",
        "Italy": "A rom H",
        "Russia": "A mos H",
        "Turkey": "A con H",
    }

    def orders_from_all_but(*late: str) -> None:
        for power in POWERS:
            if power not in late:
                t.reply(addr(power), sign(power, holds[power]))

    def gm_notes() -> list[dict]:
        return [m for m in t.outbox() if m["to_addr"] == "gm@p.test" and "in a row" in m["subject"]]

    orders_from_all_but("Turkey")
    t.later(hours=49)
    t.cli("game", "tick")  # S1901M: Turkey misses once
    assert gm_notes() == []
    orders_from_all_but("Turkey")
    t.later(hours=49)
    t.cli("game", "tick")  # F1901M: twice in a row
    notes = gm_notes()
    assert len(notes) == 1 and "Turkey" in notes[0]["subject"] and addr("Turkey") in notes[0]["body"]
    t.later(hours=25)
    t.cli("game", "tick")  # the adjustments (if any) and the next movement: a third miss is not mailed again
    t.later(hours=49)
    t.cli("game", "tick")
    assert len(gm_notes()) == 1
    t.cli("game", "replace", "g", "--power", "Turkey", "--email", "t2@p.test", "--password", "pw-t2")
    for _ in range(2):  # the new player starts with a clean slate: told again only after two misses of their own
        assert len([m for m in gm_notes() if "Turkey" in m["subject"]]) == 1
        orders_from_all_but("Turkey")
        t.later(hours=49)
        t.cli("game", "tick")
    turkey = [m for m in gm_notes() if "Turkey" in m["subject"]]
    assert len(turkey) == 2 and "t2@p.test" in turkey[1]["body"]


def test_show_has_orders_in_ready_and_every_setting(t: Table, capsys) -> None:
    t.reply(addr("France"), sign("France", "A par - bur", "READY"))
    capsys.readouterr()
    assert t.cli("game", "show", "g") == 0
    out = capsys.readouterr().out
    france = next(line for line in out.splitlines() if line.strip().startswith("France"))
    england = next(line for line in out.splitlines() if line.strip().startswith("England"))
    assert "1 line " in france and "yes" in france
    assert "MISSING" in england and " no " in england
    assert "settings:" in out and "press white" in out and "movement_deadline 2d" in out
    shown = t.show("g", capsys)
    fr = next(p for p in shown["players"] if p["power"] == "France")
    assert fr["order_lines"] == 1 and fr["ready"] and fr["owes_orders"]
    assert shown["settings"]["master"] == "gm@p.test" and shown["victory"]["solo_now"] == 18


def test_settings_change_and_tell_the_players(t: Table, capsys) -> None:
    mark = last_id(t)
    assert t.cli("game", "settings", "g", "press", "grey") == 0
    assert t.cli("game", "settings", "g", "deadline", "3d") == 0
    assert t.cli("game", "settings", "g", "solo", "20") == 0
    assert t.cli("game", "settings", "g", "last-year", "1910") == 0
    assert t.cli("game", "settings", "g", "anonymous", "yes") == 0
    sent = mails(t, mark)
    assert len(sent) == 5 * 7 and all("settings changed" in m["subject"] for m in sent)
    assert any("press = grey" in m["body"] for m in sent)
    capsys.readouterr()
    assert t.cli("game", "settings", "g") == 0
    out = capsys.readouterr().out
    for expected in ("press", "grey", "movement_deadline", "3d", "solo", "20", "last_year", "1910", "anonymous"):
        assert expected in out
    assert t.cli("game", "settings", "g", "solo", "default") == 0
    assert t.show("g", capsys)["victory"]["solo_now"] == 18
    assert t.cli("game", "settings", "g", "last_year", "1800") == 1
    assert t.cli("game", "settings", "g", "anonymous", "maybe") == 1


def test_anonymous_games_hide_addresses(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--anonymous", reuse=True)
    started = [m for m in t.outbox() if "has started" in m["subject"]]
    assert started and all("@p.test" not in m["body"] for m in started)


def test_outbox_list_shows_attempts_and_the_last_error(t: Table, capsys) -> None:
    first = t.outbox()[0]["id"]
    t.db.execute("update outbox set attempts = 3, last_error = ? where id = ?", ["550 mailbox unavailable", first])
    t.db.conn.commit()
    capsys.readouterr()
    assert t.cli("outbox", "list") == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith(str(first)))
    assert "3 tries" in line and "550 mailbox unavailable" in line
    assert t.cli("outbox", "list", "--json") == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["attempts"] == 3 and row["last_error"] == "550 mailbox unavailable"
    t.db.execute("update outbox set status = 'sending' where id = ?", [first])  # claimed by a sender
    t.db.conn.commit()
    assert t.cli("outbox", "list", "--status", "sending", "--json") == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [first]
    assert t.cli("outbox", "list", "--status", "queued", "--json") == 0
    assert first not in [r["id"] for r in json.loads(capsys.readouterr().out)]


def test_passwords_from_a_file_stdin_or_a_warned_option(tmp_path: Path, capsys, monkeypatch) -> None:
    t = Table(tmp_path / "judge.db")
    t.cli("game", "create", "g")
    secret = tmp_path / "pw"
    secret.write_text("from-file-pw\nignored\n")
    capsys.readouterr()
    assert t.cli("game", "join", "g", "--power", "France", "--email", "f@p.test", "--password-file", str(secret)) == 0
    assert "warning" not in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("from-stdin-pw\n"))
    assert t.cli("game", "join", "g", "--power", "Italy", "--email", "i@p.test", "--password-file", "-") == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("piped-pw\n"))
    assert t.cli("game", "join", "g", "--power", "Russia", "--email", "r@p.test") == 0  # not a terminal: one line
    assert t.cli("game", "join", "g", "--power", "Turkey", "--email", "t@p.test", "--password", "pw-cmdline") == 0
    assert "--password is visible" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert t.cli("game", "join", "g", "--power", "Austria", "--email", "a@p.test") == 2
    for power in ("England", "Germany", "Austria"):
        t.cli("game", "join", "g", "--power", power, "--email", f"{power}@p.test", "--password", "pw-x")
    t.cli("game", "start", "g")
    assert "signed on" in t.reply("f@p.test", "SIGNON France g from-file-pw")
    assert "signed on" in t.reply("i@p.test", "SIGNON Italy g from-stdin-pw")
    assert "signed on" in t.reply("r@p.test", "SIGNON Russia g piped-pw")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_new_mail_reads_in_every_language(t: Table, language: str) -> None:
    from judge.game.service import get_game

    game = get_game(t.db, "g")
    cases = [
        ("announcement", {"what": w, "detail": "press = grey"})
        for w in ("extended", "shortened", "settings", "deleted")
    ]
    cases += [("seat_change", {"what": w, "power": "France"}) for w in ("replaced_in", "replaced_out", "ejected")]
    cases += [
        ("master_notice", {"what": "filled", "power": None, "email": None, "count": 7}),
        ("master_notice", {"what": "missed", "power": "Turkey", "email": "t@p.test", "count": 2}),
    ]
    cases += [
        ("game_over", {"result": r, "history": [], "powers": list(game.variant.powers)})
        for r in (
            {"kind": "draw", "powers": ["France", "Italy"], "by": "master"},
            {"kind": "abandoned", "by": "master"},
        )
    ]
    for name, context in cases:
        mail = render_mail(name, language, game=game, deadline="soon", **context)
        english = render_mail(name, "en", game=game, deadline="soon", **context)
        assert mail.subject and mail.text.strip() and mail.html and "<html" in mail.html
        assert "settings" not in mail.subject or language == "en", mail.subject  # the words are translated
        if language != "en":
            assert mail.text != english.text and mail.subject != english.subject, (name, context)
        for line in mail.text.splitlines():
            assert len(line) <= 110, line
