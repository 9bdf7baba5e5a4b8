"""Stack views with their true counts: the stack counter's training and test data.

Each chip hand of :func:`assistant.synth.chip_zones.chip_shots` (oblique cameras, stacks
of 1 to 20 chips on the bet spots and in the pot) is filmed in ``shots`` stills; every
stack that the camera sees well enough (labelled, at least :data:`MIN_VISIBLE` of it in
view, its box clear of the frame's edge, one chip adding at least
:data:`~assistant.vision.stack_view.READABLE_SIDE_PX` to its image) gives ``copies``
views (:func:`assistant.vision.stack_view.stack_view`), each cut around a base moved off
the true one, towards or away from the camera and a little across, as a detector's box
would place it. The camera
model is the one the pipeline has, recovered from the exact calibration's homography.

Written as ``OUT/stacks_SPLIT.npz``: ``views`` (N, 160, 32, 3) uint8 BGR, ``counts``,
``side_px`` (pixels one chip spans in the frame), ``deck`` and ``surface`` per view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import numpy.typing as npt

from assistant.synth.chip_zones import ChipShot, chip_shots
from assistant.synth.scene import CHIP_RADIUS_CM, CHIP_THICKNESS_CM, ChipStack

MIN_VISIBLE = 0.8  # as the chip metrics judge stacks (assistant.detect.evaluate.judged_stacks)
#: How far off the true base each view is cut: uniform up to this towards or away from
#: the camera (where stage-1 boxes of smeared stacks err most: 5-15 mm measured), normal
#: with this deviation across.
BASE_SHIFT_MM = 15.0
BASE_ACROSS_MM = 3.0
EDGE_PX = 1.0


@dataclass
class StackViews:
    views: npt.NDArray[np.uint8]
    counts: npt.NDArray[np.int64]
    side_px: npt.NDArray[np.float32]
    deck: list[str]
    surface: list[str]

    def __len__(self) -> int:
        return len(self.counts)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            path,
            views=self.views,
            counts=self.counts,
            side_px=self.side_px,
            deck=np.array(self.deck),
            surface=np.array(self.surface),
        )

    @classmethod
    def load(cls, path: Path) -> StackViews:
        try:
            with np.load(path) as z:
                return cls(
                    z["views"],
                    z["counts"],
                    z["side_px"],
                    [str(d) for d in z["deck"]],
                    [str(s) for s in z["surface"]],
                )
        except (OSError, KeyError, ValueError) as error:
            raise ValueError(f"{path} is not a stack-view file: {error}") from error

    @classmethod
    def join(cls, sets: list[StackViews]) -> StackViews:
        from assistant.vision.stack_view import VIEW_SIZE

        width, height = VIEW_SIZE
        return cls(
            np.concatenate([s.views for s in sets]) if sets else np.zeros((0, height, width, 3), np.uint8),
            np.concatenate([s.counts for s in sets]) if sets else np.zeros(0, np.int64),
            np.concatenate([s.side_px for s in sets]) if sets else np.zeros(0, np.float32),
            [d for s in sets for d in s.deck],
            [f for s in sets for f in s.surface],
        )


def stack_base_mm(stack: ChipStack) -> tuple[float, float]:
    """Where a rendered stack stands, in table millimetres (the renderer works in world cm)."""
    return stack.x * 10.0, -stack.y * 10.0


def well_seen_stacks(shot: ChipShot) -> list[ChipStack]:
    """The stacks of a still that the camera shows whole: labelled, at least
    :data:`MIN_VISIBLE` of them in view, their box clear of the frame's edge."""
    height, width = shot.image.shape[:2]
    out = []
    truths = [t for t in shot.truths if t.kind == "chips"]
    for stack, truth in zip(shot.stacks, truths, strict=True):
        if not truth.labelled or truth.box is None or truth.visible < MIN_VISIBLE:
            continue
        x1, y1, x2, y2 = truth.box
        if min(x1, y1) > EDGE_PX and x2 < width - EDGE_PX and y2 < height - EDGE_PX:
            out.append(stack)
    return out


def stack_table_box(shot: ChipShot, stack: ChipStack) -> tuple[float, float, float, float]:
    """A stack's exact box on the table plane (mm): its rims as the camera sees them, mapped
    back onto the table as a zone crop maps them (what a perfect stage 1 would find)."""
    angles = np.linspace(0.0, 2.0 * np.pi, 72, endpoint=False)
    rims = [
        (stack.x + CHIP_RADIUS_CM * np.cos(a), stack.y + CHIP_RADIUS_CM * np.sin(a), z)
        for a in angles
        for z in (stack.lift, stack.lift + stack.count * CHIP_THICKNESS_CM)
    ]
    table = shot.calibration.to_table(shot.camera.project(np.array(rims)))
    (x1, y1), (x2, y2) = table.min(axis=0), table.max(axis=0)
    return float(x1), float(y1), float(x2), float(y2)


def hand_stack_views(job: tuple[int, int, str, int, int]) -> StackViews:
    """The views of chip hand ``index``: ``copies`` per well-seen stack of every shot."""
    from assistant.vision.stack_view import readable, side_px, stack_view, toward_camera
    from assistant.vision.stacks import camera_model

    seed, index, split, shots, copies = job
    rng = np.random.default_rng([seed, index, 43])
    views, counts, sides, decks, surfaces = [], [], [], [], []
    for shot in chip_shots(seed, index, split, shots):
        model = camera_model(shot.calibration)
        for stack in well_seen_stacks(shot):
            base = np.array(stack_base_mm(stack))
            if not readable(model, (float(base[0]), float(base[1]))):
                continue
            toward = toward_camera(model, (float(base[0]), float(base[1])))
            if toward is None:
                continue
            across = np.array([-toward[1], toward[0]])
            for _ in range(copies):
                moved = (
                    base
                    + rng.uniform(-BASE_SHIFT_MM, BASE_SHIFT_MM) * toward
                    + rng.normal(0.0, BASE_ACROSS_MM) * across
                )
                view = stack_view(shot.image, shot.calibration, (float(moved[0]), float(moved[1])), model)
                if view is None:
                    continue
                views.append(view)
                counts.append(stack.count)
                sides.append(side_px(model, (float(base[0]), float(base[1]))))
                decks.append(shot.deck)
                surfaces.append(str(shot.surface.get("name", "")))
    if not views:
        return StackViews.join([])
    return StackViews(
        np.stack(views),
        np.array(counts, np.int64),
        np.array(sides, np.float32),
        decks,
        surfaces,
    )


def write_stack_views(
    out: Path,
    split: str,
    hands: int,
    seed: int,
    *,
    shots: int = 5,
    copies: int = 2,
    workers: int = 2,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Render ``hands`` chip hands of ``split`` and write their views to ``OUT/stacks_SPLIT.npz``."""
    jobs = [(seed, i, split, shots, copies) for i in range(hands)]
    parts: list[StackViews] = []
    if workers > 1:
        with get_context("spawn").Pool(workers) as pool:
            for done, part in enumerate(pool.imap(hand_stack_views, jobs), 1):
                parts.append(part)
                if progress is not None:
                    progress(done, hands)
    else:
        for done, job in enumerate(jobs, 1):
            parts.append(hand_stack_views(job))
            if progress is not None:
                progress(done, hands)
    path = out / f"stacks_{split}.npz"
    StackViews.join(parts).save(path)
    return path
