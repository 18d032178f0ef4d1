"""The ``judge`` command line."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

from judge import __version__

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    return int(args.func(args))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="judge", description="An email judge for Diplomacy.")
    parser.add_argument("--version", action="version", version=f"judge {__version__}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    sandbox = sub.add_parser(
        "sandbox", help="adjudicate a position given as JSON (a 'what if' tool)",
        description="Read one JSON position with orders and print the adjudicated result as JSON. "
                    "With --batch, read JSON Lines and print one result line per input line. "
                    "The format is described in docs/sandbox.md.")
    sandbox.add_argument("file", nargs="?", default="-", help="a JSON file, or - for standard input (default)")
    sandbox.add_argument("--batch", action="store_true", help="JSON Lines in, JSON Lines out")
    sandbox.add_argument("--pretty", action="store_true", help="indent the JSON output (not with --batch)")
    sandbox.set_defaults(func=_sandbox)

    variant = sub.add_parser("variant", help="list and check variant files")
    vsub = variant.add_subparsers(title="variant commands", metavar="ACTION")
    check = vsub.add_parser("check", help="validate variant TOML files and print every problem",
                            description="Validate variant files. Exit status 0 when all are valid, 1 otherwise.")
    check.add_argument("files", nargs="+", type=Path, help="variant TOML files")
    check.set_defaults(func=_variant_check)
    lst = vsub.add_parser("list", help="list the installed variants")
    lst.set_defaults(func=_variant_list)

    from judge.cli_game import add_game_commands
    from judge.cli_map import add_map_command
    from judge.cli_serve import add_serve_commands

    add_game_commands(sub)
    add_serve_commands(sub)
    add_map_command(sub)
    return parser


def _sandbox(args: argparse.Namespace) -> int:
    from judge.sandbox import MAX_INPUT_CHARS, read_lines, run_json_line

    # bytes that are not UTF-8 become U+FFFD: the JSON reader then reports them on their own line
    stream = (io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace") if args.file == "-"
              else open(args.file, encoding="utf-8", errors="replace"))
    try:
        if args.batch:
            out = sys.stdout
            for line in read_lines(stream):
                result = run_json_line(line)
                out.write(json.dumps(result, ensure_ascii=False) + "\n")
                out.flush()
            return EXIT_OK
        result = run_json_line(stream.read(MAX_INPUT_CHARS + 1))
    finally:
        if args.file != "-":
            stream.close()
    print(json.dumps(result, ensure_ascii=False, indent=2 if args.pretty else None))
    return EXIT_OK if result["error"] is None else EXIT_PROBLEMS


def _variant_check(args: argparse.Namespace) -> int:
    from judge.catalog import load_variant_file
    from judge.rules.variant import VariantError

    status = EXIT_OK
    for path in args.files:
        try:
            variant = load_variant_file(path)
        except FileNotFoundError:
            print(f"{path}: no such file", file=sys.stderr)
            status = EXIT_PROBLEMS
        except VariantError as exc:
            print(str(exc), file=sys.stderr)
            status = EXIT_PROBLEMS
        else:
            print(f"{path}: ok ({variant.name}: {len(variant.geo.provinces)} provinces, {len(variant.centres)} "
                  f"centres, {len(variant.powers)} powers, solo at {variant.solo_threshold(variant.start_year)})")
    return status


def _variant_list(args: argparse.Namespace) -> int:
    from judge.catalog import load_variant, variant_names

    for name in variant_names():
        v = load_variant(name)
        print(f"{name}\t{v.name}: {len(v.powers)} powers, {len(v.centres)} centres, solo at "
              f"{v.solo_threshold(v.start_year)}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
