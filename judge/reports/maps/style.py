"""Sizes, colours and legend words of the map picture."""

from __future__ import annotations

import colorsys

Point = tuple[float, float]
RGB = tuple[int, int, int]

WIDTH = 1400  # pixels across the whole picture
MAX_MAP_HEIGHT = 1800  # a map taller than wide is drawn narrower rather than taller than this
MARGIN = 44  # around the drawn provinces
SCALE = 2  # drawn this many times larger, then reduced: smooth lines without an anti-aliasing drawer

# Sizes in pixels of the final picture.
DISC = 12  # radius of a province disc
ARMY = 8.5  # radius of an army
CENTRE = 5  # radius of a supply-centre marker
CENTRE_AT = (-15, 8)  # the centre marker, relative to the province point
COAST_DOT = 3.5
LABEL_SIZE = 11
COAST_LABEL_SIZE = 9
LEGEND_SIZE = 13
TITLE_SIZE = 18
LEGEND_ROW = 22
LEGEND_COLUMNS = 4  # of powers, left of the line styles

# The board (provinces drawn as areas, judge.reports.maps.areas): its width comes with the geometry (800 for classic).
BOARD_LABEL_SIZE = 12  # upper-case abbreviations: capitals 9 px high
BOARD_COAST_LABEL_SIZE = 10
BOARD_LEGEND_SIZE = 12
BOARD_TITLE_SIZE = 15
BOARD_LEGEND_ROW = 21
INSET_GAP = 6  # rows of white between the map and its inset's panel
INSET_EDGE = 16  # a location this close to the inset's edge is labelled on the map instead
SEA_AREA: RGB = (176, 207, 232)
SEA_BORDER: RGB = (120, 160, 200)
LAND_AREA: RGB = (238, 232, 214)  # a land province nobody holds
LAND_BORDER: RGB = (96, 84, 70)
OFF_BOARD: RGB = (196, 194, 186)  # land that is no province
SEA_LABEL: RGB = (28, 62, 110)
HUB_LINE: RGB = LAND_BORDER  # a line across a hub (Pure: neighbours that share no border) ...
HUB_LINE_WIDTH = 2
HUB_DOT = 3  # ... and the dot where it meets its province (radius, pixels)
HUB_INSIDE = 5  # pixels between the dots and the hub's rim
TINT = 0.45  # a held province is the power's colour at this strength over white

BACKGROUND: RGB = (246, 243, 236)
SEA_FILL, SEA_LINE = (203, 225, 243), (140, 180, 214)
LAND_FILL, LAND_LINE = (237, 224, 194), (184, 160, 118)
ARMY_EDGE, FLEET_EDGE = (196, 164, 122), (136, 178, 218)
LABEL_INK = (58, 54, 48)
OUTLINE: RGB = (34, 34, 34)
DISLODGED_LINE: RGB = (214, 0, 0)
CONVOY_INK: RGB = (0, 122, 128)
FAILED_MARK: RGB = (214, 0, 0)
NEUTRAL: RGB = (255, 255, 255)
UNKNOWN_POWER: RGB = (150, 150, 150)
FOG: RGB = (208, 208, 208)  # Fog of War: a land province the reader does not see
FOG_CENTRE: RGB = (160, 160, 160)  # ... and a supply centre whose owner he does not see

# One colour per power, by its place in the variant's list of powers: distinct from each other and from the
# map's pale colours.
PALETTE: tuple[RGB, ...] = (
    (200, 30, 45),  # red
    (45, 75, 200),  # royal blue
    (40, 170, 225),  # sky blue
    (110, 70, 40),  # brown
    (40, 150, 60),  # green
    (140, 70, 175),  # purple
    (240, 195, 0),  # yellow
    (245, 125, 20),  # orange
    (230, 110, 190),  # pink
    (120, 120, 120),  # grey
    (160, 170, 30),  # olive
    (20, 20, 20),  # black
)


def palette_colour(index: int) -> RGB:
    """The ``index``-th power's colour: the palette above, then (Chaos has 34 powers) colours spread round the hue
    circle by the golden angle, dark and middle shades in turn, none of them the map's pale colours."""
    if index < len(PALETTE):
        return PALETTE[index]
    n = index - len(PALETTE)
    hue = (n * 0.381966 + 0.05) % 1.0
    light = (0.32, 0.48, 0.40)[n % 3]
    red, green, blue = colorsys.hls_to_rgb(hue, light, 0.75)
    return (round(red * 255), round(green * 255), round(blue * 255))


WORDS: dict[str, dict[str, str]] = {
    "en": {
        "centres": "Supply centres",
        "neutral": "neutral",
        "moved": "successful move",
        "failed": "failed move",
        "support": "support",
        "convoy": "convoy",
        "hold": "hold",
        "build": "build",
        "disband": "disband",
        "dislodged": "dislodged unit",
        "army": "army",
        "fleet": "fleet",
        "centre": "supply centre",
    },
    "de": {
        "centres": "Versorgungszentren",
        "neutral": "neutral",
        "moved": "erfolgreicher Zug",
        "failed": "gescheiterter Zug",
        "support": "Unterstützung",
        "convoy": "Konvoi",
        "hold": "Halten",
        "build": "Aufbau",
        "disband": "Auflösung",
        "dislodged": "vertrieben",
        "army": "Armee",
        "fleet": "Flotte",
        "centre": "Zentrum",
    },
    "ru": {
        "centres": "Центры снабжения",
        "neutral": "нейтральные",
        "moved": "удачный ход",
        "failed": "неудачный ход",
        "support": "поддержка",
        "convoy": "конвой",
        "hold": "стоять",
        "build": "постройка",
        "disband": "роспуск",
        "dislodged": "выбитая часть",
        "army": "армия",
        "fleet": "флот",
        "centre": "центр снабжения",
    },
}

# Spellings for letters the default font may lack; anything else it lacks becomes its plain letter or "?".
_SPELLED = {
    "ä": "ae",
    "ö": "oe",
    "ü": "ue",
    "Ä": "Ae",
    "Ö": "Oe",
    "Ü": "Ue",
    "ß": "ss",
    "—": "-",
    "–": "-",
    "×": "x",
    "«": '"',
    "»": '"',
    "„": '"',
    "“": '"',
    "”": '"',
}


class MapError(ValueError):
    """A map that cannot be drawn (a variant without coordinates); the message says why."""
