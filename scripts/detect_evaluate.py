"""Evaluate the shipped detector on a renderer split (default: held-out decks, ``test``).

    nice python scripts/detect_evaluate.py --dataset /work/data/det_a [--split test]
        [--models models] [--limit N] [--deck ID] [--out models/metrics.json]
        [--confusion models/confusion_cards.png] [--no-map]
        [--zones [--memory] [--sessions] [--tables] | --quick | --search]

Whole images are read as ``dealer-assistant detect`` reads a photo (:mod:`assistant.detect.photo`:
each card read upright from the corners the card finder gives, or with ``--search`` or
no finder in the model folder, from the search at every scale and angle), or with
``--quick`` in one stage-1 pass; ``--zones`` reads zone crops as the camera pipeline does
(with ``--sessions`` as its table sessions do: each deck design one session that learns
how far to trust its corner indices and its strips, crops in file order; with ``--tables``
the crops of one frame are one table's zones, no two of which keep one card's name). Crops
of ``synth zones --margins`` show the table around a seat's card zone as the pipeline cuts it,
and are judged as it counts the zone: only the cards whose centre lies in the zone.

Writes card-identity F1 (all labelled face-up cards, and those with a visible corner
index; the wrong cards counted by where they lie, ``wrong_cards_by_place``; for zone crops
each hand's tally, ``card_identity_per_hand``, which ``scripts/compare_arms.py`` resamples,
with ``--memory`` also as the card memory named it, ``card_identity_with_card_memory_per_hand``,
and how the distinct cards fared over their frames, ``card_identity_distinct_cards``), chip-count
accuracy (side visible) and unknown-rate (seen from above), and, with ``detector.pt``
present, stage-1 mAP50 per class group from ultralytics' validator.
The confusion matrix is over the 52 cards, for predicted cards whose box lies on a card.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.detect.evaluate import chip_reader_on_truth, evaluate
from assistant.detect.labels import RANKS, SUITS
from assistant.detect.pipeline import (
    CARD_FINDER_ONNX,
    DEFAULT_CONF,
    DETECTOR_PT,
    MODELS_DIR,
    ZONE_IMGSZ,
    CardDetector,
    Detection,
)

GROUPS = {"cards": ["card"], "index": ["index"], "face_down": ["face_down"], "chips": "chips_"}


def stage1_map50(weights: Path, dataset: Path, split: str, imgsz: int) -> dict[str, Any]:
    from assistant.detect.train_detector import offline_environment

    offline_environment()
    from ultralytics.models.yolo.model import YOLO

    model = YOLO(str(weights))
    metrics = model.val(
        data=str(dataset / "data.yaml"),
        split=split,
        imgsz=imgsz,
        plots=False,
        device="cpu",
        verbose=False,
        batch=8,
    )
    names = model.names
    per_class = {names[int(c)]: float(metrics.box.ap50[k]) for k, c in enumerate(metrics.box.ap_class_index)}
    out: dict[str, Any] = {"per_class": {k: round(v, 4) for k, v in per_class.items()}}
    for group, members in GROUPS.items():
        if isinstance(members, str):
            vals = [v for k, v in per_class.items() if k.startswith(members)]
        else:
            vals = [per_class[m] for m in members if m in per_class]
        out[group] = round(sum(vals) / len(vals), 4) if vals else None
    out["all"] = round(float(metrics.box.map50), 4)
    return out


def confusion_png(pairs: list[tuple[str, str]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    cards = [r + s for s in SUITS for r in RANKS]
    pos = {c: i for i, c in enumerate(cards)}
    m = np.zeros((52, 52))
    for true, pred in pairs:
        if true in pos and pred in pos:
            m[pos[true], pos[pred]] += 1
    rows = m.sum(1, keepdims=True)
    norm = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
    fig, ax = plt.subplots(figsize=(11, 10), dpi=100)
    ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(52), cards, rotation=90, fontsize=6)
    ax.set_yticks(range(52), cards, fontsize=6)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true (card under the predicted box)")
    ax.set_title(f"Card identity, held-out decks: {int(m.sum())} cards (row-normalised)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--deck", help="only this deck design's images (e.g. with a learnt deck's --models)")
    parser.add_argument("--conf", type=float, default=DEFAULT_CONF)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--confusion", type=Path)
    parser.add_argument("--no-map", action="store_true")
    parser.add_argument(
        "--zones", action="store_true", help="run as the camera pipeline does (upright zone crops, 320 px)"
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="with --zones: also name each zone's cards frame after frame through the pipeline's card memory",
    )
    parser.add_argument(
        "--sessions",
        action="store_true",
        help="with --zones: read each deck design as one table session learning its reader trust",
    )
    parser.add_argument(
        "--tables",
        action="store_true",
        help="with --zones: the crops of one frame are one table, no two zones keeping one card's name",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="whole images: one stage-1 pass at --imgsz (`detect --quick`), not the photo search",
    )
    parser.add_argument(
        "--search",
        action="store_true",
        help="whole images: the photo search view by view (`detect --search`), not the card finder",
    )
    args = parser.parse_args(argv)
    detect: Callable[[npt.NDArray[np.uint8], str], Detection]
    session = None
    if (args.sessions or args.tables) and not args.zones:
        parser.error("--sessions and --tables read zone crops: give --zones too")
    if args.zones:
        args.imgsz = ZONE_IMGSZ
        det = CardDetector.for_zones(args.models)
        detect = det.detect
        if args.sessions:
            zones = det

            def session() -> Callable[[npt.NDArray[np.uint8], str], Detection]:
                return zones.learning_reader_trust().detect
    elif args.quick:
        det = CardDetector.load(args.models, imgsz=args.imgsz, conf=args.conf)
        detect = det.detect
    else:  # what `detect` runs on a photo
        from assistant.detect.card_finder import load_card_finder
        from assistant.detect.photo import PhotoDetector

        det = CardDetector.for_zones(args.models)
        finder = None if args.search else load_card_finder(args.models)
        detect = PhotoDetector(det, finder=finder).detect
    report = evaluate(
        detect,
        args.dataset,
        args.split,
        args.limit,
        chips=True,
        memory=args.memory,
        deck=args.deck,
        session=session,
        tables=args.tables,
    )
    chip_reader = det.chip_reader
    chips = chip_reader_on_truth(
        lambda im, b: (
            chip_reader.read(im, b)["count"].argmax(1)
            if chip_reader is not None
            else np.zeros(len(b), np.int64)
        ),
        args.dataset,
        args.split,
    )
    result: dict[str, Any] = {
        "dataset": str(args.dataset),
        "split": args.split,
        **({"deck": args.deck} if args.deck else {}),
        "imgsz": args.imgsz,
        "mode": ("zones, a session per deck design" if args.sessions else "zones")
        + (", named apart across each frame's zones" if args.tables else "")
        if args.sessions or args.tables
        else "zones"
        if args.zones
        else "quick"
        if args.quick
        else "photo search"
        if args.search or not (args.models / CARD_FINDER_ONNX).is_file()
        else "card finder",
        **report.to_json(),
    }
    result["chip_reader_on_true_boxes"] = chips.to_json()
    if not args.no_map and (args.models / DETECTOR_PT).is_file():
        result["map50"] = stage1_map50(args.models / DETECTOR_PT, args.dataset, args.split, args.imgsz)
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    if args.confusion:
        confusion_png(report.pairs, args.confusion)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
