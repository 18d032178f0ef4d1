"""`judge demo` shows it all: a game by mail to an agreed draw, players reading en, ru and de who write their orders
in their own words, a game master at work, every mail the judge sent as a file, and where to open the archive.

The scripted players' words are checked here against the order parser (fast); the demo itself runs once, as the
command a newcomer types, and the tests read what it left: its output, its database and its mails' folder (slow).
"""

from __future__ import annotations

import random
import subprocess
import sys
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.cli.demo import LANGUAGES, MASTER
from judge.cli.demo_orders import ORDER_WORDS, choose_orders, place
from judge.data.catalog import load_variant
from judge.game import records
from judge.rules.board import Position, Unit
from judge.rules.parse import OrderError, parse_order
from judge.rules.phase import Phase, Season, Step
from judge.rules.turn import Submitted, play
from judge.store import open_db
from judge.store.events import EventKind, events_of, last_logged_at
from judge.store.statuses import GameStatus
from judge.store.users import user_settings

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = load_variant("classic")


def _position(seed: int, phases: int) -> Position:
    """The classic board after ``phases`` phases of the demo's random English orders."""
    rng = random.Random(seed)
    units = {CLASSIC.geo.loc_province[s.loc]: Unit(s.power, s.kind, s.loc) for s in CLASSIC.start_units}
    pos = Position(Phase(CLASSIC.start_year, Season.SPRING, Step.MOVEMENT), units, CLASSIC.start_ownership())
    for _ in range(phases):
        submitted = [
            Submitted(power, line, parse_order(line, CLASSIC.geo, pos.phase.step))
            for power in CLASSIC.powers
            for line in choose_orders(CLASSIC, pos, power, rng)
        ]
        turn = play(CLASSIC, pos, submitted)
        if turn.winner is not None:
            break
        pos = turn.position
    return pos


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), phases=st.integers(0, 9), language=st.sampled_from(["ru", "de"]))
def test_a_players_orders_in_russian_or_german_read_as_the_same_orders_in_english(
    seed: int, phases: int, language: str
) -> None:
    """Movement, retreats and adjustments alike: the same choices written in another language's words and names
    are read by the judge's parser as exactly the English ones, never as an error."""
    pos = _position(seed, phases)
    for power in CLASSIC.powers:
        english = choose_orders(CLASSIC, pos, power, random.Random(seed))
        local = choose_orders(CLASSIC, pos, power, random.Random(seed), language)
        assert len(local) == len(english)
        for mine, theirs in zip(local, english, strict=True):
            read = parse_order(mine, CLASSIC.geo, pos.phase.step)
            assert not isinstance(read, OrderError), (mine, read)
            assert read == parse_order(theirs, CLASSIC.geo, pos.phase.step), (mine, theirs)
            if language == "ru":
                assert any("а" <= c.lower() <= "я" for c in mine), mine  # written in Cyrillic, not abbreviations


def test_places_are_written_with_their_coasts_in_the_players_language() -> None:
    loc = CLASSIC.geo.loc_names.index("stp/nc")
    assert place(CLASSIC, loc, "en") == "stp/nc"
    assert place(CLASSIC, loc, "ru") == "Санкт-Петербург северный берег"
    assert place(CLASSIC, loc, "de") == "Sankt Petersburg Nordküste"
    assert set(ORDER_WORDS) == set(LANGUAGES.values()) == {"en", "ru", "de"}


@pytest.mark.parametrize("language", ["ru", "de"])
def test_every_order_word_of_a_language_reads_as_the_english(language: str) -> None:
    """Each template of ORDER_WORDS, also those random play seldom reaches (a retreat with nowhere to go), read in
    its phase as the English one is."""
    mine, english = ORDER_WORDS[language], ORDER_WORDS["en"]
    kie = CLASSIC.geo.loc_names.index("kie")
    for template, step in (("hold", Step.MOVEMENT), ("disband", Step.RETREAT), ("build", Step.ADJUSTMENT)):
        for kind, letter in (("army", "A"), ("fleet", "F")):
            local = getattr(mine, template).format(unit=f"{getattr(mine, kind)} {place(CLASSIC, kie, language)}")
            read = parse_order(local, CLASSIC.geo, step)
            assert not isinstance(read, OrderError), (local, read)
            assert read == parse_order(getattr(english, template).format(unit=f"{letter} kie"), CLASSIC.geo, step)
    local = mine.remove.format(unit=f"{mine.army} {place(CLASSIC, kie, language)}")
    assert parse_order(local, CLASSIC.geo, Step.ADJUSTMENT) == parse_order("Remove A kie", CLASSIC.geo, Step.ADJUSTMENT)
    assert parse_order(mine.waive, CLASSIC.geo, Step.ADJUSTMENT) == parse_order("Waive", CLASSIC.geo, Step.ADJUSTMENT)


# --- the demo, run once as a newcomer runs it --------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``judge demo --years 1``: the folder and the standard output. The command must exit 0."""
    folder = tmp_path_factory.mktemp("demo")
    done = subprocess.run(
        [sys.executable, "-m", "judge.cli", "demo", "--years", "1", "--dir", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return folder, done.stdout


def _mails(folder: Path, user: str) -> list[EmailMessage]:
    files = sorted((folder / "mails" / user).glob("*.eml"))
    return [message_from_bytes(f.read_bytes(), policy=policy.default) for f in files]  # type: ignore[misc]


def _text(mail: EmailMessage) -> str:
    body = mail.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def _subjects(folder: Path, user: str) -> list[str]:
    return [str(m["Subject"]) for m in _mails(folder, user)]


@pytest.mark.slow
def test_the_demo_ends_the_game_in_a_draw_agreed_by_mail(demo: tuple[Path, str]) -> None:
    folder, out = demo
    db = open_db(folder / "judge.db")
    game = records.load_game(db, "demo")
    assert game is not None and game.status is GameStatus.FINISHED
    assert game.result is not None and game.result["kind"] == "draw"
    assert game.result["powers"] == sorted(CLASSIC.powers)
    assert game.phase == "S1902M"  # one year played, the draw agreed in the next Spring
    proposed = events_of(db, game.id, EventKind.DRAW_PROPOSE)
    accepted = events_of(db, game.id, EventKind.DRAW_ACCEPT)
    assert [d["power"] for _, d in proposed] == ["Russia"]
    assert sorted(d["power"] for _, d in accepted) == sorted(set(CLASSIC.powers) - {"Russia"})
    assert len(events_of(db, game.id, EventKind.DRAW)) == 1
    assert "3 phases played by mail" in out
    assert "a draw agreed by mail among Austria, England, France, Germany, Italy, Russia, Turkey" in out


@pytest.mark.slow
def test_each_player_reads_their_own_language(demo: tuple[Path, str]) -> None:
    """The language chosen in the JOIN mail is kept, and every mail to the player after it is in it: the start, the
    results, the end."""
    folder, _ = demo
    db = open_db(folder / "judge.db")
    words = {
        "en": ("Diplomacy game demo has started", "Diplomacy game demo: results of Spring 1901 movement", "is over"),
        "ru": ("Дипломатия, партия demo началась", "результаты фазы «Весна 1901, движение»", "партия demo окончена"),
        "de": ("Diplomacy-Partie demo hat begonnen", "Ergebnisse Frühjahr 1901, Bewegung", "demo ist beendet"),
    }
    for power, language in LANGUAGES.items():
        user = f"{power.lower()}@demo.judge"
        assert user_settings(db, user)["language"] == language
        subjects = _subjects(folder, power.lower())
        for phrase in words[language]:
            assert any(phrase in s for s in subjects), (power, phrase, subjects)
    russian_end = [m for m in _mails(folder, "russia") if "окончена" in str(m["Subject"])]
    assert "Партия закончилась ничьей" in _text(russian_end[-1])
    german_results = [m for m in _mails(folder, "germany") if "Ergebnisse" in str(m["Subject"])]
    assert "Versorgungszentren (Solosieg ab 18)" in _text(german_results[0])


@pytest.mark.slow
def test_the_players_orders_in_russian_and_german_were_all_read(demo: tuple[Path, str]) -> None:
    """The answer to each player's orders says OK to every order line, written in Cyrillic or German names."""
    folder, out = demo
    for power, language in LANGUAGES.items():
        answer = next(m for m in _mails(folder, power.lower()) if m["Subject"] == "Re: S1901M orders")
        text = _text(answer)
        quoted = [line for line in text.splitlines() if line.startswith("> ") and "SIGNON" not in line]
        orders = quoted[:-1]  # the last line is READY
        assert quoted[-1] == "> READY" and orders, text
        assert text.count("\nOK: ") == len(orders), text
        if language == "ru":
            assert all(any("а" <= c.lower() <= "я" for c in line) for line in orders), orders
    assert "Russia (ru) writes: А " in out and "Germany (de) writes: " in out


@pytest.mark.slow
def test_the_game_master_moved_the_deadline_by_mail_and_made_the_press_grey(demo: tuple[Path, str]) -> None:
    folder, out = demo
    db = open_db(folder / "judge.db")
    game = records.load_game(db, "demo")
    assert game is not None
    assert len(events_of(db, game.id, EventKind.EXTENDED)) == 1
    assert last_logged_at(db, game.id, EventKind.EXTENDED, MASTER) is not None  # by mail, as the game master
    assert [d for _, d in events_of(db, game.id, EventKind.SETTINGS)] == [{"press": "grey"}]
    assert any("the deadline of demo is now" in _text(m) for m in _mails(folder, "gm"))  # the answer to the master
    told = {"england": "deadline extended", "russia": "срок хода продлён", "germany": "Frist verlängert"}
    for user, subject in told.items():
        assert any(subject in s for s in _subjects(folder, user)), (user, _subjects(folder, user))
    assert any("settings changed" in s for s in _subjects(folder, "france"))
    press = [m for m in _mails(folder, "england") if "press from an anonymous power" in str(m["Subject"])]
    assert len(press) == 1 and "Frieden im Norden!" in _text(press[0])  # Germany's broadcast, grey
    assert not any("anonymous" in s or "anonymen" in s for s in _subjects(folder, "germany"))  # not to its sender
    assert "MASTER demo ****, SET DEADLINE +6h" in out and "judge game settings demo press grey" in out


@pytest.mark.slow
def test_every_mail_the_judge_sent_is_a_file_and_the_demo_says_where_they_and_the_archive_are(
    demo: tuple[Path, str],
) -> None:
    folder, out = demo
    last = out.strip().splitlines()
    assert last[-2] == (
        f"mails: {folder / 'mails'} (the {len(list((folder / 'mails').glob('*/*.eml')))} mails the judge sent, "
        "a .eml file each: a folder per player, and gm for the game master)"
    )
    web = (folder / "web").resolve()
    assert (
        last[-1]
        == f"archive: {(web / 'index.html').as_uri()} (the game's page: {(web / 'demo' / 'index.html').as_uri()})"
    )
    assert 'href="demo/index.html"' in (web / "index.html").read_text(encoding="utf-8")  # the index names the game
    for page, words in {"index.html": "draw", "index.ru.html": "нич", "index.de.html": "Remis"}.items():
        assert words in (web / "demo" / page).read_text(encoding="utf-8")  # the game's end, in each language
    game = (web / "demo").as_uri()
    for user, link in {
        "england": f"{game}/\n",
        "russia": f"{game}/index.ru.html",
        "germany": f"{game}/index.de.html",
    }.items():
        assert link in _text(_mails(folder, user)[-1])  # the game-over mail links the page in the reader's language
    for user in [p.lower() for p in LANGUAGES] + ["gm"]:
        mails = _mails(folder, user)
        assert mails and all(m["From"].addresses[0].addr_spec == "judge@demo.judge" for m in mails)
        assert all(m["To"].addresses[0].addr_spec == f"{user}@demo.judge" for m in mails)
        maildir = [f for f in (folder / "mail" / user).rglob("*") if f.is_file() and f.parent.name in ("new", "cur")]
        assert len(maildir) == len(mails)  # every mail of the mailbox, once
    assert [s for s in _subjects(folder, "gm") if "has joined" in s][:1] == [
        "Diplomacy game demo: austria@demo.judge has joined"
    ]
