"""Dashboard tests run Qt offscreen; the QApplication is made the way the product makes it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assistant.engine import Session, Stakes, preset

os.environ["QT_QPA_PLATFORM"] = "offscreen"

NAMES = ("Anna", "Ben", "Carla", "Dan")


@pytest.fixture(scope="session")
def qapp(qapp_args: list[str]) -> Any:
    """pytest-qt's application, created after OpenCV's Qt variables are removed."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from assistant.dashboard.qt_env import application

    return application(qapp_args or ["pytest"])


def new_session(rules: str = "online-seven-twenty-seven", players: int = 4, **options: object) -> Session:
    return Session.new(
        preset(rules).with_options(**options),
        Stakes(ante=1, min_bet=1, max_bet=5, max_raises=3),
        [(name, 50) for name in NAMES[:players]],
    )


@pytest.fixture
def session() -> Session:
    return new_session()


@pytest.fixture
def window(qtbot: Any, tmp_path: Path, session: Session) -> Iterator[Any]:
    from assistant.dashboard.main_window import DashboardWindow

    win = DashboardWindow(session)
    win.history_dir = tmp_path
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()
