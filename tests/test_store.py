"""Sessions are saved to SQLite as they go and resume exactly, even after a crash."""

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.engine import Stakes, preset
from assistant.engine.autoplay import play_session
from assistant.engine.history import events_to_list
from assistant.store import SessionStore, StoreError
from tests.helpers import decision_of

CRASHING_GAME = """
import os, signal, sys
from assistant.engine import Session, Stakes, preset
from assistant.store import SessionStore
store = SessionStore(sys.argv[1])
players = [("Anna", 30), ("Ben", 30), ("Carla", 30)]
session = Session.new(preset("online-seven-twenty-seven"), Stakes(), players)
store.attach(session, store.create(session, "friday"))
session.start_hand()
for seat, card in ((1, None), (2, None), (0, None), (1, "6c"), (2, "Tc"), (0, "2c")):
    session.deal(seat, card)
session.bet(1, 3)
session.call(2)
print(len(session.events), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_session_killed_mid_hand_resumes_exactly_where_it_was(tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    proc = subprocess.run([sys.executable, "-c", CRASHING_GAME, str(db)], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL
    saved = int(proc.stdout.strip())
    resumed = SessionStore(db).resume()
    assert len(resumed.events) == saved
    assert resumed.state.pot == 3 + 6
    assert decision_of(resumed).seat == 0 and decision_of(resumed).to_call == 3
    resumed.call(0)  # and play goes on


def test_undo_is_saved_too(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "game.db")
    session = play_session(preset("7/27"), Stakes(), [("A", 20), ("B", 20)], hands=1, seed=3)
    sid = store.create(session)
    store.attach(session, sid)
    removed = session.undo(2)
    assert events_to_list(store.resume(sid).events) == events_to_list(session.events)
    session.apply(removed[0])
    assert events_to_list(store.resume(sid).events) == events_to_list(session.events)


def test_every_session_in_a_file_is_listed_and_resumable(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "game.db")
    first = play_session(preset("15/35"), Stakes(), [("A", 20), ("B", 20), ("C", 20)], hands=2, seed=1)
    second = play_session(preset("under"), Stakes(), [("A", 20), ("B", 20)], hands=2, seed=2)
    ids = [store.create(first, "one"), store.create(second, "two")]
    assert [row[1] for row in store.sessions()] == ["two", "one"]
    assert events_to_list(store.resume(ids[0]).events) == events_to_list(first.events)
    assert store.resume().state.hand_number == second.state.hand_number


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    bad = tmp_path / "game.db"
    bad.write_bytes(b"not a database" * 100)
    with pytest.raises(StoreError, match="not a readable session file"):
        SessionStore(bad)
    assert bad.read_bytes() == b"not a database" * 100


def test_a_damaged_event_is_reported_with_its_number(tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    store = SessionStore(db)
    session = play_session(preset("7/27"), Stakes(), [("A", 20), ("B", 20)], hands=1, seed=3)
    sid = store.create(session)
    store.close()
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE events SET payload='{broken' WHERE seq=3")
    with pytest.raises(StoreError, match=r"event 3 .* is damaged"):
        SessionStore(db).resume(sid)


def test_an_event_that_no_longer_replays_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    store = SessionStore(db)
    session = play_session(preset("7/27"), Stakes(), [("A", 20), ("B", 20)], hands=1, seed=3)
    sid = store.create(session)
    store.close()
    with sqlite3.connect(db) as raw:
        raw.execute(
            """UPDATE events SET payload='{"type": "BetMade", "seat": 0, "amount": 99}' WHERE seq=2"""
        )
    with pytest.raises(StoreError, match="does not replay"):
        SessionStore(db).resume(sid)


def test_another_programs_sqlite_file_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as raw:
        raw.execute("CREATE TABLE recipes (name TEXT)")
    before = db.read_bytes()
    with pytest.raises(StoreError, match="not a dealer-assistant session file"):
        SessionStore(db)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]
