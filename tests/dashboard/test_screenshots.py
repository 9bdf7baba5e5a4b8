"""The real window on a real X server (Xvfb), driven through a whole hand by keys."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "dashboard_screenshots.py"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)")
def test_the_window_keeps_its_size_as_one_decision_s_buttons_replace_another_s(tmp_path: Path) -> None:
    """On a 1600 x 960 screen the window stays 1600 x 960 through bets, draws with the card
    picker and the showdown (it once grew 42 px for good when the draw buttons came)."""
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=240
    )
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    assert len(lines) == 3 and all(line.endswith("(window 1600x960)") for line in lines), lines
    assert sorted(p.name for p in tmp_path.glob("*.png")) == [
        "1-betting.png",
        "2-draw-frozen.png",
        "3-showdown.png",
    ]
