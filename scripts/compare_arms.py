"""Two arms read on the same ``synth zones`` crops, compared hand by hand.

    python scripts/compare_arms.py --base A.json [A2.json ...] --candidate B.json [B2.json ...]
        [--draws 2000] [--level 0.95] [--out F]

Each arm is one or more ``scripts/detect_evaluate.py --zones`` reports (``card_identity_per_hand``),
given in the same order for both arms (report k of the base read the same crops as report k of
the candidate). Prints the pooled card-identity F1 of each arm, the difference, and its
interval when the hands are drawn again (:func:`assistant.detect.arm_compare.paired_bootstrap`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.detect.arm_compare import Counts, hands_of, paired_bootstrap


def _arm(paths: list[Path], parser: argparse.ArgumentParser) -> dict[str, Counts]:
    hands: dict[str, Counts] = {}
    for k, path in enumerate(paths):
        try:
            hands |= hands_of(json.loads(path.read_text()), f"{k}:")
        except (OSError, ValueError) as error:
            parser.error(f"{path}: {error}")
    return hands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, nargs="+", required=True)
    parser.add_argument("--candidate", type=Path, nargs="+", required=True)
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if len(args.base) != len(args.candidate):
        parser.error("give as many candidate reports as base reports, in the same order")
    try:
        result = paired_bootstrap(
            _arm(args.base, parser), _arm(args.candidate, parser), args.draws, args.level
        )
    except ValueError as error:
        parser.error(str(error))
    text = json.dumps(result.to_json(), indent=1)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
