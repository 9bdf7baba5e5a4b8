from __future__ import annotations

import numpy as np
import pytest

from assistant.synth.camera import Camera


@pytest.mark.parametrize("k1", [0.0, 0.08, -0.04])
def test_lens_map_samples_the_ideal_image_where_points_project(k1: float) -> None:
    cam = Camera.looking_at(
        640,
        480,
        hfov_deg=70,
        target=(3.0, -2.0),
        distance=120,
        tilt_deg=35,
        yaw_deg=40,
        roll_deg=5,
        k1=k1,
    )
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(-40, 40, 200), rng.uniform(-30, 30, 200), np.zeros(200)])
    pad = cam.canvas_padding()
    out = cam.project(pts)
    ideal = cam.project_ideal(pts, (float(pad[0]), float(pad[1])))
    inside = (out[:, 0] >= 0) & (out[:, 0] < 639) & (out[:, 1] >= 0) & (out[:, 1] < 479)
    assert inside.sum() > 50
    mx, my = cam.distortion_maps(pad)
    for (x, y), (ix, iy) in zip(out[inside], ideal[inside], strict=True):
        # the map is sampled at integer pixels: interpolate bilinearly
        x0, y0 = int(x), int(y)
        fx, fy = x - x0, y - y0
        sx = (mx[y0, x0] * (1 - fx) + mx[y0, x0 + 1] * fx) * (1 - fy) + (
            mx[y0 + 1, x0] * (1 - fx) + mx[y0 + 1, x0 + 1] * fx
        ) * fy
        sy = (my[y0, x0] * (1 - fx) + my[y0, x0 + 1] * fx) * (1 - fy) + (
            my[y0 + 1, x0] * (1 - fx) + my[y0 + 1, x0 + 1] * fx
        ) * fy
        assert abs(sx - ix) < 0.05 and abs(sy - iy) < 0.05


def test_plane_homography_agrees_with_projection() -> None:
    cam = Camera.looking_at(640, 360, hfov_deg=60, target=(0.0, 0.0), distance=150, tilt_deg=40, yaw_deg=-30)
    pts = np.array([[10.0, 5.0, 0.0], [-30.0, 20.0, 0.0], [0.0, 0.0, 0.0]])
    H = cam.plane_homography()
    q = np.column_stack([pts[:, :2], np.ones(3)]) @ H.T
    assert np.allclose(q[:, :2] / q[:, 2:], cam.project(pts), atol=1e-6)
