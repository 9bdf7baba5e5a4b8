"""Chip counts on fresh chip scenes, judged as issue 4 judges them: exact on stacks whose side shows.

Renders ``--hands`` chip hands of ``--split`` (held-out decks and surfaces for ``test``;
oblique cameras, stacks of 1-20 chips; :func:`assistant.synth.chip_zones.chip_shots`)
and, per still, judges every stack the camera sees well (labelled, at least 80% in view,
its box clear of the frame's edge: :func:`~assistant.synth.stack_views.well_seen_stacks`)
in four ways:

* ``counter_true_base``: the stack counter on a view cut around the true base;
* ``counter_plane_box``: the same, the base placed from the stack's exact box on the
  table plane (the box a perfect stage 1 would give in a zone crop);
* ``finder`` (where the model folder has ``stack_finder.onnx``): as the camera pipeline
  reads a frame: each bet and pot zone cut out of the frame, the stack finder's boxes
  placed on the table, kept for the zone they stand in and counted by the stack
  counter; a stack counts as found when a found stack of its colour overlaps its true
  box in the frame by IoU 0.5;
* ``pipeline``: for comparison, stacks found in the zone crops instead: the bet and pot
  zones warped to 1 mm/px crops, the zone detector on each, every chip box placed on
  the table and counted by the stack counter; a stack counts as found when a box of
  its colour overlaps its true box in a zone crop (the table-plane box of its rims, cut
  to the crop) by IoU 0.5, as the zone metrics match boxes (:mod:`assistant.detect.evaluate`);
* ``chip_reader``: the same boxes' counts from the zone crop alone (the earlier chip
  reader, ``chip_reader.onnx``).

A stack's side is visible when one chip more adds at least 1.5 px to its image; for the
others a count is a guess and the right answer is "unknown".

    python scripts/stack_evaluate.py --hands 40 --seed 202 --out models/metrics_stacks.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from assistant.detect.backends import OnnxDetector, box_iou
from assistant.detect.pipeline import (
    DETECTOR_ONNX,
    MODELS_DIR,
    STACK_COUNTER,
    STACK_FINDER_ONNX,
    CardDetector,
)
from assistant.detect.readers import OnnxReader
from assistant.detect.stack_counter import StackCounter
from assistant.detect.stack_finder import FINDER_CONF, FINDER_IOU, StackFinder
from assistant.synth.chip_zones import CHIP_ZONES, chip_shots
from assistant.synth.stack_views import stack_base_mm, stack_table_box, well_seen_stacks
from assistant.synth.zones import zone_kind
from assistant.vision.rectify import ZoneCrop, ZoneRectifier
from assistant.vision.stack_view import READABLE_SIDE_PX, base_from_plane_box, side_px
from assistant.vision.zone_frames import FRAME_CROP_PX

MATCH_IOU = 0.5
FALSE_IOU = 0.3
Box = tuple[float, float, float, float]


def crop_box(crop: ZoneCrop, table_box: Box) -> Box | None:
    """A table-plane box (mm) in a zone crop's pixels, cut to the crop; None if outside it."""
    x1, y1, x2, y2 = table_box
    corners = crop.from_table([[x1, y1], [x2, y1], [x2, y2], [x1, y2]])
    h, w = crop.image.shape[:2]
    (bx1, by1), (bx2, by2) = np.clip(corners.min(axis=0), 0, (w, h)), np.clip(corners.max(axis=0), 0, (w, h))
    return None if bx2 - bx1 < 1 or by2 - by1 < 1 else (float(bx1), float(by1), float(bx2), float(by2))


SIDE_BINS = (1.5, 2.0, 3.0, 4.0)


@dataclass
class Tally:
    side_visible: int = 0
    found: int = 0
    exact: int = 0
    within_one: int = 0
    said_unknown: int = 0
    from_above: int = 0
    from_above_found: int = 0
    from_above_unknown: int = 0
    errors: Counter[int] = field(default_factory=Counter)
    extra: int = 0  # stacks reported that match no judged stack (false finds, or stacks not judged)
    false: int = 0  # ... of those, reports that lie on no stack at all (IoU under 0.3 with every stack)
    twice: int = 0  # reports on a stack that another report lies on better (one stack found twice)

    def add(self, side: bool, found: bool, count: int | None, target: int) -> None:
        if not side:
            self.from_above += 1
            self.from_above_found += found
            self.from_above_unknown += found and count is None
            return
        self.side_visible += 1
        self.found += found
        if found and count is None:
            self.said_unknown += 1
        elif found and count is not None:
            self.exact += count == target
            self.within_one += abs(count - target) <= 1
            self.errors[count - target] += 1

    def to_json(self) -> dict[str, Any]:
        n = max(self.side_visible, 1)
        return {
            "side_visible_stacks": self.side_visible,
            "found": round(self.found / n, 4),
            "count_exact": round(self.exact / n, 4),
            "count_within_one": round(self.within_one / n, 4),
            "said_unknown": round(self.said_unknown / n, 4),
            "count_exact_of_counted": round(self.exact / max(self.found - self.said_unknown, 1), 4),
            "from_above_stacks": self.from_above,
            "from_above_found": round(self.from_above_found / max(self.from_above, 1), 4),
            "from_above_reported_unknown": round(self.from_above_unknown / max(self.from_above_found, 1), 4),
            "count_error_histogram": {str(k): v for k, v in sorted(self.errors.items())},
            "unmatched_reports": self.extra,
            "reports_on_no_stack": self.false,
            "second_reports_on_one_stack": self.twice,
        }


def side_bin(side: float) -> str:
    edges = (0.0, *SIDE_BINS, float("inf"))
    for low, high in itertools.pairwise(edges):
        if low <= side < high:
            return f"{low:g}-{high:g}"
    return "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--seed", type=int, default=202)
    parser.add_argument("--split", default="test", choices=("train", "val", "test"))
    parser.add_argument("--shots", type=int, default=5)
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--counter", type=Path, help="stack counter (default: MODELS/stack_counter.onnx)")
    parser.add_argument("--no-pipeline", action="store_true", help="the counter on true bases only")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    reader = OnnxReader(args.counter or args.models / STACK_COUNTER)
    detector = None if args.no_pipeline else CardDetector.for_zones(args.models)
    finder_net = None
    if not args.no_pipeline and (args.models / STACK_FINDER_ONNX).is_file():
        finder_net = OnnxDetector(args.models / STACK_FINDER_ONNX, FRAME_CROP_PX, FINDER_CONF, FINDER_IOU)
    true_base, plane, pipeline, chip_reader, finder = Tally(), Tally(), Tally(), Tally(), Tally()
    by_side: dict[str, Tally] = {}
    finder_by_side: dict[str, Tally] = {}
    base_errors: list[float] = []  # mm from each found stack's placed base to its true one
    started = time.perf_counter()
    shots = 0
    for hand in range(args.hands):
        for shot in chip_shots(args.seed, hand, args.split, args.shots):
            shots += 1
            counter = StackCounter(reader, shot.calibration)
            judged = []
            for stack in well_seen_stacks(shot):
                base = stack_base_mm(stack)
                judged.append((stack, base, side_px(counter.model, base)))
            if not judged:
                continue
            counts = counter.count(shot.image, [b for _, b, _ in judged])
            for (stack, _, side), (count, _) in zip(judged, counts, strict=True):
                true_base.add(side >= READABLE_SIDE_PX, True, count, stack.count)
            boxes = [stack_table_box(shot, stack) for stack, _, _ in judged]
            placed = [base_from_plane_box(box, np.eye(3), counter.model) for box in boxes]
            counts = counter.count(shot.image, placed)
            for (stack, _, side), (count, _) in zip(judged, counts, strict=True):
                plane.add(side >= READABLE_SIDE_PX, True, count, stack.count)
            if detector is None:
                continue
            rectifier = ZoneRectifier(shot.calibration)
            keys = [k for k in rectifier.zones if zone_kind(k) in CHIP_ZONES]
            if finder_net is not None:
                finding = StackCounter(
                    reader, shot.calibration, StackFinder(finder_net, shot.calibration, counter.model)
                )
                items = [
                    i
                    for c in rectifier.rectify(shot.image, keys)
                    for i in finding.chips_in_crop(shot.image, c, [])
                ]
                truth_boxes = {
                    id(s): t.box
                    for s, t in zip(shot.stacks, [t for t in shot.truths if t.kind == "chips"], strict=True)
                }
                used: set[int] = set()
                for stack, _, side in judged:
                    best, best_iou = None, MATCH_IOU
                    truth_box = truth_boxes[id(stack)]
                    for i, item in enumerate(items):
                        iou = box_iou(item["frame_box"], truth_box) if truth_box is not None else 0.0
                        if i not in used and item["colour"] == stack.colour and iou >= best_iou:
                            best, best_iou = i, iou
                    if best is not None:
                        used.add(best)
                        base_errors.append(math.dist(items[best]["base_mm"], stack_base_mm(stack)))
                    count = items[best]["count"] if best is not None else None
                    visible = side >= READABLE_SIDE_PX
                    finder.add(visible, best is not None, count, stack.count)
                    finder_by_side.setdefault(side_bin(side), Tally()).add(
                        visible, best is not None, count, stack.count
                    )
                finder.extra += len(items) - len(used)
                finder.false += sum(
                    all(b is None or box_iou(item["frame_box"], b) < FALSE_IOU for b in truth_boxes.values())
                    for i, item in enumerate(items)
                    if i not in used
                )
                on_stack: Counter[int] = Counter()  # reports by the stack they lie on best
                for item in items:
                    iou, stack_id = max(
                        ((box_iou(item["frame_box"], b), k) for k, b in truth_boxes.items() if b is not None),
                        default=(0.0, 0),
                    )
                    if iou >= FALSE_IOU:
                        on_stack[stack_id] += 1
                finder.twice += sum(n - 1 for n in on_stack.values())
            # (colour, zone key, box in the zone's crop, counter's count, chip reader's count)
            found: list[tuple[str, str, Box, int | None, int | None]] = []
            crops = rectifier.rectify(shot.image, keys)
            for crop in crops:
                detection = detector.detect(crop.image)
                read = counter.count_in_crop(shot.image, crop, [s.box for s in detection.chips])
                for s, (count, _) in zip(detection.chips, read, strict=True):
                    found.append((s.colour, crop.key, s.box, count, s.count))
            taken: set[int] = set()
            for stack, _, side in judged:
                true_boxes = {c.key: crop_box(c, stack_table_box(shot, stack)) for c in crops}
                best, best_iou = None, MATCH_IOU
                for i, (colour, key, box, _, _) in enumerate(found):
                    true_box = true_boxes[key]
                    iou = box_iou(box, true_box) if true_box is not None else 0.0
                    if i not in taken and colour == stack.colour and iou >= best_iou:
                        best, best_iou = i, iou
                if best is not None:
                    taken.add(best)
                visible = side >= READABLE_SIDE_PX
                hit = best is not None
                count = found[best][3] if best is not None else None
                pipeline.add(visible, hit, count, stack.count)
                chip_reader.add(visible, hit, found[best][4] if best is not None else None, stack.count)
                by_side.setdefault(side_bin(side), Tally()).add(visible, hit, count, stack.count)
        print(f"{hand + 1}/{args.hands} hands", file=sys.stderr, flush=True)
    result: dict[str, Any] = {
        "hands": args.hands,
        "seed": args.seed,
        "split": args.split,
        "stills": shots,
        "seconds": round(time.perf_counter() - started, 1),
        "counter_true_base": true_base.to_json(),
        "counter_plane_box": plane.to_json(),
    }
    if detector is not None:
        result["stage1"] = DETECTOR_ONNX
    if finder_net is not None:
        result["finder"] = finder.to_json()
        result["finder"]["base_error_mm"] = {
            "median": round(float(np.median(base_errors)), 2) if base_errors else None,
            "p90": round(float(np.percentile(base_errors, 90)), 2) if base_errors else None,
            "stacks": len(base_errors),
        }
        result["finder_by_side_px"] = {k: finder_by_side[k].to_json() for k in sorted(finder_by_side)}
    if detector is not None:
        result["pipeline"] = pipeline.to_json()
        result["pipeline_by_side_px"] = {k: by_side[k].to_json() for k in sorted(by_side)}
        result["chip_reader_same_boxes"] = chip_reader.to_json()
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
