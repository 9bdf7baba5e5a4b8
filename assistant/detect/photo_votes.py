"""Naming a photo's cards by the votes of every patch that saw them (stop 42).

The photo detector reads each card the card finder gives in patches that stand it
upright at zone-crop size, turned a little each way and half round. Each such patch
shows its neighbours too, and the zone reader reads them: in a row or a fan a card the
finder placed badly, or whose own patches read it wrong, is often read right, and
surely, in the patches of the cards beside it. So every card read in any patch (the
patch's own card, and any other lying wholly inside the patch) is a vote:

1. each read is mapped back to the photo (:class:`PatchRead`);
2. reads whose boxes overlap by ``same_place_iou`` are one place (the surest read of a
   place is its anchor; the others join the first place whose anchor they overlap);
3. a place is named by the sum, over the patches that read it, of each name's
   confidence (a patch counts once per name: its surest read of it);
4. places scoring at least ``min_votes`` are cards, best first; a deck holds every
   card once, so a name goes to its best-scoring place only, and a place nearly
   coinciding with a better one (``DUPLICATE_IOU``) is that one again.

On the validation close-ups of both sets (120 photos, 374 cards), against naming each
candidate by its own surest read: F1 0.683 -> 0.767 (238 -> 256 right, 85 -> 38 wrong),
and 0.786 with the card finder's boxes counted from 0.1 instead of 0.25 (more candidates,
so more patches vote).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assistant.detect.backends import box_iou
from assistant.detect.pipeline import DUPLICATE_IOU, Card


@dataclass(frozen=True)
class PatchRead:
    """A card read in one patch (``patch`` numbers them in a photo), its box in the photo."""

    patch: int
    card: Card


@dataclass(frozen=True)
class Place:
    """Where reads of a card lie together: its name by their votes, and the score."""

    card: Card  # the name voted for, with the box and confidence of its surest read
    votes: float


def places(reads: Sequence[PatchRead], same_place_iou: float) -> list[Place]:
    """The reads grouped into places (surest read first, each joins the first place whose
    anchor box it overlaps by ``same_place_iou``) and each place named by its votes.

    >>> five = [PatchRead(k, Card("5h", (0.0, 0.0, 63.0, 88.0), 0.9)) for k in range(3)]
    >>> seven = PatchRead(3, Card("7d", (2.0, 1.0, 64.0, 88.0), 0.95))
    >>> [(p.card.card, round(p.votes, 2)) for p in places([*five, seven], 0.5)]
    [('5h', 2.7)]
    """
    groups: list[list[PatchRead]] = []
    for read in sorted(reads, key=lambda r: -r.card.confidence):
        home = next((g for g in groups if box_iou(g[0].card.box, read.card.box) >= same_place_iou), None)
        if home is None:
            groups.append([read])
        else:
            home.append(read)
    out = []
    for group in groups:
        per_patch: dict[str, dict[int, float]] = {}
        for read in group:
            patches = per_patch.setdefault(read.card.card, {})
            patches[read.patch] = max(patches.get(read.patch, 0.0), read.card.confidence)
        votes = {name: sum(p.values()) for name, p in per_patch.items()}
        name = max(votes, key=lambda n: votes[n])
        surest = max((r.card for r in group if r.card.card == name), key=lambda c: c.confidence)
        out.append(Place(surest, votes[name]))
    return out


def named_by_vote(reads: Sequence[PatchRead], same_place_iou: float, min_votes: float) -> list[Card]:
    """The cards of a photo's patch reads: places voted for at least ``min_votes``, best
    first, one card of each name, none nearly coinciding with a better one.

    >>> five = [PatchRead(k, Card("5h", (0.0, 0.0, 63.0, 88.0), 0.9)) for k in range(3)]
    >>> again = [PatchRead(k, Card("5h", (200.0, 0.0, 263.0, 88.0), 0.8)) for k in range(3, 5)]
    >>> lone = PatchRead(5, Card("Kc", (400.0, 0.0, 463.0, 88.0), 0.99))
    >>> [c.card for c in named_by_vote([*five, *again, lone], 0.5, 1.5)]
    ['5h']
    """
    kept: list[Card] = []
    for place in sorted(places(reads, same_place_iou), key=lambda p: -p.votes):
        card = place.card
        if place.votes < min_votes or any(k.card == card.card for k in kept):
            continue
        if all(box_iou(card.box, k.box) < DUPLICATE_IOU for k in kept):
            kept.append(card)
    return kept
