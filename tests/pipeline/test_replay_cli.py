"""``dealer-assistant replay``: a whole video through the command, and bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

VIDEOS = Path(__file__).resolve().parents[2] / "fixtures" / "video"
PARIS = VIDEOS / "seven-twenty-seven-paris.mp4"


def replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assistant", "replay", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_replay_writes_events_with_frames_and_reports_progress(tmp_path: Path) -> None:
    out = replay(str(PARIS), "--json", str(tmp_path / "out.json"))
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["frames"] == 210
    assert data["events"][0] == {"frame": 0, "action": ["start_hand"], "source": "dealer"}
    assert all(isinstance(e["frame"], int) for e in data["events"])
    assert "210/210 frames" in out.stderr
    assert "mm of table per pixel" not in out.stderr  # the camera sees every seat finely enough
    trust = data["reader_trust"]  # the replay was one session that judged its readers
    assert trust["cards_learnt"] > 0
    assert set(trust["power"]) == {"index rank", "index suit", "strip rank", "strip suit"}
    assert all(0.25 <= p <= 1.0 for p in trust["power"].values())


@pytest.mark.slow
def test_replay_warns_when_the_camera_sees_some_seats_too_coarsely() -> None:
    out = replay(str(VIDEOS / "online-727-heldout-standard.mp4"), "--quiet")
    assert out.returncode == 0, out.stderr
    warnings = [line for line in out.stderr.splitlines() if "mm of table per pixel" in line]
    assert len(warnings) == 1 and "seat 1, 2 at up to 1.9 mm" in warnings[0]


def test_replay_of_a_missing_video_is_one_clear_line(tmp_path: Path) -> None:
    out = replay(str(tmp_path / "nope.mp4"))
    assert out.returncode == 1
    assert "video file not found" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_replay_of_a_file_that_is_not_a_video_is_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\\x00not a video" * 1000)
    out = replay(str(bad))
    assert out.returncode == 1
    assert "cannot read" in out.stderr or "no frame" in out.stderr


def test_replay_with_a_wrong_layout_file_is_one_clear_line(tmp_path: Path) -> None:
    layout = tmp_path / "layout.json"
    layout.write_text('{"format": "something-else"}')
    out = replay(str(PARIS), "--layout", str(layout))
    assert out.returncode == 1
    assert str(layout) in out.stderr and "Traceback" not in out.stderr


def test_replay_with_a_layout_whose_markers_are_not_in_the_video_says_so(tmp_path: Path) -> None:
    layout = tmp_path / "layout.json"
    subprocess.run(
        [sys.executable, "-m", "assistant", "calibrate", "layout", "--seats", "7", "--out", str(layout)],
        check=True,
        capture_output=True,
    )
    out = replay(str(PARIS), "--layout", str(layout), "--quiet")
    assert out.returncode == 1 and "Traceback" not in out.stderr


@pytest.mark.slow
def test_demo_replays_the_bundled_hand_and_checks_it_against_its_truth() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "assistant", "demo"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "matches the recorded hand's ground truth: 40 events, same awards" in out.stdout
    assert "camera  show 2 4s Js 2s" in out.stdout  # Carla's hidden cards, in the order they lie
