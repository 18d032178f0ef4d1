"""Password hashing for player and host accounts: scrypt, stored as one self-describing string.

A stored hash reads ``scrypt$<n>$<r>$<p>$<salt>$<hash>`` with the salt and the 32-byte hash in standard base64, so
the cost parameters can be raised later and old hashes still verify. Passwords are compared in Unicode normal form
NFC, so the same password typed on two keyboards that compose accents differently still matches.

Passwords are never logged and never appear in an exception message.

A correct sign-on is remembered for the life of the process, so that a player who sends many mails with the same
password pays for scrypt once: the memory holds only an HMAC-SHA256, under a key drawn at random when the process
starts, of the stored hash and the password (never the password, nor anything that outlives the process or could be
checked without that key). A changed password changes the stored hash, so an old entry never matches again. A wrong
password is never remembered: every failed attempt pays the full hash.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import threading
import unicodedata
from collections import OrderedDict

SCHEME = "scrypt"
JUDGE_N = 2**14  # the cost of a new hash: about 16 MiB and 45 ms on a small VPS
N = JUDGE_N  # the cost hash_password uses (the test suite lowers it for its own run)
R = 8
P = 1
DKLEN = 32
SALT_BYTES = 16

# Limits on what a stored string may ask for, so a corrupt or hostile row cannot make one verification take
# minutes or gigabytes: scrypt needs about 128 * n * r bytes; allow four times today's cost, plus some slack.
_MAX_WORK = 4 * 128 * JUDGE_N * R
_MAX_P = 4
_MAX_MEM = _MAX_WORK + 2**22


def _password_bytes(password: str) -> bytes:
    if not isinstance(password, str):
        raise TypeError("a password must be a str")
    # surrogatepass: a stray surrogate must not raise UnicodeEncodeError, whose message would quote the password.
    return unicodedata.normalize("NFC", password).encode("utf-8", "surrogatepass")


def _derive(password: bytes, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    return hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=dklen, maxmem=_MAX_MEM)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str) -> str:
    """Hash ``password`` with a fresh random salt; the result is safe to store and to show in logs."""
    secret = _password_bytes(password)
    if not secret:
        raise ValueError("a password must not be empty")
    salt = os.urandom(SALT_BYTES)
    digest = _derive(secret, salt, N, R, P, DKLEN)
    return f"{SCHEME}${N}${R}${P}${_b64(salt)}${_b64(digest)}"


def _parse_stored(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    """The parameters, salt and hash of a stored string, or None if it is not one this module wrote."""
    if not isinstance(stored, str) or not stored.isascii():
        return None
    fields = stored.split("$")
    if len(fields) != 6 or fields[0] != SCHEME:
        return None
    if not all(f.isdigit() and len(f) <= 8 for f in fields[1:4]):
        return None
    n, r, p = (int(f) for f in fields[1:4])
    try:
        salt = base64.b64decode(fields[4], validate=True)
        digest = base64.b64decode(fields[5], validate=True)
    except (ValueError, binascii.Error):
        return None
    if not (n > 1 and n & (n - 1) == 0 and r >= 1 and 128 * n * r <= _MAX_WORK and 1 <= p <= _MAX_P):
        return None
    if not 8 <= len(salt) <= 64 or len(digest) != DKLEN:  # a cut-off hash must not verify against its prefix
        return None
    return n, r, p, salt, digest


_CACHE_KEY = os.urandom(32)  # per process; never stored
_CACHE_SIZE = 4096
_verified: OrderedDict[bytes, None] = OrderedDict()
_lock = threading.Lock()


def _cache_key(password: bytes, stored: str) -> bytes:
    return hmac.new(_CACHE_KEY, stored.encode("ascii") + b"\0" + password, hashlib.sha256).digest()


def verify_password(password: str, stored: str) -> bool:
    """True if ``password`` matches the hash ``stored``; False for a wrong password or a malformed stored string."""
    parsed = _parse_stored(stored)
    if parsed is None or not isinstance(password, str):
        return False
    n, r, p, salt, digest = parsed
    try:
        secret = _password_bytes(password)
    except (ValueError, UnicodeError):
        return False
    key = _cache_key(secret, stored)
    with _lock:
        if key in _verified:
            _verified.move_to_end(key)
            return True
    try:
        candidate = _derive(secret, salt, n, r, p, DKLEN)
    except (ValueError, MemoryError, OverflowError):
        return False
    if not hmac.compare_digest(candidate, digest):
        return False
    with _lock:
        _verified[key] = None
        while len(_verified) > _CACHE_SIZE:
            _verified.popitem(last=False)
    return True


def forget_verified() -> None:
    """Empty the cache of verified sign-ons (tests, and a host who wants every sign-on to pay the hash again)."""
    with _lock:
        _verified.clear()
