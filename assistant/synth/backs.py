"""Card backs drawn at random: patterns, pictures and borders no installed deck prints.

Stage 1 learns what a back is from the backs of the training decks, a couple of dozen
designs, and takes some unseen picture backs for face-up cards (stop 27,
``models/README.md``). A hand rendered with ``synth zones --random-backs`` deals its
cards with one back drawn here instead of its deck's: a ground colour with a lattice,
stripes, dots, checks, a scatter of shapes or a marbled noise over it, often a light
or coloured border, often a medallion in the middle, and often point-symmetric as most
printed backs are. Nothing on it is a corner index or a pip column, so it never looks
like a face.

>>> import numpy as np
>>> like = np.zeros((360, 252, 4), np.uint8)
>>> like[5:-5, 5:-5, 3] = 255
>>> back = drawn_back(np.random.default_rng(0), like)
>>> back.shape, back.dtype, int(back[0, 0, 3]), int(back[180, 126, 3])
((360, 252, 4), dtype('uint8'), 0, 255)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]
Colour = tuple[int, int, int]
#: draws a pattern in an ink colour over a panel (BGR, in place)
Pattern = Callable[[np.random.Generator, Image, Colour], None]


def _colour(rng: np.random.Generator, *, light: bool | None = None) -> Colour:
    """A BGR colour: any hue; dark to bright unless ``light`` says which."""
    hue = int(rng.integers(0, 180))
    sat = int(rng.integers(40, 256))
    if light is None:
        val = int(rng.integers(60, 256))
    elif light:
        val, sat = int(rng.integers(200, 256)), int(rng.integers(0, 90))
    else:
        val = int(rng.integers(40, 170))
    hsv = np.array([[[hue, sat, val]]], np.uint8)
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


def _lattice(rng: np.random.Generator, canvas: Image, ink: Colour) -> None:
    h, w = canvas.shape[:2]
    step = int(rng.integers(6, 28))
    thick = int(rng.integers(1, max(2, step // 3)))
    angle = math.radians(float(rng.uniform(20, 70)))
    diag = h + w
    for sign in (1, -1):
        dx, dy = math.cos(angle) * diag, sign * math.sin(angle) * diag
        for k in range(-diag, diag, step):
            p = (k, 0) if sign > 0 else (k, h)
            cv2.line(canvas, p, (int(p[0] + dx), int(p[1] + dy)), ink, thick, cv2.LINE_AA)


def _stripes(rng: np.random.Generator, canvas: Image, ink: Colour) -> None:
    h, w = canvas.shape[:2]
    step = int(rng.integers(5, 30))
    thick = int(rng.integers(1, max(2, step // 2)))
    angle = math.radians(float(rng.choice([0.0, 45.0, 90.0, 135.0, float(rng.uniform(0, 180))])))
    diag = h + w
    ux, uy = math.cos(angle), math.sin(angle)
    for k in range(-diag, diag, step):
        cx, cy = w / 2 - uy * k, h / 2 + ux * k
        a = (int(cx - ux * diag), int(cy - uy * diag))
        b = (int(cx + ux * diag), int(cy + uy * diag))
        cv2.line(canvas, a, b, ink, thick, cv2.LINE_AA)


def _dots(rng: np.random.Generator, canvas: Image, ink: Colour) -> None:
    h, w = canvas.shape[:2]
    step = int(rng.integers(8, 32))
    radius = max(1, int(step * float(rng.uniform(0.15, 0.45))))
    for row, y in enumerate(range(0, h + step, step)):
        shift = step // 2 if row % 2 else 0
        for x in range(-step, w + step, step):
            cv2.circle(canvas, (x + shift, y), radius, ink, -1, cv2.LINE_AA)


def _checks(rng: np.random.Generator, canvas: Image, ink: Colour) -> None:
    h, w = canvas.shape[:2]
    size = int(rng.integers(5, 30))
    ys, xs = np.mgrid[0:h, 0:w]
    mask = ((ys // size + xs // size) % 2).astype(bool)
    canvas[mask] = ink
    if rng.random() < 0.5:  # a plaid: lines of a third colour across the squares
        third = _colour(rng)
        for k in range(0, max(h, w), size * 2):
            cv2.line(canvas, (0, k), (w, k), third, 1)
            cv2.line(canvas, (k, 0), (k, h), third, 1)


def _shapes(rng: np.random.Generator, canvas: Image, ink: Colour) -> None:
    """A picture of sorts: a gradient and a scatter of ellipses, polygons and curves."""
    h, w = canvas.shape[:2]
    top, bottom = np.array(_colour(rng), np.float32), np.array(_colour(rng), np.float32)
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    canvas[:] = (top * (1 - t) + bottom * t).astype(np.uint8)
    for _ in range(int(rng.integers(6, 30))):
        colour = ink if rng.random() < 0.3 else _colour(rng)
        kind = rng.integers(0, 3)
        cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
        size = int(rng.integers(max(3, w // 30), max(4, w // 3)))
        if kind == 0:
            axes = (size, int(size * float(rng.uniform(0.3, 1.0))))
            cv2.ellipse(canvas, (cx, cy), axes, float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)
        elif kind == 1:
            n = int(rng.integers(3, 8))
            points = np.array(
                [[cx + rng.integers(-size, size + 1), cy + rng.integers(-size, size + 1)] for _ in range(n)],
                np.int32,
            )
            cv2.fillPoly(canvas, [points], colour, cv2.LINE_AA)
        else:
            points = np.array(
                [[cx + rng.integers(-size, size + 1), cy + rng.integers(-size, size + 1)] for _ in range(5)],
                np.int32,
            )
            cv2.polylines(canvas, [points], False, colour, int(rng.integers(1, 6)), cv2.LINE_AA)


def _marble(rng: np.random.Generator, canvas: Image, ink: Colour) -> None:
    """Smoothed noise between the ground colour and the ink."""
    h, w = canvas.shape[:2]
    coarse = rng.random((max(2, h // int(rng.integers(8, 40))), max(2, w // int(rng.integers(8, 40)))))
    field = cv2.resize(coarse.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    field = np.clip(field, 0, 1)[:, :, None]
    if rng.random() < 0.5:  # veins: where the field crosses a level
        field = (np.abs(np.sin(field * float(rng.uniform(6, 20)))) ** 0.3).astype(np.float32)
    ground = canvas.astype(np.float32)
    canvas[:] = (ground * (1 - field) + np.array(ink, np.float32) * field).astype(np.uint8)


PATTERNS: tuple[Pattern, ...] = (
    _lattice,
    _stripes,
    _dots,
    _checks,
    _shapes,
    _marble,
)


def _panel(rng: np.random.Generator, h: int, w: int) -> Image:
    """The patterned panel of a back, ``h`` x ``w`` BGR."""
    panel = np.empty((h, w, 3), np.uint8)
    panel[:] = _colour(rng)
    pattern = PATTERNS[int(rng.integers(0, len(PATTERNS)))]
    pattern(rng, panel, _colour(rng))
    if rng.random() < 0.4:  # a medallion in the middle
        axes = (int(w * rng.uniform(0.15, 0.4)), int(h * rng.uniform(0.1, 0.3)))
        cv2.ellipse(panel, (w // 2, h // 2), axes, 0, 0, 360, _colour(rng), -1, cv2.LINE_AA)
        if rng.random() < 0.6:
            inner = (max(1, int(axes[0] * 0.7)), max(1, int(axes[1] * 0.7)))
            cv2.ellipse(panel, (w // 2, h // 2), inner, 0, 0, 360, _colour(rng), -1, cv2.LINE_AA)
    if rng.random() < 0.6:  # point-symmetric, as most printed backs are
        top = panel[: (h + 1) // 2].copy()
        panel[h // 2 :] = np.rot90(top, 2)[: h - h // 2]
    return panel


def drawn_back(rng: np.random.Generator, like: Image) -> Image:
    """A back drawn at random, BGRA, the size of ``like`` (a deck's back) and cut to its
    outline (``like``'s alpha: rounded corners)."""
    h, w = like.shape[:2]
    out = np.empty((h, w, 3), np.uint8)
    border = rng.random()
    if border < 0.6:  # a margin, mostly the card's white, inside its outline
        out[:] = _colour(rng, light=True) if rng.random() < 0.8 else _colour(rng)
        m = max(1, int(w * float(rng.uniform(0.03, 0.1))))
        out[m : h - m, m : w - m] = _panel(rng, h - 2 * m, w - 2 * m)
        if rng.random() < 0.5:  # a frame line around the panel
            cv2.rectangle(out, (m, m), (w - m - 1, h - m - 1), _colour(rng), int(rng.integers(1, 4)))
    else:
        out[:] = _panel(rng, h, w)
    if rng.random() < 0.5:  # printed ink is never crisp at card scale
        out = np.asarray(cv2.GaussianBlur(out, (3, 3), 0), np.uint8)
    alpha = like[:, :, 3:4] if like.ndim == 3 and like.shape[2] == 4 else np.full((h, w, 1), 255, np.uint8)
    return np.ascontiguousarray(np.concatenate([out, alpha], axis=2), dtype=np.uint8)
