"""Photos read from the card finder's corners: what `detect` runs on a photo by default."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.detect.backends import box_iou
from assistant.detect.card_finder import CardFinder, load_card_finder
from assistant.detect.photo import Candidate, PhotoDetector, box_corners
from assistant.detect.pipeline import CARD_FINDER_ONNX, MODELS_DIR, Card, read_image

from .test_photo import _felt, _on, _photo_of_zone, _right

CLOSE_UP = Path(__file__).parent / "fixtures" / "photos" / "closeup_kc_and_a_back.jpg"  # the Kc and a back
#: kde-nicu-white's back (a fan of aces drawn on it) beside the 8d and the 7h (photos_v2 val 000056)
PICTURE_BACK = Path(__file__).parent / "fixtures" / "photos" / "closeup_nicu_back_8d_7h.jpg"


@pytest.fixture(scope="module")
def photo() -> PhotoDetector:
    detector = PhotoDetector.load(MODELS_DIR)
    assert detector.finder is not None
    return detector


def test_the_shipped_models_hold_a_card_finder_that_photos_are_read_with_by_default() -> None:
    assert isinstance(load_card_finder(MODELS_DIR), CardFinder)
    assert PhotoDetector.load(MODELS_DIR, search=True).finder is None
    assert load_card_finder(Path("/nonexistent")) is None


def test_a_close_up_reads_its_card_and_reports_no_back_or_stack_where_none_lies(photo: PhotoDetector) -> None:
    """The finder's backs are few (held-out close-ups: 20 of 39 found, 9 false, since stop 43);
    this photo's back is not among them."""
    truth = json.loads(CLOSE_UP.with_suffix(".json").read_text())
    king = next(o for o in truth["objects"] if o["kind"] == "card")
    back = next(o["box"] for o in truth["objects"] if o["kind"] == "face_down")
    found = photo.detect(read_image(CLOSE_UP), CLOSE_UP.name)
    assert [c.card for c in found.cards] == ["Kc"]
    assert _on(found.cards[0], np.asarray(king["corners"], np.float64))
    assert all(box_iou(b, back) > 0.5 for b in found.face_down)
    assert found.chips == []


@pytest.mark.parametrize("angle", [0.0, 35.0, 100.0, 200.0, 290.0])
def test_cards_are_read_whichever_way_the_photo_shows_them(photo: PhotoDetector, angle: float) -> None:
    """The finder runs on the photo and on the photo turned a quarter: cards standing, lying
    across and upside down are all found, and read right side up from their corners."""
    image, truth = _photo_of_zone(angle, 2.5)
    assert len(_right(photo.detect(image), truth)) >= 2


def test_each_card_from_the_finder_is_read_both_ways_up(
    photo: PhotoDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finder's corner order stands about half the cards on their heads, where the index
    at the top may be the one a fan covers: every patch is also read turned half round."""
    angles: list[float] = []
    patch_cards = photo._patch_cards

    def spy(image: np.ndarray, m: np.ndarray) -> object:
        angles.append(float(np.degrees(np.arctan2(m[1, 0], m[0, 0]))) % 360.0)
        return patch_cards(image, m)

    monkeypatch.setattr(photo, "_patch_cards", spy)
    assert [c.card for c in photo.detect(read_image(CLOSE_UP)).cards] == ["Kc"]
    assert len(angles) >= len(photo.settings.finder_turns)
    for a in angles:
        assert any(abs((b - a) % 360.0 - 180.0) < 0.5 for b in angles), a


def test_the_close_up_seen_through_a_camera_leaning_towards_it_is_read(photo: PhotoDetector) -> None:
    image = read_image(CLOSE_UP)
    h, w = image.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array([[0.15 * w, 0], [0.85 * w, 0], [w, h], [0, h]], np.float32)  # the far side shorter
    leaning = cv2.warpPerspective(image, cv2.getPerspectiveTransform(src, dst), (w, h))
    assert "Kc" in [c.card for c in photo.detect(np.asarray(leaning, np.uint8)).cards]


def test_a_table_with_no_cards_gives_nothing(photo: PhotoDetector) -> None:
    found = photo.detect(_felt(), "felt")
    assert found.cards == [] and found.face_down == [] and found.chips == []


def test_boxes_stay_in_the_photo_and_follow_the_contract(photo: PhotoDetector) -> None:
    image, truth = _photo_of_zone(30.0, 2.0)
    cx, cy = truth[0][1].mean(0)
    cut = np.ascontiguousarray(image[int(cy) :, int(cx) :])  # a card's centre at the corner
    for picture in (image, cut, np.ascontiguousarray(image[:5, :7])):
        out = photo.detect(picture, "photo.jpg").to_json()
        assert set(out) == {"image", "cards", "face_down", "chips"}
        h, w = picture.shape[:2]
        for item in out["cards"] + out["face_down"] + out["chips"]:
            x1, y1, x2, y2 = item["box"]
            assert 0 <= x1 <= x2 <= w and 0 <= y1 <= y2 <= h
        json.dumps(out)


def test_a_big_photo_is_read_shrunk_and_answers_in_its_own_pixels(photo: PhotoDetector) -> None:
    image, truth = _photo_of_zone(-20.0, 5.0)
    assert max(image.shape[:2]) > photo.settings.max_side
    assert len(_right(photo.detect(image), truth)) >= 2


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assistant", *args], capture_output=True, text=True, timeout=600, check=False
    )


def test_the_cli_reads_a_photo_with_the_finder_and_with_the_search_on_request() -> None:
    for extra in ((), ("--search",)):
        run = _cli("detect", str(CLOSE_UP), "--json", *extra)
        assert run.returncode == 0, run.stderr
        assert [c["card"] for c in json.loads(run.stdout)["cards"]] == ["Kc"]


def test_a_corrupt_card_finder_is_reported_in_one_line(tmp_path: Path) -> None:
    for model in MODELS_DIR.glob("*.onnx"):
        (tmp_path / model.name).symlink_to(model)
    (tmp_path / CARD_FINDER_ONNX).unlink()
    (tmp_path / CARD_FINDER_ONNX).write_bytes(b"not onnx")
    run = _cli("detect", str(CLOSE_UP), "--models", str(tmp_path))
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "cannot load the card finder" in run.stderr


def test_a_model_that_is_no_card_finder_is_refused() -> None:
    with pytest.raises(ValueError, match="not a card finder"):
        CardFinder(MODELS_DIR / "detector.onnx")


def test_a_card_is_named_by_the_votes_of_all_its_patches_not_by_its_surest_read(
    photo: PhotoDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every card read in any patch votes where it lies: the king read very surely as a
    queen in one of its patches and as itself in the others is the king; named by its
    surest read alone (stop 41's settings) it would be the queen."""
    image = read_image(CLOSE_UP)
    patch_cards = photo._patch_cards
    truth = json.loads(CLOSE_UP.with_suffix(".json").read_text())
    kc = next(np.asarray(o["corners"], np.float64) for o in truth["objects"] if o.get("card") == "Kc")

    def misread_first(image: np.ndarray, m: np.ndarray) -> list[Card]:
        cards = patch_cards(image, m)
        if not calls and any(c.card == "Kc" and box_iou(c.box, photo._expected) >= 0.5 for c in cards):
            cards = [Card("Qc", c.box, 0.999) if c.card == "Kc" else c for c in cards]
            calls.append(m)  # the first patch to read the king in its middle reads a queen
        return cards

    monkeypatch.setattr(photo, "_patch_cards", misread_first)
    calls: list[np.ndarray] = []
    found = photo.detect(image, "closeup").cards
    assert [c.card for c in found] == ["Kc"] and _on(found[0], kc)
    calls.clear()
    before = replace(photo.settings, finder_min_votes=None, finder_conf=0.25)  # as in stop 41
    monkeypatch.setattr(photo, "settings", before)
    assert [c.card for c in photo.detect(image, "closeup").cards] == ["Qc"]


def test_the_finders_unsure_boxes_vote_but_a_card_read_only_there_is_not_reported(
    photo: PhotoDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finder's boxes count from 0.1: their patches add votes, and the votes' bar keeps
    out what only they read (here the back, read as a card where each candidate is named
    by its own surest read)."""
    assert photo.settings.finder_conf <= 0.1
    image = read_image(CLOSE_UP)
    assert [c.card for c in photo.detect(image).cards] == ["Kc"]
    monkeypatch.setattr(photo, "settings", replace(photo.settings, finder_min_votes=None))
    assert len(photo.detect(image).cards) > 1


def test_the_finders_chip_stacks_count_from_their_own_bar_its_backs_from_extra_conf(
    photo: PhotoDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finder's stacks are reported from ``finder_chip_conf`` (validation close-ups:
    stacks F1 0.405 -> 0.485 against the shared ``extra_conf``); its backs still answer to
    ``extra_conf``, so a back as unsure as that stack is not reported."""
    s = photo.settings
    assert s.finder_chip_conf < s.extra_conf
    between = (s.finder_chip_conf + s.extra_conf) / 2
    image = read_image(CLOSE_UP)
    find = photo._find
    # away from the Kc and its back
    stack_box, back_box = (60.0, 60.0, 110.0, 120.0), (60.0, 950.0, 240.0, 1200.0)
    red = photo.zones.detector.names.index("chips_red")

    def with_unsure_boxes(picture: np.ndarray, finder: CardFinder) -> object:
        found = find(picture, finder)
        found.chips.append((Candidate(box_corners(stack_box), between, red, np.eye(2, 3), stack_box), None))
        found.backs.append(Candidate(box_corners(back_box), between, photo._back, np.eye(2, 3), back_box))
        return found

    monkeypatch.setattr(photo, "_find", with_unsure_boxes)
    found = photo.detect(image, "closeup")
    assert [c.card for c in found.cards] == ["Kc"]
    assert [(c.colour, c.box) for c in found.chips] == [("red", stack_box)]
    assert all(box_iou(b, back_box) < 0.5 for b in found.face_down)
    monkeypatch.setattr(photo, "settings", replace(s, finder_chip_conf=s.extra_conf))
    assert photo.detect(image, "closeup").chips == []


def test_a_back_the_finder_boxes_as_a_face_up_card_is_reported_face_down(
    photo: PhotoDetector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finder boxes this back as a face-up card. Its upright and half-turned patches
    read no card in their middle and stage 1 sees a back there, so it is a face-down card;
    without that rule (``finder_back_conf`` None) it is not reported at all."""
    truth = json.loads(PICTURE_BACK.with_suffix(".json").read_text())
    back = next(o["box"] for o in truth["objects"] if o["kind"] == "face_down")
    image = read_image(PICTURE_BACK)
    found = photo.detect(image, PICTURE_BACK.name)
    assert "7h" in [c.card for c in found.cards]
    assert len(found.face_down) == 1 and box_iou(found.face_down[0], back) > 0.5
    assert all(box_iou(c.box, back) < 0.3 for c in found.cards)  # nor is it read as a card
    monkeypatch.setattr(photo, "settings", replace(photo.settings, finder_back_conf=None))
    assert photo.detect(image, PICTURE_BACK.name).face_down == []
