from __future__ import annotations

import math
from typing import Any

import numpy as np

from assistant.detect.reader_data import NO_TARGET, DeckTargets, chip_side_px, deck_targets


def _camera(tilt_deg: float, distance: float = 60.0) -> dict[str, Any]:
    """A camera looking at the table origin from ``tilt_deg`` off vertical."""
    t = math.radians(tilt_deg)
    # camera z axis (optical axis) points down and forward; x axis along world x
    z = np.array([0.0, math.sin(t), -math.cos(t)])
    x = np.array([1.0, 0.0, 0.0])
    y = np.cross(z, x)
    rot = np.stack([x, y, z])
    centre = -z * distance
    return {
        "rotation_world_to_camera": rot.tolist(),
        "position_cm": centre.tolist(),
        "focal_px": 500.0,
        "principal_point": [320.0, 240.0],
    }


def test_one_chip_more_is_a_fraction_of_a_pixel_from_straight_above() -> None:
    box = (300.0, 220.0, 340.0, 260.0)
    assert chip_side_px(_camera(0.0), box) < 0.5


def test_one_chip_more_shows_as_pixels_from_the_side() -> None:
    box = (300.0, 220.0, 340.0, 260.0)
    assert chip_side_px(_camera(50.0), box) > 1.5


def test_decks_with_other_court_letters_teach_no_rank_for_courts_but_do_for_numbers() -> None:
    german = DeckTargets(bad_ranks=frozenset("JQK"))
    assert german.targets("tl", "Kh") == (NO_TARGET, 2)
    assert german.targets("tl", "7h") == (6, 2)


def test_four_colour_decks_teach_no_suit() -> None:
    assert DeckTargets(suit_colours_ok=False).targets("tl", "Qd") == (11, NO_TARGET)


def test_rank_only_corners_teach_no_suit_and_pip_only_corners_no_rank() -> None:
    oxygen = DeckTargets(rank_corners=frozenset({"tr", "bl"}), pip_corners=frozenset({"tl", "br"}))
    assert oxygen.targets("tr", "5s") == (4, NO_TARGET)
    assert oxygen.targets("tl", "5s") == (NO_TARGET, 3)


def test_the_deck_list_masks_the_decks_the_model_card_names() -> None:
    targets = deck_targets()
    assert targets["gnome-atlasnye-cyrillic"].bad_ranks >= {"J", "Q", "K", "A"}
    assert not targets["gnome-neoclassical-4-color"].suit_colours_ok
    assert targets["kde-oxygen"].targets("tr", "5s") == (4, NO_TARGET)  # a bare rank
    assert targets["gnome-dondorf"].targets("tr", "5s") == (4, NO_TARGET)  # no pip under it
    assert targets["kde-standard"] == DeckTargets()
