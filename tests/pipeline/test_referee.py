"""Stable table readings become the right engine events, or questions for the dealer."""

from collections.abc import Iterator
from typing import Any, cast

from assistant.engine import DecisionKind, Phase, Session, Stakes, parse_card, preset
from assistant.engine.events import CardExposed, CardRefused, Checked, Event, HandShown
from assistant.pipeline.observations import TableRead, ZoneRead, bet_zone, seat_zone
from assistant.pipeline.referee import Applied, DealerQuery, Outcome, Referee
from assistant.pipeline.stability import StableTable
from tests.helpers import decision_of, phase_of, result_of

FPS = 10


class Table:
    """A scripted table seen by a camera: zones change, frames go by."""

    def __init__(self, rules: str = "seven-twenty-seven", players: int = 3, **options: object) -> None:
        names = ["Anna", "Ben", "Carla", "Dan"][:players]
        self.session = Session.new(preset(rules).with_options(**options), Stakes(), [(n, 50) for n in names])
        self.referee = Referee(self.session)
        self.stable = StableTable(hold=0.2)
        self.zones: dict[str, ZoneRead] = {}
        self.frame = 0

    def _frames(
        self, count: int, occluded: frozenset[str] = frozenset(), noise: dict[str, ZoneRead] | None = None
    ) -> Iterator[list[Outcome]]:
        for _ in range(count):
            zones = dict(self.zones)
            if noise:
                zones.update(noise)
            read = TableRead(self.frame, self.frame / FPS, zones, occluded)
            changes = self.stable.update(read)
            yield self.referee.on_changes(changes, self.stable.stable)
            self.frame += 1

    def hold(self, frames: int = 4, **kw: Any) -> list[Outcome]:
        return [o for outcomes in self._frames(frames, **kw) for o in outcomes]

    def set(
        self,
        zone: str,
        up: str = "",
        down: int = 0,
        chips: int | None = 0,
        unsure: dict[str, float] | None = None,
    ) -> None:
        guesses = [(parse_card(c), p) for c, p in (unsure or {}).items()]
        self.zones[zone] = ZoneRead.of([parse_card(c) for c in up.split()], down, chips, guesses)

    def dealer(self, event: Event) -> None:
        self.referee.dealer(event, self.frame)


def applied(outcomes: list[Outcome]) -> list[Event]:
    return [o.event for o in outcomes if isinstance(o, Applied)]


def test_cards_arriving_in_deal_order_become_deals() -> None:
    t = Table()
    t.session.start_hand()
    t.set(seat_zone(1), "Ah")
    out = t.hold()
    assert [type(e).__name__ for e in applied(out)] == ["CardDealt"]
    assert t.session.state.seats[1].up_cards == (parse_card("Ah"),)


def test_a_hand_passing_over_the_cards_changes_nothing() -> None:
    t = Table()
    t.session.start_hand()
    t.set(seat_zone(1), "Ah")
    t.hold()
    before = len(t.session.events)
    # two frames where a sleeve hides the card, then it is back
    out = t.hold(2, noise={seat_zone(1): ZoneRead.of()})
    out += t.hold(2, occluded=frozenset({seat_zone(2)}))
    out += t.hold(4)
    assert out == [] and len(t.session.events) == before


def test_a_card_arriving_out_of_turn_is_asked_about_not_applied() -> None:
    t = Table()
    t.session.start_hand()
    t.set(seat_zone(2), "Kd")  # seat 1 should be dealt first
    out = t.hold()
    assert len(out) == 1 and isinstance(out[0], DealerQuery)
    assert "it is not seat 2's (Carla) turn" in out[0].message
    assert len(t.session.events) == 2


def test_the_same_card_in_two_places_is_raised_to_the_dealer() -> None:
    t = Table()
    t.session.start_hand()
    t.set(seat_zone(1), "Ah")
    t.hold()
    t.set(seat_zone(2), "Ah")
    out = t.hold()
    assert any(isinstance(o, DealerQuery) and "Ah is seen in" in o.message for o in out)
    assert any(isinstance(o, DealerQuery) and "already on the table" in o.message for o in out)


def deal_round(t: Table) -> None:
    t.session.start_hand()
    for seat, card in ((1, "2c"), (2, "Tc"), (0, "6d")):
        t.set(seat_zone(seat), card)
        t.hold()
    for seat, card in ((1, "2c"), (2, "Tc"), (0, "6d")):
        t.set(seat_zone(seat), card, down=1)
        t.hold()


def test_a_whole_hand_from_deal_to_showdown() -> None:
    t = Table()
    deal_round(t)
    assert phase_of(t.session) is Phase.BETTING
    t.set(bet_zone(1), chips=3)
    t.hold()  # a bet of 3
    t.set(bet_zone(2), chips=3)
    t.hold()  # a call
    t.set(bet_zone(0), chips=5)
    t.hold()  # a raise of 2
    t.set(bet_zone(1), chips=5)
    t.hold()
    t.set(bet_zone(2), chips=5)
    t.hold()
    assert phase_of(t.session) is Phase.DRAWING and t.session.state.pot == 3 + 15
    for seat in range(3):
        t.set(bet_zone(seat), chips=0)  # swept into the pot
    t.hold()
    t.set(seat_zone(2), "Tc", down=2)  # Ben refused: the card went to Carla
    out = t.hold()
    assert [type(e).__name__ for e in applied(out)] == ["CardRefused", "CardTaken"]
    t.set(seat_zone(0), "", down=0)  # Anna folds? not her turn to bet: she is asked to draw
    out = t.hold()
    assert isinstance(out[0], DealerQuery)
    t.set(seat_zone(0), "6d", down=1)  # the dealer puts them back
    t.hold()
    t.dealer(CardRefused(0))  # Anna refuses (entered by the dealer)
    for seat in (1, 2, 0):
        t.dealer(Checked(seat))
    for seat in (1, 2, 0):
        t.dealer(CardRefused(seat))
    assert phase_of(t.session) is Phase.SHOWDOWN
    t.set(seat_zone(1), "2c 3d")
    t.set(seat_zone(2), "Tc 9d 8h")
    t.set(seat_zone(0), "6d Jh")
    t.hold()
    assert phase_of(t.session) is Phase.COMPLETE
    assert result_of(t.session).awards == {0: 9, 1: 0, 2: 9}
    for seat in range(3):  # the cards are gathered for the next deal: nothing to ask
        t.set(seat_zone(seat), "")
    assert t.hold() == []
    t.set(seat_zone(1), "", down=1)  # the next deal begun before the next hand is started
    out = t.hold()
    assert len(out) == 1 and isinstance(out[0], DealerQuery) and "hand 2 is not started" in out[0].message


def test_chips_the_camera_cannot_count_are_asked_about() -> None:
    t = Table()
    deal_round(t)
    t.set(bet_zone(1), chips=None)
    out = t.hold()
    assert isinstance(out[0], DealerQuery) and "how many" in out[0].message


def test_a_card_to_a_frozen_player_is_refused_and_raised() -> None:
    t = Table("fifteen-thirty-five")
    t.session.start_hand()
    for _ in range(3):
        for seat in (1, 2, 0):
            cur = t.zones.get(seat_zone(seat), ZoneRead.of())
            t.set(seat_zone(seat), "", down=cur.face_down + 1)
            t.hold()
    for seat, card in ((1, "9c"), (2, "Kd"), (0, "2c")):
        t.set(seat_zone(seat), card, down=2)
        t.hold()
    assert t.session.state.phase is Phase.BETTING
    for seat in (2, 0, 1):
        t.dealer(Checked(seat))
    t.dealer(CardRefused(1))
    t.set(seat_zone(2), "Kd 3c", down=2)
    t.hold()
    t.dealer(CardRefused(0))
    for seat in (2, 0, 1):
        t.dealer(Checked(seat))
    t.dealer(CardRefused(1))  # Ben: second refusal in a row, frozen
    assert t.session.state.seats[1].frozen
    t.set(seat_zone(1), "9c 4h", down=2)  # a card to frozen Ben anyway
    out = t.hold()
    assert isinstance(out[0], DealerQuery) and "frozen" in out[0].message
    assert t.session.state.seats[1].up_cards == (parse_card("9c"),)


def test_exposed_cards_and_declarations_in_fifteen_thirty_five() -> None:
    t = _fifteen_thirty_five_dealt()
    t.set(seat_zone(1), "9c", down=2)
    out = t.hold()
    assert type(applied(out)[0]).__name__ == "CardExposed"
    assert decision_of(t.session).seat == 0


def test_chips_short_of_a_call_are_asked_about_not_read_as_a_call() -> None:
    t = Table()
    deal_round(t)
    t.set(bet_zone(1), chips=5)
    t.hold()  # Ben bets 5
    t.set(bet_zone(2), chips=2)
    out = t.hold()
    assert isinstance(out[0], DealerQuery) and "5 are needed to call" in out[0].message
    assert t.session.state.seats[2].stack == 49


def test_a_shown_hand_lists_its_cards_in_the_order_they_lie() -> None:
    t = Table()
    deal_round(t)
    t.set(bet_zone(1), chips=1)  # Ben bets 1, Carla and Anna call
    t.hold()
    t.set(bet_zone(2), chips=1)
    t.hold()
    t.set(bet_zone(0), chips=1)
    t.hold()
    for seat in range(3):
        t.set(bet_zone(seat), chips=0)
    t.hold()
    t.set(seat_zone(1), "2c", down=2)  # Ben draws a second hidden card
    t.hold()
    while phase_of(t.session) is not Phase.SHOWDOWN:  # then everyone checks and stands
        decision = decision_of(t.session)
        assert decision.seat is not None
        t.dealer(Checked(decision.seat) if decision.kind is DecisionKind.BET else CardRefused(decision.seat))
    # his two hidden cards, turned up where they lie: Kd, then his face-up 2c, then 3h
    t.set(seat_zone(1), "Kd 2c 3h")
    out = t.hold()
    shown = [cast(HandShown, e) for e in applied(out) if type(e).__name__ == "HandShown"]
    assert [tuple(map(str, e.cards)) for e in shown] == [("Kd", "3h")]
    t.set(seat_zone(2), "Tc 5h")
    t.set(seat_zone(0), "6d 9s")
    t.hold()
    assert phase_of(t.session) is Phase.COMPLETE


def test_cards_turned_up_that_do_not_add_up_are_asked_about_naming_those_read() -> None:
    t = _fifteen_thirty_five_dealt()
    t.set(seat_zone(1), "9c", down=1)  # two backs gone, one card read
    out = t.hold()
    queries = [o for o in out if isinstance(o, DealerQuery)]
    assert not applied(out)
    assert [q.message for q in queries] == ["Ben has 2 face-down card(s) fewer but only 9c new face up"]
    other = _fifteen_thirty_five_dealt()
    other.set(seat_zone(1), "", down=2)  # one back gone, nothing read
    out = other.hold()
    assert [o.message for o in out if isinstance(o, DealerQuery)] == [
        "Ben has 1 face-down card(s) fewer but nothing new face up"
    ]


def test_a_card_turned_up_but_read_unsurely_is_offered_to_the_dealer_and_not_applied() -> None:
    t = _fifteen_thirty_five_dealt()
    assert t.session.state.phase is Phase.EXPOSING and decision_of(t.session).seat == 1
    t.set(seat_zone(1), "", down=2, unsure={"Kd": 0.42})  # one back turned up, read at 42%
    out = t.hold()
    assert not applied(out)
    (query,) = [o for o in out if isinstance(o, DealerQuery)]
    assert (
        query.message == "Ben has 1 face-down card(s) fewer but nothing new face up; read unsurely: Kd (42%)"
    )
    assert query.proposed == (CardExposed(1, parse_card("Kd")),)
    for event in query.proposed:  # the dealer confirms
        t.session.apply(event)
    t.set(seat_zone(1), "Kd", down=2)  # later the camera reads it surely: nothing new
    assert t.hold() == []
    assert t.session.state.seats[1].up_cards == (parse_card("Kd"),)


def test_a_card_read_unsurely_for_a_while_has_not_disappeared() -> None:
    t = Table()
    t.session.start_hand()
    t.set(seat_zone(1), "Ah")
    t.hold()
    t.set(seat_zone(1), "", unsure={"Ah": 0.45})  # glare: the same card, read less surely
    assert t.hold() == []
    assert t.session.state.seats[1].live


def _fifteen_thirty_five_dealt() -> Table:
    t = Table("fifteen-thirty-five", players=2)
    t.session.start_hand()
    for _ in range(3):
        for seat in (1, 0):
            cur = t.zones.get(seat_zone(seat), ZoneRead.of())
            t.set(seat_zone(seat), "", down=cur.face_down + 1)
            t.hold()
    return t


def test_a_card_read_unsurely_on_any_frame_of_a_new_reading_goes_with_it() -> None:
    """The unsure read of a card just turned up often comes on one frame only."""
    stable = StableTable(hold=0.1)
    ace = parse_card("Ah")
    first = TableRead(0, 0.0, {"seat1.cards": ZoneRead.of([], 1, 0, [(ace, 0.4)])})
    second = TableRead(1, 0.1, {"seat1.cards": ZoneRead.of([], 1)})  # not read this time
    assert stable.update(first) == []
    (change,) = stable.update(second)
    assert change.after.unsure == ((ace, 0.4),)


def test_cards_dealt_before_the_hand_is_started_are_asked_about_not_lost_unnoticed() -> None:
    t = Table()
    t.set(seat_zone(1), "", down=1)  # the dealer deals without starting the hand
    out = t.hold()
    assert len(out) == 1 and isinstance(out[0], DealerQuery)
    assert out[0].message.startswith("cards are being dealt, but hand 1 is not started")
    t.set(seat_zone(2), "", down=1)  # the next seat's card asks the same question: the panel lists it once
    again = t.hold()
    assert [(q.zone, q.message) for q in again if isinstance(q, DealerQuery)] == [("table", out[0].message)]
    assert out[0].proposed == () and len(t.session.events) == 1  # nothing applied: the session only


def test_cards_gathered_after_a_hand_are_not_asked_about() -> None:
    t = Table()
    t.session.start_hand()
    t.set(seat_zone(1), "Ah")
    t.hold()
    t.session.undo(2)  # back to before the hand: the card is still on the table
    assert phase_of(t.session) is Phase.WAITING
    t.set(seat_zone(1), "")  # the dealer takes it back
    assert t.hold() == []


def test_a_card_named_apart_from_another_zones_card_is_put_to_the_dealer_not_applied() -> None:
    """The table renamed a reading because another seat holds the name read (stop 59):
    the dealer confirms it with one click; nothing goes into the game on its own."""
    t = Table()
    t.session.start_hand()
    seven_of_clubs, read_as = parse_card("7c"), parse_card("7s")
    t.zones[seat_zone(1)] = ZoneRead.of([seven_of_clubs], renamed=[(seven_of_clubs, read_as)])
    out = t.hold()
    assert applied(out) == []
    [query] = [o for o in out if isinstance(o, DealerQuery)]
    assert "7c read as 7s" in query.message and query.zone == seat_zone(1)
    assert [type(e).__name__ for e in query.proposed] == ["CardDealt"]
    t.dealer(query.proposed[0])  # confirmed: the card is the game's, and the zone is settled
    assert t.session.state.seats[1].up_cards == (seven_of_clubs,)
    assert [o for o in t.hold() if isinstance(o, DealerQuery)] == []
    t.set(seat_zone(2), "Kd")  # the next deal is read as before
    assert [type(e).__name__ for e in applied(t.hold())] == ["CardDealt"]
