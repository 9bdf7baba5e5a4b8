"""The table layout: where the markers, seats and zones are on the table, in millimetres.

A layout is stored as JSON in a versioned format (``calibration/README.md`` documents
it). Loading validates every field and raises :class:`LayoutError` with a message that
names the file and the field. Coordinates follow :mod:`assistant.vision.geometry`.

>>> from assistant.vision.default_layouts import oval_layout
>>> layout = oval_layout(6)
>>> layout_from_dict(layout_to_dict(layout)) == layout
True
>>> layout_from_dict({"format": "dealer-assistant/table-layout", "version": 9}, "t")
Traceback (most recent call last):
...
assistant.vision.layout.LayoutError: t: version 9 is not supported (this program reads version 1)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from assistant.vision.geometry import Rect, convex_polygons_overlap, inside_ellipse

LAYOUT_FORMAT = "dealer-assistant/table-layout"
LAYOUT_VERSION = 1
#: Marker ids must exist in this ArUco dictionary (``cv2.aruco.DICT_4X4_50``).
ARUCO_DICTIONARY = "DICT_4X4_50"
ARUCO_DICTIONARY_SIZE = 50
MIN_MARKERS = 4
MAX_SEATS = 10


class LayoutError(ValueError):
    """A layout (or calibration) file is missing, unreadable or not a valid layout."""


class TableShape(Enum):
    OVAL = "oval"
    RECTANGLE = "rectangle"


@dataclass(frozen=True)
class Table:
    shape: TableShape
    width_mm: float
    depth_mm: float


@dataclass(frozen=True)
class MarkerPlacement:
    """A printed ArUco marker lying on the table: its id, centre, side and rotation.

    ``size_mm`` is the side of the black square (the white margin around it is extra).
    """

    id: int
    center: tuple[float, float]
    size_mm: float
    angle_deg: float = 0.0

    def corners(self) -> list[tuple[float, float]]:
        """Table positions of the marker's corners, in ArUco's corner order."""
        return Rect(self.center, (self.size_mm, self.size_mm), self.angle_deg).corners()


@dataclass(frozen=True)
class Seat:
    """A seat, with where its cards, its bets and the dealer button (when it deals) lie."""

    number: int
    name: str
    card_zone: Rect
    bet_zone: Rect
    button_zone: Rect


@dataclass(frozen=True)
class TableLayout:
    name: str
    table: Table
    markers: tuple[MarkerPlacement, ...]
    seats: tuple[Seat, ...]
    pot: Rect
    deck: Rect

    def marker(self, marker_id: int) -> MarkerPlacement | None:
        return next((m for m in self.markers if m.id == marker_id), None)

    def zones(self) -> dict[str, Rect]:
        """Every zone by key: ``seatN.cards``, ``seatN.bet``, ``seatN.button``, pot, deck."""
        zones: dict[str, Rect] = {}
        for seat in self.seats:
            zones[f"seat{seat.number}.cards"] = seat.card_zone
            zones[f"seat{seat.number}.bet"] = seat.bet_zone
            zones[f"seat{seat.number}.button"] = seat.button_zone
        zones["pot"] = self.pot
        zones["deck"] = self.deck
        return zones

    def problems(self) -> list[str]:
        """Geometric problems: zones or markers overlapping, or lying off the table."""
        found: list[str] = []
        areas = dict(self.zones())
        for marker in self.markers:
            areas[f"marker {marker.id}"] = Rect(
                marker.center, (marker.size_mm, marker.size_mm), marker.angle_deg
            ).grown(marker_margin_mm(marker.size_mm))
        names = list(areas)
        for index, first in enumerate(names):
            for second in names[index + 1 :]:
                if convex_polygons_overlap(areas[first].corners(), areas[second].corners()):
                    found.append(f"{first} overlaps {second}")
        for name, rect in areas.items():
            if not all(self._on_table(corner) for corner in rect.corners()):
                found.append(f"{name} reaches off the table")
        return found

    def _on_table(self, point: tuple[float, float]) -> bool:
        half_w, half_d = self.table.width_mm / 2.0, self.table.depth_mm / 2.0
        if self.table.shape is TableShape.OVAL:
            return inside_ellipse(point, half_w, half_d)
        return abs(point[0]) <= half_w and abs(point[1]) <= half_d


def marker_margin_mm(size_mm: float) -> float:
    """The white margin printed around a marker: a fifth of its side, at least 12 mm."""
    return max(12.0, 0.2 * size_mm)


# --- JSON form -------------------------------------------------------------------------


def _rect_to_dict(rect: Rect) -> dict[str, Any]:
    return {
        "center_mm": [round(rect.center[0], 2), round(rect.center[1], 2)],
        "size_mm": [round(rect.size[0], 2), round(rect.size[1], 2)],
        "angle_deg": round(rect.angle_deg, 3),
    }


def layout_to_dict(layout: TableLayout) -> dict[str, Any]:
    return {
        "format": LAYOUT_FORMAT,
        "version": LAYOUT_VERSION,
        "name": layout.name,
        "units": "mm",
        "aruco_dictionary": ARUCO_DICTIONARY,
        "table": {
            "shape": layout.table.shape.value,
            "width_mm": layout.table.width_mm,
            "depth_mm": layout.table.depth_mm,
        },
        "markers": [
            {
                "id": m.id,
                "center_mm": [round(m.center[0], 2), round(m.center[1], 2)],
                "size_mm": m.size_mm,
                "angle_deg": round(m.angle_deg, 3),
            }
            for m in layout.markers
        ],
        "seats": [
            {
                "number": s.number,
                "name": s.name,
                "card_zone": _rect_to_dict(s.card_zone),
                "bet_zone": _rect_to_dict(s.bet_zone),
                "button_zone": _rect_to_dict(s.button_zone),
            }
            for s in layout.seats
        ],
        "pot": _rect_to_dict(layout.pot),
        "deck": _rect_to_dict(layout.deck),
    }


class _Reader:
    """Reads typed fields out of parsed JSON, naming the field in every error."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def fail(self, message: str) -> LayoutError:
        return LayoutError(f"{self.origin}: {message}")

    def mapping(self, value: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(f"{where} must be an object")
        return value

    def field(self, data: Mapping[str, Any], key: str, where: str) -> Any:
        if key not in data:
            raise self.fail(f"{where}{key} is missing")
        return data[key]

    def number(self, value: Any, where: str, *, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.fail(f"{where} must be a number")
        if positive and value <= 0:
            raise self.fail(f"{where} must be positive")
        return float(value)

    def pair(self, value: Any, where: str, *, positive: bool = False) -> tuple[float, float]:
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail(f"{where} must be a list of two numbers")
        return (
            self.number(value[0], where, positive=positive),
            self.number(value[1], where, positive=positive),
        )

    def rect(self, value: Any, where: str) -> Rect:
        data = self.mapping(value, where)
        return Rect(
            center=self.pair(self.field(data, "center_mm", f"{where}."), f"{where}.center_mm"),
            size=self.pair(self.field(data, "size_mm", f"{where}."), f"{where}.size_mm", positive=True),
            angle_deg=self.number(data.get("angle_deg", 0.0), f"{where}.angle_deg"),
        )


def layout_from_dict(data: Any, origin: str = "layout") -> TableLayout:
    """Validate parsed JSON and build the layout; ``origin`` prefixes error messages."""
    read = _Reader(origin)
    data = read.mapping(data, "the file")
    if data.get("format") != LAYOUT_FORMAT:
        raise read.fail(f'not a table layout (expected "format": "{LAYOUT_FORMAT}")')
    version = data.get("version")
    if version != LAYOUT_VERSION:
        raise read.fail(f"version {version} is not supported (this program reads version {LAYOUT_VERSION})")
    dictionary = data.get("aruco_dictionary", ARUCO_DICTIONARY)
    if dictionary != ARUCO_DICTIONARY:
        raise read.fail(f"aruco_dictionary must be {ARUCO_DICTIONARY}, not {dictionary!r}")
    table_data = read.mapping(read.field(data, "table", ""), "table")
    try:
        shape = TableShape(table_data.get("shape"))
    except ValueError:
        shapes = ", ".join(s.value for s in TableShape)
        raise read.fail(f"table.shape must be one of {shapes}") from None
    table = Table(
        shape,
        read.number(read.field(table_data, "width_mm", "table."), "table.width_mm", positive=True),
        read.number(read.field(table_data, "depth_mm", "table."), "table.depth_mm", positive=True),
    )
    markers_data = read.field(data, "markers", "")
    if not isinstance(markers_data, list) or len(markers_data) < MIN_MARKERS:
        raise read.fail(f"markers must list at least {MIN_MARKERS} markers")
    markers: list[MarkerPlacement] = []
    for index, item in enumerate(markers_data):
        where = f"markers[{index}]"
        entry = read.mapping(item, where)
        marker_id = read.field(entry, "id", f"{where}.")
        if isinstance(marker_id, bool) or not isinstance(marker_id, int):
            raise read.fail(f"{where}.id must be an integer")
        if not 0 <= marker_id < ARUCO_DICTIONARY_SIZE:
            raise read.fail(f"{where}.id {marker_id} is not in {ARUCO_DICTIONARY} (0 to 49)")
        if any(m.id == marker_id for m in markers):
            raise read.fail(f"{where}.id {marker_id} is used twice")
        markers.append(
            MarkerPlacement(
                id=marker_id,
                center=read.pair(read.field(entry, "center_mm", f"{where}."), f"{where}.center_mm"),
                size_mm=read.number(
                    read.field(entry, "size_mm", f"{where}."), f"{where}.size_mm", positive=True
                ),
                angle_deg=read.number(entry.get("angle_deg", 0.0), f"{where}.angle_deg"),
            )
        )
    seats_data = read.field(data, "seats", "")
    if not isinstance(seats_data, list) or not 2 <= len(seats_data) <= MAX_SEATS:
        raise read.fail(f"seats must list 2 to {MAX_SEATS} seats")
    seats: list[Seat] = []
    for index, item in enumerate(seats_data):
        where = f"seats[{index}]"
        entry = read.mapping(item, where)
        if entry.get("number") != index + 1:
            raise read.fail(f"{where}.number must be {index + 1} (seats are numbered clockwise)")
        name = entry.get("name", f"Seat {index + 1}")
        if not isinstance(name, str) or not name.strip():
            raise read.fail(f"{where}.name must be a non-empty text")
        seats.append(
            Seat(
                number=index + 1,
                name=name,
                card_zone=read.rect(read.field(entry, "card_zone", f"{where}."), f"{where}.card_zone"),
                bet_zone=read.rect(read.field(entry, "bet_zone", f"{where}."), f"{where}.bet_zone"),
                button_zone=read.rect(read.field(entry, "button_zone", f"{where}."), f"{where}.button_zone"),
            )
        )
    return TableLayout(
        name=str(data.get("name", "unnamed")),
        table=table,
        markers=tuple(markers),
        seats=tuple(seats),
        pot=read.rect(read.field(data, "pot", ""), "pot"),
        deck=read.rect(read.field(data, "deck", ""), "deck"),
    )


def load_json(path: Path, what: str) -> Any:
    """Parse a JSON file, turning every way it can fail into one :class:`LayoutError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LayoutError(f"{what} file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise LayoutError(f"cannot read {what} file {path}: {error}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise LayoutError(f"{path}: not valid JSON ({error})") from None


def load_layout(path: str | Path) -> TableLayout:
    """Read a layout file; a calibration file (which embeds its layout) is accepted too."""
    path = Path(path)
    data = load_json(path, "layout")
    if isinstance(data, Mapping) and isinstance(data.get("layout"), Mapping):
        data = data["layout"]
    return layout_from_dict(data, str(path))


_NUMBER_LIST = re.compile(r"\[\s+(-?[\d.e+-]+(?:,\s+-?[\d.e+-]+)*)\s+\]")


def dumps(data: Any) -> str:
    """JSON with two-space indents and lists of numbers kept on one line."""
    text = json.dumps(data, indent=2)
    text = _NUMBER_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    return _NUMBER_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text) + "\n"


def save_layout(layout: TableLayout, path: str | Path) -> None:
    Path(path).write_text(dumps(layout_to_dict(layout)), encoding="utf-8")
