"""The stack finder's data: bet and pot zones cut out of the camera's own frame, chips boxed.

Each chip hand of :func:`assistant.synth.chip_zones.chip_shots` (oblique cameras, stacks
of 1 to 20 chips on the bet spots and in the pot) is filmed in ``shots`` stills; each
still's bet and pot zones are cut as the pipeline cuts them for the stack finder
(:class:`assistant.vision.zone_frames.ZoneFrames`, from the renderer's exact
calibration), and every stack the renderer labels (enough of it in view) whose box lies
mostly in the crop is boxed with its colour's class, as the zone writer boxes them. A
zone without any stack is kept now and then (:data:`EMPTY_KEEP`) so the finder learns
empty felt too.

The layout is :mod:`assistant.synth.dataset`'s (``images/SPLIT``, ``labels/SPLIT``,
``data.yaml`` with the detector's classes), so ``dealer-assistant train detector``
takes it unchanged. Hands are split by deck and surface: ``train`` and ``val``
(validation decks); the held-out decks are left to ``scripts/stack_evaluate.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from assistant.synth.chip_zones import CHIP_ZONES, chip_shots
from assistant.synth.dataset import run_jobs, split_of, write_data_yaml
from assistant.synth.labels import ObjectTruth, yolo_lines
from assistant.synth.zones import JPEG_QUALITY, zone_kind, zone_truths

if TYPE_CHECKING:
    from assistant.vision.zone_frames import FrameCrop

EMPTY_KEEP = 0.15


def crop_labels(truths: Sequence[ObjectTruth], crop: FrameCrop) -> list[str]:
    """YOLO lines of a frame crop: the frame's truths mapped into it as a zone crop's are
    (:func:`~assistant.synth.zones.zone_truths`: boxed where mostly inside)."""
    height, width = crop.image.shape[:2]
    return yolo_lines(zone_truths(truths, crop.points_from_frame, (width, height)), width, height)


def render_stack_frames(job: tuple[Path, int, int, str, int]) -> tuple[str, int, int]:
    """Write the bet and pot frame crops of chip hand ``index``; returns (split, crops, labels)."""
    from assistant.vision.zone_frames import ZoneFrames

    out, seed, index, split, shots = job
    rng = np.random.default_rng([seed, index, 47])
    images, labels = out / "images" / split, out / "labels" / split
    crops = boxes = 0
    for number, shot in enumerate(chip_shots(seed, index, split, shots)):
        frames = ZoneFrames(shot.calibration)
        keys = [k for k in frames.regions if zone_kind(k) in CHIP_ZONES]
        for crop in frames.cut(shot.image, keys):
            lines = crop_labels(shot.truths, crop)
            if not lines and rng.random() >= EMPTY_KEEP:
                continue
            name = f"s{seed}-{index:05d}_{number:04d}_{crop.key}"
            if not cv2.imwrite(
                str(images / f"{name}.jpg"), crop.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]
            ):
                raise OSError(f"cannot write {images / name}.jpg")
            (labels / f"{name}.txt").write_text("".join(f"{line}\n" for line in lines))
            crops, boxes = crops + 1, boxes + len(lines)
    return split, crops, boxes


def write_stack_frame_dataset(
    out: Path,
    hands: int,
    seed: int,
    *,
    shots: int = 5,
    val: float = 0.06,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Render ``hands`` chip hands (a ``val`` fraction on the validation decks) into a YOLO
    dataset of frame crops at ``out``; returns the run's summary (also in ``stack_frames.json``)."""
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    jobs = [(out, seed, i, split_of(i, hands, val, 0.0), shots) for i in range(hands)]
    crops = {"train": 0, "val": 0}
    boxes = 0
    for split, n, k in run_jobs(render_stack_frames, jobs, workers, progress):
        crops[split] += n
        boxes += k
    write_data_yaml(out)
    summary = {
        "kind": "stack frames",
        "seed": seed,
        "hands": hands,
        "shots": shots,
        "crops": crops,
        "labels": boxes,
    }
    (out / "stack_frames.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary
