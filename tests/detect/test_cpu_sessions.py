"""Every ONNX Runtime session of the detector sleeps between runs (no spinning threads)."""

from __future__ import annotations

import pytest

from assistant.detect.cpu_sessions import NO_SPINNING, cpu_session
from assistant.detect.pipeline import INDEX_READER, MODELS_DIR, CardDetector


def _config(session: object, key: str) -> str:
    return str(session.get_session_options().get_session_config_entry(key))  # type: ignore[attr-defined]


def test_a_cpu_session_lets_its_worker_threads_sleep_as_soon_as_a_run_ends() -> None:
    session = cpu_session(MODELS_DIR / INDEX_READER)
    for key in ("session.intra_op.allow_spinning", "session.inter_op.allow_spinning"):
        assert _config(session, key) == "0"


def test_a_cpu_session_takes_the_number_of_threads_asked_for() -> None:
    assert cpu_session(MODELS_DIR / INDEX_READER, threads=1).get_session_options().intra_op_num_threads == 1


@pytest.mark.parametrize("threads", [0, 2])
def test_the_zone_detectors_sessions_take_turns_without_spinning(threads: int) -> None:
    """Stage 1 and the readers alternate within one detection: a spinning pool of one
    would hold the cores the next one needs."""
    detector = CardDetector.for_zones(MODELS_DIR, threads=threads)
    sessions = [detector.detector.session, detector.index_reader.session]  # type: ignore[attr-defined]
    if detector.chip_reader is not None:
        sessions.append(detector.chip_reader.session)
    for session in sessions:
        for key, value in NO_SPINNING.items():
            assert _config(session, key) == value
