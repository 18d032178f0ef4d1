"""The ``judge`` command line."""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

from judge import __version__
from judge.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, CliError, Parser, config_options, settings

NO_CONFIG = ("init", "demo")  # commands that run without reading the configuration


def main(argv: list[str] | None = None) -> int:
    """Run one command; every problem is one line on stderr and exit status 1 (runtime) or 2 (usage, config)."""
    try:
        return _run(argv)
    except CliError as exc:
        return _fail(str(exc), exc.status)
    except BrokenPipeError:
        # the reader went away (`judge game list | head`): stop quietly, and keep Python from complaining at exit
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_PROBLEMS
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback at a user
        return _fail(_describe(exc), EXIT_PROBLEMS, exc)


def _run(argv: list[str] | None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version: nothing more is imported for them
        return int(exc.code or 0)
    from judge.store import import_sqlite_utils

    import_sqlite_utils()
    from judge.config import ConfigError
    from judge.game.lookup import GameError
    from judge.rules.variant import VariantError
    from judge.store.backup import BackupError
    from judge.store.versions import NewerDatabase

    if not getattr(args, "func", None):
        raise CliError("judge: choose a command (see: judge --help)", EXIT_USAGE)
    if args.command == "demo":
        _need_demo_extra()
    import judge.wiring  # noqa: F401  (the game server given its variant loader and mail side; not for --help)

    try:
        if args.command not in NO_CONFIG:
            settings(args)
        status = int(args.func(args))
        if getattr(args, "archive", False):  # a command that may have played or ended a game
            from judge.cli.public_archive import refresh_archive

            refresh_archive(args)
        return status
    except ConfigError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except VariantError as exc:
        raise CliError(" ".join(str(exc).split()), EXIT_PROBLEMS) from None
    except GameError as exc:
        raise CliError(f"judge: {exc}", EXIT_PROBLEMS) from None
    except (NewerDatabase, BackupError) as exc:  # nothing was changed
        raise CliError(f"judge: {exc}", EXIT_PROBLEMS) from None


def _need_demo_extra() -> None:
    import importlib.util

    missing = [m for m in ("pymap", "aiosmtpd") if importlib.util.find_spec(m) is None]
    if missing:
        raise CliError(
            f"judge demo needs {' and '.join(missing)}, which come with the demo extra: "
            f"pip install 'diplomacy-judge[demo]' (or '.[demo]' in a checkout)",
            EXIT_PROBLEMS,
        )


def _describe(exc: BaseException) -> str:
    import sqlite3

    if isinstance(exc, OSError):
        name = exc.filename if exc.filename is not None else ""
        return f"judge: {name}{': ' if name else ''}{exc.strerror or exc}"
    if isinstance(exc, sqlite3.Error):
        return f"judge: the database: {exc}"
    if isinstance(exc, UnicodeError):
        return "judge: the input is not UTF-8 text"
    if isinstance(exc, (ValueError, KeyError, LookupError)):
        return f"judge: {exc.args[0] if exc.args else exc}"
    return f"judge: internal error ({type(exc).__name__}: {exc}); JUDGE_DEBUG=1 shows where"


def _fail(message: str, status: int, exc: BaseException | None = None) -> int:
    if exc is not None and os.environ.get("JUDGE_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    line = " ".join(message.split())
    with contextlib.suppress(OSError):  # stderr closed too: nothing left to tell
        print(line if line.startswith("judge") else f"judge: {line}", file=sys.stderr)
    return status


@functools.cache  # built once per process: parsing leaves it as it was (tests and the host's scripts call main often)
def _parser() -> argparse.ArgumentParser:
    common = config_options()
    parser = Parser(prog="judge", description="An email judge for Diplomacy.", parents=[config_options(None)])
    parser.add_argument("--version", action="version", version=f"judge {__version__}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", dest="command")

    sandbox = sub.add_parser(
        "sandbox",
        parents=[common],
        help="adjudicate a position given as JSON (a 'what if' tool)",
        description="Read one JSON position with orders and print the adjudicated result as JSON. "
        "With --batch, read JSON Lines and print one result line per input line. "
        "The format is described in docs/sandbox.md.",
    )
    sandbox.add_argument("file", nargs="?", default="-", help="a JSON file, or - for standard input (default)")
    sandbox.add_argument("--batch", action="store_true", help="JSON Lines in, JSON Lines out")
    sandbox.add_argument("--pretty", action="store_true", help="indent the JSON output (not with --batch)")
    sandbox.add_argument(
        "--from-game",
        metavar="NAME",
        default=None,
        help="start from this game's current position (the input's units and supply_centers change "
        "it, per power) and play under the game's victory settings; the game is not changed",
    )
    sandbox.set_defaults(func=_sandbox)

    variant = sub.add_parser("variant", help="list and check variant files")
    vsub = variant.add_subparsers(title="variant commands", metavar="ACTION", required=True)
    check = vsub.add_parser(
        "check",
        parents=[common],
        help="validate variant TOML files and print every problem",
        description="Validate variant files and show every victory setting. Exit status 0 "
        "when all are valid, 1 otherwise.",
    )
    check.add_argument("files", nargs="+", type=Path, help="variant TOML files")
    check.set_defaults(func=_variant_check)
    lst = vsub.add_parser(
        "list",
        parents=[common],
        help="list the variants: the host's (variants_dir) and the shipped ones, with every victory setting",
    )
    lst.set_defaults(func=_variant_list)
    show = vsub.add_parser(
        "show",
        parents=[common],
        help="print a variant's rules in words and write its start board",
        description="Print the variant's rules in words (powers, units, builds, neutral units, the powers nobody "
        "plays, victory) and write the picture of its starting position (NAME-start.png, or -o FILE; -o - for "
        "standard output, and then the words go to standard error).",
    )
    show.add_argument("name", help="a variant name or a path to a .toml file")
    show.add_argument("-o", "--output", default=None, help="where to write the PNG (default NAME-start.png)")
    show.add_argument("--language", default="en", choices=("en", "de", "ru"), help="the picture's words")
    show.set_defaults(func=_variant_show)

    from judge.cli.games import add_game_commands
    from judge.cli.pictures import add_map_command
    from judge.cli.public_archive import add_web_commands
    from judge.cli.server import add_serve_commands

    add_game_commands(sub, common)
    add_serve_commands(sub, common)
    add_map_command(sub, common)
    add_web_commands(sub, common)
    return parser


def _sandbox(args: argparse.Namespace) -> int:
    from judge.game.sandbox import MAX_INPUT_CHARS, read_lines, run_json_line

    if args.from_game and args.batch:
        raise CliError("--from-game plays one input; leave out --batch", EXIT_USAGE)
    # bytes that are not UTF-8 become U+FFFD: the JSON reader then reports them on their own line
    with contextlib.ExitStack() as opened:  # a file given is closed after; standard input is left open
        stream = (
            io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
            if args.file == "-"
            else opened.enter_context(open(args.file, encoding="utf-8", errors="replace"))
        )
        if args.batch:
            out = sys.stdout
            for line in read_lines(stream):
                result = run_json_line(line)
                out.write(json.dumps(result, ensure_ascii=False) + "\n")
                out.flush()
            return EXIT_OK
        text = stream.read(MAX_INPUT_CHARS + 1)
        result = _from_game(args, text) if args.from_game else run_json_line(text)
    print(json.dumps(result, ensure_ascii=False, indent=2 if args.pretty else None))
    return EXIT_OK if result["error"] is None else EXIT_PROBLEMS


def _from_game(args: argparse.Namespace, text: str) -> dict[str, Any]:
    """``judge sandbox --from-game NAME``: the input (``{}`` when empty) played from the game's position."""
    from judge.cli.common import open_store
    from judge.game.sandbox import MAX_INPUT_CHARS, _error
    from judge.game.sandbox_game import from_game

    if len(text) > MAX_INPUT_CHARS:
        return _error(None, f"the input is longer than {MAX_INPUT_CHARS} characters")
    try:
        data = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError) as exc:
        return _error(None, f"malformed JSON: {exc}")
    db = open_store(args)
    try:
        return from_game(db, args.from_game, data)
    finally:
        db.conn.close()


def victory_text(variant: Any) -> str:
    """Every victory setting of a variant, in words: the solo (and how it was reached), the threshold table, the tie
    rules over the line and at the last year, and the points of places where it counts points."""
    from fractions import Fraction

    rule = variant.victory
    total = rule.total(variant.centres)
    unit = "points" if rule.uses_points else "centres"
    solo = rule.solo
    if isinstance(solo, Fraction):
        words = f"solo at {variant.solo_threshold(variant.start_year)} ({solo} of {total} {unit}, rounded up)"
    elif solo == total // 2 + 1:
        words = f"solo at {solo} (more than half of {total} {unit})"
    else:
        words = f"solo at {solo} of {total} {unit}"
    parts = [words]
    if rule.uses_points:
        names = variant.geo.provinces
        parts.append(
            "points " + ", ".join(f"{names[p].abbr} {v}" for p, v in rule.points) + " (other centres 1, other places 0)"
        )
    if rule.by_year:
        parts.append("from " + ", ".join(f"{year}: {count}" for year, count in sorted(rule.by_year)))
    others = {None: None, "play-on": "plays on", "draw": "is a draw"}[
        rule.tie_others.value if rule.tie_others else None
    ]
    order = f"ties broken in the order {' > '.join(rule.tie_break)}" if rule.tie_break else "no tie-break order"
    if rule.tie_break and len(rule.tie_break) < len(variant.powers):
        order += f", a tie among the others {others}"
    parts.append(order)
    if not rule.tie_break or len(rule.tie_break) < len(variant.powers):
        parts.append(f"a tie over the line no order settles {others or 'plays on (one leader needed)'}")
    if rule.last_year is not None and rule.defender is not None:
        parts.append(f"last year {rule.last_year}: if nobody has reached the line by then, {rule.defender} wins")
    elif rule.last_year is not None:
        parts.append(
            f"last year {rule.last_year}: the most {unit} wins, a tie no order settles "
            f"{others or 'is a draw among the leaders'}"
        )
    else:
        parts.append("no last year")
    return "; ".join(parts)


def _variant_check(args: argparse.Namespace) -> int:
    from judge.data.catalog import load_variant_file
    from judge.rules.variant import VariantError

    status = EXIT_OK
    for path in args.files:
        try:
            variant = load_variant_file(path)
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            print(f"judge: {path}: {exc.strerror}", file=sys.stderr)
            status = EXIT_PROBLEMS
        except VariantError as exc:
            # the report on standard output, one problem a line; the one-line verdict on standard error
            print(f"{path}:\n" + "\n".join(f"  - {p}" for p in exc.problems))
            count = len(exc.problems)
            print(f"judge: {path}: {count} problem{'s' if count != 1 else ''}, listed above", file=sys.stderr)
            status = EXIT_PROBLEMS
        else:
            print(
                f"{path}: ok ({variant.name}: {len(variant.geo.provinces)} provinces, {len(variant.centres)} "
                f"centres, {len(variant.powers)} powers, start {variant.start_year}; {victory_text(variant)})"
            )
            board, ok = board_text(variant)
            print(f"  {board}" if ok else f"  warning: {board}")
            print(f"  {editions_text(variant)}")
    return status


def editions_text(variant: Any) -> str:
    """What the rules editions (a game's ``rules``) mean for this variant: where civil disorder counts from."""
    from judge.rules.variant import Builds

    homes = "owned centres" if variant.builds is Builds.ALL_HOMES else "home centres"
    return (
        f"rules editions: 2000 (default; civil disorder counts moves to the {homes}), datc-3 (to the owned "
        "centres, fleets over land and sea too)"
    )


def board_text(variant: Any) -> tuple[str, bool]:
    """Which board the variant is drawn on, and whether it is a board (False: the diagram, with the reason)."""
    from judge.reports.maps import board_geometry
    from judge.reports.maps.geometry import board_file

    path = board_file(variant)
    name = path.name.removesuffix(".geo.json")
    geometry = board_geometry(variant)
    if geometry is not None:
        if geometry.links:  # Pure: neighbours that share no border meet across the hub
            return (
                f"board: {name} ({path}); {len(geometry.links)} pairs of neighbours share no border and meet "
                "across the hub (a line over it each)",
                True,
            )
        return f"board: {name} ({path})", True
    missing = [p.abbr for p in variant.geo.provinces if p.at is None]
    drawn = "it cannot be drawn at all: no `at` for " + ", ".join(missing[:5]) if missing else "drawn as a diagram"
    if path.is_file():
        return f"the board {path} does not fit its provinces: {drawn}", False
    return (
        f'no board geometry ({variant.key}.geo.json beside the file, a map = "..." with one, or a map with the '
        f"same provinces and coasts): {drawn}; docs/maps.md says how to make one",
        False,
    )


def rules_text(variant: Any) -> list[str]:
    """The variant's rules in words, a line each (``judge variant show``)."""
    from judge.rules.variant import Absent, Builds

    geo = variant.geo
    lines = [f"{variant.name}" + (f": {variant.description}" if variant.description else "")]
    lines.append(
        f"map: {variant.board_name} ({len(geo.provinces)} provinces, {len(variant.centres)} supply centres); "
        + board_text(variant)[0]
    )
    lines.append(f"powers ({len(variant.powers)}): {', '.join(variant.powers)}")
    if variant.absent:
        fate = (
            "their units stay as neutral units"
            if variant.absent_rule is Absent.NEUTRAL
            else "their units are taken off the board"
        )
        lines.append(f"nobody plays {', '.join(variant.absent)}: {fate}, their home centres are neutral")
    for power in variant.powers:
        homes = ", ".join(geo.provinces[c].abbr for c in variant.home_centres(power)) or "none"
        units = ", ".join(f"{u.kind.value} {geo.loc_names[u.loc]}" for u in variant.start_units if u.power == power)
        lines.append(f"  {power}: home {homes}; units {units or 'none'}")
    if variant.neutral_units:
        units = ", ".join(f"{u.kind.value} {geo.loc_names[u.loc]}" for u in variant.neutral_units)
        lines.append(f"neutral units (hold, defend, disbanded when dislodged): {units}")
    start = variant.start_phase
    lines.append(
        f"first phase: {start.long_name}" + (" (each power builds its first units)" if start.step.value == "A" else "")
    )
    lines.append(
        {
            Builds.HOME: "builds: in owned, empty home centres",
            Builds.OWNED: "builds: in any owned, empty supply centre",
            Builds.ALL_HOMES: "builds: every supply centre is a home centre of its owner (build in any owned, empty "
            "centre; civil disorder removes the units farthest from the owned centres first)",
        }[variant.builds]
    )
    lines.append("victory: " + victory_text(variant))
    if variant.fog:
        lines.append(
            "Fog of War: each power sees only the provinces of its units and centres and those next to them; "
            "centre counts are public; the end shows the whole game"
        )
    if len(variant.powers) == 2:
        lines.append("CONCEDE by mail ends the game with a win for the other power")
    return lines


def _variant_show(args: argparse.Namespace) -> int:
    from judge.data.catalog import load_variant
    from judge.reports.map_words import map_title, map_words
    from judge.reports.maps import MapError, render_map
    from judge.rules.variant import VariantError

    try:
        variant = load_variant(args.name)
    except KeyError as exc:
        raise CliError(str(exc.args[0]), EXIT_PROBLEMS) from None
    except VariantError as exc:
        raise CliError(" ".join(str(exc).split()), EXIT_PROBLEMS) from None
    words_out = sys.stderr if args.output == "-" else sys.stdout
    for line in rules_text(variant):
        print(line, file=words_out)
    pos = variant.start_position()
    try:
        png = render_map(
            variant,
            pos,
            title=map_title(variant.name, pos.phase, args.language),
            language=args.language,
            words=map_words(variant, args.language),
        )
    except MapError as exc:
        raise CliError(str(exc), EXIT_PROBLEMS) from None
    if args.output == "-":
        sys.stdout.buffer.write(png)
    else:
        out = Path(args.output or f"{variant.key}-start.png")
        out.write_bytes(png)
        print(f"wrote {out}", file=words_out)
    return EXIT_OK


def _variant_list(args: argparse.Namespace) -> int:
    from judge.data.catalog import load_variant, variant_files
    from judge.data.resources import data_dir
    from judge.rules.variant import VariantError

    shipped = data_dir("variants").resolve()
    for name, path in variant_files().items():
        where = "shipped" if path.resolve().parent == shipped else f"host: {path}"
        try:
            v = load_variant(name)
        except (VariantError, KeyError) as exc:
            print(f"{name}\t({where}) BROKEN: {' '.join(str(exc).split())}")
            continue
        print(
            f"{name}\t{v.name} ({where}): {v.description or 'no description'} | {len(v.powers)} powers, "
            f"{len(v.centres)} centres; {board_text(v)[0]}; {victory_text(v)}"
        )
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
