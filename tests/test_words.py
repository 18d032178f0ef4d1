"""Issue 11, replies that tell the truth: orders that will be void are refused when they arrive, with the reason;
unknown commands are named with the nearest; time-zone hints are right. (Every word translated:
tests/test_mail_words.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gamekit import Table


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Table:
    t = Table(tmp_path_factory.mktemp("words") / "judge.db")
    t.seven("g", "--deadline", "48h", "--grace", "6h", "--master", "gm@p.test", reuse=True)
    t.reply(addr("Russia"), sign("Russia", "SET LANGUAGE ru", "SET TIMEZONE Europe/Moscow"))
    t.reply(addr("Germany"), sign("Germany", "SET LANGUAGE de", "SET TIMEZONE CET"))
    for power in ("Russia", "Germany"):
        t.reply(
            addr(power),
            sign(
                power,
                "GOSSIP",
                "RUMOUR",
                "SIGNOF",
                "A xyz - abc",
                "F stp - nwy",
                "SET TIMEZONE GMT+1",
                "SET TIMEZONE MSK",
                "A mos - war",
                "READY",
                "UNREADY",
                "LIST g",
                "PRESS TO France",
                "hi",
                "ENDPRESS",
                "Build A mos",
            ),
        )
    t.reply(addr("Germany"), sign("Germany", "A mun - bur", "A ber - kie", "F kie - den"))
    t.reply(addr("France"), sign("France", "A par - bur", "A mar S A par - bur", "F bre - mao"))
    t.reply(addr("Austria"), sign("Austria", "A vie - gal"))
    t.reply(addr("Russia"), sign("Russia", "A war - gal", "F sev - bla"))
    t.reply(addr("Turkey"), sign("Turkey", "F ank - bla"))
    t.later(hours=49)
    t.cli("game", "process", "g")  # Spring
    t.reply(addr("Germany"), sign("Germany", "A kie - hol", "F den H"))
    t.reply(addr("Russia"), sign("Russia", "A mos - ukr", "F stp/sc - bot"))
    t.cli("game", "process", "g")  # Fall
    for power in ("Russia", "Germany"):
        t.reply(
            addr(power),
            sign(
                power,
                "Build A mos",
                "Build A ber",
                "Build A kie",
                "Build F kie",
                "Build A mun",
                "Remove A war",
                "Waive",
            ),
        )
    t.cli("game", "process", "g")  # Winter
    return t


@pytest.mark.parametrize(
    "name,hint",
    [
        ("GMT+1", "'Europe/Berlin'"),
        ("GMT+1", "'Etc/GMT-1'"),
        ("UTC-5", "'America/New_York'"),
        ("UTC-5", "'Etc/GMT+5'"),
        ("MSK", "'Europe/Moscow'"),
    ],
)
def test_time_zone_hints_are_right(name: str, hint: str) -> None:
    from judge.timeutil import check_timezone

    with pytest.raises(ValueError) as err:
        check_timezone(name)
    assert hint in str(err.value)
    assert "'Etc/GMT+1'" not in str(err.value)  # that zone is UTC-1, never the hint for GMT+1


def test_cet_is_an_iana_zone() -> None:
    from judge.timeutil import check_timezone

    assert check_timezone("CET") == "CET"


def test_void_orders_are_refused_on_arrival_with_the_reason(game: Table) -> None:
    rows = [r for r in game.outbox() if r["to_addr"] == addr("Germany") and r["subject"].startswith("Re:")]
    winter = rows[-1]["body"]
    assert "FEHLER: Moskau (mos) ist kein Heimatzentrum von Deutschland" in winter
    assert "FEHLER: die Provinz München (mun) ist besetzt" in winter
    assert "FEHLER: Deutschland darf nur 2 aufbauen" in winter  # the third build (a waive) beyond the allowance


def test_unknown_command_is_named_with_the_nearest(game: Table) -> None:
    rows = [r for r in game.outbox() if r["to_addr"] == addr("Russia") and r["subject"].startswith("Re:")]
    body = rows[1]["body"]
    assert "ОШИБКА: GOSSIP — не команда и не приказ" in body
    assert "может быть, SIGNOFF?" in body
    assert "не провинция" not in body.split("> SIGNOF")[0]


def test_a_join_preference_that_names_no_power_is_an_error(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "j") == 0
    body = t.reply("new@p.test", "JOIN j secret-pw Frnace, Germany")
    assert "ERROR: Classic has no power 'Frnace'; did you mean France?" in body
    assert not [r for r in t.db.query("select * from players")]  # nothing changed
