"""How much a session's corner indices and its card strips count, each judged by the other.

A zone crop's card is read by two kinds of reader that fail on different designs: the
index readers read the printed rank and pip in the corner, the strip reader (and the face
reader multiplied into it) the card's left strip, pips and all. Which of the two misleads
depends on the deck: on the held-out designs of ``models/README.md`` the index readers
read a card right 0.70 of the time at its true box and the strip 0.86; on the validation
designs 0.84-0.98 against 0.62-0.78 (stop 57). A home game plays one deck all night, so
the session learns which to believe, with no labels.

Each kind is judged only by the other: where the strip reading is sure of a rank (or a
suit), did the indices' best guess agree, and where the indices are sure, did the strip's?
Neither is judged by the reading they make together, which the one that leads it would
always agree with. The kind that agrees less often, in log odds, counts less: its
probabilities are raised to the ratio of its log odds to the other's (never under
``LEAST_POWER``); the other keeps its weight. Nothing is made surer than the shipped weights
make it, so a card that was too unsure to be named stays unnamed.

Stop 57 tried the same session judged by the combined reading, with the strip's weight
scaled up as well as down: it read the validation designs better and fresh hands of the
held-out designs worse (0.7817 -> 0.7769).

Pure numpy; one :class:`ReaderTrust` per table session (a camera, a replay), fed in the
order the frames come.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

#: The agreement both kinds start a session with, counted as this many readings: a
#: session's first cards are weighed as the shipped weights weigh them.
PRIOR_AGREEMENT = 0.85
PRIOR_READINGS = 30.0
#: Only a reading at least this sure judges the other kind.
SURE_READING = 0.9
#: The less trusted kind's power is never under this.
LEAST_POWER = 0.25
#: An agreement is taken no higher than this before its log odds (a reader that has
#: agreed every time is not infinitely better).
MOST_AGREEMENT = 0.995

HEADS = ("rank", "suit")
READERS = ("index", "strip")


def _log_odds(p: float) -> float:
    p = min(p, MOST_AGREEMENT)
    return math.log(p / (1.0 - p))


@dataclass
class Agreement:
    """How often a reader kind's best guess matched the other kind's sure reading (with the
    prior)."""

    agreed: float = PRIOR_AGREEMENT * PRIOR_READINGS
    readings: float = PRIOR_READINGS

    @property
    def rate(self) -> float:
        return self.agreed / self.readings


@dataclass
class ReaderTrust:
    """A session's agreement counts, per reader kind and head, and the powers they give.

    >>> trust = ReaderTrust()
    >>> trust.power("index", "rank"), trust.power("strip", "rank")
    (1.0, 1.0)
    >>> four, five = np.eye(13)[3], np.eye(13)[4]
    >>> for _ in range(40):  # the strip is sure of a 5 each time, the indices read 4
    ...     trust.learn({"rank": four * 0.6 + 0.4 / 13}, {"rank": five})
    >>> round(trust.power("index", "rank"), 2), trust.power("strip", "rank")
    (0.25, 1.0)
    """

    counts: dict[tuple[str, str], Agreement] = field(
        default_factory=lambda: {(r, h): Agreement() for r in READERS for h in HEADS}
    )
    cards_learnt: int = 0

    def power(self, reader: str, head: str) -> float:
        """What ``reader``'s (``index`` or ``strip``) probabilities for ``head`` are raised to
        where both kinds read a card: its agreement over the other kind's, each in log odds
        (an agreement at or under one half counts as next to nothing), at most 1 and at
        least ``LEAST_POWER``."""
        other = READERS[1 - READERS.index(reader)]
        mine = max(_log_odds(self.counts[(reader, head)].rate), 1e-3)
        theirs = max(_log_odds(self.counts[(other, head)].rate), 1e-3)
        return float(np.clip(mine / theirs, LEAST_POWER, 1.0))

    def learn(
        self,
        index: Mapping[str, npt.NDArray[np.floating]],
        strip: Mapping[str, npt.NDArray[np.floating]],
    ) -> None:
        """Count one card read from its indices (their combined probabilities per head) and
        from its strip: for each head, where one kind's reading is at least ``SURE_READING``
        sure, whether the other kind's best guess is that reading's."""
        learnt = False
        for head in HEADS:
            if head not in index or head not in strip:
                continue
            for judged, mine, referee in (("index", index, strip), ("strip", strip, index)):
                best = int(np.argmax(referee[head]))
                if float(referee[head][best]) < SURE_READING:
                    continue
                count = self.counts[(judged, head)]
                count.agreed += float(int(np.argmax(mine[head])) == best)
                count.readings += 1.0
                learnt = True
        self.cards_learnt += learnt

    def to_json(self) -> dict[str, object]:
        """Agreement rates and the powers they give (for logs)."""
        return {
            "cards_learnt": self.cards_learnt,
            "agreement": {f"{r} {h}": round(c.rate, 4) for (r, h), c in self.counts.items()},
            "power": {f"{r} {h}": round(self.power(r, h), 4) for r in READERS for h in HEADS},
        }
