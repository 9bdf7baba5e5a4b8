"""Where the zone detector loses cards (scripts/card_losses.py, stop 56)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.detect.backends import Boxes
from assistant.detect.card_losses import (
    ARMS,
    FATES,
    FOUND,
    arm_boxes,
    card_fates,
    losses_in_split,
    stage1_found,
    taught_boxes,
)
from assistant.detect.evaluate import CardVerdict, evaluate
from assistant.detect.pipeline import MODELS_DIR, Card, CardDetector, ImageError
from assistant.synth.labels import CLASS_NAMES, IndexTruth, ObjectTruth, yolo_lines

ZONES = Path(__file__).parent / "fixtures" / "zones"
NAMES = {0: "card", 1: "index", 2: "face_down", 3: "chips_white"}


def _label_lines(truth: dict[str, Any]) -> list[str]:
    """The YOLO label lines ``synth zones`` writes for a truth (its label writer, fed the
    truth file's objects)."""
    objects = [
        ObjectTruth(
            oid=k,
            kind=obj["kind"],
            box=None if obj["box"] is None else tuple(obj["box"]),
            visible=obj["visible"],
            labelled=obj["labelled"],
            card=obj.get("card"),
            indices=[
                IndexTruth(i["corner"], np.asarray(i["quad"], np.float64), i["visible"], i["labelled"])
                for i in obj.get("indices", ())
            ],
        )
        for k, obj in enumerate(truth["objects"])
    ]
    return yolo_lines(objects, *truth["size"])


def _zone_split(root: Path) -> Path:
    """The fixture zone crops as the ``test`` split of a ``synth zones`` folder, with labels."""
    for kind in ("images", "truth", "labels"):
        (root / kind / "test").mkdir(parents=True)
    for truth_path in sorted(ZONES.glob("*.json")):
        truth = json.loads(truth_path.read_text())
        shutil.copy(ZONES / truth["image"], root / "images" / "test" / truth["image"])
        shutil.copy(truth_path, root / "truth" / "test" / truth_path.name)
        (root / "labels" / "test" / truth_path.with_suffix(".txt").name).write_text(
            "\n".join(_label_lines(truth))
        )
    (root / "data.yaml").write_text("names:\n" + "".join(f"  {k}: {v}\n" for k, v in enumerate(CLASS_NAMES)))
    return root


def test_taught_boxes_are_the_labels_in_pixels_each_fully_sure_in_the_detector_s_class_ids(
    tmp_path: Path,
) -> None:
    labels = tmp_path / "a.txt"
    labels.write_text("1 0.5 0.5 0.1 0.2\n\n0 0.25 0.5 0.5 1.0\n3 0.9 0.9 0.1 0.1\n")
    boxes = taught_boxes(labels, (200, 100), NAMES, {"index": 7, "card": 4})  # no chips class
    np.testing.assert_allclose(boxes.xyxy, [[90, 40, 110, 60], [0, 0, 100, 100]], atol=1e-4)
    assert boxes.cls.tolist() == [7, 4] and boxes.conf.tolist() == [1.0, 1.0]
    assert len(taught_boxes(tmp_path / "none.txt", (200, 100), NAMES, {"card": 0})) == 0


@pytest.mark.parametrize("line", ["0 0.5 0.5 0.1", "9 0.5 0.5 0.1 0.1"])
def test_a_label_line_that_is_not_a_known_class_and_a_box_is_an_error_naming_its_file_and_line(
    tmp_path: Path, line: str
) -> None:
    labels = tmp_path / "bad.txt"
    labels.write_text(f"1 0.5 0.5 0.1 0.2\n{line}\n")
    with pytest.raises(ValueError, match=r"bad\.txt:2"):
        taught_boxes(labels, (200, 100), NAMES, {"card": 0, "index": 1})


def _card(box: tuple[float, float, float, float], index: tuple[float, float, float, float]) -> dict[str, Any]:
    x0, y0, x1, y1 = index
    return {"box": list(box), "indices": [{"quad": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}]}


def test_a_card_read_as_another_is_misread_one_with_no_box_unboxed_one_boxed_but_unread_unread() -> None:
    objects = [
        _card((0, 0, 60, 90), (2, 2, 12, 30)),  # read right
        _card((70, 0, 130, 90), (72, 2, 82, 30)),  # read as another card
        _card((140, 0, 200, 90), (142, 2, 152, 30)),  # only its index boxed: nothing read
        _card((210, 0, 270, 90), (212, 2, 222, 30)),  # nothing boxed on it
    ]
    verdicts = [
        CardVerdict(Card("Ah", (0, 0, 60, 90), 0.9), "right", (0,)),
        CardVerdict(Card("Kh", (70, 0, 130, 90), 0.9), "wrong", (1,)),
    ]
    # the last box lies beside the fourth card's index, IoU 0.45
    kept = [(0, 0, 60, 90), (70, 0, 130, 90), (142, 3, 152, 31), (215, 5, 225, 33)]
    fates = card_fates(verdicts, [True, False, False, False], objects, kept)
    assert fates == ["right", "misread", "unread", "unboxed"]


def test_what_stage_1_found_on_a_card_is_its_card_box_its_index_both_or_neither() -> None:
    card = _card((0, 0, 60, 90), (2, 2, 12, 30))
    box, index, elsewhere = (1, 1, 61, 91), (2, 3, 12, 31), (100, 0, 160, 90)
    assert [
        stage1_found(card, cards, indices)
        for cards, indices in (
            ([box], [index]),
            ([box], []),
            ([elsewhere], [index]),
            ([elsewhere], [elsewhere]),
        )
    ] == list(FOUND)


def test_an_arm_swaps_in_the_taught_boxes_of_its_classes_and_keeps_stage_1_s_others(
    zones: CardDetector,
) -> None:
    ids = zones.classes

    def boxes(*found: tuple[float, str]) -> Boxes:
        return Boxes(
            np.array([[x, 0, x + 10, 10] for x, _ in found], np.float32),
            np.ones(len(found), np.float32),
            np.array([ids[kind] for _, kind in found], np.int64),
        )

    stage_1 = boxes((0, "card"), (20, "index"), (40, "face_down"), (60, "chips_red"))
    labels = boxes((100, "card"), (120, "index"), (140, "face_down"))

    def xs(arm: str) -> list[float]:
        return sorted(arm_boxes(zones, stage_1, labels, arm).xyxy[:, 0].tolist())

    assert xs("shipped") == [0, 20, 40, 60]
    assert xs("taught") == [60, 100, 120, 140]
    assert xs("taught cards") == [20, 60, 100, 140]
    assert xs("taught indices") == [0, 40, 60, 120]


@pytest.fixture(scope="module")
def zones() -> CardDetector:
    return CardDetector.for_zones(MODELS_DIR, threads=1)


def test_the_shipped_arm_reads_a_split_as_the_evaluation_does_and_every_judged_card_has_one_fate(
    tmp_path: Path, zones: CardDetector
) -> None:
    split = _zone_split(tmp_path)
    report = losses_in_split(zones, split, "test", arms=tuple(ARMS))
    plain = evaluate(zones.detect, split, "test")
    judged = plain.all_cards.tp + plain.all_cards.fn
    assert report.images == plain.images == 4
    shipped = report.arms["shipped"].cards
    assert (shipped.tp, shipped.fp, shipped.fn) == (
        plain.all_cards.tp,
        plain.all_cards.fp,
        plain.all_cards.fn,
    )
    assert list(report.arms) == list(ARMS)
    for arm in report.arms.values():
        assert sum(arm.fates.values()) == judged == 9
        assert arm.fates["right"] == arm.cards.tp
    assert report.arms["taught"].fates["unboxed"] == 0  # every judged card was labelled
    assert sum(sum(moves.values()) for moves in report.moves.values()) == judged
    assert sum(sum(found.values()) for found in report.found.values()) == judged
    assert (
        sum(report.found[fate]["nothing"] for fate in ("unboxed", "unread"))
        >= report.arms["shipped"].fates["unboxed"]
    )
    assert set(report.to_json()["per_deck"]) == {"gnome-anglo-modern", "gnome-atlasnye-skat", "gnome-dondorf"}
    assert set(report.to_json()["arms"]["shipped"]["fates"]) == set(FATES)


def test_a_folder_that_is_not_a_zone_dataset_is_an_error_naming_what_is_missing(
    tmp_path: Path, zones: CardDetector
) -> None:
    with pytest.raises(FileNotFoundError, match=r"data\.yaml is missing"):
        losses_in_split(zones, tmp_path, "val")


def test_a_split_without_truth_files_is_an_error_not_an_empty_report(
    tmp_path: Path, zones: CardDetector
) -> None:
    (tmp_path / "data.yaml").write_text("names:\n  0: card\n")
    with pytest.raises(FileNotFoundError, match="no truth files"):
        losses_in_split(zones, tmp_path, "val")


def test_a_damaged_image_in_a_split_is_an_error_naming_it(tmp_path: Path, zones: CardDetector) -> None:
    split = _zone_split(tmp_path)
    damaged = next((split / "images" / "test").glob("*.jpg"))
    damaged.write_bytes(b"not a jpeg")
    with pytest.raises(ImageError, match=damaged.name):
        losses_in_split(zones, split, "test")
