"""The dealer's actions and keys, without any Qt: every action goes through the Session.

:class:`DealerController` turns a key or a click into one Session verb for whoever has
the decision now. A refused action leaves the game untouched and its message (the
engine's own sentence) is kept in :attr:`DealerController.message` for the window to show.

Keys depend on the decision, so the dealer can work one-handed while dealing; the same
table is shown in the window's help overlay (:data:`KEY_HELP`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assistant.engine import (
    Card,
    DecisionKind,
    Declaration,
    IllegalActionError,
    Phase,
    Session,
    UnknownCardError,
    parse_card,
)

RANK_KEYS = frozenset("A23456789TJQK10")
SUIT_KEYS = frozenset("CDHS")

#: (keys, what they do) for the help overlay, grouped by the decision they apply to.
KEY_HELP: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Dealing and drawing",
        (
            ("7 H, 10 S, Q D ...", "type a card (rank then suit): dealt to / taken by the seat on turn"),
            ("Space or Enter", "deal or give a face-down card nobody saw"),
            ("N", "the seat on turn refuses the card"),
            ("G", "the shuffler deals the card the game wants (with a shuffler connected)"),
        ),
    ),
    (
        "Betting",
        (
            ("digits", "amount of the bet or raise (the minimum when none is typed)"),
            ("C or Space", "check, or call / match when there is a bet"),
            ("B", "bet"),
            ("R", "raise"),
            ("F", "fold"),
        ),
    ),
    (
        "Declaring and showdown",
        (
            ("L / H / O", "declare low / high / both"),
            ("cards", "at the showdown, type the face-down cards of the seat on turn"),
            ("Space or Enter", "after the showdown: start the next deal"),
        ),
    ),
    (
        "Any time",
        (
            ("U or Ctrl+Z", "undo the last action"),
            ("E", "correct or enter a card by hand"),
            ("X", "a player shows a bust (over-is-bust rules)"),
            ("Esc / Backspace", "clear / shorten what is typed"),
            ("Ctrl+S", "export the hand history"),
            ("F1 or ?", "show or hide this help"),
        ),
    ),
)


@dataclass(frozen=True)
class Outcome:
    """What a key or click did: ``ok`` False when it was refused; ``text`` says why or what."""

    ok: bool
    text: str


class DealerController:
    """Applies the dealer's actions to a :class:`Session` for the seat on turn."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.typed = ""  # card being typed, or the amount of a bet
        self.show_cards: list[Card] = []  # SHOW: the face-down cards typed so far
        self.message = ""
        self.message_ok = True
        self.listeners: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ helpers

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()

    def _seat(self) -> int:
        decision = self.session.decision
        if decision is None or decision.seat is None:
            raise IllegalActionError("no player has a decision now")
        return decision.seat

    def _name(self, seat: int) -> str:
        return self.session.state.seats[seat].name

    def run(self, action: Callable[[], str]) -> Outcome:
        """Run one action; an illegal one is refused with the engine's message."""
        try:
            text = action()
        except (IllegalActionError, UnknownCardError) as error:
            self.message, self.message_ok = str(error), False
        else:
            self.message, self.message_ok = text, True
            self.typed = ""
        self._changed()
        return Outcome(self.message_ok, self.message)

    def clear_typing(self) -> None:
        self.typed = ""
        self.show_cards = []
        self._changed()

    # ------------------------------------------------------------------ actions

    def card_action(self, card: Card | str | None) -> Outcome:
        """Deal, take, expose or show ``card`` for the seat on turn, whatever the step."""
        return self.run(lambda: self._card_action(parse_card(card) if isinstance(card, str) else card))

    def _card_action(self, card: Card | None) -> str:
        decision = self.session.decision
        seat = self._seat()
        assert decision is not None
        name = self._name(seat)
        shown = "a face-down card" if card is None else str(card)
        if decision.kind is DecisionKind.DEAL:
            self.session.deal(seat, card)
            return f"{name} is dealt {shown}"
        if decision.kind is DecisionKind.DRAW:
            self.session.take(seat, card)
            return f"{name} takes {shown}"
        if decision.kind is DecisionKind.EXPOSE:
            if card is None:
                raise IllegalActionError(f"type the card {name} turns up")
            self.session.expose(seat, card)
            return f"{name} turns up {card}"
        if decision.kind is DecisionKind.SHOW:
            if card is None:
                raise IllegalActionError(f"type {name}'s face-down cards")
            return self._show_card(seat, card)
        raise IllegalActionError(f"no card is due now: {name} must {decision.kind.value}")

    def _show_card(self, seat: int, card: Card) -> str:
        needed = self.session.state.seats[seat].down_count
        cards = [*self.show_cards, card]
        if len(cards) < needed:
            if card in self.show_cards:
                raise IllegalActionError(f"{card} is typed twice")
            self.show_cards = cards
            return f"{self._name(seat)} shows {' '.join(map(str, cards))} ... ({needed - len(cards)} more)"
        self.show_cards = []
        self.session.show(seat, cards)
        return f"{self._name(seat)} shows {' '.join(map(str, cards))}"

    def refuse(self) -> Outcome:
        def act() -> str:
            seat = self._seat()
            self.session.refuse(seat)
            state = self.session.state.seats[seat]
            return f"{state.name} refuses" + (": frozen" if state.frozen else "")

        return self.run(act)

    def amount(self, default: int) -> int:
        return int(self.typed) if self.typed.isdigit() else default

    def set_amount(self, chips: int) -> None:
        """The amount the next bet or raise puts in (a click on an amount button)."""
        self.typed = str(chips)
        self._changed()

    def check_or_call(self) -> Outcome:
        def act() -> str:
            decision = self.session.decision
            seat = self._seat()
            assert decision is not None
            if decision.kind is DecisionKind.MATCH or decision.to_call > 0:
                self.session.call(seat)
                return f"{self._name(seat)} calls {decision.to_call}"
            verb = "checks" if self.session.state.phase is Phase.BETTING else "passes"
            self.session.check(seat)
            return f"{self._name(seat)} {verb}"

        return self.run(act)

    def bet(self, amount: int | None = None) -> Outcome:
        def act() -> str:
            decision = self.session.decision
            seat = self._seat()
            assert decision is not None
            chips = amount if amount is not None else self.amount(decision.min_bet)
            self.session.bet(seat, chips)
            return f"{self._name(seat)} bets {chips}"

        return self.run(act)

    def raise_(self, amount: int | None = None) -> Outcome:
        def act() -> str:
            decision = self.session.decision
            seat = self._seat()
            assert decision is not None
            chips = amount if amount is not None else self.amount(decision.min_bet)
            self.session.raise_(seat, chips)
            return f"{self._name(seat)} raises {chips}"

        return self.run(act)

    def fold(self) -> Outcome:
        def act() -> str:
            seat = self._seat()
            self.session.fold(seat)
            return f"{self._name(seat)} folds"

        return self.run(act)

    def declare(self, declaration: Declaration) -> Outcome:
        def act() -> str:
            seat = self._seat()
            self.session.declare(seat, declaration)
            return f"{self._name(seat)} declares {declaration.value}"

        return self.run(act)

    def next_hand(self) -> Outcome:
        def act() -> str:
            self.session.start_hand()
            state = self.session.state
            return f"hand {state.hand_number}: {state.seats[state.dealer].name} deals"

        return self.run(act)

    def undo(self) -> Outcome:
        def act() -> str:
            self.show_cards = []
            (event,) = self.session.undo(1)
            return f"undone: {type(event).__name__}"

        return self.run(act)

    def correct(self, seat: int, index: int, card: Card | str) -> Outcome:
        def act() -> str:
            self.session.correct(seat, index, card)
            now = self.session.state.seats[seat].cards[index].card
            return f"{self._name(seat)}'s card {index + 1} is now {now}"

        return self.run(act)

    def show_bust(self, seat: int, cards: Sequence[Card | str]) -> Outcome:
        def act() -> str:
            self.session.show_bust(seat, cards)
            return f"{self._name(seat)} shows {' '.join(map(str, cards))}: bust"

        return self.run(act)

    # ------------------------------------------------------------------ keys

    def key(self, text: str) -> Outcome | None:
        """Handle one typed character (case-insensitive); ``None`` when it means nothing now."""
        key = text.upper()
        decision = self.session.decision
        if key == "U":
            return self.undo()
        if decision is None:
            return None
        kind = decision.kind
        if kind in (DecisionKind.BET, DecisionKind.MATCH):
            return self._bet_key(key)
        if kind is DecisionKind.DECLARE:
            choice = {"L": Declaration.LOW, "H": Declaration.HIGH, "O": Declaration.BOTH}.get(key)
            return None if choice is None else self.declare(choice)
        if kind is DecisionKind.NEXT_HAND:
            return self.next_hand() if key in (" ", "\r", "\n") else None
        if kind is DecisionKind.DRAW and key == "N":
            return self.refuse()
        if key in (" ", "\r", "\n") and kind in (DecisionKind.DEAL, DecisionKind.DRAW) and not self.typed:
            return self.card_action(None)
        return self._card_key(key)

    def _bet_key(self, key: str) -> Outcome | None:
        if key.isdigit():
            self.typed = (self.typed + key)[-3:]
            self._changed()
            return Outcome(True, f"amount {self.typed}")
        actions: dict[str, Callable[[], Outcome]] = {
            "C": self.check_or_call,
            " ": self.check_or_call,
            "B": self.bet,
            "R": self.raise_,
            "F": self.fold,
        }
        action = actions.get(key)
        return None if action is None else action()

    def _card_key(self, key: str) -> Outcome | None:
        if key in SUIT_KEYS and self.typed:
            text, self.typed = self.typed + key, ""
            return self.card_action(text)
        if key in RANK_KEYS and len(self.typed) < 2:
            self.typed += key
            self._changed()
            return Outcome(True, f"card {self.typed}…")
        return None

    def backspace(self) -> None:
        if self.typed:
            self.typed = self.typed[:-1]
        elif self.show_cards:
            self.show_cards.pop()
        self._changed()
