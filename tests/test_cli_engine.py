"""The engine's command line: score (a stable contract), value, play-recording."""

import json
import subprocess
import sys

import pytest

from assistant.engine_cli import BUNDLED_RECORDING

ANNA_BEN_CARLA_DAN = {
    "rules": "seven-twenty-seven",
    "pot": 40,
    "dealer_seat": 4,
    "players": [
        {"seat": 1, "cards": ["3c", "2d", "Kh"]},
        {"seat": 2, "cards": ["6c", "Jd"]},
        {"seat": 3, "cards": ["10s", "8h", "Ac", "7d"]},
        {"seat": 4, "cards": ["9c", "9d", "8s", "2h"]},
    ],
}


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assistant", *args], input=stdin, capture_output=True, text=True
    )


def test_score_reads_a_showdown_and_awards_every_chip() -> None:
    out = run("score", stdin=json.dumps(ANNA_BEN_CARLA_DAN))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["awards"] == {"1": 0, "2": 20, "3": 10, "4": 10}
    assert result["low_winners"] == [2] and result["high_winners"] == [3, 4]
    carla = next(p for p in result["players"] if p["seat"] == 3)
    assert carla["high"] == 26 and carla["totals"] == [26, 36]
    ben = next(p for p in result["players"] if p["seat"] == 2)
    assert ben["low"] == 6.5


def test_score_honours_option_switches() -> None:
    request = dict(ANNA_BEN_CARLA_DAN, options={"bust": True})
    result = json.loads(run("score", stdin=json.dumps(request)).stdout)
    assert result["awards"] == {"1": 0, "2": 20, "3": 20, "4": 0}  # 28 is bust


def test_score_reports_eliminated_both_declarers_and_naturals() -> None:
    request = {
        "rules": "fifteen-thirty-five",
        "pot": 31,
        "dealer_seat": 0,
        "players": [
            {"seat": 1, "cards": ["8c", "6d"], "declare": "both"},
            {"seat": 2, "cards": ["9h", "6s"], "declare": "low"},
            {"seat": 3, "cards": ["Tc", "Td", "Ts", "5c"], "declare": "high"},
        ],
    }
    result = json.loads(run("score", stdin=json.dumps(request)).stdout)
    assert result["eliminated"] == [1]
    assert result["awards"] == {"1": 0, "2": 15, "3": 16}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rules": "nine-ninety"}, "unknown rules preset 'nine-ninety'"),
        ({"options": {"wild_cards": True}}, "unknown rules option 'wild_cards'"),
        ({"options": {"tie": "coin-flip"}}, "option 'tie' must be one of"),
        ({"players": [{"seat": 1, "cards": ["1h"]}]}, "unknown card '1h'"),
        ({"players": [{"seat": 1, "cards": ["Ah"]}, {"seat": 2, "cards": ["Ah"]}]}, "card Ah appears twice"),
        ({"rules": "fifteen-thirty-five"}, "has no declaration"),
        ({"pot": -1}, "'pot' cannot be negative"),
    ],
)
def test_score_rejects_invalid_input_with_one_line(change: dict[str, object], message: str) -> None:
    out = run("score", stdin=json.dumps(dict(ANNA_BEN_CARLA_DAN, **change)))
    assert out.returncode != 0
    assert out.stdout == ""
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_score_rejects_text_that_is_not_json() -> None:
    out = run("score", stdin="{not json")
    assert out.returncode != 0 and "not JSON" in out.stderr


def test_value_prints_every_total_the_best_for_each_target_and_the_natural() -> None:
    out = run("value", "5h", "Ad", "As", "--rules", "seven-twenty-seven")
    assert out.returncode == 0
    assert "every total: 7, 17, 27" in out.stdout
    assert "natural" in out.stdout


def test_value_names_the_cards_that_would_improve_the_hand() -> None:
    out = run("value", "4c", "Qd", "2s", "--json")
    data = json.loads(out.stdout)
    assert data["low"] == 6.5 and data["improve_low"] == ["J", "Q", "K"]


def test_play_recording_replays_the_bundled_recording() -> None:
    out = run("play-recording", str(BUNDLED_RECORDING))
    assert out.returncode == 0, out.stderr
    assert "hand 1" in out.stdout and "stacks:" in out.stdout
