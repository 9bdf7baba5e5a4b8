from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from assistant.vision.default_layouts import oval_layout
from assistant.vision.layout import (
    LayoutError,
    layout_from_dict,
    layout_to_dict,
    load_layout,
    save_layout,
)

CALIBRATION_DIR = Path(__file__).resolve().parents[2] / "calibration"


@pytest.mark.parametrize("seats", range(4, 11))
def test_default_layouts_have_no_overlapping_zones_and_stay_on_the_table(seats: int) -> None:
    layout = oval_layout(seats)
    assert layout.problems() == []
    assert len(layout.seats) == seats
    assert 4 <= len(layout.markers) <= 6


@pytest.mark.parametrize("seats", range(4, 11))
def test_default_seats_run_clockwise_as_seen_from_above(seats: int) -> None:
    # With y pointing to the near side, clockwise seen from above is increasing atan2(y, x).
    angles = [math.atan2(s.card_zone.center[1], s.card_zone.center[0]) for s in oval_layout(seats).seats]
    steps = [(b - a) % (2 * math.pi) for a, b in itertools.pairwise(angles)]
    assert all(0 < step < math.pi for step in steps)
    assert sum(steps) < 2 * math.pi


def test_each_seat_has_cards_at_the_rim_and_bets_nearer_the_centre() -> None:
    for seat in oval_layout(8).seats:
        card = math.hypot(*seat.card_zone.center)
        bet = math.hypot(*seat.bet_zone.center)
        assert bet < card


@pytest.mark.parametrize("seats", range(4, 11))
def test_shipped_layout_files_match_the_defaults(seats: int) -> None:
    assert load_layout(CALIBRATION_DIR / f"oval-{seats}.json") == oval_layout(seats)


def test_layout_round_trips_through_its_file(tmp_path: Path) -> None:
    path = tmp_path / "table.json"
    save_layout(oval_layout(7), path)
    assert load_layout(path) == oval_layout(7)
    assert json.loads(path.read_text())["version"] == 1


def _valid() -> dict[str, Any]:
    return layout_to_dict(oval_layout(6))


def _without(key: str) -> dict[str, Any]:
    data = _valid()
    del data[key]
    return data


def _changed(path: str, value: Any) -> dict[str, Any]:
    data = _valid()
    target: Any = data
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if part.isdigit() else target[part]
    last = parts[-1]
    target[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "must be an object"),
        (_changed("format", "something-else"), "not a table layout"),
        (_changed("version", 2), "version 2 is not supported"),
        (_without("seats"), "seats is missing"),
        (_without("pot"), "pot is missing"),
        (_changed("markers", _valid()["markers"][:3]), "at least 4 markers"),
        (_changed("markers.1.id", 0), "markers[1].id 0 is used twice"),
        (_changed("markers.0.id", 77), "not in DICT_4X4_50"),
        (_changed("markers.0.size_mm", -5), "markers[0].size_mm must be positive"),
        (_changed("seats.2.number", 7), "seats[2].number must be 3"),
        (_changed("seats.0.card_zone.size_mm", [10]), "seats[0].card_zone.size_mm must be a list"),
        (
            _changed("seats.0.bet_zone.center_mm", ["a", 1]),
            "seats[0].bet_zone.center_mm must be a number",
        ),
        (_changed("table.shape", "hexagon"), "table.shape must be one of"),
        (_changed("aruco_dictionary", "DICT_6X6_50"), "aruco_dictionary must be DICT_4X4_50"),
    ],
)
def test_invalid_layouts_are_refused_naming_the_field(data: Any, message: str) -> None:
    with pytest.raises(LayoutError, match=r"^bad\.json: ") as caught:
        layout_from_dict(data, "bad.json")
    assert message in str(caught.value)


def test_missing_layout_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="layout file not found"):
        load_layout(tmp_path / "absent.json")


def test_layout_file_that_is_not_json_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "dealer-assistant/table-layout", ')
    with pytest.raises(LayoutError, match="not valid JSON"):
        load_layout(path)


def test_overlapping_zones_are_listed_as_problems() -> None:
    data = _valid()
    data["pot"]["center_mm"] = data["seats"][0]["card_zone"]["center_mm"]
    problems = layout_from_dict(data).problems()
    assert "seat1.cards overlaps pot" in problems
