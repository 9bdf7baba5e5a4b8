"""Write NAME.dealer.json and NAME.calibration.json next to each video fixture.

The sidecar holds what a camera cannot see (the session's setup, checks, refusals,
declarations, bet amounts); the calibration is the renderer's exact camera mapping.

    python scripts/make_replay_sidecars.py [fixtures/video]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from assistant.pipeline.truth import sidecar_from_truth

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "fixtures" / "video"
    for truth_path in sorted(folder.glob("*.truth.json")):
        truth = json.loads(truth_path.read_text())
        name = truth_path.name.removesuffix(".truth.json")
        sidecar = sidecar_from_truth(truth)
        (folder / f"{name}.dealer.json").write_text(json.dumps(sidecar.to_json(), indent=1) + "\n")
        (folder / f"{name}.calibration.json").write_text(json.dumps(truth["calibration"], indent=1) + "\n")
        print(f"{name}: {len(sidecar.inputs)} dealer inputs")


if __name__ == "__main__":
    main()
