"""The font the pictures are drawn with (DejaVu Sans Condensed Bold, shipped in ``fontdata/`` with its licence),
and what it can draw (letters a font lacks are spelled out)."""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from PIL import ImageFont

from judge.reports.maps.style import _SPELLED, LEGEND_SIZE, SCALE, WORDS

# --- fonts ---------------------------------------------------------------------------------------------------------

FONT_FILE = Path(__file__).resolve().parent / "fontdata" / "DejaVuSansCondensed-Bold.ttf"


@cache
def _font(size: int) -> Any:
    """The shipped DejaVu font at ``size`` pixels; Pillow's own font when the file or FreeType is missing (a fixed
    bitmap font when Pillow has no FreeType)."""
    try:
        return ImageFont.truetype(str(FONT_FILE), size)
    except (OSError, ImportError):
        return ImageFont.load_default(size=size)


def _drawing_font(size: int) -> tuple[Any, int]:
    """The font for text of ``size`` on the enlarged canvas, and how much its glyphs must still be enlarged (a
    bitmap font has one size only: it is drawn at that size and enlarged with the canvas's scale)."""
    font = _font(size * SCALE)
    return (font, 1) if isinstance(font, ImageFont.FreeTypeFont) else (font, SCALE)


@cache
def _missing_glyph(size: int) -> bytes:
    return _glyph(size, "\ue000")  # a private-use character: no font draws it, so this is the "missing" box


@lru_cache(maxsize=4096)
def _glyph(size: int, char: str) -> bytes:
    try:
        mask = _font(size).getmask(char)
    except (UnicodeError, ValueError, OSError):
        return b""
    return bytes(mask) + bytes(str(mask.size), "ascii")


def can_draw(text: str, size: int = LEGEND_SIZE) -> bool:
    """Whether the default font at ``size`` has a glyph for every character of ``text`` (found by drawing it)."""
    missing = _missing_glyph(size)
    for char in set(text):
        if char.isspace():
            continue
        glyph = _glyph(size, char)
        if not glyph or glyph == missing:
            return False
    return True


def spell_drawable(text: str, size: int) -> str:
    """``text`` as the default font can draw it: umlauts spelled out, accents dropped, anything else as "?"."""
    out = []
    for char in text:
        if char.isspace() or can_draw(char, size):
            out.append(char)
            continue
        spelled = _SPELLED.get(char)
        if spelled is None:
            base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
            spelled = base if base and base != char else "?"
        out.append(spelled if can_draw(spelled, size) else "?")
    return "".join(out)


# the words every picture draws (labels, legend words), kept; a text of one picture alone (its title) is spelled with
# spell_drawable, so that it is not kept
drawable = lru_cache(maxsize=4096)(spell_drawable)


def legend_words(language: str) -> dict[str, str]:
    """The legend's words in ``language`` ("en", "de", "ru"); English for other languages, and for a language whose
    letters the font cannot draw even when spelled out (only when the shipped font is missing)."""
    words = WORDS.get(language, WORDS["en"])
    spelled = {key: drawable(text, LEGEND_SIZE) for key, text in words.items()}
    if any("?" in text and "?" not in words[key] for key, text in spelled.items()):
        return dict(WORDS["en"])
    return spelled
