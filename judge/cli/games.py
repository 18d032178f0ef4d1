"""`judge game …`, `judge mail handle` and `judge outbox list`: the game master's command line (stable for scripts)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from judge.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CliError,
    add_password_options,
    open_store,
    read_password,
    settings,
)
from judge.facts import Assignment, Auth, Bots, PressKind, Resolve, Takeover
from judge.rules.edition import RulesEdition
from judge.rules.victory import TieOthers
from judge.store.statuses import GameStatus, OutboxStatus
from judge.timeutil import format_duration, parse_duration, parse_iso_utc, parse_lead_times

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from sqlite_utils import Database


def write(db: Database) -> AbstractContextManager[Database]:
    """``judge.store.write``, imported when a command first writes: the store pulls in sqlite-utils, which the
    parser (and ``judge --version``) does without."""
    from judge.store import write as store_write

    return store_write(db)


def add_game_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    clock = argparse.ArgumentParser(add_help=False, parents=[common])
    clock.add_argument("--now", default=None, help=argparse.SUPPRESS)  # a fixed clock, for tests and replays

    game = sub.add_parser("game", help="create and run games (the game master's controls)")
    gsub = game.add_subparsers(title="game commands", metavar="ACTION", required=True)

    p = gsub.add_parser("create", parents=[clock], help="create a game that players can join")
    p.add_argument("name")
    p.add_argument(
        "--variant",
        default="classic",
        help="a variant name (the host's variants_dir, then the shipped ones) or a path to a .toml file",
    )
    p.add_argument("--deadline", default="48h", help="time for movement phases (48h, 2d, 90m)")
    p.add_argument("--retreat-deadline", default="24h")
    p.add_argument("--adjust-deadline", default="24h")
    p.add_argument("--press", default="white", choices=[k.value for k in PressKind])
    p.add_argument("--solo", type=int, default=None, help="centres needed to win (overrides the variant's)")
    p.add_argument("--last-year", type=int, default=None, help="after this Fall the power with most centres wins")
    p.add_argument(
        "--tie-break",
        default=None,
        metavar="POWERS",
        help="powers in the order that settles a tie of leaders, e.g. England,France (overrides the variant's)",
    )
    p.add_argument(
        "--tie-others",
        choices=[t.value for t in TieOthers],
        default=None,
        help="a tie no order settles: play on (the line needs a single leader) or a draw among them",
    )
    p.add_argument(
        "--combined",
        action="store_true",
        help="the powers one player holds count their centres (or points) together for victory",
    )
    p.add_argument(
        "--points",
        default=None,
        metavar="PLACES",
        help="victory points per place, e.g. par:3,bur:2 (replaces the variant's table; other centres are worth 1)",
    )
    p.add_argument("--grace", default=None, help="grace period after a deadline for late players (e.g. 12h)")
    p.add_argument(
        "--reminders",
        default="24h",
        metavar="LEADS",
        help="reminders before each deadline for players who still owe orders or READY: up to three lead times "
        "(e.g. '24h 2h'), or none; each player may choose his own (SET REMINDER)",
    )
    p.add_argument(
        "--resolve",
        choices=[r.value for r in Resolve],
        default=Resolve.READY.value,
        help="early resolution: when every player who owes orders is READY (default), or as soon as every power that "
        "owes orders has them all in (unless a player sent SET WAIT)",
    )
    p.add_argument(
        "--absence-days",
        type=int,
        default=14,
        help="days a player may declare absent (SET ABSENCE) per year; no deadline falls inside an absence",
    )
    p.add_argument("--master", default=None, help="the game master's address")
    p.add_argument(
        "--assign",
        default="preference",
        choices=[a.value for a in Assignment],
        help="how powers are given out at the start",
    )
    p.add_argument("--anonymous", action="store_true", help="players are not told each other's addresses")
    p.add_argument("--shared-addresses", action="store_true", help="one address may play two powers")
    p.add_argument(
        "--named-draws",
        action="store_true",
        help="DRAW PROPOSE may name the powers the draw is among (default: every power still in the game)",
    )
    p.add_argument(
        "--abandon-after",
        type=int,
        default=0,
        help="deadlines a power may miss in a row before it is in civil disorder, e.g. 3 (default 0: never)",
    )
    p.add_argument(
        "--bots",
        choices=[b.value for b in Bots],
        default=Bots.NONE.value,
        help="the stand-in bot plays powers in civil disorder (cd), and also the seats nobody joined when the game "
        "starts (fill: a practice game); default none",
    )
    p.add_argument(
        "--nmr-wait",
        default=None,
        metavar="LENGTH",
        help="when orders are missing at a deadline, move it once by this much and tell the late players (e.g. "
        "12h); the next deadline plays whatever is in",
    )
    p.add_argument(
        "--excuses",
        type=int,
        default=0,
        help="misses per player per game excused before --abandon-after counts them (default 0)",
    )
    p.add_argument(
        "--min-reliability",
        default=None,
        metavar="SHARE",
        help="refuse JOIN and TAKEOVER from an address that met fewer than this share of its deadlines, e.g. 0.8 "
        "(an address with a short record is never refused)",
    )
    p.add_argument(
        "--takeover",
        choices=[t.value for t in Takeover],
        default=Takeover.OPEN.value,
        help="TAKEOVER of a power in civil disorder: at once (open) or when the game master approves",
    )
    p.add_argument(
        "--auth",
        choices=[a.value for a in Auth],
        default=Auth.ANY.value,
        help="which mail acts for a seat: its password or a signature by its OpenPGP key (any), or only mail signed "
        "by the seat's key (key; a password sign-on may only register the key: SET KEY)",
    )
    p.add_argument(
        "--rules",
        choices=[e.value for e in RulesEdition],
        default=RulesEdition.Y2000.value,
        help="the rules edition: 2000 (the 2000 rulebook as DATC v2.4 prefers; default) or datc-3 (the changes of "
        "DATC v3.0: no land-route fallback for 'via convoy', an unneeded convoy order is void, civil disorder "
        "counts to owned centres over land and sea)",
    )
    p.set_defaults(func=_create)

    p = gsub.add_parser("join", parents=[clock], help="seat a player")
    p.add_argument("name")
    p.add_argument("--power", default=None)
    p.add_argument("--email", required=True)
    add_password_options(p)
    p.set_defaults(func=_join)

    for action, helptext in (
        ("start", "start a forming game"),
        ("process", "adjudicate now, as at the deadline"),
        ("pause", "stop the clock"),
        ("resume", "restart the clock"),
    ):
        p = gsub.add_parser(action, parents=[clock], help=helptext)
        p.add_argument("name")
        if action == "start":
            p.add_argument("--seed", type=int, default=None, help="seed for random power assignment")
        p.set_defaults(func=_simple, action=action, archive=True)

    p = gsub.add_parser(
        "extend",
        parents=[clock],
        help="move the current deadline later (or, with --to, anywhere)",
        description="Extend the current deadline by a duration, or set it with --to (in the host's "
        "time zone, [judge] timezone, unless the time carries its own offset). A paused "
        "game's time left grows instead. Each player who still owes orders is told.",
    )
    p.add_argument("name")
    p.add_argument("by", nargs="?", default=None, help="e.g. 24h")
    p.add_argument("--to", default=None, metavar="WHEN", help="e.g. 2026-12-05T18:00 (earlier shortens)")
    p.set_defaults(func=_deadline, shorten=False)

    p = gsub.add_parser(
        "shorten",
        parents=[clock],
        help="bring the current deadline forward",
        description="Bring the current deadline forward by a duration (a paused game's time left "
        "shrinks instead). Every player who owes orders is told.",
    )
    p.add_argument("name")
    p.add_argument("by", help="e.g. 12h")
    p.set_defaults(func=_deadline, shorten=True, to=None)

    p = gsub.add_parser("replace", parents=[clock], help="give a power to another player (both are told)")
    p.add_argument("name")
    p.add_argument("--power", required=True)
    p.add_argument("--email", required=True)
    add_password_options(p)
    p.set_defaults(func=_replace)

    p = gsub.add_parser(
        "master-password",
        parents=[clock],
        help="set the game master's password (to sign on by mail: MASTER NAME PASSWORD)",
        description="Set or change the password the game master signs on with by mail (MASTER NAME PASSWORD), "
        "then sends SET DEADLINE, PROCESS, PAUSE, RESUME, EJECT, REPLACE, TERMINATE, APPROVE and REJECT.",
    )
    p.add_argument("name")
    add_password_options(p)
    p.set_defaults(func=_master_password)

    for decision, helptext in (
        ("approve", "give a power in civil disorder to the player whose TAKEOVER waits"),
        ("reject", "refuse the TAKEOVER that waits for a power (the asker is told)"),
    ):
        p = gsub.add_parser(decision, parents=[clock], help=helptext)
        p.add_argument("name")
        p.add_argument("power")
        p.set_defaults(func=_decide_takeover, approve=decision == "approve")

    p = gsub.add_parser("eject", parents=[clock], help="take a power from its player (civil disorder until replaced)")
    p.add_argument("name")
    p.add_argument("power")
    p.set_defaults(func=_eject)

    p = gsub.add_parser("end", parents=[clock], help="end a running game: a draw among named powers, or abandoned")
    p.add_argument("name")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--draw", nargs="+", metavar="POWER", help="the powers that share the draw")
    how.add_argument("--abandoned", action="store_true", help="no result")
    p.set_defaults(func=_end, archive=True)

    p = gsub.add_parser("delete", parents=[clock], help="delete a game that never started (its players are told)")
    p.add_argument("name")
    p.set_defaults(func=_delete, archive=True)

    p = gsub.add_parser(
        "settings",
        parents=[clock],
        help="show a game's settings, or change one",
        description="Without KEY VALUE: show every setting. Keys: press (white|grey|both|none), deadline, "
        "retreat_deadline, adjust_deadline, grace (durations), solo (a number or "
        "default), last_year (a year or none), tie_break (powers in order, or none), tie_others "
        "(play-on|draw|none), anonymous, shared_addresses, combined (true|false), points (places and their victory "
        "points, e.g. par:3,bur:2, or none for the variant's), resolve (ready|orders-in), "
        "absence_days_per_year (days), named_draws (true|false), "
        "abandon_after (deadlines missed in a row before civil disorder; 0: never), takeover (open|approve), "
        "auth (any|key: only mail signed with the seat's OpenPGP key acts for it), "
        "master (an address or none), assignment (before the start), reminders (up to three lead times, e.g. "
        "'24h 2h', or none), bots (none|cd|fill), nmr_wait (a duration or 0), excuses (misses), min_reliability "
        "(a share, e.g. 0.8, or 0), rules (2000|datc-3, before the start).",
    )
    p.add_argument("name")
    p.add_argument("key", nargs="?", default=None)
    p.add_argument("value", nargs="?", default=None)
    p.set_defaults(func=_settings)

    p = gsub.add_parser("rollback", parents=[clock], help="return to the start of an earlier phase")
    p.add_argument("name")
    p.add_argument("phase")
    p.set_defaults(func=_rollback, archive=True)

    p = gsub.add_parser("list", parents=[clock], help="list the games")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_list)

    p = gsub.add_parser("show", parents=[clock], help="show a game: players, orders in, ready, settings")
    p.add_argument("name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_show)

    p = gsub.add_parser("tick", parents=[clock], help="adjudicate every game whose deadline has passed")
    p.set_defaults(func=_tick, archive=True)

    from judge.cli.game_export import add_export_command

    add_export_command(gsub, clock)

    mail = sub.add_parser("mail", help="handle mail by hand")
    msub = mail.add_subparsers(title="mail commands", metavar="ACTION", required=True)
    p = msub.add_parser(
        "handle",
        parents=[clock],
        help="handle one raw RFC 5322 message exactly as the daemon does and print the replies",
    )
    p.add_argument("file", help="the message file, or - for standard input")
    p.set_defaults(func=_mail_handle, archive=True)

    outbox = sub.add_parser("outbox", help="mail waiting to be sent, and sent")
    osub = outbox.add_subparsers(title="outbox commands", metavar="ACTION", required=True)
    p = osub.add_parser("list", parents=[clock], help="list queued and sent mail, with attempts and the last error")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--status",
        default=None,
        choices=[s.value for s in OutboxStatus],
        help="only mail of this status (sending: claimed by a sender, its SMTP transaction under way)",
    )
    p.set_defaults(func=_outbox_list)
    p = osub.add_parser(
        "show",
        parents=[clock],
        help="print one mail as it was (or will be) sent: headers and every part",
        description="Print the mail with this outbox id byte for byte as the judge sends it (the Date of its sending, "
        "or now while queued), except that a picture is named, not dumped: [image/png map.png, N bytes]. The calendar "
        "invitation (text/calendar, and invite.ics) is printed as it is, its part named with its METHOD, UID and "
        "SEQUENCE. With --text: only the readable text.",
    )
    p.add_argument("id", type=int)
    p.add_argument("--text", action="store_true", help="only the text a player reads (text/plain)")
    p.set_defaults(func=_outbox_show)


def _db(args: argparse.Namespace, *, create: bool = False) -> Any:
    """The configured database; only ``game create`` and ``mail handle`` may start a new file."""
    return open_store(args, create=create)


def _now(args: argparse.Namespace) -> datetime:
    if args.now:
        try:
            return parse_iso_utc(args.now)
        except ValueError as exc:
            raise CliError(f"--now: {exc}", EXIT_USAGE) from None
    return datetime.now(UTC).replace(microsecond=0)


def _duration(text: str, option: str) -> timedelta:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise CliError(f"{option}: {exc}", EXIT_USAGE) from None


def _leads(text: str) -> tuple[int, ...]:
    try:
        return parse_lead_times(text.replace(",", " ").split() or ["none"])
    except ValueError as exc:
        raise CliError(f"--reminders: {exc}", EXIT_USAGE) from None


def _guarded(body: Callable[[], int]) -> int:
    """Run a command: a request already carried out says ``nothing changed: …`` and exits 0 (a script may repeat a
    command safely); any other refusal is one line on stderr and exit status 1."""
    from judge.game.lookup import GameError, Unchanged

    try:
        return body()
    except Unchanged as exc:
        print(f"nothing changed: {exc}")
        return EXIT_OK
    except GameError as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return EXIT_PROBLEMS


def _create(args: argparse.Namespace) -> int:
    from judge.game.service import create_game
    from judge.game.settings import GameSettings, read_points

    try:
        points = read_points(args.points) if args.points is not None else None
    except ValueError as exc:
        raise CliError(f"--points: {exc}", EXIT_USAGE) from None
    settings = GameSettings(
        movement_deadline=int(_duration(args.deadline, "--deadline").total_seconds()),
        retreat_deadline=int(_duration(args.retreat_deadline, "--retreat-deadline").total_seconds()),
        adjustment_deadline=int(_duration(args.adjust_deadline, "--adjust-deadline").total_seconds()),
        press=PressKind(args.press),
        solo=args.solo,
        last_year=args.last_year,
        grace=int(_duration(args.grace, "--grace").total_seconds()) if args.grace else 0,
        master=args.master.strip().lower() if args.master else None,
        assignment=Assignment(args.assign),
        anonymous=args.anonymous,
        shared_addresses=args.shared_addresses,
        tie_break=tuple(args.tie_break.replace(",", " ").split()) if args.tie_break else None,
        tie_others=args.tie_others,
        combined=args.combined,
        resolve=Resolve(args.resolve),
        absence_days_per_year=args.absence_days,
        named_draws=args.named_draws,
        abandon_after=args.abandon_after,
        takeover=Takeover(args.takeover),
        bots=Bots(args.bots),
        nmr_wait=int(_duration(args.nmr_wait, "--nmr-wait").total_seconds()) if args.nmr_wait else 0,
        excuses=args.excuses,
        min_reliability=_share(args.min_reliability),
        auth=Auth(args.auth),
        rules=RulesEdition(args.rules),
        points=points,
        reminders=_leads(args.reminders),
    )

    def body() -> int:
        db = _db(args, create=True)
        with write(db):
            game = create_game(db, args.name, args.variant, settings, _now(args))
        print(
            f"created {game.name} ({game.variant.name}); players join with: judge game join {game.name} "
            f"--email ADDR [--power P] (the password is asked for), or by mail: JOIN {game.name} <password>"
        )
        return EXIT_OK

    return _guarded(body)


def _share(text: str | None) -> float:
    """``--min-reliability 0.8`` (or 80%)."""
    if text is None:
        return 0.0
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise CliError(f"--min-reliability: {text!r} is not a share like 0.8", EXIT_USAGE) from None
    if not 0.0 <= value <= 1.0:
        raise CliError("--min-reliability: between 0 and 1, e.g. 0.8", EXIT_USAGE)
    return value


def _join(args: argparse.Namespace) -> int:
    from judge.game.service import join_game

    def body() -> int:
        db = _db(args)
        password = read_password(args)
        with write(db):
            player = join_game(db, args.name, args.email, password, _now(args), power=args.power, sender="master")
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
                print(
                    f"started {game.name}: {game.phase}, deadline {game.deadline.isoformat() if game.deadline else '-'}"
                )
            elif args.action == "process":
                turn = service.process_game(db, args.name, now)
                print(
                    f"adjudicated {turn.phase.code}; next {turn.position.phase.code}"
                    + (f"; {turn.winner} wins" if turn.winner else "")
                )
            elif args.action == "pause":
                service.pause_game(db, args.name, now)
                print(f"paused {args.name}")
            else:
                service.resume_game(db, args.name, now)
                print(f"resumed {args.name}")
        return EXIT_OK

    return _guarded(body)


def _host_time(args: argparse.Namespace, text: str) -> datetime:
    """``--to``: an ISO 8601 time; without an offset it is read in the host's zone ([judge] timezone, else UTC)."""
    from zoneinfo import ZoneInfo

    cfg = settings(args)
    zone = ZoneInfo(cfg.timezone if cfg else "UTC")
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace(" ", "T", 1))
    except ValueError:
        raise CliError(f"--to: cannot read {text!r} as a time; write e.g. 2026-12-05T18:00", EXIT_USAGE) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone)
    return when.astimezone(UTC)


def _deadline(args: argparse.Namespace) -> int:
    from judge.game import master

    if (args.by is None) == (args.to is None):
        raise CliError("judge game extend: give a duration (24h) or --to WHEN, not both", EXIT_USAGE)
    by = _duration(args.by, "duration") if args.by is not None else None
    to = _host_time(args, args.to) if args.to is not None else None

    def body() -> int:
        db = _db(args)
        with write(db):
            game = master.change_deadline(db, args.name, _now(args), by=by, to=to, shorten=args.shorten)
        if game.status is GameStatus.PAUSED:
            print(f"{game.name}: paused, {format_duration(timedelta(seconds=game.paused_remaining or 0))} left")
        else:
            print(f"{game.name}: deadline {game.deadline.isoformat() if game.deadline else '-'}")
        return EXIT_OK

    return _guarded(body)


def _replace(args: argparse.Namespace) -> int:
    from judge.game import master

    def body() -> int:
        db = _db(args)
        password = read_password(args, "the new player's password")
        with write(db):
            seat = master.replace(db, args.name, args.power, args.email, password, _now(args))
        print(f"{seat.power} in {args.name} is now played by {seat.email}; both players have been mailed")
        return EXIT_OK

    return _guarded(body)


def _master_password(args: argparse.Namespace) -> int:
    from judge.game.master_mail import set_master_password

    def body() -> int:
        db = _db(args)
        password = read_password(args, "the game master's password")
        with write(db):
            game = set_master_password(db, args.name, password, _now(args))
        print(f"{game.name}: the game master signs on by mail with: MASTER {game.name} <password>")
        return EXIT_OK

    return _guarded(body)


def _decide_takeover(args: argparse.Namespace) -> int:
    from judge.game.civil_disorder import decide

    def body() -> int:
        db = _db(args)
        with write(db):
            decided = decide(db, args.name, args.power, args.approve, _now(args))
        if isinstance(decided, str):
            print(f"the takeover by {decided} is rejected; they have been mailed")
        else:
            print(f"{decided.power} in {args.name} is now played by {decided.email}; they have been mailed")
        return EXIT_OK

    return _guarded(body)


def _eject(args: argparse.Namespace) -> int:
    from judge.game import master

    def body() -> int:
        db = _db(args)
        with write(db):
            seat = master.eject(db, args.name, args.power, _now(args))
        print(
            f"{seat.email} no longer plays {seat.power} in {args.name}; replace with: judge game replace "
            f"{args.name} --power {seat.power} --email ADDR"
        )
        return EXIT_OK

    return _guarded(body)


def _end(args: argparse.Namespace) -> int:
    from judge.game import master

    def body() -> int:
        db = _db(args)
        how = master.Ending.ABANDONED if args.abandoned else master.Ending.DRAW
        with write(db):
            game = master.end(db, args.name, how, _now(args), draw=tuple(args.draw or ()))
        result = game.result or {}
        print(
            f"{game.name} is over: "
            + (f"a draw among {', '.join(result['powers'])}" if how is master.Ending.DRAW else "abandoned")
        )
        return EXIT_OK

    return _guarded(body)


def _delete(args: argparse.Namespace) -> int:
    from judge.game import master

    def body() -> int:
        db = _db(args)
        with write(db):
            told = master.delete(db, args.name, _now(args))
        print(f"deleted {args.name}" + (f"; told {', '.join(told)}" if told else ""))
        return EXIT_OK

    return _guarded(body)


def _settings(args: argparse.Namespace) -> int:
    from judge.game import master
    from judge.game.service import get_game

    def body() -> int:
        db = _db(args)
        if args.key is None:
            shown = master.settings_view(get_game(db, args.name).settings)
            for key, value in shown.items():
                print(f"{key:<20} {'-' if value is None else value}")
            return EXIT_OK
        if args.value is None:
            raise CliError(
                f"judge game settings: {args.key} needs a value (see: judge game settings --help)", EXIT_USAGE
            )
        with write(db):
            game = master.change_setting(db, args.name, args.key, args.value, _now(args))
        print(f"{game.name}: {args.key} = {args.value}")
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
    from judge.game import master

    def body() -> int:
        shown = master.show(_db(args), args.name)
        if args.json:
            print(json.dumps(shown, indent=2, ensure_ascii=False))
            return EXIT_OK
        print(
            f"{shown['name']} ({shown['variant']}): {shown['status']}, {shown['phase'] or '-'}, "
            f"deadline {shown['deadline'] or '-'}, rules edition {shown['rules']}"
        )
        print(f"  {'power':<16} {'player':<30} {'orders':<8} {'ready':<6} {'status':<10} record")
        for p in shown["players"]:
            lines = p["order_lines"]
            orders = (f"{lines} line{'s' if lines != 1 else ''}" if lines else "MISSING") if p["owes_orders"] else "-"
            flags = [f for f in ("resigned", "eliminated") if p[f]]
            power = (p["power"] or "?") + (" (bot)" if p["bot"] else "")
            print(
                f"  {power:<16} {p['email']:<30} {orders:<8} {'yes' if p['ready'] else 'no':<6} "
                f"{' '.join(flags) or 'playing':<10} {_record_cell(p['record'])}".rstrip()
            )
        for power, units in shown["units"].items():
            print(f"  {power:<10} {', '.join(units)}")
        print("  settings: " + ", ".join(f"{k} {'-' if v is None else v}" for k, v in shown["settings"].items()))
        return EXIT_OK

    return _guarded(body)


def _record_cell(record: dict[str, Any] | None) -> str:
    """A player's record in one cell of ``game show``: deadlines met of owed, the reliability, what he left."""
    if record is None:
        return ""
    if not record["games"]:
        return "new: no record"
    share = f"{record['percent']}%" if record["percent"] is not None else "too few to judge"
    left = [f"{record[k]} {k}" for k in ("resigned", "abandoned", "ejected") if record[k]]
    return ", ".join([f"met {record['met']}/{record['owed']} in {record['games']} games", share, *left])


def _tick(args: argparse.Namespace) -> int:
    from judge.game.service import tick

    done = tick(_db(args), _now(args))
    print("adjudicated: " + (", ".join(done) if done else "nothing due"))
    return EXIT_OK


def _mail_handle(args: argparse.Namespace) -> int:
    from judge.commands.handler import MessageOutcome
    from judge.transport.imap import handle_one, mail_handle_settings, sender_check_of

    if args.file == "-":
        raw = sys.stdin.buffer.read()
    else:
        with open(args.file, "rb") as f:
            raw = f.read()
    db = _db(args, create=True)
    cfg = settings(args)
    if cfg is not None:
        from judge.game.records import set_create_by_mail_policy

        with write(db):
            set_create_by_mail_policy(db, cfg.create_by_mail)
    address, cap, age, note = mail_handle_settings(db, cfg)
    if note:
        print(f"judge: {note}", file=sys.stderr)
    judge_key = None
    if cfg is not None and cfg.openpgp_key:
        from judge.config import ConfigError
        from judge.transport.keyfile import load_judge_key

        try:
            judge_key = load_judge_key(cfg, _now(args))
        except ConfigError as exc:  # mail is still handled; encrypted mail stays unread
            print(f"judge: {exc}; mail encrypted to the judge is not read", file=sys.stderr)
    handled = handle_one(
        db,
        raw,
        _now(args),
        address,
        cap,
        max_mail_age_days=age,
        judge_key=judge_key,
        sender_check=sender_check_of(cfg),
    )
    if handled.outcome is MessageOutcome.DUPLICATE:
        print("duplicate: this message was handled before; nothing changed and nothing was sent")
    elif not handled.replies:
        print(f"{handled.text}; no reply")
    for reply in handled.replies:
        print(f"To: {reply['to_addr']}\nSubject: {reply['subject']}\n\n{reply['body']}\n" + "-" * 72)
    return EXIT_OK


def _outbox_list(args: argparse.Namespace) -> int:
    from judge.store import mail_queue

    db = _db(args)
    rows = [
        {
            "id": r["id"],
            "to": r["to_addr"],
            "subject": r["subject"],
            "body": r["body"],
            "status": r["status"],
            "created_at": r["created_at"],
            "sent_at": r["sent_at"],
            "attempts": r.get("attempts") or 0,
            "next_attempt": r.get("next_attempt"),
            "last_error": r.get("last_error"),
        }
        for r in mail_queue.outbox_rows(db, OutboxStatus(args.status) if args.status else None)
    ]
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        for r in rows:
            error = f"  last error: {r['last_error']}" if r["last_error"] else ""
            tries = f"{r['attempts']:>2} {'try' if r['attempts'] == 1 else 'tries'}"
            print(f"{r['id']:>5} {r['status']:<7} {tries:<8} {r['to']:<30} {r['subject']}{error}")
    return EXIT_OK


def _outbox_show(args: argparse.Namespace) -> int:
    from email import message_from_bytes, policy
    from email.message import EmailMessage

    from judge.reports.ical import event_summary
    from judge.store import game_rows, mail_queue
    from judge.store.users import known_judge_address
    from judge.transport.smtp import message_bytes

    db = _db(args)
    row = mail_queue.outbox_row(db, args.id)
    if row is None:
        raise CliError(f"judge: no mail {args.id} in the outbox (see: judge outbox list)", EXIT_PROBLEMS)
    cfg = settings(args)
    address = (cfg.address if cfg and cfg.address else "") or known_judge_address(db) or "judge@judge.invalid"
    image = mail_queue.picture_png(db, row["picture_id"]) if row.get("picture_id") else None
    when = parse_iso_utc(row["sent_at"]) if row.get("sent_at") else _now(args)
    raw = message_bytes(row, address, game_rows.names_by_id(db, [row["game_id"]]).get(row["game_id"]), when, image)
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    if args.text:
        body = message.get_body(preferencelist=("plain",))
        print(body.get_content() if isinstance(body, EmailMessage) else "", end="")
        return EXIT_OK
    attempts = row.get("attempts") or 0
    print(f"# outbox {row['id']}: {row['status']}, {attempts} {'try' if attempts == 1 else 'tries'}, {len(raw)} bytes")
    for name, value in message.items():
        print(f"{name}: {value}")
    for number, part in enumerate(message.walk(), 1):
        if part.is_multipart() or not isinstance(part, EmailMessage):
            continue
        kind, filename = part.get_content_type(), part.get_filename() or ""
        title = f"{kind}{f' {filename}' if filename else ''}"
        if kind in ("text/calendar", "application/ics"):  # the invitation: its method, event and revision
            event = event_summary(part.get_content() if kind == "text/calendar" else _decoded(part))
            title += (
                f" METHOD={event.get('METHOD', '?')} UID={event.get('UID', '?')} SEQUENCE={event.get('SEQUENCE', '?')}"
            )
        if part.get_content_maintype() == "text" or kind == "application/ics":
            text = part.get_content() if part.get_content_maintype() == "text" else _decoded(part)
            print(f"\n--- part {number}: {title}\n{text.replace(chr(13), '').rstrip()}")
        else:
            size = len(part.get_payload(decode=True) or b"")
            print(f"\n--- part {number}: {title} [{size} bytes, not shown]")
    return EXIT_OK


def _decoded(part: Any) -> str:
    """An attachment's content as text (the invitation ``invite.ics``)."""
    return bytes(part.get_payload(decode=True) or b"").decode("utf-8", "replace")
