"""`judge game …`, `judge mail handle` and `judge outbox list`: the game master's command line (stable for scripts)."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from datetime import datetime, timezone
from typing import Any, Callable

from judge.timeutil import parse_duration, parse_iso_utc
from judge.store import write

EXIT_OK, EXIT_PROBLEMS = 0, 1


def add_game_commands(sub: Any) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=None, help="the SQLite file (default: $JUDGE_DB, else ./judge.db)")
    common.add_argument("--now", default=None, help=argparse.SUPPRESS)  # a fixed clock, for tests and replays

    game = sub.add_parser("game", help="create and run games (the game master's controls)")
    gsub = game.add_subparsers(title="game commands", metavar="ACTION")

    p = gsub.add_parser("create", parents=[common], help="create a game that players can join")
    p.add_argument("name")
    p.add_argument("--variant", default="classic")
    p.add_argument("--deadline", default="48h", help="time for movement phases (48h, 2d, 90m)")
    p.add_argument("--retreat-deadline", default="24h")
    p.add_argument("--adjust-deadline", default="24h")
    p.add_argument("--press", default="white", choices=["white", "grey", "none"])
    p.add_argument("--solo", type=int, default=None, help="centres needed to win (overrides the variant's)")
    p.add_argument("--last-year", type=int, default=None, help="after this Fall the power with most centres wins")
    p.add_argument("--grace", default=None, help="grace period after a deadline for late players (e.g. 12h)")
    p.add_argument("--master", default=None, help="the game master's address")
    p.add_argument("--assign", default="preference", choices=["master", "preference", "random"],
                   help="how powers are given out at the start")
    p.set_defaults(func=_create)

    p = gsub.add_parser("join", parents=[common], help="seat a player")
    p.add_argument("name")
    p.add_argument("--power", default=None)
    p.add_argument("--email", required=True)
    p.add_argument("--password", required=True)
    p.set_defaults(func=_join)

    for action, helptext in (("start", "start a forming game"), ("process", "adjudicate now, as at the deadline"),
                             ("pause", "stop the clock"), ("resume", "restart the clock")):
        p = gsub.add_parser(action, parents=[common], help=helptext)
        p.add_argument("name")
        if action == "start":
            p.add_argument("--seed", type=int, default=None, help="seed for random power assignment")
        p.set_defaults(func=_simple, action=action)

    p = gsub.add_parser("extend", parents=[common], help="extend the current deadline")
    p.add_argument("name")
    p.add_argument("by", help="e.g. 24h")
    p.set_defaults(func=_extend)

    p = gsub.add_parser("replace", parents=[common], help="give a power to another player")
    p.add_argument("name")
    p.add_argument("--power", required=True)
    p.add_argument("--email", required=True)
    p.add_argument("--password", required=True)
    p.set_defaults(func=_replace)

    p = gsub.add_parser("rollback", parents=[common], help="return to the start of an earlier phase")
    p.add_argument("name")
    p.add_argument("phase")
    p.set_defaults(func=_rollback)

    p = gsub.add_parser("list", parents=[common], help="list the games")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_list)

    p = gsub.add_parser("show", parents=[common], help="show a game")
    p.add_argument("name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_show)

    p = gsub.add_parser("tick", parents=[common], help="adjudicate every game whose deadline has passed")
    p.set_defaults(func=_tick)

    mail = sub.add_parser("mail", help="handle mail by hand")
    msub = mail.add_subparsers(title="mail commands", metavar="ACTION")
    p = msub.add_parser("handle", parents=[common],
                        help="handle one raw RFC 5322 message exactly as the daemon does and print the replies")
    p.add_argument("file", help="the message file, or - for standard input")
    p.add_argument("--config", default=None, help="the daemon's config, for the judge's address and reply cap "
                   "(default: $JUDGE_CONFIG or ./judge.toml when present, else what judge serve recorded)")
    p.set_defaults(func=_mail_handle)

    outbox = sub.add_parser("outbox", help="mail waiting to be sent, and sent")
    osub = outbox.add_subparsers(title="outbox commands", metavar="ACTION")
    p = osub.add_parser("list", parents=[common], help="list queued and sent mail")
    p.add_argument("--json", action="store_true")
    p.add_argument("--status", default=None, choices=["queued", "sent", "failed"])
    p.set_defaults(func=_outbox_list)


def _db(args: argparse.Namespace) -> Any:
    from judge.store import open_db

    return open_db(args.db or os.environ.get("JUDGE_DB") or "judge.db")


def _now(args: argparse.Namespace) -> datetime:
    return parse_iso_utc(args.now) if args.now else datetime.now(timezone.utc).replace(microsecond=0)


def _guarded(body: Callable[[], int]) -> int:
    from judge.game.service import GameError

    try:
        return body()
    except (GameError, ValueError) as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return EXIT_PROBLEMS


def _create(args: argparse.Namespace) -> int:
    from judge.game.service import create_game
    from judge.game.settings import GameSettings

    def body() -> int:
        settings = GameSettings(
            movement_deadline=int(parse_duration(args.deadline).total_seconds()),
            retreat_deadline=int(parse_duration(args.retreat_deadline).total_seconds()),
            adjustment_deadline=int(parse_duration(args.adjust_deadline).total_seconds()),
            press=args.press, solo=args.solo, last_year=args.last_year,
            grace=int(parse_duration(args.grace).total_seconds()) if args.grace else 0,
            master=args.master, assignment=args.assign)
        db = _db(args)
        with write(db):
            game = create_game(db, args.name, args.variant, settings, _now(args))
        print(f"created {game.name} ({game.variant.name}); players join with: judge game join {game.name} "
              f"--email ADDR --password PW [--power P], or by mail: JOIN {game.name} <password>")
        return EXIT_OK

    return _guarded(body)


def _join(args: argparse.Namespace) -> int:
    from judge.game.service import join_game

    def body() -> int:
        db = _db(args)
        with write(db):
            player = join_game(db, args.name, args.email, args.password, _now(args), power=args.power,
                               sender="master")
        print(f"{player.email} joined {args.name}" + (f" as {player.power}" if player.power else ""))
        return EXIT_OK

    return _guarded(body)


def _simple(args: argparse.Namespace) -> int:
    from judge.game import service

    def body() -> int:
        db = _db(args)
        now = _now(args)
        with write(db):
            if args.action == "start":
                rng = random.Random(args.seed) if args.seed is not None else random.Random()
                game = service.start_game(db, args.name, now, rng)
                print(f"started {game.name}: {game.phase}, deadline {game.deadline.isoformat() if game.deadline else '-'}")
            elif args.action == "process":
                turn = service.process_game(db, args.name, now)
                print(f"adjudicated {turn.phase.code}; next {turn.position.phase.code}"
                      + (f"; {turn.winner} wins" if turn.winner else ""))
            elif args.action == "pause":
                service.pause_game(db, args.name, now)
                print(f"paused {args.name}")
            else:
                service.resume_game(db, args.name, now)
                print(f"resumed {args.name}")
        return EXIT_OK

    return _guarded(body)


def _extend(args: argparse.Namespace) -> int:
    from judge.game.service import extend_deadline

    def body() -> int:
        db = _db(args)
        with write(db):
            game = extend_deadline(db, args.name, parse_duration(args.by), _now(args))
        print(f"{game.name}: deadline {game.deadline.isoformat() if game.deadline else '-'}")
        return EXIT_OK

    return _guarded(body)


def _replace(args: argparse.Namespace) -> int:
    from judge.game.service import replace_player

    def body() -> int:
        db = _db(args)
        with write(db):
            seat = replace_player(db, args.name, args.power, args.email, args.password, _now(args))
        print(f"{seat.power} in {args.name} is now played by {seat.email}")
        return EXIT_OK

    return _guarded(body)


def _rollback(args: argparse.Namespace) -> int:
    from judge.game.service import rollback_game

    def body() -> int:
        db = _db(args)
        with write(db):
            game = rollback_game(db, args.name, args.phase, _now(args))
        print(f"{game.name} is back at {game.phase}")
        return EXIT_OK

    return _guarded(body)


def _list(args: argparse.Namespace) -> int:
    from judge.game.service import list_games

    games = list_games(_db(args))
    if args.json:
        print(json.dumps(games, indent=2))
    else:
        for g in games:
            print(f"{g['name']:<20} {g['variant']:<10} {g['status']:<9} {g['phase'] or '-':<7} {g['deadline'] or ''}")
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    from judge.game.service import show_game

    def body() -> int:
        shown = show_game(_db(args), args.name)
        if args.json:
            print(json.dumps(shown, indent=2, ensure_ascii=False))
        else:
            print(f"{shown['name']} ({shown['variant']}): {shown['status']}, {shown['phase'] or '-'}, "
                  f"deadline {shown['deadline'] or '-'}")
            for p in shown["players"]:
                flags = [f for f in ("ready", "resigned", "eliminated", "orders_submitted") if p[f]]
                print(f"  {p['power'] or '?':<10} {p['email']:<30} {' '.join(flags)}")
            for power, units in shown["units"].items():
                print(f"  {power:<10} {', '.join(units)}")
        return EXIT_OK

    return _guarded(body)


def _tick(args: argparse.Namespace) -> int:
    from judge.game.service import tick

    done = tick(_db(args), _now(args))
    print("adjudicated: " + (", ".join(done) if done else "nothing due"))
    return EXIT_OK


def _mail_handle(args: argparse.Namespace) -> int:
    from judge.mail.imap_in import mail_handle_settings, handle_one

    raw = sys.stdin.buffer.read() if args.file == "-" else open(args.file, "rb").read()
    db = _db(args)
    address, cap, note = mail_handle_settings(db, getattr(args, "config", None))
    if note:
        print(f"judge: {note}", file=sys.stderr)
    handled = handle_one(db, raw, _now(args), address, cap)
    if handled.outcome == "duplicate":
        print("duplicate: this message was handled before; nothing changed and nothing was sent")
    elif not handled.replies:
        print(f"{handled.outcome}; no reply")
    for reply in handled.replies:
        print(f"To: {reply['to_addr']}\nSubject: {reply['subject']}\n\n{reply['body']}\n" + "-" * 72)
    return EXIT_OK


def _outbox_list(args: argparse.Namespace) -> int:
    db = _db(args)
    where, params = ("where status = ?", [args.status]) if args.status else ("", [])
    rows = [{"id": r["id"], "to": r["to_addr"], "subject": r["subject"], "body": r["body"], "status": r["status"],
             "created_at": r["created_at"], "sent_at": r["sent_at"]}
            for r in db.query(f"select * from outbox {where} order by id", params)]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        for r in rows:
            print(f"{r['id']:>5} {r['status']:<7} {r['to']:<30} {r['subject']}")
    return EXIT_OK
