"""Write the committed video fixtures: game scripts from the engine's simulated players,
rendered into ``fixtures/video/NAME.mp4`` + ``NAME.truth.json`` (+ ``NAME.script.json``).

    nice python scripts/synth_make_fixtures.py [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.synth.script import script_from_autoplay  # noqa: E402
from assistant.synth.video import render_video  # noqa: E402

OUT = ROOT / "fixtures" / "video"
FIXTURES = [
    # name, rules, players, seed, deck, surface split
    (
        "seven-twenty-seven-paris",
        "seven-twenty-seven",
        [("Anna", 40), ("Ben", 40), ("Carla", 40), ("Dan", 40)],
        3,
        "gnome-paris",
        "train",
    ),
    (
        "fifteen-thirty-five-penguins",
        "fifteen-thirty-five",
        [("Anna", 40), ("Ben", 40), ("Carla", 40), ("Dan", 40), ("Eve", 40)],
        11,
        "kde-penguins",
        "val",
    ),
    (
        "online-727-heldout-standard",
        "online-seven-twenty-seven",
        [("Anna", 40), ("Ben", 40), ("Carla", 40), ("Dan", 40)],
        21,
        "kde-standard",
        "held_out",
    ),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, rules, players, seed, deck, split in FIXTURES:
        if args.only and args.only != name:
            continue
        script = script_from_autoplay(name, rules, players, seed, deck, surface_split=split)
        (OUT / f"{name}.script.json").write_text(json.dumps(script.to_json(), indent=1) + "\n")
        video, truth = render_video(script, OUT)
        print(video, video.stat().st_size // 1024, "KiB", truth)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
