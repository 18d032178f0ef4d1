"""The game server is given variant loading and the mail side (judge.game.ports); judge.wiring gives them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from judge.data import catalog
from judge.game import notices, ports

NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def unwired() -> Iterator[None]:
    kept = list(ports._installed)
    ports._installed.clear()
    try:
        yield
    finally:
        ports._installed[:] = kept


def test_the_wiring_gives_the_catalog_and_the_outbox() -> None:
    import judge.wiring

    # the mail side is judge.reports.outbox.deliver, imported by the wiring at the first notice
    assert ports._ports() == ports.Ports(load_variant=catalog.load_variant, deliver=judge.wiring.deliver)
    assert "outbox.deliver" in (judge.wiring.deliver.__doc__ or "")
    assert ports.load_variant("classic") is catalog.load_variant("classic")


@pytest.mark.usefixtures("unwired")
def test_an_unwired_game_server_fails_loudly_rather_than_drop_mail() -> None:
    with pytest.raises(ports.NotWired):
        ports.load_variant("classic")
    with pytest.raises(ports.NotWired):
        notices.tell(None, "a@p.test", notices.NoticeKind.REMINDER, NOW)  # type: ignore[arg-type]


@pytest.mark.usefixtures("unwired")
def test_notices_reach_the_mail_side_as_values_in_one_batch_per_event() -> None:
    batches: list[tuple[Any, list[notices.Notice], datetime]] = []

    def deliver(db: Any, sent: Sequence[notices.Notice], now: datetime) -> None:
        batches.append((db, list(sent), now))

    ports.install(ports.Ports(load_variant=catalog.load_variant, deliver=deliver))
    notices.post("db", [], NOW)  # type: ignore[arg-type]
    assert batches == []  # nothing to say: the mail side is not called
    notices.tell("db", "a@p.test", notices.NoticeKind.REMINDER, NOW, None, player="p")  # type: ignore[arg-type]
    assert batches == [
        ("db", [notices.Notice("a@p.test", notices.NoticeKind.REMINDER, None, {"player": "p"})], NOW),
    ]


def test_every_kind_of_notice_has_its_template() -> None:
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "templates" / "en"  # one set for every language
    missing = [kind.value for kind in notices.NoticeKind if not (folder / f"{kind.value}.txt.j2").is_file()]
    assert missing == []
