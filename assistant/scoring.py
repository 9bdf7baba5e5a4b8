"""The scoring contract: one showdown as JSON in, the division of the pot as JSON out.

This is what ``dealer-assistant score`` reads and writes, and what replays report.

>>> out = score_request({"rules": "seven-twenty-seven", "pot": 41, "dealer_seat": 4, "players": [
...     {"seat": 1, "cards": ["3c", "2d", "Kh"]}, {"seat": 2, "cards": ["6c", "Jd"]},
...     {"seat": 3, "cards": ["10s", "8h", "Ac", "7d"]}, {"seat": 4, "cards": ["9c", "9d", "8s", "2h"]}]})
>>> out["awards"]
{'1': 0, '2': 20, '3': 11, '4': 10}
>>> score_request({"rules": "seven-twenty-seven", "pot": 2, "dealer_seat": 0,
...                "players": [{"seat": 1, "cards": ["Zz"]}]})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
assistant.scoring.ScoringInputError: players[0]: unknown card 'Zz': expected a rank ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assistant.engine.cards import UnknownCardError, parse_card
from assistant.engine.points import json_points
from assistant.engine.rules import Rules, RulesError, preset
from assistant.engine.showdown import (
    Declaration,
    ShowdownError,
    ShowdownHand,
    ShowdownResult,
    score_showdown,
)

_TOP_KEYS = {"rules", "options", "pot", "dealer_seat", "players"}
_PLAYER_KEYS = {"seat", "cards", "declare"}


class ScoringInputError(ValueError):
    """The request does not describe a showdown that can be scored."""


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScoringInputError(f"{where} must be a whole number, not {value!r}")
    return value


def parse_request(data: Any) -> tuple[Rules, int, int, list[ShowdownHand]]:
    if not isinstance(data, Mapping):
        raise ScoringInputError("the input must be one JSON object")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ScoringInputError(f"unknown key {sorted(unknown)[0]!r}; expected {sorted(_TOP_KEYS)}")
    if "rules" not in data:
        raise ScoringInputError("'rules' is missing: name a preset such as 'seven-twenty-seven'")
    try:
        rules = preset(str(data["rules"]))
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise ScoringInputError("'options' must be an object of rule switches")
        rules = rules.with_options(**options)
    except RulesError as error:
        raise ScoringInputError(str(error)) from None
    pot = _int(data.get("pot"), "'pot'")
    if pot < 0:
        raise ScoringInputError(f"'pot' cannot be negative ({pot})")
    if "dealer_seat" not in data:
        raise ScoringInputError("'dealer_seat' is missing: the seat of the dealer, for the odd chips")
    dealer = _int(data["dealer_seat"], "'dealer_seat'")
    players = data.get("players")
    if not isinstance(players, list) or not players:
        raise ScoringInputError("'players' must be a non-empty list of the players still in")
    hands = []
    for index, player in enumerate(players):
        where = f"players[{index}]"
        if not isinstance(player, Mapping):
            raise ScoringInputError(f"{where} must be an object")
        extra = set(player) - _PLAYER_KEYS
        if extra:
            raise ScoringInputError(f"{where}: unknown key {sorted(extra)[0]!r}")
        seat = _int(player.get("seat"), f"{where}.seat")
        cards = player.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise ScoringInputError(f'{where}.cards must be a list of cards such as "Ah"')
        try:
            parsed = tuple(parse_card(c) for c in cards)
        except UnknownCardError as error:
            raise ScoringInputError(f"{where}: {error}") from None
        declaration = None
        if "declare" in player and player["declare"] is not None:
            try:
                declaration = Declaration(player["declare"])
            except ValueError:
                raise ScoringInputError(
                    f"{where}.declare must be 'low', 'high' or 'both', not {player['declare']!r}"
                ) from None
        hands.append(ShowdownHand(seat, parsed, declaration))
    return rules, pot, dealer, hands


def result_to_json(rules: Rules, result: ShowdownResult, hands: list[ShowdownHand]) -> dict[str, Any]:
    def total(value: int | None) -> int | float | None:
        return None if value is None else json_points(value)

    players = []
    for hand in hands:
        value = result.values[hand.seat]
        entry: dict[str, Any] = {
            "seat": hand.seat,
            "cards": [str(c) for c in hand.cards],
            "totals": [json_points(t) for t in value.totals],
            "low": total(value.best_low),
            "high": total(value.best_high),
            "natural": value.natural,
            "busted": value.busted,
        }
        if hand.declaration is not None:
            entry["declare"] = hand.declaration.value
        entry["award"] = result.awards.get(hand.seat, 0)
        players.append(entry)
    return {
        "rules": rules.name,
        "targets": list(rules.targets),
        "pot": result.pot,
        "awards": {str(seat): chips for seat, chips in result.awards.items()},
        "low_winners": list(result.low_winners),
        "high_winners": list(result.high_winners),
        "naturals": list(result.naturals),
        "eliminated": list(result.eliminated),
        "players": players,
        "note": result.note,
    }


def score_request(data: Any) -> dict[str, Any]:
    """Score one showdown described as in the ``score`` contract."""
    rules, pot, dealer, hands = parse_request(data)
    try:
        result = score_showdown(rules, pot, dealer, hands)
    except ShowdownError as error:
        raise ScoringInputError(str(error)) from None
    return result_to_json(rules, result, hands)
