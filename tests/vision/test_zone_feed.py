from __future__ import annotations

import numpy as np

from assistant.vision.calibration import calibrate
from assistant.vision.geometry import Rect
from assistant.vision.markers import MarkerDetector
from assistant.vision.synthetic_view import draw_on_top_view
from assistant.vision.zone_feed import ZoneFeed
from tests.vision.scenes import PX_PER_MM, Scene


def test_only_zones_whose_pixels_changed_are_handed_to_the_detector(scene: Scene) -> None:
    calibration = calibrate(MarkerDetector().detect(scene.view(seed=500)), scene.layout, (1280, 720))
    feed = ZoneFeed(calibration)
    first = feed.changed_zones(scene.view(seed=501))
    assert {crop.key for crop in first} == set(scene.layout.zones())
    assert feed.changed_zones(scene.view(seed=502)) == []  # only sensor noise
    top = scene.top_view.copy()
    zone = scene.layout.seats[2].card_zone
    draw_on_top_view(
        top,
        scene.layout,
        PX_PER_MM,
        Rect(zone.center, (63.0, 88.0), zone.angle_deg).corners(),
        (250, 250, 250),
    )
    dealt = feed.changed_zones(scene.view(seed=503, top_view=top))
    assert [crop.key for crop in dealt] == ["seat3.cards"]
    assert dealt[0].image.shape == (130, 280, 3)
    before = next(crop for crop in first if crop.key == "seat3.cards")
    assert float(np.mean(dealt[0].image)) > float(np.mean(before.image)) + 5
    assert feed.changed_zones(scene.view(seed=504, top_view=top)) == []
    feed.reset()
    assert len(feed.changed_zones(scene.view(seed=505, top_view=top))) == len(first)
