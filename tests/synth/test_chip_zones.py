"""Chip-focused zone crops (``synth zones --chips``): bet and pot zones of stacks of 1-20
chips, many seen from the side by oblique cameras, each with its side in pixels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.detect.reader_data import MIN_CHIP_PX
from assistant.synth.chip_zones import CHIP_STACK_MAX, chip_camera, random_stacks
from assistant.synth.scene import CHIP_COLOURS
from assistant.synth.script import script_from_autoplay
from assistant.synth.table import Table


@pytest.fixture(scope="module")
def chip_set(tmp_path_factory: pytest.TempPathFactory, decks_installed: None) -> Path:
    from assistant.synth.zones import write_zone_dataset

    out = tmp_path_factory.mktemp("chips")
    summary = write_zone_dataset(out, 2, 11, val=0, test=0.5, chip_shots=2)
    assert summary["kind"] == "chip zones" and summary["chip_shots"] == 2
    return out


def _stacks(root: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [
        (truth, obj)
        for path in sorted(root.glob("truth/*/*.json"))
        for truth in [json.loads(path.read_text())]
        for obj in truth["objects"]
        if obj["kind"] == "chips"
    ]


def test_chip_scenes_write_only_bet_and_pot_zones_that_hold_stacks(chip_set: Path) -> None:
    truths = [json.loads(p.read_text()) for p in sorted(chip_set.glob("truth/*/*.json"))]
    assert truths
    for truth in truths:
        assert truth["zone"].split(".")[-1] in ("bet", "pot")
        assert any(o["kind"] == "chips" and o["labelled"] for o in truth["objects"])
        assert len(list(chip_set.glob(f"labels/*/{Path(truth['image']).stem}.txt"))) == 1


def test_every_stack_of_a_chip_scene_carries_its_side_in_camera_pixels(chip_set: Path) -> None:
    stacks = _stacks(chip_set)
    assert all("side_px" in obj for _, obj in stacks)
    sides = np.array([obj["side_px"] for _, obj in stacks if obj["labelled"]])
    assert (sides >= MIN_CHIP_PX).sum() > 0.3 * len(sides)  # many stacks show their side


def test_held_out_chip_scenes_use_held_out_decks_and_surfaces(chip_set: Path) -> None:
    from assistant.synth.decks import Split, load_records

    held_out = {r.id for r in load_records() if r.split is Split.HELD_OUT}
    tests = [json.loads(p.read_text()) for p in sorted(chip_set.glob("truth/test/*.json"))]
    assert tests and {t["deck"] for t in tests} <= held_out


def test_random_stacks_hold_1_to_20_chips_of_every_colour() -> None:
    script = script_from_autoplay(
        "t", "seven-twenty-seven", [("A", 60), ("B", 60), ("C", 60)], 3, "kde-standard"
    )
    table = Table(script, 6.3)
    rng = np.random.default_rng(0)
    stacks = [s for _ in range(60) for s in random_stacks(table, rng)]
    assert {s.count for s in stacks} == set(range(1, CHIP_STACK_MAX + 1))
    assert {s.colour for s in stacks} == set(CHIP_COLOURS)


def test_chip_cameras_look_more_obliquely_than_straight_down() -> None:
    script = script_from_autoplay("t", "seven-twenty-seven", [("A", 60), ("B", 60)], 3, "kde-standard")
    table = Table(script, 6.3)
    rng = np.random.default_rng(1)
    for _ in range(20):
        cam = chip_camera(table, (1280, 720), rng)
        axis = cam.R[2]  # optical axis in world coordinates
        tilt = np.degrees(np.arccos(-axis[2]))
        assert 24.9 <= tilt <= 70.1
