"""Two arms read on the same crops are compared hand by hand, as the crops were drawn: a hand's
frames show the same cards again, so one card misread in a dozen frames is one draw (stop 60)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from assistant.detect.arm_compare import hands_of, paired_bootstrap, pooled_f1
from assistant.detect.evaluate import crop_hand_zone, evaluate
from assistant.detect.pipeline import Card, Detection

ZONES = Path(__file__).resolve().parent / "fixtures" / "zones"
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "compare_arms.py"


def _script_main() -> Callable[[list[str]], int]:
    spec = importlib.util.spec_from_file_location("compare_arms", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    main: Callable[[list[str]], int] = module.main
    return main


def test_identical_arms_differ_by_nothing_in_every_redraw() -> None:
    hands = {f"h{k}": (10 + k, k % 3, 2) for k in range(12)}
    result = paired_bootstrap(hands, dict(hands), draws=200)
    assert result.difference == 0.0 and (result.low, result.high) == (0.0, 0.0)
    assert result.hands == 12 and result.hands_changed == 0


def test_a_gain_on_every_hand_keeps_its_interval_above_zero() -> None:
    base = {f"h{k}": (40, 6, 8) for k in range(15)}
    better = {f"h{k}": (43, 4, 5) for k in range(15)}
    result = paired_bootstrap(base, better, draws=500)
    assert result.difference > 0 and result.low > 0
    assert result.hands_changed == 15


def test_a_gain_resting_on_one_hand_of_many_leaves_zero_inside_the_interval() -> None:
    base = {f"h{k}": (40, 6, 8) for k in range(15)}
    one_hand = dict(base) | {"h3": (52, 0, 0)}  # twelve crops of one hand's cards read right
    result = paired_bootstrap(base, one_hand, draws=2000)
    assert result.difference > 0.01  # the pooled figure gains, as one design's would ...
    assert result.low <= 0.0 < result.high  # ... but the hands do not bear it out


def test_the_interval_is_the_same_for_the_same_seed_and_only_hands_both_arms_read_count() -> None:
    base = {f"h{k}": (20 + k, 3, 4) for k in range(10)} | {"only-base": (1, 9, 9)}
    cand = {f"h{k}": (21 + k, 2, 3) for k in range(10)}
    assert paired_bootstrap(base, cand, seed=7) == paired_bootstrap(base, cand, seed=7)
    assert paired_bootstrap(base, cand).hands == 10
    assert paired_bootstrap(base, cand).base_f1 == pytest.approx(
        pooled_f1(np.array([base[f"h{k}"] for k in range(10)]))
    )


def test_arms_with_no_hand_in_common_or_a_level_outside_zero_and_one_are_refused() -> None:
    with pytest.raises(ValueError, match="no hand in common"):
        paired_bootstrap({"a": (1, 0, 0)}, {"b": (1, 0, 0)})
    with pytest.raises(ValueError, match="level"):
        paired_bootstrap({"a": (1, 0, 0)}, {"a": (1, 0, 0)}, level=95)


def test_a_crops_hand_and_zone_come_from_its_name() -> None:
    assert crop_hand_zone("s31-00126_0008_seat5.cards.jpg") == ("s31-00126", "seat5.cards")
    assert crop_hand_zone("/x/s31-00126_0008_pot.jpg") == ("s31-00126", "pot")
    assert crop_hand_zone("000123.jpg") is None


def _crops(root: Path) -> None:
    """Hand h-00001: one seat's crop (7h, Ac) in three frames; hand h-00002: another (Ac, 7s) in one."""
    for kind in ("images", "truth"):
        (root / kind / "test").mkdir(parents=True)
    for name, source in (
        ("h-00001_0010_seat4.cards", "00062_0379_seat4.cards"),
        ("h-00001_0011_seat4.cards", "00062_0379_seat4.cards"),
        ("h-00001_0012_seat4.cards", "00062_0379_seat4.cards"),
        ("h-00002_0020_seat4.cards", "00107_0105_seat4.cards"),
    ):
        truth = json.loads((ZONES / f"{source}.json").read_text())
        truth["image"] = f"{name}.jpg"
        shutil.copy(ZONES / f"{source}.jpg", root / "images" / "test" / truth["image"])
        (root / "truth" / "test" / f"{name}.json").write_text(json.dumps(truth))


def _read(image: np.ndarray, name: str) -> Detection:
    if name.startswith("h-00001"):  # the 7h every time, the ace in the first frame only
        cards = [Card("7h", (10.0, 20.0, 70.0, 109.0), 0.9)]
        if "_0010_" in name:
            cards.append(Card("Ac", (110.0, 20.0, 169.0, 109.0), 0.9))
        return Detection(name, cards)
    return Detection(
        name, [Card("Ac", (34.0, 18.0, 94.0, 108.0), 0.9), Card("7c", (73.0, 19.0, 130.0, 108.0), 0.8)]
    )


def test_an_evaluation_tallies_each_hand_and_each_distinct_card_over_its_frames(tmp_path: Path) -> None:
    _crops(tmp_path / "zones")
    report = evaluate(_read, tmp_path / "zones", "test")
    tallies = {h: (t.tp, t.fp, t.fn) for h, t in report.per_hand.items()}
    assert tallies == {"h-00001": (4, 0, 2), "h-00002": (1, 1, 1)}
    assert report.distinct_cards() == {
        "cards": 4,  # 7h and Ac of the first hand's seat, Ac and 7s of the second's
        "right_in_every_frame": 2,
        "right_in_most_frames": 0,
        "right_in_half_or_fewer": 2,  # the first hand's ace (1 of 3), the second's 7s (0 of 1)
        "median_frames_judged": 3,
    }
    written = report.to_json()
    assert written["card_identity_per_hand"]["h-00002"]["fp"] == 1
    assert hands_of(written, "x:") == {"x:h-00001": (4, 0, 2), "x:h-00002": (1, 1, 1)}
    assert set(hands_of(written | {"dataset": "/d/zones", "split": "test"})) == {
        "/d/zones:test:h-00001",
        "/d/zones:test:h-00002",
    }


def test_compare_arms_reads_two_reports_and_refuses_one_without_hands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compare_arms = _script_main()
    base = {"card_identity_per_hand": {f"h{k}": {"tp": 40, "fp": 6, "fn": 8} for k in range(6)}}
    cand = {"card_identity_per_hand": {f"h{k}": {"tp": 42, "fp": 5, "fn": 6} for k in range(6)}}
    (tmp_path / "a.json").write_text(json.dumps(base))
    (tmp_path / "b.json").write_text(json.dumps(cand))
    assert (
        compare_arms(
            ["--base", str(tmp_path / "a.json"), "--candidate", str(tmp_path / "b.json"), "--draws", "100"]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == 6 and out["difference"] > 0 and out["interval_95"][0] > 0
    # the same splits in another order pair up; a split read by one arm only is refused
    other = {
        "dataset": "/d/other",
        "split": "test",
        "card_identity_per_hand": {"h9": {"tp": 5, "fp": 0, "fn": 0}},
    }
    (tmp_path / "o.json").write_text(json.dumps(other))
    (tmp_path / "o2.json").write_text(json.dumps(other))
    args = ["--base", str(tmp_path / "a.json"), str(tmp_path / "o.json"), "--draws", "50"]
    assert compare_arms([*args, "--candidate", str(tmp_path / "o2.json"), str(tmp_path / "b.json")]) == 0
    assert json.loads(capsys.readouterr().out)["hands"] == 7
    with pytest.raises(SystemExit):
        compare_arms([*args, "--candidate", str(tmp_path / "b.json")])
    assert "different hands (1 only in the base, 0 only in the candidate)" in capsys.readouterr().err
    (tmp_path / "old.json").write_text(json.dumps({"card_identity_all_labelled": {}}))
    with pytest.raises(SystemExit):
        compare_arms(["--base", str(tmp_path / "old.json"), "--candidate", str(tmp_path / "b.json")])
    assert "card_identity_per_hand" in capsys.readouterr().err


def _read_then_misread(image: np.ndarray, name: str) -> Detection:
    """The first hand's 7h read surely in its first frame, then misread unsurely; the rest as ``_read``."""
    if name.startswith("h-00001") and "_0010_" not in name:
        return Detection(name, [Card("7c", (10.0, 20.0, 70.0, 109.0), 0.6)])
    return _read(image, name)


def test_an_evaluation_with_the_card_memory_tallies_each_hand_as_the_memory_names_it(tmp_path: Path) -> None:
    _crops(tmp_path / "zones")
    report = evaluate(_read_then_misread, tmp_path / "zones", "test", memory=True)
    frames = {h: (t.tp, t.fp, t.fn) for h, t in report.per_hand.items()}
    remembered = {h: (t.tp, t.fp, t.fn) for h, t in report.remembered_per_hand.items()}
    assert frames["h-00001"] == (2, 2, 4)  # the 7c twice, the 7h and the ace missed twice
    assert remembered["h-00001"] == (4, 0, 2)  # the memory names the 7h from its sure reading
    assert remembered["h-00002"] == frames["h-00002"]
    written = report.to_json()
    assert hands_of(written, "x:", memory=True) == {f"x:{h}": c for h, c in remembered.items()}
    with pytest.raises(ValueError, match="--zones --memory"):
        hands_of(evaluate(_read, tmp_path / "zones", "test").to_json(), memory=True)
