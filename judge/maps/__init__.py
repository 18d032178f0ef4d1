"""The map picture of a position: provinces, centres, units and the orders of a phase, drawn as a PNG with Pillow.

The picture is a drawing of the map's graph, not a painted map: every province is a disc at its place on the globe
(``at = [latitude, longitude]`` in the variant file), its neighbours are joined by faint lines (brown where armies
go, blue where fleets go), supply centres carry a marker in the owner's colour, and units stand on the discs (a
fleet on a split coast stands at that coast's point). The orders of a played phase are drawn over it as arrows.

``render_map`` returns the PNG bytes, the same bytes for the same input. ``draw_map`` returns the picture with what a
caller (or a test) may want to know about it. Modules: ``style`` (sizes, colours, words), ``fonts``, ``layout``
(projection and labels), ``orders`` (reading stored orders), ``draw``. Nothing here reads files, the clock or the
network.
"""

from judge.maps.draw import LegendEntry, MapDrawing, draw_map, power_colours, render_map
from judge.maps.fonts import can_draw, drawable, legend_words
from judge.maps.layout import MapLayout, map_layout
from judge.maps.orders import DrawnOrder, read_order
from judge.maps.style import CONVOY_INK, DISLODGED_LINE, NEUTRAL, MapError

__all__ = ["CONVOY_INK", "DISLODGED_LINE", "DrawnOrder", "LegendEntry", "MapDrawing", "MapError", "MapLayout",
           "NEUTRAL", "can_draw", "draw_map", "drawable", "legend_words", "map_layout", "power_colours",
           "read_order", "render_map"]
