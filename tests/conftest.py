"""Fixtures shared by the test modules: the password cost of the run, and an SMTP sink for the daemon tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from mailservers import SmtpSink

import judge.wiring  # noqa: F401  (tests calling the game server directly need it wired, as every entry point does)
from judge.game import passwords

# scrypt's cost in the tests: n = 2**8 (256 KiB, under 1 ms a hash) instead of the judge's 2**14 (16 MiB, about 45 ms).
# The tests hash and verify some 800 passwords a run, 35 s of CPU at the judge's cost; the same code runs, the cost is
# written into each stored hash as always, and `judge serve` started by a test verifies those hashes at their own cost.
# tests/test_passwords.py checks the judge's real cost (the `judge_password_cost` fixture). As Django's documentation
# advises for its own test runs: a fast hasher in tests, the real one in production.
TEST_PASSWORD_N = 2**8


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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow", action="store_true", help="run the tests marked slow too, as CI does (or set JUDGE_SLOW_TESTS=1)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked slow (whole installs, the demo, daemons killed mid-work: seconds each) run with ``--slow`` or
    JUDGE_SLOW_TESTS=1, or where ``-m`` names them; otherwise they are reported as skipped, with how to run them."""
    if config.getoption("--slow") or os.environ.get("JUDGE_SLOW_TESTS") or "slow" in (config.option.markexpr or ""):
        return
    later = pytest.mark.skip(reason="slow: run with --slow or JUDGE_SLOW_TESTS=1 (CI runs them)")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(later)
