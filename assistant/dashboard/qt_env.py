"""Starting Qt safely next to OpenCV.

The opencv-python wheel bundles its own Qt plugins and, on ``import cv2``, points
``QT_QPA_PLATFORM_PLUGIN_PATH`` (and ``QT_QPA_FONTDIR``) into its package. PySide6 then
tries OpenCV's xcb plugin, built against another Qt, and may fail to start on a real
display. :func:`clean_qt_environment` removes those two variables when they point into
OpenCV's package, and :func:`application` calls it before creating the QApplication.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

QT_VARIABLES = ("QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR")


def _opencv_dirs() -> list[Path]:
    spec = importlib.util.find_spec("cv2")
    if spec is None:
        return []
    return [Path(p).resolve() for p in (spec.submodule_search_locations or [])]


def clean_qt_environment(environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Drop Qt variables that point into OpenCV's bundled Qt; returns the names removed."""
    env = os.environ if environ is None else environ
    dirs = _opencv_dirs()
    removed = []
    for name in QT_VARIABLES:
        value = env.get(name)
        if not value:
            continue
        path = Path(value).resolve()
        if any(path == d or d in path.parents for d in dirs) or "cv2" in path.parts:
            del env[name]
            removed.append(name)
    return removed


def application(argv: list[str] | None = None) -> QApplication:
    """The QApplication, created once, after the environment is cleaned."""
    clean_qt_environment()
    from PySide6.QtWidgets import QApplication

    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("dealer-assistant")
    return app


def drops_none_references(calls: int = 200) -> bool:
    """Whether this PySide6 forgets a reference to ``None`` on every call that returns it.

    PySide6 6.12.0 does so under Python 3.11 (where ``None`` is not immortal): after a few
    thousand redraws the interpreter aborts with "deallocating None". Needs a QApplication.
    """
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(calls):
        probe.setObjectName("probe")
    return before - sys.getrefcount(None) >= calls // 2
