"""Golden recorded sessions, one per preset, replay to exactly the recorded results."""

import json
from pathlib import Path

import pytest

from assistant.engine import PRESETS, SessionStarted
from assistant.recording import RecordingError, load_recording, replay_summaries

SESSIONS = Path(__file__).resolve().parent.parent / "fixtures" / "sessions"


@pytest.mark.parametrize("name", [rules.name for rules in PRESETS])
def test_recorded_session_replays_to_its_golden_results(name: str) -> None:
    events = load_recording(SESSIONS / f"{name}.json")
    golden = json.loads((SESSIONS / f"{name}.golden.json").read_text())
    assert golden["rules"] == name
    summaries = replay_summaries(events)
    assert len(summaries) >= 3
    assert summaries == golden["hands"]
    first = events[0]
    assert isinstance(first, SessionStarted)
    starting = sum(p.stack for p in first.players)
    assert sum(summaries[-1]["stacks"]) == starting


def test_a_missing_recording_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="no such recording"):
        load_recording(tmp_path / "nope.json")


def test_a_recording_with_an_illegal_event_names_the_problem(tmp_path: Path) -> None:
    data = json.loads((SESSIONS / "seven-twenty-seven.json").read_text())
    data["events"].insert(3, {"type": "BetMade", "seat": 0, "amount": 3})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RecordingError, match="does not replay: cannot bet now"):
        replay_summaries(load_recording(path))


def test_a_file_that_is_not_a_recording_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"hello": 1}')
    with pytest.raises(RecordingError, match="not a dealer-assistant session recording"):
        load_recording(path)
