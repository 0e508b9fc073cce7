"""What every service call gets: the store, who this instance is, and who is calling."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..runtime.eval_loop import EvalLoop, Job
from ..runtime.host import Runtime
from ..runtime.prestart import Prestart
from ..runtime.providers.function import FunctionModels
from ..settings import Settings
from ..store.db import Database
from ..store.instance import Identity

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class Caller:
    """The principal behind a request: the token's user (or a service), and what the token
    may do (`admin`: the instance's own token; `member`: a key minted for another user)."""

    kind: str
    id: str
    role: str = "admin"


_CALLER: ContextVar[Caller | None] = ContextVar("kindgi_dev_caller", default=None)


@contextmanager
def acting_as(caller: Caller) -> Iterator[None]:
    """Service calls made inside the block (and the threads they hand work to) act for
    `caller`; outside one, for the instance's own user."""
    token = _CALLER.set(caller)
    try:
        yield
    finally:
        _CALLER.reset(token)


@dataclass
class ModelState:
    """What model calls reuse: the pack's `[tool]` table, the function models, one client."""

    pyproject_tool: tuple[int, dict[str, Any]] | None = None
    function_models: tuple[tuple[Path, int], FunctionModels] | None = None
    http_client: httpx.AsyncClient | None = None


@dataclass
class Context:
    """The services' shared state for one running instance.

    `pack_service_token`, `prestarted_index` and `on_pack_service` are what `kindgi dev`
    hands over before the runtime starts; the task maps let a cancel stop work in flight.
    """

    db: Database
    identity: Identity
    settings: Settings
    runtime: Runtime | None = None
    pack_service_token: str | None = None
    prestarted_index: Prestart | None = None
    on_pack_service: Callable[[], None] | None = None
    models: ModelState = field(default_factory=ModelState)
    run_tasks: dict[str, asyncio.Task[Any]] = field(default_factory=dict)
    home: asyncio.AbstractEventLoop | None = None
    """The API's event loop (set when the app starts): eval runs started from a worker
    thread send their network calls back to it."""
    eval_loop: EvalLoop | None = None
    eval_tasks: dict[str, Job] = field(default_factory=dict)
    eval_concurrency: dict[str, int] = field(default_factory=dict)
    idempotency_in_flight: set[str] = field(default_factory=set)

    @property
    def tenant_id(self) -> str:
        """The one tenant of this instance."""
        return self.identity.tenant_id

    def away(self) -> EvalLoop | None:
        """The eval loop when the caller runs on it (its network calls go to the API's
        loop), else None."""
        loop = self.eval_loop
        return loop if loop is not None and loop.on_worker() else None

    def writer_if_free(self) -> AbstractContextManager[bool]:
        """The store's writer held, if no write is in flight (see `Database.writer_if_free`)."""
        return self.db.writer_if_free()

    @property
    def caller(self) -> Caller:
        """Who the request in progress acts for: the instance's user unless its token was a
        key minted for another user (see `acting_as`)."""
        return _CALLER.get() or Caller("user", self.identity.user_id)
