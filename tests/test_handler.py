"""The handler's own branches: the table of handlers, rollback (a failing line undoes itself only; a failure outside
the lines undoes the whole message), the reply cap on every kind of answer, and mail loops with the judge itself."""

from __future__ import annotations

import itertools
import typing
from email.message import EmailMessage
from typing import Any

import pytest
from gamekit import Table

from judge.commands import handler, handlers
from judge.commands import items as c
from judge.commands.reply import Answer, Reply, Verdict
from judge.commands.session import Session
from judge.game.records import orders_of, players
from judge.game.service import get_game

JUDGE = "judge@judge.test"


@pytest.fixture
def t(tmp_path: Any) -> Table:
    table = Table(tmp_path / "judge.db")
    table.seven("g", "--master", "gm@p.test", reuse=True)
    return table


_ids = itertools.count(1)


def _raw(sender: str, body: str, **headers: str) -> bytes:
    msg = EmailMessage()
    msg["Message-ID"] = headers.pop("Message_ID", f"<h{next(_ids)}@p.test>")
    msg["From"] = sender
    msg["To"] = JUDGE
    msg["Subject"] = headers.pop("Subject", "orders")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return bytes(msg)


def _orders(t: Table) -> list[str]:
    game = get_game(t.db, "g")
    return orders_of(t.db, game.id, game.phase or "").get("France", [])


def _france(t: Table) -> Any:
    return next(p for p in players(t.db, get_game(t.db, "g").id) if p.power == "France")


def _told_master(t: Table) -> list[dict[str, Any]]:
    return [m for m in t.outbox() if m["to_addr"] == "gm@p.test" and "internal error" in m["subject"]]


SIGNED = "SIGNON France g pw-France"


# --- the table --------------------------------------------------------------------------------------------------------


def test_every_kind_of_line_has_a_handler() -> None:
    assert set(handlers.HANDLERS) == set(typing.get_args(c.Item))


def test_an_answer_knows_its_verdict() -> None:
    from judge.i18n import T

    assert Answer.of("A par - bur", T("OK: {order}", order="A par - bur")).verdict is Verdict.OK
    assert Answer.of("A par - xyz", T("ERROR: {reason}", reason="no")).verdict is Verdict.ERROR
    reply = Reply([Answer("LIST", T("see below"), note="games"), Answer.error("X", "bad")], notes=[T("ready")])
    ru = reply.worded("ru")
    assert [line.bad for line in ru.lines] == [False, True]
    assert ru.lines[1].response.startswith("ОШИБКА") and ru.notes == ["games", "готов"]


# --- rollback ---------------------------------------------------------------------------------------------------------


def test_a_line_that_fails_midway_undoes_its_own_writes_and_nothing_else(
    t: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    def half_done(db: Any, s: Session, item: c.Ready) -> Answer:
        _game, player = handlers.signed(db, s)
        player.ready = True
        handlers.save_player(db, player)  # written, then the bug
        raise ZeroDivisionError

    monkeypatch.setitem(handlers.HANDLERS, c.Ready, half_done)
    handled = handler.handle_message(t.db, _raw("france@p.test", f"{SIGNED}\nA par - bur\nREADY\nF bre - mao"), t.now)
    assert handled.outcome == "handled"
    assert _orders(t) == ["A par - bur", "F bre - mao"]  # the lines before and after took effect
    assert not _france(t).ready  # the failing line's own write is undone
    (answer,) = [r for r in handled.replies if r["to_addr"] == "france@p.test"]
    assert "an internal error kept this line from taking effect" in answer["body"]
    (told,) = _told_master(t)
    assert "READY on line 3: ZeroDivisionError" in told["body"]  # the command as the player wrote it


def test_a_failure_after_the_lines_undoes_the_whole_message(t: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> None:
        raise RuntimeError("adjudication bug")

    monkeypatch.setattr(handler.service, "maybe_adjudicate_when_ready", broken)
    raw = _raw("france@p.test", f"{SIGNED}\nA par - bur\nREADY", Message_ID="<m1@p.test>")
    handled = handler.handle_message(t.db, raw, t.now)
    assert handled.outcome == "error" and handled.failed  # answered and recorded, and set aside
    assert _orders(t) == [] and not _france(t).ready  # nothing of it took effect
    (apology,) = [r for r in handled.replies if r["to_addr"] == "france@p.test"]
    assert "Nothing in it took effect; the game master has been told" in " ".join(apology["body"].split())
    assert len(_told_master(t)) == 1
    assert handler.handle_message(t.db, raw, t.now).outcome == "duplicate"


# --- the reply cap ----------------------------------------------------------------------------------------------------


def _use_up_quota(t: Table, sender: str, limit: int) -> None:
    for _ in range(limit):
        assert handler.handle_message(t.db, _raw(sender, "LIST"), t.now, max_replies_per_hour=limit).replies


def test_over_the_cap_unreadable_and_old_mail_get_no_answer(t: Table) -> None:
    _use_up_quota(t, "eve@p.test", 2)
    too_large = handler.handle_message(
        t.db, _raw("eve@p.test", "LIST"), t.now, max_replies_per_hour=2, declared_size=5_000_000
    )
    assert too_large.text == "refused: too large" and too_large.replies == []
    old = _raw("eve@p.test", "LIST", Date="Mon, 23 Nov 2026 11:00:00 +0000")
    too_old = handler.handle_message(t.db, old, t.now, max_replies_per_hour=2)
    assert too_old.text == "refused: too old" and too_old.replies == []
    # under the cap, the same mail is answered
    fresh = handler.handle_message(t.db, _raw("bob@p.test", "LIST"), t.now, declared_size=5_000_000)
    assert fresh.text == "refused: too large" and "too large (4882 KB" in fresh.replies[0]["body"]


def test_over_the_cap_an_internal_error_is_told_to_the_master_only(t: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    _use_up_quota(t, "france@p.test", 2)

    def broken(*args: Any) -> None:
        raise RuntimeError("adjudication bug")

    monkeypatch.setattr(handler.service, "maybe_adjudicate_when_ready", broken)
    raw = _raw("france@p.test", f"{SIGNED}\nA par - bur")
    handled = handler.handle_message(t.db, raw, t.now, max_replies_per_hour=2)
    assert handled.outcome == "error" and _orders(t) == []
    assert [r["to_addr"] for r in handled.replies] == ["gm@p.test"]


def test_over_the_cap_the_message_still_counts_and_one_notice_goes(t: Table) -> None:
    _use_up_quota(t, "france@p.test", 2)
    first = handler.handle_message(t.db, _raw("france@p.test", f"{SIGNED}\nA par - bur"), t.now, max_replies_per_hour=2)
    (notice,) = first.replies
    assert "replies to you are paused until" in " ".join(notice["body"].split())
    second = handler.handle_message(
        t.db, _raw("france@p.test", f"{SIGNED}\nF bre - mao"), t.now, max_replies_per_hour=2
    )
    assert second.replies == [] and _orders(t) == ["A par - bur", "F bre - mao"]


# --- mail loops -------------------------------------------------------------------------------------------------------


def test_mail_from_the_judges_own_address_is_never_answered(t: Table) -> None:
    handled = handler.handle_message(t.db, _raw(JUDGE, "LIST"), t.now, judge_address=JUDGE)
    assert handled.text == "dropped: automatic message" and handled.replies == []
    upper = handler.handle_message(t.db, _raw(JUDGE.upper(), "HELP"), t.now, judge_address=JUDGE)
    assert upper.text == "dropped: automatic message" and upper.replies == []


def test_the_judges_own_reply_coming_back_is_never_answered(t: Table) -> None:
    from judge.transport.smtp import build_message

    (reply,) = handler.handle_message(t.db, _raw("bob@p.test", "LIST"), t.now, judge_address=JUDGE).replies
    bounced = build_message(reply, JUDGE, None, t.now)
    del bounced["From"]
    bounced["From"] = "bob@p.test"  # e.g. a forwarding rule at the player's provider sends it back
    handled = handler.handle_message(t.db, bytes(bounced), t.now, judge_address=JUDGE)
    assert handled.text == "dropped: automatic message" and handled.replies == []


def test_a_reply_to_the_judge_itself_goes_to_the_sender(t: Table) -> None:
    handled = handler.handle_message(t.db, _raw("bob@p.test", "LIST", Reply_To=JUDGE), t.now, judge_address=JUDGE)
    assert [r["to_addr"] for r in handled.replies] == ["bob@p.test"]


# --- every answer in the reader's language ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "language,usage,sandbox,history",
    [
        ("ru", "SIGNON требует державу, игру и пароль", "Следующая фаза: F1901M", "Сыгранные фазы в g: пока нет"),
        ("de", "SIGNON braucht eine Macht, ein Spiel", "Nächste Phase: F1901M", "Gespielte Phasen in g: noch keine"),
    ],
)
def test_problems_sandbox_and_history_are_worded_for_the_reader(
    t: Table, language: str, usage: str, sandbox: str, history: str
) -> None:
    t.reply("france@p.test", f"{SIGNED}\nSET LANGUAGE {language}")
    text = t.reply(
        "france@p.test", "SIGNON\nSANDBOX\nFrance: A par\nORDERS\nFrance: A par - bur\nENDSANDBOX\nHISTORY g"
    )
    assert usage in text and sandbox in text and history in text
    assert "needs a power" not in text and "Next phase" not in text


@pytest.mark.parametrize(
    ("text", "outcome", "reason", "rejected", "quarantine", "failed"),
    [
        ("handled", handler.MessageOutcome.HANDLED, "", False, None, False),
        ("duplicate", handler.MessageOutcome.DUPLICATE, "", False, None, False),
        ("dropped: automatic message", handler.MessageOutcome.DROPPED, "automatic message", False, None, False),
        ("refused: too old", handler.MessageOutcome.REFUSED, "too old", True, None, False),
        ("refused: too complex", handler.MessageOutcome.REFUSED, "too complex", True, "too complex", False),
        ("error", handler.MessageOutcome.ERROR, "", False, "internal error (error)", True),
        (
            "error: RuntimeError",
            handler.MessageOutcome.ERROR,
            "RuntimeError",
            False,
            "internal error (error: RuntimeError)",
            True,
        ),
    ],
)
def test_the_recorded_outcome_reads_back_as_a_value(
    text: str, outcome: handler.MessageOutcome, reason: str, rejected: bool, quarantine: str | None, failed: bool
) -> None:
    handled = handler.Handled.of(text, [])
    assert (handled.outcome, handled.reason) == (outcome, reason)
    assert (handled.rejected, handled.quarantine_reason, handled.failed) == (rejected, quarantine, failed)
    assert handled.text == text  # what the store keeps for the message, unchanged


def test_an_outcome_text_unknown_to_this_version_counts_as_handled() -> None:
    handled = handler.Handled.of("ignored: by an older judge", [])
    assert (handled.outcome, handled.reason) == (handler.MessageOutcome.HANDLED, "ignored: by an older judge")
    assert not handled.rejected and not handled.failed and handled.quarantine_reason is None
