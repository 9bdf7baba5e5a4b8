from __future__ import annotations

import numpy as np

from assistant.vision.motion import MotionGate


def _noisy(base: np.ndarray, seed: int, sigma: float = 4.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(base + rng.normal(0, sigma, base.shape), 0, 255).astype(np.uint8)


def _felt() -> np.ndarray:
    return np.full((260, 560, 3), (40, 110, 30), np.float64)


def test_still_zone_with_sensor_noise_is_skipped_after_its_first_frame() -> None:
    gate = MotionGate()
    passed = [gate.changed("seat1.cards", _noisy(_felt(), seed)) for seed in range(30)]
    assert passed == [True] + [False] * 29


def test_hand_passing_over_a_zone_passes_while_it_moves_and_once_at_rest() -> None:
    gate = MotionGate()
    frames = [_felt() for _ in range(3)]
    for x in range(0, 400, 80):  # a hand sweeping across
        moving = _felt()
        moving[60:200, x : x + 120] = (120, 150, 190)
        frames.append(moving)
    rested = _felt()
    rested[90:190, 250:320] = (250, 250, 250)  # a card left behind
    frames += [rested] * 5
    passed = [gate.changed("seat1.cards", _noisy(f, seed)) for seed, f in enumerate(frames)]
    assert passed == [True, False, False] + [True] * 5 + [True] + [False] * 4


def test_zones_are_gated_independently() -> None:
    gate = MotionGate()
    assert gate.changed("pot", _noisy(_felt(), 0))
    assert gate.changed("deck", _noisy(_felt(), 1))
    assert not gate.changed("pot", _noisy(_felt(), 2))


def test_refresh_lets_a_still_zone_through_now_and_then() -> None:
    gate = MotionGate(refresh_every=4)
    passed = [gate.changed("pot", _noisy(_felt(), seed)) for seed in range(11)]
    assert passed == [True, False, False, False, False, True, False, False, False, False, True]


def test_slow_light_drift_passes_once_it_adds_up() -> None:
    gate = MotionGate()
    passed = [gate.changed("pot", (_felt() + step * 2.0).astype(np.uint8)) for step in range(20)]
    assert passed[0] and not passed[1]
    assert any(passed[5:])
    assert sum(passed) <= 3


def test_reset_forgets_the_reference() -> None:
    gate = MotionGate()
    image = _noisy(_felt(), 0)
    gate.changed("pot", image)
    gate.reset("pot")
    assert gate.changed("pot", image)
