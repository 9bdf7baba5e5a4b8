"""``detect --calibration``: a calibrated table frame read zone by zone, boxes in the frame."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from assistant.detect.pipeline import MODELS_DIR, CardDetector
from assistant.detect.table_frames import TableFrameDetector
from assistant.vision.calibration import load_calibration
from tests.detect.images import as_bgr

VIDEOS = Path(__file__).resolve().parents[2] / "fixtures" / "video"
PARIS = VIDEOS / "seven-twenty-seven-paris"


@pytest.fixture(scope="module")
def frame_150(tmp_path_factory: pytest.TempPathFactory) -> Path:
    capture = cv2.VideoCapture(str(PARIS.with_suffix(".mp4")))
    capture.set(cv2.CAP_PROP_POS_FRAMES, 150)
    ok, image = capture.read()
    capture.release()
    assert ok
    path = tmp_path_factory.mktemp("frames") / "paris-150.png"
    cv2.imwrite(str(path), image)
    return path


def test_a_calibrated_frame_is_read_zone_by_zone_into_frame_coordinates(frame_150: Path) -> None:
    truth = json.loads(PARIS.with_suffix(".truth.json").read_text())
    face_up = {
        e["true_card"] for e in truth["events"] if e["action"] in ("deal", "take") and e["face_up"]
    } | {e["card"] for e in truth["events"] if e["action"] == "expose"}
    dealt_by_150 = {
        e["true_card"]
        for e in truth["events"]
        if e["action"] in ("deal", "take") and e["face_up"] and e["frame"] <= 150
    }
    calibration = load_calibration(PARIS.with_suffix(".calibration.json"))
    detector = TableFrameDetector(CardDetector.for_zones(MODELS_DIR), calibration)
    image = as_bgr(cv2.imread(str(frame_150)))
    result = detector.detect(image, str(frame_150))
    found = {c.card for c in result.cards}
    assert found <= face_up
    assert len(found & dealt_by_150) >= len(dealt_by_150) - 1
    h, w = image.shape[:2]
    for box in [c.box for c in result.cards] + result.face_down:
        x1, y1, x2, y2 = box
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        assert 20 < x2 - x1 < 200 and 20 < y2 - y1 < 200  # a card, seen from 1.6 m


def test_detect_with_an_unreadable_calibration_says_so_in_one_line(frame_150: Path, tmp_path: Path) -> None:
    bad = tmp_path / "table.json"
    bad.write_text("{not json")
    out = subprocess.run(
        [sys.executable, "-m", "assistant", "detect", str(frame_150), "--calibration", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode != 0
    assert "calibration" in out.stderr and len(out.stderr.strip().splitlines()) == 1
