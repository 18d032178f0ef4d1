"""Signed order mail: mails handled per second in process (``handle_one``, the daemon's path for one message), each
mail from a different player, signed with that player's registered OpenPGP key (PGP/MIME, as K-9 and Thunderbird
send it), signing on without a password; beside it the same players' first password mails (scrypt at the judge's
own cost) and the verification alone.

    python bench/signed_orders.py [--games 50]

Nothing is cached between mails: each mail's key is read from the store and parsed, its signature verified, and
its digest recorded. The setup (games, seats, keys, mails) is outside the timed part; it hashes the seats' passwords
at a low scrypt cost to be quick, and the password run then re-hashes them at the judge's own cost.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def setup(db: Any, games: int, now: datetime) -> list[dict[str, Any]]:
    import pgp_mail as pm  # type: ignore[import-not-found]

    from judge.cli.demo import choose_orders
    from judge.game import passwords, service
    from judge.game.records import players
    from judge.game.settings import GameSettings
    from judge.signatures.keys import PublicKey, read_public_key
    from judge.store import key_rows, write
    from judge.store.key_rows import Holder

    real_n, passwords.N = passwords.N, 2**8
    rng = random.Random(1)
    seats = []
    try:
        for i in range(games):
            name = f"s{i:03d}"
            with write(db):
                service.create_game(db, name, "classic", GameSettings(movement_deadline=7 * 86400), now)
                for power in POWERS:
                    service.join_game(
                        db, name, f"{power.lower()}.{i}@players.test", f"pw-{power}-{i}", now, power=power
                    )
                game = service.start_game(db, name, now, rng)
            assert game.position is not None
            for player in players(db, game.id):
                if player.role != "player":
                    continue
                key = pm.sequoia_key(player.power or "", player.email)
                public = read_public_key(key.public.encode(), now)
                assert isinstance(public, PublicKey)
                with write(db):
                    key_rows.set_key(
                        db,
                        Holder.PLAYER,
                        player.id,
                        public.fingerprint,
                        public.armoured,
                        public.user_ids,
                        public.key_ids,
                        now.isoformat(),
                    )
                orders = choose_orders(game.variant, game.position, player.power, rng)
                seats.append(
                    {
                        "key": key,
                        "email": player.email,
                        "power": player.power,
                        "game": name,
                        "orders": orders,
                        "password": f"pw-{player.power}-{i}",
                    }
                )
    finally:
        passwords.N = real_n
    return seats


def run(games: int) -> dict[str, Any]:
    import pgp_mail as pm

    from judge.game import passwords
    from judge.mail.message import parse_incoming
    from judge.signatures.verify import Verified, verify_detached
    from judge.store import key_rows, open_db
    from judge.transport.imap import handle_one

    base = Path(tempfile.mkdtemp(prefix="judge-signed-"))
    now = datetime.now(UTC).replace(microsecond=0)
    db = open_db(base / "signed.db")
    built = time.perf_counter()
    seats = setup(db, games, now)
    signed = [pm.k9(s["key"], s["email"], "\n".join([f"SIGNON {s['power']} {s['game']}", *s["orders"]])) for s in seats]
    setup_s = time.perf_counter() - built

    # the verification alone: parse, read the key from the store, verify (what a signed mail adds)
    started = time.perf_counter()
    for raw in signed:
        part = parse_incoming(raw).pgp.signed
        assert part is not None
        result = verify_detached(
            part.signed, part.signature, lambda ids: key_rows.keys_with_ids(db, list(ids)), now, timedelta(days=7)
        )
        assert isinstance(result, Verified)
    verify_s = time.perf_counter() - started

    started = time.perf_counter()
    outcomes: dict[str, int] = {}
    for raw in signed:
        handled = handle_one(db, raw, now, "judge@bench.test", 10_000)
        outcomes[handled.text] = outcomes.get(handled.text, 0) + 1
    signed_s = time.perf_counter() - started
    recorded = db.execute("select count(*) from used_signatures").fetchone()[0]

    # the same players' first mails with a password, at the judge's own scrypt cost (no verified sign-on cached)
    for s in seats:
        from judge.game.passwords import hash_password

        db.execute("update players set password_hash = ? where email = ?", [hash_password(s["password"]), s["email"]])
    db.conn.commit()
    passwords.forget_verified()
    plain = [
        pm.plain(s["email"], "\n".join([f"SIGNON {s['power']} {s['game']} {s['password']}", *s["orders"]]))
        for s in seats
    ]
    started = time.perf_counter()
    for raw in plain:
        handle_one(db, raw, now + timedelta(minutes=1), "judge@bench.test", 10_000)
    password_s = time.perf_counter() - started
    # the handler's own cost without any proof to check: the same password mails again, each sign-on now remembered
    # (judge.game.passwords caches a verified sign-on: one HMAC instead of scrypt)
    again = [
        pm.plain(s["email"], "\n".join([f"SIGNON {s['power']} {s['game']} {s['password']}", *s["orders"]]))
        for s in seats
    ]
    started = time.perf_counter()
    for raw in again:
        handle_one(db, raw, now + timedelta(minutes=2), "judge@bench.test", 10_000)
    cached_s = time.perf_counter() - started
    shutil.rmtree(base, ignore_errors=True)
    n = len(seats)
    return {
        "players": n,
        "setup_s": round(setup_s, 1),
        "signed_mails_per_s": round(n / signed_s, 1),
        "signed_ms_per_mail": round(1000 * signed_s / n, 2),
        "outcomes": outcomes,
        "signatures_recorded": recorded,
        "verification_alone_ms_per_mail": round(1000 * verify_s / n, 3),
        "password_first_mails_per_s": round(n / password_s, 1),
        "password_ms_per_mail": round(1000 * password_s / n, 2),
        "password_remembered_mails_per_s": round(n / cached_s, 1),
        "password_remembered_ms_per_mail": round(1000 * cached_s / n, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    args = parser.parse_args()
    import judge.wiring  # noqa: F401  (the game server given its variant loader, as every entry point does)

    report = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average_before": os.getloadavg(),
        **run(args.games),
        "load_average_after": os.getloadavg(),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
