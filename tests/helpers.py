"""Typed reads of a session for tests: each reads the value afresh and fails on a missing one.

``session.decision`` and ``session.state.result`` are Optional; a test that goes on to use
them relies on their being there, which these say out loud. They also keep mypy from
carrying what one ``assert session.state.phase is ...`` narrowed over the actions that
follow it: a call's result is never narrowed.
"""

from __future__ import annotations

from typing import Protocol

from assistant.engine import Decision, HandResult, Phase, Session


class _Decides(Protocol):
    @property
    def decision(self) -> Decision | None: ...


def decision_of(source: _Decides) -> Decision:
    """The decision pending now (a session or a table state)."""
    decision = source.decision
    assert decision is not None, "no decision is pending"
    return decision


def seat_of(source: _Decides) -> int:
    """The seat whose decision is pending now."""
    seat = decision_of(source).seat
    assert seat is not None, "the pending decision is no seat's"
    return seat


def phase_of(session: Session) -> Phase:
    """The phase of the hand now."""
    return session.state.phase


def result_of(session: Session) -> HandResult:
    """The result of the hand just finished."""
    result = session.state.result
    assert result is not None, "the hand has no result"
    return result
