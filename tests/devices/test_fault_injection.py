"""1% of bytes dropped or corrupted both ways: every deal still happens exactly once."""

from __future__ import annotations

import pytest

from assistant.devices.fault_proxy import FaultProxy
from assistant.devices.link import DeviceLink, LinkTiming
from assistant.devices.shuffler import Shuffler
from assistant.devices.sim import PtySimulator, ShufflerCore

from .conftest import SHUFFLER_PEERS
from .peers import Peer

ROUNDS = 6
DEALS_PER_ROUND = 40


def test_every_deal_runs_exactly_once_and_host_matches_device_at_one_percent_damage() -> None:
    core = ShufflerCore("FA017001", deal_s=0.004, shuffle_s=0.01, seed=5)
    with PtySimulator(core) as simulator, FaultProxy(simulator.path, 0.01, seed=11) as proxy:
        link = DeviceLink.open(proxy.path, LinkTiming(reply_timeout=0.08))
        try:
            shuffler = Shuffler(link)
            host_log: list[tuple[int, bool, str]] = []
            for round_number in range(ROUNDS):
                assert shuffler.shuffle() == 52
                for deal in range(DEALS_PER_ROUND):
                    card = shuffler.deal((deal + round_number) % 8, face_up=deal % 3 == 0)
                    assert card.card is not None
                    host_log.append((card.seat, card.face_up, card.card))
                    assert card.left == 52 - deal - 1
                status = shuffler.status()
                assert (status.left, status.dealt) == (52 - DEALS_PER_ROUND, DEALS_PER_ROUND)
            deals_run = [c for c in core.executed if c.verb == "DEAL"]
            assert len(deals_run) == ROUNDS * DEALS_PER_ROUND
            assert host_log == core.history
            damaged = proxy.to_device.dropped + proxy.to_device.corrupted
            returned = proxy.to_host.dropped + proxy.to_host.corrupted
            assert damaged > 10 and returned > 10, "the proxy must really have damaged bytes"
            assert link.stats.resends > 10
        finally:
            link.close()


@pytest.mark.simavr
@pytest.mark.parametrize("peer", [p for p in SHUFFLER_PEERS if "firmware" in str(p.id)], indirect=True)
def test_firmware_deals_exactly_once_through_one_percent_damage(peer: Peer) -> None:
    """Under simavr (real-time motor delays), a shorter run: the shoe count proves that no
    deal ran twice and none was lost."""
    deals = 25
    with FaultProxy(peer.path, 0.01, seed=23) as proxy:
        link = DeviceLink.open(proxy.path, peer.timing)
        try:
            shuffler = Shuffler(link)
            assert shuffler.shuffle() == 52
            cards = [shuffler.deal(deal % 8, face_up=deal % 2 == 0) for deal in range(deals)]
            assert [card.left for card in cards] == list(range(51, 51 - deals, -1))
            assert len({card.card for card in cards}) == deals
            status = shuffler.status()
            assert (status.left, status.dealt) == (52 - deals, deals)
            assert proxy.to_device.dropped + proxy.to_device.corrupted > 0
            assert proxy.to_host.dropped + proxy.to_host.corrupted > 0
        finally:
            link.close()
