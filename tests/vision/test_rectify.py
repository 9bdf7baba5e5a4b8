from __future__ import annotations

import cv2
import numpy as np
import pytest

from assistant.vision.calibration import calibrate
from assistant.vision.geometry import Rect
from assistant.vision.markers import MarkerDetector
from assistant.vision.rectify import PAD_VALUE, ZoneRectifier, batch_crops
from assistant.vision.synthetic_view import PinholeCamera, draw_on_top_view
from tests.vision.scenes import PX_PER_MM, Scene

CARD_MM = (63.0, 88.0)


def _card_scene(scene: Scene, seats: tuple[int, ...]) -> np.ndarray:
    """The scene's top view with a white card in the middle of each given seat's card zone."""
    top = scene.top_view.copy()
    for number in seats:
        zone = scene.layout.seats[number - 1].card_zone
        card = Rect(zone.center, CARD_MM, zone.angle_deg)
        draw_on_top_view(top, scene.layout, PX_PER_MM, card.corners(), (250, 250, 250))
    return top


def _white_box(crop: np.ndarray) -> tuple[float, float, float, float]:
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    ys, xs = np.nonzero(gray > 150)
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


@pytest.mark.parametrize(
    "camera",
    [
        None,
        PinholeCamera.looking_at((150.0, 300.0, -2300.0), (0.0, 0.0, 0.0), focal_px=800.0),
    ],
    ids=["oblique", "overhead"],
)
def test_cards_appear_at_the_same_size_in_every_zone_whatever_the_camera(
    scene: Scene, camera: PinholeCamera | None
) -> None:
    truth = scene.table_to_image if camera is None else camera.table_to_image
    top = _card_scene(scene, (1, 3, 5))
    image = scene.view(truth, top_view=top, seed=200)
    calibration = calibrate(MarkerDetector().detect(image), scene.layout, (1280, 720))
    keys = ["seat1.cards", "seat3.cards", "seat5.cards"]
    zones = {key: scene.layout.zones()[key] for key in keys}
    for crop in ZoneRectifier(calibration, zones, mm_per_px=0.5).rectify(image):
        assert crop.image.shape == (260, 560, 3)
        x1, y1, x2, y2 = _white_box(crop.image)
        assert x2 - x1 == pytest.approx(CARD_MM[0] / 0.5, abs=8)  # upright: narrow side across
        assert y2 - y1 == pytest.approx(CARD_MM[1] / 0.5, abs=8)
        assert (x1 + x2) / 2 == pytest.approx(280, abs=5)
        assert (y1 + y2) / 2 == pytest.approx(130, abs=5)


def test_cards_land_in_their_zones_through_a_distorting_lens(scene: Scene) -> None:
    image = scene.view(top_view=_card_scene(scene, (2, 7)), seed=203, distortion=0.04)
    calibration = calibrate(MarkerDetector().detect(image), scene.layout, (1280, 720))
    zones = {key: scene.layout.zones()[key] for key in ("seat2.cards", "seat7.cards")}
    for crop in ZoneRectifier(calibration, zones).rectify(image):
        x1, y1, x2, y2 = _white_box(crop.image)
        assert (x1 + x2) / 2 == pytest.approx(140, abs=3)  # 1 mm per pixel
        assert (y1 + y2) / 2 == pytest.approx(65, abs=3)
        assert x2 - x1 == pytest.approx(CARD_MM[0], abs=4)


def test_crop_pixels_map_back_to_table_millimetres(scene: Scene) -> None:
    calibration = calibrate(MarkerDetector().detect(scene.view(seed=201)), scene.layout, (1280, 720))
    rectifier = ZoneRectifier(calibration, mm_per_px=2.0)
    (crop,) = rectifier.rectify(scene.view(seed=201), ["pot"])
    pot = scene.layout.pot
    assert crop.image.shape[:2] == (round(pot.size[1] / 2.0), round(pot.size[0] / 2.0))
    centre_px = [(crop.image.shape[1] - 1) / 2, (crop.image.shape[0] - 1) / 2]
    assert crop.to_table([centre_px])[0] == pytest.approx(pot.center, abs=1e-6)
    assert crop.to_table([[-0.5, -0.5]])[0] == pytest.approx(pot.corners()[0], abs=1e-6)


def test_all_zones_rectify_by_default_and_batch_into_one_array(scene: Scene) -> None:
    calibration = calibrate(MarkerDetector().detect(scene.view(seed=202)), scene.layout, (1280, 720))
    rectifier = ZoneRectifier(calibration)
    crops = rectifier.rectify(scene.view(seed=202))
    assert [c.key for c in crops] == list(scene.layout.zones())
    batch = batch_crops(crops)
    widest = max(c.image.shape[1] for c in crops)
    tallest = max(c.image.shape[0] for c in crops)
    assert batch.shape == (len(crops), tallest, widest, 3)
    deck_index = [c.key for c in crops].index("deck")
    deck = crops[deck_index].image
    assert np.array_equal(batch[deck_index, : deck.shape[0], : deck.shape[1]], deck)
    assert np.all(batch[deck_index, deck.shape[0] :, :] == PAD_VALUE)


def test_batching_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no crops"):
        batch_crops([])


def test_a_zone_margin_shows_a_card_across_the_zone_edge_whole(scene: Scene) -> None:
    zone = scene.layout.seats[2].card_zone
    (ux, uy), _ = zone.axes()
    inside = zone.size[0] / 2 - 20.0  # the card's centre 20 mm inside the zone's left edge
    centre = (zone.center[0] - inside * ux, zone.center[1] - inside * uy)
    top = scene.top_view.copy()
    card = Rect(centre, CARD_MM, zone.angle_deg)
    draw_on_top_view(top, scene.layout, PX_PER_MM, card.corners(), (250, 250, 250))
    image = scene.view(top_view=top, seed=204)
    calibration = calibrate(MarkerDetector().detect(image), scene.layout, (1280, 720))
    zones = {"seat3.cards": zone}
    (plain,) = ZoneRectifier(calibration, zones).rectify(image)
    (wide,) = ZoneRectifier(calibration, zones, margins={"seat3.cards": (32.0, 20.0)}).rectify(image)
    assert plain.inner == (0, 0, 280, 130)
    assert wide.image.shape[:2] == (170, 344)
    assert wide.inner == (32, 20, 312, 150)
    x1, _, x2, _ = _white_box(plain.image)
    assert x2 - x1 == pytest.approx(CARD_MM[0] / 2 + 20, abs=4)  # cut at the zone's edge
    x1, y1, x2, y2 = _white_box(wide.image)
    assert x2 - x1 == pytest.approx(CARD_MM[0], abs=4)  # whole
    assert wide.inner[0] < (x1 + x2) / 2 < wide.inner[2]  # its centre inside the zone
    assert wide.to_table([[(x1 + x2) / 2, (y1 + y2) / 2]])[0] == pytest.approx(centre, abs=3)
    # the zone's own corner is the same table point in both crops
    assert wide.to_table([[31.5, 19.5]])[0] == pytest.approx(plain.to_table([[-0.5, -0.5]])[0], abs=1e-6)


def test_zone_margins_are_not_negative(scene: Scene) -> None:
    calibration = calibrate(MarkerDetector().detect(scene.view(seed=201)), scene.layout, (1280, 720))
    with pytest.raises(ValueError, match="margins"):
        ZoneRectifier(calibration, margins={"pot": (-5.0, 0.0)})
