"""Card-identity F1 against training time: one point per saved detector epoch.

    nice python scripts/detect_curve.py --run /work/data/runs/detector \\
        --dataset /work/data/det_a [--limit 60] [--out models/f1_vs_time.png]

Each ``RUN/weights/epochN.pt`` runs through the ultralytics backend with the shipped
readers (models/index_reader.onnx, models/chip_reader.onnx) over the held-out split;
the x axis is the run's cumulative training time from ``RUN/results.csv``. A second
panel shows the index reader's validation accuracy against its own training time
(``--reader-history``). Writes the PNG and, beside it, the numbers as JSON.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.detect.backends import UltralyticsDetector
from assistant.detect.evaluate import evaluate
from assistant.detect.pipeline import (
    CHIP_READER,
    DEFAULT_CONF,
    MODELS_DIR,
    ZONE_CONF,
    ZONE_IMGSZ,
    ZONE_MIN_CARD_PX,
    CardDetector,
    index_reader,
)
from assistant.detect.readers import OnnxReader


def epoch_times(run: Path) -> dict[int, float]:
    with open(run / "results.csv") as handle:
        rows = list(csv.DictReader(handle))
    return {int(float(r["epoch"])): float(r["time"]) for r in rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--conf", type=float, default=DEFAULT_CONF)
    parser.add_argument("--reader-history", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=MODELS_DIR / "f1_vs_time.png")
    parser.add_argument("--zones", action="store_true", help="as the camera pipeline runs it (zone crops)")
    args = parser.parse_args(argv)
    times = epoch_times(args.run)
    index = index_reader(args.models)
    chips = args.models / CHIP_READER
    chip_reader = OnnxReader(chips) if chips.is_file() else None
    points = []
    checkpoints = sorted(
        (int(m.group(1)), p)
        for p in (args.run / "weights").glob("epoch*.pt")
        if (m := re.fullmatch(r"epoch(\d+)\.pt", p.name))
    )
    for epoch, weights in checkpoints:
        if epoch + 1 not in times:  # ultralytics names checkpoints from epoch 0
            continue
        if args.zones:
            backend = UltralyticsDetector(weights, ZONE_IMGSZ, ZONE_CONF)
            det = CardDetector(backend, index, chip_reader, upright=True, min_card_px=ZONE_MIN_CARD_PX)
        else:
            det = CardDetector(UltralyticsDetector(weights, args.imgsz, args.conf), index, chip_reader)
        report = evaluate(det.detect, args.dataset, args.split, args.limit)
        point = {
            "epoch": epoch + 1,
            "train_seconds": times[epoch + 1],
            "f1": round(report.all_cards.f1, 4),
            "f1_index_visible": round(report.readable_cards.f1, 4),
        }
        print(json.dumps(point), flush=True)
        points.append(point)
    history = []
    if args.reader_history and args.reader_history.is_file():
        history = json.loads(args.reader_history.read_text())
    args.out.with_suffix(".json").write_text(
        json.dumps({"detector": points, "reader": history}, indent=1) + "\n"
    )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2 if history else 1, figsize=(11 if history else 6, 4), dpi=100)
    ax = axes[0] if history else axes
    minutes = [p["train_seconds"] / 60 for p in points]
    ax.plot(minutes, [p["f1"] for p in points], "o-", label="all labelled face-up cards")
    ax.plot(minutes, [p["f1_index_visible"] for p in points], "s--", label="cards with a visible index")
    ax.set_xlabel("detector training time on 2 shared CPU cores (minutes, this run)")
    ax.set_ylabel("card-identity F1, held-out decks")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    if history:
        rx = [h["seconds"] / 60 for h in history]
        axes[1].plot(rx, [h["val_rank"] for h in history], "o-", label="rank")
        axes[1].plot(rx, [h["val_suit"] for h in history], "s-", label="suit")
        axes[1].set_xlabel("index reader training time (minutes)")
        axes[1].set_ylabel("validation accuracy (validation decks)")
        axes[1].set_ylim(0, 1)
        axes[1].grid(alpha=0.3)
        axes[1].legend()
    fig.tight_layout()
    fig.savefig(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
