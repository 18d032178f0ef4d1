"""Fixtures shared by the test modules: the password cost of the run, and an SMTP sink for the daemon tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mailservers import SmtpSink

import judge.wiring  # noqa: F401  (tests calling the game server directly need it wired, as every entry point does)
from judge.game import passwords

# scrypt's cost in the tests: n = 2**10 (1 MiB, about 3 ms a hash) instead of the judge's 2**14 (16 MiB, about 45 ms).
# The tests hash and verify some 800 passwords a run, 35 s of CPU at the judge's cost; the same code runs, the cost is
# written into each stored hash as always, and `judge serve` started by a test verifies those hashes at their own cost.
# tests/test_passwords.py checks the judge's real cost (the `judge_password_cost` fixture). As Django's documentation
# advises for its own test runs: a fast hasher in tests, the real one in production.
TEST_PASSWORD_N = 2**10


@pytest.fixture(scope="session", autouse=True)
def _cheap_password_hashes() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(passwords, "N", TEST_PASSWORD_N)
        yield


@pytest.fixture
def judge_password_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passwords hashed at the judge's own cost, as a host's judge hashes them."""
    monkeypatch.setattr(passwords, "N", passwords.JUDGE_N)


@pytest.fixture
def smtp() -> Iterator[Any]:
    """An aiosmtpd sink on loopback that records every mail it accepts."""
    sink = SmtpSink().start()
    yield sink
    sink.stop()
