"""Contact sheets to look at what the synthetic renderer makes.

python scripts/synth_contact_sheets.py decks OUTDIR      # one PNG per deck: 52 faces + back,
                                                         # index boxes drawn in red
python scripts/synth_contact_sheets.py dataset DATASET OUTDIR [--count 16] [--seed 0]
                                                         # random training images, labels drawn
python scripts/synth_contact_sheets.py videos VIDEODIR OUTDIR   # one frame of each video
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.synth.decks import EXTRA_INSTALL_HINT, INSTALL_HINT, load_records
from assistant.synth.facecache import DeckFaces
from assistant.synth.svgdeck import all_cards

CELL_H = 150
#: Box colours (BGR): cards green, indices red, card backs magenta.
COLOURS = {"card": (0, 255, 0), "index": (0, 0, 255), "face_down": (255, 0, 255)}


def deck_sheet(faces: DeckFaces) -> np.ndarray:
    record = faces.record
    w, h = faces.size
    cw = round(CELL_H * w / h)
    cells = []
    for card in [*all_cards(), None]:
        face = faces.face(card).astype(np.float32)
        alpha = face[:, :, 3:4] / 255.0
        rgb = (face[:, :, :3] * alpha + 90.0 * (1.0 - alpha)).astype(np.uint8)
        if card is not None:
            for corner in record.index_corners:
                x0, y0, x1, y1 = record.index_box_at(corner)
                cv2.rectangle(
                    rgb,
                    (round(x0 * w), round(y0 * h)),
                    (round(x1 * w), round(y1 * h)),
                    (0, 0, 255),
                    2,
                )
        cells.append(cv2.resize(rgb, (cw, CELL_H), interpolation=cv2.INTER_AREA))
    while len(cells) % 14:
        cells.append(np.full_like(cells[0], 90))
    rows = [np.hstack(cells[i : i + 14]) for i in range(0, len(cells), 14)]
    sheet = np.vstack(rows)
    title = f"{record.id}  split={record.split.value}  usable={record.usable}"
    title += f"  courts={record.court_letters}"
    band = np.full((28, sheet.shape[1], 3), 255, np.uint8)
    cv2.putText(band, title, (6, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    return np.vstack([band, sheet])


def draw_labels(image: np.ndarray, label_file: Path, names: list[str]) -> np.ndarray:
    out = image.copy()
    h, w = out.shape[:2]
    if not label_file.is_file():
        return out
    for line in label_file.read_text().splitlines():
        parts = line.split()
        cls = int(parts[0])
        cx, cy, bw, bh = (float(v) for v in parts[1:5])
        x0, y0 = round((cx - bw / 2) * w), round((cy - bh / 2) * h)
        x1, y1 = round((cx + bw / 2) * w), round((cy + bh / 2) * h)
        name = names[cls]
        colour = COLOURS.get(name, (255, 255, 0))  # chip stacks: cyan
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, 1)
    return out


def _letterbox(image: np.ndarray, side: int = 640) -> np.ndarray:
    h, w = image.shape[:2]
    out = np.full((side, side, 3), 40, np.uint8)
    scale = side / max(h, w)
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    out[: small.shape[0], : small.shape[1]] = small
    return out


def dataset_sheets(root: Path, count: int, seed: int, split: str = "train") -> list[np.ndarray]:
    """Sheets of 8 random images of ``split``: each as rendered, then with its labels."""
    import yaml

    names_raw = yaml.safe_load((root / "data.yaml").read_text())["names"]
    names = [names_raw[i] for i in sorted(names_raw)] if isinstance(names_raw, dict) else list(names_raw)
    images = sorted((root / "images" / split).glob("*.jpg"))
    if not images:
        raise SystemExit(f"no images under {root / 'images' / split}")
    picked = random.Random(seed).sample(images, min(count, len(images)))
    tiles = []
    for path in picked:
        image = cv2.imread(str(path))
        if image is None:
            raise SystemExit(f"{path}: not a readable image")
        label = root / "labels" / path.parent.name / (path.stem + ".txt")
        pair = np.hstack([_letterbox(image), _letterbox(draw_labels(image, label, names))])
        cv2.putText(pair, path.name, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2)
        tiles.append(pair)
    while len(tiles) % 2:
        tiles.append(np.zeros_like(tiles[0]))
    sheets = []
    for start in range(0, len(tiles), 8):
        chunk = tiles[start : start + 8]
        rows = [np.hstack(chunk[i : i + 2]) for i in range(0, len(chunk), 2)]
        sheets.append(np.vstack(rows))
    return sheets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write contact sheets of synthetic data.")
    parser.add_argument("what", choices=["decks", "dataset", "videos"])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--count", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    out = args.paths[-1]
    out.mkdir(parents=True, exist_ok=True)
    if args.what == "decks":
        for record in load_records():
            if not record.installed():  # a sheet of every design this machine has, French or not
                hint = EXTRA_INSTALL_HINT if record.extra else INSTALL_HINT
                print(f"{record.id}: not installed here, no sheet (install it: {hint})", file=sys.stderr)
                continue
            sheet = deck_sheet(DeckFaces.load(record))
            cv2.imwrite(str(out / f"deck-{record.id}.png"), sheet)
    elif args.what == "dataset":
        for index, sheet in enumerate(dataset_sheets(args.paths[0], args.count, args.seed)):
            cv2.imwrite(str(out / f"dataset-{index}.png"), sheet)
    else:
        for video in sorted(args.paths[0].glob("*.mp4")):
            capture = cv2.VideoCapture(str(video))
            truth = (
                json.loads(video.with_suffix("").with_suffix(".truth.json").read_text())
                if video.with_suffix("").with_suffix(".truth.json").exists()
                else {}
            )
            frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
            capture.set(cv2.CAP_PROP_POS_FRAMES, max(0, int(truth.get("showdown_frame", frames * 0.8))))
            ok, frame = capture.read()
            if ok:
                cv2.imwrite(str(out / f"video-{video.stem}.png"), frame)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
