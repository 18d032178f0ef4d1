"""The mail side of notices: render each in its recipient's language (deadlines in their zone and UTC), draw the
map it asks for once per language, and queue the mail in the outbox."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from markupsafe import escape
from sqlite_utils import Database

from judge.facts import PLACEHOLDER_ORGANIZER, archive_page
from judge.game.invitations import Invitation, Method
from judge.game.notices import MapRequest, Notice
from judge.game.records import Game, queue_mail, user_settings
from judge.i18n import T, translate
from judge.reports.render import Mail, marked, render_mail
from judge.store.mail_queue import keep_picture
from judge.store.users import judge_fingerprint, known_judge_address, web_base_url
from judge.timeutil import format_deadline, iso_utc


def send(
    db: Database,
    to: str,
    template: str,
    now: datetime,
    *,
    game: Game | None = None,
    in_reply_to: str | None = None,
    image: bytes | None = None,
    picture_id: int | None = None,
    rendered: dict[tuple[str, str], Any] | None = None,
    thread_refs: str | None = None,
    invitation: Invitation | None = None,
    **context: Any,
) -> None:
    """Render mail ``template`` in the recipient's language, with deadlines in their zone and UTC, and queue it.

    With ``rendered`` (a dict the caller keeps for one mail sent to many), the mail is rendered once per language
    and time zone: the context must then not depend on the recipient. ``invitation``: the calendar event the mail
    carries, rendered for this recipient (judge.reports.ical), with a line under the text that says so."""
    prefs = user_settings(db, to)
    key = (prefs["language"], prefs["timezone"])
    mail: Mail | None = rendered.get(key) if rendered is not None else None
    if mail is None:
        deadline = None
        if game is not None and game.deadline is not None:
            deadline = format_deadline(game.deadline, prefs["timezone"], now, prefs["language"])
            if prefs["timezone"] != "UTC":
                deadline += f" = {game.deadline:%Y-%m-%d %H:%M} UTC"
        language = prefs["language"]
        mail = marked(
            render_mail(template, language, game=game, deadline=deadline, reader_zone=prefs["timezone"], **context),
            language,
        )
        if rendered is not None:
            rendered[key] = mail
    calendar = None
    if invitation is not None:
        from judge.reports.ical import calendar_text

        organizer = known_judge_address(db) or PLACEHOLDER_ORGANIZER
        calendar = calendar_text(invitation, prefs["language"], prefs["timezone"], organizer, now)
        mail = with_calendar_note(mail, prefs["language"], invitation)
    queue_mail(
        db,
        to,
        mail.subject,
        mail.text,
        now,
        game_id=game.id if game else None,
        in_reply_to=in_reply_to,
        html=mail.html,
        image=image,
        picture_id=picture_id,
        thread_refs=thread_refs,
        calendar=calendar,
    )


def with_calendar_note(mail: Mail, language: str, invitation: Invitation) -> Mail:
    """``mail`` with one line under its text (and HTML) that tells what its calendar part is."""
    if invitation.method is Method.CANCEL:
        note = T("This mail cancels the deadline in your calendar (invite.ics). SET CALENDAR OFF: no more of these.")
    else:
        note = T("The deadline is in your calendar with this mail (invite.ics). SET CALENDAR OFF: no more of these.")
    line = translate(note, language)
    html = mail.html
    if html is not None:
        paragraph = f'<p style="color: #777; font-size: 0.8em">{escape(line)}</p>\n'
        at = html.rfind("</body>")
        html = html[:at] + paragraph + html[at:] if at >= 0 else html + paragraph
    return Mail(mail.subject, f"{mail.text.rstrip()}\n\n{line}\n", html)


def deliver(db: Database, notices: Sequence[Notice], now: datetime) -> None:
    """Render and queue one event's notices, in order; a picture is drawn and kept once per language (in a Fog of
    War game, once per language for each picture the game server asks for: the readers who see the same share one),
    and a shared notice is rendered once per language and time zone."""
    pictures: dict[tuple[int, str], int | None] = {}  # (the request's identity, language) -> kept picture
    rendered: dict[tuple[str, str], Any] = {}
    for notice in notices:
        extra: dict[str, Any] = {}
        if notice.picture is not None:
            assert notice.game is not None, "a map belongs to a game"
            language = user_settings(db, notice.to)["language"]
            key = (id(notice.picture), language)
            if key not in pictures:
                pictures[key] = _kept_picture(db, notice.game, notice.picture, language, now)
            extra = {"picture_id": pictures[key], "has_map": pictures[key] is not None}
        if notice.kind.value == "game_started":  # the start mail names the key the judge signs its mail with
            extra["judge_fingerprint"] = judge_fingerprint(db).upper()
        if notice.kind.value in ARCHIVED and notice.game is not None:
            extra["page_url"] = page_url(db, notice.game.name, user_settings(db, notice.to)["language"])
        send(
            db,
            notice.to,
            notice.kind.value,
            now,
            game=notice.game,
            rendered=rendered if notice.shared else None,
            invitation=notice.invitation,
            **extra,
            **notice.facts,
        )


ARCHIVED = frozenset({"results", "game_over"})  # the mails that link to the game's page in the public archive


def page_url(db: Database, game: str, language: str) -> str:
    """The address of ``game``'s page in the public archive in ``language`` ("" when ``[web] base_url`` is not set)."""
    base = web_base_url(db)
    return f"{base}/{archive_page(game, language)}" if base else ""


def _kept_picture(db: Database, game: Game, request: MapRequest, language: str, now: datetime) -> int | None:
    png = map_picture(game, request.position, list(request.lines), language, request.after, request.seen)
    return store_picture(db, game, request.phase, language, palette_png(png), now) if png is not None else None


def map_picture(
    game: Game,
    pos: Any,
    lines: list[Any],
    language: str,
    after: Any | None = None,
    seen: frozenset[int] | None = None,
) -> bytes | None:
    """The PNG of the phase's orders drawn on the board (after the phase when ``after`` is given, as the results
    mail shows it), or None when the variant cannot be drawn; ``seen``: a Fog of War reader's own picture."""
    from judge.reports.map_words import map_title, map_words
    from judge.reports.maps import render_map

    try:
        return render_map(
            game.variant,
            pos,
            lines,
            title=map_title(game.name, pos.phase, language),
            language=language,
            after=after,
            words=map_words(game.variant, language),
            seen=seen,
        )
    except ValueError:
        return None


def palette_png(png: bytes) -> bytes:
    """The picture as a palette PNG (at most 256 colours): a map of flat colours loses nothing and shrinks a lot."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        if im.mode == "P":
            return png
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    small.save(out, format="PNG", compress_level=6)  # 9 is four times slower for 3 % less
    data = out.getvalue()
    return data if len(data) < len(png) else png


def store_picture(db: Database, game: Game, phase: str, language: str, png: bytes, now: datetime) -> int:
    """Keep the map of a phase once per language; every results mail of the phase refers to this row."""
    return keep_picture(db, game.id, phase, language, png, iso_utc(now))
