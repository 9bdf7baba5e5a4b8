"""Python simulators of the table devices, speaking the real protocol on a pseudo-terminal."""

from assistant.devices.sim.core import DeviceCore
from assistant.devices.sim.led import LedCore
from assistant.devices.sim.pty_runner import PtySimulator
from assistant.devices.sim.shuffler import ShufflerCore

__all__ = ["DeviceCore", "LedCore", "PtySimulator", "ShufflerCore"]
