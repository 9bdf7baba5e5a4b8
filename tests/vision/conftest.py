from __future__ import annotations

import pytest

from tests.vision.scenes import Scene, make_scene


@pytest.fixture(scope="session")
def scene() -> Scene:
    """An 8-seat oval table seen obliquely by a 720p camera from the near side."""
    return make_scene(8)
