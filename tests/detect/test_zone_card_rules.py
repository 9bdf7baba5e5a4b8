"""What a seat's zone crop may hold, used to drop readings that cannot be right (stop 23)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant.detect.corners import face_share
from assistant.detect.photo import PhotoDetector
from assistant.detect.pipeline import (
    CHECKED_MIN_FACE,
    INDEX_READER_WIDE,
    LONE_INDEX_MIN_READING,
    LONE_INDEX_MIN_READING_TOGETHER,
    MODELS_DIR,
    ZONE_CARD_CONF,
    ZONE_CONF,
    Card,
    CardDetector,
    one_of_each,
    read_image,
)
from tests.detect.upright_zone import TUX_BACK, TWO_OF_CLUBS, UPRIGHT, reading_of, stage_1

CORNER = (2, 24, 11, 45)  # the 2 of clubs' top-left index
TABLE = (60, 120, 68, 138)  # a patch of bare table below the cards


@pytest.fixture(scope="module")
def zones() -> CardDetector:
    return CardDetector.for_zones(MODELS_DIR)


def test_a_card_is_in_a_seats_zone_once_so_of_two_readings_of_one_name_the_surer_stands() -> None:
    cards = [
        Card("Jc", (0, 21, 35, 107), 0.5),  # a sliver of the jack, boxed again
        Card("7d", (70, 20, 130, 108), 0.8),
        Card("Jc", (6, 22, 63, 106), 0.85),
        Card("Jc", (140, 20, 200, 108), 0.3),
    ]
    assert one_of_each(cards) == [cards[1], cards[2]]
    assert one_of_each([]) == []


def test_a_box_with_next_to_no_card_face_white_is_not_read_as_a_card_even_where_a_corner_reads(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A red or patterned back whose corner the reader's index head takes for an index."""
    image = read_image(UPRIGHT)
    assert face_share(image, TUX_BACK) < CHECKED_MIN_FACE < face_share(image, TWO_OF_CLUBS)
    monkeypatch.setattr(zones, "_upright_corners", lambda image, box: [reading_of("Qh")])
    assert zones.interpret(image, stage_1(zones, (TUX_BACK, "card"))).cards == []
    read = zones.interpret(image, stage_1(zones, (TWO_OF_CLUBS, "card"))).cards
    assert len(read) == 1 and read[0].by_geometry


@pytest.mark.parametrize(("sure", "counts"), [(0.65, False), (0.95, True)])
def test_an_index_of_no_card_box_counts_only_when_read_surely(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch, sure: float, counts: bool
) -> None:
    """Read less surely, an index standing alone is most often a pip or a court's ornament."""
    assert 0.65**2 < zones.lone_index_min_reading < 0.95**2  # a reading is its rank's p times its suit's
    image = read_image(UPRIGHT)
    two_of_clubs, lone = reading_of("2c"), reading_of("5h", sure)

    def read_upright(image, card_boxes, index_boxes, owner):  # type: ignore[no-untyped-def]
        rank, suit = np.stack([two_of_clubs[0], lone[0]]), np.stack([two_of_clubs[1], lone[1]])
        return {"rank": rank, "suit": suit, "index": np.ones(2, np.float32)}

    monkeypatch.setattr(zones, "_read_upright", read_upright)
    monkeypatch.setattr(zones, "strip_reader", None)
    found = zones.interpret(
        image, stage_1(zones, (TWO_OF_CLUBS, "card"), (CORNER, "index"), (TABLE, "index")), reread=False
    )
    names = sorted(c.card for c in found.cards)
    assert names == (["2c", "5h"] if counts else ["2c"])


def test_a_face_up_card_box_that_stage_1_is_unsure_of_is_still_read_but_an_unsure_back_is_not_counted(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A card box's reading is vetted (an index in a corner, card-face white, a sure
    reading), so face-up card boxes are kept from ``ZONE_CARD_CONF``; a face-down box is
    counted as it is, so it needs ``ZONE_CONF`` (stop 25). The photo search's patches keep
    ``ZONE_CONF`` for card boxes too."""
    assert ZONE_CARD_CONF < 0.2 < ZONE_CONF
    image = read_image(UPRIGHT)
    monkeypatch.setattr(zones, "_upright_corners", lambda image, box: [reading_of("2c")])
    monkeypatch.setattr(zones, "_strip_readings", lambda image, boxes: {})
    unsure = stage_1(zones, (TWO_OF_CLUBS, "card"), (TUX_BACK, "face_down"), conf=0.2)
    found = zones.interpret(image, unsure)
    assert [c.card for c in found.cards] == ["2c"]
    assert found.face_down == []
    patches = PhotoDetector(zones).zones
    assert patches.min_card_box_conf is None
    assert patches.interpret(image, unsure).cards == []


def test_a_card_box_whose_strip_the_back_reader_calls_a_back_is_reported_face_down_not_read(
    zones: CardDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A back no training deck prints (a picture in a white border) passes the card-face
    white check and its corner reads as a court card: the back reader's say settles it."""
    image = read_image(UPRIGHT)
    monkeypatch.setattr(zones, "_upright_corners", lambda image, box: [reading_of("2c")])
    monkeypatch.setattr(zones, "_shown_backs", lambda image, boxes: [b[0] > 80 for b in boxes])
    found = zones.interpret(image, stage_1(zones, (TWO_OF_CLUBS, "card"), (TUX_BACK, "card")))
    assert [(c.card, c.box) for c in found.cards] == [("2c", tuple(map(float, TWO_OF_CLUBS)))]
    assert found.face_down == [tuple(map(float, TUX_BACK))]
    # stage 1 boxed that back as a back too: it is reported once
    both = zones.interpret(image, stage_1(zones, (TUX_BACK, "card"), (TUX_BACK, "face_down")))
    assert both.cards == [] and both.face_down == [tuple(map(float, TUX_BACK))]


def test_without_the_back_readers_say_a_card_box_with_no_index_is_read_by_geometry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = read_image(UPRIGHT)
    unasked = CardDetector.for_zones(MODELS_DIR).judging_backs_below(None)
    monkeypatch.setattr(unasked, "_upright_corners", lambda image, box: [reading_of("2c")])
    assert unasked._shown_backs(image, np.array([TUX_BACK, TWO_OF_CLUBS], np.float32)) == [False, False]
    found = unasked.interpret(image, stage_1(unasked, (TWO_OF_CLUBS, "card")))
    assert [c.card for c in found.cards] == ["2c"] and found.face_down == []


JOLLY_BACKS = UPRIGHT.parent.parent / "backs" / "jolly-royal-0116-seat1.cards.jpg"


def test_picture_backs_in_a_white_border_are_counted_face_down_not_read_as_a_court_card() -> None:
    """kde-jolly-royal, a held-out design, deals a red back with a sun on it in a white
    border (three here, the first cut by the crop's edge): stage 1 boxes all three as
    face-up cards and none as a back. The first index reader alone reads one's corner as
    the jack of hearts (the two index readers together read none there). The shipped back
    reader calls two of their strips backs, so no card is read and two are counted face
    down (the middle one's strip it takes for a face: that box is read by its corners,
    which read nothing)."""
    image = read_image(JOLLY_BACKS)
    alone = CardDetector.for_zones(MODELS_DIR, with_wide_reader=False)
    assert alone.back_reader is not None
    unasked = alone.judging_backs_below(None).detect(image)
    assert [c.card for c in unasked.cards] == ["Jh"] and unasked.face_down == []
    for zones in (alone, CardDetector.for_zones(MODELS_DIR)):  # not the module's: its methods were patched
        found = zones.detect(image)
        assert found.cards == [] and len(found.face_down) == 2


def test_a_lone_index_needs_the_surer_reading_from_one_index_reader_than_from_two_read_together(
    zones: CardDetector, tmp_path: Path
) -> None:
    """Averaged probabilities are less peaked where two readers disagree (stop 53); a folder
    with one index reader (a deck lesson's) keeps the threshold that reader was measured at."""
    assert len(zones.index_reader.sessions) == 2
    assert zones.lone_index_min_reading == LONE_INDEX_MIN_READING_TOGETHER < LONE_INDEX_MIN_READING
    for model in MODELS_DIR.glob("*.onnx"):  # a folder with one index reader, as a lesson writes it
        if model.name != INDEX_READER_WIDE:
            (tmp_path / model.name).symlink_to(model)
    for alone in (
        CardDetector.for_zones(tmp_path),
        CardDetector.for_zones(MODELS_DIR, with_wide_reader=False),
    ):
        assert len(alone.index_reader.sessions) == 1
        assert alone.lone_index_min_reading == LONE_INDEX_MIN_READING
