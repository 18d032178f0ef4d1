"""Real-client corpus: each message in tests/mail_corpus is handled by the judge and must give exactly the order
set, the error lines, the notes and the threading written in tests/mail_corpus/expectations.toml."""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path

import pytest
from gamekit import Table

from judge.commands.handler import handle_message
from judge.game.order_sets import order_summary
from judge.game.records import players, set_orders
from judge.game.service import get_game

CORPUS = Path(__file__).parent / "mail_corpus"
EXPECTED = tomllib.loads((CORPUS / "expectations.toml").read_text(encoding="utf-8"))
CLIENTS = {
    "thunderbird",
    "outlook_desktop",
    "outlook_365",
    "outlook_android",
    "outlook_german",
    "gmail_en",
    "gmail_fr",
    "apple",
    "iphone",
    "samsung",
    "yahoo",
    "mutt",
    "k9",
    "roundcube",
}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Table:
    t = Table(tmp_path_factory.mktemp("corpus") / "judge.db")
    t.seven("g", reuse=True)
    return t


def test_the_corpus_covers_the_clients() -> None:
    names = set(EXPECTED)
    assert {p.stem for p in CORPUS.glob("*.eml")} == names
    assert all(any(name.startswith(client) for name in names) for client in CLIENTS)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_client_message(table: Table, name: str) -> None:
    want = EXPECTED[name]
    t = table
    t.later(minutes=3)
    game = get_game(t.db, "g")
    with t.db.atomic():
        set_orders(t.db, game, game.phase or "", "France", [], t.now)
    handled = handle_message(t.db, (CORPUS / f"{name}.eml").read_bytes(), t.now, judge_address="judge@judge.test")
    france = next(p for p in players(t.db, game.id) if p.power == "France")
    orders = sorted(order_summary(t.db, get_game(t.db, "g"), france)["orders"])
    if want.get("auto"):
        assert handled.text == "dropped: automatic message" and handled.replies == []
        assert orders == []
        return
    assert handled.outcome == "handled"
    assert orders == want["orders"]
    (reply,) = [r for r in handled.replies if r["to_addr"] == "france@p.test"]
    errors = [
        line[2:]
        for line, after in itertools.pairwise(reply["body"].splitlines())
        if line.startswith("> ") and after.startswith("ERROR")
    ]
    assert errors == want.get("errors", [])
    assert "pw-France" not in reply["body"]
    if "note" in want:
        assert want["note"] in reply["body"]
    assert reply["subject"] == want.get("subject", reply["subject"]) and not reply["subject"].startswith("Re: R")
    assert reply["in_reply_to"] == f"{name}@p.test"
    assert reply["thread_refs"] == "game.g@judge.test judge.41@judge.test"
