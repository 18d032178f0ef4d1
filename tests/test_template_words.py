"""Issue 11, one mechanism: the mail templates are one set for every language (templates/en/, written in English)
whose words are message ids of the gettext catalogs; a host replaces a template for every language or for one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge.data import resources
from judge.i18n.gaps import marked_ids, missing, template_ids
from judge.reports.render import judge_marker, render_mail

TEMPLATES = Path(__file__).parent.parent / "templates"


def test_one_set_of_templates_in_english() -> None:
    shared = sorted(p.name for p in (TEMPLATES / "en").glob("*.j2"))
    assert len(shared) > 40
    assert sorted(p.name for p in TEMPLATES.iterdir() if p.is_dir()) == ["en"]  # no copy per language
    for name in shared:
        assert not re.search("[а-яА-ЯäöüßÄÖÜ]", (TEMPLATES / "en" / name).read_text(encoding="utf-8")), name


def test_the_template_words_are_catalog_entries() -> None:
    ids = marked_ids()
    assert "Diplomacy game {game}: deadline extended" in ids  # a template's own words
    assert "Diplomacy judge" in ids and any(i.startswith("reply.txt\x04") for i in ids)  # the layout; a msgctxt
    assert missing("ru") == {} and missing("de") == {}


def test_template_ids_are_read_by_jinjas_parser() -> None:
    source = (
        '{{ _("say \\"hi\\" to {who}", who=x) }} {{ ngettext("{count} unit", "{count} units", n) }}\n'
        '{% if y %}{{ pgettext("place", "words {a}", a=1) }}{{ pgettext("place", what) }}{{ _(name) }}{% endif %}'
    )
    assert template_ids(source) == ['say "hi" to {who}', "{count} unit", "place\x04words {a}"]


@pytest.fixture
def host(tmp_path: Path):
    yield tmp_path
    resources.set_host_dirs()  # later tests see only the shipped templates


def test_a_template_word_missing_from_a_catalog_is_found(host: Path) -> None:
    (host / "club.txt.j2").write_text('Subject: {{ _("Words of our club no catalog has") }}\n')
    resources.set_host_dirs(templates=host)
    assert "Words of our club no catalog has" in missing("ru")


ELIMINATED = {"game": {"name": "g"}, "player": {"power": "Russia"}}


def test_a_host_replaces_a_template_for_every_language_or_for_one(host: Path) -> None:
    (host / "de").mkdir()
    (host / "eliminated.txt.j2").write_text("Subject: [club] {{ _('Diplomacy judge') }}\nOur words.\n")
    (host / "de" / "eliminated.txt.j2").write_text("Subject: [Verein] {{ game.name }}\nUnsere Worte.\n")
    resources.set_host_dirs(templates=host)
    assert render_mail("eliminated", "ru", **ELIMINATED).subject == "[club] Судья «Дипломатии»"  # the catalog still
    assert render_mail("eliminated", "en", **ELIMINATED).text == "Our words.\n"
    german = render_mail("eliminated", "de", **ELIMINATED)
    assert (german.subject, german.text) == ("[Verein] g", "Unsere Worte.\n")  # the language's own wins
    assert "Россия" in (render_mail("eliminated", "ru", **ELIMINATED).html or "")  # what the host left: shipped


def test_a_hosts_english_template_stays_english_only(host: Path) -> None:
    (host / "en").mkdir()
    (host / "en" / "eliminated.txt.j2").write_text("Subject: [club] out\nOut.\n")
    resources.set_host_dirs(templates=host)
    assert render_mail("eliminated", "en", **ELIMINATED).subject == "[club] out"
    assert "Россия" in render_mail("eliminated", "ru", **ELIMINATED).subject


@pytest.mark.parametrize("language", ["en", "ru", "de"])
def test_the_marker_line_is_in_the_readers_language(language: str) -> None:
    marker = judge_marker(language)
    assert marker.startswith("[judge-mail] ") and (language == "en") == ("Diplomacy judge" in marker)


@pytest.mark.parametrize(
    ("count", "english", "russian"),
    [(1, "1 deadline in a row", "1 срок подряд"), (2, "2 deadlines in a row", "2 срока подряд")],
)
def test_a_missed_deadline_count_takes_its_plural_form_in_english_too(count: int, english: str, russian: str) -> None:
    game = type("G", (), {"name": "g"})()
    for language, words in (("en", english), ("ru", russian)):
        mail = render_mail(
            "master_notice", language, game=game, what="abandoned", power="France", email="f@p", count=count
        )
        assert words in mail.subject + " " + " ".join(mail.text.split()), language
