"""dealer-assistant: a camera-driven dealer's assistant for live 7/27 home games.

The package is split into a pure rules engine (:mod:`assistant.engine`) and adapters
at the edges (vision, devices, dashboard) that turn the outside world into engine
events and back.
"""

__version__ = "0.1.0"
