"""Plane geometry on the table, in millimetres: rotated rectangles and overlap tests.

Table coordinates are millimetres on the table plane, origin at the table's centre,
``x`` to the right and ``y`` towards the near side, as seen from above (the same
handedness as image pixels). Angles are degrees, positive clockwise in that view.

>>> zone = Rect(center=(100.0, 0.0), size=(40.0, 20.0), angle_deg=90.0)
>>> [tuple(round(v, 6) + 0.0 for v in p) for p in zone.corners()]
[(110.0, -20.0), (110.0, 20.0), (90.0, 20.0), (90.0, -20.0)]
>>> zone.contains((105.0, 15.0)), zone.contains((125.0, 0.0))
(True, False)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class Rect:
    """A rectangle on the table, rotated about its centre.

    ``size`` is (width, height) along the rectangle's own axes. Its own ``+y`` axis is
    "down" in a rectified crop; for seat zones it points away from the table's centre,
    towards the player, so the player's cards read upright in the crop.
    """

    center: Point
    size: tuple[float, float]
    angle_deg: float = 0.0

    def axes(self) -> tuple[Point, Point]:
        """The rectangle's own unit ``x`` and ``y`` axes in table coordinates."""
        theta = math.radians(self.angle_deg)
        cos, sin = math.cos(theta), math.sin(theta)
        return (cos, sin), (-sin, cos)

    def corners(self) -> list[Point]:
        """Corners in the order top-left, top-right, bottom-right, bottom-left (own axes)."""
        (ux, uy), (vx, vy) = self.axes()
        half_w, half_h = self.size[0] / 2.0, self.size[1] / 2.0
        cx, cy = self.center
        return [
            (cx + sx * half_w * ux + sy * half_h * vx, cy + sx * half_w * uy + sy * half_h * vy)
            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        ]

    def contains(self, point: Point) -> bool:
        (ux, uy), (vx, vy) = self.axes()
        dx, dy = point[0] - self.center[0], point[1] - self.center[1]
        return abs(dx * ux + dy * uy) <= self.size[0] / 2.0 and abs(dx * vx + dy * vy) <= self.size[1] / 2.0

    def grown(self, margin: float) -> Rect:
        """The same rectangle with ``margin`` added on every side."""
        return Rect(self.center, (self.size[0] + 2 * margin, self.size[1] + 2 * margin), self.angle_deg)


def convex_polygons_overlap(a: Sequence[Point], b: Sequence[Point]) -> bool:
    """True when two convex polygons share interior area (touching edges do not count).

    >>> square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    >>> convex_polygons_overlap(square, [(x + 0.5, y) for x, y in square])
    True
    >>> convex_polygons_overlap(square, [(x + 1.0, y) for x, y in square])
    False
    """
    for polygon in (a, b):
        count = len(polygon)
        for index in range(count):
            x1, y1 = polygon[index]
            x2, y2 = polygon[(index + 1) % count]
            normal = (y1 - y2, x2 - x1)
            projections_a = [normal[0] * x + normal[1] * y for x, y in a]
            projections_b = [normal[0] * x + normal[1] * y for x, y in b]
            if max(projections_a) <= min(projections_b) or max(projections_b) <= min(projections_a):
                return False
    return True


def inside_ellipse(point: Point, semi_x: float, semi_y: float) -> bool:
    """True when ``point`` lies inside the axis-aligned ellipse centred at the origin."""
    return (point[0] / semi_x) ** 2 + (point[1] / semi_y) ** 2 <= 1.0
