"""The index reader alone: every visible corner index of a `synth zones` split read at its
true box, as the pipeline reads it (a top-left index as it stands, a bottom-right one
turned half round, each in the zone views averaged), per deck design and per camera sampling.

    python scripts/reader_evaluate.py --dataset /work/data/zones_a --split test [--models DIR]
        [--single-view | --each-reader] [--limit N] [--out F]

``--single-view`` reads each index in the one view the reader was trained on instead.
``--each-reader`` reads every upright card whose top-left index is in view with each card
reader alone (the first and second index readers, both, the strip, the face) and all of
them together as the pipeline weighs them (:mod:`assistant.detect.readers_alone`).

It tells reading from finding: where this is about the whole detector's card-identity F1
(`scripts/detect_evaluate.py --zones`), stage 1 finds the cards and the reader decides.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.detect.evaluate import sampling_bin
from assistant.detect.labels import RANKS, SUITS
from assistant.detect.pipeline import MODELS_DIR, ZONE_INDEX_VIEWS, index_reader
from assistant.detect.reader_data import quad_box
from assistant.detect.readers import CropViews

MIN_VISIBLE = 0.9  # an index this much in view (and labelled: inside the crop, big enough) is judged
TURNS = {"tl": 0, "br": 2}  # corners of an upright card whose index the pipeline reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--single-view", action="store_true", help="one view per index, as trained")
    parser.add_argument(
        "--each-reader", action="store_true", help="each card reader alone on upright cards, and all together"
    )
    parser.add_argument(
        "--limit", type=int, help="with --each-reader: this many crops, spread over the split"
    )
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    if args.each_reader:
        each_reader(parser, args)
        return
    truths = sorted((args.dataset / "truth" / args.split).glob("*.cards.json"))
    if not truths:
        parser.error(f"no seat card zones in {args.dataset}/truth/{args.split}")
    views = CropViews() if args.single_view else ZONE_INDEX_VIEWS
    reader = index_reader(args.models, views=views)  # with its second reader, as the pipeline reads
    tallies: dict[str, Counter[str]] = {}
    mistakes: Counter[str] = Counter()
    unreadable = 0  # images that could not be read
    for path in truths:
        truth = json.loads(path.read_text())
        judged = [
            (obj["card"], index)
            for obj in truth["objects"]
            if obj["kind"] == "card" and obj["labelled"] and obj.get("card")
            for index in obj["indices"]
            if index["labelled"] and index["visible"] >= MIN_VISIBLE and index["corner"] in TURNS
        ]
        if not judged:
            continue
        image = cv2.imread(str(args.dataset / "images" / args.split / truth["image"]))
        if image is None:
            unreadable += 1
            continue
        groups = ["all", f"deck {truth['deck']}"]
        if truth.get("camera_mm_per_px") is not None:
            groups.append(f"mm/px {sampling_bin(float(truth['camera_mm_per_px']))}")
        for corner, turns in TURNS.items():  # one batch per corner
            cards = [card for card, index in judged if index["corner"] == corner]
            boxes = [quad_box(index["quad"]) for _, index in judged if index["corner"] == corner]
            if not boxes:
                continue
            probs = reader.read_turned(np.asarray(image, np.uint8), boxes, turns)
            for card, r, s in zip(cards, probs["rank"].argmax(1), probs["suit"].argmax(1), strict=True):
                rank, suit = RANKS[int(r)], SUITS[int(s)]
                for group in groups:
                    tally = tallies.setdefault(group, Counter())
                    tally["indices"] += 1
                    tally["rank"] += rank == card[:-1]
                    tally["suit"] += suit == card[-1]
                    tally["card"] += rank + suit == card
                if rank != card[:-1]:
                    mistakes[f"{card[:-1]} read as {rank}"] += 1
    report = {
        group: {"indices": t["indices"]}
        | {k: round(t[k] / t["indices"], 4) for k in ("rank", "suit", "card")}
        for group, t in sorted(tallies.items())
    }
    for group, row in report.items():
        rates = "  ".join(f"{k} {row[k]:.3f}" for k in ("rank", "suit", "card"))
        print(f"{group:36s} {row['indices']:6d}  {rates}")
    if unreadable:
        print(f"{unreadable} unreadable images left out")
    print("commonest rank mistakes:", ", ".join(f"{k} ({n})" for k, n in mistakes.most_common(8)))
    if args.out:
        args.out.write_text(
            json.dumps({"groups": report, "rank_mistakes": dict(mistakes.most_common(20))}, indent=1)
        )


def each_reader(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    from assistant.detect.pipeline import ModelMissingError
    from assistant.detect.readers_alone import READINGS, Readers, readers_alone

    if args.single_view:
        parser.error("--each-reader reads every reader as the zone detector does: leave out --single-view")
    if not (args.dataset / "truth" / args.split).is_dir():
        parser.error(f"no truth files in {args.dataset}/truth/{args.split}")
    try:
        readers = Readers(args.models)
    except ModelMissingError as error:
        parser.error(str(error))
    try:
        report = readers_alone(readers, args.dataset, args.split, args.limit).to_json()
    except ValueError as error:
        parser.error(str(error))
    print(f"{'cards right (rank/suit/card)':36s} {'cards':>6s}  " + "  ".join(f"{r:>19s}" for r in READINGS))
    for group, row in report["groups"].items():
        n = row[READINGS[0]]["cards"]
        cells = "  ".join(
            f"{row[r]['rank']:.3f}/{row[r]['suit']:.3f}/{row[r]['card']:.3f}".rjust(19) for r in READINGS
        )
        print(f"{group:36s} {n:6d}  {cells}")
    if report["unreadable_images"]:
        print(f"{report['unreadable_images']} unreadable images left out")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
