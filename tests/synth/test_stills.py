"""The committed still set (fixtures/images/synth) and the dataset command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from assistant.synth.labels import CLASS_ID, CLASS_NAMES

ROOT = Path(__file__).resolve().parents[2]
STILLS = ROOT / "fixtures" / "images" / "synth"


def _check_dataset(root: Path) -> int:
    """Every label line matches a labelled object of the truth file; counts line up."""
    checked = 0
    for label in sorted(root.glob("labels/*/*.txt")):
        split, stem = label.parent.name, label.stem
        truth = json.loads((root / "truth" / split / f"{stem}.json").read_text())
        w, h = truth["size"]
        lines = [line.split() for line in label.read_text().splitlines()]
        counts = (root / "counts" / split / f"{stem}.txt").read_text().splitlines()
        assert len(counts) == len(lines)
        expected = []
        for obj in truth["objects"]:
            if not obj["labelled"]:
                continue
            if obj["kind"] == "chips":
                expected.append((CLASS_ID[f"chips_{obj['colour']}"], obj["box"], obj["count"]))
                continue
            expected.append((CLASS_ID[obj["kind"]], obj["box"], 0))
            expected.extend((CLASS_ID["index"], None, 0) for i in obj["indices"] if i["labelled"])
        assert [e[0] for e in expected] == [int(line[0]) for line in lines]
        for (_, box, count), line, count_line in zip(expected, lines, counts, strict=True):
            assert int(count_line) == count
            cx, cy, bw, bh = (float(v) for v in line[1:])
            eps = 1e-5  # six decimals in the label files
            assert -eps <= cx - bw / 2 and cx + bw / 2 <= 1 + eps
            assert -eps <= cy - bh / 2 and cy + bh / 2 <= 1 + eps
            if box is not None:
                assert abs((box[0] + box[2]) / 2 / w - cx) < 1e-3
                assert abs((box[3] - box[1]) / h - bh) < 1e-3
            checked += 1
    return checked


def test_committed_still_set_labels_agree_with_its_truth() -> None:
    assert _check_dataset(STILLS) > 100
    names = (STILLS / "data.yaml").read_text()
    for i, name in enumerate(CLASS_NAMES):
        assert f"  {i}: {name}\n" in names


def test_committed_still_set_loads_in_ultralytics(tmp_path: Path) -> None:
    pytest.importorskip("ultralytics")
    from ultralytics.data.utils import check_det_dataset

    copy = tmp_path / "synth"
    shutil.copytree(STILLS, copy)
    data = check_det_dataset(str(copy / "data.yaml"))
    assert data["nc"] == len(CLASS_NAMES)
    assert Path(data["train"]).is_dir() and Path(data["val"]).is_dir()


@pytest.mark.usefixtures("decks_installed")
def test_dataset_command_writes_a_consistent_dataset(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "assistant",
            "synth",
            "dataset",
            "--out",
            str(out),
            "--images",
            "3",
            "--seed",
            "4",
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stdout
    assert _check_dataset(out) > 0
    crops = (out / "crops" / "train" / "labels.csv").read_text().splitlines()
    assert crops[0] == "file,card,rank,suit,deck"
    for row in crops[1:]:
        file, card, rank, suit, _ = row.split(",")
        assert card.startswith(rank) and suit in ("", card[1])
        assert (out / "crops" / "train" / file).is_file()


def test_dataset_command_rejects_bad_arguments_in_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "assistant", "synth", "dataset", "--out", str(tmp_path), "--images", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "--images must be at least 1" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_photo_set_of_close_ups_is_drawn_at_the_sizes_asked_for(tmp_path: Path) -> None:
    """`--closeups 1 --sizes ...`: every image a hand-held close-up of a few cards, at one of the sizes."""
    out = tmp_path / "photos"
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "assistant", "synth", "dataset", "--out", str(out), "--images", "4"),
            *("--seed", "5", "--val", "0", "--test", "0.5", "--no-crops"),
            *("--closeups", "1", "--sizes", "1280x960,720x1280"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    truths = [json.loads(p.read_text()) for p in sorted(out.glob("truth/*/*.json"))]
    assert len(truths) == 4
    for truth in truths:
        assert tuple(truth["size"]) in {(1280, 960), (720, 1280)}
        image = cv2.imread(str(next(out.glob(f"images/*/{truth['image']}"))))
        assert image is not None
        assert (image.shape[1], image.shape[0]) == tuple(truth["size"])
        # a close-up: one to six face-up cards (and at most one back), no whole table of hands
        cards = [o for o in truth["objects"] if o["kind"] == "card"]
        assert 1 <= len(cards) <= 6
    summary = json.loads((out / "synth.json").read_text())
    assert summary["closeups"] == 1.0 and summary["sizes"] == [[1280, 960], [720, 1280]]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--closeups", "1.5"), "--closeups must be a fraction from 0 to 1"),
        (("--sizes", "12x9"), "camera size"),
    ],
)
def test_photo_kind_arguments_out_of_range_are_refused(
    tmp_path: Path, extra: tuple[str, str], message: str
) -> None:
    command = [sys.executable, "-m", "assistant", "synth", "dataset", "--out", str(tmp_path), "--images", "2"]
    proc = subprocess.run(
        [*command, *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode != 0
    assert message in proc.stderr
