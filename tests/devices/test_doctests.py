"""The examples in the protocol module's docstrings hold."""

from __future__ import annotations

import doctest

from assistant.devices import protocol


def test_protocol_docstring_examples() -> None:
    failures, tried = doctest.testmod(protocol, optionflags=doctest.ELLIPSIS)
    assert tried >= 6 and failures == 0
