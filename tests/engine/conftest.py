from collections.abc import Sequence

import pytest

from assistant.engine import Session, Stakes, preset


def new_session(
    rules: str = "seven-twenty-seven",
    stacks: Sequence[int] = (50, 50, 50, 50),
    dealer: int = 0,
    stakes: Stakes | None = None,
    **options: object,
) -> Session:
    names = ["Anna", "Ben", "Carla", "Dan", "Eve", "Finn", "Gus", "Hal", "Ida", "Jo"]
    return Session.new(
        preset(rules).with_options(**options),
        stakes or Stakes(ante=1, min_bet=1, max_bet=5, max_raises=3),
        list(zip(names, stacks, strict=False)),
        dealer=dealer,
    )


def deal_all(session: Session, cards: dict[int, list[str | None]]) -> None:
    """Deal the starting cards: ``cards[seat]`` in the order that seat receives them."""
    remaining = {seat: list(c) for seat, c in cards.items()}
    while session.decision is not None and session.decision.kind.value == "deal":
        seat = session.decision.seat
        assert seat is not None
        session.deal(seat, remaining[seat].pop(0))


@pytest.fixture
def seven() -> Session:
    return new_session()
