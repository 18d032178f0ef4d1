"""The import contracts of docs/architecture.md, read from the source (every import, also those inside functions).

- the rules engine imports nothing but itself and the standard library;
- the game server imports no mail, command language, transport, rendering, drawing or command line, and is given
  variant loading (judge.data.catalog) rather than importing it;
- the store imports no game server, commands, mail, transport or reports;
- drawing (judge.reports.maps) imports the rules engine, its own package, Pillow and the data folders only;
- data loading, reading raw mail, the command language and the reports keep to their rows of docs/architecture.md;
- every module imports only its own package and what its row of the table in docs/architecture.md allows ("may
  import"), and every module has a row: the documented table is the one that is checked;
- no two modules share a name.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

JUDGE = Path(__file__).resolve().parent.parent / "judge"
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def module_name(path: Path) -> str:
    parts = path.relative_to(JUDGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str) -> list[tuple[int, str]]:
    """Every module ``source`` imports, with its line; relative imports resolved against ``module``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")[: -node.level]
                base = ".".join([*package, base] if base else package)
            found.append((node.lineno, base))
            # ``from judge.data import catalog`` imports judge.data.catalog
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names if alias.name != "*"]
    return found


def within(name: str, prefixes: set[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def top(name: str) -> str:
    return name.split(".")[0]


def rules_problem(name: str) -> bool:
    return not (within(name, {"judge.rules"}) or (top(name) in STDLIB and top(name) != "judge"))


GAME_FORBIDDEN = {
    "judge.commands",
    "judge.mail",
    "judge.transport",
    "judge.reports",
    "judge.cli",
    "judge.wiring",
    "judge.data.catalog",
    "PIL",
    "jinja2",
}
STORE_FORBIDDEN = {"judge.game", "judge.commands", "judge.mail", "judge.transport", "judge.reports", "judge.cli"}
DATA_FORBIDDEN = STORE_FORBIDDEN | {"judge.store"}
MAIL_FORBIDDEN = STORE_FORBIDDEN | {"judge.store", "judge.signatures"}
# signatures are pure where they can be: bytes, keys and the time they are given in, values out (the standard library,
# the OpenPGP and DKIM libraries, and the mail reader's bounds); DNS only through the resolver module the shell calls
SIGNATURES_ALLOWED = {"pysequoia", "dkim", "dns", "nacl", "judge.mail.bounds"}
COMMANDS_FORBIDDEN = {"judge.transport", "judge.cli"}
REPORTS_FORBIDDEN = {"judge.transport", "judge.commands", "judge.cli"}
MAPS_ALLOWED = {"judge.rules", "judge.reports.maps", "judge.data.resources", "PIL"}
# the geometry tool's command line (python -m judge.reports.maps.tessellate) reads a variant file by name, and the
# tool alone needs shapely (the optional ``mapgen`` extra); nothing that draws a picture imports it
MAPS_TOOL_ALLOWED = {"judge.data.catalog", "shapely"}


def problems_of(module: str, source: str) -> list[str]:
    """The contract breaches in ``source``, the text of ``module``."""
    out = []
    # a package's modules may import each other (drawing, inside the reports, is a package of its own)
    own = "judge.reports.maps" if within(module, {"judge.reports.maps"}) else ".".join(module.split(".")[:2])
    for line, name in imports(source, module):
        if within(name, {own}) and own != "judge":
            continue
        # pure: the standard library (the signatures' libraries; the bots also the rules engine)
        if within(module, {"judge.rules", "judge.signatures", "judge.bots"}):
            bad = rules_problem(name) and not (
                within(module, {"judge.signatures"}) and within(name, SIGNATURES_ALLOWED)
            )
        elif within(module, {"judge.game"}):
            bad = within(name, GAME_FORBIDDEN)
        elif within(module, {"judge.store"}):
            bad = within(name, STORE_FORBIDDEN)
        elif within(module, {"judge.data"}):
            bad = within(name, DATA_FORBIDDEN)
        elif within(module, {"judge.mail"}):
            bad = within(name, MAIL_FORBIDDEN)
        elif within(module, {"judge.commands"}):
            bad = within(name, COMMANDS_FORBIDDEN)
        elif within(module, {"judge.reports.maps"}):
            allowed = MAPS_ALLOWED | (MAPS_TOOL_ALLOWED if module == "judge.reports.maps.tessellate" else set())
            bad = not (within(name, allowed) or (top(name) in STDLIB and top(name) != "judge"))
            # ``from judge.data import resources`` also names the package judge.data itself
            bad = bad and name not in {"judge.data", "judge"}
        elif within(module, {"judge.reports"}):
            bad = within(name, REPORTS_FORBIDDEN)
        else:
            bad = False
        if bad:
            out.append(f"{module}:{line} imports {name}")
    return out


SOURCES = sorted(JUDGE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(JUDGE)))
def test_module_keeps_its_contract(path: Path) -> None:
    assert problems_of(module_name(path), path.read_text(encoding="utf-8")) == []


def test_no_two_modules_share_a_name() -> None:
    names = Counter(p.stem for p in SOURCES if p.stem not in ("__init__", "__main__"))
    assert [name for name, n in names.items() if n > 1] == []


def test_the_check_sees_every_layer() -> None:
    modules = {module_name(p) for p in SOURCES}
    for package in ("judge.rules", "judge.game", "judge.store", "judge.reports.maps"):
        assert sum(within(m, {package}) for m in modules) >= 3, package


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("judge.rules.turn", "import sqlite_utils"),
        ("judge.rules.turn", "from judge.game import records"),
        ("judge.rules.turn", "import PIL"),
        ("judge.game.service", "def f():\n    from judge.reports.render import render_mail"),
        ("judge.game.service", "from judge.data import catalog"),
        ("judge.game.service", "from judge.data.catalog import load_variant"),
        ("judge.game.service", "import jinja2"),
        ("judge.game.service", "from PIL import Image"),
        ("judge.game.service", "from ..transport import smtp"),
        ("judge.store.db", "from judge.game.records import Game"),
        ("judge.store.db", "import judge.commands.handler"),
        ("judge.reports.maps.draw", "from judge.game import records"),
        ("judge.reports.maps.draw", "from judge.data.catalog import load_variant"),
        ("judge.reports.maps.draw", "import shapely"),
        ("judge.reports.maps.draw", "import jinja2"),
        ("judge.data.catalog", "from judge.game import records"),
        ("judge.mail.message", "from judge.store import write"),
        ("judge.mail.message", "from judge.commands.body import parse_body"),
        ("judge.reports.maps.draw", "from judge.reports.render import render_mail"),
        ("judge.commands.handler", "from judge.transport.smtp import drain_outbox"),
        ("judge.reports.outbox", "from judge.commands import body"),
        ("judge.signatures.verify", "from judge.store import write"),
        ("judge.signatures.verify", "from judge.mail.message import Incoming"),
        ("judge.signatures.keys", "import sqlite_utils"),
        ("judge.mail.pgp_parts", "from judge.signatures.verify import verify_detached"),
        ("judge.bots.standin", "from judge.game import records"),
        ("judge.bots.standin", "import sqlite_utils"),
        ("judge.bots.standin", "from judge.data.catalog import load_variant"),
    ],
)
def test_a_breach_is_caught(module: str, source: str) -> None:
    assert problems_of(module, source) != []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("judge.rules.turn", "from dataclasses import dataclass\nfrom judge.rules.board import Position"),
        ("judge.rules.turn", "from . import board"),
        ("judge.game.service", "from judge.rules.turn import play\nfrom judge.store import write\nimport sqlite_utils"),
        ("judge.store.db", "import sqlite3\nfrom judge.timeutil import iso_utc"),
        ("judge.reports.maps.draw", "from PIL import Image\nfrom judge.data.resources import data_dir"),
        ("judge.reports.maps.tessellate", "from judge.data.catalog import load_variant\nimport shapely"),
        ("judge.mail.message", "from judge.mail.bounds import MAX_PARTS\nfrom judge.mail import part_text"),
        ("judge.signatures.verify", "import hashlib\nfrom pysequoia import verify\nfrom judge.signatures import keys"),
        ("judge.bots.standin", "import random\nfrom judge.rules.legality import check_order\nfrom judge.bots import x"),
    ],
)
def test_what_a_layer_may_import_passes(module: str, source: str) -> None:
    assert problems_of(module, source) == []


# --- SQL lives in judge/store/ ----------------------------------------------------------------------------------------

SQL_CALLS = {"execute", "executemany", "executescript", "query", "table"}  # a query run, or a table taken to write
DATABASE_NAMES = {"db", "database"}  # ``db["games"]`` is sqlite-utils' other way to a table


def sql_outside_store(module: str, source: str) -> list[str]:
    """Where ``source`` (the text of ``module``) runs SQL or takes a table, unless the module is in the store."""
    if within(module, {"judge.store"}):
        return []
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SQL_CALLS:
            out.append(f"{module}:{node.lineno} calls .{node.func.attr}(")
        elif isinstance(node, ast.Subscript):
            base = node.value
            name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
            if name in DATABASE_NAMES:
                out.append(f"{module}:{node.lineno} takes {name}[...]")
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(JUDGE)))
def test_sql_lives_in_the_store(path: Path) -> None:
    assert sql_outside_store(module_name(path), path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("judge.transport.smtp", "def f(db):\n    db.execute('update outbox set status = 1')"),
        ("judge.transport.imap", "rows = list(db.query('select 1 from quarantine'))"),
        ("judge.cli.games", "self.db.conn.executemany('delete from games', [])"),
        ("judge.commands.seen", "db.table('messages').insert({})"),
        ("judge.game.records", "db['games'].insert({})"),
        ("judge.reports.outbox", "self.db['pictures'].get(1)"),
        ("judge.commands.security", "conn.executescript('drop table games')"),
        ("judge.commands.handler", "rows = list(db.query('select max(id) as m from outbox'))"),
    ],
)
def test_sql_outside_the_store_is_caught(module: str, source: str) -> None:
    assert sql_outside_store(module, source) != []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("judge.store.mail_queue", "db.execute('update outbox set status = ?', ['sent'])\ndb['outbox'].get(1)"),
        ("judge.store.inbox", "rows = list(db.query('select max(id) as m from messages'))"),
        ("judge.transport.smtp", "rows = [r['id'] for r in rows]\nfrom judge.store import mail_queue"),
    ],
)
def test_sql_in_the_store_passes(module: str, source: str) -> None:
    assert sql_outside_store(module, source) == []


# --- the table of docs/architecture.md ------------------------------------------------------------------------------

ARCHITECTURE = JUDGE.parent / "docs" / "architecture.md"


def documented_table(text: str) -> dict[str, set[str] | None]:
    """Each row's package (``judge/game/`` as judge.game) and the judge modules its "may import" cell names in
    backticks (``data.catalog`` as judge.data.catalog); None for "everything"."""
    rows: dict[str, set[str] | None] = {}
    for line in text.splitlines():
        if not line.startswith("| `judge/"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        package = cells[0].strip("`").removesuffix("/").removesuffix(".py").replace("/", ".")
        may = cells[2]
        rows[package] = None if may == "everything" else {f"judge.{n}" for n in re.findall(r"`([a-z0-9_.]+)`", may)}
    return rows


def row_of(module: str, rows: dict[str, set[str] | None]) -> str | None:
    """The row ``module`` belongs to: the longest documented package it is in."""
    found = [package for package in rows if within(module, {package})]
    return max(found, key=len) if found else None


def undocumented_imports(module: str, source: str, rows: dict[str, set[str] | None]) -> list[str]:
    """The judge modules ``source`` imports that neither its own package nor its row allows."""
    if module == "judge":  # the package's __init__: its version, nothing imported
        return []
    package = row_of(module, rows)
    if package is None:
        return [f"{module} has no row in docs/architecture.md"]
    allowed = rows[package]
    if allowed is None:
        return []
    allowed = allowed | {package}
    out = []
    for line, name in imports(source, module):
        if top(name) != "judge" or within(name, allowed):
            continue
        # ``from judge.data import resources`` also names the package judge.data, and ``import judge.wiring`` judge
        if any(a.startswith(name + ".") for a in allowed):
            continue
        out.append(f"{module}:{line} imports {name}, not in its row ({package}) of docs/architecture.md")
    return out


TABLE = documented_table(ARCHITECTURE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(JUDGE)))
def test_module_keeps_its_documented_row(path: Path) -> None:
    assert undocumented_imports(module_name(path), path.read_text(encoding="utf-8"), TABLE) == []


def test_the_table_names_real_packages() -> None:
    modules = {module_name(p) for p in SOURCES}
    assert len(TABLE) >= 10
    for package, allowed in TABLE.items():
        assert package in modules, package
        for name in allowed or ():
            assert name in modules or name == "judge.__version__", (package, name)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("judge.game.setup", "from judge.reports import render"),
        ("judge.store.game_rows", "from judge.game.records import Game"),
        ("judge.rules.turn", "from judge.facts import LANGUAGES"),
        ("judge.mail.message", "def f():\n    import judge.timeutil"),
        ("judge.commands.handler", "from judge.transport import smtp"),
        ("judge.facts", "from judge.rules.words import Reason"),
        ("judge.extra", "import os"),  # a module without a row
    ],
)
def test_an_undocumented_import_is_caught(module: str, source: str) -> None:
    assert undocumented_imports(module, source, TABLE) != []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        (
            "judge.game.setup",
            "from judge.store import write\nfrom judge.facts import is_game_name\nimport sqlite_utils",
        ),
        ("judge.commands.handlers", "from judge.data.catalog import load_variant\nimport judge.wiring"),
        ("judge.reports.maps.tessellate", "from judge.data import catalog"),
        ("judge.cli.games", "from judge.transport.daemon import serve"),
    ],
)
def test_a_documented_import_passes(module: str, source: str) -> None:
    assert undocumented_imports(module, source, TABLE) == []
