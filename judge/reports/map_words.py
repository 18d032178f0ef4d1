"""The words drawn on a map picture, in the reader's language, from the catalogs (judge/i18n/locale): the legend,
the powers' names and the title. The drawing package (judge.reports.maps) knows no catalogs; the mail side gives it
these words (``render_map(..., title=map_title(...), words=map_words(...))``)."""

from __future__ import annotations

from judge.i18n import T, Text, phase_words, translate
from judge.rules.phase import Phase
from judge.rules.variant import Variant

# keys as in judge.reports.maps.legend_words
LEGEND: dict[str, Text] = {
    "centres": T("Supply centres"),
    "neutral": T("neutral"),
    "moved": T("successful move"),
    "failed": T("failed move"),
    "support": T("support"),
    "convoy": T("convoy"),
    "hold": T("hold"),
    "build": T("build"),
    "disband": T("disband"),
    "dislodged": T("dislodged unit"),
    "army": T("army"),
    "fleet": T("fleet"),
    "centre": T("supply centre"),
}


def map_words(variant: Variant, language: str) -> dict[str, str]:
    """The legend's words and every power's name in ``language`` (the variant's [names.<language>])."""
    words = {key: translate(text, language) for key, text in LEGEND.items()}
    words.update({power: variant.power(power).word(language) for power in variant.powers})
    return words


def map_title(game_name: str, phase: Phase, language: str) -> str:
    """``g1 - Frühjahr 1901, Bewegung``: the picture's title."""
    return f"{game_name} - {translate(phase_words(phase), language)}"
