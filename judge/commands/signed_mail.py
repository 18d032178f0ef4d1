"""Signed mail (issue #20): the signature of a message checked before any line of it acts, the keys of seats (SET KEY,
SET KEY NONE), the judge's own key (GET KEY).

The order of things for one message:

1. :func:`check` (before any line): a message encrypted to the judge is decrypted with its key; a signature is
   verified over the exact bytes it signs with the key the judge has for the key ID it names. A signature that does
   not verify, is older than ``max_mail_age_days`` (or dated in the future), or was used before (a captured signed
   part sent again under a new Message-ID) refuses the whole message. A good one makes the signed text alone what
   is read. A signature by a key the judge has no key for, or armour that holds no readable signature, is no
   signature at all: the message is read as unsigned.
2. :func:`seat_problem` (before any line, once the lines are read): a message that signs on to a seat whose key is
   registered must be signed by that key (a signature by any other key refuses the whole message, even with the
   right password), and not older than the newest signed mail that acted for the seat (a signed mail never reverts
   newer orders).
3. The sign-on itself (judge.commands.security, judge.commands.master_commands) takes the signature for the password.
4. :func:`record` (after the lines): the signature's digest is kept, so that it is never used twice.

DKIM (the other half of issue #20) belongs beside step 1: a check of the sender's domain that gives or refuses a
message before its lines, as :func:`check` does, from the same raw bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlite_utils import Database

from judge.commands import items as c
from judge.commands.reply import Answer
from judge.commands.session import Session, Signer
from judge.game.records import Game, Player, load_game, log_event, players
from judge.game.service import GameError
from judge.game.settings import Auth
from judge.i18n import T, Text
from judge.mail.message import Incoming, read_entity
from judge.mail.pgp_parts import Encrypted, PgpForm, PgpParts, Signed
from judge.signatures.keys import JudgeKey, KeyProblem, PublicKey, read_public_key
from judge.signatures.verify import (
    Refused,
    SignatureProblem,
    Verified,
    decrypt,
    verify_cleartext,
    verify_detached,
)
from judge.store import key_rows
from judge.store.events import EventKind
from judge.store.key_rows import Holder
from judge.timeutil import iso_utc, parse_iso_utc


@dataclass(frozen=True)
class Checked:
    """A message whose signature (if any) is good, or by a key the judge does not know: what to read of it."""

    msg: Incoming
    signer: Signer | None = None
    unknown_signer: str = ""  # the key ID of a signature by a key the judge has none for
    decrypted: bool = False


@dataclass(frozen=True)
class Refusal:
    """The whole message is refused: the reason, for the reply and the record."""

    why: Text
    record: str  # the outcome recorded ("refused: signature does not verify" …)


def check(
    db: Database, msg: Incoming, now: datetime, max_mail_age_days: float, judge_key: JudgeKey | None
) -> Checked | Refusal:
    """Step 1: decrypt and verify (see the module docstring)."""
    max_age = timedelta(days=max_mail_age_days)

    def keys_for(ids: Sequence[str]) -> list[str]:
        return key_rows.keys_with_ids(db, list(ids))

    decrypted = False
    pgp = msg.pgp
    if pgp.encrypted is not None and judge_key is not None:
        opened = decrypt(pgp.encrypted.data, judge_key, keys_for)
        if isinstance(opened, Refused) and opened.content is None:
            return _refusal(opened)
        if isinstance(opened, Refused) and opened.problem is not SignatureProblem.UNKNOWN_KEY:
            return _refusal(opened)
        msg, decrypted = _opened(msg, pgp.encrypted, opened.content or b""), True
        if isinstance(opened, Verified):
            return _good(db, msg, opened, decrypted)
        if isinstance(opened, Refused):
            return Checked(msg, None, opened.issuer, decrypted)
        pgp = msg.pgp  # decrypted and unsigned inside: a PGP/MIME entity may still be signed (sign, then encrypt)
    signed = pgp.signed
    if signed is None:
        return Checked(msg, decrypted=decrypted)
    if signed.form is PgpForm.MIME:
        result = verify_detached(signed.signed, signed.signature, keys_for, now, max_age)
    else:
        result = verify_cleartext(signed.signed, keys_for, now, max_age)
    if isinstance(result, Refused):
        # a signature by a key the judge does not know, or one that names no key at all (armour that holds no
        # signature packet), proves nothing either way: the mail is read as unsigned (the password counts); a seat
        # whose key is registered still refuses a mail signed by another key (seat_problem)
        if result.problem in (SignatureProblem.UNKNOWN_KEY, SignatureProblem.UNREADABLE):
            return Checked(msg, None, result.issuer, decrypted)
        return _refusal(result)
    return _good(db, _signed_text(msg, signed, result), result, decrypted)


def _good(db: Database, msg: Incoming, verified: Verified, decrypted: bool) -> Checked | Refusal:
    if key_rows.signature_used(db, verified.digest):
        return Refusal(
            T(
                "this signature was used before, in another mail: a signed mail is acted on once; nothing in this "
                "one was acted on. Write and sign a new mail"
            ),
            "refused: signature used before",
        )
    return Checked(msg, Signer(verified.fingerprint, verified.created, verified.digest), "", decrypted)


def _refusal(refused: Refused) -> Refusal:
    """A signature refused: the reason the sender reads (with the key it names, when it names one)."""
    key = _shown(refused.issuer) if refused.issuer else ""
    why = {
        SignatureProblem.UNREADABLE: T("its signature cannot be read"),
        SignatureProblem.SEVERAL: T("it carries more than one signature; sign with one key"),
        SignatureProblem.BAD: T(
            "its signature by {key} does not verify: the mail was changed after it was signed (by a mail server or "
            "a mailing list, or on purpose)",
            key=key,
        ),
        SignatureProblem.TOO_OLD: T("its signature by {key} is older than the judge accepts", key=key),
        SignatureProblem.FUTURE: T("its signature by {key} is dated in the future", key=key),
        SignatureProblem.NOT_DECRYPTED: T(
            "it is encrypted, and not to the judge's key; send it signed only, or encrypted to the key GET KEY gives"
        ),
        SignatureProblem.UNKNOWN_KEY: T("its signature is by {key}, a key the judge does not know", key=key),
    }[refused.problem]
    return Refusal(
        T("Nothing in your mail was acted on: {why}.", why=why),
        f"refused: signature {refused.problem.value}",
    )


def _signed_text(msg: Incoming, signed: Signed, verified: Verified) -> Incoming:
    """The message as far as its good signature covers it: the signed text alone is read."""
    if signed.form is PgpForm.MIME and signed.whole:  # the message is the signed part and its signature (silent)
        return msg
    if signed.form is PgpForm.MIME:
        entity = read_entity(signed.entity)
        keys = tuple(dict.fromkeys((*entity.pgp.keys, *msg.pgp.keys)))
        return replace(msg, body=entity.body, attachments=entity.attachments, pgp=replace(msg.pgp, keys=keys))
    return replace(msg, body=_text(verified.content or b"", signed.charset), attachments=())


def _opened(msg: Incoming, encrypted: Encrypted, content: bytes) -> Incoming:
    """The message as its decrypted content gives it: a MIME entity (PGP/MIME) or the text (inline)."""
    if encrypted.form is PgpForm.MIME:
        entity = read_entity(content)
        keys = tuple(dict.fromkeys((*entity.pgp.keys, *msg.pgp.keys)))
        inner = PgpParts(entity.pgp.signed, None, keys, msg.pgp.autocrypt)
        return replace(msg, body=entity.body, attachments=entity.attachments, pgp=inner)
    text = _text(content, encrypted.charset)
    inner = PgpParts(None, None, msg.pgp.keys, msg.pgp.autocrypt)
    if "-----BEGIN PGP SIGNED MESSAGE-----" in text:  # signed inline, then encrypted: verify the signed text inside
        inner = PgpParts(Signed(PgpForm.INLINE, content, charset="utf-8"), None, msg.pgp.keys, msg.pgp.autocrypt)
    return replace(msg, body=text, attachments=(), pgp=inner)


def _text(data: bytes, charset: str) -> str:
    try:
        text = data.decode(charset or "utf-8")
    except (LookupError, UnicodeDecodeError):
        text = data.decode("utf-8", "replace")
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _shown(fingerprint: str) -> str:
    """A fingerprint or key ID as a reader compares it with their key (upper case, as gpg and Thunderbird show it)."""
    return fingerprint.upper()


# --- step 2: the seats the message signs on to ------------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    """A seat a sign-on line names: a player's or a game's master, with its game and its registered key."""

    game: Game
    holder: Holder
    holder_id: int
    player: Player | None
    key: dict[str, object] | None  # key_rows.key_of


def seat_of(
    db: Database, item: c.SignOn | c.MasterSignOn, signer: Signer | None
) -> tuple[Seat, c.SignOn | None] | None:
    """The seat a sign-on line names (and for SIGNON the reading of the line that names it), or None."""
    if isinstance(item, c.MasterSignOn):
        game = load_game(db, item.game)
        if game is None:
            return None
        return Seat(game, Holder.MASTER, game.id, None, key_rows.key_of(db, Holder.MASTER, game.id)), None
    readings = [item]
    if item.bare is not None:  # SIGNON France mygame: without a password when signed, else the classic reading
        bare = replace(
            item, power=item.bare[0], game=item.bare[1], password="", initial=len(item.bare[0]) == 1, bare=None
        )
        readings = [bare, item] if signer is not None else [item, bare]
    for reading in readings:
        game = load_game(db, reading.game)
        if game is None:
            continue
        power = power_for(game, reading)
        seat = next((p for p in players(db, game.id) if p.role == "player" and p.power == power), None)
        if seat is not None:
            return Seat(game, Holder.PLAYER, seat.id, seat, key_rows.key_of(db, Holder.PLAYER, seat.id)), reading
    return None


def power_for(game: Game, item: c.SignOn) -> str | None:
    """The power of ``game`` a sign-on names (by its name in any language the variant has, or its initial)."""
    if not item.initial:
        return game.variant.power_named(item.power)
    matches = [p for p in game.variant.powers if p[0].upper() == item.power.upper()]
    return matches[0] if len(matches) == 1 else None


def seat_problem(db: Database, s: Session, entries: Sequence[object]) -> Refusal | None:
    """Step 2: a signed message that signs on to a seat whose key is registered must be signed by that key, and
    not older than the newest signed mail that acted for the seat."""
    if s.signer is None and not s.unknown_signer:
        return None
    for entry in entries:
        if not isinstance(entry, (c.SignOn, c.MasterSignOn)):
            continue
        found = seat_of(db, entry, s.signer)
        if found is None or found[0].key is None:
            continue
        seat = found[0]
        fingerprint = str(seat.key["fingerprint"]) if seat.key else ""
        signed_by = s.signer.fingerprint if s.signer is not None else s.unknown_signer
        if s.signer is None or s.signer.fingerprint != fingerprint:
            return _seat_refusal(
                db,
                s,
                seat,
                T(
                    "it is signed by {key}, which is not the key registered for {seat}",
                    key=_shown(signed_by),
                    seat=_seat_words(seat),
                ),
                "not the seat's key",
            )
        last = key_rows.last_signed_at(db, seat.holder, seat.holder_id)
        if last is not None and s.signer.created is not None and s.signer.created < parse_iso_utc(last):
            return _seat_refusal(
                db,
                s,
                seat,
                T(
                    "it was signed before the newest signed mail that acted for {seat}; a signed mail never "
                    "reverts newer orders",
                    seat=_seat_words(seat),
                ),
                "older than the seat's last",
            )
    return None


def _seat_words(seat: Seat) -> Text:
    if seat.holder is Holder.MASTER:
        return T("the game master of {game}", game=seat.game.name)
    power = seat.player.power if seat.player is not None else ""
    return T("{power} in {game}", power=seat.game.variant.power(power or ""), game=seat.game.name)


def _seat_refusal(db: Database, s: Session, seat: Seat, why: Text, record: str) -> Refusal:
    log_event(
        db,
        seat.game.id,
        s.now,
        s.msg.sender,
        EventKind.SIGNATURE_REFUSED,
        {"seat": str(seat.holder), "why": record, "key": s.signer.fingerprint if s.signer else s.unknown_signer},
    )
    return Refusal(T("Nothing in your mail was acted on: {why}.", why=why), f"refused: signature {record}")


def signed_by_seat_key(db: Database, s: Session, holder: Holder, holder_id: int) -> bool:
    """Whether the message's good signature is by the key registered for the seat."""
    if s.signer is None:
        return False
    key = key_rows.key_of(db, holder, holder_id)
    return key is not None and key["fingerprint"] == s.signer.fingerprint


def signed_note(s: Session) -> Text:
    """What a sign-on by signature adds to its answer."""
    return T("signed by {fingerprint}", fingerprint=_shown(s.signer.fingerprint if s.signer else ""))


def unsigned_refusal(game: Game, master: bool) -> Text:
    """A sign-on without a good signature by the seat's key, and without a password."""
    if master:
        return T(
            "ERROR: sign-on failed: this mail is not signed with the game master's registered key, and gives no "
            "password: MASTER {game} <password>",
            game=game.name,
        )
    return T(
        "ERROR: sign-on failed: this mail is not signed with the seat's registered key, and gives no password: "
        "SIGNON <power> {game} <password>",
        game=game.name,
    )


# --- step 4: the signature used ---------------------------------------------------------------------------------------


def record(db: Database, s: Session) -> None:
    """Keep the digest of the message's good signature, with the seat it acted for (if it signed on by it)."""
    if s.signer is None:
        return
    holder: Holder | None = None
    holder_id: int | None = None
    if s.by_key and s.player is not None:
        holder, holder_id = Holder.PLAYER, s.player.id
    elif s.master_by_key and s.master_of is not None:
        game = load_game(db, s.master_of)
        holder, holder_id = (Holder.MASTER, game.id) if game is not None else (None, None)
    created = iso_utc(s.signer.created) if s.signer.created is not None else None
    key_rows.record_signature(db, s.signer.digest, iso_utc(s.now), created, holder, holder_id)


# --- SET KEY, SET KEY NONE --------------------------------------------------------------------------------------------


def _key_holder(db: Database, s: Session) -> tuple[Holder, int, Game, bool]:
    """Whose key a SET KEY changes: the player signed on (else the game master signed on), with the game, and
    whether the message was signed by the seat's current key."""
    if s.player is not None and s.game is not None:
        return Holder.PLAYER, s.player.id, s.game, s.by_key
    if s.master_of is not None:
        game = load_game(db, s.master_of)
        if game is not None:
            return Holder.MASTER, game.id, game, s.master_by_key
    raise GameError(T("sign on first: SIGNON <power> <game> <password> (or MASTER <game> <password>), then SET KEY"))


def set_key(db: Database, s: Session, item: c.SetKey) -> Answer:
    """SET KEY: register the public key the message carries (pasted or attached); SET KEY NONE: remove it."""
    holder, holder_id, game, by_key = _key_holder(db, s)
    current = key_rows.key_of(db, holder, holder_id)
    if game.settings.auth is Auth.KEY and current is not None and not by_key:
        raise GameError(
            T(
                "game {game} takes only signed mail: changing or removing the registered key {key} needs a mail "
                "signed with it",
                game=game.name,
                key=_shown(str(current["fingerprint"])),
            )
        )
    if item.remove:
        if not key_rows.remove_key(db, holder, holder_id):
            return Answer(item.text, T("no key was registered"))
        log_event(db, game.id, s.now, s.msg.sender, EventKind.KEY, {"seat": str(holder), "removed": True})
        return Answer(item.text, T("your key is removed: sign on with your password"))
    offered = s.msg.pgp.keys
    if not offered:
        raise GameError(
            T(
                "SET KEY needs your public key: paste the block from -----BEGIN PGP PUBLIC KEY BLOCK----- to "
                "-----END PGP PUBLIC KEY BLOCK----- below it, or attach it (an .asc file)"
            )
            if not s.msg.pgp.autocrypt
            else T(
                "SET KEY needs your public key pasted below it or attached (an .asc file); the key in your mail "
                "program's Autocrypt header is not taken by itself: attach it"
            )
        )
    problem: KeyProblem | None = None
    for data in offered:
        found = read_public_key(data, s.now)
        if isinstance(found, PublicKey):
            return _register(db, s, item, holder, holder_id, game, found)
        problem = problem or found
    raise GameError(key_problem_text(problem or KeyProblem.NOT_A_KEY))


def _register(
    db: Database, s: Session, item: c.SetKey, holder: Holder, holder_id: int, game: Game, key: PublicKey
) -> Answer:
    key_rows.set_key(db, holder, holder_id, key.fingerprint, key.armoured, key.user_ids, key.key_ids, iso_utc(s.now))
    log_event(db, game.id, s.now, s.msg.sender, EventKind.KEY, {"seat": str(holder), "fingerprint": key.fingerprint})
    return Answer(
        item.text,
        T(
            "key {fingerprint} ({user_ids}) is registered; mail signed with it signs on without a password",
            fingerprint=_shown(key.fingerprint),
            user_ids=", ".join(key.user_ids) or "-",
        ),
    )


def key_problem_text(problem: KeyProblem) -> Text:
    """Why an offered key is refused (nothing changes)."""
    return {
        KeyProblem.NOT_A_KEY: T("what you sent is not an OpenPGP public key; nothing changed"),
        KeyProblem.SEVERAL: T("your mail holds more than one key in one block; send only yours; nothing changed"),
        KeyProblem.SECRET: T(
            "that is a SECRET key: it was not kept and nothing changed. Never send it to anyone; send your public "
            "key, and if the secret one left your computer, make a new key"
        ),
        KeyProblem.EXPIRED: T("that key has expired; extend it or make a new one; nothing changed"),
        KeyProblem.REVOKED: T("that key is revoked; nothing changed"),
        KeyProblem.CANNOT_SIGN: T("that key cannot make signatures (no key of it may sign); nothing changed"),
        KeyProblem.TOO_LARGE: T("that key is too large (over 256 KB; a photo in it?); nothing changed"),
    }[problem]


# --- GET KEY ----------------------------------------------------------------------------------------------------------


def judge_key_text(judge_key: JudgeKey | None) -> Text:
    """GET KEY: the judge's public key (its mail is signed with it), or that it has none."""
    if judge_key is None:
        return T("this judge has no OpenPGP key: its mail is not signed")
    return T(
        "The judge's OpenPGP key, {fingerprint}; every mail it sends is signed with it:\n\n{key}",
        fingerprint=_shown(judge_key.fingerprint),
        key=judge_key.public.strip(),
    )
