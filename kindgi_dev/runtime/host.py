"""The runtime the services see as `ctx.runtime`: the pack's index, its pack service, reloads.

At start it takes over what `kindgi dev` began before its imports (`prestart.py`: the
index, cached or being made, and its pack service), or indexes the pack and starts the
service itself, and hands the index to `on_index` (which registers the versions). With
watching on, every save is re-indexed into a staging file and registered at once, then
served by a new pack service before the old one stops (a tool call waits for it); a save
that fails is reported and the last good index and service keep serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import time
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..domain.semver import sort_key
from ..settings import Settings
from .pack import (
    PackIndex,
    PackLoadFailed,
    file_error,
    index_pack,
    pack_python,
    publish_index,
)
from .pack_service import InvokeOutcome, PackService, PackServiceFailed
from .prestart import Prestart
from .providers import ProviderConfig, ProviderConfigInvalid
from .watcher import PackWatcher

log = logging.getLogger("kindgi_dev.runtime")

PACK_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,}$")
RETRY_ON_NEW_SERVICE = ("pack-service-unavailable", "pack-service-unreachable")

Progress = Callable[[str, float], None]
Printer = Callable[[str], None]
OnIndex = Callable[[PackIndex], list[str]]


class Runtime:
    """The pack as kindgi dev runs it: current index, current pack service, the watcher."""

    def __init__(
        self,
        settings: Settings,
        on_index: OnIndex,
        pack_service_token: str | None,
        printer: Printer,
        *,
        on_pack_service: Callable[[], None] | None = None,
        models_changed: Callable[[Path], None] | None = None,
        prestarted: Prestart | None = None,
    ) -> None:
        self.settings = settings
        self.prestarted = prestarted
        self._prestarted_index = prestarted
        self.pack_dir = settings.pack_dir.resolve()
        self.python = pack_python(self.pack_dir)
        valid = pack_service_token is not None and PACK_TOKEN.match(pack_service_token)
        self.pack_service_token: str = (
            pack_service_token if valid and pack_service_token else secrets.token_urlsafe(32)
        )
        self.models_file: Path | None = find_models_file(settings)
        self._on_index = on_index
        self._print = printer
        self._on_pack_service = on_pack_service
        self._models_changed = models_changed
        self._index: PackIndex | None = None
        self._service: PackService | None = None
        self._watcher: PackWatcher | None = None
        self._booting: asyncio.Task[PackService | None] | None = None
        self._problem: str | None = "the pack is loading"

    @property
    def index(self) -> PackIndex | None:
        """The last good index, or None before the pack has indexed once."""
        return self._index

    async def start(self, progress: Progress | None = None) -> None:
        """Index, start the pack service, register; then watch. A failure keeps kindgi dev up."""
        report = progress or (lambda label, seconds: None)
        if not (self.pack_dir / "pyproject.toml").is_file():
            self._problem = None
            self._print(f"  · no pack in {self.pack_dir} (no pyproject.toml): nothing to index")
            return
        began = time.perf_counter()
        try:
            index = await self._index_pack(reuse=True)
        except PackLoadFailed as error:
            self._problem = f"the pack failed to index: {error.describe()}"
            self._print(f"  ✗ indexer: {error.describe()}")
            if self.settings.watch:
                self._print(
                    "    kindgi dev keeps serving the API; fix it and save to load the pack"
                )
        else:
            counts = (
                f"{len(index.tools)} tools, {len(index.agents)} agents, {len(index.flows)} flows"
            )
            early = self.prestarted
            how = "from the index cache (no file changed)" if early and early.cached else "indexed"
            report(
                f"pack: {index.pack_id} {index.pack_version} {how} — {counts}",
                early.took_s if early else time.perf_counter() - began,
            )
            for file_error in index.file_errors:
                self._print(f"  ⚠ indexer: {_file_warning(file_error, self.pack_dir)}")
            await self._first_boot(index, report)
        if self.settings.watch:
            extra = [self.models_file] if self.models_file else []
            self._watcher = PackWatcher(self.pack_dir, self.reload, extra_files=extra)
            self._watcher.start()

    async def _first_boot(self, index: PackIndex, report: Progress) -> None:
        """Serve the first index: its pack service (when it has tools), then registration."""
        service = None
        self._problem = None
        if index.tools or index.guardrails:
            try:
                service = await self._start_service(index)
                report(f"pack service on 127.0.0.1:{service.port}", service.boot_s)
            except PackServiceFailed as error:
                self._problem = f"the pack service is not running: {error.message}"
                self._print(f"  ✗ pack service: {error.message}")
        self._swap_in(index, service)
        for line in self._on_index(self._index or index):
            self._print(f"  {line}")

    async def reload(self, changed: set[Path]) -> None:
        """React to saved files: models only → `models_changed`; otherwise load the pack again."""
        pack_changes = {p for p in changed if self.models_file is None or p != self.models_file}
        if len(pack_changes) < len(changed) and self.models_file is not None:
            self._reload_models(self.models_file)
        if not pack_changes:
            return
        began = time.perf_counter()
        try:
            index = await self._index_pack(reuse=True)
            problem = index.problem(self.pack_dir)
            if problem is not None:
                raise problem
        except PackLoadFailed as error:
            self._print(f"  ✗ refresh failed [{error.wire_code}] {_describe(error)}")
            return
        # Loaded (listed) as soon as indexed and registered: the new pack service boots
        # meanwhile (~0.25 s), and a tool call made before it listens waits for it.
        previous, self._index = self._index, index
        self._booting = booting = asyncio.create_task(self._serve_next(index))
        try:
            warnings = self._on_index(index)
            elapsed = round((time.perf_counter() - began) * 1000)
            self._print(f"  ✓ loaded {_counts(index)} in {elapsed}ms")
            for line in warnings:
                self._print(f"  {line}")
            old = await booting
        except PackServiceFailed as error:
            self._index = previous
            self._print(f"  ✗ refresh failed [{error.wire_code}] {_describe(error)}")
            return
        except BaseException:
            with contextlib.suppress(PackServiceFailed):
                if (replaced := await booting) is not None:
                    await replaced.stop()
            raise
        finally:
            self._booting = None
        self._problem = None
        try:
            self._notify_pack_service()
        finally:
            if old is not None:
                await old.stop()

    async def _serve_next(self, index: PackIndex) -> PackService | None:
        """Start the pack service of a new index (when it has tools or guardrails) and swap
        both in; the previous service, to stop."""
        serves = index.tools or index.guardrails
        return self._swap_in(index, await self._start_service(index) if serves else None)

    async def _serving(self) -> PackService | None:
        """The current pack service, once a reload's new one has booted (or failed to)."""
        booting = self._booting
        if booting is not None:
            with contextlib.suppress(PackServiceFailed):
                await asyncio.shield(booting)
        return self._service

    def _swap_in(self, index: PackIndex, service: PackService | None) -> PackService | None:
        """Publish the index, make `service` the current one; the previous service."""
        self._index = publish_index(index, self.pack_dir)
        if service is not None:
            service.index_path = self._index.path
        old, self._service = self._service, service
        return old

    def _reload_models(self, path: Path) -> None:
        """Tell `models_changed` the models file was saved, and say how that went."""
        if self._models_changed is None:
            return
        began = time.perf_counter()
        try:
            self._models_changed(path)
        except Exception as error:
            self._print(f"  ✗ models: {path.name}: {error}")
            return
        elapsed = round((time.perf_counter() - began) * 1000)
        self._print(f"  ✓ models reloaded from {path.name} in {elapsed}ms")

    async def _index_pack(self, *, reuse: bool = False) -> PackIndex:
        """Index into the staging file (the models file is not pack code, so not checked);
        at start (`reuse`), the cached index when no file changed since it was made."""
        skip = [self.models_file] if self.models_file else []
        prestarted, self._prestarted_index = self._prestarted_index, None
        if prestarted is not None:  # the first: what `kindgi dev` began before its imports
            return await prestarted.indexed(skip)
        return await index_pack(
            self.pack_dir,
            python=self.python,
            env=self.settings.env,
            publish=False,
            skip=skip,
            reuse=reuse,
        )

    async def _start_service(self, index: PackIndex) -> PackService:
        """A new pack service for `index`, listening; `PackServiceFailed` if it doesn't start."""
        service = PackService(
            index_path=index.path,
            module_root=self.pack_dir,
            python=self.python,
            token=self.pack_service_token,
            printer=self._print,
            env=self.settings.env,
            log_level=self.settings.log_level,
            on_restart=lambda port: self._notify_pack_service(),
        )
        await service.start(self.prestarted.take_service() if self.prestarted else None)
        return service

    def _notify_pack_service(self) -> None:
        """Tell kindgi dev the pack service's port changed (it rewrites `.kindgirc.json`)."""
        if self._on_pack_service is None:
            return
        try:
            self._on_pack_service()
        except Exception:
            log.exception("the pack-service hook failed")

    async def stop(self) -> None:
        """Stop watching (a running reload finishes), then the pack service."""
        if self.prestarted is not None:
            self.prestarted.close()
        if self._watcher is not None:
            await self._watcher.stop()
            self._watcher = None
        if self._service is not None:
            await self._service.stop()
            self._service = None

    def not_ready(self) -> str | None:
        """Why runs can't be served yet (index or pack service missing), or None."""
        return self._problem

    def pack_service_port(self) -> int | None:
        """The current pack service's port, or None when none runs."""
        return self._service.port if self._service is not None else None

    def agent_ids(self) -> list[str]:
        """The ids of the agents in the current index."""
        return sorted({str(a["id"]) for a in self._index.agents}) if self._index else []

    def tool_manifest(self, tool_id: str, version: str | None = None) -> dict[str, Any] | None:
        """A tool's entry in the current index (its highest version when none is named)."""
        if self._index is None:
            return None
        found = [t for t in self._index.tools if t["id"] == tool_id]
        if version is not None:
            found = [t for t in found if t.get("version") == version]
        if not found:
            return None
        highest = max(found, key=lambda t: _version_key(str(t.get("version", ""))))
        return dict(highest)

    def guardrails(self) -> list[dict[str, Any]]:
        """The guardrails of the current index, as the SDK indexed them."""
        return [dict(g) for g in self._index.guardrails] if self._index else []

    async def check(
        self,
        check_id: str,
        config: Mapping[str, Any],
        trace: Mapping[str, Any],
        *,
        run_id: str,
        request_id: str,
    ) -> InvokeOutcome:
        """Run a guardrail's check in the current pack service."""
        service = await self._serving()
        if service is None:
            why = self._problem or "the pack has no guardrails"
            return InvokeOutcome.failure("pack-service-unavailable", f"no pack service runs: {why}")
        return await service.check(check_id, config, trace, run_id=run_id, request_id=request_id)

    async def invoke(
        self,
        tool_id: str,
        version: str | None,
        input: Any,
        *,
        tenant_id: str,
        project_id: str | None,
        run_id: str,
        request_id: str,
        env: Mapping[str, str] | None = None,
        timeout_ms: int = 120_000,
        step_scope: str | None = None,
        settings: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> InvokeOutcome:
        """Run a tool call in the current pack service; once more on a new one after a swap."""
        service = await self._serving()
        if service is None:
            why = self._problem or "the pack has no tools"
            return InvokeOutcome.failure("pack-service-unavailable", f"no pack service runs: {why}")

        async def attempt(target: PackService) -> InvokeOutcome:
            return await target.invoke(
                tool_id,
                version,
                input,
                tenant_id=tenant_id,
                project_id=project_id,
                run_id=run_id,
                request_id=request_id,
                env=env,
                timeout_ms=timeout_ms,
                step_scope=step_scope,
                settings=settings,
            )

        outcome = await attempt(service)
        current = self._service
        if outcome.code in RETRY_ON_NEW_SERVICE and current is not None and current is not service:
            outcome = await attempt(current)
        return outcome

    def models_summary(self) -> str:
        """Which models can answer: the function-models file, and providers configured by env."""
        found = []
        if self.models_file is not None:
            missing = "" if self.models_file.is_file() else " (missing)"
            found.append(f"function models from {_shown(self.models_file, self.pack_dir)}{missing}")
        env = {**os.environ, **self.settings.env}
        try:
            tool = tomllib.loads((self.pack_dir / "pyproject.toml").read_text()).get("tool", {})
            config = ProviderConfig.from_env_and_pyproject(env, tool)
        except (OSError, tomllib.TOMLDecodeError, ProviderConfigInvalid) as error:
            found.append(f"providers unreadable ({error})")
        else:
            named = (("OpenAI-compatible", config.openai), ("Anthropic", config.anthropic))
            for name, http in named:
                if http.usable:
                    key = "" if http.has_key else ", no key"
                    found.append(f"{name} {http.model} at {http.base_url}{key}")
        if not found:
            return (
                'none yet — set [tool.kindgi-dev] models = "dev_models.py", '
                "OPENAI_API_KEY or ANTHROPIC_API_KEY"
            )
        return " · ".join(found)


def find_models_file(settings: Settings) -> Path | None:
    """`--models`, else `[tool.kindgi-dev] models` of the pack's pyproject.toml (pack-relative)."""
    if settings.models_file is not None:
        return settings.models_file.resolve()
    try:
        config = tomllib.loads((settings.pack_dir / "pyproject.toml").read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    named = config.get("tool", {}).get("kindgi-dev", {}).get("models")
    return (settings.pack_dir / named).resolve() if isinstance(named, str) and named else None


def _counts(index: PackIndex) -> str:
    """`N primitives (T tools, G guardrails, A agents, F flows)`."""
    return (
        f"{index.primitive_count} primitives ({len(index.tools)} tools, "
        f"{len(index.guardrails)} guardrails, {len(index.agents)} agents, "
        f"{len(index.flows)} flows)"
    )


def _describe(error: PackLoadFailed | PackServiceFailed) -> str:
    """Where and what, for a reload that failed."""
    return error.describe() if isinstance(error, PackLoadFailed) else error.message


def _file_warning(error: dict[str, Any], pack_dir: Path) -> str:
    """`<file>:<line>: [<code>] <message>` for a file the indexer skipped."""
    failed = file_error(error, pack_dir)
    where = f"{failed.where}: " if failed.where else ""
    return f"{where}[{failed.wire_code}] {failed.message}"


def _version_key(version: str) -> tuple[Any, ...]:
    """Semver order; a version that isn't semver sorts first."""
    try:
        return sort_key(version)
    except ValueError:
        return (-1, -1, -1, 0, ((1, 0, version),))


def _shown(path: Path, base: Path) -> str:
    """A path relative to the pack when it lies inside it."""
    return str(path.relative_to(base)) if path.is_relative_to(base) else str(path)
