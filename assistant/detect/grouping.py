"""Joining corner indices into cards: two corners of one card come out as one card.

Each index is given to the card box that holds its centre with one of the box's corners
nearest to it: a printed index sits in a corner of its card, so in a row of overlapping
cards the index of the card on top, which lies inside the box of the card underneath
too, goes to its own card (with equal distances, the smaller box wins). Within a
card box, an index that confidently reads as another card (an index of a card underneath
showing through the box of the card on top) is split off; one that is merely unsure
joins the card and its probabilities count. Indices that no card box holds are joined when they read
the same and lie within a card's reach of each other; in an upright view, two that sit in the
top-left and bottom-right corners of one face-down box (stage 1 took a face-up card for a back,
and its face-up box, inside the surer back, was dropped) are that card's two corners, whatever
they read. A card's rank and suit are the
product of its indices' probabilities (summed log-probabilities), so two corners that
each are unsure can agree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from assistant.detect.labels import card_name

FloatArray = npt.NDArray[np.float32]
EPS = 1e-6
REACH = 7.0  # unassigned indices of one card lie within this many index heights
AGREE = 0.1  # an index joins a card whose reading has at least this share of its own best


@dataclass(frozen=True)
class ReadCard:
    card: str
    box: tuple[float, float, float, float]
    confidence: float  # the card box's confidence times ``reading``
    indices: tuple[int, ...]
    reading: float  # how sure the card is, read from its indices alone
    card_box: int = -1  # which card box it took, -1 for none


def _contains(box: FloatArray, x: float, y: float, slack: float) -> bool:
    return bool(box[0] - slack <= x <= box[2] + slack and box[1] - slack <= y <= box[3] + slack)


def _corner_distance(box: FloatArray, x: float, y: float, upright: bool = False) -> float:
    """Distance from (x, y) to the box's nearest corner, in units of the box's shorter side.

    ``upright``: only the top-left and bottom-right corners count, the two where an
    upright card prints its indices.
    """
    if upright:
        d = min(np.hypot(x - box[0], y - box[1]), np.hypot(x - box[2], y - box[3]))
    else:
        d = np.hypot(min(abs(x - box[0]), abs(x - box[2])), min(abs(y - box[1]), abs(y - box[3])))
    return float(d / max(EPS, min(box[2] - box[0], box[3] - box[1])))


def _identity(rank: FloatArray, suit: FloatArray) -> tuple[int, int]:
    return int(rank.argmax()), int(suit.argmax())


def group_cards(
    card_boxes: FloatArray,
    card_conf: FloatArray,
    index_boxes: FloatArray,
    rank_probs: FloatArray,
    suit_probs: FloatArray,
    *,
    upright: bool = False,
    owner: npt.NDArray[np.int64] | None = None,
    backs: FloatArray | None = None,
) -> list[ReadCard]:
    """Cards read from their indices; a card box without a readable index is left out.

    ``upright``: the view is an upright zone crop, where a card shows its index in its
    box's top-left corner (and the upside-down one in the bottom-right). A box then keeps
    its surest top-left and bottom-right index whatever they read (two corners of one
    card that disagree are still one card; their probabilities decide), and every other
    index in it is a card of its own (one underneath, or a box that took in two cards).
    ``backs`` (upright): the face-down boxes; the surest top-left and bottom-right index of
    those that no card box holds, in one face-down box, are one card.
    """
    n_idx = len(index_boxes)
    centres = (index_boxes[:, :2] + index_boxes[:, 2:]) / 2 if n_idx else np.zeros((0, 2))
    heights = (
        np.maximum(index_boxes[:, 2] - index_boxes[:, 0], index_boxes[:, 3] - index_boxes[:, 1])
        if n_idx
        else np.zeros(0)
    )
    if owner is None:  # see index_owners; a caller that already has them passes them in
        owner = index_owners(card_boxes, index_boxes, upright)
    corners: list[str | None] = _corners(card_boxes, index_boxes, owner) if upright else [None] * n_idx
    groups: list[tuple[int, list[int]]] = []  # (card box or -1, indices)
    for c in range(len(card_boxes)):
        members = [i for i in range(n_idx) if owner[i] == c]
        if not members:
            continue
        members = _surest_first(members, rank_probs, suit_probs)
        if upright:  # the surest top-left and bottom-right index
            kept = _surest_corners(members, corners) or [members[0]]
            # the rest are cards of their own, unless they sit on or beside a kept index of
            # the same corner (a second, shifted box of that index: a card has one there)
            apart = [
                i
                for i in members
                if i not in kept
                and not _on_any(centres[i], index_boxes[kept])
                and not any(_beside(i, k, corners, centres, heights) for k in kept)
            ]
            groups.append((c, kept))
            groups += [(-1, [i]) for i in apart]
            continue
        kept, apart = [members[0]], []
        for i in members[1:]:
            r = int(np.log(rank_probs[kept] + EPS).sum(0).argmax())
            s = int(np.log(suit_probs[kept] + EPS).sum(0).argmax())
            own = rank_probs[i].max() * suit_probs[i].max()
            if rank_probs[i, r] * suit_probs[i, s] >= AGREE * own:
                kept.append(i)
            else:
                apart.append(i)
        groups.append((c, kept))
        groups += [(-1, [i]) for i in apart]
    loose = [i for i in range(n_idx) if owner[i] == -1]
    pairs: list[list[int]] = []
    if upright and backs is not None and len(backs) and loose:
        pairs = _corners_of_one_back(loose, backs, index_boxes, rank_probs, suit_probs)
        paired = {i for pair in pairs for i in pair}
        loose = [i for i in loose if i not in paired]
    loose += [i for c, m in groups if c == -1 for i in m]
    groups = [(c, m) for c, m in groups if c != -1]
    groups += [(-1, m) for m in _join_loose(loose, centres, heights, rank_probs, suit_probs)]
    groups += [(-1, pair) for pair in pairs]
    cards = []
    for c, members in groups:
        name, p = read_card(rank_probs[members], suit_probs[members])
        if c >= 0:
            box = tuple(float(v) for v in card_boxes[c])
            det = float(card_conf[c])
        else:
            sub = index_boxes[members]
            box = (
                float(sub[:, 0].min()),
                float(sub[:, 1].min()),
                float(sub[:, 2].max()),
                float(sub[:, 3].max()),
            )
            det = 1.0
        cards.append(
            ReadCard(name, box, det * p, tuple(members), p, c)  # type: ignore[arg-type]
        )
    return cards


def _corners_of_one_back(
    loose: list[int], backs: FloatArray, index_boxes: FloatArray, rank: FloatArray, suit: FloatArray
) -> list[list[int]]:
    """Pairs of ``loose`` indices, the surest top-left and bottom-right one of each face-down box
    that holds both (see :func:`group_cards`)."""
    boxes = index_boxes[loose]
    holder = index_owners(backs, boxes, upright=True)
    corners = _corners(backs, boxes, holder)
    surest = _surest_first(list(range(len(loose))), rank[loose], suit[loose])
    pairs = []
    for b in range(len(backs)):
        both = _surest_corners([k for k in surest if holder[k] == b], corners)
        if len(both) == 2:
            pairs.append([loose[k] for k in both])
    return pairs


def _surest_first(members: list[int], rank: FloatArray, suit: FloatArray) -> list[int]:
    return sorted(members, key=lambda i: -_score(rank, suit, [i])[0])


def _surest_corners(members: list[int], corners: list[str | None]) -> list[int]:
    """The first top-left and the first bottom-right index of ``members`` (surest first), in
    that order; one or none where a corner has none."""
    first: dict[str, int] = {}
    for i in members:
        corner = corners[i]
        if corner is not None:
            first.setdefault(corner, i)
    return [first[k] for k in ("tl", "br") if k in first]


def _beside(
    i: int,
    k: int,
    corners: list[str | None],
    centres: npt.NDArray[np.floating],
    heights: npt.NDArray[np.floating],
) -> bool:
    """Index ``i`` lies in the same corner as index ``k``, within half ``k``'s height of it."""
    return corners[i] == corners[k] and float(np.hypot(*(centres[i] - centres[k]))) < 0.5 * float(heights[k])


def _on_any(point: npt.NDArray[np.floating], boxes: FloatArray) -> bool:
    return any(_contains(b, float(point[0]), float(point[1]), 0.0) for b in boxes)


def index_owners(
    card_boxes: FloatArray, index_boxes: FloatArray, upright: bool = False
) -> npt.NDArray[np.int64]:
    """The card box each index belongs to (-1: none holds it); see the module's docstring."""
    n_idx = len(index_boxes)
    owner = np.full(n_idx, -1, np.int64)
    if n_idx == 0:
        return owner
    centres = (index_boxes[:, :2] + index_boxes[:, 2:]) / 2
    heights = np.maximum(index_boxes[:, 2] - index_boxes[:, 0], index_boxes[:, 3] - index_boxes[:, 1])
    areas = (card_boxes[:, 2] - card_boxes[:, 0]) * (card_boxes[:, 3] - card_boxes[:, 1])
    for i in range(n_idx):
        x, y = centres[i]
        holders = [c for c in range(len(card_boxes)) if _contains(card_boxes[c], x, y, 0.25 * heights[i])]
        if holders:
            owner[i] = min(
                holders, key=lambda c: (round(_corner_distance(card_boxes[c], x, y, upright), 1), areas[c])
            )
    return owner


def index_corners(
    card_boxes: FloatArray, index_boxes: FloatArray, owner: npt.NDArray[np.int64] | None = None
) -> list[str | None]:
    """Which corner of its card box each index sits in (``tl``, ``tr``, ``br``, ``bl``), or None.

    In an upright view a ``tl`` index stands upright and a ``br`` one is printed upside down.

    >>> boxes = np.array([[0, 0, 63, 88]], np.float32)
    >>> index_corners(boxes, np.array([[2, 2, 10, 20], [53, 68, 61, 86], [300, 0, 310, 18]], np.float32))
    ['tl', 'br', None]
    """
    if owner is None:
        owner = index_owners(card_boxes, index_boxes, upright=True)
    return _corners(card_boxes, index_boxes, owner)


def _corners(
    card_boxes: FloatArray, index_boxes: FloatArray, owner: npt.NDArray[np.int64]
) -> list[str | None]:
    out: list[str | None] = []
    for i, c in enumerate(owner):
        if c < 0:
            out.append(None)
            continue
        x = (index_boxes[i, 0] + index_boxes[i, 2]) / 2
        y = (index_boxes[i, 1] + index_boxes[i, 3]) / 2
        box = card_boxes[c]
        left = abs(x - box[0]) <= abs(x - box[2])
        top = abs(y - box[1]) <= abs(y - box[3])
        out.append(("t" if top else "b") + ("l" if left else "r"))
    return out


def combined(probs: FloatArray, eps: float = EPS) -> npt.NDArray[np.float64]:
    """Several readings' probabilities (a row each) multiplied and summed to one again, in
    logs so that none underflows (each probability plus ``eps``).

    >>> [round(float(v), 3) for v in combined(np.array([[0.8, 0.2], [0.5, 0.5]]))]
    [0.8, 0.2]
    """
    logs = np.log(np.asarray(probs, np.float64) + eps).sum(0)
    return np.asarray(np.exp(logs - np.logaddexp.reduce(logs)), np.float64)


def read_card(rank_probs: FloatArray, suit_probs: FloatArray) -> tuple[str, float]:
    """One card from several readings of it: the best rank and suit, and their probability."""
    rank, suit = combined(rank_probs), combined(suit_probs)
    r, s = int(rank.argmax()), int(suit.argmax())
    return card_name(r, s), float(rank[r]) * float(suit[s])


#: How many of a card's likeliest names it carries (``likeliest_names``): enough for the
#: names its zone's other cards may take from it.
NAMES_KEPT = 6

Names = tuple[tuple[str, float], ...]


def likeliest_names(rank_probs: FloatArray, suit_probs: FloatArray, most: int = NAMES_KEPT) -> Names:
    """A card's ``most`` likeliest names from several readings of it, likeliest first, each
    with its probability (its rank's times its suit's, as they are read apart); the first
    is :func:`read_card`'s.

    >>> queen, spades_else_clubs = np.eye(13)[[11]], np.array([[0.1, 0, 0, 0.9]])
    >>> [(name, round(p, 3)) for name, p in likeliest_names(queen, spades_else_clubs, 2)]
    [('Qs', 0.9), ('Qc', 0.1)]
    """
    rank, suit = combined(rank_probs), combined(suit_probs)
    joint = np.outer(rank, suit).ravel()
    order = np.argsort(-joint, kind="stable")[:most]
    return tuple((card_name(int(k) // len(suit), int(k) % len(suit)), float(joint[k])) for k in order)


def _score(rank: FloatArray, suit: FloatArray, members: list[int]) -> list[float]:
    return [float(rank[i].max() * suit[i].max()) for i in members]


def _join_loose(
    loose: list[int],
    centres: npt.NDArray[np.floating],
    heights: npt.NDArray[np.floating],
    rank: FloatArray,
    suit: FloatArray,
) -> list[list[int]]:
    groups: list[list[int]] = []
    for i in sorted(set(loose)):
        for g in groups:
            j = g[0]
            same = _identity(rank[i], suit[i]) == _identity(rank[j], suit[j])
            near = np.linalg.norm(centres[i] - centres[j]) <= REACH * max(heights[i], heights[j])
            if same and near and len(g) < 4:
                g.append(i)
                break
        else:
            groups.append([i])
    return groups
