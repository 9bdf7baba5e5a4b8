"""Optional USB serial devices at the table: LED token controller, card shuffler, WLED.

The wire protocol is in ``docs/devices-protocol.md``; ``protocol`` frames and parses it,
``link`` is the host side (handshake, resends, events, keepalive), ``led`` and
``shuffler`` are the device clients, ``wled`` drives a stock WLED board, ``discovery`` and
``manager`` find devices and keep them connected, ``table_glue`` ties them to the rules
engine, and ``sim`` holds simulators on pseudo-terminals. Importing this package imports
nothing heavy: pyserial is loaded only when a port is opened.
"""
