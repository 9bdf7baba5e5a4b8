from __future__ import annotations

import pytest

from assistant.synth.decks import DecksMissingError, installed_decks
from assistant.synth.font_indices import FontSet, NoFontsError, system_fonts


@pytest.fixture(scope="session")
def decks_installed() -> None:
    try:
        installed_decks()
    except DecksMissingError as error:
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def fonts() -> FontSet:
    """The machine's fonts for drawn indices and strips (skips where there are none)."""
    try:
        return system_fonts()
    except NoFontsError as error:
        pytest.skip(str(error))
