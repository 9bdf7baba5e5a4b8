"""Chip-focused zone crops: bet and pot zones full of stacks, seen by oblique cameras.

The zone writer of :mod:`assistant.synth.zones` renders whole hands with cameras that
look down on the table, so nearly every stack it shows is seen from above (one chip more
adds under :data:`~assistant.detect.reader_data.MIN_CHIP_PX` of side) and no stack holds
more than :data:`~assistant.synth.table.STACK_MAX` chips. The chip reader needs the
other case too. Here each hand (a random table, deck and surface of the split, as
:func:`~assistant.synth.zones.random_script` draws them) is shown in ``shots`` stills,
each with its own camera (lower and more oblique: tilted 25-70 degrees from vertical, nearer the table),
light and chips: every seat's bet zone and the pot hold stacks of 1 to
:data:`CHIP_STACK_MAX` chips of any of the seven colours. Only the bet and pot zones
are cut (by the pipeline's own rectifier, from the renderer's exact calibration) and
written, with every stack's ``side_px`` (pixels one chip's thickness spans, in the
camera's frame), in the layout and file naming of :mod:`assistant.synth.zones`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assistant.synth.camera import Camera
from assistant.synth.dataset import deck_faces
from assistant.synth.effects import sample_light
from assistant.synth.labels import ObjectTruth, scene_truth
from assistant.synth.render import render
from assistant.synth.scene import CHIP_COLOURS, ChipStack, Scene
from assistant.synth.table import Table, true_calibration
from assistant.synth.video import VideoRenderer
from assistant.synth.zones import (
    ZONE_MM_PER_PX,
    codec_loss,
    random_script,
    write_zone_crops,
    zone_kind,
)

Array = npt.NDArray[np.float64]

CHIP_STACK_MAX = 20  # the chip reader's largest count
CHIP_ZONES = ("bet", "pot")  # the zones whose crops are written
TILT_DEG = (25.0, 70.0)  # camera tilt from vertical: from above to oblique
DISTANCE = (0.45, 1.0)  # camera distance over the distance that fits the whole table in view


def chip_camera(table: Table, size: tuple[int, int], rng: np.random.Generator) -> Camera:
    """A camera of random field of view, tilt and height that sees most of the table."""
    width, height = size
    hfov = float(rng.uniform(50.0, 72.0))
    vfov = 2 * math.atan(math.tan(math.radians(hfov) / 2) * height / width)
    fit = max(table.a / math.tan(math.radians(hfov) / 2), table.b / math.tan(vfov / 2))
    return Camera.looking_at(
        width,
        height,
        hfov_deg=hfov,
        target=(float(rng.normal(0, 4)), float(rng.normal(0, 4))),
        distance=fit * float(rng.uniform(*DISTANCE)),
        tilt_deg=float(rng.uniform(*TILT_DEG)),
        yaw_deg=float(rng.uniform(-180, 180)),
        k1=float(rng.uniform(0.0, 0.08)),
    )


def random_stacks(table: Table, rng: np.random.Generator) -> list[ChipStack]:
    """Stacks of 1..CHIP_STACK_MAX chips of random colours on bet spots and in the pot."""
    colours = list(CHIP_COLOURS)
    spots: list[tuple[npt.NDArray[np.float64], int | None]] = []
    for seat in table.seats:
        for k in range(int(rng.integers(0, 4))):
            spots.append((table.bet_spot(seat) + seat.ex * 4.3 * k, seat.seat))
    for k in sorted(rng.choice(24, size=int(rng.integers(0, 9)), replace=False)):
        spots.append((table.pot_spot(int(k)), None))
    stacks = []
    for p, owner in spots:
        jitter = rng.normal(0.0, 0.25, 2)
        stacks.append(
            ChipStack(
                colours[int(rng.integers(len(colours)))],
                int(rng.integers(1, CHIP_STACK_MAX + 1)),
                float(p[0] + jitter[0]),
                float(p[1] + jitter[1]),
                1000,
                phase=float(rng.uniform(0, 2 * math.pi)),
                seat=owner,
            )
        )
    return stacks


@dataclass
class ChipShot:
    """One still of a chip hand: the frame as the camera saw it, and what is in it."""

    image: npt.NDArray[np.uint8]
    camera: Camera
    calibration: Any  # the camera's exact Calibration over the table
    stacks: list[ChipStack]
    truths: list[ObjectTruth]  # every object's truth in frame pixels
    deck: str
    surface: dict[str, Any]


def chip_shots(seed: int, index: int, split: str, shots: int) -> Iterator[ChipShot]:
    """The ``shots`` stills of chip hand ``index`` of ``split``: each with its own oblique
    camera, light and stacks, on the hand's table, deck and surface."""
    rng = np.random.default_rng([seed, index, 29])
    script = random_script(seed, index, split)
    vr = VideoRenderer(script)  # the hand's table, deck and surface
    faces = deck_faces(vr.record)
    table = vr.table
    deck_cards = table.items()[0]  # the deck lying face down
    for shot in range(shots):
        camera = chip_camera(table, script.size, rng)
        light = sample_light(rng, strong=bool(rng.random() < 0.5))
        light["jpeg"] = 0.0
        stacks = random_stacks(table, rng)
        scene = Scene(
            camera,
            vr.surface,
            vr.record.id,
            list(deck_cards),
            stacks,
            [],
            [],
            (table.a, table.b),
            light,
            table.decals,
        )
        rendered = render(scene, faces, np.random.default_rng([seed, index, 31, shot]))
        image = codec_loss(rendered.image, rng)
        truths = scene_truth(scene, rendered, vr.record)
        yield ChipShot(
            image,
            camera,
            true_calibration(table, camera),
            stacks,
            truths,
            vr.record.id,
            vr.surface.to_json(),
        )


def render_chip_hand(job: tuple[Path, int, int, str, int]) -> tuple[str, int, int]:
    """Render ``shots`` chip stills of hand ``index``; returns (split, crops, labels)."""
    from assistant.vision.rectify import ZoneRectifier

    out, seed, index, split, shots = job
    crops = labels = 0
    for number, shot in enumerate(chip_shots(seed, index, split, shots)):
        rectifier = ZoneRectifier(shot.calibration, mm_per_px=ZONE_MM_PER_PX)
        keys = [k for k in rectifier.zones if zone_kind(k) in CHIP_ZONES]
        n, k = write_zone_crops(
            out / "images" / split,
            f"s{seed}-{index:05d}_{number:04d}",
            rectifier.rectify(shot.image, keys),
            shot.calibration,
            shot.truths,
            {
                "deck": shot.deck,
                "surface": shot.surface,
                "frame": number,
                "camera": shot.camera.to_json(),
            },
            keep=lambda zone: any(t.labelled and t.kind == "chips" for t in zone),
        )
        crops, labels = crops + n, labels + k
    return split, crops, labels
