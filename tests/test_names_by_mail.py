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
