"""A real deck's own faces, from photos of them: the design ``deck learn`` renders hands from.

``dealer-assistant deck learn`` tunes the models to one deck by dealing hands of it in the
renderer, which can only draw designs it has pictures of. A shop-bought deck is none of
``decks.json``'s, so ``deck scan`` makes its pictures from photos the dealer takes: the 52
faces laid out face up (a dozen to a photo, not touching) and, if wanted, one card face
down for the back.

Each photo goes through the card finder (``card_finder.onnx``: the four corners of every
card), and each face-up card is

- stood upright from its corners at :data:`~assistant.synth.facecache.FACE_HEIGHT` pixels,
  both ways up, and read both ways at the camera pipeline's 1 mm/px by the shipped readers
  (its searched corner indices, its strip and its face: :meth:`CardDetector.reading_at`);
  the way it reads surer is its upright;
- named, all faces at once, by the assignment of the 52 names to the faces that is likeliest
  under the readings (each name once: a face read unsurely takes the name no surer face
  claims). A face whose name is not at least :attr:`ScanSettings.sure` likely under its own
  reading is listed for the dealer to check on the folder's contact sheet (``sheet.png``);
  ``deck swap DIR A B`` swaps two faces' names;
- searched by stage 1 for its indices: the median index box over the faces, and the corners
  that print one on most faces, are where the renderer labels this design's indices.

Faces are written as ``Ah.png`` .. ``Ks.png`` (and ``back.png``: the photographed back, or
one drawn for the deck where none was photographed), BGRA with rounded corners, beside
``design.json`` (:func:`assistant.synth.decks.scanned_record` reads it). The folder is staged
as ``.NAME.scanning`` and renamed when complete: a failed scan leaves nothing behind.
"""

from __future__ import annotations

import itertools
import json
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.backends import box_iou
from assistant.detect.card_finder import CardFinder, Outlines, load_card_finder
from assistant.detect.corners import face_share
from assistant.detect.pipeline import MODELS_DIR, CardDetector, ImageError, Reading, read_image
from assistant.detect.staged import new_or_empty, staged_folder
from assistant.engine.cards import Card, Rank, Suit
from assistant.synth.decks import CORNERS, SCAN_FILE, Split
from assistant.synth.facecache import FACE_HEIGHT

Image = npt.NDArray[np.uint8]
Quad = npt.NDArray[np.float64]  # (4, 2): top-left, top-right, bottom-right, bottom-left
Found = tuple[list[Quad], float]  # a card's possible corners, likeliest first, and the finder's confidence

#: The 52 names in the contact sheet's order: a row per suit, ace to king.
NAMES: tuple[str, ...] = tuple(str(Card(rank, suit)) for suit in Suit for rank in Rank)
SHEET = "sheet.png"
BACK = "back.png"
BACK_CARD = "back"  # what `deck retake` calls the back
ZONE_CARD_H = 88.0  # a card's height in the camera pipeline's 1 mm/px zone crops
PATCH = (280, 170)  # the zone-scale patch a face is read in (w, h), its card in the middle
SUPERSAMPLE = 4  # a patch is warped this many times larger, then shrunk (no aliasing)
RANK_ORDER = "A23456789TJQK"


class DeckScanError(RuntimeError):
    """The photos do not make a deck: say why, and what to photograph again."""


@dataclass(frozen=True)
class ScanSettings:
    """How photos are searched and faces named (see the module's docstring)."""

    max_side: int = 1600  # a bigger photo is searched brought down to this long side
    finder_size: int = 640  # the card finder's input (long side)
    finder_conf: float = 0.3
    same_card_iou: float = 0.5  # the finder's two runs' outlines of one card overlap this much
    sure: float = 0.5  # a face named at least this likely needs no check by the dealer
    index_sure: float = 0.5  # the reader's index head: an index found where a corner is searched
    index_share: float = 0.4  # a corner prints an index where this share of faces shows one
    aspect: tuple[float, float] = (0.6, 0.76)  # width / height of the cards' faces, clipped to
    corner_radius: float = 0.05  # of the face's width: its rounded corners
    outline: bool = True  # corners from the card's outline in the photo (the finder's where unclear)
    min_face: float = 0.1  # a card showing less paper white in its top-left corner is a back
    card_aspect: tuple[float, float] = (0.5, 0.95)  # a card's outline, short side over long, in a photo
    card_area: tuple[float, float] = (0.5, 2.0)  # an outline's area over the photo's median card's


def surest(rank: npt.NDArray[np.float32], suit: npt.NDArray[np.float32]) -> float:
    """The likelihood of the name a reading reads best: its likeliest rank's times its
    likeliest suit's probability."""
    return float(rank.max() * suit.max())


@dataclass
class Face:
    """One face-up card found in a photo, stood upright."""

    photo: str
    quad: Quad  # its corners in the photo's pixels, upright face order
    confidence: float  # the finder's
    image: Image  # BGR, FACE_HEIGHT high
    rank: npt.NDArray[np.float32]  # probabilities over RANK_ORDER
    suit: npt.NDArray[np.float32]  # over "cdhs"
    indices: list[tuple[float, float, float, float]]  # its indices found, fractions of the face

    def likelihood(self, name: str) -> float:
        """How likely its reading says it is ``name``."""
        return float(self.rank[RANK_ORDER.index(name[0])] * self.suit["cdhs".index(name[1])])

    @property
    def surest(self) -> float:
        """The likelihood of the name it reads best (:attr:`read_as`)."""
        return surest(self.rank, self.suit)

    @property
    def read_as(self) -> str:
        return RANK_ORDER[int(self.rank.argmax())] + "cdhs"[int(self.suit.argmax())]


def distinct(outlines: Outlines, classes: set[int], iou: float) -> list[tuple[list[Quad], float]]:
    """The outlines of ``classes`` grouped one group per thing, surest first: those
    overlapping the group's surest by ``iou`` (the finder runs on the photo and on it turned
    a quarter; the run where a card lies across gives it worse corners, and not always less
    surely), with the surest's confidence."""
    order = np.argsort(-outlines.conf)
    groups: list[tuple[int, list[int]]] = []
    for k in order:
        if int(outlines.cls[k]) not in classes:
            continue
        for head, members in groups:
            if box_iou(outlines.boxes[k], outlines.boxes[head]) >= iou:
                members.append(int(k))
                break
        else:
            groups.append((int(k), [int(k)]))
    return [
        ([np.asarray(outlines.quads[k], np.float64) for k in members], float(outlines.conf[head]))
        for head, members in groups
    ]


def portrait(quad: Quad) -> Quad:
    """Four corners in order round a card, started so that the first side is a short one
    (top-left, top-right, bottom-right, bottom-left of the card standing up, or the card
    turned half round), clockwise on the image.

    >>> portrait(np.array([[0, 0], [88, 0], [88, 63], [0, 63.0]])).tolist()
    [[88.0, 0.0], [88.0, 63.0], [0.0, 63.0], [0.0, 0.0]]
    """
    q = np.asarray(quad, np.float64)
    centre = q.mean(0)
    q = q[np.argsort(np.arctan2(q[:, 1] - centre[1], q[:, 0] - centre[0]))]  # clockwise (y down)
    sides = np.linalg.norm(np.roll(q, -1, 0) - q, axis=1)
    return q if sides[0] + sides[2] <= sides[1] + sides[3] else np.roll(q, -1, axis=0)


def card_outline(photo: Image, quad: Quad) -> Quad | None:
    """The card's own outline near a finder's corners ``quad``: the bright paper told from
    the surface around it (Otsu's threshold in a window round the card), its outer contour
    simplified to four corners; None where that makes no card of about the finder's size
    (a card on a pale cloth, one touching another)."""
    h, w = photo.shape[:2]
    x1, y1 = quad.min(0)
    x2, y2 = quad.max(0)
    side = max(x2 - x1, y2 - y1)  # the finder's corners of a card lying across may be a card's width off
    mx = my = side * 0.5
    left, top = max(0, int(x1 - mx)), max(0, int(y1 - my))
    right, bottom = min(w, int(x2 + mx) + 1), min(h, int(y2 + my) + 1)
    if right - left < 16 or bottom - top < 16:
        return None
    window = cv2.cvtColor(photo[top:bottom, left:right], cv2.COLOR_BGR2GRAY)
    window = cv2.GaussianBlur(window, (5, 5), 0)
    paper = float(np.percentile(window, 95))
    for level in (None, 0.85 * paper, 0.7 * paper):  # Otsu's, then the paper's own brightness
        if level is None:
            mask = np.asarray(cv2.threshold(window, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1], np.uint8)
        else:
            mask = np.where(window >= level, 255, 0).astype(np.uint8)
        outline = _outline_in(mask, quad, (left, top))
        if outline is not None:
            return outline
    return None


def _outline_in(mask: Image, quad: Quad, origin: tuple[int, int]) -> Quad | None:
    """The four corners of the bright region of ``mask`` (a window whose top-left corner is
    ``origin`` in the photo) holding the middle of ``quad``, in photo pixels; None where it
    is not about the size of ``quad``'s card or not four-sided."""
    left, top = origin
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    centre = (float(quad[:, 0].mean() - left), float(quad[:, 1].mean() - top))
    held = [c for c in contours if cv2.pointPolygonTest(c, centre, False) >= 0]
    if not held:
        return None
    contour = max(held, key=cv2.contourArea)
    hull = cv2.convexHull(contour)
    area = float(cv2.contourArea(hull))
    expected = float(cv2.contourArea(quad.astype(np.float32)))
    # about the finder's card (whose corners of a card lying across may cover half of it),
    # and solid: not cards run together with a pale patch of the surface
    if not 0.6 * expected <= area <= 3.0 * expected or cv2.contourArea(contour) < 0.9 * area:
        return None
    corners = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    if len(corners) != 4:
        corners = cv2.boxPoints(cv2.minAreaRect(hull))
    if cv2.contourArea(np.asarray(corners, np.float32)) < 0.85 * area:
        return None
    return portrait(np.asarray(corners, np.float64) + np.array([left, top], np.float64))


def neutral(face: Image) -> Image:
    """A face picture white-balanced on its paper (the brightest tenth of its pixels made
    grey-white), so that every face of a deck has one colour of paper whatever the light of
    its photo; the renderer lights them again."""
    f = face.astype(np.float32)
    gray = f.mean(2)
    paper = f[gray >= np.percentile(gray, 90)].mean(0)
    gain = 240.0 / np.maximum(paper, 1.0)
    return np.asarray(np.clip(f * gain, 0, 255), np.uint8)


def card_shaped(
    found: list[tuple[list[Quad], float]], aspect: tuple[float, float], area: tuple[float, float]
) -> list[tuple[list[Quad], float]]:
    """Of each thing found (its outlines, likeliest first, and a confidence), the outlines
    shaped like one of the photo's cards: short side over long side within ``aspect``, area
    within ``area`` times the median outline's (the finder also outlines a patch of a
    patterned cloth; a card's own outline may take in a shadow); things with none are
    dropped, and of two with one middle, the surer is kept.

    >>> card = np.array([[0, 0], [63, 0], [63, 88], [0, 88.0]])
    >>> strip = np.array([[200, 0], [230, 0], [230, 88], [200, 88.0]])
    >>> found = [([card], 0.9), ([card + 1], 0.8), ([strip], 0.7), ([strip + 100, card + 100], 0.6)]
    >>> [(c, len(q), float(q[0][0, 0])) for q, c in card_shaped(found, (0.5, 0.95), (0.5, 2.0))]
    [(0.9, 1, 0.0), (0.6, 1, 100.0)]
    """
    if not found:
        return []

    def size(quad: Quad) -> float:
        return abs(float(cv2.contourArea(quad.astype(np.float32))))

    median = float(np.median([size(q) for quads, _ in found for q in quads]))
    kept: list[tuple[list[Quad], float]] = []
    for quads, conf in sorted(found, key=lambda f: -f[1]):
        fits = [
            q
            for q in quads
            if aspect[0] <= _aspect(q) <= aspect[1] and area[0] * median <= size(q) <= area[1] * median
        ]
        if fits and not any(same_place(fits[0], q[0]) for q, _ in kept):
            kept.append((fits, conf))
    return kept


def same_place(a: Quad, b: Quad) -> bool:
    """Whether two outlines are of one card: their middles lie within a quarter of the
    shorter one's short side.

    >>> card = np.array([[0, 0], [63, 0], [63, 88], [0, 88.0]])
    >>> same_place(card, card + 5), same_place(card, card + 40)
    (True, False)
    """
    short = min(float(np.linalg.norm(q[1] - q[0])) for q in (a, b))
    return bool(np.linalg.norm(a.mean(0) - b.mean(0)) <= 0.25 * short)


def face_size(aspect: float) -> tuple[int, int]:
    """A face's picture size (w, h) for cards of ``aspect`` (width / height)."""
    return max(8, round(FACE_HEIGHT * aspect)), FACE_HEIGHT


def stand_up(photo: Image, quad: Quad, size: tuple[int, int]) -> Image:
    """The card whose corners are ``quad`` warped upright to ``size`` (w, h) pixels."""
    w, h = size
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    return np.asarray(
        cv2.warpPerspective(photo, m, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    )


def zone_patch(photo: Image, quad: Quad, aspect: float) -> tuple[Image, tuple[float, float, float, float]]:
    """The card of ``quad`` upright at the camera pipeline's 1 mm/px in a :data:`PATCH`-sized
    patch of the photo around it, and where the card lies in the patch."""
    pw, ph = PATCH
    ch = ZONE_CARD_H
    cw = ch * aspect
    card = (pw / 2 - cw / 2, ph / 2 - ch / 2, pw / 2 + cw / 2, ph / 2 + ch / 2)
    k = SUPERSAMPLE
    x1, y1, x2, y2 = (v * k for v in card)
    target = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    big = cv2.warpPerspective(
        photo, m, (pw * k, ph * k), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    patch = np.asarray(cv2.resize(big, PATCH, interpolation=cv2.INTER_AREA), np.uint8)
    return patch, card


def searched_indices(
    detector: CardDetector, patch: Image, card: tuple[float, float, float, float], least: float
) -> list[tuple[float, float, float, float]]:
    """The card's top-left and bottom-right indices where the index reader, searching the
    places designs print them, is at least ``least`` sure of one: fractions of the card."""
    x1, y1, x2, y2 = card
    w, h = x2 - x1, y2 - y1
    out = []
    for corner in ("tl", "br"):
        box, sure = detector.likeliest_index(patch, card, corner)
        if sure >= least:
            out.append(((box[0] - x1) / w, (box[1] - y1) / h, (box[2] - x1) / w, (box[3] - y1) / h))
    return out


def ink_box(
    face: Image, near: tuple[float, float, float, float], grow: float = 0.35
) -> tuple[float, float, float, float] | None:
    """The printed index's own box on an upright face picture (BGR), as fractions: the ink
    (pixels much darker than the card's paper) in and around the box ``near`` (fractions; a
    coarse place, such as the reader's search gives), less the ink reaching far beyond it
    (frame lines, the picture); None where there is none."""
    h, w = face.shape[:2]
    x0, y0, x1, y1 = near
    gx, gy = (x1 - x0) * grow, (y1 - y0) * grow
    left, top = max(0, int((x0 - gx) * w)), max(0, int((y0 - gy) * h))
    right, bottom = min(w, int((x1 + gx) * w) + 1), min(h, int((y1 + gy) * h) + 1)
    if right - left < 3 or bottom - top < 3:
        return None
    gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    paper = float(np.percentile(gray, 90))
    ink = (gray[top:bottom, left:right] < 0.72 * paper).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    bw, bh = (x1 - x0) * w, (y1 - y0) * h
    least = max(3, int(0.02 * bw * bh))  # a speck: under 2% of the index box
    kept = []
    for k in range(1, count):
        cx, cy, cw, ch, area = (int(v) for v in stats[k])
        ax, ay = left + cx, top + cy
        sliver = min(ax, ay) <= 0 and min(cw, ch) <= max(2, 0.02 * w)  # the surface at the face's edge
        if area < least or cw > 1.2 * bw or ch > 1.2 * bh or sliver:
            continue  # a speck, a line or picture running beyond the index, the card's edge
        inside = max(0, min(ax + cw, x1 * w) - max(ax, x0 * w)) * max(
            0, min(ay + ch, y1 * h) - max(ay, y0 * h)
        )
        if inside >= 0.5 * cw * ch:
            kept.append((ax, ay, ax + cw, ay + ch))
    if not kept:
        return None
    a = np.asarray(kept, np.float64)
    return (a[:, 0].min() / w, a[:, 1].min() / h, a[:, 2].max() / w, a[:, 3].max() / h)


def corner_of(box: tuple[float, float, float, float]) -> str:
    """Which corner of the card an index box (fractions) lies in.

    >>> corner_of((0.03, 0.04, 0.16, 0.26)), corner_of((0.84, 0.74, 0.97, 0.96))
    ('tl', 'br')
    """
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return ("t" if cy < 0.5 else "b") + ("l" if cx < 0.5 else "r")


def into_top_left(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """An index box of any corner mirrored into the top-left one.

    >>> into_top_left((0.8, 0.7, 0.95, 0.9))
    (0.050000000000000044, 0.09999999999999998, 0.19999999999999996, 0.30000000000000004)
    """
    x0, y0, x1, y1 = box
    if (x0 + x1) / 2 > 0.5:
        x0, x1 = 1.0 - x1, 1.0 - x0
    if (y0 + y1) / 2 > 0.5:
        y0, y1 = 1.0 - y1, 1.0 - y0
    return (x0, y0, x1, y1)


def index_layout(
    faces: Sequence[Face], share: float
) -> tuple[tuple[float, float, float, float], tuple[str, ...]] | None:
    """The design's index box (the median of every face's, mirrored into the top-left
    corner) and the corners where at least ``share`` of the faces show one; None where no
    face shows an index."""
    boxes = [into_top_left(b) for f in faces for b in f.indices]
    if not boxes:
        return None
    box = _median_box(boxes)
    inked = [ink_box(f.image, box) for f in faces]  # the ink round the reader's coarse place
    found = [b for b in inked if b is not None]
    if len(found) >= share * len(faces):
        box = _median_box(found)
    seen = {c: sum(any(corner_of(b) == c for b in f.indices) for f in faces) for c in CORNERS}
    corners = tuple(c for c in CORNERS if seen[c] >= share * len(faces))
    return box, corners or (max(CORNERS, key=lambda c: seen[c]),)


def _median_box(boxes: Sequence[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    m = np.median(np.asarray(boxes, np.float64), axis=0)
    return (float(m[0]), float(m[1]), float(m[2]), float(m[3]))


def assign_names(faces: Sequence[Face]) -> dict[str, int]:
    """Each of the 52 names given to one face: the assignment likeliest under the faces'
    readings (the product over the faces of the likelihood of each face's name; a face
    beyond 52 may be none, as likely as its reading is unsure). Raises
    DeckScanError where fewer than 52 faces were found, naming what no face read as."""
    from scipy.optimize import linear_sum_assignment

    names = list(NAMES)
    cost = np.array([[-np.log(max(f.likelihood(n), 1e-12)) for n in names] for f in faces]).reshape(-1, 52)
    if len(faces) < len(names):  # the names no face claims: stand-ins that read as anything take them
        stand_ins = np.full((len(names) - len(faces), len(names)), -np.log(1.0 / len(names)))
        rows, cols = linear_sum_assignment(np.vstack([cost, stand_ins]))
        missing = sorted(
            (names[c] for r, c in zip(rows, cols, strict=True) if r >= len(faces)), key=NAMES.index
        )
        raise DeckScanError(
            f"found {len(faces)} face-up cards, not 52; the likeliest missing: {', '.join(missing)}. "
            "Photograph the missing cards too (face up, not touching) and scan all the photos again"
        )
    # a face may also be no card of the deck (a back, a joker, a card photographed twice):
    # as likely as its reading is unsure of the name it reads best
    top = np.array([f.surest for f in faces])
    none = -np.log(np.clip(1.0 - top, 1e-12, None))
    extra = len(faces) - len(names)
    rows, cols = linear_sum_assignment(np.hstack([cost, np.repeat(none[:, None], extra, axis=1)]))
    return {names[c]: int(r) for r, c in zip(rows, cols, strict=True) if c < len(names)}


def rounded_alpha(size: tuple[int, int], radius: float) -> Image:
    """A card's outline (w, h) with rounded corners of ``radius`` pixels, as an alpha channel."""
    w, h = size
    k = 4
    big = np.zeros((h * k, w * k), np.uint8)
    r = max(1, round(radius * k))
    cv2.rectangle(big, (r, 0), (w * k - 1 - r, h * k - 1), 255, -1)
    cv2.rectangle(big, (0, r), (w * k - 1, h * k - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * k - 1 - r, r), (r, h * k - 1 - r), (w * k - 1 - r, h * k - 1 - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    return np.asarray(cv2.resize(big, size, interpolation=cv2.INTER_AREA), np.uint8)


def with_outline(face: Image, alpha: Image) -> Image:
    return np.ascontiguousarray(np.dstack([face, alpha]), dtype=np.uint8)


def contact_sheet(folder: Path, unsure: set[str]) -> Image:
    """The folder's 52 faces in a row per suit, each under its name; those to check boxed red."""
    names = list(NAMES)
    first = cv2.imread(str(folder / f"{names[0]}.png"), cv2.IMREAD_COLOR)
    if first is None:
        raise OSError(f"cannot read {folder / names[0]}.png")
    h = 150
    w = max(8, round(first.shape[1] * h / first.shape[0]))
    pad, label = 6, 22
    cols, rows = 13, 4
    sheet = np.full((rows * (h + label + pad) + pad, cols * (w + pad) + pad, 3), 235, np.uint8)
    for k, name in enumerate(names):
        image = cv2.imread(str(folder / f"{name}.png"), cv2.IMREAD_COLOR)
        if image is None:
            raise OSError(f"cannot read {folder / name}.png")
        r, c = divmod(k, cols)
        x, y = pad + c * (w + pad), pad + r * (h + label + pad)
        sheet[y + label : y + label + h, x : x + w] = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
        colour = (0, 0, 220) if name in unsure else (30, 30, 30)
        cv2.putText(
            sheet, name, (x + 4, y + label - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2, cv2.LINE_AA
        )
        if name in unsure:
            cv2.rectangle(sheet, (x - 3, y + label - 3), (x + w + 2, y + label + h + 2), colour, 3)
    return sheet


class DeckScanner:
    """Finds, stands up and reads the cards in photos of a deck (see the module)."""

    def __init__(self, models: Path = MODELS_DIR, settings: ScanSettings | None = None) -> None:
        self.settings = settings or ScanSettings()
        finder = load_card_finder(models)
        if finder is None:
            raise DeckScanError(f"the model folder {models} holds no card finder (card_finder.onnx)")
        self.finder: CardFinder = finder
        self.detector = CardDetector.for_zones(models)
        names = self.finder.names
        self._card = {k for k, n in enumerate(names) if n == "card"}
        self._back = {k for k, n in enumerate(names) if n == "face_down"}

    def outlines(self, photo: Image) -> tuple[list[tuple[list[Quad], float]], list[tuple[list[Quad], float]]]:
        """The face-up cards and the backs in ``photo``: each with the corners it may have
        (its own outline in the photo first, then the finder's) and the finder's confidence."""
        s = self.settings
        shrink = min(1.0, s.max_side / max(photo.shape[:2]))
        small = photo
        if shrink < 1.0:
            size = (max(1, round(photo.shape[1] * shrink)), max(1, round(photo.shape[0] * shrink)))
            small = np.asarray(cv2.resize(photo, size, interpolation=cv2.INTER_AREA), np.uint8)
        found = self.finder.find(small, s.finder_size, s.finder_conf, 0.7)
        shaped = []
        for classes in (self._card, self._back):
            groups = distinct(found, classes, s.same_card_iou)
            shaped.append(
                card_shaped(
                    [(self._outlines(photo, [q / shrink for q in quads]), c) for quads, c in groups],
                    s.card_aspect,
                    s.card_area,
                )
            )
        cards, backs = shaped
        # a card outlined both ways is a face-up card (whose face then tells)
        backs = [(q, c) for q, c in backs if not any(same_place(q[0], k[0]) for k, _ in cards)]
        return cards, backs

    def _outlines(self, photo: Image, quads: list[Quad]) -> list[Quad]:
        """A card's possible corners, likeliest first: its own outline in the photo near the
        finder's surest corners (:func:`card_outline`), where the photo shows one clearly,
        then the finder's (whose corners of a card lying across the photo are often well off)."""
        outline = card_outline(photo, quads[0]) if self.settings.outline else None
        return quads if outline is None else [outline, *quads]

    def read(self, photo: Image, quads: list[Quad], aspect: float) -> tuple[Quad, Reading | None, Image, Any]:
        """The card read at each of its possible corners ``quads``, both ways up: the corners
        it reads surest at (the first of equals), its reading, its zone-scale patch and where
        the card lies there."""
        best: tuple[float, Quad, Reading | None, Image, Any] | None = None
        for quad, turn in itertools.product(quads, (0, 2)):
            q = np.roll(quad, -turn, axis=0)
            patch, card = zone_patch(photo, q, aspect)
            reading = self.detector.reading_at(patch, card)
            sure = -1.0 if reading is None else surest(*reading)
            if best is None or sure > best[0]:
                best = (sure, q, reading, patch, card)
        assert best is not None
        return best[1], best[2], best[3], best[4]

    def faces(
        self, photos: Sequence[Path], log: Callable[[str], None] = print, aspect: float | None = None
    ) -> tuple[list[Face], Image | None, float, list[str]]:
        """Every face-up card of ``photos`` stood upright and read, the surest back, the
        cards' aspect (``aspect`` where given, else the median of the cards' outlines), and a
        line per photo that could not be read (others go on)."""
        s = self.settings
        loaded: list[tuple[Path, Image, list[Found], list[Found]]] = []
        problems: list[str] = []
        for path in photos:
            try:
                photo = read_image(path)
            except ImageError as error:
                problems.append(str(error))
                continue
            cards, outlined = self.outlines(photo)
            log(f"{path}: {len(cards)} face-up cards, {len(outlined)} backs")
            loaded.append((path, photo, cards, outlined))
        if aspect is None:
            ratios = [_aspect(q[0]) for _, _, cards, _ in loaded for q, _ in cards]
            lo, hi = s.aspect
            aspect = float(np.clip(np.median(ratios), lo, hi)) if ratios else 63 / 88
        size = face_size(aspect)
        faces: list[Face] = []
        back: tuple[float, Image] | None = None
        for path, photo, cards, outlined_backs in loaded:
            backs: list[Found] = []
            # the finder takes many backs for faces and some dark faces for backs: the reading tells
            for quad, conf in [*cards, *outlined_backs]:
                upright, reading, patch, card = self.read(photo, quad, aspect)
                surely = reading is not None and surest(*reading) >= s.sure
                if not surely and face_share(patch, card) < s.min_face:
                    backs.append((quad, conf))
                    continue
                if reading is None:  # no index, strip or face read: not a face the readers know
                    log(f"{path}: a card at {np.round(quad[0].mean(0)).tolist()} reads as nothing; left out")
                    continue
                indices = searched_indices(self.detector, patch, card, s.index_sure)
                image = neutral(stand_up(photo, upright, size))
                faces.append(Face(str(path), upright, conf, image, reading[0], reading[1], indices))
            for quad, conf in backs:
                if back is None or conf > back[0]:
                    back = (conf, stand_up(photo, quad[0], size))
        return faces, None if back is None else back[1], aspect, problems


def _aspect(quad: Quad) -> float:
    """Short sides over long sides of four corners in order round a card."""
    sides = np.linalg.norm(np.roll(quad, -1, 0) - quad, axis=1)
    a, b = sides[0] + sides[2], sides[1] + sides[3]
    return float(min(a, b) / max(a, b, 1e-6))


def scan_deck(
    photos: Sequence[Path],
    out: Path,
    *,
    name: str = "",
    models: Path = MODELS_DIR,
    settings: ScanSettings | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Make the design of the deck in ``photos`` in folder ``out`` (new or empty) and return
    what ``design.json`` holds. Raises DeckScanError (and writes nothing) where the photos
    do not show 52 face-up cards or no face shows an index."""
    from assistant.synth.backs import drawn_back

    out = out.resolve()
    if not new_or_empty(out):
        raise DeckScanError(f"{out} exists and is not an empty folder; choose another --out")
    if not photos:
        raise DeckScanError("no photos given")
    scanner = DeckScanner(models, settings)
    s = scanner.settings
    faces, back, aspect, problems = scanner.faces(photos, log)
    for problem in problems:
        log(problem)
    named = assign_names(faces)
    layout = index_layout([faces[k] for k in named.values()], s.index_share)
    if layout is None:
        raise DeckScanError("stage 1 found no index on any face; photograph the cards closer and sharper")
    index_box, corners = layout
    size = face_size(aspect)
    alpha = rounded_alpha(size, s.corner_radius * size[0])
    records: dict[str, dict[str, Any]] = {}
    unsure: list[str] = []
    for card, k in named.items():
        f = faces[k]
        likely = f.likelihood(card)
        sure = likely >= s.sure
        if not sure:
            unsure.append(card)
        records[card] = {
            "photo": f.photo,
            "corners": np.round(f.quad, 1).tolist(),
            "likelihood": round(likely, 4),
            "read_as": f.read_as,
            "sure": sure,
        }
    used = set(named.values())
    if back is None:  # the finder took the back for a face: the unsurest face left without a name
        unnamed = [f for k, f in enumerate(faces) if k not in used and f.surest < s.sure]
        if unnamed:
            back = min(unnamed, key=lambda f: f.surest).image
    left = [
        {"photo": f.photo, "corners": np.round(f.quad, 1).tolist(), "read_as": f.read_as}
        for k, f in enumerate(faces)
        if k not in used
    ]
    design: dict[str, Any] = {
        "name": name or out.name,
        "index_box": [round(v, 4) for v in index_box],
        "index_corners": list(corners),
        "court_letters": "JQK",
        "suit_colours": 2,
        "split": Split.HELD_OUT.value,  # its hands are dealt on the surfaces no model trained on
        "aspect": round(aspect, 4),
        "photos": [str(p) for p in photos],
        "unreadable_photos": problems,
        "back": "photographed" if back is not None else "drawn",
        "faces": records,
        "to_check": sorted(unsure, key=NAMES.index),
        "left_out": left,
        "scanned_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    with staged_folder(out, "scanning") as staging:
        for card, k in named.items():
            _write(staging / f"{card}.png", with_outline(faces[k].image, alpha))
        if back is None:
            rng = np.random.default_rng(zlib.crc32(design["name"].encode()))
            _write(staging / BACK, drawn_back(rng, with_outline(faces[0].image, alpha)))
        else:
            _write(staging / BACK, with_outline(back, alpha))
        (staging / SCAN_FILE).write_text(json.dumps(design, indent=1) + "\n")
        _write(staging / SHEET, contact_sheet(staging, set(unsure)))
    return design


def _write(path: Path, image: Image) -> None:
    if not cv2.imwrite(str(path), image):
        raise OSError(f"cannot write {path}")


def _card_name(card: str) -> None:
    if card not in NAMES:
        raise DeckScanError(f"{card!r} is not a card name (rank A 2-9 T J Q K, suit c d h s: Qh, Td)")


def _save_design(
    folder: Path, design: dict[str, Any], pictures: dict[str, Image] | None = None
) -> dict[str, Any]:
    """Write a dealer's correction to the scanned deck ``folder``: its new ``pictures`` (file
    name: image) and ``design.json``, each staged beside its place and renamed once all are
    written, then the contact sheet. The renderer's small copies of the new pictures go
    (it makes them again on use). Returns ``design``."""
    pictures = pictures or {}
    # a staged picture keeps .png: the extension tells imwrite the format
    staged = {name: folder / f".{Path(name).stem}.saving.png" for name in pictures}
    staged[SCAN_FILE] = folder / f".{SCAN_FILE}.saving"
    try:
        for name, image in pictures.items():
            _write(staged[name], image)
        staged[SCAN_FILE].write_text(json.dumps(design, indent=1) + "\n")
        for name, stage in staged.items():
            stage.replace(folder / name)
    finally:
        for stage in staged.values():
            stage.unlink(missing_ok=True)
    for name in pictures:
        (folder / name).with_suffix(".small.png").unlink(missing_ok=True)
    _write(folder / SHEET, contact_sheet(folder, set(design.get("to_check", []))))
    return dict(design)


def swap_faces(folder: Path, a: str, b: str) -> dict[str, Any]:
    """Swap the names of two faces of a scanned deck (the dealer's correction of a misread):
    their pictures trade places, ``design.json`` and the contact sheet follow, and both
    count as checked. Returns the new ``design.json``."""
    from assistant.synth.decks import scanned_record

    scanned_record(folder)  # ValueError: no scanned deck there, or a damaged one
    for card in (a, b):
        _card_name(card)
    if a == b:
        raise DeckScanError("give two different cards to swap")
    design = json.loads((folder / SCAN_FILE).read_text("utf-8"))
    pa, pb = folder / f"{a}.png", folder / f"{b}.png"
    swap = folder / ".swap.png"
    pa.replace(swap)
    pb.replace(pa)
    swap.replace(pb)
    for small in folder.glob("*.small.png"):  # the renderer's small copies, made again on use
        small.unlink()
    faces = design.get("faces", {})
    faces[a], faces[b] = faces.get(b, {}), faces.get(a, {})
    for card in (a, b):
        faces[card]["sure"] = True
        faces[card]["checked_by_dealer"] = True
    design["to_check"] = [c for c in design.get("to_check", []) if c not in (a, b)]
    return _save_design(folder, design)


def retake_face(
    folder: Path,
    card: str,
    photo: Path,
    *,
    models: Path = MODELS_DIR,
    settings: ScanSettings | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Put the face of ``card`` in the scanned deck ``folder`` again, from a new ``photo``
    of it (face up, alone or beside a few other cards): the dealer's fix for a face the scan
    got wrong that ``deck swap`` cannot mend (a patch of cloth taken for a card, a face
    photographed badly). The photo's face likeliest to be ``card`` is taken; a lone face
    is taken whatever it reads as, as the dealer names it. ``card`` "back" takes the back
    from a photo of a card face down (a scan without one draws a back). The picture,
    ``design.json`` and the contact sheet are replaced together, and nothing changes when
    the photo shows no such card. Returns the new ``design.json``."""
    from assistant.synth.decks import scanned_record

    scanned_record(folder)  # ValueError: no scanned deck there, or a damaged one
    if card != BACK_CARD:
        _card_name(card)
    design = json.loads((folder / SCAN_FILE).read_text("utf-8"))
    aspect = design.get("aspect")
    if not isinstance(aspect, int | float) or not 0.4 <= aspect <= 1.0:
        raise DeckScanError(f"{folder / SCAN_FILE} is damaged: its aspect is not a card's; scan it anew")
    scanner = DeckScanner(models, settings)
    faces, back, _, problems = scanner.faces([photo], log, aspect=aspect)
    if problems:
        raise DeckScanError(problems[0])
    size = face_size(aspect)  # faces and backs are stood up at the design's size
    alpha = rounded_alpha(size, scanner.settings.corner_radius * size[0])
    if card == BACK_CARD:
        picture, target = with_outline(_retaken_back(photo, back, faces, log), alpha), BACK
        design["back"], design["back_photo"] = "photographed", str(photo)
    else:
        face = _retaken_face(card, photo, faces, log)
        picture, target = with_outline(face.image, alpha), f"{card}.png"
        design.setdefault("faces", {})[card] = {
            "photo": str(photo),
            "corners": np.round(face.quad, 1).tolist(),
            "likelihood": round(face.likelihood(card), 4),
            "read_as": face.read_as,
            "sure": True,
            "checked_by_dealer": True,
            "retaken": True,
        }
        design["to_check"] = [c for c in design.get("to_check", []) if c != card]
    design.setdefault("photos", []).append(str(photo))
    return _save_design(folder, design, {target: picture})


def _retaken_back(
    photo: Path, back: Image | None, faces: Sequence[Face], log: Callable[[str], None]
) -> Image:
    """The back in ``photo``: the card the scan takes for one, else a lone card (many
    backs are pictures the readers read as a face; the dealer names it the back)."""
    if back is not None:
        return back
    if len(faces) == 1:
        log(f"{photo}: the card reads as {faces[0].read_as}; it is taken as the back, as the dealer names it")
        return faces[0].image
    if not faces:
        raise DeckScanError(f"{photo}: no card found; photograph a card face down on a plain cloth")
    raise DeckScanError(f"{photo}: {len(faces)} cards and none face down; photograph one face down, alone")


def _retaken_face(card: str, photo: Path, faces: Sequence[Face], log: Callable[[str], None]) -> Face:
    """The face of ``photo`` that is ``card``: the one likeliest to be it, read as it where
    the photo shows several, any lone face (the dealer names it)."""
    if not faces:
        raise DeckScanError(
            f"{photo}: no face-up card found; photograph {card} face up on a plain, dark cloth"
        )
    face = max(faces, key=lambda f: f.likelihood(card))
    if len(faces) > 1 and face.read_as != card:
        raise DeckScanError(
            f"{photo}: {len(faces)} face-up cards and none reads as {card} "
            f"(the likeliest reads as {face.read_as}); photograph {card} alone"
        )
    if face.read_as != card:
        log(f"{photo}: the face reads as {face.read_as}; it is taken as {card}, as the dealer names it")
    return face
