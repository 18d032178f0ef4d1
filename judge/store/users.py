"""Who reads the mail: each address's language and time zone, the judge's default language and its own address."""

from __future__ import annotations

from sqlite_utils import Database


def set_judge_address(db: Database, address: str) -> None:
    db.table("meta").upsert({"key": "judge_address", "value": address.lower()}, pk="key")


def set_judge_fingerprint(db: Database, fingerprint: str) -> None:
    """The fingerprint of the judge's OpenPGP key as ``judge serve`` found it ("" when it has none)."""
    db.table("meta").upsert({"key": "judge_fingerprint", "value": fingerprint}, pk="key")


def judge_fingerprint(db: Database) -> str:
    rows = list(db.query("select value from meta where key = 'judge_fingerprint'"))
    return rows[0]["value"] if rows and rows[0]["value"] else ""


def known_judge_address(db: Database) -> str:
    """The judge's own address as ``judge serve`` last recorded it ("" when it never ran on this database)."""
    rows = list(db.query("select value from meta where key = 'judge_address'"))
    return rows[0]["value"] if rows and rows[0]["value"] else ""


def default_language(db: Database) -> str:
    """The judge's language for players who have not chosen one (``[judge] language`` of the config)."""
    rows = list(db.query("select value from meta where key = 'default_language'"))
    return rows[0]["value"] if rows else "en"


def set_default_language(db: Database, language: str) -> None:
    db.table("meta").upsert({"key": "default_language", "value": language}, pk="key")


def user_settings(db: Database, email: str) -> dict[str, str]:
    rows = list(db.query("select timezone, language from users where email = ?", [email.lower()]))
    if not rows:
        return {"timezone": "UTC", "language": default_language(db)}
    return {"timezone": rows[0]["timezone"] or "UTC", "language": rows[0]["language"] or default_language(db)}


def set_user(db: Database, email: str, **values: str) -> None:
    """Record what a player chose (``timezone``, ``language``) and nothing else: a setting never chosen stays unset,
    so it follows the judge's default when the host changes it."""
    db.table("users").upsert({"email": email.lower(), **values}, pk="email")


def web_base_url(db: Database) -> str:
    """Where the public archive is served (``[web] base_url``, recorded by ``judge serve`` and ``judge web build``;
    "" when none): the results mails link to a game's page under it."""
    rows = list(db.query("select value from meta where key = 'web_base_url'"))
    return rows[0]["value"] if rows and rows[0]["value"] else ""


def set_web_base_url(db: Database, url: str) -> None:
    db.table("meta").upsert({"key": "web_base_url", "value": url.rstrip("/")}, pk="key")
