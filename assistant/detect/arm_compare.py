"""Two readings of the same zone crops compared hand by hand, as the crops were drawn.

A ``synth zones`` split renders a few dozen hands and each hand's frames show the same cards
again and again: one misread card can be counted wrong in a dozen crops. The pooled F1 of
two arms (the shipped models and a candidate, say) read on the same crops then moves with a
handful of cards, and a gain that rests on one hand looks as solid as one spread over all.
:func:`paired_bootstrap` draws the hands again with replacement, the same draw for both arms,
and says how far the pooled F1's difference moves: where its interval holds zero, the
crops do not tell the arms apart. Stop 60 found a zone rule that gained 0.022 on one
held-out design of ``zones_a`` test from two cards of one hand, and nothing on fresh hands.

Pure Python and numpy; the hands come from ``scripts/detect_evaluate.py``'s
``card_identity_per_hand``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

#: One hand's card-identity tally: (right, wrong, missed).
Counts = tuple[int, int, int]


def pooled_f1(counts: np.ndarray) -> float:
    """F1 of summed (right, wrong, missed) rows: 2 tp / (2 tp + fp + fn); 0 with no cards.

    >>> pooled_f1(np.array([[9, 1, 0], [0, 0, 1]]))
    0.9
    """
    return float(_f1_of_sums(np.asarray(counts, np.float64).sum(0)[None])[0])


def _f1_of_sums(sums: np.ndarray) -> np.ndarray:
    """F1 of each row of summed (right, wrong, missed) counts; 0 for a row with no cards."""
    tp, fp, fn = sums[:, 0], sums[:, 1], sums[:, 2]
    cards = 2 * tp + fp + fn
    return np.where(cards > 0, 2 * tp / np.maximum(cards, 1), 0.0)


@dataclass(frozen=True)
class ArmComparison:
    """Pooled F1 of two arms over the same hands, their difference, and the interval the
    difference keeps over ``draws`` redraws of the hands (``level``, e.g. 0.95)."""

    hands: int
    base_f1: float
    candidate_f1: float
    low: float
    high: float
    level: float
    draws: int
    hands_changed: int

    @property
    def difference(self) -> float:
        return self.candidate_f1 - self.base_f1

    def to_json(self) -> dict[str, float | int | list[float]]:
        return {
            "hands": self.hands,
            "hands_changed": self.hands_changed,
            "base_f1": round(self.base_f1, 4),
            "candidate_f1": round(self.candidate_f1, 4),
            "difference": round(self.difference, 4),
            f"interval_{round(self.level * 100)}": [round(self.low, 4), round(self.high, 4)],
            "draws": self.draws,
        }


def paired_bootstrap(
    base: Mapping[str, Counts],
    candidate: Mapping[str, Counts],
    draws: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> ArmComparison:
    """The pooled F1 difference (candidate minus base) over the hands both arms read, and
    its ``level`` interval when the hands are drawn again with replacement ``draws`` times,
    each draw the same hands for both arms (a paired, percentile bootstrap).

    Raises ``ValueError`` when the arms share no hand or a level is not in (0, 1).
    """
    if not 0 < level < 1:
        raise ValueError(f"the interval's level must lie in (0, 1), not {level}")
    hands = sorted(set(base) & set(candidate))
    if not hands:
        raise ValueError("the two arms read no hand in common: were they read on the same crops?")
    a = np.array([base[h] for h in hands], np.float64)
    b = np.array([candidate[h] for h in hands], np.float64)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(hands), size=(draws, len(hands)))
    differences = _f1_of_sums(b[picks].sum(1)) - _f1_of_sums(a[picks].sum(1))  # every draw at once
    tail = (1 - level) / 2
    low, high = np.quantile(differences, [tail, 1 - tail])
    return ArmComparison(
        hands=len(hands),
        base_f1=pooled_f1(a),
        candidate_f1=pooled_f1(b),
        low=float(low),
        high=float(high),
        level=level,
        draws=draws,
        hands_changed=int(np.any(a != b, axis=1).sum()),
    )


def hands_of(
    report: Mapping[str, object], label: str | None = None, *, memory: bool = False
) -> dict[str, Counts]:
    """A ``scripts/detect_evaluate.py`` report's hands as (right, wrong, missed), each hand's
    name prefixed with ``label``, by default the report's dataset and split
    (``/work/data/fresh77/kde-standard:test:``): reports of different splits can share a
    hand's name, and two arms' reports of the same split then pair up in any order. With
    ``memory``, each hand as the card memory named its cards (a report read with ``--memory``).

    Raises ``ValueError`` for a report written without the hands asked for."""
    key = "card_identity_with_card_memory_per_hand" if memory else "card_identity_per_hand"
    per_hand = report.get(key)
    if not isinstance(per_hand, Mapping):
        again = "--zones --memory" if memory else "--zones"
        raise ValueError(f"the report has no {key}: read it again with scripts/detect_evaluate.py {again}")
    if label is None:
        label = f"{report.get('dataset', '?')}:{report.get('split', '?')}:"
    return {f"{label}{hand}": (int(t["tp"]), int(t["fp"]), int(t["fn"])) for hand, t in per_hand.items()}


def unpaired(base: Mapping[str, Counts], candidate: Mapping[str, Counts]) -> tuple[int, int]:
    """How many hands only the base read, and only the candidate: both are 0 for two reads
    of the same crops."""
    return len(set(base) - set(candidate)), len(set(candidate) - set(base))
