"""Tiny datasets for training code paths, made of the detector's test fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_dataset(root: Path) -> Path:
    """``root`` laid out as a renderer split (images/ and truth/ for train and val), each
    split holding every fixture render with its truth."""
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True)
        (root / "truth" / split).mkdir(parents=True)
        for jpg in sorted(FIXTURES.glob("*.jpg")):
            shutil.copy(jpg, root / "images" / split / jpg.name)
            shutil.copy(jpg.with_suffix(".json"), root / "truth" / split / jpg.with_suffix(".json").name)
    return root
