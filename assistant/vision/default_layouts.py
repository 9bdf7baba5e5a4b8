"""Default layouts for an oval table with 4 to 10 seats.

Seats are spread evenly around the table, numbered clockwise (as seen from above)
starting at or just left of the near side's middle. Each seat has, going inwards from
the edge, its card zone, then its bet zone with the dealer-button spot beside it. The pot
sits in the middle and the deck beside it. Markers lie at the rim in the gaps between
seats: one per gap up to 6, spread around the table when there are more gaps.

>>> layout = oval_layout(8)
>>> len(layout.seats), [m.id for m in layout.markers], layout.problems()
(8, [0, 1, 2, 3, 4, 5], [])
"""

from __future__ import annotations

import math

import numpy as np

from assistant.vision.geometry import Rect
from assistant.vision.layout import MarkerPlacement, Seat, Table, TableLayout, TableShape

#: Table size (width, depth) in millimetres by number of seats.
TABLE_SIZES_MM: dict[int, tuple[float, float]] = {
    4: (1600.0, 1000.0),
    5: (1700.0, 1000.0),
    6: (1800.0, 1050.0),
    7: (2000.0, 1100.0),
    8: (2150.0, 1150.0),
    9: (2300.0, 1250.0),
    10: (2450.0, 1250.0),
}
MARKER_SIZE_MM = 80.0
MARKER_INSET_MM = 75.0
CARD_ZONE_MM = (280.0, 130.0)
CARD_INSET_MM = 170.0
BET_ZONE_MM = (140.0, 100.0)
BET_INSET_MM = 310.0
BUTTON_ZONE_MM = (70.0, 70.0)
BUTTON_OFFSET_MM = 120.0
POT_MM = (400.0, 240.0)
DECK_MM = (110.0, 140.0)
MAX_MARKERS = 6
#: Where seat 1 sits, in seat spacings clockwise from the middle of the near side; chosen
#: per seat count so that no two zones overlap where the oval's ends crowd them.
SEAT_OFFSETS: dict[int, float] = {4: 0.0, 5: 0.5, 6: 0.5, 7: 0.5, 8: 0.0, 9: 0.25, 10: 0.5}
SPACING_INSET_MM = 260.0


class _Ellipse:
    """Points on the table's edge by arc length, with the outward normal there."""

    def __init__(self, semi_x: float, semi_y: float, samples: int = 7200) -> None:
        self.semi_x, self.semi_y = semi_x, semi_y
        self.phi = np.linspace(0.0, 2.0 * math.pi, samples + 1)
        x, y = semi_x * np.cos(self.phi), semi_y * np.sin(self.phi)
        steps = np.hypot(np.diff(x), np.diff(y))
        self.arc = np.concatenate([[0.0], np.cumsum(steps)])
        self.length = float(self.arc[-1])

    def phi_of_arc(self, arc: float) -> float:
        return float(np.interp(arc % self.length, self.arc, self.phi))

    def at_phi(self, phi: float) -> tuple[tuple[float, float], tuple[float, float]]:
        point = (self.semi_x * math.cos(phi), self.semi_y * math.sin(phi))
        nx, ny = math.cos(phi) / self.semi_x, math.sin(phi) / self.semi_y
        norm = math.hypot(nx, ny)
        return point, (nx / norm, ny / norm)

    def arc_of_phi(self, phi: float) -> float:
        return float(np.interp(phi, self.phi, self.arc))


def _r(value: float) -> float:
    return round(value, 2)


def _place(
    point: tuple[float, float],
    normal: tuple[float, float],
    inset: float,
    size: tuple[float, float],
    lateral: float = 0.0,
) -> Rect:
    """A rectangle ``inset`` mm in from the edge, its own +y pointing out to the player."""
    angle = math.degrees(math.atan2(-normal[0], normal[1]))
    tangent = (normal[1], -normal[0])  # the rectangle's own +x axis
    x = point[0] - inset * normal[0] + lateral * tangent[0]
    y = point[1] - inset * normal[1] + lateral * tangent[1]
    return Rect((_r(x) + 0.0, _r(y) + 0.0), size, round(angle, 3) + 0.0)


def _marker_gaps(seats: int) -> list[int]:
    if seats <= MAX_MARKERS:
        return list(range(seats))
    return sorted({round(j * seats / MAX_MARKERS) % seats for j in range(MAX_MARKERS)})


def oval_layout(seats: int) -> TableLayout:
    """The default layout for ``seats`` players (4 to 10) around an oval table."""
    if seats not in TABLE_SIZES_MM:
        raise ValueError(f"default layouts exist for 4 to 10 seats, not {seats}")
    width, depth = TABLE_SIZES_MM[seats]
    # Seats are spaced evenly along the curve through their bet zones, where they crowd
    # most; positions along it map to the edge through the ellipse's parameter angle.
    edge = _Ellipse(width / 2.0, depth / 2.0)
    inner = _Ellipse(width / 2.0 - SPACING_INSET_MM, depth / 2.0 - SPACING_INSET_MM)
    spacing = inner.length / seats
    offset = SEAT_OFFSETS[seats]
    near_middle = inner.arc_of_phi(math.pi / 2.0)  # the middle of the near side (y > 0)
    seat_list: list[Seat] = []
    for index in range(seats):
        point, normal = edge.at_phi(inner.phi_of_arc(near_middle + (index + offset) * spacing))
        seat_list.append(
            Seat(
                number=index + 1,
                name=f"Seat {index + 1}",
                card_zone=_place(point, normal, CARD_INSET_MM, CARD_ZONE_MM),
                bet_zone=_place(point, normal, BET_INSET_MM, BET_ZONE_MM),
                button_zone=_place(point, normal, BET_INSET_MM, BUTTON_ZONE_MM, BUTTON_OFFSET_MM),
            )
        )
    markers: list[MarkerPlacement] = []
    for marker_id, gap in enumerate(_marker_gaps(seats)):
        point, normal = edge.at_phi(inner.phi_of_arc(near_middle + (gap + offset - 0.5) * spacing))
        rect = _place(point, normal, MARKER_INSET_MM, (MARKER_SIZE_MM, MARKER_SIZE_MM))
        markers.append(MarkerPlacement(marker_id, rect.center, MARKER_SIZE_MM, rect.angle_deg))
    deck_x = _r(POT_MM[0] / 2.0 + 40.0 + DECK_MM[0] / 2.0)
    return TableLayout(
        name=f"oval-{seats}",
        table=Table(TableShape.OVAL, width, depth),
        markers=tuple(markers),
        seats=tuple(seat_list),
        pot=Rect((0.0, 0.0), POT_MM, 0.0),
        deck=Rect((deck_x, 0.0), DECK_MM, 0.0),
    )
