"""Screenshots of the real dashboard under Xvfb at three moments of a hand.

    python scripts/dashboard_screenshots.py [OUT_DIR]      (default: screenshots/dashboard)

Starts its own Xvfb, opens the real window on it (OpenCV imported first, as in the
product), drives one hand of online 7/27 with the dealer's keys, and saves what the X
server shows: ``1-betting.png`` (a bet to call), ``2-draw-frozen.png`` (a draw round with
a frozen player) and ``3-showdown.png`` (the scored showdown).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.dashboard.xserver import Xvfb, display_environment  # noqa: E402

WIDTH, HEIGHT = 1600, 960

#: (keys, screenshot to take after them). Space: first deal or a face-down card nobody
#: saw; N refuses; C checks or calls; B bets; F folds; L/H/O declare; cards are typed.
HAND: tuple[tuple[str, str | None], ...] = (
    (" ", None),  # first deal: Anna deals
    ("    ", None),  # a face-down card each: Ben, Carla, Dan, Anna
    ("6cKd9h3s", None),  # the face-up cards
    ("C2BC", "1-betting.png"),  # Ben checks, Carla bets 2, Dan calls: Anna has 2 to call
    ("CC", None),  # Anna and Ben call
    (" N  ", None),  # draw 1: Ben takes, Carla refuses, Dan and Anna take
    ("CCCC", None),
    ("NNN ", None),  # draw 2: only Anna takes
    ("CCCC", None),
    ("NN", "2-draw-frozen.png"),  # draw 3: Ben refuses, Carla refuses a third time: frozen
    (" N", None),  # Dan takes, Anna refuses
    ("CCCC", None),
    ("NNN", None),  # draw 4: Ben is frozen too; nobody takes: last betting round
    ("CCBFCC", None),  # Dan bets 1, Anna folds, Ben and Carla call
    ("LOH", None),  # Ben low, Carla both, Dan high
    ("AhQs5d8c7d2h", "3-showdown.png"),  # the face-down cards, turned up
)


def run(out: Path) -> list[Path]:
    import cv2  # noqa: F401  (the product imports OpenCV first: the trap must not bite)

    from assistant.dashboard.qt_env import application

    app = application()
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    from assistant.dashboard.main_window import DashboardWindow
    from assistant.engine import Session, Stakes, preset
    from assistant.store import SessionStore

    if app.platformName() != "xcb":
        raise SystemExit(f"expected the xcb platform on Xvfb, got {app.platformName()}")
    store = SessionStore(Path(tempfile.mkdtemp()) / "screenshots.db")
    session = Session.new(
        preset("online-seven-twenty-seven"),
        Stakes(ante=1, min_bet=1, max_bet=5, max_raises=3),
        [("Anna", 50), ("Ben", 50), ("Carla", 50), ("Dan", 50)],
    )
    store.attach(session, store.create(session, "screenshots"))
    window = DashboardWindow(session)
    window.setGeometry(0, 0, WIDTH, HEIGHT)
    window.show()
    QTest.qWaitForWindowExposed(window)
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    for keys, shot in HAND:
        for char in keys:
            if char == " ":
                QTest.keyClick(window, Qt.Key.Key_Space)
            else:
                QTest.keyClicks(window, char)
            if not window.controller.message_ok:
                raise SystemExit(f"key {char!r} of {keys!r} was refused: {window.controller.message}")
        QTest.qWait(200)
        if shot:
            screen = QGuiApplication.primaryScreen()
            path = out / shot
            screen.grabWindow(0).save(str(path))
            saved.append(path)
            print(f"{path}: {window.banner.text()} (window {window.width()}x{window.height()})")
    window.close()
    store.close()
    return saved


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "screenshots" / "dashboard"
    if os.environ.get("DASHBOARD_SCREENSHOT_CHILD"):
        run(out)
        return 0
    import subprocess

    with Xvfb(WIDTH, HEIGHT) as display:
        env = display_environment(display)
        env["DASHBOARD_SCREENSHOT_CHILD"] = "1"
        return subprocess.run([sys.executable, __file__, str(out)], env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
