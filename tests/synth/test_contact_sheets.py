"""scripts/synth_contact_sheets.py: a sheet per installed design, and a line naming the
install for each design this machine does not have."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import cv2
import pytest

from assistant.synth.decks import EXTRA_INSTALL_HINT, load_records

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "synth_contact_sheets.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("synth_contact_sheets", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_design_not_installed_is_named_with_its_install_and_the_others_get_their_sheets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    chosen = [r for r in load_records() if r.id in ("npm-kennard", "kde-standard")]
    assert len(chosen) == 2
    monkeypatch.setattr(script, "load_records", lambda: chosen)
    monkeypatch.setenv("DEALER_DECKS", str(tmp_path / "no-npm-decks"))  # npm designs not fetched
    out = tmp_path / "sheets"
    assert script.main(["decks", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["deck-kde-standard.png"]
    assert cv2.imread(str(out / "deck-kde-standard.png")) is not None
    err = capsys.readouterr().err
    assert f"npm-kennard: not installed here, no sheet (install it: {EXTRA_INSTALL_HINT})" in err
