"""Replies as Russian mail programs write them (issue 22): The Bat! quotes with the writer's initials under "Вы
писали …:", Mail.ru and Yandex attributions with the address, Outlook in Russian with its header block; and results
lines pasted back as orders."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.commands.body import parse_body, quoted
from judge.commands.handlers import pasted_order
from judge.commands.items import OrderLine

# The judge's results mail, as each program quotes it under the player's new orders.
RESULTS = [
    "Результаты фазы «Весна 1901, движение»",
    "в партии g (Classic).",
    "",
    "Россия:",
    "    A war - gal                      отскок с A vie",
    "    F sev - bla                      отскок с F ank",
    "    A mos - ukr                      выполнен",
]

THE_BAT = "\n".join(
    [
        "SIGNON Russia g secret",
        "A mos - stp",
        "",
        "Здравствуйте, Diplomacy.",
        "",
        "Вы писали 5 декабря 2026 г., 19:09:50:",
        "",
        *(f"DJ> {line}" if line else "DJ>" for line in RESULTS),
        "DJ>> F bla - con",
        "",
        "--",
        "С уважением,",
        " Иван                          mailto:ivan@example.ru",
    ]
)
THE_BAT_NO_SPACE = "\n".join(
    [
        "SIGNON Russia g secret",
        "F sev - bla",
        "",
        "Вы писали 5 декабря 2026 г., 19:09:50:",
        "",
        *(f"J>{line}" for line in RESULTS),
    ]
)
MAIL_RU = "\n".join(
    [
        "SIGNON Russia g secret",
        "A war - gal",
        "",
        "",
        "Суббота, 5 декабря 2026, 19:09 +03:00 от Diplomacy Judge <judge@example.org>:",
        "",
        *(f">{line}" for line in RESULTS),
        "",
        "",
        "--",
        "Иван Петров",
    ]
)
YANDEX = "\n".join(
    [
        "SIGNON Russia g secret",
        "F sev - bla",
        "",
        '05.12.2026, 19:09, "Diplomacy Judge" <judge@example.org>:',
        *(f"> {line}" for line in RESULTS),
        "",
        "-- ",
        "Отправлено из мобильной Яндекс Почты",
    ]
)
OUTLOOK_RU = "\n".join(
    [
        "SIGNON Russia g secret",
        "A mos - ukr",
        "",
        "От: Diplomacy Judge <judge@example.org>",
        "Отправлено: 5 декабря 2026 г. 19:09",
        "Кому: ivan@example.ru",
        "Тема: Дипломатия, партия g: результаты фазы «Весна 1901, движение»",
        "",
        *RESULTS,
    ]
)


@pytest.mark.parametrize(
    ("body", "orders"),
    [
        (THE_BAT, ["A mos - stp"]),
        (THE_BAT_NO_SPACE, ["F sev - bla"]),
        (MAIL_RU, ["A war - gal"]),
        (YANDEX, ["F sev - bla"]),
        (OUTLOOK_RU, ["A mos - ukr"]),
    ],
    ids=["the-bat", "the-bat-no-space", "mail.ru", "yandex", "outlook-ru"],
)
def test_only_the_players_own_lines_are_read(body: str, orders: list[str]) -> None:
    parsed = parse_body(body)
    lines = [i.text for i in parsed.items if isinstance(i, OrderLine)]
    assert lines == orders, parsed
    assert not parsed.problems, parsed.problems


@pytest.mark.parametrize(
    "line", ["JD> A mos - stp", "J>A mos - stp", "JD>> F bla - con", "ИП> А Москва - Украина", "> x", "J>"]
)
def test_initials_before_the_mark_quote_a_line(line: str) -> None:
    assert quoted(line)


@pytest.mark.parametrize("line", ["A mos - stp", "A par->bur", "a> b", "SIGNON Russia g x", "1> x", "ABCD> x"])
def test_an_order_is_not_a_quote(line: str) -> None:
    assert not quoted(line)


@pytest.mark.parametrize(
    ("pasted", "order"),
    [
        ("A mos - ukr                      выполнен", "A mos - ukr"),
        ("F sev - bla                      отскок с F ank", "F sev - bla"),
        ("A vie - gal                      bounced with A war", "A vie - gal"),
        ("F nap H                          нет приказа: стоит на месте", "F nap H"),
        ("A mun - bur                      erfolgreich", "A mun - bur"),
        ("A mun - bur\tsucceeds", "A mun - bur"),
        ("A mun - bur succeeds", "A mun - bur"),
        ("A mun - bur выполнен.", "A mun - bur"),
        ("A mun - bur", "A mun - bur"),
        ("A mun  -  bur", "A mun  -  bur"),
        ("F nth C A lon - nwy   no convoy", "F nth C A lon - nwy"),
    ],
)
def test_a_results_line_pasted_back_is_its_order(pasted: str, order: str) -> None:
    assert pasted_order(pasted) == order


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_cutting_a_pasted_outcome_never_raises_and_only_shortens(text: str) -> None:
    cut = pasted_order(text)
    assert len(cut) <= len(text)
