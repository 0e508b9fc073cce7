"""The eval-run executor: every case × repetition, a bounded number at a time, cancellable.

It knows nothing of suites or scores: `work(case_index, repetition)` replays one, and
`finished(case_index, results)` gets a case's repetitions once all of them are done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

Result = TypeVar("Result")


async def execute(
    cases: int,
    repetitions: int,
    work: Callable[[int, int], Awaitable[Result]],
    finished: Callable[[int, Sequence[Result | Exception]], Awaitable[None] | None],
    *,
    concurrency: int,
    skip: frozenset[int] = frozenset(),
) -> None:
    """Run every case's repetitions with at most `concurrency` at once; a case errs alone.

    `concurrency` workers take the next case × repetition in turn, so what is held stays the
    same however many cases there are (a task per case held thousands at once).
    """
    units = ((i, r) for i in range(cases) if i not in skip for r in range(repetitions))
    pending: dict[int, list[Result | Exception | None]] = {}
    left: dict[int, int] = {}

    async def one(index: int, repetition: int) -> Result | Exception:
        try:
            return await work(index, repetition)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a case's replay failing is counted, not fatal
            return error

    async def worker() -> None:
        for index, repetition in units:  # one generator: each unit is taken once
            results = pending.setdefault(index, [None] * repetitions)
            left.setdefault(index, repetitions)
            results[repetition] = await one(index, repetition)
            left[index] -= 1
            if left[index]:
                continue
            del pending[index], left[index]
            outcome = finished(index, [r for r in results if r is not None])
            if asyncio.iscoroutine(outcome):
                await outcome

    workers = [asyncio.ensure_future(worker()) for _ in range(max(1, concurrency))]
    try:
        await asyncio.gather(*workers)
    finally:
        for each in workers:  # one failing stops the others
            each.cancel()
