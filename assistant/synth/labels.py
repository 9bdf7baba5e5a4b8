"""Exact labels from scene geometry: YOLO boxes, per-object truth, index crops.

A card is labelled only when at least :data:`MIN_VISIBLE` of it shows (counted on the
object-id map, so cards under other cards, hands or outside the frame count as hidden);
a corner index only when :data:`MIN_INDEX_VISIBLE` of its box shows and it is at least
:data:`MIN_INDEX_PX` tall; rectified crops are written for indices from
:data:`MIN_CROP_PX` up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.synth.decks import DeckRecord
from assistant.synth.render import Rendered
from assistant.synth.scene import (
    CHIP_COLOURS,
    CHIP_RADIUS_CM,
    CHIP_THICKNESS_CM,
    CardItem,
    ChipStack,
    Scene,
)

Array = npt.NDArray[np.float64]

MIN_VISIBLE = 1 / 3
MIN_INDEX_VISIBLE = 0.7
MIN_INDEX_PX = 10.0
MIN_CROP_PX = 16.0  # smaller indices are labelled for the detector but too blurred to read
CROP_SIZE = (40, 64)  # width, height of a rectified index crop

#: YOLO classes of the two-stage detector.
CLASS_NAMES: tuple[str, ...] = ("card", "index", "face_down", *(f"chips_{c}" for c in CHIP_COLOURS))
CLASS_ID = {name: i for i, name in enumerate(CLASS_NAMES)}


@dataclass
class IndexTruth:
    corner: str
    quad: Array  # (4, 2) output pixels, in reading order of the printed index
    visible: float
    labelled: bool


@dataclass
class ObjectTruth:
    oid: int
    kind: str  # "card", "face_down", "chips"
    box: tuple[float, float, float, float] | None  # clipped to the image, pixels
    visible: float
    labelled: bool
    card: str | None = None
    corners: Array | None = None  # card corners (tl, tr, br, bl of the face) in pixels
    indices: list[IndexTruth] = field(default_factory=list)
    colour: str | None = None
    count: int = 0
    seat: int | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "kind": self.kind,
            "box": None if self.box is None else [round(v, 2) for v in self.box],
            "visible": round(self.visible, 4),
            "labelled": bool(self.labelled),
            "seat": self.seat,
        }
        if self.kind in ("card", "face_down"):
            out["card"] = self.card
            out["corners"] = None if self.corners is None else np.round(self.corners, 2).tolist()
            out["indices"] = [
                {
                    "corner": i.corner,
                    "quad": np.round(i.quad, 2).tolist(),
                    "visible": round(i.visible, 4),
                    "labelled": i.labelled,
                }
                for i in self.indices
            ]
        else:
            out["colour"] = self.colour
            out["count"] = self.count
        return out


def _outline(project: object, pts3: Array, steps: int = 8) -> Array:
    """Points along a closed polygon's edges (world), projected to pixels."""
    t = np.arange(steps, dtype=np.float64)[None, :, None] / steps
    edge = np.roll(pts3, -1, axis=0) - pts3
    dense = (pts3[:, None, :] + edge[:, None, :] * t).reshape(-1, 3)
    return project(dense)  # type: ignore[operator, no-any-return]


def _area(poly: Array) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return float(abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) / 2)


def _clip_box(pts: Array, w: int, h: int) -> tuple[float, float, float, float] | None:
    if not np.all(np.isfinite(pts)) or np.abs(pts).max() > 1e5:
        return None
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(float(w), x1), min(float(h), y1)
    if x1 - x0 < 1 or y1 - y0 < 1:
        return None
    return (float(x0), float(y0), float(x1), float(y1))


def _visible_in(ids: npt.NDArray[np.uint16], poly: Array, oid: int) -> float:
    """Fraction of ``poly`` (pixels, may leave the frame) covered by object ``oid``."""
    if not np.all(np.isfinite(poly)) or np.abs(poly).max() > 1e5:
        return 0.0  # partly behind the camera: not something to label
    area = _area(poly)
    if area < 1e-6:
        return 0.0
    h, w = ids.shape
    x0, y0 = np.floor(poly.min(axis=0)).astype(int)
    x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 1
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if cx1 <= cx0 or cy1 <= cy0:
        return 0.0
    mask = np.zeros((cy1 - cy0, cx1 - cx0), np.uint8)
    cv2.fillPoly(mask, [np.round((poly - [cx0, cy0]) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    own = np.count_nonzero(mask & (ids[cy0:cy1, cx0:cx1] == oid))
    return min(1.0, own / area)


def scene_truth(scene: Scene, rendered: Rendered, record: DeckRecord) -> list[ObjectTruth]:
    cam = scene.camera
    w, h = cam.width, cam.height
    counts = np.bincount(rendered.ids.ravel(), minlength=len(rendered.objects) + 1)
    out: list[ObjectTruth] = []
    for oid, obj in enumerate(rendered.objects, start=1):
        if isinstance(obj, CardItem):
            outline = _outline(cam.project, obj.corners())
            finite = bool(np.all(np.isfinite(outline)) and np.abs(outline).max() < 1e5)
            area = _area(outline) if finite else 0.0
            visible = min(1.0, counts[oid] / area) if area > 0 else 0.0
            box = _clip_box(outline, w, h)
            labelled = bool(box is not None and visible >= MIN_VISIBLE)
            truth = ObjectTruth(
                oid,
                "card" if obj.face_up else "face_down",
                box,
                float(visible),
                labelled,
                card=None if obj.card is None or not obj.face_up else str(obj.card),
                corners=outline[::8].copy() if finite else None,
                seat=obj.seat,
            )
            if (
                finite
                and obj.face_up
                and obj.card is not None
                and (record.court_index or not obj.card.rank.is_face)
            ):
                for corner in record.index_corners:
                    x0, y0, x1, y1 = record.index_box_at(corner)
                    uv = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
                    if corner in ("br", "bl"):  # printed upside down: read it rotated
                        uv = uv[[2, 3, 0, 1]]
                    quad_world = obj.points(uv)
                    poly = _outline(cam.project, quad_world, 4)
                    quad = poly[::4].copy()
                    vis = _visible_in(rendered.ids, poly, oid) if labelled else 0.0
                    tall = index_height(quad)
                    ok = (
                        labelled
                        and vis >= MIN_INDEX_VISIBLE
                        and tall >= MIN_INDEX_PX
                        and _clip_box(poly, w, h) is not None
                    )
                    truth.indices.append(IndexTruth(corner, quad, float(vis), bool(ok)))
            out.append(truth)
        elif isinstance(obj, ChipStack):
            n = 16
            t = np.linspace(0, 2 * np.pi, n, endpoint=False)
            ring = np.column_stack([np.cos(t), np.sin(t)]) * CHIP_RADIUS_CM + [obj.x, obj.y]
            bottom = np.column_stack([ring, np.full(n, obj.lift)])
            top = np.column_stack([ring, np.full(n, obj.lift + obj.count * CHIP_THICKNESS_CM)])
            pts = cam.project(np.vstack([bottom, top]))
            if not np.all(np.isfinite(pts)) or np.abs(pts).max() > 1e5:
                pts = np.zeros((3, 2))  # behind the camera: nothing to see
            hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2).astype(np.float64)
            area = _area(hull)
            visible = min(1.0, counts[oid] / area) if area > 0 else 0.0
            box = _clip_box(hull, w, h)
            out.append(
                ObjectTruth(
                    oid,
                    "chips",
                    box,
                    float(visible),
                    bool(box is not None and visible >= MIN_VISIBLE),
                    colour=obj.colour,
                    count=obj.count,
                    seat=obj.seat,
                )
            )
    return out


def yolo_lines(truths: list[ObjectTruth], w: int, h: int) -> list[str]:
    lines = []

    def line(cls: str, box: tuple[float, float, float, float]) -> str:
        x0, y0, x1, y1 = box
        cx, cy, bw, bh = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h
        return f"{CLASS_ID[cls]} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}"

    for t in truths:
        if not t.labelled or t.box is None:
            continue
        if t.kind == "chips":
            lines.append(line(f"chips_{t.colour}", t.box))
            continue
        lines.append(line(t.kind, t.box))
        for idx in t.indices:
            if idx.labelled:
                box = _clip_box(idx.quad, w, h)
                if box is not None:
                    lines.append(line("index", box))
    return lines


def index_height(quad: Array) -> float:
    """Height in pixels of an index quad (its longer left or right side)."""
    return float(max(np.linalg.norm(quad[3] - quad[0]), np.linalg.norm(quad[2] - quad[1])))


def index_crops(
    image: npt.NDArray[Any], truths: list[ObjectTruth], min_height: float = MIN_CROP_PX
) -> list[tuple[str, npt.NDArray[Any]]]:
    """Rectified crops of the labelled indices at least ``min_height`` px tall, upright."""
    crops = []
    cw, ch = CROP_SIZE
    dst = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    for t in truths:
        for idx in t.indices:
            if idx.labelled and t.card is not None and index_height(idx.quad) >= min_height:
                M = cv2.getPerspectiveTransform(idx.quad.astype(np.float32), dst)
                crop = cv2.warpPerspective(
                    image, M, (cw, ch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
                )
                crops.append((t.card, crop))
    return crops
