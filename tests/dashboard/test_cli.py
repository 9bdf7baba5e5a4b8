"""``dealer-assistant dashboard``: clear one-line errors, history export, and the real app on Xvfb."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.dashboard.qt_env import clean_qt_environment
from assistant.dashboard.xserver import Xvfb, display_environment
from assistant.store import SessionStore
from tests.dashboard.conftest import new_session

ROOT = Path(__file__).resolve().parents[2]


def dashboard(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assistant", "dashboard", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )


def offscreen() -> dict[str, str]:
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen"}


def test_help_is_fast_and_imports_no_qt() -> None:
    code = (
        "import sys; from assistant.cli import build_parser; build_parser(); print('PySide6' in sys.modules)"
    )
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--session", "/nonexistent/dir/s.db", "--new"], "folder /nonexistent/dir does not exist"),
        (["--players", "Anna 50", "--new"], "a session needs at least two players"),
        (["--players", "Anna x, Ben 5", "--new"], "the stack must be a whole number"),
        (["--players", "Anna, Ben", "--rules", "nine-ninety"], "unknown rules preset 'nine-ninety'"),
        (["--players", "Anna, Ben", "--option", "freeze_after=-1"], "freeze_after must be 0"),
        (["--players", "Anna, Ben", "--max-bet", "0"], "invalid stakes"),
        (["--screenshot", "x.png"], "--screenshot needs --quit-after"),
    ],
)
def test_bad_arguments_give_one_clear_line(args: list[str], message: str) -> None:
    result = dashboard(*args, env=offscreen())
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dealer-assistant dashboard: error: ")
    assert message in lines[0]


def test_a_damaged_session_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "broken.db"
    path.write_bytes(b"this is not sqlite" * 100)
    result = dashboard("--session", str(path), "--resume", env=offscreen())
    assert result.returncode == 1 and "not a readable session file" in result.stderr
    assert path.read_bytes() == b"this is not sqlite" * 100


def test_a_missing_video_is_refused_before_any_window(tmp_path: Path) -> None:
    result = dashboard(
        "--session",
        str(tmp_path / "s.db"),
        "--new",
        "--players",
        "A, B",
        "--video",
        str(tmp_path / "none.mp4"),
        env=offscreen(),
    )
    assert result.returncode == 1 and "video file not found" in result.stderr
    assert not (tmp_path / "s.db").exists() or SessionStore(tmp_path / "s.db").latest() is None


def test_an_absent_camera_is_a_clear_error(tmp_path: Path) -> None:
    result = dashboard(
        "--session", str(tmp_path / "s.db"), "--new", "--players", "A, B", "--camera", "57", env=offscreen()
    )
    assert result.returncode == 1 and "no camera answers at 57" in result.stderr


def test_no_display_is_a_clear_error_not_a_crash(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = dashboard("--session", str(tmp_path / "s.db"), "--new", "--players", "A, B", env=env)
    assert result.returncode == 1 and "no display" in result.stderr


def test_the_hand_history_is_exported_from_a_saved_session(tmp_path: Path) -> None:
    session = new_session("seven-twenty-seven", players=2)
    store = SessionStore(tmp_path / "s.db")
    store.attach(session, store.create(session))
    session.start_hand()
    session.deal(1, "6c")
    store.close()
    target = tmp_path / "history.txt"
    result = dashboard("--session", str(tmp_path / "s.db"), "--export-history", str(target))
    assert result.returncode == 0, result.stderr
    assert "Ben is dealt 6c up" in target.read_text(encoding="utf-8")
    missing = dashboard("--session", str(tmp_path / "none.db"), "--export-history", str(target))
    assert missing.returncode == 1 and "no session file" in missing.stderr


def test_opencvs_qt_variables_are_removed_and_others_kept() -> None:
    cv2_dir = str(Path(cv2.__file__).parent / "qt" / "plugins")
    env = {"QT_QPA_PLATFORM_PLUGIN_PATH": cv2_dir, "QT_QPA_FONTDIR": "/usr/share/fonts"}
    assert clean_qt_environment(env) == ["QT_QPA_PLATFORM_PLUGIN_PATH"]
    assert env == {"QT_QPA_FONTDIR": "/usr/share/fonts"}


def test_resume_then_new_in_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    first = dashboard(
        "--session",
        str(path),
        "--new",
        "--players",
        "Anna 20, Ben 20",
        "--quit-after",
        "300",
        env=offscreen(),
    )
    assert first.returncode == 0, first.stderr
    again = dashboard("--session", str(path), "--resume", "--quit-after", "300", env=offscreen())
    assert again.returncode == 0, again.stderr
    store = SessionStore(path)
    assert len(store.sessions()) == 1
    store.close()


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)")
def test_the_app_starts_on_a_real_x_server_after_opencv_is_imported(tmp_path: Path) -> None:
    """The opencv-python trap: ``--video`` imports cv2 (which points Qt at its own plugins)
    before the window opens; the app must still start on Xvfb, show the video and exit 0."""
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (160, 120))
    for i in range(5):
        writer.write(np.full((120, 160, 3), 50 * i, np.uint8))
    writer.release()
    shot = tmp_path / "shot.png"
    with Xvfb(1280, 800) as display:
        env = display_environment(display)
        env.pop("QT_QPA_PLATFORM")  # as a dealer would run it: Qt picks xcb from DISPLAY
        env["QT_DEBUG_PLUGINS"] = "1"  # Qt then names every plugin folder it looks in
        result = dashboard(
            "--session",
            str(tmp_path / "s.db"),
            "--new",
            "--players",
            "Anna 50, Ben 50, Carla 50",
            "--video",
            str(video),
            "--quit-after",
            "2500",
            "--screenshot",
            str(shot),
            env=env,
        )
    assert result.returncode == 0, result.stderr
    assert "Could not load the Qt platform plugin" not in result.stderr
    assert "checking directory path" in result.stderr  # the plugin search was logged...
    assert "cv2/qt/plugins" not in result.stderr  # ...and never went into OpenCV's Qt
    image = cv2.imread(str(shot))
    assert image is not None and image.shape[0] > 500 and image.shape[1] > 900
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 50  # a drawn window, not a blank one
