"""Write the small labelled still set committed in ``fixtures/images/``.

    nice python scripts/synth_make_stills.py

Twelve images of the dataset writer (seed 2026): 8 train, 2 val, 2 test (held-out decks),
with labels, counts, truth and index crops, as ``dealer-assistant synth dataset`` writes.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.synth.dataset import write_dataset  # noqa: E402

OUT = ROOT / "fixtures" / "images" / "synth"


def main() -> int:
    if OUT.exists():
        shutil.rmtree(OUT)
    summary = write_dataset(OUT, 12, 2026, val=1 / 6, test=1 / 6, workers=1)
    # data.yaml names the absolute path it was written to; without it, ultralytics takes
    # the folder of data.yaml itself
    data = (OUT / "data.yaml").read_text().splitlines()
    (OUT / "data.yaml").write_text("\n".join(data[1:]) + "\n")
    print(summary["images"], summary["labels"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
