"""The message ids the code marks for translation: every ``T("…")`` call with a literal first argument.

``python -m judge.i18n_ids`` lists those missing from a catalog (the test suite fails on any)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from judge.i18n import catalog_ids

PACKAGE = Path(__file__).parent


def marked_ids() -> dict[str, str]:
    """Each msgid the package marks, with where it is first marked."""
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "T" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.setdefault(node.args[0].value, f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return found


def missing(language: str) -> dict[str, str]:
    have = catalog_ids(language)
    return {m: where for m, where in marked_ids().items() if m and m not in have}


if __name__ == "__main__":  # pragma: no cover - a developer's tool
    bad = 0
    for lang in sys.argv[1:] or ["ru", "de"]:
        for msgid, where in missing(lang).items():
            bad += 1
            print(f"{lang}\t{where}\t{msgid!r}")
    sys.exit(1 if bad else 0)
