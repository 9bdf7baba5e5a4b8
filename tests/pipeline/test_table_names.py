"""A deck holds every card once: two zones of one table never keep one card's name; the
card whose readings give the name up at the least cost takes its next likeliest (stop 59)."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.detect.evaluate import evaluate
from assistant.detect.grouping import likeliest_names
from assistant.detect.pipeline import Card, Detection, named_apart
from assistant.pipeline.table_names import distinct_names, name_table, renamed_confidence
from tests.detect.upright_zone import reading_of

ZONES = Path(__file__).resolve().parents[1] / "detect" / "fixtures" / "zones"


def seen(name: str, confidence: float, *names: tuple[str, float]) -> dict[str, Any]:
    return {
        "card": name,
        "box": [10.0, 20.0, 73.0, 108.0],
        "confidence": confidence,
        "names": [list(n) for n in names],
    }


def cards_of(named: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    return {key: [c["card"] for c in found["cards"]] for key, found in named.items()}


def test_two_zones_never_keep_one_card_the_one_that_gives_the_name_up_most_easily_takes_its_next() -> None:
    sure = seen("7s", 0.93, ("7s", 0.95), ("7c", 0.01))
    clubs_next = seen("7s", 0.9, ("7s", 0.9), ("7c", 0.09))  # as sure of its name as the other is ...
    named = name_table({"seat0.cards": {"cards": [clubs_next]}, "seat3.cards": {"cards": [sure]}})
    # ... but its 7 of clubs is far likelier than the other's: it takes the clubs
    assert cards_of(named) == {"seat0.cards": ["7c"], "seat3.cards": ["7s"]}
    assert named["seat0.cards"]["cards"][0]["renamed_from"] == "7s"
    assert named["seat3.cards"]["cards"][0] is sure  # a card keeping its name stands as read


def test_a_renamed_card_is_as_sure_as_its_box_times_its_share_of_what_the_other_names_leave() -> None:
    # box 0.8 (0.72 / 0.9); the 7 of clubs is 0.09 of the 0.1 the 7 of spades leaves
    assert renamed_confidence({"card": "7s", "confidence": 0.72}, {"7s": 0.9, "7c": 0.09}, "7c", {"7s"}) == (
        pytest.approx(0.8 * 0.9)
    )
    assert renamed_confidence({"card": "7s", "confidence": 0.9}, {"7s": 0.9, "7c": 0.09}, "7c", set()) == (
        pytest.approx(0.09)
    )


def test_a_card_with_no_other_likely_name_stands_as_read_for_the_dealer_to_settle() -> None:
    one = {"cards": [seen("Kd", 0.9, ("Kd", 0.95))]}
    other = {"cards": [seen("Kd", 0.8, ("Kd", 0.85))]}
    assert cards_of(name_table({"a": one, "b": other})) == {"a": ["Kd"], "b": ["Kd"]}


def test_zones_without_a_clash_come_back_as_they_were() -> None:
    zones: dict[str, dict[str, Any]] = {
        "a": {"cards": [seen("7s", 0.9, ("7s", 0.9), ("7c", 0.09))]},
        "b": {"cards": [], "chips": []},
    }
    assert name_table(zones) == zones
    assert name_table({}) == {}


def test_the_card_memorys_own_name_is_one_of_a_cards_candidates() -> None:
    # the memory named it 7c from earlier frames, though this frame read it 7s first
    remembered = {**seen("7s", 0.7, ("7s", 0.6), ("7c", 0.35)), "card": "7c"}
    other = seen("7c", 0.95, ("7c", 0.97), ("7s", 0.01))
    named = name_table({"a": {"cards": [remembered]}, "b": {"cards": [other]}})
    assert cards_of(named) == {"a": ["7s"], "b": ["7c"]}


def test_names_pass_along_a_chain_where_the_sum_of_log_probabilities_is_greatest() -> None:
    given = distinct_names(
        [(("Ah", 0.95), ("Ad", 0.01)), (("Ah", 0.6), ("Kh", 0.35)), (("Kh", 0.9), ("Kd", 0.06))]
    )
    assert given == ["Ah", "Kh", "Kd"]  # 0.95 * 0.35 * 0.06 beats 0.01 * 0.6 * 0.9
    assert distinct_names([(("7s", 0.9),), (("7s", 0.8),)]) == ["7s", None]  # no name is likelier than none


def test_a_cards_likeliest_names_multiply_its_rank_and_suit_readings() -> None:
    rank, suit = reading_of("7s", 0.9)
    names = likeliest_names(rank[None], suit[None])
    assert names[0][0] == "7s" and names[0][1] == pytest.approx(0.81, abs=1e-3)
    assert [n for n, _ in names[1:4]] == ["7c", "7d", "7h"]  # the rank held, another suit
    assert all(a[1] >= b[1] for a, b in itertools.pairwise(names))


def test_the_detect_contract_leaves_the_names_out_and_the_pipeline_gets_them() -> None:
    card = Card("7s", (1.0, 2.0, 3.0, 4.0), 0.9, names=(("7s", 0.9), ("7c", 0.09)))
    assert set(Detection("x", [card]).to_json()["cards"][0]) == {"card", "box", "confidence"}
    assert Detection("x", [card]).to_json(with_names=True)["cards"][0]["names"] == [["7s", 0.9], ["7c", 0.09]]


def test_the_detections_of_one_frames_zones_are_named_apart_as_the_pipeline_names_them() -> None:
    sure = Card("7s", (0.0, 0.0, 63.0, 88.0), 0.95, names=(("7s", 0.95), ("7c", 0.01)))
    unsure = Card("7s", (70.0, 0.0, 133.0, 88.0), 0.72, names=(("7s", 0.9), ("7c", 0.09)))
    first, second = named_apart([Detection("a", [sure]), Detection("b", [unsure])])
    assert first.cards == [sure]
    assert second.cards[0].card == "7c" and second.cards[0].box == unsure.box
    assert second.cards[0].confidence == pytest.approx(0.8 * 0.9, abs=1e-3)


def _one_frame(root: Path) -> dict[str, str]:
    """Two fixture zone crops as the two seats of one frame of one hand (``test`` split):
    image name -> the name of its first true card."""
    for kind in ("images", "truth"):
        (root / kind / "test").mkdir(parents=True)
    first: dict[str, str] = {}
    for seat, source in (("seat1", "00062_0379_seat4.cards"), ("seat2", "00107_0105_seat4.cards")):
        truth = json.loads((ZONES / f"{source}.json").read_text())
        name = f"h-00001_0010_{seat}.cards"
        truth["image"] = f"{name}.jpg"
        shutil.copy(ZONES / f"{source}.jpg", root / "images" / "test" / truth["image"])
        (root / "truth" / "test" / f"{name}.json").write_text(json.dumps(truth))
        first[truth["image"]] = next(o["card"] for o in truth["objects"] if o["kind"] == "card")
    return first


def test_an_evaluation_in_tables_names_the_crops_of_one_frame_apart(tmp_path: Path) -> None:
    first = _one_frame(tmp_path / "zones")  # 7h at seat 1, Ac at seat 2, each at x 10-70 / 34-94
    assert list(first.values()) == ["7h", "Ac"]
    boxes = {
        "h-00001_0010_seat1.cards.jpg": (10.0, 20.0, 70.0, 109.0),
        "h-00001_0010_seat2.cards.jpg": (34.0, 18.0, 94.0, 108.0),
    }

    def read(image: np.ndarray, name: str) -> Detection:
        if name.endswith("seat1.cards.jpg"):  # the 7 of hearts, read surely
            return Detection(name, [Card("7h", boxes[name], 0.95, names=(("7h", 0.95), ("Ac", 0.01)))])
        # the ace of clubs read as the 7 of hearts, with the ace next
        return Detection(name, [Card("7h", boxes[name], 0.9, names=(("7h", 0.6), ("Ac", 0.38)))])

    alone = evaluate(read, tmp_path / "zones", "test")
    tables = evaluate(read, tmp_path / "zones", "test", tables=True, memory=True)
    assert (alone.all_cards.tp, alone.all_cards.fp) == (1, 1)
    assert (tables.all_cards.tp, tables.all_cards.fp) == (2, 0)
    assert tables.remembered is not None and (tables.remembered.tp, tables.remembered.fp) == (2, 0)
    # the renamed ace is put to the dealer, not counted, though 0.95 sure
    assert tables.counted is not None and tables.asked is not None
    assert (tables.counted.tp, tables.counted.fp, tables.asked.tp) == (1, 0, 1)
