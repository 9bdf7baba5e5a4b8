"""The rules engine: pure Python, no camera, UI or device code.

>>> from assistant.engine import Session, Stakes, preset
>>> session = Session.new(preset("seven-twenty-seven"), Stakes(), [("Anna", 50), ("Ben", 50)])
>>> session.state.pot
0
"""

from assistant.engine.cards import FULL_DECK, Card, Rank, Suit, UnknownCardError, parse_card, parse_cards
from assistant.engine.errors import (
    BetLimitError,
    CardError,
    DeckExhaustedError,
    FrozenPlayerError,
    IllegalActionError,
    InsufficientChipsError,
    NotYourTurnError,
    SessionError,
    WrongPhaseError,
)
from assistant.engine.events import EVENT_TYPES, Event, Player, SessionStarted, Stakes
from assistant.engine.points import format_points, points_value
from assistant.engine.pots import HandResult, Pot
from assistant.engine.rules import PRESETS, FaceValue, Rules, RulesError, TiePolicy, preset
from assistant.engine.session import Session
from assistant.engine.showdown import Declaration, ShowdownHand, ShowdownResult, score_showdown
from assistant.engine.state import Decision, DecisionKind, Phase, SeatState, TableState
from assistant.engine.valuation import HandValue, Target, improvements, value_hand

__all__ = [
    "EVENT_TYPES",
    "FULL_DECK",
    "PRESETS",
    "BetLimitError",
    "Card",
    "CardError",
    "Decision",
    "DecisionKind",
    "DeckExhaustedError",
    "Declaration",
    "Event",
    "FaceValue",
    "FrozenPlayerError",
    "HandResult",
    "HandValue",
    "IllegalActionError",
    "InsufficientChipsError",
    "NotYourTurnError",
    "Phase",
    "Player",
    "Pot",
    "Rank",
    "Rules",
    "RulesError",
    "SeatState",
    "Session",
    "SessionError",
    "SessionStarted",
    "ShowdownHand",
    "ShowdownResult",
    "Stakes",
    "Suit",
    "TableState",
    "Target",
    "TiePolicy",
    "UnknownCardError",
    "WrongPhaseError",
    "format_points",
    "improvements",
    "parse_card",
    "parse_cards",
    "points_value",
    "preset",
    "score_showdown",
    "value_hand",
]
