from __future__ import annotations

import pytest

from assistant.synth.decks import DecksMissingError, installed_decks


@pytest.fixture(scope="session")
def decks_installed() -> None:
    try:
        installed_decks()
    except DecksMissingError as error:
        pytest.skip(str(error))
