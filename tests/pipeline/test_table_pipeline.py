"""What the table pipeline does with a zone's detections: which belong to the zone, and
when a still zone is read again. The detector is scripted; frames, calibration and
rectification are the real ones of a bundled recording."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.engine.cards import parse_card
from assistant.engine.session import Session
from assistant.pipeline.replay import TablePipeline
from assistant.pipeline.sidecar import load_sidecar
from assistant.pipeline.zones import CARD_ZONE_MARGIN_MM
from assistant.vision.calibration import load_calibration
from assistant.vision.sources import Frame, VideoFileSource

VIDEOS = Path(__file__).resolve().parents[2] / "fixtures" / "video"
NAME = "seven-twenty-seven-paris"
EMPTY: dict[str, Any] = {"cards": [], "face_down": [], "chips": []}


class ScriptedDetector:
    """Gives ``found`` for the first seat's card zone crop and nothing elsewhere; counts
    how often it was asked about that zone."""

    def __init__(self, zone_shape: tuple[int, int]) -> None:
        self.zone_shape = zone_shape
        self.found: dict[str, Any] = EMPTY
        self.asked = 0

    def detect_batch(self, images: Sequence[np.ndarray]) -> list[dict[str, Any]]:
        out = []
        scripted = False
        for image in images:
            # all card zone crops have this shape; the rectifier gives the first seat's first
            mine = not scripted and image.shape[:2] == self.zone_shape
            scripted = scripted or mine
            self.asked += mine
            out.append(self.found if mine else EMPTY)
        return out


@pytest.fixture(scope="module")
def first_frame() -> np.ndarray:
    with VideoFileSource(VIDEOS / f"{NAME}.mp4") as source:
        frame = source.read()
    assert frame is not None
    return frame.image


def _pipeline() -> tuple[TablePipeline, ScriptedDetector]:
    sidecar = load_sidecar(VIDEOS / f"{NAME}.dealer.json")
    session = Session.new(sidecar.rules, sidecar.stakes, sidecar.players, sidecar.dealer)
    calibration = load_calibration(VIDEOS / f"{NAME}.calibration.json")
    width, height = calibration.layout.seats[0].card_zone.size
    mx, my = CARD_ZONE_MARGIN_MM
    detector = ScriptedDetector((round(height + 2 * my), round(width + 2 * mx)))
    return TablePipeline(session, calibration, detector, hold_s=0.2), detector


def _card(name: str, x1: float) -> dict[str, Any]:
    return {
        "card": name,
        "box": [x1, 40.0, x1 + 63.0, 128.0],
        "confidence": 0.9,
        "index": [x1 + 3, 44.0, x1 + 13, 66.0],
    }


def test_a_card_counts_for_the_zone_that_holds_its_centre(first_frame: np.ndarray) -> None:
    pipeline, detector = _pipeline()
    # left margin is 32 px: a card from x 10 has its centre in the zone, one from x -25 does not
    detector.found = {**EMPTY, "cards": [_card("Qc", 10.0), _card("2d", -25.0)]}
    pipeline.process(Frame(0, 0.0, first_frame))
    assert pipeline.reads["seat0.cards"].face_up == (parse_card("Qc"),)


def test_a_still_zone_is_read_again_until_its_new_reading_has_held(first_frame: np.ndarray) -> None:
    pipeline, detector = _pipeline()
    pipeline.process(Frame(0, 0.0, first_frame))  # the table as it is: read once
    pipeline.process(Frame(1, 0.1, first_frame))
    assert detector.asked == 1  # nothing moved, nothing new: not read again
    pipeline.gate.reset()  # a card arrives (the gate lets the zone through once) ...
    detector.found = {**EMPTY, "cards": [_card("Qc", 60.0)]}
    pipeline.process(Frame(2, 0.2, first_frame))
    asked = detector.asked
    # ... and while its reading is new, the still zone is read on every frame
    pipeline.process(Frame(3, 0.3, first_frame))
    assert detector.asked == asked + 1
    pipeline.process(Frame(4, 0.4, first_frame))  # held for 0.2 s: stable
    assert pipeline.stable.reading("seat0.cards").face_up == (parse_card("Qc"),)
    settled = detector.asked
    pipeline.process(Frame(5, 0.5, first_frame))
    pipeline.process(Frame(6, 0.6, first_frame))
    assert detector.asked == settled  # settled and still: left alone


class ScriptedSeats(ScriptedDetector):
    """Gives ``seats[k]`` for the k-th seat card zone crop of a batch, nothing elsewhere."""

    def __init__(self, zone_shape: tuple[int, int], seats: list[dict[str, Any]]) -> None:
        super().__init__(zone_shape)
        self.seats = seats

    def detect_batch(self, images: Sequence[np.ndarray]) -> list[dict[str, Any]]:
        zones = iter(self.seats)
        return [next(zones, EMPTY) if image.shape[:2] == self.zone_shape else EMPTY for image in images]


def test_two_seats_never_keep_one_card_the_likelier_misreading_takes_its_next_name(
    first_frame: np.ndarray,
) -> None:
    pipeline, detector = _pipeline()
    sure = {**_card("7s", 60.0), "confidence": 0.93, "names": [["7s", 0.95], ["7c", 0.01]]}
    clubs = {**_card("7s", 60.0), "confidence": 0.9, "names": [["7s", 0.9], ["7c", 0.09]]}
    pipeline.detector = ScriptedSeats(
        detector.zone_shape, [{**EMPTY, "cards": [sure]}, {**EMPTY, "cards": [clubs]}]
    )
    pipeline.process(Frame(0, 0.0, first_frame))
    read = {key: zone.face_up for key, zone in pipeline.reads.items() if zone.face_up}
    assert read == {"seat0.cards": (parse_card("7s"),), "seat1.cards": (parse_card("7c"),)}
    assert pipeline.reads["seat1.cards"].renamed == ((parse_card("7c"), parse_card("7s")),)  # for the dealer
    assert pipeline.seen["seat1.cards"]["cards"][0]["card"] == "7s"  # the memory keeps what was read
