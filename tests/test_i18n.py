"""Every sentence the code marks for a player (``T("…")``) is in the Russian and German catalogs, and is worded."""

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from judge.i18n import T, sentences, translate
from judge.i18n.gaps import marked_ids, missing
from judge.timeutil import format_deadline

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("language", ["ru", "de"])
def test_every_marked_sentence_is_translated(language):
    assert len(marked_ids()) > 30
    assert missing(language) == {}


def test_text_is_worded_with_its_parameters_in_each_language():
    text = T("signed on as {power} in {game}", power=T("France"), game="g1")
    assert str(text) == "signed on as France in g1"
    assert translate(text, "ru") == "вы вошли как Франция в партии g1"
    assert translate(text, "de") == "angemeldet als Frankreich in der Partie g1"
    assert translate("plain words", "de") == "plain words"


def test_several_sentences_are_told_as_one_each_in_the_readers_words():
    text = sentences([T("game {game} is over", game="g1"), T("a draw needs at least two powers")])
    assert str(text) == "game g1 is over; a draw needs at least two powers"
    assert translate(text, "de") == "die Partie g1 ist beendet; ein Remis braucht mindestens zwei Mächte"
    assert translate(text, "ru") == "партия g1 окончена; в ничьей должны быть хотя бы две державы"
    assert sentences([T("a draw needs at least two powers")]) == T("a draw needs at least two powers")


def test_a_sentence_no_catalog_has_falls_back_to_english():
    assert translate(T("no such sentence {x}", x=1), "ru") == "no such sentence 1"


@pytest.mark.parametrize("language,day,relative", [("ru", "чт", "через 2 дня"), ("de", "Do.", "in 2 Tagen")])
def test_deadlines_are_in_the_players_language(language, day, relative):
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    text = format_deadline(now + timedelta(days=2, hours=1), "Europe/Berlin", now, language)
    assert text.startswith(day) and text.endswith(relative), text
    assert "Thu" not in text and " in 2 days" not in text


@pytest.mark.parametrize(
    "language,count,expected",
    [
        ("ru", 1, "1 срок подряд"),
        ("ru", 3, "3 срока подряд"),
        ("ru", 5, "5 сроков подряд"),
        ("ru", 11, "11 сроков подряд"),
        ("ru", 22, "22 срока подряд"),
        ("de", 1, "1 Frist in Folge"),
        ("de", 2, "2 Fristen in Folge"),
        ("en", 1, "1 deadline in a row"),
        ("en", 0, "0 deadlines in a row"),
    ],
)
def test_plural_forms_come_from_the_catalog(language: str, count: int, expected: str) -> None:
    from judge.i18n import ngettext

    assert ngettext(language, "{count} deadline in a row", "{count} deadlines in a row", count) == expected


def test_a_plural_missing_from_the_catalog_falls_back_to_english() -> None:
    from judge.i18n import ngettext

    assert ngettext("ru", "{count} apple", "{count} apples", 2) == "2 apples"


ANNOUNCED = ("paused", "resumed", "extended", "shortened", "settings", "deleted", "rolled back")


@pytest.mark.parametrize("language", ["ru", "de"])
def test_words_said_by_place_are_in_every_catalog(language: str) -> None:
    """The words the templates take with a place (msgctxt): what the game master did, draw news, press senders."""
    from judge.i18n import pgettext

    for what in ANNOUNCED:
        assert pgettext(language, "announcement", what) != what
        assert pgettext(language, "announcement action", what) != what
    for what in ("proposed", "rejected"):
        assert pgettext(language, "draw news", what) != what
    assert pgettext(language, "press sender", "an anonymous power") != "an anonymous power"
    assert pgettext(language, "press addressees", "everyone") != "everyone"
    assert pgettext("en", "announcement", "paused") == "paused"  # English: the id itself


@pytest.mark.parametrize("language", ["ru", "de"])
def test_no_translation_runs_two_sentences_together(language: str) -> None:
    """A sentence's full stop is followed by a space before the next one ("Die Partie ruht.Senden Sie" was in the
    mails once): a word or a placeholder, a full stop, a capital letter is a missing space in any catalog."""
    from babel.messages.pofile import read_po

    with (ROOT / "judge" / "i18n" / "locale" / language / "LC_MESSAGES" / "judge.po").open("rb") as handle:
        catalog = read_po(handle)
    run_together = [
        str(m.id)
        for m in catalog
        for text in ([m.string] if isinstance(m.string, str) else list(m.string))
        if text and re.search(r"[\w}]\.[A-ZÄÖÜА-ЯЁ]", text)
    ]
    assert run_together == []
