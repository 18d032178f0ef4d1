"""Where the data folders (variants/, templates/) are: the host's own folder first (``[judge] variants_dir``,
``templates_dir``), then the shipped one (inside the installed package, or at the top of a checkout)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # the judge package (this module is judge/data/resources.py)
_HOST: dict[str, Path | None] = {"variants": None, "templates": None}


def data_dir(name: str) -> Path:
    """The shipped folder ``name`` ("variants" or "templates"): the wheel's copy if installed, else the checkout's."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"cannot find the {name}/ folder next to {_PACKAGE}")


def set_host_dirs(*, variants: str | Path | None = None, templates: str | Path | None = None) -> None:
    """The host's own folders (from the configuration); None: only the shipped files."""
    _HOST["variants"] = Path(variants) if variants else None
    _HOST["templates"] = Path(templates) if templates else None


def search_dirs(name: str) -> tuple[Path, ...]:
    """The folders to look in for ``name``, the host's first: its files win on a name clash."""
    host = _HOST.get(name)
    shipped = data_dir(name)
    return (host, shipped) if host is not None and host.resolve() != shipped.resolve() else (shipped,)
