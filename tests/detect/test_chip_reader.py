"""The chip reader's targets, training crops and shipped model: it counts stacks whose
side shows and calls stacks seen from above unknown (0)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from assistant.detect.labels import MAX_CHIPS
from assistant.detect.reader_data import CropSet, chip_crops, chip_target, fewer_unknown
from assistant.detect.recipe import Recipe
from tests.detect.datasets import fixture_dataset
from tests.detect.images import as_bgr

FIXTURES = Path(__file__).parent / "fixtures"
MODELS = Path(__file__).resolve().parents[2] / "models"


def _camera(tilt_deg: float, distance: float = 60.0) -> dict[str, Any]:
    """A camera looking at the table origin from ``tilt_deg`` off vertical (640 x 480)."""
    t = math.radians(tilt_deg)
    z = np.array([0.0, math.sin(t), -math.cos(t)])
    x = np.array([1.0, 0.0, 0.0])
    rot = np.stack([x, np.cross(z, x), z])
    return {
        "rotation_world_to_camera": rot.tolist(),
        "position_cm": (-z * distance).tolist(),
        "focal_px": 500.0,
        "principal_point": [320.0, 240.0],
    }


def _stack(
    count: int, box: list[float], *, side_px: float | None = None, visible: float = 1.0
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "kind": "chips",
        "colour": "red",
        "count": count,
        "box": box,
        "labelled": True,
        "visible": visible,
    }
    if side_px is not None:
        obj["side_px"] = side_px
    return obj


ZONE = {"zone": "pot", "camera": _camera(0.0), "deck": "kde-standard"}


@pytest.mark.parametrize(
    ("side_px", "count", "target"),
    [(2.4, 7, 7), (1.5, 20, 20), (3.0, 25, MAX_CHIPS), (1.49, 7, 0), (0.6, 12, 0)],
)
def test_a_zone_crops_stack_is_its_count_when_one_chip_shows_1_5_px_of_side_else_unknown(
    side_px: float, count: int, target: int
) -> None:
    assert chip_target(ZONE, _stack(count, [10, 10, 50, 60], side_px=side_px)) == target


def test_a_zone_crops_stack_without_side_px_cannot_be_judged() -> None:
    # its box is in crop pixels, which the camera's model does not map
    assert chip_target(ZONE, _stack(7, [10, 10, 50, 60])) is None


def test_a_side_visible_stack_cut_by_the_images_edge_cannot_be_judged_but_one_from_above_is_unknown() -> None:
    truth = {**ZONE, "size": [120, 80]}
    assert chip_target(truth, _stack(9, [0.0, 10, 40, 60], side_px=2.5)) is None
    assert chip_target(truth, _stack(9, [80, 10, 120, 60], side_px=2.5)) is None
    assert chip_target(truth, _stack(9, [80, 10, 120, 60], side_px=0.8)) == 0
    assert chip_target(truth, _stack(9, [40, 10, 80, 60], side_px=2.5)) == 9


def test_a_whole_frames_stack_is_judged_from_the_camera() -> None:
    box = [300.0, 220.0, 340.0, 260.0]
    assert chip_target({"camera": _camera(50.0)}, _stack(9, box)) == 9
    assert chip_target({"camera": _camera(0.0)}, _stack(9, box)) == 0


def _zone_dataset(root: Path) -> Path:
    image = np.full((120, 200, 3), 90, np.uint8)
    cv2.rectangle(image, (20, 20), (60, 100), (40, 35, 190), -1)
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True)
        (root / "truth" / split).mkdir(parents=True)
        cv2.imwrite(str(root / "images" / split / "a.jpg"), image)
        truth = {
            **ZONE,
            "image": "a.jpg",
            "objects": [
                _stack(11, [20, 20, 60, 100], side_px=2.2),  # side visible
                _stack(4, [100, 30, 140, 70], side_px=0.7),  # from above
                _stack(5, [150, 30, 190, 70]),  # not judged: left out
                _stack(6, [20, 20, 60, 100], side_px=2.2, visible=0.5),  # half hidden: left out
            ],
        }
        (root / "truth" / split / "a.json").write_text(json.dumps(truth))
    return root


def test_chip_crops_target_side_visible_stacks_by_count_and_stacks_from_above_as_unknown(
    tmp_path: Path,
) -> None:
    crops = chip_crops(_zone_dataset(tmp_path / "d"), "train", 64)
    assert crops.rank.tolist() == [11, 0]
    assert crops.patches.shape == (2, 64, 64, 3)


def test_fewer_unknown_keeps_every_counted_stack_and_caps_the_unknown_ones() -> None:
    ranks = np.array([0, 3, 0, 0, 20, 0, 1, 0])
    crops = CropSet(np.arange(8, dtype=np.uint8).reshape(8, 1, 1, 1), ranks, np.full(8, -1), list("abcdefgh"))
    fewer = fewer_unknown(crops, 2, seed=0)
    assert sorted(fewer.rank.tolist()) == [0, 0, 1, 3, 20]
    assert fewer.patches[:, 0, 0, 0].tolist() == sorted(fewer.patches[:, 0, 0, 0].tolist())  # in order
    assert fewer.deck == [chr(ord("a") + int(i)) for i in fewer.patches[:, 0, 0, 0]]
    assert fewer_unknown(crops, 10).rank.tolist() == ranks.tolist()


def test_the_recipe_names_the_chip_readers_extra_datasets_and_its_cap_on_unknown_stacks(
    tmp_path: Path,
) -> None:
    path = tmp_path / "train.yaml"
    path.write_text(
        "dataset: /x\ndetector: {model: m.yaml}\n"
        "chips: {crop: 48, datasets: [/a, /b], max_unknown: 500, out: /r}\n"
    )
    chips = Recipe.load(path).chips
    assert (chips.crop, chips.datasets, chips.max_unknown, chips.out) == (48, ("/a", "/b"), 500, "/r")


def test_the_shipped_chip_reader_reads_the_crop_size_it_was_trained_for() -> None:
    from assistant.detect.readers import OnnxReader

    reader = OnnxReader(MODELS / "chip_reader.onnx")
    assert reader.size == reader.width == Recipe.load().chips.crop
    assert reader.heads == ("count",)


@pytest.mark.slow
def test_a_chip_reader_trained_on_chip_scenes_and_exported_runs_in_the_detector(tmp_path: Path) -> None:
    """Chip-focused zone crops plus whole renders train an 80 px reader; its ONNX file,
    put beside the shipped stage 1 and index reader, counts stacks in the detector."""
    pytest.importorskip("torch")

    from assistant.detect.pipeline import CHIP_READER, CardDetector
    from assistant.detect.recipe import ReaderRecipe
    from assistant.detect.train_reader import export_reader, train_reader
    from assistant.synth.decks import DecksMissingError
    from assistant.synth.zones import write_zone_dataset

    scenes = tmp_path / "chips"
    try:
        write_zone_dataset(scenes, 2, 5, val=0.5, test=0, chip_shots=2)
    except DecksMissingError as error:
        pytest.skip(str(error))
    renders = fixture_dataset(tmp_path / "renders")
    out = tmp_path / "run"
    recipe = ReaderRecipe(
        crop=80,
        channels=(8, 16, 32),
        epochs=1,
        batch=64,
        balance=True,
        datasets=(str(scenes),),
        max_unknown=5,
        out=str(out),
    )
    best = train_reader("chips", renders, recipe, log=lambda _: None)
    train = CropSet.load(out / "crops_train.npz")
    assert (train.rank == 0).sum() <= 5 and (train.rank > 0).sum() > 0
    assert train.patches.shape[1] == math.ceil(80 * 1.6 / 2) * 2  # context around the 80 px crop
    assert "kde" in "".join(train.deck) or "gnome" in "".join(train.deck)
    models = tmp_path / "models"
    models.mkdir()
    for name in ("detector.onnx", "index_reader.onnx"):
        (models / name).symlink_to(MODELS / name)
    export_reader(best, models / CHIP_READER)
    detector = CardDetector.for_zones(models)
    assert detector.chip_reader is not None and detector.chip_reader.size == 80
    truth = json.loads(next((scenes / "truth" / "train").glob("*.json")).read_text())
    image = as_bgr(cv2.imread(str(scenes / "images" / "train" / truth["image"])))
    result = detector.detect(image, truth["image"])
    assert result.chips, "stage 1 finds the stacks of a chip scene's bet or pot zone"
    for stack in result.chips:
        assert stack.count is None or 1 <= stack.count <= MAX_CHIPS


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="issue 4 is open: the shipped chip reader (whole renders, 32 px) calls every stack unknown",
)
def test_the_shipped_chip_reader_counts_side_visible_stacks_of_unseen_scenes_and_not_those_from_above(
    tmp_path: Path,
) -> None:
    """Fresh held-out chip scenes (held-out decks and surfaces, a seed never trained on),
    read on their true boxes: most stacks whose side shows are counted exactly, and
    those seen from above are reported unknown (the bar of issue 4 is 90% exact)."""
    from assistant.detect.evaluate import chip_reader_on_truth
    from assistant.detect.readers import OnnxReader
    from assistant.synth.decks import DecksMissingError
    from assistant.synth.zones import write_zone_dataset

    try:
        write_zone_dataset(tmp_path, 4, 4242, val=0, test=0.75, chip_shots=3)
    except DecksMissingError as error:
        pytest.skip(str(error))
    reader = OnnxReader(MODELS / "chip_reader.onnx")
    tally = chip_reader_on_truth(lambda im, b: reader.read(im, b)["count"].argmax(1), tmp_path, "test")
    assert tally.side_visible >= 30  # the scenes show stacks from the side (39 of 40 stacks)
    assert tally.exact / tally.side_visible >= 0.7
    assert tally.above_unknown >= 0.7 * tally.above


def test_evaluation_judges_stacks_as_training_does_and_leaves_unjudged_ones_out(tmp_path: Path) -> None:
    """A zone crop's stack without ``side_px`` is neither counted nor "from above": the
    whole-frame camera cannot place a box given in crop pixels."""
    from assistant.detect.evaluate import chip_reader_on_truth, evaluate
    from assistant.detect.pipeline import ChipStack, Detection

    data = _zone_dataset(tmp_path / "d")
    tally = chip_reader_on_truth(lambda image, boxes: np.array([11, 0][: len(boxes)]), data, "train")
    assert tally.to_json() == {
        "side_visible_stacks": 1,
        "count_exact": 1.0,
        "from_above_stacks": 1,
        "from_above_reported_unknown": 1.0,
        "unjudged_stacks": 1,
    }

    def detect(image: np.ndarray, name: str) -> Detection:
        stacks = [
            ChipStack("red", 10, (20.0, 20.0, 60.0, 100.0), 0.9),
            ChipStack("red", None, (100.0, 30.0, 140.0, 70.0), 0.9),
        ]
        return Detection(name, chips=stacks)

    chips = evaluate(detect, data, "train", chips=True).chips
    assert (chips.side_visible, chips.exact, chips.above, chips.above_unknown, chips.unjudged) == (
        1,
        0,
        1,
        1,
        1,
    )
