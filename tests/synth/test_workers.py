"""Jobs run in worker processes (synth data, font crops): order, and a worker that dies."""

from __future__ import annotations

import os

import pytest

from assistant.cli import CommandError
from assistant.synth.cli import _writing
from assistant.synth.dataset import WorkerDiedError, run_jobs


def _square(k: int) -> int:
    return k * k


def _die_at_three(k: int) -> int:
    if k == 3:
        os._exit(9)  # as the kernel's out-of-memory killer ends a worker: no exception, no result
    return k


def _fail_at_two(k: int) -> int:
    if k == 2:
        raise ValueError("job 2 cannot be drawn")
    return k


def test_jobs_run_in_processes_come_back_in_order_with_their_progress() -> None:
    seen: list[tuple[int, int]] = []
    assert run_jobs(_square, list(range(7)), 2, lambda done, total: seen.append((done, total))) == [
        k * k for k in range(7)
    ]
    assert seen == [(k, 7) for k in range(1, 8)]


@pytest.mark.timeout(120)  # multiprocessing.Pool, used before, waited here for ever
def test_a_worker_that_dies_stops_the_run_with_a_clear_error_instead_of_waiting_for_ever() -> None:
    with pytest.raises(WorkerDiedError, match=r"died before its job was done \(6 jobs of _die_at_three"):
        run_jobs(_die_at_three, list(range(6)), 2, None)


def test_an_error_raised_in_a_job_reaches_the_caller_as_itself() -> None:
    with pytest.raises(ValueError, match="job 2 cannot be drawn"):
        run_jobs(_fail_at_two, list(range(5)), 2, None)


def test_a_synth_command_reports_a_dead_worker_as_its_error() -> None:
    with pytest.raises(CommandError, match="was it killed for memory"), _writing("the dataset"):
        raise WorkerDiedError("a worker process died (4 jobs of x in 2 processes); was it killed for memory?")
