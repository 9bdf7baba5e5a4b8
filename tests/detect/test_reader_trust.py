"""A session's trust in its readers: where both a card's corner indices and its strip read
it, the kind that agrees less often with the other kind's sure readings counts less
(stop 58), with no labels; nothing counts more than the shipped weights make it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from assistant.detect.evaluate import evaluate
from assistant.detect.grouping import read_card
from assistant.detect.pipeline import (
    MODELS_DIR,
    CardDetector,
    Detection,
    read_image,
)
from assistant.detect.reader_trust import (
    LEAST_POWER,
    PRIOR_AGREEMENT,
    PRIOR_READINGS,
    SURE_READING,
    ReaderTrust,
)

STRIPS = Path(__file__).parent / "fixtures" / "strips"
ZONES = Path(__file__).parent / "fixtures" / "zones"
FRAMES = ("s31-00120_0512_seat2.cards", "s1201-00028_0355_seat3.cards", "s31-00122_0130_seat4.cards")


def one_hot(k: int, n: int, p: float = 0.99) -> np.ndarray:
    probs = np.full(n, (1 - p) / (n - 1))
    probs[k] = p
    return probs


def teach(
    trust: ReaderTrust,
    times: int,
    index_rank: int,
    strip_rank: int,
    index_p: float = 0.99,
    strip_p: float = 0.99,
) -> None:
    """Count ``times`` cards whose suits both kinds read alike and surely, and whose ranks
    the indices read as ``index_rank`` (``index_p`` sure) and the strip as ``strip_rank``."""
    for _ in range(times):
        trust.learn(
            {"rank": one_hot(index_rank, 13, index_p), "suit": one_hot(0, 4)},
            {"rank": one_hot(strip_rank, 13, strip_p), "suit": one_hot(0, 4)},
        )


def log_odds(p: float) -> float:
    return float(np.log(p / (1 - p)))


def test_a_fresh_session_weighs_both_kinds_as_shipped() -> None:
    trust = ReaderTrust()
    assert {trust.power(r, h) for r in ("index", "strip") for h in ("rank", "suit")} == {1.0}
    assert trust.cards_learnt == 0


def test_indices_that_disagree_with_the_strips_sure_readings_count_less_down_to_the_floor() -> None:
    trust = ReaderTrust()
    teach(trust, 10, index_rank=3, strip_rank=4, index_p=0.5)  # only the strip is sure
    assert LEAST_POWER < trust.power("index", "rank") < 1.0  # the prior still counts
    teach(trust, 200, index_rank=3, strip_rank=4, index_p=0.5)
    assert trust.power("index", "rank") == LEAST_POWER
    assert trust.power("strip", "rank") == 1.0  # the trusted kind is never made surer
    assert trust.power("index", "suit") == trust.power("strip", "suit") == 1.0  # suits all agreed


def test_a_strip_that_disagrees_with_the_indices_sure_readings_counts_less() -> None:
    trust = ReaderTrust()
    teach(trust, 200, index_rank=5, strip_rank=7, strip_p=0.5)  # only the indices are sure
    assert trust.power("strip", "rank") == LEAST_POWER
    assert trust.power("index", "rank") == 1.0
    assert trust.cards_learnt == 200


def test_a_kind_is_judged_only_by_the_other_kind_never_by_its_own_reading() -> None:
    trust = ReaderTrust()
    teach(trust, 40, index_rank=2, strip_rank=2, strip_p=0.5)  # the indices sure, the strip agrees
    assert trust.counts[("strip", "rank")].readings == PRIOR_READINGS + 40
    assert trust.counts[("index", "rank")].readings == PRIOR_READINGS  # no sure strip judged it


def test_two_kinds_that_each_disagree_with_the_other_as_often_keep_their_weights() -> None:
    trust = ReaderTrust()
    teach(trust, 100, index_rank=1, strip_rank=2)  # both sure, never alike
    assert trust.power("index", "rank") == trust.power("strip", "rank") == 1.0


def test_the_power_is_the_ratio_of_the_two_agreements_in_log_odds() -> None:
    trust = ReaderTrust()
    teach(trust, 70, index_rank=1, strip_rank=1)  # both sure and alike: each judged, each agreed
    teach(trust, 20, index_rank=1, strip_rank=2, index_p=0.5)  # the sure strip, the indices disagree
    index, strip = (trust.counts[(r, "rank")].rate for r in ("index", "strip"))
    assert strip == pytest.approx((PRIOR_AGREEMENT * PRIOR_READINGS + 70) / (PRIOR_READINGS + 70))
    assert index == pytest.approx((PRIOR_AGREEMENT * PRIOR_READINGS + 70) / (PRIOR_READINGS + 90))
    assert trust.power("index", "rank") == pytest.approx(log_odds(index) / log_odds(strip))


def test_unsure_readings_teach_nothing() -> None:
    trust = ReaderTrust()
    teach(trust, 50, index_rank=3, strip_rank=4, index_p=SURE_READING - 0.01, strip_p=SURE_READING - 0.01)
    ranks = trust.counts[("index", "rank")], trust.counts[("strip", "rank")]
    assert ranks[0].readings == ranks[1].readings == PRIOR_READINGS
    assert trust.cards_learnt == 50  # by their sure suits alone
    assert trust.power("index", "rank") == trust.power("strip", "rank") == 1.0


@pytest.fixture(scope="module")
def zones() -> CardDetector:
    return CardDetector.for_zones(MODELS_DIR)


def _read(detector: CardDetector, name: str) -> list[tuple[str, float]]:
    detection = detector.detect(read_image(STRIPS / f"{name}.jpg"))
    return sorted((c.card, round(c.confidence, 6)) for c in detection.cards)


def test_the_shipped_detector_learns_no_trust_and_reads_a_frame_alike_every_time(zones: CardDetector) -> None:
    assert zones.trust is None
    assert _read(zones, FRAMES[0]) == _read(zones, FRAMES[0])


def test_a_session_reads_its_first_frame_as_the_shipped_weights_do_and_learns_from_it(
    zones: CardDetector,
) -> None:
    session = zones.learning_reader_trust()
    assert session.trust is not None and session.trust is not zones.learning_reader_trust().trust
    assert _read(session, FRAMES[0]) == _read(zones, FRAMES[0])
    assert 1 <= session.trust.cards_learnt <= 4  # of its four cards, those read from indices and strip
    assert zones.trust is None


def test_the_same_frames_in_the_same_order_read_the_same(zones: CardDetector) -> None:
    def session_reads() -> list[list[tuple[str, float]]]:
        session = zones.learning_reader_trust()
        return [_read(session, name) for name in FRAMES * 3]

    assert session_reads() == session_reads()


def test_a_distrusted_kind_is_flattened_where_both_kinds_read_a_card_and_can_lose_the_card(
    zones: CardDetector,
) -> None:
    session = zones.learning_reader_trust()
    assert session.trust is not None
    teach(session.trust, 300, index_rank=3, strip_rank=4, index_p=0.5)  # the indices misread
    power = session.trust.power("index", "rank")
    index = (one_hot(3, 13, 0.6), one_hot(1, 4, 0.9))
    strip = (one_hot(4, 13, 0.4), one_hot(1, 4, 0.9))
    weighed = session._weighed([index], strip)
    expected = index[0] ** power / (index[0] ** power).sum()
    assert np.allclose(weighed[0][0], expected) and weighed[0][1] is index[1]  # suits as shipped
    assert weighed[1][0] is strip[0] and weighed[1][1] is strip[1]  # the trusted strip as it was

    def name(readings: list[tuple[np.ndarray, np.ndarray]]) -> str:
        return read_card(np.stack([r for r, _ in readings]), np.stack([s for _, s in readings]))[0]

    assert name([index, strip]) == "4d" and name(weighed) == "5d"  # the strip's 5 now wins
    assert session._weighed([index], None) == [index]  # one kind alone reads as shipped
    assert session._weighed([], strip) == [strip]
    assert zones._weighed([index], strip) == [index, strip]  # no session: as shipped


def test_a_detector_without_upright_strips_has_nothing_to_learn() -> None:
    photo = CardDetector.load(MODELS_DIR)  # photos: no strip reader
    assert photo.learning_reader_trust().trust is None


def _zone_split(root: Path) -> Path:
    """The fixture zone crops (three designs, one of them twice) as a ``test`` split."""
    for kind in ("images", "truth"):
        (root / kind / "test").mkdir(parents=True)
    for truth_path in sorted(ZONES.glob("*.json")):
        truth = json.loads(truth_path.read_text())
        shutil.copy(ZONES / truth["image"], root / "images" / "test" / truth["image"])
        shutil.copy(truth_path, root / "truth" / "test" / truth_path.name)
    return root


def test_an_evaluation_in_sessions_reads_each_deck_design_with_a_session_of_its_own(
    tmp_path: Path, zones: CardDetector
) -> None:
    split = _zone_split(tmp_path / "zones")
    truths = sorted((split / "truth" / "test").glob("*.json"))
    designs = {p.name: json.loads(p.read_text())["deck"] for p in truths}
    made: list[list[str]] = []

    def session() -> Callable[[np.ndarray, str], Detection]:
        seen: list[str] = []
        made.append(seen)
        learning = zones.learning_reader_trust()

        def read(image: np.ndarray, name: str) -> Detection:
            seen.append(name)
            return learning.detect(image, name)

        return read

    in_sessions = evaluate(zones.detect, split, "test", session=session)
    assert len(made) == len(set(designs.values())) == 3
    for seen in made:  # one design each, in file order
        assert len({designs[n.replace(".jpg", ".json")] for n in seen}) == 1 and seen == sorted(seen)
    assert sum(len(seen) for seen in made) == len(designs) == in_sessions.images
