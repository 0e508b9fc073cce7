"""The pytest plugin: a `kindgi_dev` fixture that runs `kindgi dev` on your pack for your tests.

It copies the pack (the test run's rootdir, or `--kindgi-pack`) to a temp folder, so the
database is a throwaway one and a `kindgi dev` you have running on the pack is left alone;
starts `kindgi dev` there on a free port; waits for `/health`; and stops it at the end.
Session scope by default; `--kindgi-dev-scope=function` (or the `kindgi_dev_scope` ini
option) gives each test its own.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import httpx
import pytest

from .domain.json import JSON, JSONObject
from .domain.paired import Interval
from .try_results import Metric, TryResult, try_result

if TYPE_CHECKING:
    from kindgi.client import Kindgi
    from kindgi.client._models import PromotionCheck

    from kindgi_dev.client import Kindgi as DevKindgi

NOT_COPIED = (
    ".kindgi",
    ".kindgirc.json",
    ".venv",
    ".git",
    "__pycache__",
    ".pytest_cache",
    "node_modules",
    ".mypy_cache",
    ".ruff_cache",
)
__all__ = ["Interval", "KindgiDev", "KindgiDevError", "Metric", "TryResult", "kindgi_dev"]

NOT_PASSED = ("KINDGI_API_URL", "KINDGI_API_TOKEN", "KINDGI_DEV_PORT")
TERMINAL = ("completed", "failed", "cancelled")
RELOADED = ("✓ loaded", "✗ ")


class KindgiDevError(RuntimeError):
    """`kindgi dev` didn't start, or a helper's request was refused."""


class KindgiDev:
    """A running `kindgi dev`: its address, token, default project, clients and helpers."""

    def __init__(self, process: subprocess.Popen[bytes], pack: Path, log: Path) -> None:
        self.process = process
        self.pack = pack
        """The copy of the pack it serves (files you change here reload)."""
        self.log = log
        rc = json.loads((pack / ".kindgirc.json").read_text())
        self.url: str = rc["apiUrl"]
        self.token: str = rc["token"]
        self.http = httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=120
        )
        self.project_id: str = self.call("GET", "/v1/projects/default")["id"]
        # Imported here: the clients take seconds to import, and every pytest run loads the plugin.
        from kindgi.client import Kindgi

        from kindgi_dev.client import Kindgi as DevKindgi

        self._imported: dict[str, tuple[str, str]] = {}
        """The cases files imported so far: their resolved path → their test set's id and
        version."""
        self.client: Kindgi = Kindgi(base_url=self.url, token=self.token)
        """The official `kindgi` client, pointed at this instance."""
        self.dev_client: DevKindgi = DevKindgi(base_url=self.url, token=self.token)
        """kindgi-dev's client (`kindgi_dev.client.Kindgi`): the official one plus Kindgi 0.4's
        agent test sets and corrections."""

    def output(self) -> str:
        """What `kindgi dev` printed so far."""
        return self.log.read_text(errors="replace")

    def call(self, method: str, path: str, body: object = None) -> Any:
        """One API request; its JSON answer, or `KindgiDevError` with the error envelope.
        Untyped: the answer is handed to a pack's own tests, which index it as they please."""
        answer = self.http.request(method, path, json=body)
        if answer.status_code >= 400:
            raise KindgiDevError(f"{method} {path}: {answer.status_code} {answer.text}")
        return answer.json()

    def run(self, agent: str, message: str, timeout: float = 120.0) -> dict[str, Any]:
        """A turn of `agent` on `message`, waited for: the run (untyped: as `call`'s answer)."""
        run: dict[str, Any] = self.call(
            "POST", "/v1/runs", {"agent": agent, "input": {"userMessage": message}}
        )
        deadline = time.monotonic() + timeout
        while run["status"] in ("pending", "running") and time.monotonic() < deadline:
            time.sleep(0.1)
            run = self.call("GET", f"/v1/runs/{run['id']}")
        return run

    def correct(
        self, run_id: str, key: str, pointer: str, *, right: bool, rank: int | None = None
    ) -> dict[str, Any]:
        """Add an item to your correction of the run (right or wrong): the correction (untyped:
        as `call`'s answer)."""
        verdict = "right" if right else "wrong"
        item: JSONObject = {"key": key, "pointer": pointer, "verdict": verdict}
        if rank is not None:
            item["rank"] = rank
        mine = self.call("GET", f"/v1/corrections?runId={run_id}")["data"]
        if mine:
            return dict(self.call("POST", f"/v1/corrections/{mine[0]['id']}/items", item))
        return dict(self.call("POST", "/v1/corrections", {"runId": run_id, "items": [item]}))

    def save(self, relative: str, text: str, timeout: float = 60.0) -> None:
        """Write a file of the pack, as you save it, and wait until `kindgi dev` reloaded."""
        seen = len(self.output())
        (self.pack / relative).write_text(text)
        deadline = time.monotonic() + timeout
        while not any(mark in self.output()[seen:] for mark in RELOADED):
            if time.monotonic() > deadline:
                raise KindgiDevError(f"kindgi dev did not reload {relative}:\n{self.output()}")
            time.sleep(0.05)
        if "✗ " in self.output()[seen:]:
            raise KindgiDevError(f"{relative} didn't load:\n{self.output()[seen:]}")

    def try_version(
        self,
        agent: str,
        version: str | None = None,
        timeout: float = 600.0,
        *,
        cases: str | Path | None = None,
        repetitions: int = 1,
        baseline: str | None = None,
    ) -> TryResult:
        """Replay `version` of `agent` (its served version when None), wait, and return the
        scores: on its test set, or, with `cases`, on a test-set file committed with the
        pack (`kindgi test-sets export`), imported into this instance once. Beside the
        recorded runs, or, with `baseline` (`"<agentId>@<version>"` or `"live"`), beside that
        version replayed on the same cases under the same rules."""
        ref: JSONObject = {"agentId": agent, **({"version": version} if version else {})}
        body: JSONObject = {
            "projectId": self.project_id,
            "agentRef": ref,
            "repetitions": repetitions,
        }
        if baseline is not None:
            body["baseline"] = _baseline(baseline)
        if cases is None:
            started = self.call("POST", f"/v1/agents/{agent}/test-set/runs", body)
        else:
            test_set_id = self.import_cases(cases)
            started = self.call("POST", f"/v1/eval-suites/{test_set_id}/runs", body)
        return self._finished(started["runId"], timeout)

    def import_cases(self, cases: str | Path) -> str:
        """Import a test-set file (relative paths are the pack's) once: its test set's id.

        A run on an imported set replays its highest version here, so a file whose version
        is below the highest imported is refused, when it is first imported and on every
        later use alike: a run would replay the other version's cases."""
        path = Path(cases) if Path(cases).is_absolute() else self.pack / cases
        key = str(path.resolve())
        if key not in self._imported:
            try:
                content = path.read_bytes()
            except OSError as error:
                raise KindgiDevError(f"can't read the cases file {cases}: {error}") from None
            answer = self.http.post(
                "/v1/test-sets/import",
                content=content,
                params={"source": str(cases)},
                headers={"Content-Type": "application/json"},
            )
            if answer.status_code >= 400:
                raise KindgiDevError(f"importing {cases}: {answer.status_code} {answer.text}")
            imported = answer.json()
            self._imported[key] = (imported["testSetId"], imported["version"])
        test_set_id, version = self._imported[key]
        latest = self.call("GET", f"/v1/test-sets/{test_set_id}")["version"]
        if latest != version:
            raise KindgiDevError(
                f"{cases} is version {version} of {test_set_id}, but {latest} was imported "
                "before in this session, and a run replays the highest: give each version's "
                "test its own kindgi_dev (function scope)"
            )
        return test_set_id

    def flow_cases(self, flow: str, suite: str, suite_version: str = "1.0.0") -> dict[str, Any]:
        """Build `suite` at `suite_version` from the flow's corrected runs, one case per run:
        `{suiteId, version, caseCount, …}` (untyped: as `call`'s answer)."""
        body = {"version": suite_version, "projectId": self.project_id, "flowId": flow}
        built: dict[str, Any] = self.call(
            "POST", f"/v1/eval-suites/{suite}/versions/from-judgments", body
        )
        return built

    def try_flow_version(
        self,
        flow: str,
        version: str,
        *,
        suite: str,
        tools: Mapping[str, str] | None = None,
        agents: Mapping[str, str] | None = None,
        reads: str = "recorded",
        timeout: float = 600.0,
    ) -> TryResult:
        """Replay `version` of `flow` on the test cases of `suite` (see `flow_cases`), with
        the tools and agents named in `tools`/`agents` run at the versions given, and wait.

        `reads="live"` runs read-only tools anew instead of giving them the past results.
        """
        swapped: dict[str, JSONObject] = {"tools": {**(tools or {})}, "agents": {**(agents or {})}}
        body: JSONObject = {
            "projectId": self.project_id,
            "flowRef": {"flowId": flow, "version": version},
            "reads": reads,
        }
        if any(swapped.values()):
            body["versions"] = {kind: ids for kind, ids in swapped.items() if ids}
        started = self.call("POST", f"/v1/eval-suites/{suite}/runs", body)
        return self._finished(started["runId"], timeout)

    def check_promotion(
        self, agent: str, version: str, eval_run: TryResult | str, *, project_id: str | None = None
    ) -> PromotionCheck:
        """What the gate says of making `version` live for the project (the default one),
        judged on `eval_run` (a `try_version` result or an eval run id); nothing is recorded.
        Assert on its `outcome` (`would-promote`, `needs-approval`, `gate-failed`) and
        `checks` (each with `name`, `passed`, `message`)."""
        run_id = eval_run if isinstance(eval_run, str) else str(eval_run.run["runId"])
        scope = {"kind": "project", "projectId": project_id or self.project_id}
        return self.client.agents.promotions.check(
            agent, {"version": version, "scope": scope, "evalRunId": run_id}
        )

    def _finished(self, run_id: str, timeout: float) -> TryResult:
        """The eval run once it ended, with its scores."""
        deadline = time.monotonic() + timeout
        run = self.call("GET", f"/v1/eval-runs/{run_id}")
        while run["status"] not in TERMINAL:
            if time.monotonic() > deadline:
                raise KindgiDevError(f"eval run {run_id} still {run['status']}")
            time.sleep(0.2)
            run = self.call("GET", f"/v1/eval-runs/{run_id}")
        return try_result(run)

    def stop(self) -> int:
        """Ctrl+C, as you stop it; its exit code."""
        self.http.close()
        self.client.close()
        self.dev_client.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                return self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait()


def _baseline(spelled: str) -> JSON:
    """`try_version`'s `baseline` as the request's, spelled as the CLI's `--baseline`."""
    from kindgi_dev.cli.baselines import spelled as request_baseline

    try:
        return request_baseline(spelled)
    except ValueError:
        raise KindgiDevError(
            f'baseline must be "recorded", "live" or "<agentId>@<version>", got {spelled!r}'
        ) from None


def copy_pack(pack: Path, into: Path) -> Path:
    """The pack without its state, venv or caches."""
    target = into / pack.name
    shutil.copytree(pack, target, ignore=shutil.ignore_patterns(*NOT_COPIED))
    return target


def start(pack: Path, workdir: Path, timeout: float = 60.0) -> KindgiDev:
    """`kindgi dev --port 0` on a copy of `pack` in `workdir`, once `/health` answers."""
    if not (pack / "pyproject.toml").is_file():
        raise KindgiDevError(f"{pack} has no pyproject.toml: pass --kindgi-pack=<pack dir>")
    copy = copy_pack(pack, workdir)
    log = workdir / "kindgi-dev.log"
    env = {k: v for k, v in os.environ.items() if k not in NOT_PASSED}
    command = [sys.executable, "-c", "from kindgi_dev.cli.main import main; main()"]
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [*command, "dev", "--port", "0"],
            cwd=copy,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    rc = copy / ".kindgirc.json"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise KindgiDevError(f"kindgi dev exited {process.returncode}:\n{log.read_text()}")
        if rc.exists() and healthy(rc):
            return KindgiDev(process, copy, log)
        time.sleep(0.05)
    process.kill()
    raise KindgiDevError(f"kindgi dev did not answer in {timeout} s:\n{log.read_text()}")


def healthy(rc: Path) -> bool:
    """Whether the instance `.kindgirc.json` names answers `/health`."""
    try:
        url = json.loads(rc.read_text())["apiUrl"]
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except (ValueError, KeyError, httpx.HTTPError):
        return False


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kindgi-dev")
    group.addoption("--kindgi-pack", help="The pack kindgi_dev serves (default: the rootdir).")
    group.addoption(
        "--kindgi-dev-scope",
        choices=("session", "function"),
        help="One kindgi dev for the session (default) or one per test.",
    )
    parser.addini("kindgi_dev_scope", "session (default) or function", default="session")


def fixture_scope(fixture_name: str, config: pytest.Config) -> Literal["session", "function"]:
    """The `kindgi_dev` fixture's scope, from the option or the ini file."""
    chosen = config.getoption("kindgi_dev_scope") or config.getini("kindgi_dev_scope")
    if chosen not in ("session", "function"):
        raise pytest.UsageError(f"kindgi_dev_scope is session or function, not {chosen!r}")
    return "function" if chosen == "function" else "session"


@pytest.fixture(scope=fixture_scope)
def kindgi_dev(request: pytest.FixtureRequest) -> Iterator[KindgiDev]:
    """`kindgi dev` on the pack, on a free port with a throwaway database."""
    named = request.config.getoption("kindgi_pack")
    pack = Path(named).resolve() if named else Path(request.config.rootpath)
    with tempfile.TemporaryDirectory(prefix="kindgi-dev-") as workdir:
        running = start(pack, Path(workdir))
        try:
            yield running
        finally:
            running.stop()
