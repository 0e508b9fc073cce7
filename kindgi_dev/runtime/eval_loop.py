"""Eval runs replay on a thread of their own with its own event loop.

A replay's work between awaits (the turn's JSON, scoring, SQLite writes) would otherwise
run on the API's loop, and every request (a poll of the run above all) would wait behind
it. Network calls (model providers, the pack service) stay on the API's loop, which owns
their clients: a replay sends them there with `at_home`.

Both loops share the GIL. A thread waiting for it gets it when the holder blocks, or once
the holder has run a switch interval (5 ms) with no other thread taking it; a replay makes
quick blocking calls all the time (each SQLite step, each uuid's `getrandom`), which take
it straight back and restart that wait, so a poll waited tens of milliseconds at each of
its own blocking calls. A replay therefore gives way every few cases (`Breather`), and
while the loop has a job the switch interval is `SWITCH_S`, which bounds the wait through
a stretch of pure Python (scoring a case, the summary's bootstrap).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from typing import ParamSpec, TypeVar

from ..models import Reply, Turn
from .providers.base import ModelAdapter

P = ParamSpec("P")
T = TypeVar("T")

GIVE_WAY_REPLAYS = 4
"""Replays between two breaths of a run: a zero sleep (about 70 µs, the kernel's timer
slack: long enough for a thread waiting for the GIL to take it) and a turn of the eval
loop (a quick function model's replays never suspend, so without it a cancel, or a page's
timer, waited for the run's end). Every replay cost 0.1 ms of wall time a case; every
fourth, a quarter of it, and a request waits at most about four replays for the GIL."""


class Breather:
    """Gives way every `GIVE_WAY_REPLAYS` replays: the GIL to a thread waiting for it, and
    the eval loop's turn to its other callbacks."""

    def __init__(self) -> None:
        self.replays = 0

    async def after_replay(self) -> None:
        """Called once a replay ended, on the eval loop."""
        self.replays += 1
        if self.replays % GIVE_WAY_REPLAYS == 0:
            time.sleep(0)
            await asyncio.sleep(0)


SWITCH_S = 0.0005
"""The GIL's switch interval while the eval loop has a job: a thread waiting for the GIL
through a stretch of pure Python with no blocking call (scoring a case, the summary's
bootstrap of 0.1–0.5 s) takes it after this long, not after the default 5 ms at each of
its blocking calls. It costs nothing while no other thread waits for the GIL."""


class Job:
    """One coroutine running on the eval loop, as the API's loop sees it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._task: asyncio.Task[object] | None = None
        self._ended: concurrent.futures.Future[None] = concurrent.futures.Future()

    def cancel(self) -> None:
        """Ask the coroutine to stop (its own cancellation handling still runs)."""
        self._loop.call_soon_threadsafe(self._cancel)

    def _cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def done(self) -> bool:
        """Whether the coroutine has ended, its cancellation handling included."""
        return self._ended.done()

    async def wait(self) -> None:
        """Until the coroutine has ended; a cancelled waiter leaves the job running."""
        await asyncio.shield(asyncio.wrap_future(self._ended))

    def add_done_callback(self, callback: Callable[[], object]) -> None:
        """Call `callback()` once the coroutine has ended (on the eval loop's thread)."""
        self._ended.add_done_callback(lambda _: callback())

    def _begin(self, coro: Coroutine[object, object, object]) -> None:
        self._task = self._loop.create_task(coro)
        self._task.add_done_callback(self._end)

    def _end(self, task: asyncio.Task[object]) -> None:
        if not task.cancelled():
            task.exception()  # retrieved: the coroutine records its own failures
        self._ended.set_result(None)


class EvalLoop:
    """A daemon thread running an event loop for eval runs, beside the API's (`home`)."""

    def __init__(self, home: asyncio.AbstractEventLoop) -> None:
        self.home = home
        self._loop = asyncio.new_event_loop()
        self._jobs = 0  # begun and not ended, counted on the loop's thread
        self._interval = sys.getswitchinterval()  # put back once the last job ends
        self._thread = threading.Thread(target=self._serve, name="kindgi-eval-runs", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
            self._loop.run_until_complete(self._loop.shutdown_default_executor())
        finally:
            self._loop.close()

    def start(self, coro: Coroutine[object, object, object]) -> Job:
        """Run `coro` on the eval loop; its `Job` cancels it and waits for its end."""
        job = Job(self._loop)
        self._loop.call_soon_threadsafe(self._begin, job, coro)
        return job

    def _begin(self, job: Job, coro: Coroutine[object, object, object]) -> None:
        """On the loop's thread: the first of the jobs running sets `SWITCH_S`, the last
        one's end puts the interval back."""
        if self._jobs == 0:
            self._interval = sys.getswitchinterval()
            sys.setswitchinterval(SWITCH_S)
        self._jobs += 1
        job.add_done_callback(self._ended)
        job._begin(coro)

    def _ended(self) -> None:
        self._jobs -= 1
        if self._jobs == 0:
            sys.setswitchinterval(self._interval)

    def on_worker(self) -> bool:
        """Whether the caller runs on the eval loop's thread."""
        return threading.get_ident() == self._thread.ident

    async def at_home(self, coro: Coroutine[object, object, T]) -> T:
        """Await `coro` on the API's loop (from the eval loop); cancelling this cancels it."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.home))

    def sent_home(
        self, call: Callable[P, Coroutine[object, object, T]]
    ) -> Callable[P, Coroutine[object, object, T]]:
        """`call`, awaited on the API's loop whenever it is called."""

        async def at_home(*args: P.args, **kwargs: P.kwargs) -> T:
            return await self.at_home(call(*args, **kwargs))

        return at_home

    def close(self) -> None:
        """Stop the loop and its thread (once every job has ended)."""
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()


class AtHome:
    """A model adapter whose calls run on the API's loop, where its HTTP client lives."""

    def __init__(self, adapter: ModelAdapter, loop: EvalLoop) -> None:
        self._adapter = adapter
        self._loop = loop

    @property
    def provider_id(self) -> str:
        """The wrapped adapter's provider."""
        return self._adapter.provider_id

    @property
    def model(self) -> str:
        """The wrapped adapter's model."""
        return self._adapter.model

    async def next_step(self, turn: Turn) -> Reply:
        """The wrapped adapter's answer, asked on the API's loop."""
        return await self._loop.at_home(self._adapter.next_step(turn))
