"""Recorded sessions: a JSON file of events, and the summary of every hand they play.

A recording is ``{"format": "dealer-assistant-session", "version": 1, "events": [...]}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from assistant.engine.errors import IllegalActionError
from assistant.engine.events import Event
from assistant.engine.history import HistoryError, events_from_list, events_to_list
from assistant.engine.showdown import ShowdownHand
from assistant.engine.state import Phase, TableState, fold_events
from assistant.scoring import result_to_json

FORMAT = "dealer-assistant-session"
VERSION = 1


class RecordingError(ValueError):
    """A recording cannot be read or does not replay."""


def save_recording(path: str | Path, events: list[Event] | tuple[Event, ...]) -> None:
    data = {"format": FORMAT, "version": VERSION, "events": events_to_list(events)}
    Path(path).write_text(json.dumps(data, indent=1) + "\n")


def load_recording(path: str | Path) -> list[Event]:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise RecordingError(f"no such recording: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordingError(f"{path} is not a readable recording: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordingError(f"{path} is not a dealer-assistant session recording")
    if data.get("version") != VERSION:
        raise RecordingError(f"{path} has version {data.get('version')}, this program reads {VERSION}")
    try:
        return events_from_list(data["events"])
    except (HistoryError, KeyError, TypeError) as error:
        raise RecordingError(f"{path}: {error}") from None


def hand_summary(state: TableState) -> dict[str, Any]:
    """What a finished hand came to, JSON-ready (uses the scoring contract's fields)."""
    result = state.result
    assert result is not None
    summary: dict[str, Any] = {
        "hand": state.hand_number,
        "dealer_seat": state.dealer,
        "pot": result.pot,
        "awards": {str(seat): chips for seat, chips in sorted(result.awards.items())},
        "stacks": [s.stack for s in state.seats],
    }
    if result.uncontested is not None:
        summary["uncontested"] = result.uncontested
    if result.main is not None:
        hands = [
            ShowdownHand(seat, state.seats[seat].known_cards, state.seats[seat].declaration)
            for seat in result.pots[0].seats
        ]
        main = result_to_json(state.rules, result.main, hands)
        summary["showdown"] = {
            k: main[k] for k in ("low_winners", "high_winners", "naturals", "eliminated", "players")
        }
        summary["side_pots"] = [{"amount": p.amount, "seats": list(p.seats)} for p in result.pots[1:]]
    return summary


def replay_summaries(events: list[Event]) -> list[dict[str, Any]]:
    """Replay a recording; one summary per hand that finished."""
    summaries: list[dict[str, Any]] = []
    try:
        state = fold_events(events[:1])
        for event in events[1:]:
            state.advance(event)
            if (
                state.phase in (Phase.COMPLETE, Phase.FINISHED)
                and state.result is not None
                and (not summaries or summaries[-1]["hand"] != state.hand_number)
            ):
                summaries.append(hand_summary(state))
    except (IllegalActionError, AssertionError, TypeError, ValueError) as error:
        raise RecordingError(f"the recording does not replay: {error}") from None
    return summaries
