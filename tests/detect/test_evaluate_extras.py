"""How reported face-down cards and chip stacks are judged against a render's truth."""

from __future__ import annotations

from typing import Any

from assistant.detect.evaluate import match_extras
from assistant.detect.pipeline import ChipStack, Detection

BACK = [100.0, 100.0, 163.0, 188.0]
STACK = [300.0, 100.0, 345.0, 160.0]


def _truth(*objects: dict[str, Any]) -> dict[str, Any]:
    return {"objects": list(objects)}


def _back(box: list[float], labelled: bool = True) -> dict[str, Any]:
    return {"kind": "face_down", "box": box, "labelled": labelled}


def _stack(box: list[float] | None, colour: str, labelled: bool = True) -> dict[str, Any]:
    return {"kind": "chips", "box": box, "colour": colour, "labelled": labelled, "count": 5}


def test_one_back_reported_twice_is_right_once_and_wrong_once() -> None:
    found = Detection("x", face_down=[(100.0, 100.0, 163.0, 188.0), (102.0, 98.0, 165.0, 190.0)])
    backs, _ = match_extras(found, _truth(_back(BACK)))
    assert (backs.tp, backs.fp, backs.fn) == (1, 1, 0)


def test_a_stack_of_the_wrong_colour_is_wrong_and_the_true_one_missed() -> None:
    found = Detection("x", chips=[ChipStack("blue", None, (300.0, 100.0, 345.0, 160.0), 0.9)])
    _, stacks = match_extras(found, _truth(_stack(STACK, "red")))
    assert (stacks.tp, stacks.fp, stacks.fn) == (0, 1, 1)
    # the right colour, with a shorter side seen: IoU 0.67
    found.chips[0] = ChipStack("red", None, (300.0, 110.0, 345.0, 150.0), 0.9)
    _, stacks = match_extras(found, _truth(_stack(STACK, "red")))
    assert (stacks.tp, stacks.fp, stacks.fn) == (1, 0, 0)


def test_a_box_on_something_too_little_in_view_to_judge_counts_neither_way() -> None:
    found = Detection("x", face_down=[(100.0, 100.0, 163.0, 188.0)])
    backs, _ = match_extras(found, _truth(_back(BACK, labelled=False), _stack(None, "red")))
    assert (backs.tp, backs.fp, backs.fn, backs.unjudged) == (0, 0, 0, 1)


def test_where_nothing_lies_every_reported_box_is_wrong() -> None:
    found = Detection(
        "x", face_down=[(1.0, 1.0, 64.0, 89.0)], chips=[ChipStack("red", 3, (5.0, 5.0, 50.0, 60.0), 0.6)]
    )
    backs, stacks = match_extras(found, _truth())
    assert (backs.fp, stacks.fp, backs.fn, stacks.fn) == (1, 1, 0, 0)
