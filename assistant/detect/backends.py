"""Stage-1 backends: the exported ONNX model under ONNX Runtime, or ultralytics as a fallback.

Both take a BGR image and return :class:`Boxes` in the image's own pixel coordinates.
The ONNX path does its own letterbox and non-maximum suppression, so a detection needs
neither torch nor ultralytics at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.cpu_sessions import cpu_session
from assistant.detect.labels import DETECTOR_CLASSES

FloatArray = npt.NDArray[np.float32]
STRIDE = 32
PAD_VALUE = 114


CONTAINED = 0.8  # share of a box's area inside a surer box of its class that makes it a duplicate


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two (x1, y1, x2, y2) boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def inside_share(a: Sequence[float], b: Sequence[float]) -> float:
    """The share of box ``a``'s area that lies inside box ``b``."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return float(ix * iy / max((a[2] - a[0]) * (a[3] - a[1]), 1e-6))


@dataclass
class Boxes:
    """Detections of one image: ``xyxy`` (N, 4) pixels, ``conf`` (N,), ``cls`` (N,)."""

    xyxy: FloatArray
    conf: FloatArray
    cls: npt.NDArray[np.int64]

    @classmethod
    def empty(cls) -> Boxes:
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.conf)

    def select(self, mask: npt.NDArray[np.bool_]) -> Boxes:
        return Boxes(self.xyxy[mask], self.conf[mask], self.cls[mask])

    def plus(self, other: Boxes) -> Boxes:
        """These boxes and ``other``'s, in one set (no suppression)."""
        return Boxes(
            np.concatenate([self.xyxy, other.xyxy]).astype(np.float32),
            np.concatenate([self.conf, other.conf]).astype(np.float32),
            np.concatenate([self.cls, other.cls]).astype(np.int64),
        )

    def without_contained(self, classes: set[int], share: float = CONTAINED) -> Boxes:
        """Drop a box of ``classes`` lying mostly (``share`` of its area) inside a surer box
        of one of ``classes``: a sliver of a card is not another card, and a card is not
        face up and face down at once. Cards in a row or a fan overlap by less (a whole
        card's box shows at least a third beyond the next one).

        >>> b = Boxes(np.array([[0, 20, 63, 111], [42, 24, 67, 110], [35, 20, 98, 111]], np.float32),
        ...           np.array([0.9, 0.4, 0.8], np.float32), np.array([2, 2, 2]))
        >>> b.without_contained({2}).xyxy[:, 0].tolist()
        [0.0, 35.0]
        """
        order = np.argsort(-self.conf, kind="stable")
        keep = np.ones(len(self), bool)
        for rank, i in enumerate(order):
            if int(self.cls[i]) not in classes:
                continue
            for j in order[:rank]:
                if not keep[j] or int(self.cls[j]) not in classes:
                    continue
                if inside_share(self.xyxy[i], self.xyxy[j]) > share:
                    keep[i] = False
                    break
        return self.select(keep)


class Backend(Protocol):
    names: tuple[str, ...]

    def __call__(self, image: npt.NDArray[np.uint8], scale: float = 1.0) -> Boxes:
        """Stage-1 boxes in ``image``'s pixels; ``scale`` shrinks or enlarges the input size."""
        ...


def letterbox(image: npt.NDArray[np.uint8], size: int) -> tuple[FloatArray, float, tuple[int, int]]:
    """Resize the long side to ``size``, pad to a multiple of 32; NCHW RGB in 0..1."""
    h, w = image.shape[:2]
    r = size / max(h, w)
    nw, nh = max(1, round(w * r)), max(1, round(h * r))
    interp = cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image, (nw, nh), interpolation=interp) if (nw, nh) != (w, h) else image
    pw, ph = -nw % STRIDE, -nh % STRIDE
    left, top = pw // 2, ph // 2
    padded = cv2.copyMakeBorder(
        resized, top, ph - top, left, pw - left, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
    )
    blob = padded[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return np.ascontiguousarray(blob), r, (left, top)


def input_size(shape: tuple[int, ...], imgsz: int, min_scale: float | None) -> int:
    """Stage 1's input size (long side) for an image of ``shape``: ``imgsz``, or more
    where that would shrink the image below ``min_scale`` input pixels per image pixel.

    >>> input_size((130, 280), 320, 320 / 280), input_size((170, 344), 320, 320 / 280)
    (320, 393)
    >>> input_size((720, 1280), 640, None)
    640
    """
    if not min_scale:
        return imgsz
    return max(imgsz, round(max(shape[:2]) * min_scale))


def surest_classes(
    pred: FloatArray, scores: FloatArray, conf: float
) -> tuple[FloatArray, npt.NDArray[np.int64], FloatArray]:
    """The anchors (rows of ``pred``) whose surest class scores at least ``conf``: those
    rows, their class and its score."""
    cls = scores.argmax(1)
    best = scores[np.arange(len(cls)), cls]
    keep = best >= conf
    return pred[keep], cls[keep].astype(np.int64), best[keep]


def decode(
    raw: FloatArray,
    ratio: float,
    pad: tuple[int, int],
    conf: float,
    iou: float,
    image_size: tuple[int, int],
) -> Boxes:
    """Ultralytics' (1, 4 + nc, A) output to per-class NMS boxes in image pixels."""
    pred = raw[0].T  # (A, 4 + nc)
    pred, cls, best = surest_classes(pred, pred[:, 4:], conf)
    if len(best) == 0:
        return Boxes.empty()
    cx, cy, bw, bh = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    xyxy = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1)
    xyxy -= np.array([pad[0], pad[1], pad[0], pad[1]], np.float32)
    xyxy /= ratio
    h, w = image_size
    xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, w)
    xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, h)
    # per-class NMS: offset each class far apart, one OpenCV call
    offset = (cls[:, None] * (max(h, w) + 1)).astype(np.float32)
    shifted = xyxy + offset
    rects = np.column_stack([shifted[:, :2], shifted[:, 2:] - shifted[:, :2]])
    kept = cv2.dnn.NMSBoxes(rects.tolist(), best.tolist(), conf, iou)
    idx = np.asarray(kept, dtype=np.int64).reshape(-1)
    return Boxes(xyxy[idx].astype(np.float32), best[idx].astype(np.float32), cls[idx].astype(np.int64))


class _SizedStage1:
    """What both backends share: the input size and confidence they run at by default."""

    imgsz: int
    conf: float
    min_scale: float | None

    def __call__(self, image: npt.NDArray[np.uint8], scale: float = 1.0) -> Boxes:
        size = max(STRIDE, round(input_size(image.shape, self.imgsz, self.min_scale) * scale))
        return self.run(image, size, self.conf)

    def run(self, image: npt.NDArray[np.uint8], size: int, conf: float) -> Boxes:
        raise NotImplementedError


class OnnxDetector(_SizedStage1):
    """The exported detector under ONNX Runtime (CPU)."""

    def __init__(
        self,
        path: Path,
        imgsz: int = 640,
        conf: float = 0.25,
        iou: float = 0.6,
        threads: int = 0,
        min_scale: float | None = None,
    ) -> None:
        self.session = cpu_session(path, threads)
        self.input = self.session.get_inputs()[0].name
        meta = self.session.get_modelmeta().custom_metadata_map
        self.names = names_from_meta(meta)
        self.imgsz, self.conf, self.iou, self.min_scale = imgsz, conf, iou, min_scale

    def run(self, image: npt.NDArray[np.uint8], size: int, conf: float) -> Boxes:
        """Stage 1 at input size ``size`` (long side), boxes from confidence ``conf`` on."""
        blob, ratio, pad = letterbox(image, size)
        raw = self.session.run(None, {self.input: blob})[0]
        return decode(np.asarray(raw), ratio, pad, conf, self.iou, image.shape[:2])


class UltralyticsDetector(_SizedStage1):
    """Fallback: the ``.pt`` weights through ultralytics (imports torch)."""

    def __init__(
        self,
        path: Path,
        imgsz: int = 640,
        conf: float = 0.25,
        iou: float = 0.6,
        min_scale: float | None = None,
    ) -> None:
        from assistant.detect.train_detector import offline_environment

        offline_environment()
        from ultralytics.models.yolo.model import YOLO

        self.model = YOLO(str(path), task="detect")
        names = self.model.names
        self.names = tuple(names[i] for i in sorted(names))
        self.imgsz, self.conf, self.iou, self.min_scale = imgsz, conf, iou, min_scale

    def run(self, image: npt.NDArray[np.uint8], size: int, conf: float) -> Boxes:
        """Stage 1 at input size ``size`` (ultralytics rounds it up to a multiple of 32)."""
        results: Any = self.model.predict(
            image, imgsz=size, conf=conf, iou=self.iou, verbose=False, device="cpu"
        )
        b: Any = results[0].boxes
        assert b is not None
        return Boxes(
            b.xyxy.numpy().astype(np.float32),
            b.conf.numpy().astype(np.float32),
            b.cls.numpy().astype(np.int64),
        )


def names_from_meta(meta: dict[str, Any], fallback: tuple[str, ...] = DETECTOR_CLASSES) -> tuple[str, ...]:
    """Class names from ultralytics' ONNX metadata (a Python dict literal); ``fallback``
    where it holds none."""
    try:
        names = ast.literal_eval(meta["names"])
        return tuple(names[i] for i in sorted(names))
    except (KeyError, ValueError, SyntaxError):
        return fallback
