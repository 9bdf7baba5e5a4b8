"""Two arms read on the same ``synth zones`` crops, compared hand by hand.

    python scripts/compare_arms.py --base A.json [A2.json ...] --candidate B.json [B2.json ...]
        [--memory] [--draws 2000] [--level 0.95] [--out F]

Each arm is one or more ``scripts/detect_evaluate.py --zones`` reports (``card_identity_per_hand``),
of the same splits for both arms, in any order: a hand is known by its report's dataset and
split and its name. Arms that read different hands are refused. Prints the pooled
card-identity F1 of each arm, the difference, and its interval when the hands are drawn again
(:func:`assistant.detect.arm_compare.paired_bootstrap`). With ``--memory``, the hands as the
card memory named their cards (reports read with ``--zones --memory``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.detect.arm_compare import Counts, hands_of, paired_bootstrap, unpaired


def _arm(paths: list[Path], parser: argparse.ArgumentParser, memory: bool = False) -> dict[str, Counts]:
    hands: dict[str, Counts] = {}
    for path in paths:
        try:
            read = hands_of(json.loads(path.read_text()), memory=memory)
        except (OSError, ValueError) as error:
            parser.error(f"{path}: {error}")
        if set(read) & set(hands):
            parser.error(f"{path}: its split is given twice in one arm")
        hands |= read
    return hands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, nargs="+", required=True)
    parser.add_argument("--candidate", type=Path, nargs="+", required=True)
    parser.add_argument(
        "--memory", action="store_true", help="compare the hands as the card memory named their cards"
    )
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    base, candidate = _arm(args.base, parser, args.memory), _arm(args.candidate, parser, args.memory)
    only_base, only_candidate = unpaired(base, candidate)
    if only_base or only_candidate:
        parser.error(
            f"the arms read different hands ({only_base} only in the base, {only_candidate} only in the "
            "candidate): compare two reads of the same crops"
        )
    try:
        result = paired_bootstrap(base, candidate, args.draws, args.level)
    except ValueError as error:
        parser.error(str(error))
    text = json.dumps(result.to_json(), indent=1)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
