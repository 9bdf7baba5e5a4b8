"""The table's devices in the window, against the Python simulators on pseudo-terminals:
lights follow the game, the shuffler deals on G, and unplugging either never stops play."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from assistant.dashboard.main_window import DashboardWindow
from assistant.devices.manager import DeviceManager, Health, Role
from assistant.devices.protocol import SeatLight
from assistant.devices.sim import LedCore, PtySimulator, ShufflerCore
from assistant.devices.table_glue import seat_lights
from assistant.engine import DecisionKind
from assistant.vision.calibration import Calibration
from assistant.vision.sources import CameraSource

from .conftest import new_session
from .test_camera_reads import RedMeansSevenOfHearts, ScriptedCamera, calibration, table

__all__ = ["calibration", "table"]  # the camera fixtures, shared with the camera tests

ROOT = Path(__file__).resolve().parents[2]
WAIT_MS = 8000


@pytest.fixture(autouse=True)
def private_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Simulators announce themselves in a folder of this test's own."""
    folder = tmp_path / "registry"
    monkeypatch.setenv("DEALER_ASSISTANT_DEVICES", str(folder))
    return folder


@pytest.fixture
def lights() -> Iterator[PtySimulator]:
    with PtySimulator(LedCore("DA5B0001")) as simulator:
        yield simulator


@pytest.fixture
def shuffler() -> Iterator[PtySimulator]:
    with PtySimulator(ShufflerCore("DA5B0002", deal_s=0.005, shuffle_s=0.01, seed=9)) as simulator:
        yield simulator


@pytest.fixture
def window(qtbot: Any) -> Iterator[DashboardWindow]:
    win = DashboardWindow(new_session())
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()  # stops the lights' thread and the manager


def health(window: DashboardWindow, role: Role) -> Health:
    assert window.devices is not None
    return window.devices.manager.status(role).health


def label(window: DashboardWindow, role: Role) -> str:
    assert window.devices is not None
    return window.devices.labels[role].text()


def deal(qtbot: Any, window: DashboardWindow, key: bool = False) -> tuple[bool, str]:
    """Deal with the shuffler (the G key or the panel's action) and wait for its report."""
    assert window.devices is not None
    with qtbot.waitSignal(window.devices.report, timeout=WAIT_MS) as report:
        if key:
            qtbot.keyClick(window, "g")
        else:
            window.devices.deal_next()
    ok, message = report.args
    return bool(ok), str(message)


def connect(qtbot: Any, window: DashboardWindow, ports: list[str]) -> None:
    window.attach_devices(DeviceManager(retry_s=0.2), ports)
    qtbot.waitUntil(
        lambda: all(label(window, role).startswith("connected") for role in Role), timeout=WAIT_MS
    )


def test_lights_follow_the_game_and_g_deals_from_the_shuffler(
    qtbot: Any, window: DashboardWindow, lights: PtySimulator, shuffler: PtySimulator
) -> None:
    connect(qtbot, window, [lights.path, shuffler.path])
    assert "DA5B0002" in label(window, Role.SHUFFLER)
    led: LedCore = lights.core  # type: ignore[assignment]
    dealer: ShufflerCore = shuffler.core  # type: ignore[assignment]
    assert window.controller.next_hand().ok
    qtbot.waitUntil(lambda: led.shown()[:4] == seat_lights(window.session.state), timeout=WAIT_MS)
    assert window.devices is not None
    window.devices.shuffle_button.click()
    assert window.controller.message_ok and "52 cards shuffled" in window.message.text()
    decision = window.session.decision
    assert decision is not None and decision.kind is DecisionKind.DEAL
    ok, message = deal(qtbot, window, key=True)
    assert ok and f"to seat {decision.seat}" in message
    assert len(dealer.dealt) == 1 and dealer.dealt[0][:2] == (decision.seat, decision.face_up)
    assert window.session.state.seats[decision.seat or 0].cards, "the dealt card is in the game"
    assert window.controller.message_ok and f"to seat {decision.seat}" in window.message.text()
    qtbot.waitUntil(lambda: led.shown()[:4] == seat_lights(window.session.state), timeout=WAIT_MS)
    assert led.shown()[(decision.seat or 0) + 1] is SeatLight.TURN
    # a jam: shown, and the game does not change
    before = window.session.events
    dealer.jam_next = True
    ok, message = deal(qtbot, window)
    assert not ok and "JAM" in message and window.session.events == before
    assert "JAM" in window.message.text() and not window.controller.message_ok
    qtbot.waitUntil(lambda: "jammed" in label(window, Role.SHUFFLER), timeout=WAIT_MS)
    window.devices.clear_button.click()
    assert "jam cleared" in window.message.text() and "jammed" not in label(window, Role.SHUFFLER)
    ok, message = deal(qtbot, window, key=True)
    assert ok and len(window.session.events) == len(before) + 1


def test_a_card_the_game_no_longer_wants_is_not_recorded(
    qtbot: Any, window: DashboardWindow, lights: PtySimulator, shuffler: PtySimulator
) -> None:
    connect(qtbot, window, [lights.path, shuffler.path])
    assert window.devices is not None and window.controller.next_hand().ok
    assert window.devices.shuffle()
    dealer: ShufflerCore = shuffler.core  # type: ignore[assignment]
    dealer.deal_s = 0.5
    with qtbot.waitSignal(window.devices.report, timeout=WAIT_MS) as report:
        window.devices.deal_next()
        assert not window.devices.deal_button.isEnabled()
        assert window.controller.card_action("9c").ok  # the dealer was quicker, by hand
        after = window.session.events
    assert report.args[0] is False and "the game moved on" in report.args[1]
    assert window.session.events == after and len(dealer.dealt) == 1


def test_unplugging_the_shuffler_mid_game_is_shown_and_play_goes_on_by_hand(
    qtbot: Any, window: DashboardWindow, lights: PtySimulator, shuffler: PtySimulator
) -> None:
    connect(qtbot, window, [lights.path, shuffler.path])
    assert window.devices is not None
    assert window.controller.next_hand().ok
    assert window.devices.shuffle()
    assert deal(qtbot, window)[0]
    shuffler.unplug()
    qtbot.waitUntil(lambda: label(window, Role.SHUFFLER).startswith("lost"), timeout=WAIT_MS)
    assert health(window, Role.SHUFFLER) is Health.LOST
    before = window.session.events
    ok, message = deal(qtbot, window, key=True)
    assert not ok and "no shuffler connected" in message and window.session.events == before
    assert not window.controller.message_ok and "no shuffler connected" in window.message.text()
    decision = window.session.decision
    assert decision is not None
    assert window.controller.card_action("9c" if decision.face_up else None).ok  # by hand
    # plugged back in (on a new port): found again, and it asks to be shuffled
    shuffler.replug()
    qtbot.waitUntil(lambda: health(window, Role.SHUFFLER) is Health.CONNECTED, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "shuffle before dealing" in label(window, Role.SHUFFLER), timeout=WAIT_MS)
    assert window.devices.shuffle() and "shuffle before" not in label(window, Role.SHUFFLER)
    assert deal(qtbot, window)[0]


def test_unplugging_the_lights_never_blocks_the_game_and_they_come_back(
    qtbot: Any, window: DashboardWindow, lights: PtySimulator, shuffler: PtySimulator
) -> None:
    connect(qtbot, window, [lights.path, shuffler.path])
    led: LedCore = lights.core  # type: ignore[assignment]
    lights.unplug()
    assert window.controller.next_hand().ok  # the lights' update fails on their own thread
    qtbot.waitUntil(lambda: label(window, Role.LIGHTS).startswith("lost"), timeout=WAIT_MS)
    assert health(window, Role.LIGHTS) is Health.LOST
    for card in ("5s", "6s", "7s", "8s"):
        assert window.controller.card_action(card).ok
    lights.replug()
    qtbot.waitUntil(lambda: health(window, Role.LIGHTS) is Health.CONNECTED, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: led.shown()[:4] == seat_lights(window.session.state), timeout=WAIT_MS)


def test_an_absent_device_is_found_by_reconnect_once_plugged_in(
    qtbot: Any, window: DashboardWindow, tmp_path: Path
) -> None:
    missing = str(tmp_path / "ttyUSB9")
    panel = window.attach_devices(DeviceManager(retry_s=0.2), [missing])
    qtbot.waitUntil(lambda: not panel.searching, timeout=WAIT_MS)
    assert label(window, Role.LIGHTS) == f"absent: nothing answered on {missing}"
    assert not panel.shuffle_button.isEnabled()
    with PtySimulator(LedCore("DA5B0003")) as simulator:
        panel.ports = [simulator.path]
        panel.reconnect_button.click()
        qtbot.waitUntil(lambda: label(window, Role.LIGHTS).startswith("connected"), timeout=WAIT_MS)
        window.close()


@pytest.mark.parametrize("search", [False, True], ids=["ports-named", "devices-searched"])
def test_the_dashboard_command_drives_the_lights(
    tmp_path: Path, lights: PtySimulator, shuffler: PtySimulator, search: bool
) -> None:
    where = ["--devices"] if search else ["--lights", lights.path, "--shuffler", shuffler.path]
    result = subprocess.run(
        [
            sys.executable, "-m", "assistant", "dashboard",
            "--session", str(tmp_path / "s.db"), "--new", "--players", "Anna 20, Ben 20, Carla 20",
            *where, "--quit-after", "4000",
        ],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    led: LedCore = lights.core  # type: ignore[assignment]
    assert led.shown()[:3] == [SeatLight.WAITING] * 3  # the game's lights before the first deal


def test_the_lights_show_lost_while_the_camera_is_gone(
    qtbot: Any,
    window: DashboardWindow,
    lights: PtySimulator,
    calibration: Calibration,
    table: NDArray[np.uint8],
) -> None:
    window.attach_devices(DeviceManager(retry_s=0.2), [lights.path])
    qtbot.waitUntil(lambda: label(window, Role.LIGHTS).startswith("connected"), timeout=WAIT_MS)
    led: LedCore = lights.core  # type: ignore[assignment]
    captures = iter([ScriptedCamera([table] * 2), ScriptedCamera([table] * 2)])
    camera = CameraSource(0, opener=lambda _device: next(captures), sleep=lambda _s: None)
    pipeline = window.attach_camera(
        camera, calibration, RedMeansSevenOfHearts(), retry_s=0.0, watch_bumps=False, start=False
    )
    assert window.controller.next_hand().ok
    for _ in range(3):  # two frames, then the camera is gone
        pipeline.step()
    qtbot.waitUntil(lambda: led.shown()[:4] == [SeatLight.LOST] * 4, timeout=WAIT_MS)
    pipeline.step()  # back
    qtbot.waitUntil(lambda: led.shown()[:4] == seat_lights(window.session.state), timeout=WAIT_MS)
    assert SeatLight.TURN in led.shown()
