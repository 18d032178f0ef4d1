"""The results mail in a player's words, from a real game: a dislodged unit reads "dislodged by A ruh (2 vs 1), may
retreat to …" in every language, and the HTML part gives every power's orders in one table."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from judge.game.records import set_user
from tests.gamekit import POWERS, Table

READERS = {"en": "france@p.test", "ru": "germany@p.test", "de": "england@p.test"}


@pytest.fixture(scope="module")
def fall_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Spring: Germany walks to Ruhr, France to Burgundy. Fall: Ruhr attacks Burgundy with Munich's support."""
    t = Table(tmp_path_factory.mktemp("words") / "judge.db")
    t.seven("g", reuse=True)
    for language, address in READERS.items():
        set_user(t.db, address, language=language, timezone="UTC")
    t.reply("france@p.test", "SIGNON France g pw-France\nA par - bur")
    t.reply("germany@p.test", "SIGNON Germany g pw-Germany\nA mun - ruh\nA ber - mun")
    t.later(hours=1)
    assert t.cli("game", "process", "g") == 0
    t.reply("france@p.test", "SIGNON France g pw-France\nA bur H")
    t.reply("germany@p.test", "SIGNON Germany g pw-Germany\nA ruh - bur\nA mun S A ruh - bur")
    t.later(hours=1)
    before = max(r["id"] for r in t.outbox())
    assert t.cli("game", "process", "g") == 0
    mails = [r for r in t.outbox() if r["id"] > before and r["picture_id"]]
    return {language: next(r for r in mails if r["to_addr"] == address) for language, address in READERS.items()}


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "dislodged by A ruh (2 vs 1), may retreat to bel, gas, par, pic"),
        ("ru", "выбит юнитом A ruh (2 против 1), может отступить: bel, gas, par, pic"),
        ("de", "vertrieben von A ruh (2 gegen 1), Rückzug möglich nach bel, gas, par, pic"),
    ],
)
def test_a_dislodged_unit_reads_who_won_by_how_much_and_where_it_may_go(
    fall_results: dict[str, dict[str, Any]], language: str, words: str
) -> None:
    mail = fall_results[language]
    line = next(line for line in mail["body"].splitlines() if line.strip().startswith("A bur H"))
    assert line.split(None, 3)[3] == words
    assert words in mail["html"]


class Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []  # rows of cells, per table
        self.depth = 0
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


@pytest.mark.parametrize("language", list(READERS))
def test_the_orders_of_every_power_are_one_table_with_a_header(
    fall_results: dict[str, dict[str, Any]], language: str
) -> None:
    parser = Tables()
    parser.feed(fall_results[language]["html"])
    orders = parser.tables[0]
    assert (
        orders[0]
        == {
            "en": ["Power", "Order", "Result"],
            "ru": ["Держава", "Приказ", "Результат"],
            "de": ["Macht", "Befehl", "Ergebnis"],
        }[language]
    )
    text_lines = [line for line in fall_results[language]["body"].splitlines() if line.startswith("    ")]
    rows = orders[1:]
    # each order of the text is one row; the power's name heads the first row of its group, in its own cell
    assert all(len(row) in (2, 3) for row in rows)
    assert sum(len(row) == 3 for row in rows) == 7
    for row in rows:
        order, result = row[-2:]
        assert order and result and any(line.split() == [*order.split(), *result.split()] for line in text_lines)


def test_results_are_unchanged_where_the_board_is_not_given(tmp_path: Path) -> None:
    """The filter without the position (another template) words the outcome alone."""
    from judge.reports.render import _env

    template = _env().from_string("{{ line | result }}|{{ line | result(board) }}")
    line = {"power": "France", "order": "A bur H", "input": "A bur H", "outcome": "dislodged", "reason": "x"}
    board = {"dislodged": {"France": [{"unit": "A bur", "retreats": []}]}}
    assert template.render(language="en", line=line, board=board) == "x|x, no retreat: disbanded"
    other = {"dislodged": {"France": [{"unit": "A par", "retreats": ["gas"]}]}}
    assert template.render(language="en", line=line, board=other) == "x|x"


COMBINED = {
    "en": ("France, Germany won together, as one combined side.", "have won the game together"),
    "ru": ("Франция, Германия побеждают вместе, единой объединённой стороной.", "побеждают в партии вместе"),
    "de": ("Frankreich, Deutschland haben gemeinsam gewonnen, als eine verbundene Seite.", "gemeinsam gewonnen"),
}


@pytest.mark.parametrize("language", list(COMBINED))
def test_a_combined_side_wins_by_the_names_of_all_its_powers(tmp_path: Path, language: str) -> None:
    """One address plays France and Germany with their centres counted together: the game-over and results mails
    name both powers, in the reader's language, and never call it a solo of one of them."""
    from judge.game import records
    from judge.rules.position_json import position_from_json

    t = Table(tmp_path / "judge.db")
    assert t.cli("game", "create", "g", "--shared-addresses", "--combined", "--last-year", "1902") == 0
    for power in POWERS:
        email = "west@p.test" if power in ("France", "Germany") else f"{power.lower()}@p.test"
        assert t.cli("game", "join", "g", "--power", power, "--email", email, "--password", f"pw-{power}") == 0
    set_user(t.db, "west@p.test", language=language, timezone="UTC")
    assert t.cli("game", "start", "g") == 0
    game = records.load_game(t.db, "g")
    assert game is not None
    homes = {
        "Austria": ["bud", "tri", "vie"],
        "England": ["edi", "lon", "lvp"],
        "France": ["bre", "mar", "par"],
        "Germany": ["ber", "kie", "mun"],
        "Italy": ["nap", "rom", "ven"],
        "Russia": ["mos", "sev", "stp", "war"],
        "Turkey": ["ank", "con", "smy"],
    }  # France and Germany 3 + 3 beat Russia's 4 at the last year
    with t.db.atomic():
        game.position = position_from_json(
            game.variant,
            {"phase": "F1902M", "units": {"France": ["A par"], "Germany": ["A ber"]}, "supply_centers": homes},
        )
        records.save_game(t.db, game, t.now)
    t.mail("west@p.test", "SIGNON France g pw-France\nA par H")
    assert t.cli("game", "process", "g") == 0
    mine = [r for r in t.outbox() if r["to_addr"] == "west@p.test"]
    over, results = mine[-1], mine[-2]
    sentence, part = COMBINED[language]
    assert sentence in over["body"] and sentence in (over["html"] or "")
    assert part in results["body"] and part in (results["html"] or "")
    solo = {"en": "solo victory", "ru": "единоличную победу", "de": "mit einem Solosieg"}[language]
    assert solo not in over["body"] and solo not in results["body"]
