"""The public archive (judge.web, issue 25): a page per game and language with every phase's board, orders and
outcomes, the centre chart, the public press and the result; the index of games; written atomically after each
adjudication where ``[web] dir`` is set, and whole by ``judge web build``; never an address, a password or private
press; the results mails link to the page where ``[web] base_url`` is set. The browser's checks are in
tests/test_web_browser.py."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from gamekit import POWERS, Table

from judge import __version__
from judge.cli import main
from judge.config import load_config
from judge.facts import LANGUAGES
from judge.game.lookup import get_game
from judge.game.story import story_of
from judge.rules.orders import Outcome
from judge.web import archive
from judge.web.archive import Written, build_all, refresh
from judge.web.pages import STATIC, Picture, game_page, page_name

BASE = "https://example.org/dip"


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def sign(power: str, *lines: str) -> str:
    return "\n".join([f"SIGNON {power} g pw-{power}", *lines])


def played(tmp_path: Path, *options: str) -> Table:
    """A game of two phases: a bounce in Burgundy, a broadcast, press to one power only, postal press."""
    t = Table(tmp_path / "judge.db")
    t.seven("g", "--deadline", "48h", "--press", "both", *options, reuse=True)
    t.reply(addr("France"), sign("France", "A par - bur", "F bre - mao", "BROADCAST", "Peace & <love>", "ENDPRESS"))
    t.reply(addr("Germany"), sign("Germany", "A mun - bur", "PRESS TO E", "a secret for England", "ENDPRESS"))
    t.reply(addr("Italy"), sign("Italy", "POSTAL PRESS", "Rome speaks", "ENDPRESS"))
    t.later(hours=1)
    assert t.cli("game", "process", "g") == 0
    return t


def every_text(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*")) if p.suffix in (".html", ".css"))


def test_a_page_per_game_and_language_with_the_phases_the_press_and_an_index(tmp_path: Path) -> None:
    t = played(tmp_path)
    web = tmp_path / "web"
    assert build_all(t.db, web) == web / "index.html"
    for language in LANGUAGES:
        assert (web / page_name(language)).is_file() and (web / "g" / page_name(language)).is_file()
    page = (web / "g" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<td>A par - bur<td class=\"x\">bounced with A mun", page)
    assert re.search(r"<td>F bre - mao<td>succeeds", page)
    assert 'id="S1901M"' in page and 'id="F1901M"' in page  # the phase played and the one now
    assert "Broadcast from France" in page and "Peace &amp; &lt;love&gt;" in page  # escaped, never markup
    assert "Postal press from Italy" in page and "Rome speaks" in page
    assert "Supply centres by year" in page and "<svg" in page
    # every picture the page names is beside it, a PNG with the size the page gives
    shown = re.findall(r'<img src="([^"]+)" width="(\d+)" height="(\d+)"[^>]* alt="Map of [^"]+"', page)
    assert [src.split("-")[0] for src, _, _ in shown] == ["S1901M", "F1901M"]
    assert all((web / "g" / src).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for src, _, _ in shown)
    russian = (web / "g" / "index.ru.html").read_text(encoding="utf-8")
    assert 'lang="ru"' in russian and "Франция" in russian and "Весна 1901" in russian
    assert "Frühjahr 1901" in (web / "g" / "index.de.html").read_text(encoding="utf-8")
    index = (web / "index.html").read_text(encoding="utf-8")
    assert '<a href="g/index.html">g</a>' in index and "Running games" in index
    assert (web / "archive.css").read_bytes() == (STATIC / "archive.css").read_bytes()
    assert not list(web.rglob(".*.tmp"))  # every file renamed into place


def test_the_archive_never_shows_an_address_a_password_or_private_press(tmp_path: Path) -> None:
    t = played(tmp_path)
    web = tmp_path / "web"
    build_all(t.db, web)
    text = every_text(web)
    assert "@p.test" not in text and "pw-" not in text
    assert "secret for England" not in text  # press to some powers is private
    assert t.cli("game", "end", "g", "--draw", "France", "Italy") == 0  # still none when the game is over
    build_all(t.db, web)
    text = every_text(web)
    assert "@p.test" not in text and "secret" not in text
    assert "The game master ended the game in a draw among France, Italy." in text
    assert "Finished games" in (web / "index.html").read_text(encoding="utf-8")


def test_an_anonymous_game_names_no_sender_until_it_ends(tmp_path: Path) -> None:
    t = played(tmp_path, "--anonymous")
    web = tmp_path / "web"
    build_all(t.db, web)
    page = (web / "g" / "index.html").read_text(encoding="utf-8")
    assert "Broadcast from an anonymous power" in page and "Postal press from an anonymous power" in page
    assert "Broadcast from France" not in page and "Postal press from Italy" not in page
    assert "who plays which power is told when it ends" in page


def test_a_fog_of_war_game_shows_nothing_until_it_ends(tmp_path: Path) -> None:
    t = played(tmp_path, "--variant", "fog_of_war")
    web = tmp_path / "web"
    folder = web / "g"
    build_all(t.db, web)
    page = (folder / "index.html").read_text(encoding="utf-8")
    assert "Fog of War" in page and "<article" not in page and "<img" not in page and "Peace" not in page
    assert not list(folder.glob("*.png"))
    assert t.cli("game", "end", "g", "--draw", "France", "Germany") == 0  # the end reveals the whole game
    build_all(t.db, web)
    page = (folder / "index.html").read_text(encoding="utf-8")
    assert "<article" in page and "<img" in page and "A par - bur" in page and list(folder.glob("*.png"))


def test_the_archive_is_written_after_each_adjudication_and_a_failure_stops_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    t = played(tmp_path)
    web = tmp_path / "web"
    config = tmp_path / "judge.toml"
    config.write_text(
        f'[judge]\naddress = "judge@example.org"\ndb = "judge.db"\n[imap]\nhost = "127.0.0.1"\nusername = "j"\n'
        f'password = "x"\n[smtp]\nhost = "127.0.0.1"\n[web]\ndir = "web"\nbase_url = "{BASE}/"\n'
    )
    config.chmod(0o600)
    monkeypatch.setenv("JUDGE_CONFIG", str(config))
    cfg = load_config(config, secrets=False)
    assert cfg.web.dir == str(web) and cfg.web.base_url == BASE
    assert t.cli("game", "process", "g") == 0  # the command's games are written after it
    assert 'id="S1902M"' in (web / "g" / "index.html").read_text(encoding="utf-8")
    assert refresh(t.db, web) == []  # nothing changed: nothing written
    mark = web / "g" / archive.MARK
    mark.write_text("0.0.1|" + mark.read_text().partition("|")[2])  # written by an older judge
    assert refresh(t.db, web) == ["g"] and mark.read_text().startswith(f"{__version__}|")
    pictures = sorted(p.name for p in (web / "g").glob("*.png"))
    assert t.cli("game", "rollback", "g", "F1901M") == 0  # the phase played is gone again, and its picture
    left = sorted(p.name for p in (web / "g").glob("*.png"))
    assert not [p for p in left if p.startswith("S1902M")] and len(left) == len(pictures) - 3
    # a folder that cannot be written: logged, and the game goes on and its mail is queued
    (web / "g" / "index.html").unlink()
    (web / "g" / "index.html").mkdir()
    before = len(t.outbox())
    caplog.clear()
    assert t.cli("game", "process", "g") == 0
    assert get_game(t.db, "g").phase == "S1902M" and len(t.outbox()) > before
    said = [r for r in caplog.records if r.name == "judge.web"]
    assert [r.levelname for r in said] == ["ERROR"] and "could not be written" in said[0].getMessage()
    assert said[0].exc_info is None  # one line, no traceback


def test_results_mails_link_to_the_page_in_the_readers_language(tmp_path: Path) -> None:
    t = played(tmp_path)
    t.reply(addr("Russia"), sign("Russia", "SET LANGUAGE ru"))
    build_all(t.db, tmp_path / "web", BASE)  # records where the archive is served
    t.later(hours=1)
    assert t.cli("game", "process", "g") == 0
    results = {m["to_addr"]: m for m in t.outbox() if "F1901M" in m["subject"] or "1901" in m["subject"]}
    assert f"The game's page: {BASE}/g/" in results[addr("France")]["body"]
    assert f"Страница партии: {BASE}/g/index.ru.html" in results[addr("Russia")]["body"]
    assert f'<a href="{BASE}/g/">' in results[addr("France")]["html"]
    assert t.cli("game", "end", "g", "--draw", "France", "Russia") == 0
    over = {m["to_addr"]: m["body"] for m in t.outbox() if " is over" in m["subject"] or "окончена" in m["subject"]}
    assert f"{BASE}/g/" in over[addr("France")] and f"{BASE}/g/index.ru.html" in over[addr("Russia")]


def test_without_a_base_url_the_mails_name_no_page(tmp_path: Path) -> None:
    t = played(tmp_path)
    assert not [m for m in t.outbox() if "The game's page" in m["body"]]


def test_the_folder_of_a_game_no_longer_in_the_database_leaves_the_archive(tmp_path: Path) -> None:
    t = played(tmp_path)
    web = tmp_path / "web"
    build_all(t.db, web)
    (web / "old").mkdir()
    (web / "old" / archive.MARK).write_text("finished|12|2020-01-01T00:00:00Z|")  # one the archive wrote
    (web / "mine").mkdir()  # a folder the archive did not write is the host's own: kept
    assert refresh(t.db, web) == []
    assert not (web / "old").exists() and (web / "mine").is_dir() and (web / "g" / "index.html").is_file()


def test_judge_web_build_writes_the_archive_from_the_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = played(tmp_path)
    capsys.readouterr()
    assert main(["web", "build", "--db", str(t.path), "--dir", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "out" / "index.html")
    assert (tmp_path / "out" / "g" / "index.de.html").is_file()
    assert main(["web", "build", "--db", str(t.path)]) == 2  # no folder given and none configured
    assert "set [web] dir" in capsys.readouterr().err


@pytest.fixture(scope="module")
def long_game(tmp_path_factory: pytest.TempPathFactory) -> Table:
    """A practice game the stand-in bots play for twelve years (moves, retreats, builds), one human holding."""
    t = Table(tmp_path_factory.mktemp("long") / "judge.db")
    assert t.cli("game", "create", "g", "--bots", "fill", "--deadline", "24h") == 0
    assert t.cli("game", "join", "g", "--power", "Austria", "--email", addr("Austria"), "--password", "pw-A") == 0
    assert t.cli("game", "start", "g") == 0
    while (g := get_game(t.db, "g")).status == "active" and g.position is not None and g.position.phase.year <= 1912:
        t.later(hours=25)
        assert t.cli("game", "tick") == 0
    return t


def test_a_long_games_page_weighs_at_most_150_kb_before_pictures(long_game: Table) -> None:
    story = story_of(long_game.db, get_game(long_game.db, "g"))
    assert len(story.years) >= 11 and len(story.phases) >= 40
    assert Outcome.BOUNCED in {line.outcome for p in story.phases for line in p.lines}  # orders were played
    assert any(p.phase.step.value == "R" for p in story.phases) and any(p.phase.step.value == "A" for p in story.phases)
    extras = sum(len(p.read_bytes()) for p in STATIC.iterdir())
    for language in LANGUAGES:  # the page as written: with its pictures' tags, the pictures themselves apart
        pictures = {p.code: Picture(f"{p.code}-0123456789ab.{language}.png", 800, 950) for p in story.phases}
        weight = len(game_page(story, language, pictures).encode()) + extras
        assert weight <= 150 * 1024, (language, weight)


def test_the_pictures_on_disk_are_never_written_again(tmp_path: Path) -> None:
    t = played(tmp_path)
    web = tmp_path / "web"
    build_all(t.db, web)
    files = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (web / "g").glob("*.png")}
    page = (web / "g" / "index.html").stat().st_ino
    build_all(t.db, web)
    assert {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (web / "g").glob("*.png")} == files
    assert len(files) == 2 * len(LANGUAGES) and (web / "g" / "index.html").stat().st_ino != page  # the page is new
    assert [p for p in POWERS if p in (web / "g" / "index.html").read_text(encoding="utf-8")] == POWERS


def test_the_web_server_may_read_what_the_confined_service_writes(tmp_path: Path) -> None:
    t = played(tmp_path)
    web = tmp_path / "web"
    old = os.umask(0o077)  # the service's umask (systemd/judge.service)
    try:
        build_all(t.db, web)
    finally:
        os.umask(old)
    assert stat.S_IMODE((web / "g").stat().st_mode) == 0o755 and stat.S_IMODE(web.stat().st_mode) == 0o755
    assert {stat.S_IMODE(p.stat().st_mode) for p in web.rglob("*") if p.is_file()} == {0o644}


def test_a_wave_of_games_writes_the_index_once_at_its_end_and_a_daemon_reads_no_mark_while_nothing_changed(
    tmp_path: Path,
) -> None:
    """Three games adjudicated at once, one page a round: the first rounds write their game and leave the index alone
    (the index names every game: written each round, a wave of a thousand games would read them all a thousand
    times); the round that writes the last game writes the index. Once all are written, the caller's ``Written``
    keeps the marks: a round reads no file (a mark removed behind its back is not noticed: ``judge web build``
    writes everything)."""
    t = Table(tmp_path / "judge.db")
    for name in ("a", "b", "c"):
        t.seven(name, "--deadline", "48h")
    web = tmp_path / "web"
    memo = Written()
    assert refresh(t.db, web, limit=1, written=memo) == ["a"]
    assert not (web / "index.html").exists() and memo.marks == {}
    assert refresh(t.db, web, limit=1, written=memo) == ["b"] and not (web / "index.html").exists()
    assert refresh(t.db, web, limit=1, written=memo) == ["c"]
    index = (web / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{name}/index.html"' in index for name in "abc") and set(memo.marks) == {"a", "b", "c"}
    (web / "b" / archive.MARK).unlink()
    assert refresh(t.db, web, limit=1, written=memo) == []  # the marks are the ones written: no file read
    assert refresh(t.db, web, limit=1) == ["b"]  # without the memory, the mark file is read
    assert t.cli("game", "process", "a") == 0  # a changes: its mark in the database is no longer the one written
    assert refresh(t.db, web, limit=1, written=memo) == ["a"]
