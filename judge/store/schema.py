"""The database schema as sqlite-utils migrations; each applies once, in order, recorded in _sqlite_migrations."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("judge")
KNOWN: list[str] = []  # the names of the migrations this judge knows, in order


def migration(fn: Callable[[Database], None]) -> Callable[[Database], None]:
    """One migration of the judge's set, registered under the function's name (``m012_judge_versions``)."""
    KNOWN.append(fn.__name__)
    migrations()(fn)
    return fn


@migration
def m001_games(db: Database) -> None:
    db.table("games").create(
        {
            "id": int,
            "name": str,
            "variant": str,
            "status": str,  # forming | active | paused | finished
            "phase": str,  # the phase now being played, e.g. S1901M
            "deadline": str,  # ISO 8601 UTC, or null while forming/paused/finished
            "settings": str,  # JSON: deadlines, press, solo, last_year, grace, master
            "position": str,  # JSON: the board of the current phase (units, dislodged, standoffs, centres)
            "result": str,  # JSON: null | {"kind": "solo", "winner"} | {"kind": "draw", "powers"}
            "paused_remaining": int,  # seconds left on the deadline when paused
            "in_grace": int,  # 1 while the deadline has been extended by the grace period
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"name", "variant", "status"},
    )
    db.table("games").create_index(["name"], unique=True)
    db.table("players").create(
        {
            "id": int,
            "game_id": int,
            "power": str,
            "email": str,
            "password_hash": str,
            "role": str,  # player | observer
            "ready": int,
            "resigned": int,
            "eliminated": int,
            "preferences": str,  # JSON list of powers, best first
            "joined_at": str,
        },
        pk="id",
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("players").create_index(["game_id", "power"])
    db.table("players").create_index(["email"])
    db.table("users").create({"email": str, "timezone": str, "language": str}, pk="email")
    db.table("orders").create(
        {
            "game_id": int,
            "phase": str,
            "power": str,
            "lines": str,  # JSON list of the accepted order lines, as written
            "updated_at": str,
        },
        pk=("game_id", "phase", "power"),
    )
    db.table("phases").create(
        {
            "game_id": int,
            "phase": str,
            "board_before": str,
            "orders": str,
            "results": str,
            "board_after": str,  # JSON
            "adjudicated_at": str,
        },
        pk=("game_id", "phase"),
    )
    db.table("draws").create(
        {
            "game_id": int,
            "phase": str,
            "proposer": str,
            "votes": str,  # JSON power -> "accept" | "reject"
            "status": str,  # open | accepted | rejected | lapsed
        },
        pk=("game_id", "phase"),
    )
    db.table("events").create(
        {
            "id": int,
            "game_id": int,
            "at": str,
            "sender": str,
            "kind": str,
            "detail": str,
        },
        pk="id",
    )
    db.table("events").create_index(["game_id"])
    db.table("outbox").create(
        {
            "id": int,
            "to_addr": str,
            "subject": str,
            "body": str,
            "status": str,  # queued | sent | failed
            "created_at": str,
            "sent_at": str,
            "in_reply_to": str,
            "game_id": int,
            "attempts": int,
        },
        pk="id",
    )
    db.table("outbox").create_index(["status"])
    db.table("messages").create(
        {
            "id": int,
            "message_id": str,
            "digest": str,
            "sender": str,
            "received_at": str,
            "outcome": str,
        },
        pk="id",
    )
    db.table("messages").create_index(["digest"], unique=True)
    db.table("messages").create_index(["message_id"])
    db.table("signon_failures").create({"id": int, "address": str, "at": str}, pk="id")
    db.table("signon_failures").create_index(["address", "at"])


@migration
def m002_mail_transport(db: Database) -> None:
    db.table("mailbox_state").create(
        {
            "account": str,  # user@host/folder
            "uidvalidity": int,
            "last_uid": int,
            "updated_at": str,
        },
        pk="account",
    )
    db.table("outbox").add_column("next_attempt", str)
    db.table("outbox").add_column("last_error", str)
    db.table("outbox").add_column("message_id", str)


@migration
def m003_reports(db: Database) -> None:
    db.table("outbox").add_column("html", str)  # the HTML alternative, when the template has one
    db.table("outbox").add_column("image", bytes)  # the map picture (PNG) of a results mail
    db.table("games").add_column("reminded", int)  # 1 once the deadline reminder of this phase went out
    db.table("meta").create({"key": str, "value": str}, pk="key")  # judge-wide settings, e.g. default_language


@migration
def m004_reply_references(db: Database) -> None:
    db.table("outbox").add_column("thread_refs", str)  # a reply's References: the sender's chain, space-separated
    db.table("signon_failures").add_column("game", str)  # failures are counted per game and power, not per address
    db.table("signon_failures").add_column("power", str)
    db.table("signon_failures").create_index(["game", "power", "at"])


@migration
def m005_reliable_mail(db: Database) -> None:
    # the map of a phase, stored once per language and referenced by every results mail of that phase
    db.table("pictures").create(
        {
            "id": int,
            "game_id": int,
            "phase": str,
            "language": str,
            "png": bytes,
            "created_at": str,
        },
        pk="id",
    )
    db.table("pictures").create_index(["game_id", "phase", "language"], unique=True)
    db.table("outbox").add_column("picture_id", int)
    db.table("outbox").add_column("claimed_at", str)  # when a sender took it (status sending)
    db.table("outbox").add_column("reported", int)  # 1 once a failed mail was in a digest to the game master
    # status: queued | sending (claimed; DATA may be under way) | sent | failed
    db.execute("update outbox set next_attempt = created_at where next_attempt is null")
    db.table("outbox").create_index(["status", "next_attempt"])
    db.table("outbox").create_index(["created_at"])
    db.table("outbox").create_index(["to_addr", "created_at"])  # the per-address reply cap counts by these
    db.table("messages").create_index(["received_at"])
    db.table("quarantine").create(
        {  # mail that could not be parsed or handled, moved to [imap] quarantine_folder
            "id": int,
            "account": str,
            "uid": int,
            "digest": str,
            "reason": str,
            "at": str,
        },
        pk="id",
    )


@migration
def m006_mail_log(db: Database) -> None:
    db.table("mail_log").create(
        {  # the record of sent (or failed) mail whose body was pruned from the outbox
            "id": int,
            "outbox_id": int,
            "to_addr": str,
            "subject": str,
            "message_id": str,
            "status": str,
            "created_at": str,
            "sent_at": str,
            "attempts": int,
            "last_error": str,
            "game_id": int,
            "in_reply_to": str,
        },
        pk="id",
    )
    db.table("mail_log").create_index(["to_addr"])
    # mail queued before Message-IDs were fixed at queue time: a random one now (the domain is added when sent)
    db.execute(
        "update outbox set message_id = lower(hex(randomblob(16))) "
        "where message_id is null and status in ('queued', 'sending')"
    )


@migration
def m007_typed_orders(db: Database) -> None:
    """Each order of a played phase kept as a typed order (``judge.rules.order_json``) beside its text, so that
    nothing reads stored order text again; rows from before get theirs from the canonical text, read this once."""
    for row in list(db.query("select game_id, phase, results from phases")):
        try:
            lines = json.loads(row["results"] or "[]")
        except ValueError:
            continue
        if not isinstance(lines, list):
            continue
        for line in lines:
            if isinstance(line, dict) and "typed" not in line:
                line["typed"] = legacy_typed_order(line.get("order"))
        db.execute(
            "update phases set results = ? where game_id = ? and phase = ?",
            [json.dumps(lines), row["game_id"], row["phase"]],
        )


def legacy_typed_order(text: object) -> dict[str, object] | None:
    """The typed order of one canonical order text as the judge wrote it before m007 (``A mun S A ber - kie``,
    ``F nth C A lon - nwy``, ``build F stp/nc``, ``waive``), or None for no order or words it never wrote."""
    words = text.split() if isinstance(text, str) else []
    if not words:
        return None
    if words == ["waive"]:
        return {"type": "waive"}
    if words[0] == "build" and len(words) == 3:
        return {"type": "build", "unit": words[1], "at": words[2]}
    unit, at, rest = _legacy_unit(words)
    if at is None or not rest:
        return None
    head: dict[str, object] = {"unit": unit, "at": at}
    verb, args = rest[0], rest[1:]
    if verb == "H" and not args:
        return {"type": "hold", **head}
    if verb == "disband" and not args:
        return {"type": "disband", **head}
    if verb == "R" and len(args) == 1:
        return {"type": "retreat", **head, "to": args[0]}
    if verb == "-" and args and args[1:] in ([], ["via", "convoy"]):
        return {"type": "move", **head, "to": args[0], "via_convoy": bool(args[1:])}
    if verb in ("S", "C"):
        _, target, more = _legacy_unit(args)
        to = more[1] if len(more) == 2 and more[0] == "-" else None
        if target is None or (more and to is None) or (verb == "C" and to is None):
            return None
        typed: dict[str, object] = {"type": "support" if verb == "S" else "convoy", **head, "target": target}
        if to is not None:
            typed["to"] = to
        return typed
    return None


def _legacy_unit(words: list[str]) -> tuple[str | None, str | None, list[str]]:
    """``[A|F] place`` at the start of ``words``: the unit type (or None), the place, and the words after it."""
    if len(words) >= 2 and words[0] in ("A", "F"):
        return words[0], words[1], words[2:]
    if words:
        return None, words[0], words[1:]
    return None, None, []


@migration
def m008_resolution(db: Database) -> None:
    """A player's SET WAIT (kept until SET NOWAIT), the orders a power gave for a later phase (PHASE …), and the
    periods players declared absent (SET ABSENCE)."""
    db.table("players").add_column("wait", int)  # 1: the game waits for the deadline (or READY) for this player
    db.table("future_orders").create(
        {
            "game_id": int,
            "phase": str,  # the later phase the lines are for, e.g. F1901R
            "power": str,
            "lines": str,  # JSON list of the order lines as written
            "updated_at": str,
        },
        pk=("game_id", "phase", "power"),
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("absences").create(
        {  # SET ABSENCE: a period in which no deadline of the game falls, declared by one player
            "id": int,
            "game_id": int,
            "player_id": int,
            "starts": str,  # ISO 8601 UTC: the start of the first day, in the player's zone
            "ends": str,  # ISO 8601 UTC: the end of the last day
            "year": int,  # the year of the first day (the yearly limit counts the days by it)
            "days": int,
            "declared_at": str,
        },
        pk="id",
        foreign_keys=[("game_id", "games", "id"), ("player_id", "players", "id")],
    )
    db.table("absences").create_index(["game_id"])


@migration
def m009_typed_given_orders(db: Database) -> None:
    """The orders given for the current phase (and those kept for a later phase, PHASE …) stored typed beside the
    lines as written (``judge.rules.order_json``), so that nothing parses stored order text again. The lines stored
    before are read here, once, as they would have been at the deadline: with the game's variant and the step of
    their phase. A line that cannot be read so (its variant gone, words the parser no longer takes) keeps no typed
    order and is void when its phase is played, as it would have been."""
    db.table("orders").add_column("typed", str)  # JSON list: the typed order of each line of ``lines``, or null
    db.table("future_orders").add_column("typed", str)
    for table in ("orders", "future_orders"):
        rows = db.query(
            f"select o.rowid as id, o.phase, o.lines, g.variant from {table} o left join games g on g.id = o.game_id"
        )
        for row in list(rows):
            try:
                lines = json.loads(row["lines"] or "[]")
            except ValueError:
                lines = []
            texts = [str(line) for line in lines] if isinstance(lines, list) else []
            typed = [given_order_before_m009(row["variant"], row["phase"], text) for text in texts]
            db.execute(
                f"update {table} set lines = ?, typed = ? where rowid = ?",
                [json.dumps(texts), json.dumps(typed), row["id"]],
            )


def given_order_before_m009(variant: str | None, phase: str | None, text: str) -> dict[str, object] | None:
    """The typed order of a line stored as written before m009, read as the deadline would have read it; None when
    it cannot be (the variant cannot be loaded, the phase code is bad, the words are no order)."""
    from judge.data.catalog import load_variant
    from judge.rules.order_json import order_to_json
    from judge.rules.parse import OrderError, parse_order
    from judge.rules.phase import Phase

    try:
        geo = load_variant(variant or "").geo
        step = Phase.parse(phase or "").step
    except (KeyError, ValueError):  # VariantError is a ValueError
        return None
    order = parse_order(text, geo, step)
    return order_to_json(geo, order) if not isinstance(order, OrderError) else None


@migration
def m010_press(db: Database) -> None:
    """Diaries (DIARY: kept until the game ends), postal press (POSTAL PRESS: published with the next results), a
    player's own default for press in a game allowing white and grey (SET PRESS), and the powers a draw names."""
    db.table("diaries").create(
        {
            "id": int,
            "game_id": int,
            "power": str,  # the power that wrote it
            "phase": str,  # the phase it was written in, e.g. S1901M
            "body": str,
            "written_at": str,
        },
        pk="id",
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("diaries").create_index(["game_id"])
    db.table("postal_press").create(
        {
            "id": int,
            "game_id": int,
            "power": str,  # the sender, kept even for grey press (never shown then)
            "grey": int,  # 1: published without the sender's name
            "phase": str,  # the phase it was written in
            "body": str,
            "written_at": str,
            "published_at": str,  # null until a results mail (or the game-over mail) carried it
        },
        pk="id",
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("postal_press").create_index(["game_id", "published_at"])
    db.table("players").add_column("press_shade", str)  # SET PRESS: white | grey (null: white)
    db.table("draws").add_column("powers", str)  # JSON list of the powers a draw names; null: all survivors


@migration
def m011_game_masters(db: Database) -> None:
    """The game master's password of a game (MASTER by mail), and the requests to take over a power in civil disorder
    (TAKEOVER) that wait for the game master's approval."""
    db.table("master_passwords").create(
        {"game_id": int, "password_hash": str, "set_at": str},
        pk="game_id",
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("takeovers").create(
        {
            "id": int,
            "game_id": int,
            "power": str,
            "email": str,
            "password_hash": str,  # the password the new player chose (scrypt); cleared once decided
            "asked_at": str,
            "decided_at": str,  # null while the game master has not decided
            "decision": str,  # approved | rejected | lapsed
        },
        pk="id",
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("takeovers").create_index(["game_id", "power"])


@migration
def m012_judge_versions(db: Database) -> None:
    """The judge version that applied each migration from this one on (``judge.store.versions`` writes a row as it
    applies them), so that an older judge can name the newer one that wrote a database it refuses."""
    db.table("judge_versions").create({"migration": str, "judge_version": str, "applied_at": str}, pk="migration")


@migration
def m013_draws_by_turn(db: Database) -> None:
    """Draw proposals keyed by their turn (``S1902``; ``F1902`` for Fall, its retreats and the Winter after it), as the
    judge has looked them up since one proposal per turn became the rule; judges before it stored the phase
    (``S1902M``), and such a proposal was no longer found. Where an older judge left more than one proposal in a turn
    (one per phase was allowed then), the one that counts stays: an open one, else accepted, rejected, lapsed, the
    latest phase first. An open proposal of a turn the game has left lapses, as it would have at the turn's end."""
    rows = list(db.query("select rowid as id, game_id, phase, status from draws"))
    ranked: dict[tuple[int, str], list[tuple[tuple[int, int, str], int]]] = {}
    for row in rows:
        turn = _turn_of_code(row["phase"])
        if turn is None:
            continue
        rank = _DRAW_STATUS_RANK.get(row["status"], len(_DRAW_STATUS_RANK))
        ranked.setdefault((row["game_id"], turn), []).append(
            ((rank, -_step_rank(row["phase"]), row["phase"]), row["id"])
        )
    for (_, turn), candidates in ranked.items():
        candidates.sort()
        keep = candidates[0][1]
        for _, rowid in candidates[1:]:
            db.execute("delete from draws where rowid = ?", [rowid])
        db.execute("update draws set phase = ? where rowid = ?", [turn, keep])
    for game in list(db.query("select id, phase from games")):
        now_turn = _turn_of_code(game["phase"])
        db.execute(
            "update draws set status = 'lapsed' where game_id = ? and status = 'open' and phase != ?",
            [game["id"], now_turn or ""],
        )


_DRAW_STATUS_RANK = {"open": 0, "accepted": 1, "rejected": 2, "lapsed": 3}
_PHASE_CODE = re.compile(r"([SFW])(\d{1,4})([MRA]?)")


def _turn_of_code(code: object) -> str | None:
    """The turn of a stored phase or turn code: ``S1902M`` and ``S1902`` are ``S1902``; ``F1902R``, ``W1902A`` and
    ``F1902`` are ``F1902``; None for anything else."""
    match = _PHASE_CODE.fullmatch(code) if isinstance(code, str) else None
    if match is None:
        return None
    season, year, _ = match.groups()
    return f"{'S' if season == 'S' else 'F'}{year}"


def _step_rank(code: str) -> int:
    """How late in its turn a stored code falls: the turn itself and movement first, Winter adjustments last."""
    return {"": 0, "M": 1, "R": 2, "A": 3}[code[-1] if code[-1] in "MRA" else ""] + (4 if code[0] == "W" else 0)


@migration
def m014_old_games_play_on_at_a_tie(db: Database) -> None:
    """Games set up before the tie rules keep the rule they were started under. Until then a tie among the leaders
    over the solo line or at the last year had no winner and the game played on; the judge now reads a game without
    ``tie_others`` by the variant's rule, and at the last year that is a draw among the leaders. Every unfinished game
    whose settings lack the key (a judge that knew tie rules always wrote it, ``null`` when unset) gets ``play-on``."""
    for row in list(db.query("select id, settings from games where status != 'finished'")):
        try:
            settings = json.loads(row["settings"] or "{}")
        except ValueError:
            continue
        if not isinstance(settings, dict) or "tie_others" in settings:
            continue
        settings["tie_others"] = "play-on"
        db.execute("update games set settings = ? where id = ?", [json.dumps(settings), row["id"]])


@migration
def m015_delivery_clock(db: Database) -> None:
    """When the judge first tried to send a mail: ``[smtp] max_delivery_days`` counts from it, not from the time the
    mail was queued, so mail that waited in the queue while no sender ran (judges before the daemon, a daemon stopped
    for days) is tried and retried before it is given up."""
    db.table("outbox").add_column("first_attempt_at", str)


@migration
def m016_signon_failures_by_seat(db: Database) -> None:
    """Failed sign-ons kept by the first judges under the sender's address alone (m004 added the game and power they
    are counted by now, and left those empty): each gets its game and power from the event the judge logged with it
    (same time, same sender), where that names a seat of the game; the others stay as they are, counted by no seat,
    and are pruned with the other old records."""
    rows = list(db.query("select id, address, at from signon_failures where game is null or power is null"))
    for row in rows:
        events = list(
            db.query(
                "select detail from events where kind = 'signon-failed' and sender = ? and at = ?",
                [row["address"], row["at"]],
            )
        )
        for event in events:
            try:
                detail = json.loads(event["detail"] or "{}")
            except ValueError:
                continue
            if not isinstance(detail, dict):
                continue
            seat = list(
                db.query(
                    "select g.name, p.power from games g join players p on p.game_id = g.id "
                    "where lower(g.name) = lower(?) and lower(p.power) = lower(?) and p.role = 'player'",
                    [str(detail.get("game") or ""), str(detail.get("power") or "")],
                )
            )
            if seat:
                db.execute(
                    "update signon_failures set game = ?, power = ? where id = ?",
                    [seat[0]["name"], seat[0]["power"], row["id"]],
                )
                break


@migration
def m017_old_games_keep_their_rules(db: Database) -> None:
    """Games set up before SET ABSENCE and TAKEOVER existed keep the rules their players agreed to: no declared
    absences (a player could not move the deadlines), and a power in civil disorder taken over only with the game
    master's approval (the master alone could hand a power to someone else). A judge that knew these settings always
    wrote them, so only unfinished games whose settings lack the key change; the game master may set either later."""
    for row in list(db.query("select id, settings from games where status != 'finished'")):
        try:
            settings = json.loads(row["settings"] or "{}")
        except ValueError:
            continue
        if not isinstance(settings, dict):
            continue
        changed = False
        if "absence_days_per_year" not in settings:
            settings["absence_days_per_year"] = 0
            changed = True
        if "takeover" not in settings:
            settings["takeover"] = "approve"
            changed = True
        if changed:
            db.execute("update games set settings = ? where id = ?", [json.dumps(settings), row["id"]])


@migration
def m018_openpgp_keys(db: Database) -> None:
    """OpenPGP (issue #20): a seat's public key (a player's, or a game master's: ``holder`` is ``player`` or
    ``master``, ``holder_id`` the player's or the game's id), every key ID and fingerprint of it (primary and
    subkeys) to find it by the ID a signature names, and the signatures already used (their digests: a captured
    signed mail sent again under a new Message-ID is refused), with when each was made, to refuse a signed mail
    older than the last one that acted for its seat."""
    db.table("openpgp_keys").create(
        {
            "holder": str,
            "holder_id": int,
            "fingerprint": str,
            "armoured": str,
            "user_ids": str,  # JSON list
            "added_at": str,
        },
        pk=("holder", "holder_id"),
        not_null={"fingerprint", "armoured", "added_at"},
    )
    db.table("openpgp_key_ids").create(
        {"key_id": str, "holder": str, "holder_id": int}, pk=("key_id", "holder", "holder_id")
    )
    db.table("openpgp_key_ids").create_index(["holder", "holder_id"])
    db.table("used_signatures").create(
        {"digest": str, "at": str, "signed_at": str, "holder": str, "holder_id": int}, pk="digest"
    )
    db.table("used_signatures").create_index(["holder", "holder_id", "signed_at"])
    db.table("used_signatures").create_index(["at"])


@migration
def m019_reminders_calendars_and_tries(db: Database) -> None:
    """Issue #23. Per seat: the reminder lead times the player chose (``reminders``: a JSON list of seconds, ``[]``
    for SET REMINDER NONE, null for the game's ``reminders`` setting), whether the deadline invitations are mailed
    (``calendar``: 0 after SET CALENDAR OFF, null or 1 on), and the lead times found passed at the last look
    (``reminded``: JSON ``{"phase", "leads"}``). Per game: when reminders are next looked at (``remind_at``) and for
    which deadline that was worked out (``remind_for``: a moved deadline is looked at again at once). Per mail: its
    iCalendar part (``calendar``, text). Games not finished keep the one reminder they had (12 hours before), as
    their ``reminders`` setting. A sent mail counts the try that delivered it: ``attempts`` counted only refusals
    until now (``outbox list`` said "sent 0 tries")."""
    db.table("players").add_column("reminders", str)
    db.table("players").add_column("calendar", int)
    db.table("players").add_column("reminded", str)
    db.table("games").add_column("remind_at", str)
    db.table("games").add_column("remind_for", str)
    db.table("outbox").add_column("calendar", str)
    for row in list(db.query("select id, settings from games where status != 'finished'")):
        try:
            settings = json.loads(row["settings"] or "{}")
        except ValueError:
            continue
        if isinstance(settings, dict) and "reminders" not in settings:
            settings["reminders"] = [12 * 3600]
            db.execute("update games set settings = ? where id = ?", [json.dumps(settings), row["id"]])
    db.execute("update outbox set attempts = coalesce(attempts, 0) + 1 where status = 'sent'")


@migration
def m020_calendar_events(db: Database) -> None:
    """Issue #23, the deadline invitations: per game, address and phase the one calendar event the judge has mailed
    (``uid``, fixed when first mailed), the ``sequence`` of its last mailing (raised each time its deadline moves or
    it is cancelled or sent again after a cancel), the ``deadline`` it was last mailed with (ISO UTC), and whether
    the last mailing cancelled it."""
    db.table("calendar_events").create(
        {
            "game_id": int,
            "address": str,
            "phase": str,
            "uid": str,
            "sequence": int,
            "deadline": str,
            "cancelled": int,
            "updated_at": str,
        },
        pk=("game_id", "address", "phase"),
        foreign_keys=[("game_id", "games", "id")],
        not_null={"uid", "sequence", "deadline"},
    )


@migration
def m021_player_records(db: Database) -> None:
    """A player's record (issue #24): per address and game, the deadlines at which the address owed orders
    (``owed``: a phase played while it held a power that owed orders), those it gave none for (``missed``), those
    its orders came in only after the deadline, while the judge waited (``late``), the misses the game excused
    (``excused``), and whether it resigned, was abandoned to civil disorder or ejected there. Counted at each
    adjudication in the same transaction, so that a join or WHOIS reads a few rows by address instead of every
    phase of every game. Deadlines played before this migration are not counted (the record starts here)."""
    db.table("player_records").create(
        {
            "email": str,
            "game_id": int,
            "owed": int,
            "missed": int,
            "late": int,
            "excused": int,
            "resigned": int,
            "abandoned": int,
            "ejected": int,
            "updated_at": str,
        },
        pk=("email", "game_id"),
        not_null={"owed", "missed", "late", "excused", "resigned", "abandoned", "ejected"},
        defaults={"owed": 0, "missed": 0, "late": 0, "excused": 0, "resigned": 0, "abandoned": 0, "ejected": 0},
    )


@migration
def m022_per_mail_indexes(db: Database) -> None:
    """Indexes for the queries run per mail or per round that read a whole growing table (issue 27: the cost of a
    mail must not grow with the tables): the quarantine looked up by a fetched message's digest, the event log by
    kind and sender (a sender over the reply cap, internal errors), the active games by deadline (every round), and
    for the hourly pruning the outbox rows that still name a picture, and sign-on failures and quarantine by age."""
    # "if not exists": a database a test made look older by deleting the record of later migrations keeps these
    for table, columns in (
        ("quarantine", ["digest"]),
        ("quarantine", ["at"]),
        ("events", ["kind", "sender", "at"]),
        ("games", ["status", "deadline"]),
        ("signon_failures", ["at"]),
    ):
        db.table(table).create_index(columns, if_not_exists=True)
    db.execute("create index if not exists idx_outbox_picture_id on outbox (picture_id) where picture_id is not null")
