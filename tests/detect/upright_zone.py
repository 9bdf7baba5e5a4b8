"""One upright seat zone crop (kde-penguins) and stage-1 boxes and readings made by hand,
for tests that pin what the zone detector does with a given reading."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from assistant.detect.backends import Boxes
from assistant.detect.labels import RANKS, SUITS
from assistant.detect.pipeline import CardDetector

UPRIGHT = Path(__file__).parent / "fixtures" / "upright" / "penguins-0118-seat3.cards.png"
TWO_OF_CLUBS, TUX_BACK = (1, 22, 48, 110), (88, 23, 140, 102)


def stage_1(
    zones: CardDetector, *found: tuple[tuple[float, float, float, float], str], conf: float = 0.8
) -> Boxes:
    """Stage-1 boxes of the given (box, class name), each ``conf`` sure."""
    return Boxes(
        np.array([b for b, _ in found], np.float32),
        np.full(len(found), conf, np.float32),
        np.array([zones._class[kind] for _, kind in found], np.int64),
    )


def reading_of(card: str, p: float = 0.99) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """A reading of ``card`` (e.g. "5h") ``p`` sure of its rank and of its suit."""
    r = np.full(13, (1 - p) / 12, np.float32)
    s = np.full(4, (1 - p) / 3, np.float32)
    r[RANKS.index(card[0])], s[SUITS.index(card[1])] = p, p
    return r, s
