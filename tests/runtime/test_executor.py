"""The eval-run executor: each case × repetition once, a bounded number at a time, with a
bounded number of tasks however many cases there are."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kindgi_dev.runtime.executor import execute


def test_every_case_s_repetitions_end_together_and_a_failing_one_is_counted() -> None:
    seen: dict[int, list[Any]] = {}

    async def work(index: int, repetition: int) -> str:
        await asyncio.sleep(0)
        if (index, repetition) == (2, 1):
            raise ValueError("no answer")
        return f"{index}.{repetition}"

    def finished(index: int, results: list[Any]) -> None:
        seen[index] = results

    asyncio.run(execute(5, 2, work, finished, concurrency=3, skip=frozenset({3})))
    assert sorted(seen) == [0, 1, 2, 4]
    assert seen[0] == ["0.0", "0.1"]
    assert seen[2][0] == "2.0"
    assert isinstance(seen[2][1], ValueError)


def test_a_thousand_cases_hold_no_more_tasks_than_the_concurrency() -> None:
    """The memory an eval run holds must not grow with its cases: no task per case."""
    in_flight = 0
    most_in_flight = 0
    most_tasks = 0
    done = []

    async def work(index: int, repetition: int) -> int:
        nonlocal in_flight, most_in_flight, most_tasks
        in_flight += 1
        most_in_flight = max(most_in_flight, in_flight)
        most_tasks = max(most_tasks, len(asyncio.all_tasks()))
        await asyncio.sleep(0)
        in_flight -= 1
        return index

    asyncio.run(execute(1000, 1, work, lambda i, _: done.append(i), concurrency=4))
    assert sorted(done) == list(range(1000))
    assert most_in_flight == 4
    assert most_tasks <= 5  # the workers and the one awaiting them


def test_a_failing_finish_stops_the_other_workers() -> None:
    started = []

    async def work(index: int, repetition: int) -> int:
        started.append(index)
        await asyncio.sleep(0.01)
        return index

    def finished(index: int, results: list[Any]) -> None:
        raise RuntimeError("the store is gone")

    async def main() -> None:
        with pytest.raises(RuntimeError):
            await execute(100, 1, work, finished, concurrency=2)
        await asyncio.sleep(0.05)

    asyncio.run(main())
    assert len(started) <= 3
