"""Card strips drawn in the machine's fonts: many more pip-column designs than the SVG decks.

The strip reader (:func:`assistant.detect.crops.strip_crop`) reads a card from its left
strip, the corner index and the column of pips below it. Trained on the SVG decks'
strips alone it learns about twenty-three pictures and stays weak on unseen designs.
This module draws that strip the way a card printer lays a card out, with the font
indices' glyphs (:mod:`assistant.synth.font_indices`): the index (rank over pip) in the
top-left corner, the body by the French layout of the rank (pips in two side columns
and a centre column for 2-10, pips of the lower half turned round, one big pip for an
ace, a framed two-headed picture for J, Q and K), with random proportions, pip sizes,
ink and card tint. Around it what a hand on a table shows: the table, a card under this
one to its left, the next card of a row covering its right with that card's own index.
The strip is then seen through a camera (a little turned, a few pixels per millimetre,
blurred, noisy, compressed) and brought back to the zone crops' 1 mm per pixel, with
``pad`` pixels of context around it as :func:`assistant.detect.reader_data.strip_crops`
cuts them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from assistant.detect.crops import STRIP_MARGIN, STRIP_SIZE
from assistant.detect.labels import RANKS, SUITS
from assistant.synth.font_indices import (
    RANK_TEXT,
    SUIT_CHARS,
    FontSet,
    Patches,
    Pixels,
    _glyph_mask,
    _ink,
    _stamp,
    _suit_polygon,
    _table,
    balanced_patches,
    card_face,
    joined_patches,
    system_fonts,
)

MM = 4  # drawing resolution (px per mm) before the camera brings it down (it keeps at most 1.1)
_EXTRA_MM = 4  # drawn beyond the padded strip, so a turn brings in no border


@dataclass(frozen=True)
class _Index:
    """One design's corner index: the glyph masks and where they sit on the card."""

    rank: Pixels
    pip: Pixels
    dx: int  # px from the card's left edge to the index's left
    dy: int  # px from the card's top edge to the rank's top
    gap: int
    centred: bool

    @property
    def width(self) -> int:
        return int(max(self.rank.shape[1], self.pip.shape[1]))

    @property
    def height(self) -> int:
        return int(self.rank.shape[0] + self.gap + self.pip.shape[0])


def _pip_maker(rng: np.random.Generator, fonts: FontSet, suit: str) -> Callable[[int], Pixels]:
    """A card's one pip design at any height: a suit font's glyph or a drawn polygon."""
    if fonts.suits and rng.random() < 0.7:
        font = fonts.suits[int(rng.integers(len(fonts.suits)))]
        return lambda h: _glyph_mask(font, SUIT_CHARS[suit], h, 1.0)
    seed = int(rng.integers(1 << 31))
    return lambda h: _suit_polygon(suit, h, np.random.default_rng(seed))


def _index(rng: np.random.Generator, fonts: FontSet, rank: int, pip: Callable[[int], Pixels]) -> _Index:
    font = fonts.text[int(rng.integers(len(fonts.text)))]
    rank_h = round(rng.uniform(5.5, 11.0) * MM)
    squeeze = rng.uniform(0.55, 0.95) if RANK_TEXT[rank] == "10" else rng.uniform(0.8, 1.15)
    rank_mask = _glyph_mask(font, RANK_TEXT[rank], rank_h, squeeze)
    if rng.random() < 0.3:  # bolder: dilate the ink
        k = max(1, round(rank_h * 0.06))
        rank_mask = cv2.dilate(rank_mask, np.ones((k, k), np.uint8))
    pip_mask = pip(round(rank_h * rng.uniform(0.5, 0.85)))
    return _Index(
        rank_mask,
        pip_mask,
        dx=round(rng.uniform(0.8, 3.5) * MM),
        dy=round(rng.uniform(1.5, 5.0) * MM),
        gap=round(rng.uniform(0.2, 1.6) * MM),
        centred=bool(rng.random() < 0.75),
    )


def _stamp_index(canvas: Pixels, index: _Index, x: int, y: int, ink: tuple[float, ...], turned: bool) -> None:
    """The index with its top-left at (x, y); ``turned``: printed upside down, its
    bottom-right at (x, y) mirrored through the card's centre by the caller."""
    rank, pip = index.rank, index.pip
    w = index.width
    rx = (w - rank.shape[1]) // 2 if index.centred else 0
    px = (w - pip.shape[1]) // 2 if index.centred else 0
    if not turned:
        _stamp(canvas, rank, x + rx, y, ink)
        _stamp(canvas, pip, x + px, y + rank.shape[0] + index.gap, ink)
        return
    # turned half round: (x, y) is where the index's bottom-right lands
    _stamp(canvas, rank[::-1, ::-1], x - rx - rank.shape[1], y - rank.shape[0], ink)
    _stamp(canvas, pip[::-1, ::-1], x - px - pip.shape[1], y - index.height, ink)


#: French pip layouts: (column, row) per pip, columns -1 left, 0 centre, 1 right; rows
#: 0 top .. 1 bottom of the pip area (a 9 or 10 has four rows a third apart)
_THIRD = 1 / 3
LAYOUTS: dict[str, tuple[tuple[int, float], ...]] = {
    "2": ((0, 0.0), (0, 1.0)),
    "3": ((0, 0.0), (0, 0.5), (0, 1.0)),
    "4": ((-1, 0.0), (-1, 1.0), (1, 0.0), (1, 1.0)),
    "5": ((-1, 0.0), (-1, 1.0), (1, 0.0), (1, 1.0), (0, 0.5)),
    "6": tuple((c, r) for c in (-1, 1) for r in (0.0, 0.5, 1.0)),
    "7": (*((c, r) for c in (-1, 1) for r in (0.0, 0.5, 1.0)), (0, 0.25)),
    "8": (*((c, r) for c in (-1, 1) for r in (0.0, 0.5, 1.0)), (0, 0.25), (0, 0.75)),
    "9": (*((c, r) for c in (-1, 1) for r in (0.0, _THIRD, 2 * _THIRD, 1.0)), (0, 0.5)),
    "T": (
        *((c, r) for c in (-1, 1) for r in (0.0, _THIRD, 2 * _THIRD, 1.0)),
        (0, _THIRD / 2),
        (0, 1 - _THIRD / 2),
    ),
}


def _body_pips(
    canvas: Pixels,
    rng: np.random.Generator,
    rank: str,
    pip: Callable[[int], Pixels],
    card: tuple[int, int, int, int],
    ink: tuple[float, ...],
) -> None:
    x0, y0, w, h = card
    height = round(rng.uniform(0.1, 0.17) * h)
    mask = pip(height)
    mh, mw = mask.shape
    side = rng.uniform(0.2, 0.32) * w  # a side column's centre, from the card's edge
    top = rng.uniform(0.15, 0.25) * h  # the top row's centre
    turn_lower = rng.random() < 0.85
    for column, row in LAYOUTS[rank]:
        cx = x0 + w / 2 + column * (w / 2 - side)
        cy = y0 + top + row * (h - 2 * top)
        m = mask[::-1, ::-1] if (turn_lower and row > 0.5) else mask
        _stamp(canvas, m, round(cx - mw / 2), round(cy - mh / 2), ink)


def _ace(
    canvas: Pixels,
    rng: np.random.Generator,
    pip: Callable[[int], Pixels],
    card: tuple[int, int, int, int],
    ink: tuple[float, ...],
) -> None:
    x0, y0, w, h = card
    mask = pip(round(rng.uniform(0.15, 0.45) * h))
    cx, cy = x0 + w / 2, y0 + h / 2
    if rng.random() < 0.3:  # an ornate ace: rings or a wreath around the pip
        col = tuple(float(v) for v in rng.uniform(0, 160, 3))
        for _ in range(int(rng.integers(1, 4))):
            r = round(max(mask.shape) * rng.uniform(0.6, 1.1))
            cv2.circle(canvas, (round(cx), round(cy)), r, col, max(1, round(rng.uniform(0.2, 1.2) * MM)))
    _stamp(canvas, mask, round(cx - mask.shape[1] / 2), round(cy - mask.shape[0] / 2), ink)


_COURT_COLOURS = (
    (40, 40, 200),  # red
    (170, 90, 30),  # blue
    (40, 190, 230),  # yellow
    (30, 30, 30),  # black
    (150, 190, 235),  # skin
    (60, 140, 60),  # green
)


def _court(
    canvas: Pixels,
    rng: np.random.Generator,
    pip: Callable[[int], Pixels],
    card: tuple[int, int, int, int],
    ink: tuple[float, ...],
) -> None:
    """A two-headed picture: shapes in the upper half, the same turned round below."""
    x0, y0, w, h = card
    fx, fy = round(rng.uniform(0.1, 0.24) * w), round(rng.uniform(0.07, 0.18) * h)
    left, top, right, bottom = x0 + fx, y0 + fy, x0 + w - fx, y0 + h - fy
    mid = (top + bottom) // 2
    half = np.zeros((mid - top, right - left, 3), np.float32)
    half[:] = canvas[top:mid, left:right]
    for _ in range(int(rng.integers(6, 18))):
        base = _COURT_COLOURS[int(rng.integers(len(_COURT_COLOURS)))]
        col = tuple(float(np.clip(c + rng.uniform(-30, 30), 0, 255)) for c in base)
        cx, cy = int(rng.integers(0, half.shape[1])), int(rng.integers(0, half.shape[0]))
        ax = int(rng.integers(2 * MM, 12 * MM))
        ay = int(rng.integers(2 * MM, 14 * MM))
        if rng.random() < 0.6:
            cv2.ellipse(half, (cx, cy), (ax, ay), float(rng.uniform(0, 180)), 0, 360, col, -1)
        else:
            pts = rng.integers(0, [half.shape[1], half.shape[0]], (int(rng.integers(3, 6)), 2)).astype(
                np.int32
            )
            cv2.fillPoly(half, [pts], col)
        if rng.random() < 0.4:  # outlines, as engraved pictures have
            cv2.ellipse(half, (cx, cy), (ax, ay), 0, 0, 360, (20, 20, 20), max(1, MM // 4))
    canvas[top:mid, left:right] = half
    canvas[mid : mid + half.shape[0], left:right] = half[::-1, ::-1]
    if rng.random() < 0.85:  # the picture's frame
        col = tuple(float(v) for v in rng.uniform(0, 160, 3))
        cv2.rectangle(canvas, (left, top), (right, bottom), col, max(1, round(rng.uniform(0.2, 0.8) * MM)))
    if rng.random() < 0.5:  # a suit pip in the frame's corner, beside the index
        mask = pip(round(rng.uniform(0.06, 0.12) * h))
        _stamp(canvas, mask, left + MM, top + MM, ink)
        _stamp(
            canvas,
            mask[::-1, ::-1],
            right - MM - mask.shape[1],
            bottom - MM - mask.shape[0],
            ink,
        )


def _lay_card(canvas: Pixels, x: int, y: int, w: int, h: int, rng: np.random.Generator) -> Pixels:
    """A card face (w x h px, corners rounded) at (x, y) with a faint shadow; the canvas."""
    ch, cw = canvas.shape[:2]
    m = 2 * MM  # the shadow's reach
    rx0, ry0, rx1, ry1 = max(0, x - m), max(0, y - m), min(cw, x + w + m), min(ch, y + h + m)
    if rx0 >= rx1 or ry0 >= ry1:
        return canvas
    x, y = x - rx0, y - ry0  # in the region's pixels
    radius = round(rng.uniform(1.5, 4.0) * MM)
    mask = np.zeros((ry1 - ry0, rx1 - rx0), np.uint8)
    cv2.rectangle(mask, (x + radius, y), (x + w - radius, y + h), 255, -1)
    cv2.rectangle(mask, (x, y + radius), (x + w, y + h - radius), 255, -1)
    for cx, cy in (
        (x + radius, y + radius),
        (x + w - radius, y + radius),
        (x + radius, y + h - radius),
        (x + w - radius, y + h - radius),
    ):
        cv2.circle(mask, (cx, cy), radius, 255, -1, lineType=cv2.LINE_AA)
    shadow = cv2.GaussianBlur(mask, (0, 0), MM * 0.8).astype(np.float32) / 255.0
    shadow = np.roll(shadow, (MM // 2, MM // 2), axis=(0, 1))
    a = (mask[..., None] / 255.0).astype(np.float32)
    region = canvas[ry0:ry1, rx0:rx1] * (1 - 0.35 * shadow[..., None])
    canvas[ry0:ry1, rx0:rx1] = region * (1 - a) + card_face(rng) * a
    return canvas


@dataclass(frozen=True)
class FontStrip:
    """One drawn strip as the strip reader sees it: the padded patch and its card."""

    patch: Pixels
    rank: int
    suit: int


def draw_strip(
    rng: np.random.Generator,
    fonts: FontSet,
    pad: int,
    rank: int | None = None,
    suit: int | None = None,
    off_colour: float = 0.0,
    size: tuple[int, int] = STRIP_SIZE,
) -> FontStrip:
    """One strip patch, ``size`` (width, height; the strip reader's ``STRIP_SIZE`` unless
    told, a whole card's face at 72 x 88) plus ``pad`` px of context on every side; the
    card is printed in a colour unrelated to its suit ``off_colour`` of the time."""
    rank = int(rng.integers(13)) if rank is None else rank
    suit = int(rng.integers(4)) if suit is None else suit
    s = SUITS[suit]
    sw, sh = size
    # the canvas in card millimetres: from (-ox, -oy) to (-ox + W, -oy + H)
    ox, oy = STRIP_MARGIN[0] + pad + _EXTRA_MM, STRIP_MARGIN[1] + pad + _EXTRA_MM
    # the whole card, so its picture and far corner are drawn whole, and the whole patch
    width_mm = max(ox + 66, sw + 2 * (pad + _EXTRA_MM))
    height_mm = sh + 2 * (pad + _EXTRA_MM)
    W, H = width_mm * MM, height_mm * MM
    canvas = _table(rng, H, W)
    card_w, card_h = round(rng.uniform(56, 64) * MM), round(rng.uniform(86, 90) * MM)
    x0, y0 = ox * MM, oy * MM
    if rng.random() < 0.45:  # a card under this one, to its left (the one before in a row)
        dx, dy = round(rng.uniform(8, 30) * MM), round(rng.uniform(-4, 4) * MM)
        canvas = _lay_card(canvas, x0 - dx, y0 + dy, card_w, card_h, rng)
        if rng.random() < 0.6:
            under_pip = _pip_maker(rng, fonts, SUITS[int(rng.integers(4))])(round(rng.uniform(8, 14) * MM))
            _stamp(
                canvas,
                under_pip,
                x0 - dx + card_w - round(rng.uniform(10, 24) * MM),
                y0 + dy + round(rng.uniform(5, 60) * MM),
                _ink(s if rng.random() < 0.5 else "s", rng),
            )
    canvas = _lay_card(canvas, x0, y0, card_w, card_h, rng)
    card = (x0, y0, card_w, card_h)
    ink = _ink(s, rng, off_colour)
    pip = _pip_maker(rng, fonts, s)
    index = _index(rng, fonts, rank, pip)
    if rng.random() < 0.12:  # a border line inside the card's edge
        inset = round(rng.uniform(1.5, 4) * MM)
        col = tuple(float(v) for v in rng.uniform(0, 160, 3))
        cv2.rectangle(
            canvas, (x0 + inset, y0 + inset), (x0 + card_w - inset, y0 + card_h - inset), col, max(1, MM // 4)
        )
    letter = RANKS[rank]
    if letter in "JQK":
        _court(canvas, rng, pip, card, ink)
    elif letter == "A":
        _ace(canvas, rng, pip, card, ink)
    else:
        _body_pips(canvas, rng, letter, pip, card, ink)
    _stamp_index(canvas, index, x0 + index.dx, y0 + index.dy, ink, turned=False)
    _stamp_index(canvas, index, x0 + card_w - index.dx, y0 + card_h - index.dy, ink, turned=True)
    if rng.random() < 0.2:  # a deck that prints its index in all four corners
        _stamp_index(canvas, index, x0 + index.dx + index.width, y0 + card_h - index.dy, ink, turned=True)
    if rng.random() < 0.5:  # the next card of a row covers this one's right
        cover_x = x0 + index.dx + index.width + round(rng.uniform(1.0, 30.0) * MM)
        cover_y = y0 + round(rng.uniform(-4, 4) * MM)
        canvas = _lay_card(canvas, cover_x, cover_y, card_w, card_h, rng)
        if rng.random() < 0.8:  # and shows its own index
            nr, ns = int(rng.integers(13)), SUITS[int(rng.integers(4))]
            shown = _index(rng, fonts, nr, _pip_maker(rng, fonts, ns))
            _stamp_index(canvas, shown, cover_x + shown.dx, cover_y + shown.dy, _ink(ns, rng), turned=False)
    # light: a gentle gradient across the strip
    gx = np.linspace(rng.uniform(0.85, 1.1), rng.uniform(0.85, 1.1), W, dtype=np.float32)
    gy = np.linspace(rng.uniform(0.85, 1.1), rng.uniform(0.85, 1.1), H, dtype=np.float32)
    canvas = canvas * (gy[:, None, None] * gx[None, :, None])
    # the camera: a little turn, few pixels per millimetre, blur, noise, compression
    turn = cv2.getRotationMatrix2D(
        (x0 + 10 * MM, y0 + 30 * MM), rng.uniform(-2.5, 2.5), rng.uniform(0.97, 1.03)
    )
    canvas = cv2.warpAffine(canvas, turn, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    sensor = rng.uniform(0.33, 0.65) if rng.random() < 0.6 else rng.uniform(0.65, 1.1)  # px per mm
    small = (max(8, round(width_mm * sensor)), max(8, round(height_mm * sensor)))
    img = cv2.resize(np.clip(canvas, 0, 255).astype(np.uint8), small, interpolation=cv2.INTER_AREA)
    if rng.random() < 0.6:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 0.7))
    img = np.clip(img + rng.normal(0, rng.uniform(0, 5), img.shape), 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
    decoded = cv2.imdecode(jpg, cv2.IMREAD_COLOR) if ok else None
    if decoded is not None:
        img = decoded
    img = cv2.resize(img, (width_mm, height_mm), interpolation=cv2.INTER_LINEAR)  # 1 mm per px
    e = _EXTRA_MM
    patch = np.ascontiguousarray(img[e : e + sh + 2 * pad, e : e + sw + 2 * pad])
    return FontStrip(patch, rank, suit)


CHUNK = 1000  # strips per job: one random stream each, so the result does not depend on workers


def _chunk(job: tuple[int, int, int, int, float, tuple[int, int]]) -> Patches:
    seed, start, n, pad, off_colour, size = job
    fonts = system_fonts()
    rng = np.random.default_rng([seed, start, 7])

    def draw(rank: int, suit: int) -> Pixels:
        return draw_strip(rng, fonts, pad, rank=rank, suit=suit, off_colour=off_colour, size=size).patch

    return balanced_patches(start, n, _patch_shape(pad, size), draw)


def _patch_shape(pad: int, size: tuple[int, int]) -> tuple[int, int, int]:
    width, height = size
    return height + 2 * pad, width + 2 * pad, 3


def font_strip_patches(
    seed: int,
    n: int,
    pad: int,
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    off_colour: float = 0.0,
    size: tuple[int, int] = STRIP_SIZE,
) -> Patches:
    """``n`` drawn strip patches of ``size`` (width, height) with their rank and suit
    targets, every card equally often, ``off_colour`` of them printed in a colour unrelated
    to their suit.

    The same ``seed``, ``n``, ``off_colour`` and ``size`` give the same patches whatever
    ``workers`` is.
    """
    from assistant.synth.dataset import run_jobs

    system_fonts()  # fail here, not in a worker, when there are none
    jobs = [(seed, start, min(CHUNK, n - start), pad, off_colour, size) for start in range(0, n, CHUNK)]
    parts = run_jobs(_chunk, jobs, workers, progress)
    return joined_patches(parts, _patch_shape(pad, size))


__all__ = ["LAYOUTS", "FontStrip", "draw_strip", "font_strip_patches"]
