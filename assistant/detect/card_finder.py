"""Cards, backs and chip stacks of a whole photo with each card's four corners, in one pass.

The zone-trained stage 1 learnt cards upright at about 63 x 88 px, so a photo taken any
way round had to be searched view by view (:mod:`assistant.detect.photo`): dozens of
stage-1 runs over turned and scaled copies of the photo. The card finder is a YOLO pose
model trained on whole renders (mostly close-ups from a hand-held camera): it boxes each
card and puts a keypoint on each of its four corners, at any size the photo shows it, so
the photo search can read the card upright from its outline, its lean and the camera's
tilt undone.

A card looks the same turned half round, so its corners need an order that the picture
tells: of its two short sides the one higher in the photo is the top, and the corners go
top-left, top-right, bottom-right, bottom-left. That order is plain for a card whose
long side runs within 45 degrees of the photo's vertical and undefined for one lying
across, so the finder learnt to find only the first kind, and runs twice: on the photo
and on the photo turned a quarter, where the cards lying across stand up.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.backends import FloatArray, letterbox, names_from_meta, surest_classes
from assistant.detect.cpu_sessions import cpu_session
from assistant.detect.labels import FINDER_CLASSES
from assistant.detect.pipeline import CARD_FINDER_ONNX

__all__ = ["CORNERS", "FINDER_CLASSES", "CardFinder", "Outlines", "decode_outlines", "load_card_finder"]

Quads = npt.NDArray[np.float64]  # (N, 4, 2)
CORNERS = 4


@dataclass(frozen=True)
class Outlines:
    """What the finder found, in image pixels: axis-aligned ``boxes`` (N, 4), corner
    ``quads`` (N, 4, 2: top-left, top-right, bottom-right, bottom-left of a card standing
    up; meaningless for chip stacks), ``conf`` and ``cls`` (N,)."""

    boxes: npt.NDArray[np.float64]
    quads: Quads
    conf: FloatArray
    cls: npt.NDArray[np.int64]

    @classmethod
    def empty(cls) -> Outlines:
        return cls(
            np.zeros((0, 4), np.float64),
            np.zeros((0, CORNERS, 2), np.float64),
            np.zeros(0, np.float32),
            np.zeros(0, np.int64),
        )

    def __len__(self) -> int:
        return len(self.conf)

    def plus(self, other: Outlines) -> Outlines:
        return Outlines(
            np.concatenate([self.boxes, other.boxes]),
            np.concatenate([self.quads, other.quads]),
            np.concatenate([self.conf, other.conf]),
            np.concatenate([self.cls, other.cls]),
        )

    def turned_back(self, height: int) -> Outlines:
        """These outlines, found in a photo turned a quarter clockwise, in the photo as it
        was (``height``: the photo's height). A turn keeps the corners' order round each
        card, so the first two still end a short side."""
        quads = np.stack([self.quads[..., 1], height - self.quads[..., 0]], -1)
        x1, y1, x2, y2 = self.boxes.T
        boxes = np.stack([y1, height - x2, y2, height - x1], -1)
        return Outlines(boxes, quads, self.conf, self.cls)


def decode_outlines(raw: FloatArray, ratio: float, pad: tuple[int, int], conf: float, iou: float) -> Outlines:
    """Ultralytics' pose output (1, 4 + nc + 3 x corners, A): box centre and size, class
    scores, then each corner's x, y and visibility, in input pixels, to per-class NMS
    outlines in image pixels."""
    pred = raw[0].T
    nc = pred.shape[1] - 4 - 3 * CORNERS
    pred, cls, best = surest_classes(pred, pred[:, 4 : 4 + nc], conf)
    if len(best) == 0:
        return Outlines.empty()
    shift = np.array([pad[0], pad[1]], np.float64)
    cx, cy, w, h = (pred[:, k].astype(np.float64) for k in range(4))
    boxes = (np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1) - np.tile(shift, 2)) / ratio
    kpts = pred[:, 4 + nc :].reshape(-1, CORNERS, 3)[..., :2].astype(np.float64)
    quads = (kpts - shift) / ratio
    # per-class NMS in one call: each class's boxes are moved far from the others'
    far = float(np.abs(boxes).max() + 1)
    moved = boxes + (cls[:, None] * far)
    rects = np.column_stack([moved[:, :2], moved[:, 2:] - moved[:, :2]])
    kept = cv2.dnn.NMSBoxes(rects.tolist(), best.tolist(), conf, iou)
    idx = np.asarray(kept, dtype=np.int64).reshape(-1)
    return Outlines(boxes[idx], quads[idx], best[idx].astype(np.float32), cls[idx].astype(np.int64))


class CardFinder:
    """The exported card finder under ONNX Runtime (CPU)."""

    def __init__(
        self, path: Path, imgsz: int = 320, conf: float = 0.25, iou: float = 0.7, threads: int = 0
    ) -> None:
        self.session = cpu_session(path, threads)
        self.input = self.session.get_inputs()[0].name
        meta = self.session.get_modelmeta().custom_metadata_map
        if (
            meta.get("task", "pose") != "pose"
            or ast.literal_eval(meta.get("kpt_shape", "[4, 3]"))[0] != CORNERS
        ):
            raise ValueError(f"{path} is not a card finder (a pose model with a keypoint per card corner)")
        self.names = names_from_meta(meta, FINDER_CLASSES)
        self.imgsz, self.conf, self.iou = imgsz, conf, iou

    def run(self, image: npt.NDArray[np.uint8], size: int, conf: float, iou: float) -> Outlines:
        """One run over ``image`` as it lies, its long side brought to ``size`` input pixels."""
        blob, ratio, pad = letterbox(image, size)
        raw = self.session.run(None, {self.input: blob})[0]
        return decode_outlines(np.asarray(raw), ratio, pad, conf, iou)

    def find(
        self,
        image: npt.NDArray[np.uint8],
        size: int | None = None,
        conf: float | None = None,
        iou: float | None = None,
    ) -> Outlines:
        """Everything found in ``image`` and in ``image`` turned a quarter (where the cards
        lying across stand up), in ``image``'s pixels; ``size``, ``conf`` and ``iou`` default
        to the finder's own. The two runs' outlines of one thing are not merged here."""
        size, conf, iou = (
            size or self.imgsz,
            self.conf if conf is None else conf,
            self.iou if iou is None else iou,
        )
        upright = self.run(image, size, conf, iou)
        turned = self.run(np.ascontiguousarray(cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)), size, conf, iou)
        return upright.plus(turned.turned_back(image.shape[0]))


def load_card_finder(models: Path, threads: int = 0) -> CardFinder | None:
    """The model folder's card finder; None where it holds none (the photo search then
    searches view by view)."""
    path = models / CARD_FINDER_ONNX
    return CardFinder(path, threads=threads) if path.is_file() else None
