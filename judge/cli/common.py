"""What every ``judge`` command shares: the configuration, the database, passwords, and one-line errors.

Exit statuses: 0 done; 1 a runtime problem (unknown game, missing file, a server that refuses); 2 a usage or
configuration problem (bad argument, bad TOML, unknown key). Every problem is one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from judge.config import DB_ENV, Config, ConfigError, database_problem, find_config, load_config, searched

# the exit statuses of every command (the docstring above); systemd does not restart `judge serve` after a 2
EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


class CliError(Exception):
    """A problem to print as one line, with its exit status."""

    def __init__(self, message: str, status: int = EXIT_PROBLEMS) -> None:
        super().__init__(message)
        self.status = status


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{self.prog}: {message} (see: {self.prog} --help)", EXIT_USAGE)


def config_options(default: Any = argparse.SUPPRESS) -> Parser:
    """``--config`` and ``--db``, accepted before or after the command name (after it, they leave what was given
    before it alone)."""
    common = Parser(add_help=False)  # a Parser: sub-commands take it as a parent
    common.add_argument(
        "--config",
        default=default,
        metavar="FILE",
        help="the configuration (default: $JUDGE_CONFIG, else ./judge.toml, else /etc/judge/judge.toml)",
    )
    common.add_argument(
        "--db",
        default=default,
        metavar="FILE",
        help=f"the SQLite file (default: ${DB_ENV}, else the configuration's [judge] db)",
    )
    return common


def settings(args: argparse.Namespace) -> Config | None:
    """The configuration this command runs with (loaded once), or None when there is none anywhere."""
    if "_config" not in vars(args):
        path = find_config(getattr(args, "config", None))
        cfg = None
        if path is not None:
            try:
                cfg = load_config(path, secrets=False)  # only `judge serve` and `check-config` log in
            except ConfigError as exc:
                raise CliError(str(exc), EXIT_USAGE) from None
        args._config = cfg
        use_host_dirs(cfg)
    loaded: Config | None = args._config
    return loaded


def use_host_dirs(cfg: Config | None) -> None:
    from judge.data import resources

    resources.set_host_dirs(variants=cfg.variants_dir if cfg else None, templates=cfg.templates_dir if cfg else None)


def db_path(args: argparse.Namespace) -> str:
    """``--db``, else ``$JUDGE_DB``, else the configuration's database."""
    explicit = getattr(args, "db", None) or os.environ.get(DB_ENV)
    cfg = settings(args)
    if explicit:
        return str(explicit)
    if cfg is None:
        raise CliError(
            f"no configuration found ({searched()}); write one with `judge init`, or give --db FILE", EXIT_USAGE
        )
    return cfg.db


def open_store(args: argparse.Namespace, *, create: bool = False) -> Any:
    """The game database; only commands that may start a new one pass ``create`` (reading never creates a file)."""
    from judge.store import open_db

    path = db_path(args)
    problem = database_problem(path, create=create)
    if problem:
        raise CliError(problem)
    cfg = settings(args)
    db = open_db(path, backup_dir=cfg.backup_dir if cfg is not None and cfg.backup_dir else None)
    args._store = db  # for what follows the command (the public archive's pages: judge.cli.public_archive)
    return db


def read_password(args: argparse.Namespace, what: str = "the player's password") -> str:
    """From ``--password-file`` (``-``: standard input), a prompt on a terminal, standard input, or (with a warning)
    ``--password``."""
    if getattr(args, "password", None) is not None:
        if getattr(args, "password_file", None):
            raise CliError("give --password or --password-file, not both", EXIT_USAGE)
        print(
            "judge: warning: --password is visible to other users (ps, shell history); prefer --password-file "
            "FILE or the prompt",
            file=sys.stderr,
        )
        return str(args.password)
    source = getattr(args, "password_file", None)
    if source and source != "-":
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise CliError(f"{source}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise CliError(f"{source}: not UTF-8 text") from None
        password = text.splitlines()[0] if text.strip() else ""
    elif not source and sys.stdin is not None and sys.stdin.isatty():
        password = getpass.getpass(f"{what}: ")
        if getpass.getpass("again: ") != password:
            raise CliError("the two passwords differ")
    else:
        try:
            line = sys.stdin.readline() if sys.stdin is not None else ""
        except OSError:
            line = ""
        password = line.rstrip("\r\n")
    if not password:
        raise CliError("no password given: use the prompt, --password-file FILE or - for standard input", EXIT_USAGE)
    return password


def add_password_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--password-file",
        default=None,
        metavar="FILE",
        help="read the password from the first line of FILE (- for standard input); without it the "
        "judge asks on the terminal, or reads one line from standard input",
    )
    p.add_argument("--password", default=None, help="the password itself (visible in ps and shell history; warns)")
