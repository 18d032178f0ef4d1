"""The command line's last line of defence: an error no command handled still becomes one line on stderr naming
what went wrong (a file, the database, the input's encoding, a value), never a traceback; JUDGE_DEBUG shows one."""

from __future__ import annotations

import sqlite3

import pytest

from judge.cli import _describe, _fail


@pytest.mark.parametrize(
    "error,line",
    [
        (
            FileNotFoundError(2, "No such file or directory", "orders.txt"),
            "judge: orders.txt: No such file or directory",
        ),
        (OSError("disk on fire"), "judge: disk on fire"),
        (sqlite3.OperationalError("database is locked"), "judge: the database: database is locked"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "judge: the input is not UTF-8 text"),
        (ValueError("year must be a number"), "judge: year must be a number"),
        (KeyError("Narnia"), "judge: Narnia"),
        (LookupError(), "judge: "),
        (ZeroDivisionError("division by zero"), "judge: internal error (ZeroDivisionError: division by zero)"),
    ],
)
def test_every_error_is_one_line_that_names_it(error: BaseException, line: str) -> None:
    assert _describe(error).startswith(line)
    assert "\n" not in _describe(error)


def test_the_line_goes_to_stderr_with_its_status(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGE_DEBUG", raising=False)
    assert _fail("something\nbroke", 7, RuntimeError("x")) == 7
    assert capsys.readouterr().err == "judge: something broke\n"
    monkeypatch.setenv("JUDGE_DEBUG", "1")
    assert _fail("judge: broke", 1, RuntimeError("the cause")) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: the cause" in err and err.endswith("judge: broke\n")
