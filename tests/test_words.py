"""Issue 11, every word translated and replies that tell the truth: a real game played by mail, read in Russian and
German, leaves no English word a player reads (province names, abbreviations and order notation excepted); orders
that will be void are refused when they arrive, with the reason."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest

from judge.commands.language import known_commands
from judge.data.catalog import load_variant
from tests.gamekit import Table


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


# words in a Russian or German mail that are not English prose: the map's names, order notation, commands
def _allowed() -> set[str]:
    words: set[str] = set()
    geo = load_variant("classic").geo
    for key in geo.names:
        words.update(key)
    for prov in geo.provinces:
        words.update(w.lower() for w in re.findall(r"[A-Za-z]+", prov.name))
    for cmd in known_commands():
        words.update(cmd.lower().split())
    words.update(
        {
            "a",
            "f",
            "s",
            "h",
            "c",
            "nc",
            "sc",
            "ec",
            "wc",
            "ok",
            "utc",
            "g",
            "judge",
            "mail",
            "p",
            "test",
            "signon",
            "pw",
            "png",
            "map",
            "cet",
            "europe",
            "berlin",
            "moscow",
            "msk",
            "gm",
            "id",
            "cid",
            "build",
            "remove",
            "waive",
            "paris",
            "burgundy",
            "mun",
            "kie",
            "ber",
            "nth",
            "lon",
            "nwy",
            "bel",
            "boh",
            "stp",
            "spa",
            "nato",
            "ussr",
            "vs",
            "via",
            "convoy",
            "disband",
            "to",
            "timezone",
            "language",
            "password",
            "ru",
            "de",
            "en",
            "sandbox",
            "endsandbox",
            "endpress",
            "broadcast",
            "diplomacy",
            "classic",
            "html",
            "hold",
            "etc",
            "gmt",
            "kb",
            "re",
            "iana",
            "gossip",
            "rumour",
            "signof",
            "orders",
        }
    )  # the last four: the player's own words, quoted in an answer
    return words


# English words that are neither German nor a name: their presence in a German mail is an untranslated string
ENGLISH = {
    "the",
    "and",
    "of",
    "your",
    "you",
    "is",
    "are",
    "with",
    "by",
    "has",
    "have",
    "will",
    "was",
    "order",
    "game",
    "deadline",
    "ready",
    "bounced",
    "succeeds",
    "dislodged",
    "spring",
    "fall",
    "movement",
    "retreat",
    "adjustment",
    "centres",
    "centers",
    "units",
    "builds",
    "error",
    "signed",
    "sent",
    "results",
    "holds",
    "support",
    "supports",
    "move",
    "moves",
    "not",
    "for",
    "this",
    "that",
    "power",
    "powers",
    "players",
    "days",
    "hours",
    "ago",
    "received",
    "no",
    "cannot",
    "there",
    "only",
    "may",
    "must",
    "which",
    "province",
    "unit",
    "army",
    "fleet",
    "void",
    "cut",
    "succeeded",
    "failed",
    "see",
    "below",
    "yet",
    "without",
    "when",
    "what",
    "draw",
    "press",
    "message",
    "reply",
    "player",
    "gains",
    "loses",
    "from",
}


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


def _mails_to(t: Table, power: str) -> list[str]:
    """Every mail to the power after it chose its language (its text, subject and HTML, the player's own lines
    quoted back left out)."""
    out = []
    rows = [r for r in t.outbox() if r["to_addr"] == addr(power)]
    chose = next(i for i, r in enumerate(rows) if r["subject"].startswith("Re:"))
    for row in rows[chose:]:
        text = "\n".join(line for line in row["body"].splitlines() if not line.startswith(">"))
        html = row["html"] or ""
        html = re.sub(r"<span[^>]*>&gt;[^<]*</span>", " ", html)  # the player's own lines, quoted
        html = unescape(re.sub(r"<style.*?</style>|<[^>]+>", " ", html, flags=re.S))
        out.append(row["subject"] + "\n" + text + "\n" + html)
    return out


def _latin_words(text: str) -> list[str]:
    text = re.sub(r"\S+@\S+|'[^']*'|\"[^\"]*\"|cid:\S+|\[judge-mail\]", " ", text)
    return [w.lower() for w in re.findall(r"(?<![\w/])[A-Za-z][A-Za-z']*(?![\w/])", text)]


def test_russian_mails_have_no_english_word_left(game: Table) -> None:
    mails = _mails_to(game, "Russia")
    assert len(mails) >= 8
    allowed = _allowed()
    left = {w for mail in mails for w in _latin_words(mail) if w not in allowed}
    assert left == set(), sorted(left)


def test_german_mails_have_no_english_word_left(game: Table) -> None:
    mails = _mails_to(game, "Germany")
    assert len(mails) >= 8
    left = {w for mail in mails for w in _latin_words(mail) if w in ENGLISH}
    assert left == set(), sorted(left)


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
    assert "FEHLER: Moscow ist kein Heimatzentrum von Deutschland" in winter
    assert "FEHLER: Munich ist besetzt" in winter
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
