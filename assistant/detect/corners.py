"""Corner indices found by geometry when stage 1 saw a card but none of its indices.

A face-up card is a bright rectangle: inside its box, Otsu's threshold separates the
face from the table, the largest outline's minimum-area rectangle gives the card's four
corners, and the indices sit at known fractions of the card near two opposite corners
(``INDEX_BOX``, the median over the deck designs in ``assistant/synth/decks.json``).
This works for a card that lies alone; on a pile the outline merges and it gives up
(returns ``None``) rather than guess.

In an upright zone crop a card's box is its outline, so its top-left index lies at a
known place in the box (:func:`upright_index_boxes`), covered or not by the next card of
a row; whether that corner shows a card's face at all (and not a back taken for a card)
is told by how much of it is plain card-face white (:func:`face_share`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.crops import Box

FloatArray = npt.NDArray[np.float64]

#: Where the top-left index of an upright card lies in its box (fractions of its width
#: and height): wide enough for the decks' spread of index sizes (``decks.json``).
UPRIGHT_INDEX_BOX = (0.02, 0.03, 0.19, 0.27)
UPRIGHT_SHIFTS = (-2.0, 0.0, 2.0)  # pixels: a card box wobbles by about this much
#: The part of an upright card's box that its top-left index and the white around it fill.
FACE_WINDOW = (0.03, 0.03, 0.2, 0.3)
FACE_MAX_SATURATION = 70
FACE_MIN_BRIGHTNESS = 0.7  # of the crop's brightest (99th percentile) value

#: Index box as fractions of the card (x across the short side, y along the long side).
INDEX_BOX = (0.03, 0.035, 0.165, 0.26)
CARD_ASPECT = 88 / 63
PAD = 0.06


def card_quad(image: npt.NDArray[np.uint8], box: Box) -> FloatArray | None:
    """The card's corners (4, 2), clockwise, starting at a corner whose next edge is short."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    if w < 8 or h < 8:
        return None
    px, py = PAD * w, PAD * h
    ih, iw = image.shape[:2]
    ax, ay = max(0, math.floor(x1 - px)), max(0, math.floor(y1 - py))
    bx, by = min(iw, math.ceil(x2 + px)), min(ih, math.ceil(y2 + py))
    roi = image[ay:by, ax:bx]
    if roi.size == 0:
        return None
    gray = cv2.GaussianBlur(cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    outline = max(contours, key=cv2.contourArea)
    if cv2.contourArea(outline) < 0.3 * w * h:
        return None
    rect = cv2.minAreaRect(outline)
    (rw, rh) = rect[1]
    if min(rw, rh) < 4:
        return None
    aspect = max(rw, rh) / min(rw, rh)
    if not 1.1 <= aspect <= 1.9:
        return None  # not one card's shape: two cards merged, or a fragment
    pts = cv2.boxPoints(rect).astype(np.float64) + np.array([ax, ay], np.float64)
    return order_corners(pts)


def order_corners(pts: FloatArray) -> FloatArray:
    """Clockwise on screen (y down), starting where the next edge is the short one."""
    c = pts.mean(axis=0)
    pts = pts[np.argsort(np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0]))]
    if np.linalg.norm(pts[1] - pts[0]) > np.linalg.norm(pts[3] - pts[0]):
        pts = np.roll(pts, -1, axis=0)
    return pts


def index_boxes(quad: FloatArray) -> list[tuple[float, float, float, float]]:
    """Axis-aligned boxes of the two diagonal corner indices of a card ``quad``."""
    out = []
    u0, v0, u1, v1 = INDEX_BOX
    for k in (0, 2):
        origin = quad[k]
        eu = quad[(k + 1) % 4] - origin  # along the short edge
        ev = quad[(k + 3) % 4] - origin  # along the long edge
        corners = np.array([origin + u * eu + v * ev for u in (u0, u1) for v in (v0, v1)])
        out.append(
            (
                float(corners[:, 0].min()),
                float(corners[:, 1].min()),
                float(corners[:, 0].max()),
                float(corners[:, 1].max()),
            )
        )
    return out


def upright_index_boxes(
    box: Box, shifts: tuple[float, ...] = UPRIGHT_SHIFTS, corner: str = "tl"
) -> list[Box]:
    """Candidate boxes of the ``corner`` ("tl" or "br") index of an upright card whose box
    is ``box``: the top-left index, or the bottom-right one printed upside down.

    >>> upright_index_boxes((0, 0, 63, 88), shifts=(0.0,))
    [(1.26, 2.64, 11.97, 23.76)]
    >>> upright_index_boxes((0, 0, 63, 88), shifts=(0.0,), corner="br")
    [(51.03, 64.24, 61.74, 85.36)]
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    u0, v0, u1, v1 = UPRIGHT_INDEX_BOX
    if corner == "br":
        u0, v0, u1, v1 = 1 - u1, 1 - v1, 1 - u0, 1 - v0
    a, b, c, d = x1 + u0 * w, y1 + v0 * h, x1 + u1 * w, y1 + v1 * h
    return [tuple(round(v, 2) for v in (a + dx, b + dy, c + dx, d + dy)) for dx in shifts for dy in shifts]


#: Index sizes and places searched for where stage 1 found a card but no index on it:
#: heights as shares of the card's height (the designs print indices from about 15 to
#: 31 mm tall on an 88 mm card), the index's top-left corner as shares of the card's
#: width and height, and its width as a share of its height (rank over pip).
SEARCH_HEIGHTS = (0.18, 0.23, 0.28, 0.35)
SEARCH_ORIGINS = ((0.02, 0.025), (0.045, 0.025), (0.02, 0.05), (0.045, 0.05))
INDEX_ASPECT = 0.45


def upright_index_candidates(box: Box, corner: str = "tl") -> list[tuple[float, float, float, float]]:
    """Boxes an upright card's ``corner`` index may fill, one per size and place searched
    (:data:`SEARCH_HEIGHTS` x :data:`SEARCH_ORIGINS`): designs print their indices at
    sizes and offsets far apart, so the reader looks at each.

    >>> len(upright_index_candidates((0, 0, 63, 88)))
    16
    >>> upright_index_candidates((0, 0, 63, 88))[0]
    (1.26, 2.2, 8.39, 18.04)
    >>> upright_index_candidates((0, 0, 63, 88), corner="br")[0]
    (54.61, 69.96, 61.74, 85.8)
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    out: list[tuple[float, float, float, float]] = []
    for height in SEARCH_HEIGHTS:
        ih = height * h
        iw = INDEX_ASPECT * ih
        for u, v in SEARCH_ORIGINS:
            a, b = x1 + u * w, y1 + v * h
            if corner == "br":  # the same place seen from the opposite corner
                a, b = x2 - u * w - iw, y2 - v * h - ih
            out.append((round(a, 2), round(b, 2), round(a + iw, 2), round(b + ih, 2)))
    return out


def face_share(image: npt.NDArray[np.uint8], box: Box) -> float:
    """Share of an upright card box's top-left corner that is card-face white, 0..1.

    A card lying face up shows white paper around its index there; a back (a picture, a
    pattern) does not, whatever stage 1 took it for.
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    u0, v0, u1, v1 = FACE_WINDOW
    ih, iw = image.shape[:2]
    a, b = max(0, int(x1 + u0 * w)), max(0, int(y1 + v0 * h))
    c, d = min(iw, math.ceil(x1 + u1 * w)), min(ih, math.ceil(y1 + v1 * h))
    if c <= a or d <= b:
        return 0.0
    value = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    bright = float(np.percentile(value[..., 2], 99))
    window = value[b:d, a:c]
    white = (window[..., 1] < FACE_MAX_SATURATION) & (window[..., 2] > FACE_MIN_BRIGHTNESS * bright)
    return float(white.mean())
