"""The message ids the code, the mail templates and the public archive's templates (judge/web/templates) mark for
translation: every ``T("…")`` call with a literal first argument, and every ``_("…")``/``ngettext``/``pgettext`` call
with literal words in a template.

``python -m judge.i18n.gaps`` lists those missing from a catalog (the test suite fails on any)."""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

from jinja2 import Environment
from jinja2.ext import extract_from_ast

from judge.facts import LANGUAGES
from judge.i18n import catalog_ids

PACKAGE = Path(__file__).parent.parent  # the judge package


def marked_ids() -> dict[str, str]:
    """Each msgid the package marks, with where it is first marked."""
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for text, line in _module_ids(path, *_stamp(path)):
            found.setdefault(text, f"{path.relative_to(PACKAGE.parent)}:{line}")
    from judge.data.resources import search_dirs

    folders = [*search_dirs("templates"), PACKAGE / "web" / "templates"]  # the mail's, the public archive's
    for folder in folders:
        for path in sorted(folder.rglob("*.j2")):
            for msgid in _template_file_ids(path, *_stamp(path)):
                found.setdefault(msgid, str(path))
    return found


def _stamp(path: Path) -> tuple[int, int]:
    """What tells a changed file from the one read before: its modification time and size."""
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


@functools.lru_cache(maxsize=1024)
def _module_ids(path: Path, mtime_ns: int, size: int) -> tuple[tuple[str, int | str], ...]:
    """The texts a Python module marks, with their lines (read again once the file changes)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_rules = path.parent.name == "rules" and path.name in REASON_MODULES
    return tuple(
        (text, getattr(node, "lineno", "?")) for node in ast.walk(tree) for text in _marked_texts(node, in_rules)
    )


@functools.lru_cache(maxsize=1024)
def _template_file_ids(path: Path, mtime_ns: int, size: int) -> tuple[str, ...]:
    return tuple(template_ids(path.read_text(encoding="utf-8")))


def template_ids(source: str) -> list[str]:
    """The msgids a Jinja template marks: ``_("…")``, ``ngettext("…", "…", n)`` (the singular) and ``pgettext("ctx",
    "…")`` (as the catalog keys it, ``ctx\x04…``), found by Jinja's own parser (jinja2.ext.extract_from_ast, the
    extractor Babel uses)."""
    ids: list[str] = []
    for _, function, strings in extract_from_ast(Environment().parse(source), GETTEXT_FUNCTIONS, babel_style=True):
        args = strings if isinstance(strings, tuple) else (strings,)
        if function == "pgettext":
            if len(args) > 1 and args[0] is not None and args[1] is not None:
                ids.append(f"{args[0]}\x04{args[1]}")
        elif args and args[0] is not None:
            ids.append(args[0])
    return ids


GETTEXT_FUNCTIONS = ("_", "ngettext", "pgettext")


def _marked_texts(node: ast.AST, in_rules: bool) -> list[str]:
    """The texts ``node`` marks: ``T``/``Reason``/``OrderError`` arguments, and in the rules engine a void order's
    reason returned bare or in an (outcome, reason, order) tuple."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        if node.func.id in ("T", "Reason"):
            return _literals(node.args[0])
        if node.func.id == "OrderError" and len(node.args) > 1:
            return _literals(node.args[1])
        return []
    if in_rules and isinstance(node, ast.Return):  # a void order's reason without parameters
        return [t for t in _literals(node.value) if " " in t]
    if in_rules and isinstance(node, ast.Tuple):  # (Outcome.VOID, "reason", order)
        return [t for e in node.elts for t in _literals(e) if " " in t]
    return []


def _literals(node: ast.AST | None) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []


REASON_MODULES = {"legality.py", "adjustments.py", "movement.py", "retreats.py", "turn.py"}


def missing(language: str) -> dict[str, str]:
    have = catalog_ids(language)
    return {m: where for m, where in marked_ids().items() if m and m not in have}


if __name__ == "__main__":  # pragma: no cover - a developer's tool
    bad = 0
    for lang in sys.argv[1:] or [code for code in LANGUAGES if code != "en"]:
        for msgid, where in missing(lang).items():
            bad += 1
            print(f"{lang}\t{where}\t{msgid!r}")
    sys.exit(1 if bad else 0)
