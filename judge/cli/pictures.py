"""`judge map`: the map picture (PNG) of a game's position, of a played phase with its orders, or of a variant's start.

    judge map GAME [PHASE] [-o FILE] [--config FILE] [--db PATH] [--language en|de|ru]
    judge map --variant classic [-o FILE]

Without PHASE the picture shows the game's current position; with PHASE (``S1901M``) the results picture of that
phase, byte for byte as the results mail carried it: the board after the phase, with the phase's orders drawn from
where the units stood and what became of them (the kept picture, or drawn again from the stored boards and orders
once pruned: ``judge.reports.phase_maps``). A game's pictures are palette PNGs, as the mails carry them. The legend,
the powers' names and the title are in ``--language``, the same words as the results mail's picture
(``judge.reports.map_words``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from judge.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE
from judge.facts import LANGUAGES


class MapCommandError(Exception):
    """Something the command cannot do; the message says why."""


def add_map_command(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``judge map`` to the command line's subparsers."""
    p = sub.add_parser(
        "map",
        parents=[common],
        help="draw a game's map as a PNG picture",
        description="Write the map picture (PNG) of a game's current position, or the results picture of a played "
        "PHASE (the board after it, with its orders drawn); with --variant, of a variant's starting "
        "position.",
    )
    p.add_argument("game", nargs="?", default=None, help="the game's name")
    p.add_argument("phase", nargs="?", default=None, help="a played phase, e.g. S1901M (default: the current position)")
    p.add_argument("--variant", default=None, help="draw this variant's starting position instead of a game")
    p.add_argument(
        "-o",
        "--output",
        default=None,
        help="the PNG file to write, - for standard output (default: GAME-PHASE.png or VARIANT-start.png)",
    )
    p.add_argument(
        "--language",
        default="en",
        choices=LANGUAGES,
        help="language of the legend, the powers' names and the title (as in the mails)",
    )
    p.set_defaults(func=run_map)


def run_map(args: argparse.Namespace) -> int:
    if (args.variant is None) == (args.game is None):
        print("judge map: give a GAME, or --variant NAME (not both)", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.variant is not None:
            if args.phase is not None:
                raise MapCommandError("a PHASE needs a game, not --variant")
            png, default_name = _variant_picture(args.variant, args.language)
        else:
            png, default_name = _game_picture(args, args.game, args.phase, args.language)
    except (MapCommandError, ValueError) as exc:
        print(f"judge map: {exc}", file=sys.stderr)
        return EXIT_PROBLEMS
    target = args.output or default_name
    if target == "-":
        sys.stdout.buffer.write(png)
        sys.stdout.flush()
        return EXIT_OK
    try:
        Path(target).write_bytes(png)
    except OSError as exc:
        print(f"judge map: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(f"wrote {target} ({len(png)} bytes)")
    return EXIT_OK


def _variant_picture(name: str, language: str) -> tuple[bytes, str]:
    from judge.data.catalog import load_variant
    from judge.reports.map_words import map_title, map_words
    from judge.reports.maps import render_map
    from judge.rules.position_json import position_from_json

    try:
        variant = load_variant(name)
    except KeyError as exc:
        raise MapCommandError(str(exc.args[0])) from None
    position = position_from_json(variant, {})
    png = render_map(
        variant,
        position,
        title=map_title(variant.name, position.phase, language),
        language=language,
        words=map_words(variant, language),
    )
    return png, f"{variant.key}-start.png"


def _game_picture(args: argparse.Namespace, name: str, phase: str | None, language: str) -> tuple[bytes, str]:
    from judge.cli.common import open_store
    from judge.game.records import load_game
    from judge.reports.phase_maps import phase_map
    from judge.rules.phase import Phase
    from judge.store import phases

    db = open_store(args)  # --db, $JUDGE_DB, or the configuration's database; never a new one
    game = load_game(db, name)
    if game is None:
        raise MapCommandError(f"there is no game called {name!r}")
    if phase is None:
        if game.position is None:
            raise MapCommandError(f"game {game.name} has not started yet: there is no position to draw")
        code = None
    else:
        try:
            code = Phase.parse(phase).code
        except ValueError as exc:
            raise MapCommandError(str(exc)) from None
        if phases.played_phase(db, game.id, code) is None:
            played = phases.phase_codes(db, game.id)
            raise MapCommandError(
                f"{game.name} has no played phase {code}"
                + (f"; played: {', '.join(played)}" if played else "; no phase has been played yet")
            )
    # the kept picture, or drawn again from the stored boards and orders (as the results mail carried it)
    picture = phase_map(db, game, code, language)
    if picture is None or picture.png is None:
        raise MapCommandError(f"the map of {game.variant.name} cannot be drawn")
    return picture.png, f"{game.name}-{picture.phase.code}.png"
