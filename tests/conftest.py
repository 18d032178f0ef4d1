"""Fixtures shared by the test modules that run the daemon against real servers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mailservers import SmtpSink

import judge.wiring  # noqa: F401  (tests calling the game server directly need it wired, as every entry point does)


@pytest.fixture
def smtp() -> Iterator[Any]:
    """An aiosmtpd sink on loopback that records every mail it accepts."""
    sink = SmtpSink().start()
    yield sink
    sink.stop()
