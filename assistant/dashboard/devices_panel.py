"""The table's USB devices in the dashboard: their state, Reconnect, and the shuffler's deal.

One row per device (seat lights, shuffler) says whether it is connected, lost (unplugged
or silent: the manager is looking for it) or absent (never found), with the device's own
message (a jam, an empty shoe). The seat lights follow the game on their own
(:class:`~assistant.devices.table_glue.TableLights`). "Deal next card" (key G) asks the
shuffler for the card the game wants and records it through
:class:`~assistant.devices.table_glue.ShufflerDealer`; a device fault is shown and the
dealer carries on by hand: the game never waits for a device that is not there.

The shuffler deals on a thread of its own (its motor, or a device that stopped answering,
takes time); the card is recorded on the window's thread, and only if the game still
wants that card. Device news arrives on the manager's threads and reaches the widgets
through Qt signals, so the widgets and the session are only touched on the window's thread.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from typing import cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from assistant.devices.discovery import candidate_ports, discover_each
from assistant.devices.link import DeviceError
from assistant.devices.manager import DeviceManager, DeviceStatus, Health, Role
from assistant.devices.shuffler import DealtCard, Shuffler
from assistant.devices.table_glue import ShufflerDealer, TableLights
from assistant.engine import Decision, DecisionKind, Session

HEALTH_COLORS = {Health.CONNECTED: "#9be59b", Health.LOST: "#ff5c5c", Health.ABSENT: "#9aa5b1"}
ROLE_NAMES = {Role.LIGHTS: "Seat lights", Role.SHUFFLER: "Shuffler"}
BUTTON = "QPushButton { font-size:11pt; padding:3px 8px; }"
SHORT = 60  # characters of a device's message shown; the whole of it is the tooltip


def status_text(status: DeviceStatus, searched: Sequence[str] | None) -> str:
    """One line for the dealer: the state, which device, what it said."""
    if status.health is Health.CONNECTED:
        who = status.identity.describe() if status.identity else ""
        text = f"connected · {who}"
    elif status.health is Health.LOST:
        text = "lost: looking for it"
    elif searched:
        text = f"absent: nothing answered on {', '.join(searched)}"
    else:
        text = "absent: none found"
    if not status.message:
        return text
    message = status.message if len(status.message) <= SHORT else status.message[: SHORT - 1] + "…"
    return f"{text} · {message}"


class _DealtAlready:
    """Stands in for the shuffler once its card is out, so that the engine glue records
    the card the real shuffler dealt (on the window's thread)."""

    def __init__(self, dealt: DealtCard) -> None:
        self.dealt = dealt

    def deal(self, seat: int, face_up: bool) -> DealtCard:
        return self.dealt


class DevicesPanel(QWidget):
    """Shows the manager's devices; ``report`` carries each deal's or action's
    (ok, message) for the window to show."""

    status_arrived = Signal(object)
    report = Signal(bool, str)
    search_done = Signal()
    dealt = Signal(object, object, str)  # the decision dealt for, the card (or None), an error

    def __init__(
        self,
        session: Session,
        manager: DeviceManager,
        ports: Sequence[str] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.manager = manager
        self.ports = list(ports) if ports is not None else None  # None: search every port
        self.searching = False
        self.dealing = False
        self.closed = False
        self.settled: set[Role] = set()  # the device's last message was dealt with here
        self.dealer = ShufflerDealer(session, self._connected_shuffler)
        self.lights = TableLights(session, manager.show_lights)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        title = QLabel("Devices")
        title.setStyleSheet("font-size:13pt; color:#b8c4cf; font-weight:bold;")
        layout.addWidget(title)
        grid = QGridLayout()
        layout.addLayout(grid)
        self.labels: dict[Role, QLabel] = {}
        for row, role in enumerate(Role):
            name = QLabel(ROLE_NAMES[role])
            name.setStyleSheet("font-size:12pt;")
            grid.addWidget(name, row, 0)
            label = QLabel()
            label.setWordWrap(True)
            label.setObjectName(f"device_{role.value}")
            grid.addWidget(label, row, 1)
            self.labels[role] = label
        grid.setColumnStretch(1, 1)
        buttons = QGridLayout()
        layout.addLayout(buttons)
        self.reconnect_button = self._button("Reconnect", self.reconnect)
        self.shuffle_button = self._button("Shuffle", self.shuffle)
        self.clear_button = self._button("Clear", self.clear_jam)
        self.deal_button = self._button("Deal next card (G)", self.deal_next)
        actions = (self.reconnect_button, self.shuffle_button, self.clear_button, self.deal_button)
        for column, button in enumerate(actions):
            buttons.addWidget(button, 0, column)
        self.status_arrived.connect(self._news)
        self.search_done.connect(self._searched)
        self.dealt.connect(self._record)
        manager.add_listener(self.status_arrived.emit)  # called on the manager's threads
        for status in manager.statuses():
            self._show_status(status)

    def _button(self, text: str, slot: Callable[[], object]) -> QPushButton:
        button = QPushButton(text)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.setStyleSheet(BUTTON)
        button.clicked.connect(lambda _=False: slot())
        return button

    # ------------------------------------------------------------------ state

    def _connected_shuffler(self) -> Shuffler | None:
        if self.manager.status(Role.SHUFFLER).health is not Health.CONNECTED:
            return None
        return self.manager.shuffler

    def _news(self, status: DeviceStatus) -> None:
        self.settled.discard(status.role)
        self._show_status(status)

    def _show_status(self, status: DeviceStatus) -> None:
        if status.role in self.settled and status.health is Health.CONNECTED:
            status = DeviceStatus(status.role, status.health, status.identity, "")
        label = self.labels[status.role]
        searched = None if self.searching else self.ports
        label.setText(status_text(status, searched))
        label.setToolTip(status.describe())
        color = HEALTH_COLORS[status.health]
        if status.health is Health.CONNECTED and status.message:
            color = "#ffb347"  # connected, but it has something to say (a jam, an empty shoe)
        label.setStyleSheet(f"font-size:12pt; color:{color};")
        shuffler = self.manager.status(Role.SHUFFLER).health is Health.CONNECTED
        self.shuffle_button.setEnabled(shuffler)
        self.clear_button.setEnabled(shuffler)
        if status.role is Role.LIGHTS and status.health is Health.CONNECTED:
            self.lights.refresh()

    def _searched(self) -> None:
        self.searching = False
        self.reconnect_button.setEnabled(True)
        for status in self.manager.statuses():
            self._show_status(status)

    # ------------------------------------------------------------------ actions

    def search(self) -> None:
        """Look for the devices on a background thread (opening a port may take seconds)."""
        if self.searching:
            return
        self.searching = True
        self.reconnect_button.setEnabled(False)
        for role, label in self.labels.items():
            if self.manager.status(role).health is not Health.CONNECTED:
                label.setText("searching…")

        manager = self.manager
        busy = {s.identity.port for s in manager.statuses() if s.health is Health.CONNECTED and s.identity}
        wanted = self.ports if self.ports is not None else candidate_ports(manager.extra_ports)
        ports = [port for port in wanted if port not in busy]

        def run() -> None:
            try:  # each device is attached as soon as it answers; a silent port holds up nobody
                for found in discover_each(ports, manager.timing):
                    if self.closed or not manager.attach(found):
                        found.close()
            except (DeviceError, OSError):
                pass  # nothing found is shown as absent
            finally:
                with contextlib.suppress(RuntimeError):  # the window closed meanwhile
                    self.search_done.emit()

        threading.Thread(target=run, name="device-search", daemon=True).start()

    def reconnect(self) -> None:
        """The Reconnect button: look again for a lost device, and for absent ones."""
        self.manager.reconnect()
        if any(self.manager.status(role).health is Health.ABSENT for role in Role):
            self.search()

    def deal_next(self) -> None:
        """Have the shuffler deal the card the game wants; ``report`` says how it went."""
        if self.dealing:
            self.report.emit(False, "the shuffler is still dealing the last card")
            return
        decision = self.session.decision
        shuffler = self._connected_shuffler()
        wants_card = decision is not None and decision.kind in (DecisionKind.DEAL, DecisionKind.DRAW)
        if shuffler is None or decision is None or decision.seat is None or not wants_card:
            report = self.dealer.deal_next()  # says why nothing is dealt; deals nothing
            self.report.emit(report.recorded, report.message)
            return
        self.dealing = True
        self.deal_button.setEnabled(False)
        seat, face_up = decision.seat, decision.face_up

        def run() -> None:
            try:
                card = shuffler.deal(seat, face_up)
            except DeviceError as error:
                outcome: tuple[DealtCard | None, str] = (None, f"shuffler: {error}; nothing dealt")
            else:
                outcome = (card, "")
            with contextlib.suppress(RuntimeError):  # the window closed meanwhile
                self.dealt.emit(decision, *outcome)

        threading.Thread(target=run, name="shuffler-deal", daemon=True).start()

    def _record(self, decision: Decision, card: DealtCard | None, error: str) -> None:
        self.dealing = False
        self.deal_button.setEnabled(True)
        if card is None:
            self.report.emit(False, error)
            return
        if self.session.decision != decision:
            self.report.emit(False, f"card dealt to seat {card.seat} but the game moved on: check it")
            return
        dealt = _DealtAlready(card)
        report = ShufflerDealer(self.session, lambda: cast(Shuffler, dealt)).deal_next()
        self.report.emit(report.recorded, report.message)

    def shuffle(self) -> bool:
        shuffler = self.manager.shuffler
        if shuffler is None or self.manager.status(Role.SHUFFLER).health is not Health.CONNECTED:
            self.report.emit(False, "no shuffler connected")
            return False
        try:
            cards = shuffler.shuffle()
        except DeviceError as error:
            self.report.emit(False, f"shuffler: {error}")
            return False
        self.settled.add(Role.SHUFFLER)  # "shuffle before dealing" and "shoe empty" are done with
        self._show_status(self.manager.status(Role.SHUFFLER))
        self.report.emit(True, f"shuffler: {cards} cards shuffled")
        return True

    def clear_jam(self) -> bool:
        """The dealer cleared the card path of a jammed shuffler."""
        shuffler = self.manager.shuffler
        if shuffler is None or self.manager.status(Role.SHUFFLER).health is not Health.CONNECTED:
            self.report.emit(False, "no shuffler connected")
            return False
        try:
            shuffler.clear()
        except DeviceError as error:
            self.report.emit(False, f"shuffler: {error}")
            return False
        self.settled.add(Role.SHUFFLER)
        self._show_status(self.manager.status(Role.SHUFFLER))
        self.report.emit(True, "shuffler: jam cleared")
        return True

    def close_devices(self) -> None:
        """Stop the lights' thread and release every port (the window is closing)."""
        self.closed = True
        self.lights.close()
        self.manager.close()
