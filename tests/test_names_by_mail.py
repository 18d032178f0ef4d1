"""Issue 22 by mail: players sign on, order and name powers in Russian and German; the judge answers in the
reader's words (places and powers from the variant's [names.<language>])."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gamekit import Table


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Table:
    t = Table(tmp_path_factory.mktemp("names") / "judge.db")
    t.seven("g", "--deadline", "48h", "--grace", "6h", "--master", "gm@p.test", reuse=True)
    t.reply(addr("Russia"), "SIGNON Russia g pw-Russia\nSET LANGUAGE ru")
    t.reply(addr("Germany"), "SIGNON Germany g pw-Germany\nSET LANGUAGE de")
    return t


def test_signon_with_the_power_named_in_russian_or_german(game: Table) -> None:
    answer = game.reply(addr("Russia"), "SIGNON Россия g pw-Russia")
    assert "ОШИБКА" not in answer and "Россия" in answer
    answer = game.reply(addr("Germany"), "SIGNON Deutschland g pw-Germany")
    assert "FEHLER" not in answer and "Deutschland" in answer


def test_an_unknown_power_is_named_with_the_powers_in_the_readers_language(game: Table) -> None:
    answer = game.reply(addr("Russia"), "SIGNON Марс g pw-Russia")
    assert "'Марс' — не держава партии g; её державы: Австрия, Англия, Франция, Германия, Италия, Россия, Турция" in (
        answer
    )
    answer = game.reply(addr("Germany"), "SIGNON Mars g pw-Germany")
    assert "ihre Mächte: Österreich, England, Frankreich, Deutschland, Italien, Russland, Türkei" in answer


def test_a_wrong_game_and_a_wrong_password_are_told_alike(game: Table) -> None:
    wrong_game = game.reply(addr("Russia"), "SIGNON Россия nosuch pw-Russia")
    wrong_password = game.reply(addr("Russia"), "SIGNON Россия g nope")
    for answer in (wrong_game, wrong_password):
        assert "нет такой партии или пароля" in answer


@pytest.mark.parametrize(
    ("power", "line", "want"),
    [
        ("Russia", "А mos - stp", "A mos - stp"),
        ("Russia", "Ф sev - bla", "F sev - bla"),
        ("Russia", "армия Москва - Украина", "A mos - ukr"),
        ("Russia", "Ф Сев - Чёрное море", "F sev - bla"),
        ("Germany", "A München - Burgund", "A mun - bur"),
        ("Germany", "F Kiel - Helgoländer Bucht", "F kie - hel"),
    ],
)
def test_orders_in_the_players_words_are_taken(game: Table, power: str, line: str, want: str) -> None:
    answer = game.reply(addr(power), f"SIGNON {power} g pw-{power}\n{line}")
    assert want in answer and "ОШИБКА" not in answer and "FEHLER" not in answer, answer


def test_a_void_order_names_the_place_in_the_readers_language(game: Table) -> None:
    answer = game.reply(addr("Russia"), "SIGNON Russia g pw-Russia\nF mos - stp")
    assert "Москва (mos)" in answer and "Moscow" not in answer, answer


def test_press_and_draw_name_powers_in_any_language(game: Table) -> None:
    answer = game.reply(addr("Russia"), "SIGNON Russia g pw-Russia\nPRESS TO Германия\nПривет\nENDPRESS")
    assert "ОШИБКА" not in answer, answer
    answer = game.reply(addr("Germany"), "SIGNON Germany g pw-Germany\nPRESS TO Russland, Frankreich\nHallo\nENDPRESS")
    assert "FEHLER" not in answer, answer


def test_the_command_line_takes_a_power_in_any_language(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "h") == 0
    assert t.cli("game", "join", "h", "--power", "Россия", "--email", "ivan@p.test", "--password", "pw-ivan") == 0
    assert t.cli("game", "join", "h", "--power", "Österreich", "--email", "anna@p.test", "--password", "pw-anna") == 0
    answer = t.reply("ivan@p.test", "SIGNON Russia h pw-ivan")
    assert "signed on as Russia in h" in answer
    assert "signed on as Austria in h" in t.reply("anna@p.test", "SIGNON Austria h pw-anna")


# --- a played game of each shipped variant: no English place or power name in a Russian or German mail ----------


def _cold_war(folder: Path) -> Table:
    """A Cold War game: the USSR read in Russian, NATO in German; a year played with moves, a bounce, a void order,
    centres changing hands, builds, press, and the game ended in a draw by the master."""
    t = Table(folder / "judge.db")
    assert t.cli("game", "create", "c", "--variant", "coldwar", "--press", "both") == 0
    readers = {"USSR": ("ivan@p.test", "ru"), "NATO": ("hans@p.test", "de")}
    for power, (address, _) in readers.items():
        assert t.cli("game", "join", "c", "--power", power, "--email", address, "--password", f"pw-{power}") == 0
    for power, (address, language) in readers.items():
        t.reply(address, f"SIGNON {power} c pw-{power}\nSET LANGUAGE {language}")
    assert t.cli("game", "start", "c") == 0
    t.reply(
        "ivan@p.test",
        "SIGNON СССР c pw-USSR\nФ Ленинград/юб - ГДР\nА Москва - Украина\nА Владивосток - Северная Корея\n"
        "Ф Москва - Урал\nPRESS TO НАТО\nМир?\nENDPRESS",
    )
    t.reply(
        "hans@p.test",
        "SIGNON NATO c pw-NATO\nA Paris - Westdeutschland\nF Australien - Indonesien\nF Istanbul - Ukraine\n"
        "A New York - Quebec\nPRESS TO UdSSR\nNein.\nENDPRESS",
    )
    assert t.cli("game", "process", "c") == 0
    assert t.cli("game", "process", "c") == 0  # the Fall: every unit holds, the centres change hands
    t.reply("ivan@p.test", "SIGNON СССР c pw-USSR\nПостроить А Москва\nПостроить Ф Гавана")
    t.reply("hans@p.test", "SIGNON NATO c pw-NATO\nBaue A Paris\nBaue A Los Angeles")
    assert t.cli("game", "process", "c") == 0
    t.reply("ivan@p.test", "SIGNON СССР c pw-USSR\nLIST c\nWHOGAME c\nSUMMARY c\nORDERS\nHISTORY c")
    t.reply("hans@p.test", "SIGNON NATO c pw-NATO\nLIST c\nWHOGAME c\nSUMMARY c\nORDERS\nHISTORY c")
    # the game server's refusals name the variant's own powers in the reader's words
    t.reply("ivan@p.test", "TAKEOVER c NATO pw-x")
    t.reply("hans@p.test", "TAKEOVER c USSR pw-x")
    assert t.cli("game", "end", "c", "--draw", "USSR", "NATO") == 0
    return t


@pytest.mark.parametrize(("variant", "language"), [("coldwar", "ru"), ("coldwar", "de")])
def test_a_played_game_leaves_no_english_name_in_a_russian_or_german_mail(
    tmp_path: Path, variant: str, language: str
) -> None:
    from tests.test_mail_words import variant_names_left

    t = _cold_war(tmp_path)
    address = "ivan@p.test" if language == "ru" else "hans@p.test"
    mails = [r for r in t.outbox() if r["to_addr"] == address]
    assert len(mails) >= 8
    bodies = "\n".join(r["body"] for r in mails)
    ours = "Восточная Германия (ege)" if language == "ru" else "Westdeutschland (wge)"
    assert ours in bodies, bodies
    refused = "НАТО" if language == "ru" else "UdSSR"
    assert any(refused in r["body"] and "TAKEOVER" in r["body"] for r in mails), bodies
    left = variant_names_left(mails, language, variant)
    assert not left, "\n".join(f"{w}: {where}" for w, where in sorted(left.items()))


def test_a_results_line_pasted_back_is_taken_as_its_order(game: Table) -> None:
    pasted = "    F sev - bla                      отскок с F ank"
    answer = game.reply(addr("Russia"), f"SIGNON Russia g pw-Russia\n{pasted}")
    assert "OK: F sev - bla" in answer, answer


def test_a_the_bat_reply_reads_only_the_players_lines(game: Table) -> None:
    body = "\n".join(
        [
            "SIGNON Russia g pw-Russia",
            "A war - gal",
            "",
            "Здравствуйте, Diplomacy.",
            "",
            "Вы писали 5 декабря 2026 г., 19:09:50:",
            "",
            "DJ> Россия:",
            "DJ>     A mos - ukr                      выполнен",
            "DJ>> F bla - con",
        ]
    )
    answer = game.reply(addr("Russia"), body)
    assert "OK: A war - gal" in answer and "ОШИБКА" not in answer, answer


def test_history_words_a_phase_played_before_reasons_were_kept_typed(tmp_path: Path) -> None:
    """A phase kept with its reasons as English text only (before reasons were kept typed) is played once more from
    the board before it and the orders given: HISTORY words its reasons in the reader's language."""
    import json

    from judge.store import write

    t = Table(tmp_path / "judge.db")
    t.seven("old", "--deadline", "48h")
    t.reply(addr("Russia"), "SIGNON Russia old pw-Russia\nSET LANGUAGE ru\nF sev - bla\nA war - gal")
    t.reply(addr("Turkey"), "SIGNON Turkey old pw-Turkey\nF ank - bla")
    t.reply(addr("Austria"), "SIGNON Austria old pw-Austria\nA vie - gal")
    t.reply(addr("Germany"), "SIGNON Germany old pw-Germany\nSET LANGUAGE de")
    assert t.cli("game", "process", "old") == 0
    with write(t.db):
        for row in list(t.db.query("select game_id, phase, results from phases")):
            lines = [{k: v for k, v in line.items() if k != "why"} for line in json.loads(row["results"])]
            t.db.execute(
                "update phases set results = ? where game_id = ? and phase = ?",
                [json.dumps(lines), row["game_id"], row["phase"]],
            )
    russian = t.reply(addr("Russia"), "SIGNON Russia old pw-Russia\nHISTORY old")
    assert "отскок с F ank" in russian and "отскок с A vie" in russian and "bounced" not in russian, russian
    german = t.reply(addr("Germany"), "SIGNON Germany old pw-Germany\nHISTORY old")
    assert "bounced" not in german, german


def test_a_split_coast_is_named_with_its_coast_in_the_readers_words(game: Table) -> None:
    answer = game.reply(addr("Russia"), "SIGNON Russia g pw-Russia\nF stp/sc - nwy")
    assert "Санкт-Петербург, южный берег (stp/sc)" in answer and "Норвегия (nwy)" in answer, answer
    english = game.reply(addr("Russia"), "SIGNON Russia g pw-Russia\nSET LANGUAGE en\nF stp/sc - nwy")
    assert "a fleet in stp/sc cannot reach nwy" in english, english
    game.reply(addr("Russia"), "SIGNON Russia g pw-Russia\nSET LANGUAGE ru")
