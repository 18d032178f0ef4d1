"""Neutral units in the results mail (issue 21): nobody orders them, so no order line names them; the mail says
what became of each in a movement phase (it held, or it was dislodged and disbanded at once) and lists those left
standing, in English, Russian and German, in the text and the HTML part."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gamekit import Table

NEUTRAL_CLASSIC = 'name = "Garrisons"\nmap = "classic"\n[neutral]\nunits = ["A bel", "A hol", "A nwy"]\n'
HEAD = {
    "en": "Neutral units (nobody's: they hold, and a dislodged one is disbanded):",
    "ru": "Нейтральные юниты (ничьи: они стоят, а выбитый юнит распускается):",
    "de": "Neutrale Einheiten (niemandes: sie halten, eine vertriebene wird aufgelöst):",
}
GONE = {"en": "dislodged, disbanded", "ru": "выбит, распущен", "de": "vertrieben, aufgelöst"}
HELD = {"en": "holds", "ru": "стоит", "de": "hält"}
STANDING = {"en": "neutral:", "ru": "нейтральные:", "de": "neutral:"}
READERS = {"en": "france@p.test", "de": "germany@p.test", "ru": "russia@p.test"}


def _process(t: Table) -> int:
    """Play the phase at its deadline; the id of the last mail before it."""
    mark = max(r["id"] for r in t.outbox())
    t.later(hours=100)
    assert t.cli("game", "process", "g1") == 0
    return mark


def _results_mail(t: Table, to: str, mark: int) -> dict[str, Any]:
    (found,) = [r for r in t.outbox() if r["id"] > mark and r["to_addr"] == to and r["picture_id"] is not None]
    return found


def _line(body: str, start: str) -> str:
    (found,) = [line.strip() for line in body.splitlines() if line.strip().startswith(start)]
    return found


def test_results_mails_say_what_became_of_the_neutral_units(tmp_path: Path) -> None:
    path = tmp_path / "garrisons.toml"
    path.write_text(NEUTRAL_CLASSIC, encoding="utf-8")
    t = Table(tmp_path / "judge.db")
    t.seven("g1", "--variant", str(path))
    t.reply("germany@p.test", "SIGNON Germany g1 pw-Germany\nSET LANGUAGE de")
    t.reply("russia@p.test", "SIGNON Russia g1 pw-Russia\nSET LANGUAGE ru")
    t.reply("france@p.test", "SIGNON France g1 pw-France\nA par - bur\nF bre - eng")
    t.reply("germany@p.test", "SIGNON Germany g1 pw-Germany\nF kie - hol")  # one against one: Holland holds
    spring = _process(t)
    for language, to in READERS.items():
        mail = _results_mail(t, to, spring)
        body, html = mail["body"], mail["html"]
        assert HEAD[language] in body and HEAD[language] in html, language
        for unit in ("A bel", "A hol", "A nwy"):
            assert _line(body, unit).endswith(HELD[language]), (language, unit)
        assert _line(body, STANDING[language]).endswith("A bel, A hol, A nwy"), language
    t.reply("france@p.test", "SIGNON France g1 pw-France\nA bur - bel\nF eng S A bur - bel")
    fall = _process(t)
    for language, to in READERS.items():
        mail = _results_mail(t, to, fall)
        body, html = mail["body"], mail["html"]
        assert _line(body, "A bel").endswith(GONE[language]), language  # dislodged: disbanded at once
        assert f"A bel</span>: {GONE[language]}" in html, language
        assert _line(body, "A hol").endswith(HELD[language]), language
        assert _line(body, STANDING[language]).endswith("A hol, A nwy"), language
    winter = _process(t)  # no neutral unit moves in a winter: no account of them, only those standing
    mail = _results_mail(t, READERS["en"], winter)
    assert HEAD["en"] not in mail["body"] and _line(mail["body"], "neutral:").endswith("A hol, A nwy")


def test_a_game_without_neutral_units_says_nothing_of_them(tmp_path: Path) -> None:
    t = Table(tmp_path / "judge.db")
    t.seven("g1", reuse=True)
    spring = _process(t)
    body = _results_mail(t, "france@p.test", spring)["body"]
    assert HEAD["en"] not in body and "neutral:" not in body


def test_a_stored_position_keeps_its_neutral_units() -> None:
    """Until 2026-12-04 ``position_to_json`` left nobody's units out, and a game lost them when it started."""
    from judge.data.catalog import variant_from_toml
    from judge.data.resources import data_dir
    from judge.rules.position_json import position_from_json, position_to_json

    variant = variant_from_toml(NEUTRAL_CLASSIC, "garrisons", "garrisons.toml", data_dir("variants"))
    start = variant.start_position()
    stored = position_to_json(variant, start)
    assert stored["units"]["neutral"] == ["A bel", "A hol", "A nwy"] and list(stored["units"])[-1] == "neutral"
    assert position_from_json(variant, stored).units == start.units


def test_history_tells_the_neutral_units_as_the_results_mail_did(tmp_path: Path) -> None:
    path = tmp_path / "garrisons.toml"
    path.write_text(NEUTRAL_CLASSIC, encoding="utf-8")
    t = Table(tmp_path / "judge.db")
    t.seven("g1", "--variant", str(path))
    t.reply("germany@p.test", "SIGNON Germany g1 pw-Germany\nSET LANGUAGE de")
    _process(t)
    told = t.reply("germany@p.test", "SIGNON Germany g1 pw-Germany\nHISTORY g1")
    assert HEAD["de"] in told and _line(told, "A nwy").endswith(HELD["de"])
    assert _line(told, STANDING["de"]).endswith("A bel, A hol, A nwy")
