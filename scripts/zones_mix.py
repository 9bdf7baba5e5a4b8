"""A stage-1 training set mixed from several `synth zones` datasets, as list files an
ultralytics ``data.yaml`` points at.

    python scripts/zones_mix.py --out /work/data/zones_sharp_mix --base /work/data/zones_a \\
        --take 16000 --add /work/data/zones_sharp_train /work/data/zones_sharp_train2 \\
        /work/data/zones_sharp_val

``train``: ``--take`` random train crops of ``--base`` (seed 5) and every train crop of
each ``--add`` dataset; ``val``: the val crops of all of them. Labels sit beside the
images as the zone writer put them (``images/`` -> ``labels/``).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import yaml


def crops(dataset: Path, split: str) -> list[str]:
    return sorted(str(p) for p in (dataset / "images" / split).glob("*.jpg"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--base", type=Path, required=True, help="the dataset stage 1 learnt on")
    parser.add_argument("--take", type=int, default=16000, help="train crops taken from --base")
    parser.add_argument("--add", type=Path, nargs="+", required=True, help="datasets taken whole")
    args = parser.parse_args()
    for folder in (args.base, *args.add):
        if not (folder / "images").is_dir():
            parser.error(f"{folder} is not a `synth zones` dataset (no images/)")
    base = crops(args.base, "train")
    random.Random(5).shuffle(base)
    train = base[: args.take] + [p for d in args.add for p in crops(d, "train")]
    val = [p for d in (args.base, *args.add) for p in crops(d, "val")]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "train.txt").write_text("\n".join(train) + "\n")
    (args.out / "val.txt").write_text("\n".join(val) + "\n")
    names = yaml.safe_load((args.base / "data.yaml").read_text())["names"]
    data = {"path": str(args.out), "train": "train.txt", "val": "val.txt", "names": names}
    (args.out / "data.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    print(f"{len(train)} train, {len(val)} val crops in {args.out}")


if __name__ == "__main__":
    main()
