from __future__ import annotations

import doctest
import importlib
import subprocess
import sys

import pytest

MODULES = [
    "assistant.vision.geometry",
    "assistant.vision.layout",
    "assistant.vision.default_layouts",
    "assistant.vision.markers",
    "assistant.vision.lens",
    "assistant.vision.calibration",
    "assistant.vision.rectify",
    "assistant.vision.motion",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0


def test_benchmark_reports_bump_residuals_and_timings(capsys: pytest.CaptureFixture[str]) -> None:
    from assistant.vision import benchmark

    assert benchmark.main(["--seats", "4", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "bump check, undisturbed" in out and "roll 0.5 deg" in out
    assert "zone feed, nothing changed" in out


def test_registering_the_calibrate_command_imports_no_heavy_library() -> None:
    code = (
        "import sys, argparse\n"
        "import assistant.vision.cli as cli\n"
        "cli.register(argparse.ArgumentParser().add_subparsers())\n"
        "print(sorted(m for m in ('cv2', 'numpy', 'torch') if m in sys.modules))\n"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert output.stdout.strip() == "[]"
