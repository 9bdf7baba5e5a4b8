"""The card finder's labels: each card's corners in an order the picture tells."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from assistant.detect.labels import FINDER_CLASSES
from assistant.synth.finder_labels import (
    corner_order,
    pose_lines,
    stands_up,
    turned_a_quarter,
    write_finder_dataset,
)


def _card(corners: list[list[float]], kind: str = "card", labelled: bool = True) -> dict[str, Any]:
    pts = np.asarray(corners)
    return {
        "kind": kind,
        "labelled": labelled,
        "box": [*pts.min(0).tolist(), *pts.max(0).tolist()],
        "corners": corners,
    }


def _truth(*objects: dict[str, Any], size: tuple[int, int] = (200, 100)) -> dict[str, Any]:
    return {"image": "000000.jpg", "size": list(size), "objects": list(objects)}


# a card standing a little askew: its face's top-left corner is printed at (30, 10)
STANDING = [[30.0, 10.0], [70.0, 14.0], [66.0, 70.0], [26.0, 66.0]]


def test_a_card_and_the_same_card_turned_half_round_get_the_same_corners() -> None:
    face = np.array(STANDING)
    upside_down = np.roll(face, 2, axis=0)  # its face's top-left corner is now at the bottom
    assert np.array_equal(corner_order(face), corner_order(upside_down))
    assert corner_order(face).tolist() == STANDING


def test_only_cards_standing_within_45_degrees_of_upright_are_labelled() -> None:
    lying = [[10.0, 20.0], [10.0, 60.0], [90.0, 60.0], [90.0, 20.0]]  # its long side across
    assert stands_up(np.array(STANDING)) and not stands_up(np.array(lying))
    lines, across = pose_lines(_truth(_card(STANDING), _card(lying)))
    assert len(lines) == 1 and across == 1


def test_a_label_holds_the_box_and_the_ordered_corners_normalised() -> None:
    (line,), _ = pose_lines(_truth(_card(STANDING)))
    values = [float(v) for v in line.split()]
    assert values[0] == FINDER_CLASSES.index("card")
    assert np.allclose(values[1:5], [48 / 200, 40 / 100, 44 / 200, 60 / 100])
    keypoints = np.array(values[5:]).reshape(4, 3)
    assert np.allclose(keypoints[:, :2] * [200, 100], STANDING, atol=1e-3)
    assert (keypoints[:, 2] == 2).all()


def test_a_corner_off_the_image_is_not_labelled() -> None:
    (line,), _ = pose_lines(_truth(_card([[180.0, 10.0], [220.0, 14.0], [216.0, 70.0], [176.0, 66.0]])))
    keypoints = np.array([float(v) for v in line.split()[5:]]).reshape(4, 3)
    assert keypoints[:, 2].tolist() == [2.0, 0.0, 0.0, 2.0]
    assert (keypoints[1:3, :2] == 0).all()


def test_backs_chips_and_unlabelled_cards() -> None:
    chips = {
        "kind": "chips",
        "labelled": True,
        "box": [100.0, 20.0, 130.0, 60.0],
        "colour": "red",
        "count": 4,
    }
    lines, _ = pose_lines(_truth(_card(STANDING, kind="face_down"), chips, _card(STANDING, labelled=False)))
    assert [int(line.split()[0]) for line in lines] == [
        FINDER_CLASSES.index("face_down"),
        FINDER_CLASSES.index("chips_red"),
    ]
    assert all(float(v) == 0 for v in lines[1].split()[5:])  # a stack has no corners


def test_a_truth_turned_a_quarter_follows_the_image_turned_a_quarter() -> None:
    image = np.zeros((100, 200), np.uint8)
    cv2.fillConvexPoly(image, np.array(STANDING, np.int32), 255)
    turned_image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    turned = turned_a_quarter(_truth(_card(STANDING)))
    assert turned["size"] == [100, 200]
    corners = np.array(turned["objects"][0]["corners"])
    ys, xs = np.nonzero(turned_image)
    assert abs(xs.mean() - corners[:, 0].mean()) < 1.5 and abs(ys.mean() - corners[:, 1].mean()) < 1.5
    x1, y1, x2, y2 = turned["objects"][0]["box"]
    assert x1 <= xs.min() + 1 and xs.max() <= x2 + 1 and y1 <= ys.min() + 1 and ys.max() <= y2 + 1


def test_a_dataset_is_relabelled_with_its_training_images_also_turned_a_quarter(tmp_path: Path) -> None:
    source = tmp_path / "renders"
    for split in ("train", "val"):
        (source / "truth" / split).mkdir(parents=True)
        (source / "images" / split).mkdir(parents=True)
        cv2.imwrite(str(source / "images" / split / "000000.jpg"), np.zeros((100, 200, 3), np.uint8))
        lying = [[10.0, 20.0], [10.0, 60.0], [90.0, 60.0], [90.0, 20.0]]
        (source / "truth" / split / "000000.json").write_text(
            json.dumps(_truth(_card(STANDING), _card(lying)))
        )
    out = tmp_path / "finder"
    summary = write_finder_dataset(source, out)
    assert summary["images"] == {"train": 2, "val": 1}
    assert sorted(p.name for p in (out / "images" / "train").iterdir()) == ["000000.jpg", "000000_q.jpg"]
    turned = cv2.imread(str(out / "images" / "train" / "000000_q.jpg"))
    assert turned is not None and turned.shape[:2] == (200, 100)
    # each card is labelled once over the image and its quarter turn
    assert len((out / "labels" / "train" / "000000.txt").read_text().splitlines()) == 1
    assert len((out / "labels" / "train" / "000000_q.txt").read_text().splitlines()) == 1
    assert "kpt_shape: [4, 3]" in (out / "data.yaml").read_text()


def test_a_folder_without_truths_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="synth dataset"):
        write_finder_dataset(tmp_path, tmp_path / "out")
