"""The photo detector: zone-trained models reading cards at any scale and in-plane angle."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from assistant.detect.backends import box_iou
from assistant.detect.photo import (
    PHOTO_INDEX_VIEWS,
    PHOTO_STRIP_WEIGHT,
    Candidate,
    PhotoDetector,
    PhotoSettings,
    back_to_photo,
    box_corners,
    enlarged,
    map_points,
    quad_iou,
    reported,
    turned_size,
    view_transform,
    without_parts,
)
from assistant.detect.pipeline import (
    MODELS_DIR,
    STRIP_WEIGHT,
    ZONE_INDEX_VIEWS,
    Card,
    CardDetector,
    Detection,
    StripWeight,
    read_image,
)

ZONE = Path(__file__).parent / "fixtures" / "zones" / "00062_0440_seat1.cards.jpg"  # 9h, 4d, 6h
MARGIN = 60  # px of table added around the zone crop


@pytest.fixture(scope="module")
def photo() -> PhotoDetector:
    return PhotoDetector(CardDetector.for_zones(MODELS_DIR))


def _cards_of_zone() -> list[tuple[str, npt.NDArray[np.float64]]]:
    truth = json.loads(ZONE.with_suffix(".json").read_text())
    return [
        (o["card"], np.asarray(o["corners"], np.float64) + MARGIN)
        for o in truth["objects"]
        if o["kind"] == "card" and o["labelled"]
    ]


def _photo_of_zone(
    angle: float, scale: float
) -> tuple[npt.NDArray[np.uint8], list[tuple[str, npt.NDArray[np.float64]]]]:
    """The zone crop with table around it, turned by ``angle`` and scaled by ``scale`` as a
    photo would show it, and its cards' true outlines in that photo."""
    zone = read_image(ZONE)
    felt = np.median(np.concatenate([zone[:4].reshape(-1, 3), zone[-4:].reshape(-1, 3)]), axis=0)
    table = cv2.copyMakeBorder(zone, MARGIN, MARGIN, MARGIN, MARGIN, cv2.BORDER_CONSTANT, value=felt.tolist())
    h, w = table.shape[:2]
    size = turned_size(w, h, angle, scale)
    m = view_transform((w / 2, h / 2), angle, scale, size)
    image = cv2.warpAffine(
        table, m, size, flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_CONSTANT, borderValue=felt.tolist()
    )
    return np.asarray(image, np.uint8), [(name, map_points(m, quad)) for name, quad in _cards_of_zone()]


def _on(card: Card, quad: npt.NDArray[np.float64]) -> bool:
    cx, cy = (card.box[0] + card.box[2]) / 2, (card.box[1] + card.box[3]) / 2
    return cv2.pointPolygonTest(quad.astype(np.float32), (cx, cy), False) >= 0


def _right(found: Detection, truth: list[tuple[str, npt.NDArray[np.float64]]]) -> set[str]:
    return {name for name, quad in truth for c in found.cards if c.card == name and _on(c, quad)}


def test_the_zone_crop_itself_is_read_by_the_zone_detector() -> None:
    """The premise of the tests below: as a zone crop, its three cards read right."""
    zone = read_image(ZONE)
    read = {c.card for c in CardDetector.for_zones(MODELS_DIR).detect(zone).cards}
    assert {"9h", "4d", "6h"} <= read


def test_a_zone_crop_turned_30_degrees_and_scaled_by_2_5_is_still_read_right(photo: PhotoDetector) -> None:
    image, truth = _photo_of_zone(30.0, 2.5)
    found = photo.detect(image, "turned")
    assert len(_right(found, truth)) >= 2
    h, w = image.shape[:2]
    for card in found.cards:
        x1, y1, x2, y2 = card.box
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
    # each card read right has the box of its whole outline, not of a corner
    for name, quad in truth:
        for card in (c for c in found.cards if c.card == name and _on(c, quad)):
            x1, y1 = quad.min(0)
            x2, y2 = quad.max(0)
            assert box_iou(card.box, (x1, y1, x2, y2)) > 0.45, (name, card.box)


@pytest.mark.parametrize("angle", [100.0, 200.0])
def test_cards_lying_sideways_and_upside_down_are_read(photo: PhotoDetector, angle: float) -> None:
    image, truth = _photo_of_zone(angle, 1.0)
    assert len(_right(photo.detect(image), truth)) >= 2


def test_a_big_photo_is_read_shrunk_and_its_boxes_come_back_in_its_own_pixels(photo: PhotoDetector) -> None:
    image, truth = _photo_of_zone(-20.0, 5.0)  # about 2,300 px wide: above max_side
    assert max(image.shape[:2]) > photo.settings.max_side
    found = photo.detect(image)
    assert len(_right(found, truth)) >= 2


def test_a_table_with_no_cards_gives_no_cards(photo: PhotoDetector) -> None:
    found = photo.detect(_felt(), "felt")
    assert found.cards == [] and found.face_down == [] and found.chips == []


def test_a_card_cut_by_the_image_border_does_not_crash(photo: PhotoDetector) -> None:
    image, truth = _photo_of_zone(30.0, 2.0)
    quad = truth[0][1]
    cx, cy = quad.mean(0)
    cut = np.ascontiguousarray(image[int(cy) :, int(cx) :])  # the card's centre at the top-left corner
    out = photo.detect(cut, "cut").to_json()
    h, w = cut.shape[:2]
    for item in out["cards"] + out["face_down"] + out["chips"]:
        x1, y1, x2, y2 = item["box"]
        assert 0 <= x1 <= x2 <= w and 0 <= y1 <= y2 <= h
    tiny = photo.detect(np.ascontiguousarray(image[:5, :7]), "tiny")
    assert tiny.cards == []


def test_the_result_follows_the_json_contract(photo: PhotoDetector) -> None:
    image, _ = _photo_of_zone(45.0, 2.0)
    out = photo.detect(image, "photo.jpg").to_json()
    assert set(out) == {"image", "cards", "face_down", "chips"} and out["image"] == "photo.jpg"
    for card in out["cards"]:
        assert set(card) == {"card", "box", "confidence"} and 0 < card["confidence"] <= 1
    json.dumps(out)


def test_a_view_box_maps_back_onto_the_photo() -> None:
    m = view_transform((50.0, 40.0), 30.0, 2.0, (300, 200))
    assert np.allclose(map_points(m, [[50.0, 40.0]]), [[150.0, 100.0]])  # centre to middle
    quad = np.array([[10.0, 20.0], [30.0, 20.0], [30.0, 50.0], [10.0, 50.0]])
    seen = map_points(m, quad)
    x1, y1 = seen.min(0)
    x2, y2 = seen.max(0)
    back = back_to_photo(m, (x1, y1, x2, y2))  # the view's box: a turned quad around the card
    assert _area(back) == pytest.approx((x2 - x1) * (y2 - y1) / 4)
    assert quad_iou(back, quad) == pytest.approx(20 * 30 / _area(back), rel=1e-3)


def test_enlarged_scales_every_box() -> None:
    d = Detection("x", [Card("Qh", (1.0, 2.0, 3.0, 4.0), 0.9)], [(0.0, 0.0, 1.0, 1.0)])
    big = enlarged(d, 2.0)
    assert big.cards[0].box == (2.0, 4.0, 6.0, 8.0) and big.face_down == [(0.0, 0.0, 2.0, 2.0)]


def _felt() -> npt.NDArray[np.uint8]:
    """An empty green table, 640 x 480, with a little noise."""
    rng = np.random.default_rng(7)
    felt = np.full((480, 640, 3), (40, 110, 40), np.uint8)
    return np.clip(felt + rng.normal(0, 6, felt.shape), 0, 255).astype(np.uint8)


def _area(quad: npt.NDArray[np.float64]) -> float:
    return float(abs(cv2.contourArea(quad.astype(np.float32))))


def _close_up_of_the_nine(
    scale: float, lean: float = 0.0
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
    """The zone crop's 9 of hearts alone, enlarged ``scale`` times as a close-up photo shows it,
    its far side ``lean`` shorter (a camera tilted towards the card), and its true outline."""
    cut = read_image(ZONE)[:130, :100]  # the card (x 11-70, y 20-109) with table around it
    nine = next(quad for name, quad in _cards_of_zone() if name == "9h") - MARGIN
    w, h = cut.shape[1] * scale, cut.shape[0] * scale
    src = box_corners((0.0, 0.0, float(cut.shape[1]), float(cut.shape[0]))).astype(np.float32)
    dst = np.array([[lean * w / 2, 0], [w - lean * w / 2, 0], [w, h], [0, h]], np.float32)
    warp = cv2.getPerspectiveTransform(src, dst)
    image = cv2.warpPerspective(
        cut, warp, (round(w), round(h)), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE
    )
    outline = cv2.perspectiveTransform(nine.reshape(1, -1, 2).astype(np.float32), warp).reshape(-1, 2)
    return np.asarray(image, np.uint8), np.asarray(outline, np.float64)


@pytest.mark.parametrize(("scale", "lean"), [(6.0, 0.0), (9.0, 0.3)])
def test_a_card_filling_most_of_a_close_up_is_found_and_read(
    photo: PhotoDetector, scale: float, lean: float
) -> None:
    """A hand-held close-up: one card 530-800 px long in a photo under 1,280 px, seen
    straight down or from a camera leaning towards it."""
    image, outline = _close_up_of_the_nine(scale, lean)
    found = photo.detect(image, "close-up")
    assert any(c.card == "9h" and _on(c, outline) for c in found.cards), found.cards


def test_a_card_lying_inside_a_bigger_surer_card_is_part_of_it_and_goes() -> None:
    nine = Card("9h", (100.0, 100.0, 400.0, 520.0), 0.9)  # 420 px long
    pip = Card("Ah", (150.0, 150.0, 230.0, 260.0), 0.5)  # a pip area read as an ace
    index = Card("9s", (95.0, 90.0, 160.0, 190.0), 0.4)  # its index, mostly inside
    assert without_parts([nine, pip, index], PhotoSettings()) == [nine]


def test_a_part_read_more_surely_than_the_card_around_it_stays() -> None:
    # the bigger read is no surer, so nothing says which of the two is the card
    big = Card("Kc", (100.0, 100.0, 400.0, 520.0), 0.5)
    small = Card("7d", (150.0, 150.0, 230.0, 260.0), 0.8)
    assert without_parts([big, small], PhotoSettings()) == [big, small]


def test_cards_of_a_fanned_row_are_all_kept() -> None:
    # same size, each overlapping the next by half: none is part of another
    row = [
        Card(n, (100.0 + 60 * k, 100.0, 220.0 + 60 * k, 270.0), 0.9 - 0.1 * k)
        for k, n in enumerate(["2h", "3h", "4h"])
    ]
    assert without_parts(row, PhotoSettings()) == row


def test_a_big_card_is_reported_only_from_the_surer_bar() -> None:
    settings = PhotoSettings(min_confidence=0.3, sure_confidence=0.6, sure_size=100.0)
    small_unsure = Card("Qd", (10.0, 10.0, 50.0, 70.0), 0.35)  # 60 px: read from an enlarged patch
    big_unsure = Card("Qs", (100.0, 100.0, 190.0, 230.0), 0.55)  # 130 px
    big_sure = Card("Js", (300.0, 100.0, 390.0, 230.0), 0.65)
    assert reported([small_unsure, big_unsure, big_sure], settings) == [small_unsure, big_sure]


def test_the_photo_search_reads_every_index_in_all_the_zone_views() -> None:
    """The camera pipeline reads an index sure in the trained view from that view alone;
    the photo search reads all 27 (it reported fewer wrong cards so), on the same models,
    and leaves the detector it was given as it was."""
    zones = CardDetector.for_zones(MODELS_DIR)
    photo = PhotoDetector(zones)
    assert zones.index_reader.views == ZONE_INDEX_VIEWS and ZONE_INDEX_VIEWS.enough is not None
    assert photo.zones.index_reader.views == PHOTO_INDEX_VIEWS
    assert PHOTO_INDEX_VIEWS.enough is None and len(PHOTO_INDEX_VIEWS) == len(ZONE_INDEX_VIEWS) == 27
    assert photo.zones.index_reader.session is zones.index_reader.session
    assert photo.zones.detector is zones.detector


def test_the_photo_search_weighs_its_patches_strips_by_its_own_setting() -> None:
    """Chosen on the validation close-ups apart from the zone crops' weight: the camera
    pipeline's detector keeps ``STRIP_WEIGHT``, the photo search's twin reads the same
    strip reader at ``PhotoSettings.strip_weight``, lighter in rank and in suit."""
    zones = CardDetector.for_zones(MODELS_DIR)
    photo = PhotoDetector(zones, PhotoSettings(strip_weight=StripWeight.both(0.3)))
    assert zones.strip_weight == STRIP_WEIGHT and photo.zones.strip_weight == StripWeight(0.3, 0.3)
    assert photo.zones.strip_reader is zones.strip_reader is not None
    shipped = PhotoDetector(zones).zones.strip_weight
    assert shipped == PhotoSettings().strip_weight == PHOTO_STRIP_WEIGHT
    assert shipped.rank < STRIP_WEIGHT.rank and shipped.suit < STRIP_WEIGHT.suit
    # and they are the powers the strip's rank and suit readings are raised to
    patch = np.full((170, 280, 3), 200, np.uint8)
    box = np.array([[40.0, 30.0, 103.0, 118.0]], np.float32)
    rank_z, suit_z = zones.reading_faces_at(None)._strip_readings(patch, box)[0]  # the strip alone
    rank_p, suit_p = photo.zones._strip_readings(patch, box)[0]
    raw = zones.strip_reader.read_strips(patch, list(box))
    rank, suit = raw["rank"][0], raw["suit"][0]
    w = STRIP_WEIGHT
    np.testing.assert_allclose(rank_z, rank**w.rank / (rank**w.rank).sum(), rtol=1e-4)
    np.testing.assert_allclose(suit_z, suit**w.suit / (suit**w.suit).sum(), rtol=1e-4)
    np.testing.assert_allclose(rank_p, rank**0.3 / (rank**0.3).sum(), rtol=1e-4)
    np.testing.assert_allclose(suit_p, suit**0.3 / (suit**0.3).sum(), rtol=1e-4)


CLOSE_UP = Path(__file__).parent / "fixtures" / "photos" / "closeup_kc_and_a_back.jpg"  # the Kc and a back


def test_a_close_up_reports_its_one_back_and_no_chip_stack_where_none_lies(photo: PhotoDetector) -> None:
    """A rendered close-up of a validation deck: the king of clubs face up and one back on
    a plain cloth. Every view of the search sees back- and stack-like things (pips, the
    court picture, the back's pattern, enlarged): before stop 34 this photo got 10 face-down
    boxes and 40 chip stacks."""
    truth = json.loads(CLOSE_UP.with_suffix(".json").read_text())
    back = next(o["box"] for o in truth["objects"] if o["kind"] == "face_down")
    found = photo.detect(read_image(CLOSE_UP), CLOSE_UP.name)
    assert [c.card for c in found.cards] == ["Kc"]
    assert len(found.face_down) == 1 and box_iou(found.face_down[0], back) > 0.5
    assert found.chips == []


def _candidate(box: tuple[float, float, float, float], conf: float, scale: float, cls: int) -> Candidate:
    """A stage-1 box found in a view ``scale`` times the photo's size (untuned), mapped back."""
    view = np.eye(2, 3) * scale
    return Candidate(back_to_photo(view, box), conf, cls, view, box)


def test_backs_and_stacks_count_only_from_views_near_the_read_cards_scale(photo: PhotoDetector) -> None:
    """The read cards came out at zone-crop size in views at 0.5 of the photo: a back found
    there counts, the same back found in a view enlarged to 2.0 (where a pip is stack-sized
    and a court picture back-sized) does not, nor one under ``extra_conf``."""
    settings = photo.settings
    near = _candidate((10.0, 10.0, 73.0, 98.0), 0.9, 0.5, 2)
    enlarged_view = _candidate((40.0, 40.0, 103.0, 128.0), 0.9, 2.0, 2)
    unsure = _candidate((200.0, 10.0, 263.0, 98.0), settings.extra_conf - 0.01, 0.5, 2)
    assert photo._at_card_scale([near, enlarged_view, unsure], 0.5, settings.extra_conf) == [near]
    assert photo._at_card_scale([near], None, settings.extra_conf) == []  # no card read: no scale to trust


def test_a_chip_stack_on_a_card_or_a_back_or_inside_a_surer_stack_is_not_reported(
    photo: PhotoDetector,
) -> None:
    red = photo.zones.detector.names.index("chips_red")
    image = np.zeros((400, 600, 3), np.uint8)
    lone = _candidate((100.0, 100.0, 145.0, 150.0), 0.8, 1.0, red)  # 45 px across: a stack at zone size
    inner = _candidate((105.0, 105.0, 135.0, 140.0), 0.7, 1.0, red)  # part of it, less sure
    on_card = _candidate((300.0, 100.0, 345.0, 150.0), 0.9, 1.0, red)  # a pip of the card below
    card = (290.0, 80.0, 360.0, 180.0)
    stacks = photo._chip_stacks(image, [(lone, 5), (inner, 3), (on_card, 4)], 1.0, [card], 0.5)
    assert [(s.colour, s.count, s.box) for s in stacks] == [("red", 5, (100.0, 100.0, 145.0, 150.0))]


def test_a_back_lying_on_a_read_card_is_part_of_that_card(photo: PhotoDetector) -> None:
    """A court picture read as a back inside a card read face up goes; a back beside it stays."""
    back = photo.zones.detector.names.index("face_down")
    king = Card("Kc", (100.0, 100.0, 220.0, 270.0), 0.9)
    picture = _candidate((120.0, 130.0, 200.0, 240.0), 0.8, 1.0, back)
    beside = _candidate((300.0, 100.0, 420.0, 270.0), 0.7, 1.0, back)
    image = np.zeros((400, 600, 3), np.uint8)
    assert photo._backs(image, [picture, beside], [king]) == [(300.0, 100.0, 420.0, 270.0)]
