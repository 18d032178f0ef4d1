"""The judge's in-process caches, found by looking at its modules (for tests/test_caches.py and bench/memory_growth.py).

A cache is anything a long-running ``judge serve`` keeps from one message or phase to the next: every functools
cache (``lru_cache``, ``cache``) on a module's function or a class's method, and every container (dict, list, set,
deque and their kin) held by a module. Each is named ``module.name`` (``module.Class.name`` for a method).
"""

from __future__ import annotations

import collections
import importlib
import pkgutil
from collections.abc import Iterator
from typing import Any

import judge

CONTAINERS = (dict, list, set, collections.deque)
SKIPPED = {"judge.cli.__main__"}  # runs the command line when imported


def judge_modules() -> list[Any]:
    """Every module of the judge, imported."""
    names = [m.name for m in pkgutil.walk_packages(judge.__path__, "judge.") if m.name not in SKIPPED]
    return [importlib.import_module(name) for name in ["judge", *sorted(names)]]


def _functools_caches(module: Any) -> Iterator[tuple[str, Any]]:
    for attr, value in vars(module).items():
        if hasattr(value, "cache_info") and getattr(value, "__module__", None) == module.__name__:
            yield f"{module.__name__}.{attr}", value
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for name, member in vars(value).items():
                if hasattr(member, "cache_info"):
                    yield f"{module.__name__}.{attr}.{name}", member


def functools_caches() -> dict[str, Any]:
    """Every functools cache of the judge, by name."""
    return {name: wrapper for module in judge_modules() for name, wrapper in _functools_caches(module)}


def module_containers() -> dict[str, Any]:
    """Every container a judge module holds at its top level, by name (constant tables among them)."""
    out = {}
    for module in judge_modules():
        for attr, value in vars(module).items():
            if isinstance(value, CONTAINERS) and not attr.startswith("__"):
                out[f"{module.__name__}.{attr}"] = value
    return out


def sizes() -> dict[str, int]:
    """How many entries each cache and container holds now."""
    out = {name: wrapper.cache_info().currsize for name, wrapper in functools_caches().items()}
    out |= {name: len(value) for name, value in module_containers().items()}
    return out


def bounds() -> dict[str, int | None]:
    """The bound each functools cache was given (None: unbounded, ``functools.cache``)."""
    return {name: wrapper.cache_info().maxsize for name, wrapper in functools_caches().items()}


def clear_functools_caches() -> None:
    for wrapper in functools_caches().values():
        wrapper.cache_clear()


__all__ = ["bounds", "clear_functools_caches", "functools_caches", "judge_modules", "module_containers", "sizes"]
