"""The zone-crop dataset: what the camera pipeline sees, labelled in crop pixels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from assistant.synth.decks import Split, installed_decks
from assistant.synth.labels import CLASS_NAMES
from assistant.synth.zones import write_zone_dataset

pytestmark = pytest.mark.usefixtures("decks_installed")


@pytest.fixture(scope="module")
def zones(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("zones")
    write_zone_dataset(out, 2, 3, rate=0.08, val=0.0, test=0.5)
    return out


def _truths(out: Path, split: str) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((out / "truth" / split).glob("*.json"))]


def test_zone_crops_are_written_at_one_millimetre_per_pixel_with_their_truth(zones: Path) -> None:
    truths = _truths(zones, "train")
    assert truths
    for truth in truths:
        image = cv2.imread(str(zones / "images" / "train" / truth["image"]))
        assert image is not None
        assert [image.shape[1], image.shape[0]] == truth["size"]
        assert truth["mm_per_px"] == 1.0
    # a seat's card zone (280 x 130 mm in the default layouts) is 280 x 130 px
    cards = [t for t in truths if t["zone"].endswith(".cards")]
    assert cards and all(t["size"] == [280, 130] for t in cards)


def test_a_labelled_card_lies_in_its_crop_and_its_indices_lie_on_it(zones: Path) -> None:
    seen = 0
    for truth in _truths(zones, "train"):
        w, h = truth["size"]
        for obj in truth["objects"]:
            if not obj["labelled"] or obj["kind"] != "card":
                continue
            x0, y0, x1, y1 = obj["box"]
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
            corners = np.array(obj["corners"])
            # a card is 63 x 88 mm: its sides in a 1 mm/px crop are about that long
            sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
            assert 50 < min(sides) < 75 and 75 < max(sides) < 100
            for idx in obj["indices"]:
                if idx["labelled"]:
                    quad = np.array(idx["quad"])
                    inside = cv2.pointPolygonTest(corners.astype(np.float32), quad.mean(0).tolist(), False)
                    assert inside > 0
                    seen += 1
    assert seen > 0


def test_yolo_labels_match_the_labelled_truth(zones: Path) -> None:
    for truth in _truths(zones, "train"):
        name = Path(truth["image"]).stem
        lines = (zones / "labels" / "train" / f"{name}.txt").read_text().split()
        classes = [CLASS_NAMES[int(v)] for v in lines[::5]]
        objects = [o for o in truth["objects"] if o["labelled"]]
        expected = sum(1 for o in objects) + sum(
            1 for o in objects if o["kind"] == "card" for i in o["indices"] if i["labelled"]
        )
        assert len(classes) == expected


def test_each_split_renders_only_its_own_decks(zones: Path) -> None:
    held_out = {r.id for r in installed_decks(split=Split.HELD_OUT)}
    train = {r.id for r in installed_decks(split=Split.TRAIN)}
    assert {t["deck"] for t in _truths(zones, "test")} <= held_out
    assert {t["deck"] for t in _truths(zones, "train")} <= train
    assert "names:" in (zones / "data.yaml").read_text()


def test_each_crop_says_how_finely_the_camera_saw_its_zone(zones: Path) -> None:
    """``camera_mm_per_px``: the zone's coarsest sampling, a 960-1920 px wide camera over a table."""
    truths = _truths(zones, "train") + _truths(zones, "test")
    assert truths
    for truth in truths:
        width = truth["camera"]["width"]
        assert 0.5 < truth["camera_mm_per_px"] < 4.0
        # the whole table (1.2-2 m wide) is in view: a pixel spans at least table / width
        assert truth["camera_mm_per_px"] > 1200 / width


def test_camera_sizes_can_be_chosen_for_a_finer_or_coarser_test_set(tmp_path: Path) -> None:
    write_zone_dataset(tmp_path, 1, 5, rate=0.05, val=0.0, test=0.99, sizes=((2560, 1440),))
    truths = _truths(tmp_path, "test")
    assert truths and {t["camera"]["width"] for t in truths} == {2560}
    assert json.loads((tmp_path / "synth.json").read_text())["runs"][-1]["sizes"] == [[2560, 1440]]
    with pytest.raises(ValueError, match="at least 64"):
        write_zone_dataset(tmp_path, 1, 5, sizes=((32, 32),))


@pytest.mark.parametrize("sizes", ["1920by1080", "1920x", "32x32", "1920x1080,x"])
def test_the_zones_command_refuses_a_camera_size_it_cannot_read(tmp_path: Path, sizes: str) -> None:
    from assistant.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["synth", "zones", "--out", str(tmp_path), "--hands", "1", "--sizes", sizes])
    assert exit_info.value.code == 2
    assert not (tmp_path / "images").exists()


def test_one_split_rendered_alone_comes_out_as_in_the_whole_run(zones: Path, tmp_path: Path) -> None:
    write_zone_dataset(tmp_path, 2, 3, rate=0.08, val=0.0, test=0.5, only=("test",))
    alone = sorted((tmp_path / "images" / "test").glob("*.jpg"))
    whole = sorted((zones / "images" / "test").glob("*.jpg"))
    assert alone and [p.name for p in alone] == [p.name for p in whole]
    assert all(a.read_bytes() == w.read_bytes() for a, w in zip(alone, whole, strict=True))
    assert _truths(tmp_path, "test") == _truths(zones, "test")
    assert not list((tmp_path / "images" / "train").glob("*.jpg"))
    assert json.loads((tmp_path / "synth.json").read_text())["runs"][-1]["only"] == ["test"]
    with pytest.raises(ValueError, match="--only takes train, val, test, not tests"):
        write_zone_dataset(tmp_path / "bad", 2, 3, only=("tests",))


def test_splits_rendered_one_after_another_into_one_folder_each_keep_their_record(tmp_path: Path) -> None:
    write_zone_dataset(tmp_path, 2, 3, rate=0.08, val=0.0, test=0.5, only=("test",))
    write_zone_dataset(tmp_path, 2, 3, rate=0.08, val=0.0, test=0.5, only=("train",))
    runs = json.loads((tmp_path / "synth.json").read_text())["runs"]
    assert [(r["only"], r["crops"]["train"] > 0, r["crops"]["test"] > 0) for r in runs] == [
        (["test"], False, True),
        (["train"], True, False),
    ]
    write_zone_dataset(tmp_path, 2, 3, rate=0.08, val=0.0, test=0.5)  # the whole run again
    assert ["only" in r for r in json.loads((tmp_path / "synth.json").read_text())["runs"]] == [False]


@pytest.mark.parametrize(
    ("only", "status", "error"),
    [("val", 1, "no hand falls in val"), ("tests", 2, "the splits are train, val, test")],
)
def test_the_zones_command_refuses_a_split_with_no_hand_or_no_such_split(
    tmp_path: Path, only: str, status: int, error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from assistant.cli import main

    code: int | str | None
    try:
        code = main(["synth", "zones", "--out", str(tmp_path), "--hands", "2", "--val", "0", "--only", only])
    except SystemExit as exit_info:
        code = exit_info.code
    assert code == status
    assert error in capsys.readouterr().err
    assert not (tmp_path / "images").exists()


def test_card_zones_cut_with_the_pipelines_margin_show_the_same_hand_and_say_where_the_zone_lies(
    zones: Path, tmp_path: Path
) -> None:
    from assistant.pipeline.zones import CARD_ZONE_MARGIN_MM

    write_zone_dataset(tmp_path, 2, 3, rate=0.08, val=0.0, test=0.5, only=("test",), margins=True)
    cut = {t["image"]: t for t in _truths(tmp_path, "test")}
    plain = {t["image"]: t for t in _truths(zones, "test")}
    mx, my = (round(m) for m in CARD_ZONE_MARGIN_MM)
    seats = [name for name in plain if ".cards" in name and name in cut]
    assert seats
    for name in seats:
        w, h = plain[name]["size"]
        assert cut[name]["size"] == [w + 2 * mx, h + 2 * my]
        assert cut[name]["inner"] == [mx, my, w + mx, h + my] and "inner" not in plain[name]
        # the same cards, the margin's further off: each card of the plain crop lies
        # (mx, my) further right and down in the crop with the margin
        plain_cards = {o["card"]: o for o in plain[name]["objects"] if o["kind"] == "card"}
        for obj in cut[name]["objects"]:
            if obj["kind"] == "card" and obj["card"] in plain_cards:
                shifted = np.asarray(plain_cards[obj["card"]]["corners"]) + np.array([mx, my])
                assert np.allclose(obj["corners"], shifted, atol=0.6)
    others = [name for name in plain if ".cards" not in name and name in cut]
    assert all(cut[name]["size"] == plain[name]["size"] and "inner" not in cut[name] for name in others)
    assert json.loads((tmp_path / "synth.json").read_text())["runs"][-1]["card_zone_margin_mm"] == [
        32.0,
        20.0,
    ]
