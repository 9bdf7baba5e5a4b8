"""Stack views with true counts (``synth stacks``): the stack counter's data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from assistant.synth.chip_zones import CHIP_STACK_MAX
from assistant.synth.stack_views import StackViews, hand_stack_views
from assistant.vision.stack_view import READABLE_SIDE_PX, VIEW_SIZE


@pytest.fixture(scope="module")
def views(decks_installed: None) -> StackViews:
    return hand_stack_views((5, 0, "train", 2, 2))


def test_every_well_seen_stack_gives_its_copies_of_upright_views_with_its_count(views: StackViews) -> None:
    width, height = VIEW_SIZE
    assert len(views) >= 10 and len(views) % 2 == 0
    assert views.views.shape == (len(views), height, width, 3) and views.views.dtype == np.uint8
    assert set(views.counts.tolist()) <= set(range(1, CHIP_STACK_MAX + 1))
    assert (views.side_px >= READABLE_SIDE_PX).all()  # stacks seen from above are not counted
    # the two copies of a stack show it around bases a little apart: alike, not the same
    a, b = views.views[0].astype(int), views.views[1].astype(int)
    assert views.counts[0] == views.counts[1] and 0 < np.abs(a - b).mean() < 40


def test_stack_views_round_trip_and_a_damaged_file_is_refused(views: StackViews, tmp_path: Path) -> None:
    path = tmp_path / "stacks_train.npz"
    views.save(path)
    again = StackViews.load(path)
    assert np.array_equal(again.views, views.views) and again.deck == views.deck
    path.write_bytes(b"not an npz file")
    with pytest.raises(ValueError, match="not a stack-view file"):
        StackViews.load(path)


def test_synth_stacks_writes_the_split_says_how_many_and_refuses_no_hands(
    tmp_path: Path, decks_installed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    args = ["synth", "stacks", "--out", str(tmp_path), "--split", "test", "--shots", "1", "--workers", "1"]
    assert main([*args, "--hands", "1"]) == 0
    said = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert said["path"] == str(tmp_path / "stacks_test.npz")
    assert said["views"] == len(StackViews.load(tmp_path / "stacks_test.npz")) > 0
    assert main([*args, "--hands", "0"]) == 1
    assert "at least 1" in capsys.readouterr().err
