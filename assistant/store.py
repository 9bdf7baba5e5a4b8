"""Saving sessions to SQLite as they go, and resuming them.

Each event is one row, written in its own transaction the moment it is applied, so a
session killed mid-hand resumes exactly where it was. Undo deletes rows from the end.
A damaged file raises :class:`StoreError` and is never modified or deleted.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from assistant.engine.errors import IllegalActionError
from assistant.engine.events import Event
from assistant.engine.history import HistoryError, event_from_dict, event_to_dict
from assistant.engine.session import Session
from assistant.engine.state import TableState

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS events (
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
"""


class StoreError(Exception):
    """The saved-session file cannot be used; the message says why and nothing was changed."""


class SessionStore:
    """A SQLite file holding any number of sessions."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._check_schema()  # before anything writes to a file that may be someone else's
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is not a readable session file: {error}") from None

    def _check_schema(self) -> None:
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and not {"meta", "sessions", "events"} <= tables:
            raise StoreError(f"{self.path} is an SQLite file but not a dealer-assistant session file")
        self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer version (schema {row[0]})")

    def close(self) -> None:
        self._db.close()

    def sessions(self) -> list[tuple[int, str, str, int]]:
        """(id, name, created, number of events), newest first."""
        return [
            (int(r[0]), str(r[1]), str(r[2]), int(r[3]))
            for r in self._db.execute(
                "SELECT s.id, s.name, s.created, COUNT(e.seq) FROM sessions s "
                "LEFT JOIN events e ON e.session_id = s.id GROUP BY s.id ORDER BY s.id DESC"
            )
        ]

    def latest(self) -> int | None:
        row = self._db.execute("SELECT MAX(id) FROM sessions").fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def create(self, session: Session, name: str = "session") -> int:
        """Save a new session's events so far; returns its id."""
        with self._db:
            self._db.execute("BEGIN")
            cursor = self._db.execute("INSERT INTO sessions (name) VALUES (?)", (name,))
            session_id = int(cursor.lastrowid or 0)
            for seq, event in enumerate(session.events):
                self._insert(session_id, seq, event)
        return session_id

    def _insert(self, session_id: int, seq: int, event: Event) -> None:
        self._db.execute(
            "INSERT INTO events VALUES (?, ?, ?)",
            (session_id, seq, json.dumps(event_to_dict(event), sort_keys=True)),
        )

    def load_events(self, session_id: int) -> list[Event]:
        try:
            rows = self._db.execute(
                "SELECT seq, payload FROM events WHERE session_id=? ORDER BY seq", (session_id,)
            ).fetchall()
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is damaged: {error}") from None
        if not rows:
            raise StoreError(f"{self.path} has no session {session_id}")
        events = []
        for expected, (seq, payload) in enumerate(rows):
            if seq != expected:
                raise StoreError(f"session {session_id} in {self.path} is missing event {expected}")
            try:
                events.append(event_from_dict(json.loads(payload)))
            except (json.JSONDecodeError, HistoryError) as error:
                raise StoreError(
                    f"event {seq} of session {session_id} in {self.path} is damaged: {error}"
                ) from None
        return events

    def resume(self, session_id: int | None = None) -> Session:
        """Rebuild a saved session (the latest by default)."""
        sid = self.latest() if session_id is None else session_id
        if sid is None:
            raise StoreError(f"{self.path} holds no session to resume")
        try:
            return Session(self.load_events(sid))
        except (IllegalActionError, AssertionError, TypeError, ValueError) as error:
            raise StoreError(f"session {sid} in {self.path} does not replay: {error}") from None

    def attach(self, session: Session, session_id: int) -> Callable[[], None]:
        """Keep the stored copy in step with ``session`` from now on (appends and undos)."""

        def sync(event: Event | None, _state: TableState) -> None:
            count = len(session.events)
            with self._db:
                self._db.execute("BEGIN")
                self._db.execute("DELETE FROM events WHERE session_id=? AND seq>=?", (session_id, count))
                if event is not None:
                    self._insert(session_id, count - 1, event)

        return session.subscribe(sync)
