"""A quick function model called on the eval loop's own thread: a replay's model call
with no thread hop, while the model's calls stay quick."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import replace

from ...models import Reply, Turn
from ...runtime.providers.function import FunctionModelAdapter

SLOW_CALL_S = 0.05
"""A function model call longer than this blocks (it sleeps or waits on I/O): its next
call goes to a worker thread, so a cancel or another replay never waits behind one."""


class InlineWhileQuick:
    """A function model called on the eval loop itself, with no thread hop, while its
    calls are quick (a deterministic model's are microseconds); in a worker thread, as a
    live run calls it, after a slow call, and back inline once a call in the thread was
    quick again (a call that only waited for the GIL on a busy machine looks slow once)."""

    def __init__(self, adapter: FunctionModelAdapter) -> None:
        self._inline = replace(adapter, inline=True)
        self._threaded = adapter
        if not inspect.iscoroutinefunction(adapter.function):
            self._threaded = replace(adapter, function=self._timed(adapter.function))
        self.slow = False

    @property
    def provider_id(self) -> str:
        """The function model's provider id."""
        return self._threaded.provider_id

    @property
    def model(self) -> str:
        """The function model's name."""
        return self._threaded.model

    async def next_step(self, turn: Turn) -> Reply:
        """The function's answer, on this thread while its calls are quick."""
        if self.slow:
            return await self._threaded.next_step(turn)
        began = time.perf_counter()
        try:
            return await self._inline.next_step(turn)
        finally:
            self.slow = time.perf_counter() - began > SLOW_CALL_S

    def _timed(self, function: Callable[[Turn], object]) -> Callable[[Turn], object]:
        """`function`, saying after each call in the worker thread whether it was slow."""

        def timed(turn: Turn) -> object:
            began = time.perf_counter()
            try:
                return function(turn)
            finally:
                self.slow = time.perf_counter() - began > SLOW_CALL_S

        return timed
