"""Press, diaries, postal press, anonymous games and draws naming powers, by mail (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gamekit import POWERS, Table
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from judge.commands.body import JUDGE_MARKER, parse_body
from judge.commands.items import Diary, Press


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def table(tmp_path: Path, *options: str) -> Table:
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "48h", *options, reuse=True)
    return t


def new_mail(t: Table, since: int) -> list[dict[str, Any]]:
    return [m for m in t.outbox() if m["id"] > since]


def last_id(t: Table) -> int:
    rows = t.outbox()
    return rows[-1]["id"] if rows else 0


def press_mail(mails: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in mails if "press from" in m["subject"]]


def everyone_accepts(t: Table, proposer: str = "England") -> None:
    t.reply(addr(proposer), sign(proposer, "DRAW PROPOSE"))
    for power in POWERS:
        if power != proposer:
            t.reply(addr(power), sign(power, "DRAW ACCEPT"))


# --- PRESS TO: names, initials, ALL -----------------------------------------------------------------------------------


@pytest.mark.parametrize("header", ["PRESS TO EG", "PRESS TO England Germany", "press to: eg", "PRESS England, G"])
def test_press_to_names_or_initials(tmp_path: Path, header: str) -> None:
    t = table(tmp_path)
    before = last_id(t)
    text = t.reply(addr("France"), sign("France", header, "Shall we talk?", "ENDPRESS"))
    assert "press sent to England, Germany" in text
    sent = press_mail(new_mail(t, before))
    assert sorted(m["to_addr"] for m in sent) == [addr("England"), addr("Germany")]
    assert all("Press from France" in m["body"] and "Shall we talk?" in m["body"] for m in sent)


def test_press_to_all_reaches_every_player_and_observer(tmp_path: Path) -> None:
    t = table(tmp_path)
    t.reply("fan@p.test", "OBSERVE g")
    before = last_id(t)
    assert "press sent to everyone" in t.reply(addr("Italy"), sign("Italy", "PRESS TO ALL", "Hello", "ENDPRESS"))
    to = sorted(m["to_addr"] for m in press_mail(new_mail(t, before)))
    assert to == sorted([addr(p) for p in POWERS if p != "Italy"] + ["fan@p.test"])


@pytest.mark.parametrize("header,bad", [("PRESS TO EX", "'EX'"), ("PRESS TO England Germny", "'Germny'")])
def test_bad_power_names_send_nothing(tmp_path: Path, header: str, bad: str) -> None:
    t = table(tmp_path)
    before = last_id(t)
    text = t.reply(addr("France"), sign("France", header, "secret plan", "ENDPRESS"))
    assert f"Classic has no power {bad}" in text and "ERROR" in text
    assert not press_mail(new_mail(t, before))


def test_press_header_problems_send_nothing(tmp_path: Path) -> None:
    t = table(tmp_path)
    before = last_id(t)
    text = t.reply(
        addr("France"), sign("France", "PRESS TO ALL England", "x", "ENDPRESS", "PRESS TO E GREY WHITE", "y")
    )
    assert "ALL stands alone" in text and "say GREY or WHITE, not both" in text
    assert not press_mail(new_mail(t, before))


# --- white and grey -------------------------------------------------------------------------------------------------


def test_a_game_with_both_lets_each_message_choose(tmp_path: Path) -> None:
    t = table(tmp_path, "--press", "both")
    before = last_id(t)
    t.reply(addr("France"), sign("France", "PRESS TO E", "signed", "ENDPRESS"))
    text = t.reply(addr("France"), sign("France", "PRESS TO E GREY", "unsigned", "ENDPRESS"))
    assert "without your name (grey press)" in text
    sent = press_mail(new_mail(t, before))
    assert "Press from France" in sent[0]["body"] and "signed" in sent[0]["body"]
    assert "Press from an anonymous power" in sent[1]["body"] and "France" not in sent[1]["subject"]
    # SET PRESS GREY: the player's default from now on, WHITE on a message still signs it
    assert "goes without your name unless a message says WHITE" in t.reply(
        addr("France"), sign("France", "SET PRESS GREY")
    )
    before = last_id(t)
    t.reply(addr("France"), sign("France", "BROADCAST", "who am I?", "ENDPRESS"))
    t.reply(addr("France"), sign("France", "PRESS TO R WHITE", "it is me", "ENDPRESS"))
    sent = press_mail(new_mail(t, before))
    assert all("anonymous power" in m["body"] for m in sent[:-1]) and len(sent) == 7
    assert "Press from France" in sent[-1]["body"] and sent[-1]["to_addr"] == addr("Russia")
    assert "is signed unless a message says GREY" in t.reply(addr("France"), sign("France", "SET PRESS WHITE"))
    assert "white or grey, as each message chooses" in t.reply(addr("France"), sign("France", "GET RULES"))


def test_a_white_game_refuses_grey_and_set_press(tmp_path: Path) -> None:
    t = table(tmp_path)
    before = last_id(t)
    text = t.reply(addr("France"), sign("France", "PRESS TO E GREY", "psst", "ENDPRESS", "SET PRESS GREY"))
    assert text.count("game g allows only white press") == 2
    assert not press_mail(new_mail(t, before))
    assert t.cli("game", "settings", "g", "press", "both") == 0
    assert "press sent to England without your name" in t.reply(
        addr("France"), sign("France", "PRESS TO E GREY", "psst", "ENDPRESS")
    )


def test_grey_game_refuses_white_and_russian_reply(tmp_path: Path) -> None:
    t = table(tmp_path, "--press", "grey")
    t.reply(addr("France"), sign("France", "SET LANGUAGE ru"))
    text = t.reply(addr("France"), sign("France", "PRESS TO E WHITE", "hi", "ENDPRESS"))
    assert "разрешена только пресса вида «серая (без подписи)»" in text


# --- POSTAL PRESS ---------------------------------------------------------------------------------------------------


def test_postal_press_is_published_with_the_next_results_only(tmp_path: Path) -> None:
    t = table(tmp_path)
    t.reply("fan@p.test", "OBSERVE g")
    before = last_id(t)
    text = t.reply(addr("France"), sign("France", "POSTAL PRESS", "To all of Europe:", "  peace!", "ENDPRESS"))
    assert "postal press kept; it is published to everyone with the next results" in text
    assert [m["to_addr"] for m in new_mail(t, before)] == [addr("France")]  # only the reply, nothing published yet
    before = last_id(t)
    t.cli("game", "process", "g")
    results = [m for m in new_mail(t, before) if "results of" in m["subject"]]
    assert len(results) == 8  # seven players and the observer
    for mail in results:
        assert "Postal press (POSTAL PRESS), published with these results:" in mail["body"]
        assert "From France:\nTo all of Europe:\n  peace!" in mail["body"]
        assert "peace!" in mail["html"]
    before = last_id(t)
    t.cli("game", "process", "g")
    assert not any("peace!" in m["body"] for m in new_mail(t, before))  # published once


def test_grey_postal_press_and_russian_results(tmp_path: Path) -> None:
    t = table(tmp_path, "--press", "both")
    t.reply(addr("Russia"), sign("Russia", "SET LANGUAGE ru"))
    assert "without your name" in t.reply(addr("France"), sign("France", "POSTAL PRESS GREY", "boo", "ENDPRESS"))
    before = last_id(t)
    t.cli("game", "process", "g")
    mails = {m["to_addr"]: m for m in new_mail(t, before) if m["to_addr"] in (addr("Russia"), addr("Italy"))}
    assert "From an anonymous power:\nboo" in mails[addr("Italy")]["body"]
    assert "От анонимной державы:\nboo" in mails[addr("Russia")]["body"]
    assert "France" not in mails[addr("Italy")]["body"].split("POSTAL PRESS")[1]


def test_postal_press_refused_where_there_is_no_press(tmp_path: Path) -> None:
    t = table(tmp_path, "--press", "none")
    assert "game g has no press" in t.reply(addr("France"), sign("France", "POSTAL PRESS", "x", "ENDPRESS"))
    text = t.reply(addr("France"), sign("France", "POSTAL PRESS TO E", "A par - bur", "ENDPRESS", "Postal code 12345"))
    assert text.count("write POSTAL PRESS on its line") == 2 and "OK: A par - bur" not in text


# --- DIARY ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ending", ["draw", "abandoned", "master-draw"])
def test_diaries_are_private_until_the_game_ends_then_mailed_to_all(tmp_path: Path, ending: str) -> None:
    t = table(tmp_path)
    t.reply("fan@p.test", "OBSERVE g")
    t.reply(addr("Germany"), sign("Germany", "SET LANGUAGE de"))
    before = last_id(t)
    text = t.reply(addr("France"), sign("France", "DIARY", "I will stab Germany in 1903.", "RESIGN", "ENDDIARY"))
    assert "diary entry kept (1 so far)" in text
    assert "kept (2 so far)" in t.reply(addr("France"), sign("France", "DIARY", "Or 1904.", "END DIARY"))
    t.reply(addr("Germany"), sign("Germany", "DIARY", "France is my friend.", "ENDDIARY"))
    t.cli("game", "process", "g")
    mails = new_mail(t, before)
    assert not any("stab" in m["body"] or "my friend" in m["body"] for m in mails)  # nobody reads them yet
    assert all(m["to_addr"] in (addr("France"), addr("Germany")) for m in mails if "Re:" in m["subject"])
    assert not [p for p in t.db.query("select resigned from players where power = 'France' and resigned = 1")]
    before = last_id(t)
    if ending == "draw":
        everyone_accepts(t)
    elif ending == "abandoned":
        assert t.cli("game", "end", "g", "--abandoned") == 0
    else:
        assert t.cli("game", "end", "g", "--draw", "France", "Germany") == 0
    over = [m for m in new_mail(t, before) if "is over" in m["subject"] or "beendet" in m["subject"]]
    assert sorted(m["to_addr"] for m in over) == sorted([addr(p) for p in POWERS] + ["fan@p.test"])
    for mail in over:
        body = mail["body"]
        assert "I will stab Germany in 1903.\nRESIGN" in body and "Or 1904." in body
        assert "France is my friend." in body and "I will stab" in mail["html"]
    german = next(m for m in over if m["to_addr"] == addr("Germany"))["body"]
    assert "Tagebücher (DIARY), bis jetzt unter Verschluss:" in german
    english = next(m for m in over if m["to_addr"] == addr("Italy"))["body"]
    assert "Diaries (DIARY), kept private until now:" in english and "France, S1901M:" in english


def test_diary_needs_a_sign_on_a_running_game_and_text(tmp_path: Path) -> None:
    t = table(tmp_path)
    assert "sign on first" in t.reply("x@p.test", "DIARY\nhello\nENDDIARY")
    text = t.reply(addr("France"), sign("France", "DIARY", "", "ENDDIARY", "DIARY now", "x", "ENDDIARY"))
    assert "this diary entry is empty and was not kept" in text and "DIARY takes nothing after it" in text
    text = t.reply(addr("France"), sign("France", "DIARY", "forgot the end"))
    assert "DIARY without ENDDIARY: the diary entry ran to the end" in text and "diary entry kept (1 so far)" in text
    t.cli("game", "end", "g", "--abandoned")
    assert "game g is finished: it is not running" in t.reply(addr("France"), sign("France", "DIARY", "x", "ENDDIARY"))
    assert next(iter(t.db.query("select count(*) as n from diaries")))["n"] == 1


# --- anonymous games ------------------------------------------------------------------------------------------------


def _leaks(mail: dict[str, Any]) -> list[str]:
    """The other players' addresses a mail shows."""
    text = " ".join(str(mail[k] or "") for k in ("subject", "body", "html"))
    return [addr(p) for p in POWERS if addr(p) != mail["to_addr"] and addr(p) in text]


def test_an_anonymous_game_reveals_no_address_until_the_end(tmp_path: Path) -> None:
    t = table(tmp_path, "--anonymous", "--press", "white")
    t.reply("fan@p.test", "OBSERVE g")
    t.reply(addr("Germany"), "SIGNON France g wrong-password")  # France is warned, without Germany's address
    text = t.reply(addr("France"), sign("France", "PRESS TO E WHITE", "hi", "ENDPRESS"))
    assert "game g is anonymous: its press is always grey" in text
    t.reply(addr("France"), sign("France", "PRESS TO EG", "hello", "ENDPRESS", "BROADCAST", "hi all", "ENDPRESS"))
    t.reply(addr("France"), sign("France", "POSTAL PRESS", "open letter", "ENDPRESS", "DIARY", "notes", "ENDDIARY"))
    assert "press sent to England, Germany without your name" in t.reply(
        addr("Italy"), sign("Italy", "PRESS TO England Germany", "x", "ENDPRESS")
    )
    for power, lines in {"France": ["A par - bur"], "Germany": ["A mun - bur"]}.items():
        t.reply(addr(power), sign(power, *lines, "READY"))
    t.cli("game", "process", "g")
    t.reply(addr("Austria"), sign("Austria", "DRAW PROPOSE"))
    t.reply(addr("Turkey"), sign("Turkey", "DRAW REJECT"))
    for ask in ("LIST g", "WHOGAME g", "SUMMARY g", "HISTORY g", "GET RULES g", "LIST"):
        t.reply(addr("Russia"), ask)
        t.reply("fan@p.test", ask)
    t.reply(addr("Russia"), sign("Russia", "ORDERS", "RESIGN"))
    t.cli("game", "process", "g")
    running = t.outbox()
    assert len(running) > 60
    assert [(m["to_addr"], m["subject"], _leaks(m)) for m in running if _leaks(m)] == []
    assert all("Press from an anonymous power" in m["body"] for m in press_mail(running))
    alert = [m for m in running if "failed sign-ons" in m["subject"]]
    assert [m["to_addr"] for m in alert] == [addr("France")]
    assert "1 of the addresses play in this anonymous game and are not shown" in alert[0]["body"]
    postal = [m for m in running if "open letter" in m["body"]]
    assert postal and all("From an anonymous power:" in m["body"] for m in postal)
    before = last_id(t)
    t.cli("game", "end", "g", "--abandoned")
    over = new_mail(t, before)
    assert len(over) == 8  # every seat (Russia resigned but is told) and the observer
    for mail in over:
        assert "Who played which power:" in mail["body"]
        assert all(addr(p) in mail["body"] for p in POWERS)  # the end reveals who played what
    assert "fan@p.test" not in over[0]["body"]  # observers are not players


# --- draws naming powers --------------------------------------------------------------------------------------------


def test_named_draws_are_refused_unless_the_game_allows_them(tmp_path: Path) -> None:
    t = table(tmp_path)
    text = t.reply(addr("France"), sign("France", "DRAW PROPOSE England France"))
    assert "a draw in game g is shared by every power still in the game: write DRAW PROPOSE alone" in text
    assert "draw proposed" in t.reply(addr("France"), sign("France", "DRAW PROPOSE"))  # nothing was proposed


def test_a_named_draw_ends_the_game_among_those_powers(tmp_path: Path) -> None:
    t = table(tmp_path, "--named-draws")
    t.reply(addr("Italy"), sign("Italy", "SET LANGUAGE ru"))
    before = last_id(t)
    text = t.reply(addr("Austria"), sign("Austria", "DRAW PROPOSE England France Russia"))
    assert "draw among England, France, Russia proposed; every player still in the game must accept" in text
    news = [m for m in new_mail(t, before) if m["to_addr"] != addr("Austria")]
    assert len(news) == 6
    english = next(m for m in news if m["to_addr"] == addr("Turkey"))
    assert "The draw it proposes is among England, France, Russia only" in english["body"]
    assert "Austria" not in english["body"]  # the proposer is not named
    assert "ничья только между" in next(m for m in news if m["to_addr"] == addr("Italy"))["body"]
    assert "already been proposed this turn" in t.reply(addr("France"), sign("France", "DRAW PROPOSE EF"))
    before = last_id(t)
    for power in POWERS[1:]:
        t.reply(addr(power), sign(power, "DRAW ACCEPT"))
    result = json.loads(next(iter(t.db.query("select result from games")))["result"])
    assert result == {"kind": "draw", "powers": ["England", "France", "Russia"], "named": True}
    over = [m for m in new_mail(t, before) if m["to_addr"] == addr("Germany") and "is over" in m["subject"]]
    assert "a draw among England, France, Russia, accepted by every player still in the game" in over[0]["body"]


@pytest.mark.parametrize(
    "proposal,answer",
    [
        ("DRAW PROPOSE England", "a draw needs at least two powers"),
        ("DRAW PROPOSE England Englnd", "Classic has no power 'Englnd'"),
        ("DRAW PROPOSE EQ", "Classic has no power 'EQ'"),
        ("DRAW PROPOSE England Russia", "Russia cannot share a draw: no longer in the game"),
        ("DRAW PROPOSE EF", "draw among England, France proposed"),
    ],
)
def test_named_draw_proposals_checked(tmp_path: Path, proposal: str, answer: str) -> None:
    t = table(tmp_path, "--named-draws")
    t.reply(addr("Russia"), sign("Russia", "RESIGN"))
    assert answer in t.reply(addr("Austria"), sign("Austria", proposal))


def test_a_draw_naming_every_survivor_is_the_plain_draw(tmp_path: Path) -> None:
    t = table(tmp_path, "--named-draws")
    t.reply(addr("Turkey"), sign("Turkey", "RESIGN"))
    everyone = " ".join(p for p in POWERS if p != "Turkey")
    assert "draw proposed; every player" in t.reply(addr("Austria"), sign("Austria", f"DRAW PROPOSE {everyone}"))


def test_named_draws_setting_and_house_rules(tmp_path: Path) -> None:
    t = table(tmp_path)
    assert t.cli("game", "settings", "g", "named_draws", "true") == 0
    assert "may name the powers that share it" in t.reply(addr("France"), sign("France", "GET RULES"))
    assert "draw among England, France proposed" in t.reply(addr("France"), sign("France", "DRAW PROPOSE EF"))


# --- the parser -----------------------------------------------------------------------------------------------------

_NAMES = st.lists(st.sampled_from([*POWERS, "E", "eg", "USSR", "Austria-Hungary"]), min_size=1, max_size=4)


@settings(max_examples=200)
@given(
    names=_NAMES,
    shade=st.sampled_from(["", "GREY", "gray", "White"]),
    to=st.sampled_from(["TO ", "to: ", ""]),
    sep=st.sampled_from([" ", ", ", ";"]),
    first=st.booleans(),
    body=st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=80),
)
def test_press_headers_read_names_and_shade(
    names: list[str], shade: str, to: str, sep: str, first: bool, body: str
) -> None:
    assume(JUDGE_MARKER not in body.lower())  # the judge's own marker ends what is read, on purpose
    words = sep.join(names)
    header = f"PRESS {shade} {to}{words}" if first else f"PRESS {to}{words} {shade}"
    text = "\n".join([header, "x" + body.replace("\r", " ").replace("\n", " "), "ENDPRESS"])
    read = parse_body(text)
    assert read.problems == ()
    (item,) = read.items
    assert isinstance(item, Press) and item.to == tuple(names) and not item.postal
    assert item.shade == ({"": None, "GREY": "grey", "gray": "grey", "White": "white"}[shade])


@settings(max_examples=200)
@given(
    head=st.sampled_from(["DIARY", "POSTAL PRESS", "POSTAL PRESS GREY", "POSTAL PRESS TO ALL", "POSTAL"]),
    lines=st.lists(st.text(max_size=40), max_size=6),
)
def test_diary_and_postal_blocks_never_leak_lines_as_orders(head: str, lines: list[str]) -> None:
    end = "ENDDIARY" if head == "DIARY" else "ENDPRESS"
    inside = [line.replace("\r", " ").replace("\n", " ") for line in lines]
    # the judge's own marker and signature, rule and forward lines end what is read, on purpose (even in a block)
    assume(not any(JUDGE_MARKER in line.lower() or line.strip()[:1] in ("-", "_") for line in inside))
    read = parse_body("\n".join([head, *inside, end, "READY"]))
    assert read.items[-1].text == "READY"
    for item in read.items[:-1]:
        assert isinstance(item, (Diary, Press))
        if isinstance(item, Press):
            assert item.postal and item.to is None


def test_the_new_mail_reads_in_every_language(tmp_path: Path) -> None:
    """Postal press in results, a named draw's news, and the game-over mail's roster, postal press and diaries."""
    t = table(tmp_path, "--named-draws")
    languages = {"England": "en", "Russia": "ru", "Germany": "de"}
    for power, language in languages.items():
        t.reply(addr(power), sign(power, f"SET LANGUAGE {language}"))
    t.reply(
        addr("France"), sign("France", "POSTAL PRESS", "first letter", "ENDPRESS", "DIARY", "dear diary", "ENDDIARY")
    )
    before = last_id(t)
    t.cli("game", "process", "g")
    results = {m["to_addr"]: m for m in new_mail(t, before)}
    expect = {
        "en": "Postal press (POSTAL PRESS), published with these results:",
        "ru": "Открытая пресса (POSTAL PRESS), опубликованная с этими результатами:",
        "de": "Öffentliche Presse (POSTAL PRESS), mit diesen Ergebnissen veröffentlicht:",
    }
    for power, language in languages.items():
        mail = results[addr(power)]
        assert expect[language] in mail["body"] and expect[language] in mail["html"]
    t.reply(addr("France"), sign("France", "POSTAL PRESS", "second letter", "ENDPRESS"))
    before = last_id(t)
    t.reply(addr("France"), sign("France", "DRAW PROPOSE France Italy"))
    news = {m["to_addr"]: m for m in new_mail(t, before)}
    draw_words = {"en": "among France, Italy only", "ru": "только между", "de": "gilt nur für"}
    for power, language in languages.items():
        assert draw_words[language] in news[addr(power)]["body"] and draw_words[language] in news[addr(power)]["html"]
    before = last_id(t)
    for power in POWERS:
        if power != "France":
            t.reply(addr(power), sign(power, "DRAW ACCEPT"))
    over = {m["to_addr"]: m for m in new_mail(t, before) if "Re:" not in m["subject"]}
    words = {
        "en": ("Who played which power:", "Postal press not yet published:", "Diaries (DIARY)", "a draw among"),
        "ru": ("Кто какой державой играл:", "Открытая пресса, ещё не опубликованная:", "Дневники (DIARY)", "ничьей"),
        "de": ("Wer welche Macht gespielt hat:", "Öffentliche Presse, noch nicht", "Tagebücher (DIARY)", "Remis"),
    }
    for power, language in languages.items():
        mail = over[addr(power)]
        for word in words[language]:
            assert word in mail["body"] and word in mail["html"], (language, word)
        assert "second letter" in mail["body"] and "dear diary" in mail["body"] and "first letter" not in mail["body"]
