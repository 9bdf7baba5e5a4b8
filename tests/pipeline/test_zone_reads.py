"""A zone's detections (the ``detect --json`` contract) become one reading of the zone."""

from typing import Any

from assistant.engine import Card, parse_card
from assistant.pipeline.zones import read_zone, within


def _cards(*names: str) -> list[Card]:
    return [parse_card(n) for n in names]


def test_a_zone_reading_keeps_the_cards_in_the_order_they_lie_left_to_right() -> None:
    detections: dict[str, list[dict[str, Any]]] = {
        "cards": [
            # boxes of overlapping cards can be loose; the leftmost index read decides
            {"card": "Js", "box": [60, 10, 160, 100], "confidence": 0.9, "index": [100, 12, 108, 30]},
            {"card": "4s", "box": [30, 10, 100, 100], "confidence": 0.9, "index": [40, 12, 48, 30]},
            {"card": "2s", "box": [140, 10, 200, 100], "confidence": 0.9},
        ],
        "face_down": [{"box": [0, 10, 63, 98]}],
    }
    read = read_zone(detections)
    assert read.order == tuple(_cards("4s", "Js", "2s"))
    assert read.face_down == 1
    # the order is not part of what the reading is: two orders compare equal
    shuffled = dict(detections, cards=list(reversed(detections["cards"])))
    assert read_zone(shuffled) == read


def test_unsure_cards_are_kept_aside_and_unknown_names_left_out_of_a_zone_reading() -> None:
    detections = {
        "cards": [
            {"card": "Qh", "box": [0, 0, 63, 88], "confidence": 0.2},
            {"card": "Zz", "box": [70, 0, 133, 88], "confidence": 0.9},
            {"card": "Ah", "box": [140, 0, 203, 88], "confidence": 0.8},
        ]
    }
    read = read_zone(detections)
    assert read.face_up == tuple(_cards("Ah"))
    assert read.unsure == ((parse_card("Qh"), 0.2),)  # kept aside for the dealer to confirm
    faint = {"cards": [{"card": "Qh", "box": [0, 0, 63, 88], "confidence": 0.1}]}
    assert read_zone(faint).unsure == ()
    assert read_zone(faint) == read_zone(
        {"cards": [{"card": "Qh", "box": [0, 0, 63, 88], "confidence": 0.3}]}
    )


def test_a_chip_stack_belongs_to_the_zone_it_stands_in_not_where_its_smear_reaches() -> None:
    # seen from the side, a stack covers a long stretch of the table plane beyond its foot
    inner = (20.0, 20.0, 160.0, 120.0)
    # box centres: red's (120, 180) lies outside the zone, blue's (120, 50) inside; their feet the other way
    standing_in = {"colour": "red", "count": 5, "box": [100.0, 60.0, 140.0, 300.0], "foot": [120.0, 80.0]}
    behind = {
        "colour": "blue",
        "count": 3,
        "box": [100.0, -100.0, 140.0, 200.0],
        "foot": [120.0, -80.0],
    }
    plain = {"colour": "green", "count": 2, "box": [30.0, 30.0, 70.0, 70.0]}  # no foot: its box's centre
    kept = within({"chips": [standing_in, behind, plain]}, inner)["chips"]
    assert [c["colour"] for c in kept] == ["red", "green"]
