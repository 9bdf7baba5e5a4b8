"""Where the zone detector loses the cards it does not read right, split by split and pooled.

    nice python scripts/card_losses.py --set /work/data/zones_a:val [--set DIR:SPLIT ...]
        [--arms shipped,taught,taught cards,taught indices] [--models models] [--threads 1]
        [--limit N] [--out F]

Each ``--set`` is a ``synth zones`` folder (with ``labels/``) and a split. Every crop is
read as the camera pipeline reads it (``CardDetector.for_zones``) once per arm: on the
boxes stage 1 gives (``shipped``: its card identity is that of
``scripts/detect_evaluate.py --zones``), on the boxes stage 1 was taught (``taught``: the
split's YOLO labels, each 1.0 sure), and with ``--arms`` on the taught card boxes beside
stage 1's indices (``taught cards``) or stage 1's card boxes beside the taught indices
(``taught indices``). Each judged card's fate in each reading is one of right, misread,
unboxed (nothing read on it and no box on it) or unread (boxed, nothing read); see
:mod:`assistant.detect.card_losses`. Prints a table per arm and what stage 1 found on the
cards of each shipped fate; writes JSON with ``--out``: per set, pooled, per deck design,
``moves`` (shipped fate -> taught fate) and ``found``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.detect.card_losses import ARMS, FATES, FOUND, LossReport, arm_names, losses_in_split
from assistant.detect.pipeline import MODELS_DIR, CardDetector


def _split_arg(text: str) -> tuple[Path, str]:
    folder, sep, split = text.rpartition(":")
    if not sep or not folder or not split:
        raise argparse.ArgumentTypeError(f"expected DIR:SPLIT, got {text!r}")
    return Path(folder), split


def _row(name: str, report: LossReport, arms: tuple[str, ...]) -> str:
    cells = [name]
    for arm in arms:
        c, fates = report.arms[arm].cards, report.arms[arm].fates
        cells.append(
            f"{c.f1:.4f} ({c.tp} / {c.fp} / {c.fn}; "
            + " / ".join(str(fates.get(f, 0)) for f in FATES[1:])
            + ")"
        )
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set", dest="sets", type=_split_arg, action="append", required=True, metavar="DIR:SPLIT"
    )
    parser.add_argument(
        "--arms",
        default="shipped,taught",
        help=f"comma list of {', '.join(ARMS)} (shipped and taught are always read)",
    )
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--limit", type=int, help="this many crops of each set, spread over it")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)

    try:
        arms = arm_names(tuple(a.strip() for a in args.arms.split(",") if a.strip()))
    except ValueError as error:
        parser.error(str(error))
    detector = CardDetector.for_zones(args.models, threads=args.threads)
    pooled = LossReport()
    sets: dict[str, object] = {}
    print("F1 (right / wrong / missed; misread / unboxed / unread) of each arm")
    print("| set | " + " | ".join(arms) + " |")
    print("| --- " * (len(arms) + 1) + "|")
    for folder, split in args.sets:
        try:
            report = losses_in_split(detector, folder, split, arms=arms, limit=args.limit)
        except (OSError, ValueError) as error:
            print(f"card_losses.py: {error}", file=sys.stderr)
            return 2
        pooled.add(report)
        sets[f"{folder}:{split}"] = report.to_json()
        print(_row(f"{folder.name} {split}", report, arms), flush=True)
    if len(args.sets) > 1:
        print(_row("pooled", pooled, arms))
    print("\nWhat stage 1 found on the cards of each shipped fate (" + " / ".join(FOUND) + ")")
    for fate in FATES:
        print(f"{fate}: " + " / ".join(str(pooled.found[fate].get(f, 0)) for f in FOUND))
    result = {"models": str(args.models), "sets": sets, "pooled": pooled.to_json()}
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
