"""The SDK's pack service as a supervised child: start, invoke tools over protocol v2, stop.

`python -m kindgi.pack serve` runs the pack's tool handlers in its own process, on a free
loopback port with a token. Its JSON log lines on stderr tell the port it listens on and
are shown on our stderr as `[pack] …`; a child that dies unexpectedly is started again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.errors import KindgiError
from . import loopback_http
from .pack_child import (
    HOST,
    Adopted,
    Child,
    Spawned,
    child_env,
    die_with_parent,
    reader,
    service_command,
)
from .pack_log import LEVELS, readable

__all__ = ["InvokeOutcome", "PackService", "PackServiceFailed", "idempotency_key", "readable"]

BOOT_TIMEOUT_S = 15.0
STOP_GRACE_S = 8.0
MAX_RESTARTS = 5
STABLE_AFTER_S = 10.0
"""A child that ran this long before exiting resets the count of restarts in a row."""
IDEMPOTENCY_NAMESPACE = uuid.UUID("a70d5bff-e713-4322-b2ea-9d5c4926a861")
Printer = Callable[[str], None]


class PackServiceFailed(KindgiError):
    """The pack service did not start."""

    status = 503
    code = "pack-service-boot-failed"


if TYPE_CHECKING:
    from ..domain.json import JSON, JSONObject


@dataclass(frozen=True)
class InvokeOutcome:
    """What one tool call came to: its output, or an error code and message."""

    ok: bool
    output: JSON = None
    code: str | None = None
    message: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def failure(cls, code: str, message: str, **details: Any) -> InvokeOutcome:
        """An error outcome: a v2 error message, or kindgi dev's own for a transport failure."""
        return cls(ok=False, code=code, message=message, details=details)


def idempotency_key(run_id: str, step_scope: str, tool_id: str) -> str:
    """UUIDv5 of the compact JSON `[runId, stepScope, toolId]`, as protocol v2 defines it."""
    name = json.dumps([run_id, step_scope, tool_id], separators=(",", ":"), ensure_ascii=False)
    return str(uuid.uuid5(IDEMPOTENCY_NAMESPACE, name))


class PackService:
    """One supervised `python -m kindgi.pack serve` child serving one index."""

    def __init__(
        self,
        *,
        index_path: Path,
        module_root: Path,
        python: str,
        token: str,
        printer: Printer,
        env: Mapping[str, str] | None = None,
        log_level: str = "info",
        on_restart: Callable[[int], None] | None = None,
    ) -> None:
        self.index_path = index_path
        self.module_root = module_root
        self.python = python
        self.token = token
        self.port: int | None = None
        self.boot_s = 0.0
        self._listened_at = 0.0
        self._print = printer
        self._env = dict(env or {})
        self._log_level = log_level if log_level in LEVELS else "info"
        self._on_restart = on_restart
        self._process: Child | None = None
        self._pumps: list[asyncio.Task[None]] = []
        self._listening: asyncio.Future[int] | None = None
        self._problems: list[str] = []
        self._supervisor: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def pid(self) -> int | None:
        """The running child's process id."""
        return self._process.pid if self._process else None

    async def start(self, prestarted: Spawned | None = None) -> int:
        """Start the child, or take over the one `kindgi dev` started early (`prestarted`),
        and wait until it listens; its port, or `PackServiceFailed`. `boot_s` is then how
        long the child took from its start to listening, by the time its record gives."""
        began = time.time() if prestarted is None else prestarted.at
        try:
            self.port = await (
                self._spawn() if prestarted is None else self._adopt(prestarted.process)
            )
        except BaseException:
            self._stopping = True
            await self._terminate()
            raise
        self.boot_s = max(self._listened_at - began, 0.0)
        self._supervisor = asyncio.create_task(self._supervise())
        return self.port

    async def stop(self) -> None:
        """SIGTERM the child (it drains), kill it after 8 s, and close the connections."""
        self._stopping = True
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        await self._terminate()
        self.port = None

    async def _terminate(self) -> None:
        """SIGTERM the child, SIGKILL it if it hasn't exited after the grace period."""
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), STOP_GRACE_S)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        await self._close_pumps()

    async def _spawn(self) -> int:
        """Start one child; its port once its `listening` record arrives."""
        process = await asyncio.create_subprocess_exec(
            *service_command(self.python, self.index_path, self.module_root),
            cwd=self.module_root,
            env=child_env(self.token, self._env, self._log_level),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        assert process.stdout is not None and process.stderr is not None
        return await self._boot(process, process.stderr, process.stdout)

    async def _adopt(self, prestarted: subprocess.Popen[bytes]) -> int:
        """Take over a child `pack_child.spawn` started; its port once it listens."""
        assert prestarted.stdout is not None and prestarted.stderr is not None
        process = Adopted(prestarted)
        stderr, stdout = await reader(prestarted.stderr), await reader(prestarted.stdout)
        return await self._boot(process, stderr, stdout)

    async def _boot(
        self, process: Child, stderr: asyncio.StreamReader, stdout: asyncio.StreamReader
    ) -> int:
        """Forward the child's streams and wait for its `listening` record; its port."""
        self._listening = asyncio.get_running_loop().create_future()
        self._problems = []
        self._process = process
        self._pumps = [
            asyncio.create_task(self._pump(stderr, parse=True)),
            asyncio.create_task(self._pump(stdout, parse=False)),
        ]
        exited = asyncio.create_task(process.wait())
        try:
            await asyncio.wait(
                {self._listening, exited},
                timeout=BOOT_TIMEOUT_S,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            exited.cancel()
        if self._listening.done():
            return self._listening.result()
        return await self._boot_failed(process)

    async def _boot_failed(self, process: Child) -> int:
        """Raise why the child did not listen: it exited (with its problems), or it hung."""
        if process.returncode is None:
            await self._terminate()
            raise PackServiceFailed(
                f"the pack service did not start listening within {BOOT_TIMEOUT_S:.0f} s"
            )
        await self._close_pumps()
        why = "; ".join(self._problems) or "see the [pack] lines above"
        raise PackServiceFailed(
            f"the pack service exited ({describe_exit(process.returncode)}) before listening: {why}"
        )

    async def _pump(self, stream: asyncio.StreamReader, *, parse: bool) -> None:
        """Forward a child stream line by line; on stderr, also watch for lifecycle records."""
        while line := await stream.readline():
            text = line.decode("utf-8", "replace").rstrip("\n")
            if parse:
                self._note(text)
                shown = readable(text, self._log_level)
            else:
                shown = f"[pack] {text}" if text.strip() else None
            if shown is not None:
                self._print(shown)

    def _note(self, text: str) -> None:
        """The port from `listening`; the problems from `boot-failed` / `config-invalid`."""
        if not text.startswith("{"):
            return
        try:
            record = json.loads(text)
        except ValueError:
            return
        event = record.get("event") or record.get("kind")
        if event == "listening" and self._listening and not self._listening.done():
            self._listened_at = _moment(record.get("time"))
            self._listening.set_result(int(record["port"]))
        elif event in ("boot-failed", "config-invalid"):
            self._problems.extend(str(p) for p in record.get("problems") or [])

    async def _close_pumps(self) -> None:
        """Let the stream readers finish what the child wrote (up to 1 s), then drop them."""
        pumps, self._pumps = self._pumps, []
        if pumps:
            _, pending = await asyncio.wait(pumps, timeout=1.0)
            for task in pending:
                task.cancel()

    async def _supervise(self) -> None:
        """Start the child again when it exits on its own; give up after 5 restarts in a row."""
        loop = asyncio.get_running_loop()
        restarts = 0
        while self._process is not None:
            started = loop.time()
            code = await self._process.wait()
            if self._stopping:
                return
            if loop.time() - started >= STABLE_AFTER_S:
                restarts = 0
            self.port = None
            if restarts >= MAX_RESTARTS:
                self._print(
                    f"  ✗ pack service kept exiting ({restarts} restarts) — "
                    "fix the code and save to retry"
                )
                return
            restarts += 1
            self._print(f"  ⚠ pack service exited ({describe_exit(code)}) — restarting")
            await self._close_pumps()
            with contextlib.suppress(PackServiceFailed, OSError):
                self.port = await self._spawn()
                if self._on_restart is not None:
                    self._on_restart(self.port)

    async def invoke(
        self,
        tool_id: str,
        version: str | None,
        input: JSON,
        *,
        tenant_id: str,
        project_id: str | None,
        run_id: str,
        request_id: str,
        env: Mapping[str, str] | None = None,
        timeout_ms: int = 120_000,
        step_scope: str | None = None,
        settings: Mapping[str, Mapping[str, JSON]] | None = None,
    ) -> InvokeOutcome:
        """Run one tool call in the pack service (protocol v2)."""
        ctx: JSONObject = {"tenantId": tenant_id, "runId": run_id}
        if project_id is not None:
            ctx["projectId"] = project_id
        ctx.update(
            requestId=request_id,
            idempotencyKey=idempotency_key(run_id, step_scope or request_id, tool_id),
            env=dict(env or {}),
            secrets={},
            config={},
            settings={k: dict(v) for k, v in (settings or {}).items()},
        )
        tool: JSONObject = {"id": tool_id, **({"version": version} if version else {})}
        body: JSONObject = {"v": 2, "kind": "invoke", "tool": tool, "input": input, "ctx": ctx}
        return await self._send(body, run_id, request_id, timeout_ms)

    async def check(
        self,
        check_id: str,
        config: Mapping[str, JSON],
        trace: Mapping[str, JSON],
        *,
        run_id: str,
        request_id: str,
        timeout_ms: int = 30_000,
    ) -> InvokeOutcome:
        """Run a guardrail check (`check-invoke`); its `CheckResult` is the outcome's output."""
        body: JSONObject = {
            "v": 2,
            "kind": "check-invoke",
            "check": {"id": check_id},
            "config": dict(config),
            "trace": dict(trace),
        }
        return await self._send(body, run_id, request_id, timeout_ms)

    async def _send(
        self, body: JSONObject, run_id: str, request_id: str, timeout_ms: int
    ) -> InvokeOutcome:
        """POST one message with protocol v2's headers; a 503 is tried once more."""
        headers = {
            "kindgi-pack-token": self.token,
            "kindgi-protocol": "2",
            "kindgi-timeout-ms": str(timeout_ms),
            "kindgi-run-id": run_id,
            "kindgi-request-id": request_id,
        }
        outcome = await self._post(body, headers, timeout_ms)
        if outcome.code in ("pack-service-unavailable", "pack-service-unreachable"):
            await asyncio.sleep(min(float(outcome.details.get("retryAfter", 0.25)), 1.0))
            outcome = await self._post(body, headers, timeout_ms)
        return outcome

    async def _post(
        self, body: JSONObject, headers: dict[str, str], timeout_ms: int
    ) -> InvokeOutcome:
        """One POST /v1/invoke, its answer read as an outcome."""
        if self.port is None or self._stopping:
            return InvokeOutcome.failure("pack-service-unavailable", "the pack service is down")
        try:
            response = await loopback_http.post_json(
                HOST, self.port, "/v1/invoke", body, headers, timeout_ms / 1000 + 5
            )
        except TimeoutError:
            return InvokeOutcome.failure(
                "deadline-exceeded", f"the pack service did not answer within {timeout_ms} ms"
            )
        except loopback_http.Unreachable as error:
            return InvokeOutcome.failure(
                "pack-service-unreachable", f"the pack service could not be reached: {error}"
            )
        return _read_answer(response)


def _read_answer(response: loopback_http.HttpAnswer) -> InvokeOutcome:
    """An invoke answer as an outcome: a v2 result or error, or a transport status."""
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if response.status == 503:
        why = answer.get("error") if isinstance(answer, dict) else None
        return InvokeOutcome.failure(
            "pack-service-unavailable",
            f"the pack service is not taking calls ({why or 'unavailable'})",
            retryAfter=response.headers.get("retry-after", "1"),
        )
    if response.status != 200 or not isinstance(answer, dict):
        why = answer.get("error") if isinstance(answer, dict) else response.text[:200]
        return InvokeOutcome.failure(
            "pack-service-error", f"the pack service answered HTTP {response.status}: {why}"
        )
    if answer.get("kind") == "result":
        return InvokeOutcome(ok=True, output=answer.get("output"))
    if answer.get("kind") == "check-result":
        return InvokeOutcome(ok=True, output=answer.get("result"))
    details = {k: v for k, v in answer.items() if k not in ("v", "kind", "code", "message")}
    return InvokeOutcome.failure(
        str(answer.get("code", "pack-service-error")),
        str(answer.get("message", "the tool call failed")),
        **details,
    )


def _moment(stamp: object) -> float:
    """A record's ISO `time` as seconds since the epoch; now when it has none."""
    if isinstance(stamp, str):
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(stamp).timestamp()
    return time.time()


def describe_exit(code: int | None) -> str:
    """`SIGKILL` for a signal, `exit 1` for an exit code."""
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            return signal.Signals(-code).name
    return f"exit {code}"
