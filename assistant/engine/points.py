"""Exact points. Totals are counted in half points (integers), so ``6½`` is ``13``.

>>> format_points(13), format_points(54), points_value(13)
('6½', '27', Fraction(13, 2))
"""

from __future__ import annotations

from fractions import Fraction

#: A number of half points; the unit every total is counted in.
HalfPoints = int


def half_points(points: int) -> HalfPoints:
    """Whole points as half points."""
    return points * 2


def points_value(halves: HalfPoints) -> Fraction:
    """The exact value in points."""
    return Fraction(halves, 2)


def format_points(halves: HalfPoints) -> str:
    """``13`` -> ``'6½'``, ``14`` -> ``'7'``, ``1`` -> ``'½'``."""
    whole, half = divmod(halves, 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


def json_points(halves: HalfPoints) -> int | float:
    """A JSON number for a total: an int when whole, else ``x.5`` (exact in binary)."""
    whole, half = divmod(halves, 2)
    return whole if not half else whole + 0.5
