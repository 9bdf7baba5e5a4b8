from __future__ import annotations

import numpy as np
import pytest

from assistant.detect.grouping import group_cards
from assistant.detect.labels import RANKS, SUITS


def _probs(cards: list[str], sure: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    rank = np.full((len(cards), 13), (1 - sure) / 12, np.float32)
    suit = np.full((len(cards), 4), (1 - sure) / 3, np.float32)
    for i, c in enumerate(cards):
        rank[i, RANKS.index(c[0])] = sure
        suit[i, SUITS.index(c[1])] = sure
    return rank, suit


def _boxes(*boxes: tuple[float, float, float, float]) -> np.ndarray:
    return np.array(boxes, np.float32).reshape(-1, 4)


def test_two_corners_of_one_card_come_out_as_one_card() -> None:
    card = _boxes((100, 100, 163, 188))
    indices = _boxes((102, 102, 112, 120), (151, 168, 161, 186))
    rank, suit = _probs(["Qh", "Qh"])
    cards = group_cards(card, np.array([0.9], np.float32), indices, rank, suit)
    assert [c.card for c in cards] == ["Qh"]
    assert cards[0].box == (100, 100, 163, 188)
    assert cards[0].indices == (0, 1)


def test_two_unsure_corners_that_agree_make_a_surer_card() -> None:
    card = _boxes((0, 0, 63, 88))
    indices = _boxes((2, 2, 12, 20), (51, 68, 61, 86))
    rank, suit = _probs(["7s", "7s"], sure=0.5)
    both = group_cards(card, np.ones(1, np.float32), indices, rank, suit)[0]
    one = group_cards(card, np.ones(1, np.float32), indices[:1], rank[:1], suit[:1])[0]
    assert both.card == one.card == "7s"
    assert both.confidence > one.confidence


def test_corners_that_disagree_are_decided_by_their_combined_probabilities() -> None:
    card = _boxes((0, 0, 63, 88))
    indices = _boxes((2, 2, 12, 20), (51, 68, 61, 86))
    rank, suit = _probs(["6h", "6h"])
    rank[1] = 0.01
    rank[1, RANKS.index("9")] = 0.5  # the second corner leans to 9 but is unsure
    rank[1, RANKS.index("6")] = 0.4
    cards = group_cards(card, np.ones(1, np.float32), indices, rank, suit)
    assert [c.card for c in cards] == ["6h"]


def test_an_index_of_a_card_underneath_inside_the_top_cards_box_stays_a_card_of_its_own() -> None:
    top = _boxes((100, 100, 163, 188))
    indices = _boxes((102, 102, 112, 120), (151, 168, 161, 186), (104, 150, 114, 168))
    rank, suit = _probs(["Kc", "Kc", "2d"])
    cards = group_cards(top, np.ones(1, np.float32), indices, rank, suit)
    assert sorted(c.card for c in cards) == ["2d", "Kc"]
    king = next(c for c in cards if c.card == "Kc")
    assert king.box == (100, 100, 163, 188)


def test_an_index_goes_to_the_smallest_card_box_that_holds_it() -> None:
    boxes = _boxes((0, 0, 300, 300), (100, 100, 163, 188))
    indices = _boxes((102, 102, 112, 120))
    rank, suit = _probs(["Ah"])
    cards = group_cards(boxes, np.ones(2, np.float32), indices, rank, suit)
    assert cards[0].box == (100, 100, 163, 188)


def test_loose_indices_of_the_same_card_nearby_are_joined_and_far_ones_are_not() -> None:
    indices = _boxes((0, 0, 10, 18), (50, 70, 60, 88), (900, 900, 910, 918))
    rank, suit = _probs(["Td", "Td", "Td"])
    cards = group_cards(_boxes(), np.zeros(0, np.float32), indices, rank, suit)
    assert sorted(len(c.indices) for c in cards) == [1, 2]
    joined = next(c for c in cards if len(c.indices) == 2)
    assert joined.box == (0, 0, 60, 88)


def test_a_card_box_without_a_readable_index_is_left_out() -> None:
    rank, suit = _probs([])
    assert group_cards(_boxes((0, 0, 60, 88)), np.ones(1, np.float32), _boxes(), rank, suit) == []


@pytest.mark.parametrize("sure", [0.3, 0.6, 0.99])
def test_confidence_is_a_probability(sure: float) -> None:
    rank, suit = _probs(["Ac"], sure)
    (card,) = group_cards(
        _boxes((0, 0, 60, 88)), np.array([0.8], np.float32), _boxes((1, 1, 11, 19)), rank, suit
    )
    assert 0 < card.confidence <= 0.8


def test_read_cards_in_one_place_are_one_card_the_surest_stays() -> None:
    from assistant.detect.pipeline import Card, suppress_duplicates

    cards = [
        Card("Ts", (442, 419, 484, 460), 0.06, by_geometry=True),
        Card("8s", (442, 421, 502, 475), 0.09, by_geometry=True),
        Card("6s", (463, 432, 510, 472), 0.08, by_geometry=True),
        Card("Ah", (10, 10, 50, 70), 0.5),
        Card("Kh", (12, 14, 52, 74), 0.4),  # a fanned neighbour read from its own index
        Card("Qh", (11, 11, 50, 70), 0.3),  # the same place again: a duplicate
    ]
    assert [c.card for c in suppress_duplicates(cards)] == ["Ah", "Kh", "8s"]


def test_in_a_row_of_overlapping_cards_each_corner_index_goes_to_its_own_card() -> None:
    # three upright cards dealt left to right, each covering the right part of the last:
    # the top-left index of cards two and three lies inside the box of the card below too
    boxes = _boxes((0, 0, 63, 88), (35, 0, 98, 88), (70, 0, 133, 88))
    indices = _boxes((2, 2, 10, 20), (37, 2, 45, 20), (72, 2, 80, 20), (123, 68, 131, 86))
    rank, suit = _probs(["3c", "Jd", "7s", "7s"])
    cards = group_cards(boxes, np.ones(3, np.float32), indices, rank, suit)
    by_box = {c.box: c.card for c in cards}
    assert by_box == {(0, 0, 63, 88): "3c", (35, 0, 98, 88): "Jd", (70, 0, 133, 88): "7s"}


def test_in_an_upright_zone_a_cards_two_corners_that_disagree_stay_one_card() -> None:
    card = _boxes((31, 22, 95, 109))
    indices = _boxes((38, 28, 47, 48), (89, 84, 98, 104))
    rank, suit = _probs(["Qd", "Jd"])
    rank[0, RANKS.index("J")] = 0.02  # the small top-left corner reads Q; the other is sure
    rank[0, RANKS.index("Q")] = 0.9
    rank[1] = 1e-6
    rank[1, RANKS.index("J")] = 1.0
    split = group_cards(card, np.ones(1, np.float32), indices, rank, suit)
    assert len(split) == 2  # anywhere else: the unsure corner could be a card underneath
    kept = group_cards(card, np.ones(1, np.float32), indices, rank, suit, upright=True)
    assert [c.card for c in kept] == ["Jd"]


def test_in_an_upright_zone_a_box_that_took_in_two_cards_gives_up_the_second_index() -> None:
    wide = _boxes((30, 10, 150, 100))  # one loose box over two cards of a row
    indices = _boxes((38, 14, 46, 32), (100, 14, 108, 32))
    rank, suit = _probs(["Jc", "4s"])
    cards = group_cards(wide, np.ones(1, np.float32), indices, rank, suit, upright=True)
    assert sorted(c.card for c in cards) == ["4s", "Jc"]


def test_in_an_upright_zone_a_second_box_on_a_cards_index_is_no_card_of_its_own() -> None:
    card = _boxes((34, 23, 97, 110))
    indices = _boxes((38, 26, 50, 48), (36, 29, 46, 49), (89, 84, 99, 104))
    rank, suit = _probs(["Jd", "Qd", "Jd"])
    cards = group_cards(card, np.ones(1, np.float32), indices, rank, suit, upright=True)
    assert [c.card for c in cards] == ["Jd"]


def test_in_an_upright_zone_a_shifted_second_box_beside_a_cards_index_is_no_card_of_its_own() -> None:
    """Held-out video, frame 318: a queen's index found twice, the second box a few pixels
    off and read as a ten; a card has one top-left index."""
    card = _boxes((106, 21, 165, 107))
    indices = _boxes((109, 22, 119, 44), (107, 24, 114, 41))  # centres 5 px apart, no overlap of centres
    rank, suit = _probs(["Qh", "Th"])
    cards = group_cards(card, np.ones(1, np.float32), indices, rank, suit, upright=True)
    assert [c.card for c in cards] == ["Qh"]
    # an index further along the top edge (a covered card's, showing through) stays a card
    indices = _boxes((109, 22, 119, 44), (128, 22, 138, 44))
    cards = group_cards(card, np.ones(1, np.float32), indices, rank, suit, upright=True)
    assert sorted(c.card for c in cards) == ["Qh", "Th"]


def test_in_an_upright_zone_the_two_corners_of_a_card_taken_for_a_back_are_one_card() -> None:
    # the held-out video's jack of clubs, frame 59: stage 1 calls the card a back (its face-up
    # box, inside the surer back, is dropped); the bottom-right index reads the jack of spades
    back = _boxes((70, 43, 131, 130))
    indices = _boxes((69, 45, 79, 66), (119, 104, 128, 125))
    rank, suit = _probs(["Jc", "Js"])
    suit[1] = np.array([{"s": 0.55, "c": 0.45}.get(s, 0.0) for s in SUITS], np.float32)  # spades by a little
    loose = group_cards(_boxes(), np.zeros(0, np.float32), indices, rank, suit, upright=True)
    assert sorted(c.card for c in loose) == ["Jc", "Js"]  # without the back: two cards
    one = group_cards(_boxes(), np.zeros(0, np.float32), indices, rank, suit, upright=True, backs=back)
    assert [c.card for c in one] == ["Jc"]
    assert one[0].indices == (0, 1)
    assert one[0].box == (69, 45, 128, 125)  # the indices' extent; the back gives its outline later
    # two loose indices in one corner of a back, or the corners of two backs, are not joined so
    two_backs = _boxes((70, 43, 100, 90), (100, 90, 131, 130))
    apart = group_cards(_boxes(), np.zeros(0, np.float32), indices, rank, suit, upright=True, backs=two_backs)
    assert sorted(c.card for c in apart) == ["Jc", "Js"]
