"""The chip detector's training set: zone crops of whole hands mixed with chip zones from
oblique cameras, as list files an ultralytics ``data.yaml`` points at.

    python scripts/zones_mix.py --out /work/data/zones_mix \\
        --zones /work/data/zones_a --chips /work/data/chips_side/train_s101 --take 10000

``train``: ``--take`` random train crops of ``--zones`` (seed 5) and every train crop of
``--chips``; ``val``: the val crops of both. Labels sit beside the images as the zone
writer put them (``images/`` -> ``labels/``).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import yaml


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--zones", type=Path, required=True, help="a `synth zones` dataset of whole hands")
    parser.add_argument("--chips", type=Path, required=True, help="a `synth zones --chips` dataset")
    parser.add_argument("--take", type=int, default=10000, help="train crops taken from --zones")
    args = parser.parse_args()
    zones = sorted(str(p) for p in (args.zones / "images" / "train").glob("*.jpg"))
    random.Random(5).shuffle(zones)
    chips = sorted(str(p) for p in (args.chips / "images" / "train").glob("*.jpg"))
    val = [str(p) for d in (args.zones, args.chips) for p in sorted((d / "images" / "val").glob("*.jpg"))]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "train.txt").write_text("\n".join(zones[: args.take] + chips) + "\n")
    (args.out / "val.txt").write_text("\n".join(val) + "\n")
    names = yaml.safe_load((args.zones / "data.yaml").read_text())["names"]
    data = {"path": str(args.out), "train": "train.txt", "val": "val.txt", "names": names}
    (args.out / "data.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    print(f"{len(zones[: args.take]) + len(chips)} train, {len(val)} val crops in {args.out}")


if __name__ == "__main__":
    main()
