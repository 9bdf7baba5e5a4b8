"""The card finder's training data: a ``synth dataset`` relabelled with each card's corners.

The finder (:mod:`assistant.detect.card_finder`) is a YOLO pose model: a box and four
corner keypoints per face-up or face-down card, a box per chip stack. A card looks the
same turned half round, so the corners are put in an order the picture tells: of the
card's two short sides the one whose middle lies higher in the image is the top, and the
corners go top-left, top-right, bottom-right, bottom-left. That order is plain only for a
card whose long side runs within 45 degrees of the image's vertical, so only those cards
are labelled; each training image is written a second time turned a quarter clockwise,
where the cards lying across stand up and are labelled in their turn. (At run time the
finder looks at the photo and at the photo turned a quarter.)

The images are linked, not copied, where the file system allows it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from assistant.detect.labels import FINDER_CLASSES

Corners = npt.NDArray[np.float64]  # (4, 2): going round a card, the first two ending a short side
KEYPOINTS = 4
JPEG_QUALITY = 92
SPLITS = ("train", "val", "test")


def stands_up(corners: Corners) -> bool:
    """Whether a card's long side runs within 45 degrees of the image's vertical."""
    d = corners[[2, 3]].mean(0) - corners[[0, 1]].mean(0)
    return bool(abs(d[1]) >= abs(d[0]))


def corner_order(corners: Corners) -> Corners:
    """The corners top-left, top-right, bottom-right, bottom-left, the top being the short
    side whose middle lies higher in the image.

    >>> corner_order(np.array([[10.0, 90], [0, 90], [0, 0], [10, 0]])).tolist()
    [[0.0, 0.0], [10.0, 0.0], [10.0, 90.0], [0.0, 90.0]]
    """
    a, b = corners[[0, 1]], corners[[2, 3]]
    if a[:, 1].mean() > b[:, 1].mean():
        a, b = b, a
    top = a[np.argsort(a[:, 0], kind="stable")]
    bottom = b[np.argsort(-b[:, 0], kind="stable")]
    return np.vstack([top, bottom])


def turned_a_quarter(truth: dict[str, Any]) -> dict[str, Any]:
    """An image truth for the image turned 90 degrees clockwise: (x, y) -> (H - y, x)."""
    w, h = truth["size"]
    objects = []
    for o in truth["objects"]:
        o = dict(o)
        if o.get("box") is not None:
            x1, y1, x2, y2 = o["box"]
            o["box"] = [h - y2, x1, h - y1, x2]
        if o.get("corners") is not None:
            o["corners"] = [[h - y, x] for x, y in o["corners"]]
        objects.append(o)
    return {**truth, "size": [h, w], "objects": objects}


def pose_lines(truth: dict[str, Any]) -> tuple[list[str], int]:
    """The YOLO pose label lines of one image truth, and how many labelled cards were left
    out for lying across."""
    w, h = truth["size"]
    lines, across = [], 0
    for o in truth["objects"]:
        if not o["labelled"] or o.get("box") is None:
            continue
        keypoints = np.zeros((KEYPOINTS, 3))
        if o["kind"] in ("card", "face_down"):
            corners = np.asarray(o["corners"], np.float64)
            if not stands_up(corners):
                across += 1
                continue
            cls = FINDER_CLASSES.index(o["kind"])
            ordered = corner_order(corners)
            inside = (ordered[:, 0] >= 0) & (ordered[:, 0] <= w) & (ordered[:, 1] >= 0) & (ordered[:, 1] <= h)
            keypoints[:, :2] = np.where(inside[:, None], ordered / [w, h], 0.0)
            keypoints[:, 2] = np.where(inside, 2.0, 0.0)  # a corner off the image is not labelled
        elif o["kind"] == "chips":
            cls = FINDER_CLASSES.index(f"chips_{o['colour']}")
        else:
            continue
        x1, y1, x2, y2 = o["box"]
        if x2 <= x1 or y2 <= y1:
            continue
        box = [(x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h]
        lines.append(" ".join([str(cls), *(f"{v:.6f}" for v in [*box, *keypoints.reshape(-1)])]))
    return lines, across


def write_finder_dataset(
    source: Path, out: Path, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Relabel the ``synth dataset`` at ``source`` (its ``truth`` folders) into ``out``;
    returns the summary written to ``out/finder.json``."""
    truths = {s: sorted((source / "truth" / s).glob("*.json")) for s in SPLITS}
    if not any(truths.values()):
        raise FileNotFoundError(f"{source / 'truth'} holds no image truths: write it with `synth dataset`")
    total, done = sum(len(t) for t in truths.values()), 0
    summary: dict[str, Any] = {"source": str(source), "images": {}, "cards": 0, "cards_across": 0}
    for split, paths in truths.items():
        if not paths:
            continue
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        written = 0
        for path in paths:
            truth = json.loads(path.read_text())
            image = source / "images" / split / truth["image"]
            _link(image, out / "images" / split / image.name)
            variants = [(path.stem, truth)]
            if split == "train":
                turned = out / "images" / split / f"{path.stem}_q{image.suffix}"
                if not turned.exists():
                    pixels = cv2.imread(str(image))
                    if pixels is None:
                        raise OSError(f"cannot read {image}")
                    cv2.imwrite(
                        str(turned),
                        cv2.rotate(pixels, cv2.ROTATE_90_CLOCKWISE),
                        [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY],
                    )
                variants.append((turned.stem, turned_a_quarter(truth)))
            for stem, t in variants:
                lines, across = pose_lines(t)
                (out / "labels" / split / f"{stem}.txt").write_text("".join(f"{line}\n" for line in lines))
                summary["cards"] += sum(1 for line in lines if int(line.split()[0]) < 2)
                summary["cards_across"] += across
                written += 1
            done += 1
            if progress is not None:
                progress(done, total)
        summary["images"][split] = written
    names = "".join(f"  {i}: {n}\n" for i, n in enumerate(FINDER_CLASSES))
    splits = "".join(f"{s}: images/{s}\n" for s in SPLITS if truths[s])
    (out / "data.yaml").write_text(
        f"path: {out.resolve()}\n{splits}kpt_shape: [{KEYPOINTS}, 3]\nnames:\n{names}"
    )
    (out / "finder.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def _write_turned(image: Path, turned: Path) -> None:
    if turned.exists():
        return
    pixels = cv2.imread(str(image))
    if pixels is None:
        raise OSError(f"cannot read {image}")
    quarter = cv2.rotate(pixels, cv2.ROTATE_90_CLOCKWISE)
    if not cv2.imwrite(str(turned), quarter, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]):
        raise OSError(f"cannot write {turned}")


def _link(src: Path, dst: Path) -> None:
    if dst.exists():
        return
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)
