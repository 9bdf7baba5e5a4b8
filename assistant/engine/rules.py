"""Rule sets: every variant of 7/27 as data.

A :class:`Rules` object is frozen and validated; the named presets model the source
rule texts, and every house-rule switch can be set on any preset with
:meth:`Rules.with_options` (the same keys as the ``score`` command's ``options``).

>>> rules = preset("7/27")
>>> rules.name, rules.targets, rules.declaration
('seven-twenty-seven', (7, 27), False)
>>> rules.with_options(bust=True, freeze_after=2).freeze_after
2
>>> preset("nine-ninety")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
assistant.engine.rules.RulesError: unknown rules preset 'nine-ninety'; known: seven-twenty-seven, ...
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any


class RulesError(ValueError):
    """A rule set or one of its options is invalid."""


class FaceValue(Enum):
    """What J, Q and K count."""

    HALF = "half"
    HALF_OR_TEN = "half-or-ten"


class TiePolicy(Enum):
    """Who wins a half between hands at the same distance from its target."""

    SPLIT = "split"  # they share the half
    LOW = "low"  # the lower total wins (under beats over)
    HIGH = "high"  # the higher total wins
    INSIDE = "inside"  # the total between the two targets wins


class BettingStructure(Enum):
    """How money goes in."""

    ROUNDS = "rounds"  # poker-style rounds: check, bet, call, raise, fold
    FIXED_PER_TURN = "fixed-per-turn"  # after each draw decision: bet the ante or pass;
    # a bet must be matched by every player still in


class FirstBettor(Enum):
    DEALER_LEFT = "dealer-left"
    HIGHEST_EXPOSED = "highest-exposed"  # highest face-up card, Ace high; first in rotation


@dataclass(frozen=True)
class Rules:
    """A complete, validated rule set.

    ``deal`` lists the starting cards in the order they are dealt to each player,
    ``True`` for face up. ``exposures`` is how many face-down cards each player turns
    up, in turn, after the deal (Fifteen Thirty-Five exposes one).
    """

    name: str
    targets: tuple[int, int] = (7, 27)
    faces: FaceValue = FaceValue.HALF
    deal: tuple[bool, ...] = (True, False)
    exposures: int = 0
    draws_face_up: bool = False
    bust: bool = False
    declaration: bool = False
    freeze_after: int = 0  # refusals that freeze a player; 0: never frozen
    freeze_consecutive: bool = False  # count only refusals in a row
    under_beats_over: bool = False
    tie: TiePolicy = TiePolicy.SPLIT
    fewer_cards_win: bool = False
    natural_takes_pot: bool = False  # exactly both targets at once takes the whole pot
    betting: BettingStructure = BettingStructure.ROUNDS
    first_bettor: FirstBettor = FirstBettor.DEALER_LEFT
    bet_after_last_draw: bool = False  # a final betting round after a draw round nobody drew in
    aliases: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        low, high = self.targets
        if not 0 < low < high:
            raise RulesError(f"targets must be two positive points, low before high: {self.targets}")
        if not self.deal:
            raise RulesError("the deal must give each player at least one card")
        if not 0 <= self.exposures <= self.deal.count(False):
            raise RulesError(f"cannot expose {self.exposures} of {self.deal.count(False)} face-down cards")
        if self.freeze_after < 0:
            raise RulesError(f"freeze_after must be 0 (never) or more, not {self.freeze_after}")
        if self.freeze_consecutive and self.freeze_after == 0:
            raise RulesError("freeze_consecutive needs freeze_after of at least 1")
        if self.under_beats_over and self.tie not in (TiePolicy.SPLIT, TiePolicy.LOW):
            raise RulesError(f"under_beats_over contradicts the tie policy {self.tie.value!r}: choose one")

    @property
    def equal_distance(self) -> TiePolicy:
        """The policy in force for hands at equal distance from a target."""
        return TiePolicy.LOW if self.under_beats_over else self.tie

    def with_options(self, **options: Any) -> Rules:
        """A copy with house-rule switches changed (keys as in :data:`OPTION_KEYS`).

        A switch overrides the preset: ``under_beats_over`` set on a preset with another
        tie policy replaces it (setting both, in contradiction, is an error).
        """
        unknown = sorted(set(options) - set(OPTION_KEYS))
        if unknown:
            raise RulesError(f"unknown rules option {unknown[0]!r}; known: {', '.join(OPTION_KEYS)}")
        converted = _convert_options(options)
        if converted.get("under_beats_over") and "tie" not in converted:
            converted["tie"] = TiePolicy.SPLIT
        elif (
            "tie" in converted
            and "under_beats_over" not in converted
            and converted["tie"] is not TiePolicy.SPLIT
        ):
            converted["under_beats_over"] = False
        return replace(self, **converted)

    def options(self) -> dict[str, Any]:
        """The switches of this rule set, as JSON-ready values."""
        return {
            "bust": self.bust,
            "declaration": self.declaration,
            "freeze_after": self.freeze_after,
            "freeze_consecutive": self.freeze_consecutive,
            "faces": self.faces.value,
            "under_beats_over": self.under_beats_over,
            "fewer_cards_win": self.fewer_cards_win,
            "draws_face_up": self.draws_face_up,
            "targets": list(self.targets),
            "tie": self.tie.value,
        }

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready; :func:`rules_from_dict` reads it back."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "aliases":
                continue
            value = getattr(self, f.name)
            if isinstance(value, Enum):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


OPTION_KEYS = (
    "bust",
    "declaration",
    "freeze_after",
    "freeze_consecutive",
    "faces",
    "under_beats_over",
    "fewer_cards_win",
    "draws_face_up",
    "targets",
    "tie",
)
_ENUM_FIELDS: dict[str, type[Enum]] = {
    "faces": FaceValue,
    "tie": TiePolicy,
    "betting": BettingStructure,
    "first_bettor": FirstBettor,
}
_BOOL_FIELDS = {f.name for f in fields(Rules) if f.type in ("bool", bool)}
_INT_FIELDS = {"freeze_after", "exposures"}


def _convert_options(options: Mapping[str, Any]) -> dict[str, Any]:
    known = {f.name for f in fields(Rules)} - {"aliases"}
    converted: dict[str, Any] = {}
    for key, value in options.items():
        if key not in known:
            raise RulesError(f"unknown rules option {key!r}; known: {', '.join(OPTION_KEYS)}")
        if key in _ENUM_FIELDS:
            enum = _ENUM_FIELDS[key]
            try:
                value = value if isinstance(value, enum) else enum(value)
            except ValueError:
                choices = ", ".join(repr(member.value) for member in enum)
                raise RulesError(f"option {key!r} must be one of {choices}, not {value!r}") from None
        elif key in _BOOL_FIELDS:
            if not isinstance(value, bool):
                raise RulesError(f"option {key!r} must be true or false, not {value!r}")
        elif key in _INT_FIELDS:
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesError(f"option {key!r} must be a whole number, not {value!r}")
        elif key in ("targets", "deal"):
            if not isinstance(value, list | tuple):
                raise RulesError(f"option {key!r} must be a list, not {value!r}")
            value = tuple(value)
            if key == "targets" and (
                len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            ):
                raise RulesError(f"option 'targets' must be two whole numbers [LOW, HIGH], not {value!r}")
        converted[key] = value
    return converted


def rules_from_dict(data: Mapping[str, Any]) -> Rules:
    """Rebuild a :class:`Rules` from :meth:`Rules.to_dict` output."""
    data = dict(data)
    name = data.pop("name", None)
    if not isinstance(name, str):
        raise RulesError("a rule set needs a name")
    return Rules(name=name, **_convert_options(data))


SEVEN_TWENTY_SEVEN = Rules(
    name="seven-twenty-seven",
    aliases=("7/27", "727", "seven-27"),
    deal=(True, False),
)
ONLINE_SEVEN_TWENTY_SEVEN = Rules(
    name="online-seven-twenty-seven",
    aliases=("online-7/27", "online"),
    deal=(False, True),
    declaration=True,
    freeze_after=3,
    natural_takes_pot=True,
    bet_after_last_draw=True,
)
UNDER_SEVEN_TWENTY_SEVEN = Rules(
    name="under-seven-twenty-seven",
    aliases=("under-7/27", "under"),
    deal=(False,),
    draws_face_up=True,
    bust=True,
    declaration=True,
    betting=BettingStructure.FIXED_PER_TURN,
)
OVER_SEVEN_TWENTY_SEVEN = Rules(
    name="over-seven-twenty-seven",
    aliases=("over-7/27", "over"),
    deal=(False, True),
    draws_face_up=True,
    declaration=True,
    tie=TiePolicy.INSIDE,
    betting=BettingStructure.FIXED_PER_TURN,
)
FIFTEEN_THIRTY_FIVE = Rules(
    name="fifteen-thirty-five",
    aliases=("15/35", "1535"),
    targets=(15, 35),
    faces=FaceValue.HALF_OR_TEN,
    deal=(False, False, False),
    exposures=1,
    draws_face_up=True,
    declaration=True,
    freeze_after=2,
    freeze_consecutive=True,
    under_beats_over=True,
    fewer_cards_win=True,
    natural_takes_pot=True,
    first_bettor=FirstBettor.HIGHEST_EXPOSED,
    bet_after_last_draw=True,
)

PRESETS: tuple[Rules, ...] = (
    SEVEN_TWENTY_SEVEN,
    ONLINE_SEVEN_TWENTY_SEVEN,
    UNDER_SEVEN_TWENTY_SEVEN,
    OVER_SEVEN_TWENTY_SEVEN,
    FIFTEEN_THIRTY_FIVE,
)
_BY_NAME = {key.lower(): rules for rules in PRESETS for key in (rules.name, *rules.aliases)}


def preset(name: str) -> Rules:
    """Find a preset by name or alias (case-insensitive)."""
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        known = ", ".join(rules.name for rules in PRESETS)
        raise RulesError(f"unknown rules preset {name!r}; known: {known}") from None
