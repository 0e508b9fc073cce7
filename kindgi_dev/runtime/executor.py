"""The eval-run executor: every case × repetition, a bounded number at a time, cancellable.

It knows nothing of suites or scores: `work(case_index, repetition)` replays one, and
`finished(case_index, results)` gets a case's repetitions once all of them are done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

Work = Callable[[int, int], Awaitable[Any]]
Finished = Callable[[int, list[Any]], Awaitable[None] | None]


async def execute(
    cases: int,
    repetitions: int,
    work: Work,
    finished: Finished,
    *,
    concurrency: int,
    skip: frozenset[int] = frozenset(),
) -> None:
    """Run every case's repetitions with at most `concurrency` at once; a case errs alone."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(index: int, repetition: int) -> Any:
        async with gate:
            try:
                return await work(index, repetition)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a case's replay failing is counted, not fatal
                return error

    async def case(index: int) -> None:
        results = await asyncio.gather(*(one(index, r) for r in range(repetitions)))
        outcome = finished(index, list(results))
        if asyncio.iscoroutine(outcome):
            await outcome

    await asyncio.gather(*(case(i) for i in range(cases) if i not in skip))
