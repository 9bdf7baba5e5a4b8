"""Write the golden recorded sessions in fixtures/sessions/ (one per preset).

Each recording is a seeded, simulated session (assistant.engine.autoplay) with face-down
cards unseen until the showdown, as a camera would see them; NAME.golden.json holds what
every hand came to. Re-run only on purpose: the tests compare the engine against these.

    python scripts/record_golden_sessions.py
"""

from __future__ import annotations

import json
from pathlib import Path

from assistant.engine import PRESETS, Stakes
from assistant.engine.autoplay import play_session
from assistant.recording import replay_summaries, save_recording

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "sessions"
PLAYERS = [("Anna", 40), ("Ben", 40), ("Carla", 40), ("Dan", 40), ("Eve", 40)]
SEEDS = {
    "seven-twenty-seven": 11,
    "online-seven-twenty-seven": 12,
    "under-seven-twenty-seven": 13,
    "over-seven-twenty-seven": 14,
    "fifteen-thirty-five": 15,
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for rules in PRESETS:
        session = play_session(
            rules,
            Stakes(ante=1, min_bet=1, max_bet=5, max_raises=3),
            PLAYERS,
            hands=5,
            seed=SEEDS[rules.name],
        )
        events = list(session.events)
        save_recording(OUT / f"{rules.name}.json", events)
        golden = {"rules": rules.name, "hands": replay_summaries(events)}
        (OUT / f"{rules.name}.golden.json").write_text(json.dumps(golden, indent=1) + "\n")
        print(f"{rules.name}: {len(events)} events, {len(golden['hands'])} hands")


if __name__ == "__main__":
    main()
