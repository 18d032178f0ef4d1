"""A game as an animated GIF: one frame per phase, first to last, each the phase's picture (the one the judge keeps,
or drawn again: ``judge.reports.phase_maps``; a played phase's results picture, then the board of the phase now
being played) scaled down, under a caption naming the phase in the export's language. Pillow writes it with one
adaptive palette for the whole game (127 colours) and each frame stored as its difference from the one before
(unchanged pixels transparent), the pictures scaled with a box filter so that flat colours stay flat and frames
differ little: a game of 20 years (86 frames) is some 0.9 MB at 560 pixels wide; a longer one is written
narrower until it fits ``MAX_BYTES`` (tests/test_exports.py measures it).

``animated_gif`` is pure (frames in, bytes out); ``story_frames`` asks the store for the pictures.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw, ImageFont

from judge.exports import ExportError, refuse_fog
from judge.game.records import Game
from judge.game.story import Story
from judge.i18n import phase_words, translate
from judge.reports.maps.fonts import FONT_FILE
from judge.reports.phase_maps import phase_map

if TYPE_CHECKING:
    from sqlite_utils import Database

FRAME_WIDTH = 560  # pixels; the judge's pictures are 800 wide
NARROWER = (480, 400, 340)  # the widths tried, in turn, while the animation is over ``max_bytes``
COLOURS = 127  # the palette's size (one index more is left free: Pillow marks a frame's unchanged pixels with it)
CAPTION_HEIGHT = 30
CAPTION_SIZE = 19
FRAME_MS = 900  # how long each phase is shown
LAST_MS = 4000  # the last board stays a while before the loop starts again
MAX_BYTES = 1_000_000  # what a game of 20 years fits in


@dataclass(frozen=True)
class Frame:
    """One phase: its ``caption`` (the phase's name, worded) and ``png`` its picture."""

    caption: str
    png: bytes


def story_frames(db: Database, game: Game, story: Story, language: str) -> list[Frame]:
    """A frame for every phase of ``story`` (``game``'s, told as its viewer may see it), its picture in
    ``language``. ExportError for a Fog of War game still running, a game not started or a variant that cannot be
    drawn."""
    refuse_fog(story)
    if not story.phases:
        raise ExportError(f"{story.name} has not started: there is no phase to show")
    frames = []
    for phase in story.phases:
        picture = phase_map(db, game, phase.code if phase.played else None, language)
        if picture is None or picture.png is None:
            raise ExportError(f"the map of {story.variant.name} cannot be drawn")
        frames.append(Frame(translate(phase_words(phase.phase), language), picture.png))
    return frames


def animated_gif(frames: Sequence[Frame], *, max_bytes: int = MAX_BYTES) -> bytes:
    """The frames as one looping GIF, each picture scaled to ``FRAME_WIDTH`` under its caption, or narrower (the
    widths ``NARROWER``, in turn) while it is over ``max_bytes``; the narrowest when none fits."""
    if not frames:
        raise ExportError("an animation needs at least one frame")
    data = b""
    for width in (FRAME_WIDTH, *NARROWER):
        data = gif_at(frames, width)
        if len(data) <= max_bytes:
            break
    return data


def gif_at(frames: Sequence[Frame], width: int, *, frame_ms: int = FRAME_MS, last_ms: int = LAST_MS) -> bytes:
    """The frames as one looping GIF, each picture scaled to ``width`` under its caption."""
    images = [_captioned(frame, width) for frame in frames]
    palette = _palette(images)
    quantized = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    out = io.BytesIO()
    quantized[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=quantized[1:],
        duration=[frame_ms] * (len(quantized) - 1) + [last_ms],
        loop=0,
        optimize=True,
        disposal=1,
    )
    return out.getvalue()


def _captioned(frame: Frame, width: int) -> Image.Image:
    with Image.open(io.BytesIO(frame.png)) as picture:
        rgb = picture.convert("RGB")
    height = round(rgb.height * width / rgb.width)
    board = rgb.resize((width, height), Image.Resampling.BOX)  # flat colours stay flat: frames differ less
    canvas = Image.new("RGB", (width, height + CAPTION_HEIGHT), "white")
    canvas.paste(board, (0, CAPTION_HEIGHT))
    draw = ImageDraw.Draw(canvas)
    draw.fontmode = "1"  # no anti-aliasing: the caption in two colours, as cheap to store as the board
    font = _font()
    draw.text((8, CAPTION_HEIGHT // 2), frame.caption, fill="black", font=font, anchor="lm")
    draw.line([(0, CAPTION_HEIGHT - 1), (width, CAPTION_HEIGHT - 1)], fill=(160, 160, 160))
    return canvas


def _font() -> Any:
    try:
        return ImageFont.truetype(str(FONT_FILE), CAPTION_SIZE)
    except (OSError, ImportError):  # no FreeType: Pillow's own font
        return ImageFont.load_default(size=CAPTION_SIZE)


def _palette(images: Sequence[Image.Image]) -> Image.Image:
    """One adaptive palette of ``COLOURS`` colours for every frame, taken from the first, the middle and the last board
    side by side (the map's flat colours, each power's, the caption's)."""
    picks = [images[0], images[len(images) // 2], images[-1]]
    width, height = picks[0].size
    sheet = Image.new("RGB", (width * len(picks), height), "white")
    for i, im in enumerate(picks):
        sheet.paste(im, (i * width, 0))
    return sheet.quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT)
