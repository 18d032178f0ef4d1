"""`judge game export GAME --format json|mila|gif [-o FILE] [--language en|de|ru]`: a game's open exports
(``judge.exports``), told as the public archive tells it: no address, password or private press; an anonymous game
hides who plays until it ends; a Fog of War game exports nothing until it ends.

JSON (the judge's own format, docs/exports.md) and MILA's saved game go to standard output without ``-o``; the GIF
is binary and is written to standard output only when that is no terminal (``-o -`` or a pipe).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from judge.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, open_store
from judge.facts import LANGUAGES

FORMATS = ("json", "mila", "gif")


def add_export_command(gsub: Any, clock: argparse.ArgumentParser) -> None:
    """Add ``judge game export`` to the game commands."""
    p = gsub.add_parser(
        "export",
        parents=[clock],
        help="export a game: the judge's JSON, MILA's saved-game JSON or an animated GIF of its boards",
        description="Write a game as the public may see it: --format json, the judge's own format (docs/exports.md: "
        "the variant, the players, every phase's board, orders and results); --format mila, the saved-game JSON of "
        "MILA's diplomacy package (classic games); --format gif, an animated board of the whole game, a frame per "
        "phase with its name. No address, password or private press is exported; an anonymous game hides who "
        "plays until it ends; a Fog of War game exports nothing until it ends.",
    )
    p.add_argument("name", help="the game's name")
    p.add_argument(
        "--format",
        required=True,
        choices=FORMATS,
        dest="export_format",
        help="json (the judge's own), mila (MILA's saved game) or gif (an animated board)",
    )
    p.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE",
        help="the file to write, - for standard output (default: standard output; a GIF only to a pipe)",
    )
    p.add_argument(
        "--language",
        default="en",
        choices=LANGUAGES,
        help="the GIF's language: each frame's caption, the map's legend and names (JSON is written in English)",
    )
    p.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    from judge.exports import ExportError

    binary = args.export_format == "gif"
    target = args.output
    if binary and target is None and sys.stdout.isatty():
        print(
            "judge game export: a GIF is binary and standard output is a terminal: give -o FILE (or pipe it)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        data = _export(args)
    except ExportError as exc:
        print(f"judge game export: {exc}", file=sys.stderr)
        return EXIT_PROBLEMS
    if target in (None, "-"):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return EXIT_OK
    try:
        Path(target).write_bytes(data)
    except OSError as exc:
        print(f"judge game export: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(f"wrote {target} ({len(data)} bytes)")
    return EXIT_OK


def _export(args: argparse.Namespace) -> bytes:
    from judge.exports import ExportError
    from judge.exports.gif import animated_gif, story_frames
    from judge.exports.judge_json import game_to_json
    from judge.exports.mila import game_to_mila
    from judge.game.records import load_game
    from judge.game.story import Viewer, story_of

    db = open_store(args)  # --db, $JUDGE_DB, or the configuration's database; never a new one
    game = load_game(db, args.name)
    if game is None:
        raise ExportError(f"there is no game called {args.name!r}")
    story = story_of(db, game, Viewer.PUBLIC)
    if args.export_format == "json":
        return (json.dumps(game_to_json(story), indent=2, ensure_ascii=False) + "\n").encode()
    if args.export_format == "mila":
        return (json.dumps(game_to_mila(story), ensure_ascii=False) + "\n").encode()  # one line: a .jsonl of games
    return animated_gif(story_frames(db, game, story, args.language))
