"""Corner indices drawn in the machine's fonts: many more index designs than the SVG decks.

The SVG decks give the reader about thirty index designs; a table's deck is often none
of them, and on unseen designs the reader confuses spades with clubs and 8 with 6 or 9.
This module draws the top-left corner of a card the way a printer would, in every
suitable TrueType or OpenType font on the machine: the rank (A, 2-10, J, Q, K) over its
suit pip, in red or black, at a randomised size, weight, spacing and position, on a
card face of random tint with its rounded corner, on a random table, next to what
surrounds an index on a real card (a pip, a court picture's frame, the edge of the next
card in a row). The patch is then seen through a camera: turned a little, brought down
to a few pixels per millimetre, blurred, compressed and brought back up, and cut out
exactly as :func:`assistant.detect.reader_data.index_crops` cuts a labelled index.

Suit pips come from fonts that draw the four card suits (U+2660 and its kin) or, in a
third of the cases, from polygons drawn here; rank glyphs from any font that is not a
symbol, math or dingbat font. Fonts come from the system (``fc-list``; the Debian
packages listed in :data:`FONT_PACKAGES` add variety), so nothing is fetched.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from assistant.detect.crops import square_crop
from assistant.detect.labels import RANKS, SUITS

Pixels = npt.NDArray[Any]  # an image or mask, uint8 or float32

#: Debian packages with a wide spread of text faces (serif, sans, condensed, geometric),
#: and fontconfig's ``fc-list`` to find them.
FONT_PACKAGES = (
    "fontconfig",  # fc-list, which finds the fonts
    "fonts-dejavu-core",
    "fonts-dejavu-extra",
    "fonts-urw-base35",
    "fonts-liberation",
    "fonts-freefont-ttf",
    "fonts-texgyre",
    "fonts-linuxlibertine",
    "fonts-open-sans",
    "fonts-roboto-unhinted",
)
RANK_TEXT = tuple("10" if r == "T" else r for r in RANKS)  # as printed, in the reader's order
SUIT_CHARS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
_NOT_TEXT = ("math", "symbol", "d050000l", "dingbat", "keyboard", "z003", "display")
PX_PER_MM = 8  # drawing resolution before the camera brings it down
CANVAS_MM = 44


class NoFontsError(RuntimeError):
    """No usable fonts were found on this machine."""


@dataclass(frozen=True)
class FontSet:
    text: tuple[Path, ...]  # fonts for rank glyphs
    suits: tuple[Path, ...]  # fonts that draw the four suit symbols


def _fc_list(pattern: str) -> list[Path]:
    try:
        out = subprocess.run(
            ["fc-list", pattern, "file"], capture_output=True, text=True, check=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    files = {Path(line.split(":")[0].strip()) for line in out.splitlines() if line.strip()}
    return sorted(p for p in files if p.suffix.lower() in (".ttf", ".otf") and p.is_file())


@lru_cache(maxsize=1)
def system_fonts() -> FontSet:
    """The machine's fonts that draw J, Q, K and digits, and those that draw the suits."""
    text = [p for p in _fc_list(":charset=0030 0031 0041 004a 004b 0051") if not _symbolic(p)]
    suits = [p for p in _fc_list(":charset=2660 2663 2665 2666") if not _symbolic(p)]
    if not text:
        raise NoFontsError(
            "no TrueType/OpenType text fonts found (fc-list); install e.g. " + " ".join(FONT_PACKAGES)
        )
    return FontSet(tuple(text), tuple(suits))


def _symbolic(path: Path) -> bool:
    name = path.name.lower()
    return any(word in name for word in _NOT_TEXT)


@lru_cache(maxsize=4096)
def _font(path: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), size)


def _glyph_mask(path: Path, text: str, height_px: int, squeeze: float) -> Pixels:
    """The glyphs of ``text`` as a tight mask whose ink is ``height_px`` tall."""
    size = max(4, height_px)
    for _ in range(3):  # font size to ink height: measure, then scale
        font = _font(path, size)
        left, top, right, bottom = font.getbbox(text)
        ink = max(1, bottom - top)
        if abs(ink - height_px) <= 1:
            break
        size = max(4, round(size * height_px / ink))
    font = _font(path, size)
    left, top, right, bottom = font.getbbox(text)
    w, h = max(1, right - left), max(1, bottom - top)
    img = Image.new("L", (int(w) + 4, int(h) + 4), 0)
    ImageDraw.Draw(img).text((2 - left, 2 - top), text, fill=255, font=font)
    mask: Pixels = np.asarray(img, np.uint8)
    ys, xs = np.nonzero(mask > 40)
    if len(xs) == 0:
        return np.zeros((max(1, height_px), max(1, height_px // 2)), np.uint8)
    mask = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    if squeeze != 1.0:
        mask = cv2.resize(mask, (max(1, round(mask.shape[1] * squeeze)), mask.shape[0]))
    return np.ascontiguousarray(mask)


def _suit_polygon(suit: str, height_px: int, rng: np.random.Generator) -> Pixels:
    """A suit pip drawn from circles and polygons (for fonts that have no suit symbols)."""
    h = max(6, height_px)
    w = round(h * rng.uniform(0.8, 1.0))
    s = 4  # supersampling
    img = np.zeros((h * s, w * s), np.uint8)
    W, H = w * s, h * s
    if suit == "d":
        pts = np.array([(W / 2, 0), (W, H / 2), (W / 2, H), (0, H / 2)], np.int32)
        cv2.fillPoly(img, [pts], 255)
    elif suit == "h":
        r = W / 4
        cv2.circle(img, (round(r), round(r * 1.1)), round(r), 255, -1)
        cv2.circle(img, (round(W - r), round(r * 1.1)), round(r), 255, -1)
        pts = np.array([(0, r * 1.3), (W, r * 1.3), (W / 2, H)], np.int32)
        cv2.fillPoly(img, [pts], 255)
    elif suit == "s":
        r = W / 4
        body = H * 0.78
        cv2.circle(img, (round(r), round(body - r)), round(r), 255, -1)
        cv2.circle(img, (round(W - r), round(body - r)), round(r), 255, -1)
        pts = np.array([(0, body - r * 1.2), (W, body - r * 1.2), (W / 2, 0)], np.int32)
        cv2.fillPoly(img, [pts], 255)
        stem = np.array([(W / 2, body * 0.7), (W * 0.68, H), (W * 0.32, H)], np.int32)
        cv2.fillPoly(img, [stem], 255)
    else:  # clubs
        r = W * 0.22
        cv2.circle(img, (round(W / 2), round(r)), round(r), 255, -1)
        cv2.circle(img, (round(r), round(H * 0.52)), round(r), 255, -1)
        cv2.circle(img, (round(W - r), round(H * 0.52)), round(r), 255, -1)
        stem = np.array([(W / 2, H * 0.35), (W * 0.68, H), (W * 0.32, H)], np.int32)
        cv2.fillPoly(img, [stem], 255)
    return np.asarray(cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA), np.uint8)


def _stamp(canvas: Pixels, mask: Pixels, x: int, y: int, colour: Sequence[float]) -> None:
    """Ink ``mask`` onto ``canvas`` (H, W, 3 float) at (x, y), clipped to the canvas."""
    h, w = mask.shape
    ch, cw = canvas.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(cw, x + w), min(ch, y + h)
    if x0 >= x1 or y0 >= y1:
        return
    a = mask[y0 - y : y1 - y, x0 - x : x1 - x, None].astype(np.float32) / 255.0
    region = canvas[y0:y1, x0:x1]
    region[:] = region * (1 - a) + np.asarray(colour, np.float32) * a


def _ink(suit: str, rng: np.random.Generator, off_colour: float = 0.0) -> tuple[float, float, float]:
    """BGR ink: a printer's red for hearts and diamonds, near black for spades and clubs;
    ``off_colour`` of the time (no draw is spent when it is 0) any other colour instead."""
    if off_colour > 0 and rng.random() < off_colour:
        return odd_ink(rng)
    if suit in "hd":
        return (rng.uniform(10, 70), rng.uniform(0, 45), rng.uniform(150, 235))
    g = rng.uniform(0, 55)
    return (g + rng.uniform(0, 25), g, g)


def odd_ink(rng: np.random.Generator) -> tuple[float, float, float]:
    """BGR ink of any hue, unrelated to the suit, as four-colour decks print theirs (GNOME's
    green clubs, yellow diamonds and blue spades; KDE Konqi's red spades and green hearts;
    a poker deck's blue diamonds): a reader trained on some of these must tell a suit by
    its shape where the colour says nothing."""
    hsv = np.array([[[rng.uniform(0, 180), rng.uniform(110, 255), rng.uniform(70, 235)]]], np.float32).astype(
        np.uint8
    )
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return float(b), float(g), float(r)


def card_face(rng: np.random.Generator) -> Pixels:
    """A card face's colour: white to cream, a little tinted (BGR)."""
    return np.clip(rng.uniform(200, 252) + rng.uniform(-8, 8, 3), 0, 255).astype(np.float32)


def _table(rng: np.random.Generator, h: int, w: int) -> Pixels:
    base = rng.uniform(20, 200, 3)
    noise = cv2.GaussianBlur(rng.normal(0, 1, (h // 8 + 1, w // 8 + 1, 3)).astype(np.float32), (0, 0), 1.0)
    noise = cv2.resize(noise, (w, h))
    return np.clip(base + noise * rng.uniform(3, 25), 0, 255).astype(np.float32)


def _card_mask(h: int, w: int, x: int, y: int, radius: int) -> Pixels:
    """A card face from (x, y) to beyond the canvas, its top-left corner rounded."""
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (x + radius, y), (w, h), 255, -1)
    cv2.rectangle(mask, (x, y + radius), (w, h), 255, -1)
    cv2.circle(mask, (x + radius, y + radius), radius, 255, -1, lineType=cv2.LINE_AA)
    return mask


@dataclass(frozen=True)
class FontIndex:
    """One drawn corner as the reader sees it: an upright patch and its card."""

    patch: Pixels
    rank: int
    suit: int


COARSE_PX_PER_MM = (0.33, 0.6)  # a table camera 1.7-3 mm per pixel at the cards: a 9 mm index is 3-5 px


def _sensor(rng: np.random.Generator, coarse: float) -> float:
    """The camera's pixels per millimetre: 0.6-2.5 (a sharp table camera, a close-up), or
    ``coarse`` of the time (no draw is spent when it is 0) a coarse one's."""
    if coarse > 0 and rng.random() < coarse:
        return float(rng.uniform(*COARSE_PX_PER_MM))
    return float(rng.choice([rng.uniform(0.6, 1.1), rng.uniform(1.1, 2.5)], p=[0.6, 0.4]))


def draw_index(
    rng: np.random.Generator,
    fonts: FontSet,
    patch: int,
    context: float,
    rank: int | None = None,
    suit: int | None = None,
    off_colour: float = 0.0,
    coarse: float = 0.0,
) -> FontIndex:
    """One index patch (``patch`` px square, the index box ``context`` times inside it),
    printed in a colour unrelated to its suit ``off_colour`` of the time and filmed by a
    coarse camera (:data:`COARSE_PX_PER_MM`) ``coarse`` of the time."""
    rank = int(rng.integers(13)) if rank is None else rank
    suit = int(rng.integers(4)) if suit is None else suit
    s = SUITS[suit]
    mm = PX_PER_MM
    size = CANVAS_MM * mm
    canvas = _table(rng, size, size)
    # the card: its corner left of and above the index
    cx, cy = round(size * 0.5 - rng.uniform(5, 9) * mm), round(size * 0.5 - rng.uniform(10, 16) * mm)
    face = card_face(rng)
    mask = _card_mask(size, size, cx, cy, round(rng.uniform(1.5, 4.0) * mm))
    a = (mask[..., None] / 255.0).astype(np.float32)
    canvas = canvas * (1 - a) + face * a
    # the index: rank over pip
    text_font = fonts.text[int(rng.integers(len(fonts.text)))]
    rank_h = round(rng.uniform(6.0, 12.0) * mm)
    squeeze = rng.uniform(0.55, 0.95) if RANK_TEXT[rank] == "10" else rng.uniform(0.8, 1.15)
    rank_mask = _glyph_mask(text_font, RANK_TEXT[rank], rank_h, squeeze)
    if rng.random() < 0.3:  # bolder: dilate the ink
        k = max(1, round(rank_h * 0.06))
        rank_mask = cv2.dilate(rank_mask, np.ones((k, k), np.uint8))
    pip_h = round(rank_h * rng.uniform(0.5, 0.85))
    if fonts.suits and rng.random() < 0.7:
        pip_mask = _glyph_mask(fonts.suits[int(rng.integers(len(fonts.suits)))], SUIT_CHARS[s], pip_h, 1.0)
    else:
        pip_mask = _suit_polygon(s, pip_h, rng)
    ix = cx + round(rng.uniform(0.8, 3.5) * mm)
    iy = cy + round(rng.uniform(1.5, 5.0) * mm)
    gap = round(rng.uniform(0.2, 1.6) * mm)
    rw, pw = rank_mask.shape[1], pip_mask.shape[1]
    centre = ix + max(rw, pw) / 2
    if rng.random() < 0.75:
        rx, px = round(centre - rw / 2), round(centre - pw / 2)
    else:
        rx = px = ix
    ink = _ink(s, rng, off_colour)
    _stamp(canvas, rank_mask, rx, iy, ink)
    _stamp(canvas, pip_mask, px, iy + rank_mask.shape[0] + gap, ink)
    box = (
        min(rx, px),
        iy,
        max(rx + rw, px + pw),
        iy + rank_mask.shape[0] + gap + pip_mask.shape[0],
    )
    right = box[2]
    # what lies around an index on a card
    if rng.random() < 0.35:  # a picture's frame (court cards) or a border line
        fx = right + round(rng.uniform(0.8, 3.0) * mm)
        col = tuple(float(v) for v in rng.uniform(0, 160, 3))
        cv2.rectangle(canvas, (fx, cy + round(2 * mm)), (size + 10, size + 10), col, max(1, round(0.3 * mm)))
        if rng.random() < 0.7:
            blobs = rng.integers(3, 9)
            for _ in range(int(blobs)):
                c = tuple(float(v) for v in rng.uniform(0, 255, 3))
                centre_xy = (int(rng.integers(fx, size)), int(rng.integers(cy, size)))
                cv2.circle(canvas, centre_xy, int(rng.integers(mm, 6 * mm)), c, -1)
    elif rng.random() < 0.5:  # a pip of the card's body
        big = _suit_polygon(s, round(rng.uniform(7, 13) * mm), rng)
        _stamp(canvas, big, right + round(rng.uniform(2, 8) * mm), iy + round(rng.uniform(-2, 12) * mm), ink)
    if rng.random() < 0.35:  # the next card of a row covers the right of this one
        nx = right + round(rng.uniform(1.0, 9.0) * mm)
        shade = canvas[:, max(0, nx - round(0.8 * mm)) : nx] * rng.uniform(0.55, 0.85)
        canvas[:, max(0, nx - round(0.8 * mm)) : nx] = shade
        other = card_face(rng)
        top = cy + round(rng.uniform(-3, 3) * mm)
        cover = _card_mask(size, size, nx, top, round(rng.uniform(1.5, 4.0) * mm))
        a = (cover[..., None] / 255.0).astype(np.float32)
        canvas = canvas * (1 - a) + other * a
    # the camera: a little turn, few pixels per millimetre, blur, noise, compression
    angle = rng.uniform(-9, 9)
    centre_px = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    turn = cv2.getRotationMatrix2D(centre_px, angle, 1.0)
    canvas = cv2.warpAffine(canvas, turn, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    corners = np.array(
        [[box[0], box[1], 1], [box[2], box[1], 1], [box[2], box[3], 1], [box[0], box[3], 1]], float
    )
    turned = corners @ turn.T
    box_f = (turned[:, 0].min(), turned[:, 1].min(), turned[:, 0].max(), turned[:, 1].max())
    sensor = _sensor(rng, coarse)
    out_scale = max(1.0, sensor)  # zone crops are resampled to 1 mm per px
    small = max(8, round(size * sensor / mm))
    img = cv2.resize(np.clip(canvas, 0, 255).astype(np.uint8), (small, small), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.6:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 0.7))
    img = np.clip(img + rng.normal(0, rng.uniform(0, 5), img.shape), 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
    decoded = cv2.imdecode(jpg, cv2.IMREAD_COLOR) if ok else None
    if decoded is not None:
        img = decoded
    big_side = max(8, round(size * out_scale / mm))
    img = cv2.resize(img, (big_side, big_side), interpolation=cv2.INTER_LINEAR)
    f = big_side / size
    crop = square_crop(img, [v * f for v in box_f], patch, context)
    return FontIndex(crop, rank, suit)


Patches = tuple[Pixels, npt.NDArray[np.int64], npt.NDArray[np.int64]]
CHUNK = 2000  # patches per job: one random stream each, so the result does not depend on workers


def balanced_patches(
    start: int, n: int, shape: tuple[int, ...], draw: Callable[[int, int], Pixels]
) -> Patches:
    """``n`` patches of ``shape`` from ``draw(rank, suit)``, the k-th (counted from
    ``start``) of rank ``k % 13`` and suit ``(k // 13) % 4``: every card equally often."""
    patches = np.zeros((n, *shape), np.uint8)
    ranks = np.zeros(n, np.int64)
    suits = np.zeros(n, np.int64)
    for i in range(n):
        k = start + i
        ranks[i], suits[i] = k % 13, (k // 13) % 4
        patches[i] = draw(int(ranks[i]), int(suits[i]))
    return patches, ranks, suits


def joined_patches(parts: list[Patches], shape: tuple[int, ...]) -> Patches:
    """The chunks' patches and targets in order (none: empty arrays of ``shape``)."""
    if not parts:
        return np.zeros((0, *shape), np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )


def _chunk(job: tuple[int, int, int, int, float, float, float]) -> Patches:
    seed, start, n, patch, context, off_colour, coarse = job
    fonts = system_fonts()
    rng = np.random.default_rng([seed, start])

    def draw(rank: int, suit: int) -> Pixels:
        return draw_index(
            rng, fonts, patch, context, rank=rank, suit=suit, off_colour=off_colour, coarse=coarse
        ).patch

    return balanced_patches(start, n, (patch, patch, 3), draw)


def font_index_patches(
    seed: int,
    n: int,
    patch: int,
    context: float,
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    off_colour: float = 0.0,
    coarse: float = 0.0,
) -> Patches:
    """``n`` drawn index patches with their rank and suit targets, every card equally often,
    ``off_colour`` of them printed in a colour unrelated to their suit, ``coarse`` of them
    filmed by a coarse camera.

    The same ``seed``, ``n``, ``off_colour`` and ``coarse`` give the same patches whatever
    ``workers`` is.
    """
    from assistant.synth.dataset import run_jobs

    system_fonts()  # fail here, not in a worker, when there are none
    jobs = [
        (seed, start, min(CHUNK, n - start), patch, context, off_colour, coarse)
        for start in range(0, n, CHUNK)
    ]
    parts = run_jobs(_chunk, jobs, workers, progress)
    return joined_patches(parts, (patch, patch, 3))


__all__ = [
    "COARSE_PX_PER_MM",
    "FONT_PACKAGES",
    "FontIndex",
    "FontSet",
    "NoFontsError",
    "Patches",
    "balanced_patches",
    "draw_index",
    "font_index_patches",
    "joined_patches",
    "odd_ink",
    "system_fonts",
]
