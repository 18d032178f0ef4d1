"""The rules engine stays pure: no I/O, clock, database, network, randomness or printing in judge/rules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "judge" / "rules"
FORBIDDEN_MODULES = {
    "os",
    "sys",
    "io",
    "time",
    "datetime",
    "random",
    "pathlib",
    "shutil",
    "socket",
    "subprocess",
    "logging",
    "sqlite3",
    "sqlite_utils",
    "imaplib",
    "smtplib",
    "imapclient",
    "aiosmtpd",
    "jinja2",
    "tomllib",
    "json",
    "threading",
    "asyncio",
}
FORBIDDEN_CALLS = {"print", "open", "input", "exec", "eval"}


@pytest.mark.parametrize("path", sorted(RULES.glob("*.py")), ids=lambda p: p.name)
def test_rules_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]]
        else:
            names = []
        bad = FORBIDDEN_MODULES.intersection(names)
        assert not bad, f"{path.name}:{node.lineno} imports {bad}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno} calls {node.func.id}()"


def test_the_check_sees_the_engine() -> None:
    assert {p.name for p in RULES.glob("*.py")} >= {"movement.py", "parse.py", "variant.py", "turn.py"}


BOTS = RULES.parent / "bots"


@pytest.mark.parametrize("path", sorted(BOTS.glob("*.py")), ids=lambda p: p.name)
def test_bot_module_is_pure(path: Path) -> None:
    """The bots keep the rules engine's purity, with one exception: a ``random.Random`` made from the seed they are
    given (never the module's shared generator, which the clock seeds)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]]
            assert node.module != "random", f"{path.name}:{node.lineno} takes names from random"
        else:
            names = []
        bad = (FORBIDDEN_MODULES - {"random"}).intersection(names)
        assert not bad, f"{path.name}:{node.lineno} imports {bad}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno} calls {node.func.id}()"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "random":
            assert node.attr == "Random", f"{path.name}:{node.lineno} uses random.{node.attr}, not a seeded Random"


def test_the_check_sees_the_bots() -> None:
    assert {p.name for p in BOTS.glob("*.py")} >= {"standin.py", "province_values.py"}
