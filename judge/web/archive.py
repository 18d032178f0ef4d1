"""The public archive as files (``[web] dir``, docs/web.md): one page per game and language, the phases' pictures
beside it, and the index of games, written for a web server to serve as they are. The judge runs no web server.

Every file is written atomically (a temporary file in the same folder, then ``os.replace``), so a reader never sees
half a page. A phase's picture is the one the results mail carried where it is still kept, else drawn again (the same
picture: drawing is deterministic, ``judge.reports.phase_maps``), and written once: its name carries the phase and
when it was played (or, for the board now, a digest of it), so a picture on disk is never drawn again.

The archive tells what ``judge.game.story`` lets the public see (``Viewer.PUBLIC``): never an address, a password or
private press; an anonymous game hides who plays until it ends; a Fog of War game shows nothing until it ends.

A failure here never stops adjudication or mail: ``refresh`` logs it and leaves the archive as it was."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqlite_utils import Database

from judge import __version__
from judge.facts import LANGUAGES
from judge.game.lookup import get_game
from judge.game.records import Game
from judge.game.story import Story, StoryPhase, Viewer, result_of, story_of
from judge.reports.phase_maps import phase_map
from judge.rules.position_json import position_to_json
from judge.store import write
from judge.store.game_rows import archive_marks, game_names
from judge.store.statuses import GameStatus
from judge.store.users import set_web_base_url
from judge.web.pages import STATIC, IndexEntry, Picture, game_page, index_page, page_name

log = logging.getLogger("judge.web")

MARK = ".mark"  # in each game's folder: what its pages show (judge.store.game_rows.archive_marks), by which judge


@dataclass
class Written:
    """The marks of the games whose pages a long-running caller (the daemon) has seen written, all of them: while
    the database's marks are these, ``refresh`` reads no file at all (one query a round, however many games)."""

    marks: dict[str, str] = field(default_factory=dict)


def build_all(db: Database, web_dir: str | Path, base_url: str = "") -> Path:
    """Every game's pages and the index written again from the database (the pictures already on disk kept);
    ``base_url`` (where ``web_dir`` is served), when given, is recorded for the results mails' links. Returns the
    English index's path."""
    folder = Path(web_dir)
    if base_url:
        with write(db):
            set_web_base_url(db, base_url)
    return _build(db, folder, _marks(db), names=None)


def refresh(db: Database, web_dir: str | Path, limit: int | None = None, written: Written | None = None) -> list[str]:
    """The pages of the games whose mark changed since the archive last wrote them (a game adjudicated, ended,
    paused or rolled back), at most ``limit`` of them (the rest at the next call), and the index once none is left
    behind (a deadline wave of many games writes it once, at its end); the games written. ``written``: the caller's
    memory of the marks written, kept up to date here. Never raises: a failure is logged and the archive left as it
    was (the next call tries again)."""
    try:
        folder = Path(web_dir)
        marks = _marks(db)
        if written is not None and written.marks == marks:
            return []
        behind = [name for name, mark in marks.items() if _read_mark(folder / name) != mark]
        changed = behind[:limit]
        if not changed and not _gone(folder, marks) and (folder / page_name("en")).exists():
            if written is not None:
                written.marks = marks
            return []
        last = len(changed) == len(behind)
        _build(db, folder, marks, names=changed, index=last)
        if written is not None and last:
            written.marks = marks
        return changed
    except OSError as exc:  # a folder not writable, a disk full: one line
        log.error(
            "the public archive in %s could not be written (%s); it is tried again at the next change", web_dir, exc
        )
        return []
    except Exception:  # a bug: its traceback; still, adjudication and mail go on without the archive
        log.exception("the public archive in %s could not be written; it is tried again at the next change", web_dir)
        return []


def _build(
    db: Database, folder: Path, marks: dict[str, str], names: Iterable[str] | None, *, index: bool = True
) -> Path:
    """The pages of ``names`` (None: every game) and, with ``index``, the index of every game."""
    _make_folder(folder)
    for source in sorted(STATIC.iterdir()):
        _write_if_changed(folder / source.name, source.read_bytes())
    for name in _gone(folder, marks):  # a game deleted: its folder (one the archive wrote: it has a mark) goes too
        shutil.rmtree(folder / name, ignore_errors=True)
    wanted = set(game_names(db)) if names is None else set(names)
    entries = []
    for name in game_names(db) if index else sorted(wanted):
        game = get_game(db, name)
        if game.status == GameStatus.FORMING:
            continue
        if name in wanted:
            write_game(db, game, story_of(db, game, Viewer.PUBLIC), folder / name)
            _write(folder / name / MARK, marks.get(name, "").encode())
        finished = game.status == GameStatus.FINISHED
        phase = game.position.phase if game.position is not None and not finished else None
        entries.append(IndexEntry(game.name, game.variant, game.status, phase, result_of(game)))
    if index:
        for language in LANGUAGES:
            _write(folder / page_name(language), index_page(entries, language).encode())
    return folder / page_name("en")


def write_game(db: Database, game: Game, story: Story, folder: Path) -> None:
    """The game's page in every language, with the pictures of its phases; pictures no page shows any more (a
    phase rolled back, the board of a phase since played) are removed."""
    _make_folder(folder)
    kept: set[str] = set()
    digests = {phase.code: _digest(game, phase) for phase in story.phases}
    for language in LANGUAGES:
        pictures = {}
        for phase in story.phases:
            picture = _picture(db, game, phase, language, folder / f"{phase.code}-{digests[phase.code]}.{language}.png")
            if picture is not None:
                pictures[phase.code] = picture
                kept.add(picture.src)
        _write(folder / page_name(language), game_page(story, language, pictures).encode())
    for old in folder.glob("*.png"):
        if old.name not in kept:
            old.unlink(missing_ok=True)


def _picture(db: Database, game: Game, phase: StoryPhase, language: str, path: Path) -> Picture | None:
    """The phase's picture in ``language`` beside the page: the file already there, else the kept picture (or one
    drawn again) written now. None when the variant cannot be drawn."""
    if not path.exists():
        drawn = phase_map(db, game, phase.code if phase.played else None, language)
        if drawn is None or drawn.png is None:
            return None
        _write(path, drawn.png)
    size = _png_size(path)
    return Picture(path.name, *size) if size is not None else None


def _digest(game: Game, phase: StoryPhase) -> str:
    """What tells one drawing of a phase from another: the boards before and after it and its orders' outcomes (a
    phase played again after a rollback, a board the game master changed, is another picture)."""
    what = [
        position_to_json(game.variant, phase.before),
        position_to_json(game.variant, phase.after) if phase.after is not None else None,
        [(line.power, line.order, line.written, line.outcome.value if line.outcome else None) for line in phase.lines],
    ]
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _png_size(path: Path) -> tuple[int, int] | None:
    """A PNG's width and height from its header."""
    with path.open("rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return int(width), int(height)


def _marks(db: Database) -> dict[str, str]:
    """Each game's mark (judge.store.game_rows.archive_marks) with the judge's version: a judge upgraded writes every
    page again (its templates may have changed), a few games a round."""
    return {name: f"{__version__}|{mark}" for name, mark in archive_marks(db).items()}


def _gone(folder: Path, marks: dict[str, str]) -> list[str]:
    """The game folders the archive wrote (each has a mark) whose game is no longer in the database."""
    if not folder.is_dir():
        return []
    return sorted(d.name for d in folder.iterdir() if d.name not in marks and (d / MARK).is_file())


def _make_folder(folder: Path) -> None:
    """``folder`` made where missing, readable by the web server's user whatever the judge's umask (the service
    runs with 0077); a folder that exists keeps the host's mode."""
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o755)


def _read_mark(folder: Path) -> str | None:
    try:
        return (folder / MARK).read_text(encoding="utf-8")
    except OSError:
        return None


def _write(path: Path, data: bytes) -> None:
    """``data`` into ``path`` at once: written beside it under a temporary name, then renamed over it."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temp.open("wb") as f:
            f.write(data)
        os.chmod(temp, 0o644)  # served by another user (the web server)
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def _write_if_changed(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    _write(path, data)
