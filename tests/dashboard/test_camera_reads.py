"""Camera reads in the window: a real video through the table pipeline, questions the
dealer confirms, a lost camera, a bumped camera, and no detector at all.

The detector here answers from the crop's colour (a red zone holds the seven of hearts):
only the wiring between the video, the pipeline and the window is under test; the real
detector is tested in ``tests/detect``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from assistant.dashboard.dialogs import CardDialog
from assistant.dashboard.live_table import apply_proposed, load_detector
from assistant.dashboard.main_window import DashboardWindow
from assistant.dashboard.queries_panel import QueriesPanel
from assistant.engine import DecisionKind, IllegalActionError, Session, Stakes, parse_card, preset
from assistant.engine.events import CardDealt
from assistant.pipeline.referee import DealerQuery
from assistant.vision.calibration import Calibration, load_calibration
from assistant.vision.sources import CameraSource, VideoFileSource

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "video" / "seven-twenty-seven-paris"
RED_ZONE = "seat3.cards"  # the layout's third seat: the engine's seat 2 (Carla)
SEVEN = parse_card("7h")


class RedMeansSevenOfHearts:
    """A stand-in detector with fixed answers: a red card-sized patch is 7h face up."""

    def __init__(self) -> None:
        self.calls = 0

    def detect_batch(self, images: Sequence[NDArray[np.uint8]]) -> list[dict[str, Any]]:
        self.calls += 1
        found = []
        for image in images:
            red = (image[..., 2] > 200) & (image[..., 1] < 60) & (image[..., 0] < 60)
            cards = []
            if red.mean() > 0.05:
                ys, xs = np.nonzero(red)
                box = [float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)]
                cards = [{"card": "7h", "box": box, "confidence": 0.99}]
            found.append({"cards": cards, "face_down": [], "chips": []})
        return found


@pytest.fixture(scope="module")
def calibration() -> Calibration:
    return load_calibration(FIXTURE.with_suffix(".calibration.json"))


@pytest.fixture(scope="module")
def table(calibration: Calibration) -> NDArray[np.uint8]:
    capture = cv2.VideoCapture(str(FIXTURE.with_suffix(".mp4")))
    ok, image = capture.read()
    capture.release()
    assert ok
    return np.asarray(image, np.uint8)


def red_card(image: NDArray[np.uint8], calibration: Calibration) -> NDArray[np.uint8]:
    """A red card (63 x 88 mm) lying in the red zone, 20 mm in from its corner."""
    rect = calibration.layout.zones()[RED_ZONE]
    (ux, uy), (vx, vy) = rect.axes()
    across, down = np.array([ux, uy]), np.array([vx, vy])
    corner = np.array(rect.center) - across * rect.size[0] / 2 - down * rect.size[1] / 2
    local = np.array([[20, 20], [83, 20], [83, 108], [20, 108]], np.float64)
    table_mm = corner + local[:, :1] * across + local[:, 1:] * down
    out = image.copy()
    cv2.fillPoly(out, [np.round(calibration.to_image(table_mm)).astype(np.int32)], (0, 0, 255))
    return out


def shifted(image: NDArray[np.uint8], dx: float, dy: float) -> NDArray[np.uint8]:
    height, width = image.shape[:2]
    moved = cv2.warpAffine(image, np.array([[1, 0, dx], [0, 1, dy]], np.float32), (width, height))
    return np.asarray(moved, np.uint8)


def write_video(path: Path, frames: Sequence[NDArray[np.uint8]]) -> Path:
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (width, height))
    assert writer.isOpened()
    for image in frames:
        writer.write(image)
    writer.release()
    return path


def seven_twenty_seven() -> Session:
    players = [("Anna", 40), ("Ben", 40), ("Carla", 40), ("Dan", 40)]
    return Session.new(
        preset("seven-twenty-seven"), Stakes(ante=1, min_bet=1, max_bet=5, max_raises=3), players
    )


@pytest.fixture
def dealt_window(qtbot: Any) -> Iterator[DashboardWindow]:
    """A 7/27 hand just started: Ben (seat 1) is to be dealt his face-up card."""
    window = DashboardWindow(seven_twenty_seven())
    qtbot.addWidget(window)
    window.show()
    assert window.controller.next_hand().ok
    decision = window.session.decision
    assert decision is not None and decision.kind is DecisionKind.DEAL and decision.seat == 1
    yield window
    window.close()


def run(pipeline: Any, frames: int) -> None:
    for _ in range(frames):
        pipeline.step()


def test_a_card_seen_out_of_turn_is_asked_about_and_confirming_it_deals_it(
    dealt_window: DashboardWindow, calibration: Calibration, table: NDArray[np.uint8], tmp_path: Path
) -> None:
    window = dealt_window
    video = write_video(tmp_path / "deal.avi", [table] * 4 + [red_card(table, calibration)] * 8)
    detector = RedMeansSevenOfHearts()
    pipeline = window.attach_camera(VideoFileSource(video), calibration, detector, start=False)
    run(pipeline, 12)
    assert window.camera.frames_shown == 12 and detector.calls >= 2
    # Carla's card came before Ben's: the camera asks instead of dealing it
    (query,) = window.queries.queries
    assert query.zone == "seat2.cards" and query.proposed == (CardDealt(2, SEVEN),)
    assert window.queries.isVisible() and window.queries.rows[0].confirm.isEnabled()
    assert "Ben" in window.queries.rows[0].text.text() or "turn" in query.message
    # the zones and the detection are drawn where the card is, in frame pixels
    assert {zone.name for zone in window.camera.zones} >= {"seat1.cards", "seat3.cards", "seat3.bet"}
    (box,) = [o for o in window.camera.overlays if o.label == "7h"]
    (zone,) = [z for z in window.camera.zones if z.name == RED_ZONE]
    xs, ys = [p[0] for p in zone.points], [p[1] for p in zone.points]
    assert min(xs) - 2 <= box.box[0] < box.box[2] <= max(xs) + 2
    assert min(ys) - 2 <= box.box[1] < box.box[3] <= max(ys) + 2
    # confirming it now is refused with the engine's message; nothing changes
    before = window.session.events
    answer = window.queries.confirm(window.queries.rows[0])
    assert not answer.ok and window.session.events == before
    assert not window.controller.message_ok and "not applied" in window.message.text()
    assert window.queries.queries == [query]
    # the dealer deals Ben's card by hand; now Carla's card is due, and confirming deals it
    assert window.controller.card_action("5s").ok
    assert window.queries.confirm(window.queries.rows[0]).ok
    assert SEVEN in window.session.state.seats[2].up_cards
    assert window.queries.queries == [] and window.controller.message_ok
    assert "confirmed: deal 2 7h" in window.message.text()
    # the camera's stable reading already holds that card: no second deal, no new question
    run(pipeline, 3)
    assert window.queries.queries == [] and window.session.state.seats[2].up_cards.count(SEVEN) == 1


def test_a_card_seen_in_turn_goes_into_the_game_and_the_log(
    dealt_window: DashboardWindow, calibration: Calibration, table: NDArray[np.uint8], tmp_path: Path
) -> None:
    window = dealt_window
    assert window.controller.card_action("5s").ok  # Ben; Carla is next
    video = write_video(tmp_path / "deal.avi", [table] * 3 + [red_card(table, calibration)] * 6)
    pipeline = window.attach_camera(VideoFileSource(video), calibration, RedMeansSevenOfHearts(), start=False)
    run(pipeline, 9)
    assert SEVEN in window.session.state.seats[2].up_cards
    assert window.queries.queries == []
    assert "camera: deal 2 7h" in window.panel.toPlainText()


def test_correct_opens_the_correction_dialog_and_a_correction_closes_the_question(
    qtbot: Any,
    dealt_window: DashboardWindow,
    calibration: Calibration,
    table: NDArray[np.uint8],
    tmp_path: Path,
) -> None:
    window = dealt_window
    video = write_video(tmp_path / "deal.avi", [table] * 3 + [red_card(table, calibration)] * 6)
    pipeline = window.attach_camera(VideoFileSource(video), calibration, RedMeansSevenOfHearts(), start=False)
    run(pipeline, 9)
    assert window.controller.card_action("5s").ok  # Ben's card, by hand
    (row,) = window.queries.rows
    seen: list[str] = []

    def answer_dialog() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, CardDialog)
        seen.append(dialog.windowTitle())
        dialog.seat.setCurrentIndex(dialog.seat.findData(1))
        dialog.index.setCurrentIndex(0)
        dialog.text.setText("5c")
        dialog.accept()

    QTimer.singleShot(50, answer_dialog)
    row.correct.click()
    assert seen == ["Correct or enter a card"]
    assert window.session.state.seats[1].cards[0].card == parse_card("5c")
    assert window.queries.queries == [] and "corrected by hand" in window.message.text()


def test_dismissing_a_question_changes_nothing(
    dealt_window: DashboardWindow, calibration: Calibration, table: NDArray[np.uint8], tmp_path: Path
) -> None:
    window = dealt_window
    video = write_video(tmp_path / "deal.avi", [table] * 3 + [red_card(table, calibration)] * 6)
    pipeline = window.attach_camera(VideoFileSource(video), calibration, RedMeansSevenOfHearts(), start=False)
    run(pipeline, 9)
    before = window.session.events
    (row,) = window.queries.rows
    row.dismiss.click()
    assert window.queries.queries == [] and window.session.events == before
    assert "dismissed" in window.message.text()


def test_a_question_asked_frame_after_frame_is_listed_once_and_stays_dismissed(qtbot: Any) -> None:
    session = seven_twenty_seven()
    panel = QueriesPanel(session, lambda: False)
    qtbot.addWidget(panel)
    twice = "7h is seen in seat0.cards and in seat2.cards"
    assert panel.add(DealerQuery(10, "seat2.cards", twice))
    assert not panel.add(DealerQuery(11, "seat2.cards", twice))
    assert panel.add(DealerQuery(11, "seat1.bet", "chips moved in front of Ben: how many?"))
    assert len(panel.rows) == 2 and panel.title.text() == "Camera questions (2)"
    assert not panel.rows[0].confirm.isEnabled()  # nothing to apply: correct or dismiss
    panel.dismiss(panel.rows[0])
    assert not panel.add(DealerQuery(12, "seat2.cards", twice))
    assert [q.zone for q in panel.queries] == ["seat1.bet"]
    assert not panel.correct(panel.rows[0]).text.startswith("corrected")  # dialog cancelled
    assert len(panel.rows) == 1


def test_proposed_events_apply_all_or_none() -> None:
    session = seven_twenty_seven()
    session.start_hand()
    before = session.events
    # Ben's card is legal, the second card to Ben is not: neither stays
    with pytest.raises(IllegalActionError):
        apply_proposed(session, [CardDealt(1, parse_card("5s")), CardDealt(1, parse_card("6s"))])
    assert session.events == before
    with pytest.raises(IllegalActionError, match="nothing to apply"):
        apply_proposed(session, [])


class ScriptedCamera:
    """A capture standing in for a USB camera (none is plugged in here): frames, then gone."""

    def __init__(self, frames: Sequence[NDArray[np.uint8]], opened: bool = True) -> None:
        self.frames = list(frames)
        self.opened = opened

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, Any]:
        return (True, self.frames.pop(0)) if self.frames else (False, None)

    def get(self, prop_id: int) -> float:
        return 10.0 if prop_id == cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        pass


def test_a_camera_that_disappears_is_shown_lost_and_comes_back(
    dealt_window: DashboardWindow, calibration: Calibration, table: NDArray[np.uint8]
) -> None:
    window = dealt_window
    captures = iter(
        [ScriptedCamera([table] * 3), ScriptedCamera([], opened=False), ScriptedCamera([table] * 3)]
    )
    camera = CameraSource(0, opener=lambda _device: next(captures), sleep=lambda _s: None)
    pipeline = window.attach_camera(
        camera, calibration, RedMeansSevenOfHearts(), retry_s=0.0, watch_bumps=False, start=False
    )
    run(pipeline, 3)
    assert window.camera.frames_shown == 3 and not pipeline.bar.isVisible()
    pipeline.step()  # unplugged
    assert pipeline.bar.isVisible() and pipeline.bar.label.text() == "camera lost, reconnecting…"
    assert "lost, reconnecting" in window.camera.status and pipeline.is_lost
    pipeline.step()  # still gone
    assert pipeline.is_lost and "lost, reconnecting" in window.camera.status
    assert window.controller.card_action("5s").ok  # the game goes on by hand meanwhile
    run(pipeline, 2)  # back: a frame at each step again
    assert not pipeline.is_lost and not pipeline.bar.isVisible()
    assert window.camera.frames_shown == 5


def test_a_bumped_camera_stops_reading_until_the_new_calibration_is_accepted(
    dealt_window: DashboardWindow, calibration: Calibration, table: NDArray[np.uint8], tmp_path: Path
) -> None:
    window = dealt_window
    moved = shifted(table, 6.0, 4.0)
    moved_card = shifted(red_card(table, calibration), 6.0, 4.0)
    frames = [table] * 4 + [moved] * 4 + [moved_card] * 4 + [moved_card] * 6
    pipeline = window.attach_camera(
        VideoFileSource(write_video(tmp_path / "bump.avi", frames)),
        calibration,
        RedMeansSevenOfHearts(),
        bump_interval=4,
        start=False,
    )
    run(pipeline, 12)  # checks at frames 0, 4 (suspect), 8 (bumped); the card at 8-11 is not read
    assert pipeline.bar.label.text().startswith("camera moved: recalibrate")
    assert pipeline.bar.accept.isVisible() and pipeline.is_lost
    assert window.queries.queries == [] and not window.session.state.seats[2].cards
    assert window.controller.card_action("5s").ok  # nothing lost: the dealer carries on by hand
    assert pipeline.accept_recalibration()
    assert not pipeline.bar.isVisible() and not pipeline.is_lost
    run(pipeline, 6)  # read through the new mapping: Carla's card, her turn now
    assert SEVEN in window.session.state.seats[2].up_cards


def test_without_a_detector_the_zones_are_drawn_and_cards_go_in_by_hand(
    dealt_window: DashboardWindow, calibration: Calibration, table: NDArray[np.uint8], tmp_path: Path
) -> None:
    window = dealt_window
    detector, note = load_detector(tmp_path / "no-models")
    assert detector is None and "camera reads are off" in note
    video = write_video(tmp_path / "plain.avi", [red_card(table, calibration)] * 3)
    pipeline = window.attach_camera(VideoFileSource(video), calibration, detector, note=note, start=False)
    run(pipeline, 3)
    assert pipeline.bar.isVisible() and pipeline.bar.label.text() == note
    assert {z.name for z in window.camera.zones} >= {"seat1.cards", "seat1.bet"}
    assert window.camera.overlays == () and window.queries.queries == []
    assert window.controller.card_action("5s").ok


def dashboard(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assistant", "dashboard", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--calibration", str(FIXTURE) + ".calibration.json"], "--calibration needs a source"),
        (["--video", str(FIXTURE) + ".mp4", "--calibration", "/no/such.json"], "calibration file not found"),
        (
            ["--video", str(FIXTURE) + ".mp4", "--calibration", str(FIXTURE) + ".mp4"],
            "cannot read calibration",
        ),
        (
            ["--video", str(FIXTURE) + ".mp4", "--calibration", str(FIXTURE) + ".dealer.json"],
            "not a calibration",
        ),
        (["--camera", "/dev/no-such-camera"], "camera device not found: /dev/no-such-camera"),
    ],
)
def test_bad_camera_arguments_give_one_clear_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = dashboard("--session", str(tmp_path / "s.db"), "--new", "--players", "A, B", *args)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_the_dashboard_command_reads_a_calibrated_video(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    result = dashboard(
        "--session", str(tmp_path / "s.db"), "--new", "--players", "Anna 40, Ben 40, Carla 40, Dan 40",
        "--rules", "seven-twenty-seven", "--video", str(FIXTURE) + ".mp4",
        "--calibration", str(FIXTURE) + ".calibration.json", "--models", str(tmp_path / "none"),
        "--quit-after", "2000", "--screenshot", str(shot),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    image = cv2.imread(str(shot))
    assert image is not None and image.shape[0] > 500


def test_a_camera_too_coarse_for_some_seats_says_so_under_the_picture(
    dealt_window: DashboardWindow, table: NDArray[np.uint8], tmp_path: Path
) -> None:
    from assistant.vision.calibration import load_calibration

    coarse = load_calibration(ROOT / "fixtures" / "video" / "online-727-heldout-standard.calibration.json")
    video = write_video(tmp_path / "coarse.avi", [table] * 3)
    pipeline = dealt_window.attach_camera(
        VideoFileSource(video), coarse, RedMeansSevenOfHearts(), start=False
    )
    run(pipeline, 3)
    text = pipeline.bar.label.text()
    assert pipeline.bar.isVisible() and "seat 1, 2 at up to 1.9 mm of table per pixel" in text
    assert dealt_window.controller.card_action("5s").ok  # a remark, not a stop
