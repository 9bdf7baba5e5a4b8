"""Round-trip properties, checked on generated inputs."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.vision.default_layouts import oval_layout
from assistant.vision.geometry import Rect
from assistant.vision.layout import layout_from_dict, layout_to_dict
from assistant.vision.lens import distort_points, undistort_points
from assistant.vision.rectify import table_to_crop_matrix

coordinate = st.floats(-1500, 1500, allow_nan=False).map(lambda v: round(v, 2))
size = st.floats(5, 600, allow_nan=False).map(lambda v: round(v, 2))
angle = st.floats(-180, 180, allow_nan=False).map(lambda v: round(v, 3))
rects = st.builds(Rect, st.tuples(coordinate, coordinate), st.tuples(size, size), angle)


@settings(max_examples=60, deadline=None)
@given(seats=st.integers(4, 10), pot=rects, deck=rects, name=st.text(min_size=1, max_size=20))
def test_layouts_survive_the_trip_through_their_json_text(
    seats: int, pot: Rect, deck: Rect, name: str
) -> None:
    layout = oval_layout(seats)
    data = layout_to_dict(layout)
    data["pot"] = layout_to_dict(layout)["pot"] | {
        "center_mm": list(pot.center),
        "size_mm": list(pot.size),
        "angle_deg": pot.angle_deg,
    }
    data["deck"]["center_mm"] = list(deck.center)
    data["name"] = name
    parsed = layout_from_dict(json.loads(json.dumps(data)))
    assert layout_to_dict(parsed) == data


@settings(max_examples=100, deadline=None)
@given(
    k=st.floats(-0.12, 0.12, allow_nan=False),
    x=st.floats(0, 1279, allow_nan=False),
    y=st.floats(0, 719, allow_nan=False),
)
def test_distorting_undoes_undistorting(k: float, x: float, y: float) -> None:
    undistorted = undistort_points([[x, y]], k, (1280, 720))
    assert np.allclose(distort_points(undistorted, k, (1280, 720)), [[x, y]], atol=1e-4)


@settings(max_examples=100, deadline=None)
@given(zone=rects, mm_per_px=st.floats(0.25, 4.0, allow_nan=False))
def test_zone_corners_land_on_the_crop_s_outer_edges(zone: Rect, mm_per_px: float) -> None:
    matrix = table_to_crop_matrix(zone, mm_per_px)
    corners = np.hstack([np.array(zone.corners()), np.ones((4, 1))]) @ matrix.T
    width, height = zone.size[0] / mm_per_px, zone.size[1] / mm_per_px
    expected = [[-0.5, -0.5], [width - 0.5, -0.5], [width - 0.5, height - 0.5], [-0.5, height - 0.5]]
    assert np.allclose(corners[:, :2] / corners[:, 2:], expected, atol=1e-6)
