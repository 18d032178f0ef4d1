"""The map picture of a position: provinces, centres, units and the orders of a phase, drawn as a PNG with Pillow.

A variant with *board geometry* (``variants/KEY.geo.json``, made by ``python -m judge.reports.maps.tessellate``) is
drawn as a board: every province an area, land provinces tinted by the power that holds them, seas blue, land that is no
province grey, supply centres marked in their owner's colour, units as army and fleet symbols, the orders of a phase
as arrows, labels in the shipped DejaVu font, as a palette PNG (about 50-85 KB); a crowded region may be drawn
again, enlarged, in an inset panel below the map. A variant without it is drawn as a diagram of its graph: a disc
per province at its place on the globe (``at = [latitude, longitude]``), neighbours joined by lines.

``render_map`` returns the PNG bytes, the same bytes for the same input. ``draw_map`` returns the picture with what a
caller (or a test) may want to know about it. Modules: ``style`` (sizes, colours, words), ``fonts``, ``geometry``
(reading the board geometry), ``layout`` (projection and labels), ``drawn_orders`` (reading stored orders),
``areas`` (the board's kept base layer and palette drawing), ``placing`` (where a picture's pieces go: order lines,
dislodged units on a free spot in their province, labels moved off the lines), ``draw``; ``tessellate`` is the tool
that makes the geometry (never imported by the judge). Nothing here touches the clock, the network or the database;
it reads the shipped font and geometry files only.
"""

from judge.reports.maps.areas import has_board, held_by, tint
from judge.reports.maps.draw import LegendEntry, MapDrawing, draw_map, power_colours, render_map
from judge.reports.maps.drawn_orders import DrawnOrder, drawn_order
from judge.reports.maps.fonts import can_draw, drawable, legend_words
from judge.reports.maps.geometry import BoardGeometry, board_geometry, parse_geometry
from judge.reports.maps.layout import MapLayout, map_layout
from judge.reports.maps.style import CONVOY_INK, DISLODGED_LINE, NEUTRAL, MapError

__all__ = [
    "CONVOY_INK",
    "DISLODGED_LINE",
    "NEUTRAL",
    "BoardGeometry",
    "DrawnOrder",
    "LegendEntry",
    "MapDrawing",
    "MapError",
    "MapLayout",
    "board_geometry",
    "can_draw",
    "draw_map",
    "drawable",
    "drawn_order",
    "has_board",
    "held_by",
    "legend_words",
    "map_layout",
    "parse_geometry",
    "power_colours",
    "render_map",
    "tint",
]
