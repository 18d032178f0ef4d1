"""Golden files of the mails a player reads most — start, reply, results and game over — in English, Russian and
German, from one real game. After a deliberate change, review the new text and run with JUDGE_UPDATE_GOLDEN=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from judge.game.records import set_user
from tests.gamekit import POWERS, Table

GOLDEN = Path(__file__).parent / "golden" / "mails"
READERS = {"en": "England", "ru": "Russia", "de": "Germany"}


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


@pytest.fixture(scope="module")
def mails(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    t = Table(tmp_path_factory.mktemp("golden") / "judge.db")
    assert t.cli("game", "create", "golden", "--deadline", "48h", "--master", "gm@p.test") == 0
    for power in POWERS:
        assert (
            t.cli("game", "join", "golden", "--power", power, "--email", addr(power), "--password", f"pw-{power}") == 0
        )
    for language, power in READERS.items():
        set_user(
            t.db,
            addr(power),
            language=language,
            timezone={"en": "UTC", "ru": "Europe/Moscow", "de": "Europe/Berlin"}[language],
        )
    assert t.cli("game", "start", "golden") == 0
    orders = {
        "France": ["A par - bur", "A mar - spa", "F bre - mao"],
        "Germany": ["A mun - bur", "A ber - kie", "F kie - den", "A ber - sil", "Build A mun", "HELO"],
        "England": ["F lon - nth", "F edi - nwg", "A lvp - yor", "A lvp - xyz", "SIGNOF"],
        "Russia": ["A war - gal", "F sev - bla", "A mos - ukr", "F stp/sc - bot", "F stp - nwy", "LISTE"],
        "Austria": ["A vie - gal", "A bud - ser", "F tri - alb"],
        "Turkey": ["F ank - bla", "A con - bul", "A smy - arm"],
    }
    for power, lines in orders.items():
        t.reply(addr(power), "\n".join([f"SIGNON {power} golden pw-{power}", *lines]))
    t.later(hours=1)
    assert t.cli("game", "process", "golden") == 0
    assert t.cli("game", "end", "golden", "--draw", "France", "Germany", "Russia") == 0
    out: dict[tuple[str, str], str] = {}
    for language, power in READERS.items():
        rows = [r for r in t.outbox() if r["to_addr"] == addr(power)]
        kinds = {
            "start": rows[0],
            "reply": next(r for r in rows if r["subject"].startswith("Re:")),
            "results": rows[-2],
            "game_over": rows[-1],
        }
        for kind, row in kinds.items():
            out[(kind, language)] = f"Subject: {row['subject']}\n\n{row['body']}"
        out[("results_html", language)] = kinds["results"]["html"]
    return out


@pytest.mark.parametrize("language", list(READERS))
@pytest.mark.parametrize("kind", ["start", "reply", "results", "game_over"])
def test_mail_matches_its_golden_file(mails: dict[tuple[str, str], str], kind: str, language: str) -> None:
    path = GOLDEN / f"{kind}_{language}.txt"
    text = mails[(kind, language)]
    if os.environ.get("JUDGE_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("language", list(READERS))
def test_results_html_matches_its_golden_file(mails: dict[tuple[str, str], str], language: str) -> None:
    path = GOLDEN / f"results_{language}.html"
    text = mails[("results_html", language)]
    if os.environ.get("JUDGE_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
