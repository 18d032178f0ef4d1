"""`judge serve`, `judge init`, `judge check-config` and `judge demo`: running the judge as a mail service."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judge.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE


def add_serve_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "serve",
        parents=[common],
        help="run the mail daemon: read orders by IMAP, adjudicate, send results by SMTP",
        description="Run the judge. Config errors, and a database a newer judge wrote, exit with status 2 "
        "(systemd does not restart then). Before it migrates a database to a newer schema, the judge backs it up "
        "(beside it, or in [judge] backup_dir).",
    )
    p.add_argument(
        "--once",
        action="store_true",
        help="handle waiting mail, adjudicate due deadlines, drain the outbox, then exit (for cron)",
    )
    p.add_argument("--verbose", action="store_true", help="log every step")
    p.set_defaults(func=_serve)

    p = sub.add_parser("init", help="write a commented example config (mode 0600)")
    p.add_argument("path", nargs="?", default="judge.toml")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument("--address", default=None, help="the judge's mail address (default: judge@example.org)")
    p.add_argument(
        "--db",
        dest="init_db",
        default=None,
        metavar="FILE",
        help="the database file (default: the --db given before `init`, else /var/lib/judge/judge.db)",
    )
    p.set_defaults(func=_init)

    p = sub.add_parser(
        "check-config",
        parents=[common],
        help="validate the config and the database folder; --connect logs in to the IMAP and SMTP servers",
        description="Validate the configuration exactly as `judge serve` does (the same function), "
        "and check that the database folder exists and is writable. With --connect, "
        "also log in to the IMAP and SMTP servers. Exit status 2: the configuration "
        "(or its database folder) is wrong; 1: a server refused.",
    )
    p.add_argument("--connect", action="store_true", help="log in to the IMAP and SMTP servers")
    p.set_defaults(func=_check)

    p = sub.add_parser(
        "demo",
        parents=[common],
        help="play a demo game by mail to an agreed draw on embedded mail servers (no account needed)",
        description="Start an embedded IMAP server (pymap) and SMTP listener (aiosmtpd) on loopback, "
        "create a classic game with a game master and seven scripted players who read English, Russian and "
        "German and mail their orders in their own words, and run it through the real daemon: the game master "
        "moves a deadline by mail and makes the press grey, a player broadcasts, and after the years played "
        "the players agree a draw by mail. The mailboxes, every mail the judge sent (as .eml files), the game's "
        "public archive (web pages; ←/→ step through the phases) and the database are left for inspection, and "
        "their paths printed (--db puts the database elsewhere; the demo "
        "reads no configuration).",
    )
    p.add_argument(
        "--dir", default=None, help="where to keep the mailboxes, mails and database (default: a new temp dir)"
    )
    p.add_argument("--years", type=int, default=2, help="game years to play before the draw (default 2)")
    p.add_argument("--seed", type=int, default=1, help="seed for the scripted players' orders")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.set_defaults(func=_demo)

    key = sub.add_parser("key", help="the judge's own OpenPGP key ([judge] openpgp_key)")
    ksub = key.add_subparsers(title="key commands", metavar="ACTION", required=True)
    p = ksub.add_parser(
        "export",
        parents=[common],
        help="print the judge's public key (players verify the judge's mail with it; GET KEY mails it)",
    )
    p.set_defaults(func=_key_export)

    db = sub.add_parser("db", help="the database: size per table, pruning, backups, a health check")
    dsub = db.add_subparsers(title="db commands", metavar="ACTION", required=True)
    for action, helptext in (
        (
            "stats",
            "rows and bytes on disk per table (indexes included), largest first; then the size expected per "
            "game-phase and per day at the traffic of the last --days days, and at steady state",
        ),
        ("prune", "prune now what judge serve prunes hourly (old mail bodies, pictures, old records)"),
    ):
        p = dsub.add_parser(action, parents=[common], help=helptext)
        p.add_argument("--json", action="store_true", help="print JSON")
        if action == "stats":
            p.add_argument(
                "--days", type=float, default=7.0, help="the traffic measured over the last DAYS days (default 7)"
            )
        p.add_argument("--now", default=None, help=argparse.SUPPRESS)  # a fixed clock, for tests
        p.set_defaults(func=_db_command, action=action)
    p = dsub.add_parser(
        "backup",
        parents=[common],
        help="copy the database to FILE (SQLite's online backup: consistent while the daemon runs)",
        description="Copy the database to FILE, a new file, with SQLite's online backup: consistent whether the "
        "daemon is running or stopped. Restoring is putting the copy back while the daemon is stopped "
        "(docs/deploy.md, 'Upgrading and rolling back').",
    )
    p.add_argument("file", metavar="FILE", help="the copy to write (never overwritten)")
    p.set_defaults(func=_db_backup)
    p = dsub.add_parser(
        "check",
        parents=[common],
        help="integrity, foreign keys, the schema version, mail stuck in the queue: one line each",
        description="Check the database without changing it: SQLite's integrity check, its foreign keys, the "
        "schema against the migrations this judge knows (and which judge applied them), and mail stuck in the "
        "queue. One line each; exit status 1 when any is not ok.",
    )
    p.set_defaults(func=_db_check)


def _logging(verbose: bool) -> None:
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def _load(args: argparse.Namespace) -> Any:
    """The configuration as `judge serve` needs it (its database replaced by --db or $JUDGE_DB when given);
    `judge check-config` uses this same function."""
    import dataclasses
    import os

    from judge.config import DB_ENV, ConfigError, config_path, database_problem, load_config

    try:
        cfg = load_config(config_path(getattr(args, "config", None)))
    except ConfigError as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return None
    explicit = getattr(args, "db", None) or os.environ.get(DB_ENV)
    if explicit:
        cfg = dataclasses.replace(cfg, db=str(explicit))
    problem = database_problem(cfg.db, create=True)
    if problem:
        print(f"judge: {cfg.source}: [judge] db: {problem}", file=sys.stderr)
        return None
    if cfg.dkim.signs:  # the key read, now parsed: a key dkimpy cannot use stops the judge here, not at its first mail
        from judge.signatures.dkim import KeyProblem, signing_key

        try:
            signing_key(cfg.dkim.key, cfg.dkim.selector, cfg.dkim.domain)
        except KeyProblem as exc:
            print(f"judge: {cfg.source}: [dkim] sign_key: {exc}", file=sys.stderr)
            return None
    from judge.cli.common import use_host_dirs

    use_host_dirs(cfg)
    return cfg


def _key_export(args: argparse.Namespace) -> int:
    """`judge key export`: the public half of the judge's key, armoured (never a word of the secret one)."""
    from datetime import UTC, datetime

    from judge.config import ConfigError, config_path, load_config
    from judge.transport.keyfile import load_judge_key

    try:
        cfg = load_config(config_path(getattr(args, "config", None)))
        judge_key = load_judge_key(cfg, datetime.now(UTC))
    except ConfigError as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if judge_key is None:
        print("judge: no key: set [judge] openpgp_key (or the systemd credential openpgp-key)", file=sys.stderr)
        return EXIT_PROBLEMS
    print(judge_key.public.strip())
    print(f"judge: fingerprint {judge_key.fingerprint.upper()}", file=sys.stderr)
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    from judge.store.backup import BackupError
    from judge.store.versions import NewerDatabase
    from judge.transport.daemon import serve

    _logging(args.verbose or not args.once)
    cfg = _load(args)
    if cfg is None:
        return EXIT_USAGE
    if cfg.imap is None or cfg.smtp is None:
        print("judge: the config needs an [imap] and an [smtp] section", file=sys.stderr)
        return EXIT_USAGE
    # SIGTERM (systemd stop) interrupts even a wait in IDLE; an interrupted transaction rolls back, and mail
    # handled but not yet moved is recognised and tidied at the next start
    stop = threading.Event()

    def terminate(signum: int, frame: Any) -> None:
        stop.set()  # kept even when the interrupt below is replaced by an error of the connection it cut short
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    from datetime import UTC, datetime

    from judge.config import ConfigError
    from judge.transport.keyfile import load_judge_key

    try:
        judge_key = load_judge_key(cfg, datetime.now(UTC))
    except ConfigError as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if judge_key is not None:
        logging.getLogger("judge").info("signing mail with OpenPGP key %s", judge_key.fingerprint.upper())
    try:
        return serve(cfg, once=args.once, stop=stop, judge_key=judge_key)
    except (NewerDatabase, BackupError) as exc:  # nothing changed; a restart would meet the same
        print(f"judge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        logging.getLogger("judge").info("stopped")
        return EXIT_OK


def _init(args: argparse.Namespace) -> int:
    import os

    from judge.config import EXAMPLE_VALUES, example_toml

    path = Path(args.path)
    if path.exists() and not args.force:
        print(f"judge: {path} exists; use --force to overwrite it", file=sys.stderr)
        return EXIT_PROBLEMS
    if not path.parent.is_dir():
        print(f"judge: {path.parent} is not a folder; create it first (sudo mkdir -p {path.parent})", file=sys.stderr)
        return EXIT_PROBLEMS
    values = {name: dict(section) for name, section in EXAMPLE_VALUES.items()}
    if args.address:
        values["judge"]["address"] = args.address
    if args.init_db or getattr(args, "db", None):
        values["judge"]["db"] = args.init_db or args.db
    text = example_toml(values)
    # the file may hold a password: readable by its owner only, from the first byte on
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    print(f"wrote {path} (mode 0600); edit it, then: judge check-config --config {path}")
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    import smtplib

    from judge.transport.daemon import IMAP_ERRORS
    from judge.transport.imap import Inbox
    from judge.transport.smtp import connect

    cfg = _load(args)
    if cfg is None:
        return EXIT_USAGE
    status = EXIT_OK
    from datetime import UTC, datetime

    from judge.config import ConfigError
    from judge.transport.keyfile import load_judge_key

    try:
        judge_key = load_judge_key(cfg, datetime.now(UTC))
    except ConfigError as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"config {cfg.source}: ok (address {cfg.address}, database {cfg.db}, time zone {cfg.timezone})")
    for warning in cfg.warnings:
        print(f"judge: warning: {warning}", file=sys.stderr)
    if cfg.sender_check == "dkim":
        where = cfg.dkim.resolver or "the system's resolver"
        print(f"sender check: DKIM of the From domain ({cfg.dkim.alignment} alignment), keys looked up at {where}")
    if cfg.dkim.signs:
        print(f"signing: DKIM with the key published at {cfg.dkim.selector}._domainkey.{cfg.dkim.domain}")
    if judge_key is not None:
        print(f"openpgp key {judge_key.fingerprint.upper()}: ok; every mail the judge sends is signed")
    if not args.connect:
        print("servers not tried; add --connect to log in to IMAP and SMTP")
        return status
    if cfg.imap is not None:
        inbox = Inbox(cfg.imap)
        try:
            inbox.open()
            print(f"imap {cfg.imap.host}:{cfg.imap.port}: ok, folder {cfg.imap.folder}")
        except (*IMAP_ERRORS, KeyError) as exc:  # any failure to reach, log in or select (KeyError: no UIDVALIDITY)
            print(f"imap {cfg.imap.host}:{cfg.imap.port}: FAILED: {type(exc).__name__}: {exc}")
            status = EXIT_PROBLEMS
        finally:
            inbox.drop()
    if cfg.smtp is not None:
        try:
            connect(cfg.smtp).quit()
            print(f"smtp {cfg.smtp.host}:{cfg.smtp.port}: ok")
        except (OSError, smtplib.SMTPException) as exc:  # any failure to reach or log in (ssl errors are OSErrors)
            print(f"smtp {cfg.smtp.host}:{cfg.smtp.port}: FAILED: {type(exc).__name__}: {exc}")
            status = EXIT_PROBLEMS
    return status


def _db_command(args: argparse.Namespace) -> int:
    import json

    from judge.cli.common import CliError, db_path, open_store, settings
    from judge.config import Config
    from judge.store.upkeep import expected_sizes, prune, table_sizes
    from judge.timeutil import parse_iso_utc

    cfg = settings(args)
    db = open_store(args)  # reading never creates a database
    path = db_path(args)
    kept = cfg or Config(address="judge@localhost")
    retention = {
        "mail_days": kept.mail_retention_days,
        "handled_days": kept.handled_retention_days,
        "picture_days": kept.picture_retention_days,
    }
    try:
        now = parse_iso_utc(args.now) if args.now else datetime.now(UTC).replace(microsecond=0)
    except ValueError as exc:
        raise CliError(f"--now: {exc}", EXIT_USAGE) from None
    if args.action == "prune":
        done = prune(db, now, **retention)
        print(
            json.dumps(done.__dict__)
            if args.json
            else f"pruned: {done.mail_bodies} mail bodies, {done.pictures} pictures, {done.handled} handled-mail "
            f"records, {done.signon_failures} sign-on failures, {done.quarantine} quarantine records"
        )
        return EXIT_OK
    if not args.days > 0:
        raise CliError("--days: more than 0", EXIT_USAGE)
    sizes = table_sizes(db)
    expected = expected_sizes(db, now, days=args.days, **retention)
    file_bytes = Path(path).stat().st_size
    if args.json:
        tables = [{"table": t, "rows": r, "bytes": b} for t, r, b in sizes]
        print(json.dumps({"tables": tables, "file_bytes": file_bytes, "expected": expected.as_dict()}, indent=2))
        return EXIT_OK
    print(f"{'table':<22} {'rows':>9} {'bytes':>12}")
    for table, rows, size in sizes:
        print(f"{table:<22} {rows:>9} {size:>12}")
    print(f"{'total':<22} {'':>9} {sum(s for _, _, s in sizes):>12}  ({file_bytes} in the file)")
    print()
    for line in _expected_lines(expected):
        print(line)
    return EXIT_OK


def _expected_lines(e: Any) -> list[str]:
    """``judge db stats``' second part: what the store is heading for at the traffic it measured."""
    out = [
        f"traffic of the last {e.days:g} days: {e.phases_per_day:.1f} phases and {e.mails_per_day:.1f} mails a day",
        f"{'table':<22} {'rows/day':>9} {'bytes/row':>10} {'bytes/day':>12} {'kept':>9} {'held':>13}",
    ]
    for r in e.rates:
        kept = "for ever" if r.kept_days is None else f"{r.kept_days:g} days"
        held = "-" if r.kept_days is None else f"{r.held:.0f}"
        out.append(
            f"{r.table:<22} {r.rows_per_day:>9.1f} {r.bytes_per_row:>10.0f} {r.bytes_per_day:>12.0f} {kept:>9} "
            f"{held:>13}"
        )
    out += [
        f"per game-phase: {e.per_phase(for_ever=True):.0f} bytes kept for ever, {e.per_phase(for_ever=False):.0f} "
        "bytes while kept (mail bodies, pictures, handled mail)",
        f"per day: {e.growth_per_day:.0f} bytes kept for ever, {e.passing_per_day:.0f} bytes while kept",
        f"steady state: {e.held:.0f} bytes held by the retention settings, and {e.growth_per_day * 365:.0f} bytes "
        f"a year kept for ever; in a year at this traffic: {e.in_days(365):.0f} bytes",
    ]
    return out


def _demo(args: argparse.Namespace) -> int:
    from judge.cli.demo import run_demo

    if getattr(args, "config", None):
        print(
            "judge: judge demo runs on its own embedded mail servers and reads no configuration; leave out --config",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return run_demo(args.dir, years=args.years, seed=args.seed, quiet=args.quiet, database=getattr(args, "db", None))


def _db_backup(args: argparse.Namespace) -> int:
    from judge.cli.common import CliError, db_path
    from judge.store.backup import BackupError, backup

    try:
        written = backup(db_path(args), args.file)
    except BackupError as exc:
        raise CliError(f"judge: {exc}") from None
    print(f"wrote {written} ({written.stat().st_size} bytes), a copy of {db_path(args)}")
    return EXIT_OK


def _db_check(args: argparse.Namespace) -> int:
    from datetime import datetime

    from judge.cli.common import CliError, db_path
    from judge.store.health import check

    path = db_path(args)
    if not Path(path).is_file():
        raise CliError(f"judge: there is no database at {path}")
    findings = check(path, datetime.now(UTC))
    for finding in findings:
        print(finding.line())
    return EXIT_OK if all(f.ok for f in findings) else EXIT_PROBLEMS
