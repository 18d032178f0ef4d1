"""The judge's own OpenPGP key, read from the file the configuration names (``[judge] openpgp_key`` or the systemd
credential ``openpgp-key``), once, when a command that signs or decrypts starts. A key that cannot be used is a
configuration error (the daemon exits 2); the key itself is never written to a log."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from judge.config import Config, ConfigError
from judge.signatures.keys import JudgeKey, JudgeKeyError, read_judge_key


def load_judge_key(cfg: Config, now: datetime) -> JudgeKey | None:
    """The judge's key, or None when the configuration names none."""
    if not cfg.openpgp_key:
        return None
    path = Path(cfg.openpgp_key)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"[judge] openpgp_key: cannot read {path}: {exc.strerror or exc}") from None
    try:
        return read_judge_key(data, now)
    except JudgeKeyError as exc:
        raise ConfigError(f"[judge] openpgp_key: {path}: {exc}") from None
