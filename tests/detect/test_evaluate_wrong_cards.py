"""Where the evaluation says each wrong card lies, and that the places add up to the wrong cards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from assistant.detect.evaluate import (
    WRONG_CARD_PLACES,
    evaluate,
    judge_cards,
    match_cards,
    true_cards,
    wrong_card_places,
)
from assistant.detect.pipeline import Card, Detection

SEVEN = (10.0, 10.0, 73.0, 98.0)  # a judged 7h
SLIVER = (0.0, 120.0, 25.0, 208.0)  # a 6d mostly out of the crop: too little in view to judge
BACK = (100.0, 10.0, 163.0, 98.0)  # a face-down card


def _corners(box: tuple[float, float, float, float]) -> list[list[float]]:
    x1, y1, x2, y2 = box
    return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]


def _truth() -> dict[str, Any]:
    return {
        "image": "hand_0001_seat1.cards.jpg",
        "deck": "kde-standard",
        "objects": [
            {"kind": "card", "card": "7h", "corners": _corners(SEVEN), "labelled": True, "indices": []},
            {"kind": "card", "card": "6d", "corners": _corners(SLIVER), "labelled": False, "indices": []},
            {"kind": "face_down", "box": list(BACK), "labelled": True},
        ],
    }


def _places(*cards: Card) -> dict[str, int]:
    truth = _truth()
    judged, unjudged = true_cards(truth, readable=False), true_cards(truth, False, judged=False)
    verdicts, _ = judge_cards(Detection("x", list(cards)), judged, unjudged)
    return wrong_card_places(verdicts, truth, judged, unjudged)


def _only(place: str, count: int = 1) -> dict[str, int]:
    return {p: (count if p == place else 0) for p in WRONG_CARD_PLACES}


def test_a_card_read_as_another_on_a_judged_card_is_a_misread() -> None:
    assert _places(Card("8h", SEVEN, 0.9)) == _only("misread card")


def test_a_card_read_again_beside_its_surer_reading_is_a_second_read() -> None:
    assert _places(Card("7h", SEVEN, 0.9), Card("7h", (12.0, 12.0, 75.0, 100.0), 0.5)) == _only(
        "second read of a card"
    )


def test_a_card_mostly_out_of_view_read_as_another_is_counted_there_and_read_right_is_not_wrong() -> None:
    assert _places(Card("3d", SLIVER, 0.5)) == _only("card too little in view")
    assert _places(Card("6d", SLIVER, 0.5)) == _only("card too little in view", 0)


def test_a_face_down_card_read_as_a_face_is_a_wrong_card_on_a_face_down_card() -> None:
    assert _places(Card("Kc", BACK, 0.6)) == _only("face-down card")


def test_a_card_read_where_nothing_lies_is_on_nothing_labelled() -> None:
    assert _places(Card("As", (200.0, 150.0, 263.0, 238.0), 0.4)) == _only("nothing labelled")


def test_the_places_add_up_to_the_wrong_cards_and_the_tally_is_unchanged(tmp_path: Path) -> None:
    cards = [
        Card("7h", SEVEN, 0.9),
        Card("7h", (12.0, 12.0, 75.0, 100.0), 0.5),
        Card("3d", SLIVER, 0.5),
        Card("Kc", BACK, 0.6),
        Card("As", (200.0, 150.0, 263.0, 238.0), 0.4),
    ]
    truth = _truth()
    for folder in ("images/test", "truth/test"):
        (tmp_path / folder).mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "test" / truth["image"]), np.zeros((240, 280, 3), np.uint8))
    (tmp_path / "truth" / "test" / "hand_0001_seat1.cards.json").write_text(json.dumps(truth))

    report = evaluate(lambda image, name: Detection(name, list(cards)), tmp_path, "test")

    judged, unjudged = true_cards(truth, readable=False), true_cards(truth, False, judged=False)
    tally, _ = match_cards(Detection("x", list(cards)), judged, unjudged)
    assert (
        (report.all_cards.tp, report.all_cards.fp, report.all_cards.fn)
        == (tally.tp, tally.fp, tally.fn)
        == (1, 4, 0)
    )
    places = report.to_json()["wrong_cards_by_place"]
    assert sum(places.values()) == report.all_cards.fp
    assert places == {p: (0 if p == "misread card" else 1) for p in WRONG_CARD_PLACES}


def test_a_crop_cut_with_a_margin_is_judged_as_the_pipeline_counts_its_zone(tmp_path: Path) -> None:
    # the zone lies at (32, 20)-(248, 220) of the crop: the 7h lies in it; a 2c lies in the
    # margin, mostly outside the zone (the pipeline leaves it to no seat), read or not
    two = (-10.0, 120.0, 53.0, 208.0)
    truth = _truth() | {"inner": [32, 20, 248, 220]}
    truth["objects"] = [
        truth["objects"][0] | {"corners": _corners((40.0, 30.0, 103.0, 118.0))},
        {"kind": "card", "card": "2c", "corners": _corners(two), "labelled": True, "indices": []},
        truth["objects"][2],
    ]
    for folder in ("images/test", "truth/test"):
        (tmp_path / folder).mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "test" / truth["image"]), np.zeros((240, 280, 3), np.uint8))
    (tmp_path / "truth" / "test" / "hand_0001_seat1.cards.json").write_text(json.dumps(truth))

    def read(misread_two: bool) -> dict[str, Any]:
        cards = [
            Card("7h", (40.0, 30.0, 103.0, 118.0), 0.9),
            Card("2s" if misread_two else "2c", (0.0, 120.0, 53.0, 208.0), 0.8),
        ]
        return evaluate(lambda image, name: Detection(name, cards), tmp_path, "test").to_json()

    for misread_two in (False, True):  # the 2c does not count, right or wrong
        report = read(misread_two)
        assert report["card_identity_all_labelled"] | {"precision": 0, "recall": 0, "f1": 0} == {
            "tp": 1,
            "fp": 0,
            "fn": 0,
            "unjudged_right": 0,
            "precision": 0,
            "recall": 0,
            "f1": 0,
        }
        assert report["zone_crops_judged_as_the_pipeline_counts"] == 1
    del truth["inner"]  # the same crop cut at its zone's edge: the 2c is judged
    (tmp_path / "truth" / "test" / "hand_0001_seat1.cards.json").write_text(json.dumps(truth))
    report = read(True)
    assert (report["card_identity_all_labelled"]["tp"], report["card_identity_all_labelled"]["fp"]) == (1, 1)
    assert "zone_crops_judged_as_the_pipeline_counts" not in report
