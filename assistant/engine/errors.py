"""Errors the engine raises. Every refused action leaves the game untouched."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the message says why."""


class WrongPhaseError(IllegalActionError):
    """The action does not belong to the current phase of the hand."""


class NotYourTurnError(IllegalActionError):
    """Another player (or the dealer) has the decision."""


class BetLimitError(IllegalActionError):
    """A bet or raise outside the limits, or past the raise cap."""


class InsufficientChipsError(IllegalActionError):
    """A player cannot pay what the action needs."""


class FrozenPlayerError(IllegalActionError):
    """A frozen player may not take more cards."""


class CardError(IllegalActionError):
    """A card that cannot be where the action puts it (twice in play, wrong count...)."""


class DeckExhaustedError(IllegalActionError):
    """No card left to deal, even after reshuffling the folded cards."""


class SessionError(IllegalActionError):
    """The session cannot go on as asked (too few players, nothing to undo...)."""
