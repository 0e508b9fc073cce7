"""Issue 6: `kindgi dev` killed in the middle of an eval run; the run reads failed, cases kept."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
from devserver import DevServer, copy_example, start
from devserver import kindgi_json as kindgi
from test_tutorial import AGENT, NEW_INSTRUCTIONS, QUESTIONS, save_version, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]

SLOW_MODELS = '''\
"""The example's model, slowed down for 0.2.0 so an eval run is still going when killed."""

import importlib.util
import pathlib
import time

from kindgi_dev.models import model

_spec = importlib.util.spec_from_file_location(
    "_picker_models", pathlib.Path(__file__).with_name("dev_models.py")
)
_picker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_picker)


@model(default=True)
def slow_picker(turn):
    if "only the articles" in turn.instructions:
        time.sleep(0.6)
    return _picker.article_picker(turn)
'''


def running_eval_run(pack: Path) -> tuple[DevServer, str]:
    """`kindgi dev` on the slowed example, with an eval run of 3 cases past its first case."""
    (pack / "slow_models.py").write_text(SLOW_MODELS)
    server = start(pack, "--models", "slow_models.py", "--eval-concurrency", "1")
    try:
        return server, _start_eval_run(server, pack)
    except BaseException:
        server.stop(signal.SIGKILL)
        raise


def _start_eval_run(server: DevServer, pack: Path) -> str:
    """The tutorial's corrections, a suite from them, 0.2.0 saved, and its eval run started."""
    with server.client() as http:
        project = http.get("/v1/projects/default").json()["id"]
        for question, articles in QUESTIONS.items():
            run = http.post(
                "/v1/runs", json={"agent": AGENT, "input": {"userMessage": question}}
            ).json()
            for rank, article in enumerate(articles):
                body = {"runId": run["id"], "verdict": "yes" if rank == 0 else "no",
                        "item": {"key": article, "pointer": f"/output/articles/{rank}",
                                 "rank": rank}}  # fmt: skip
                assert http.post("/v1/judgments", json=body).status_code == 201
        built = http.post(
            "/v1/eval-suites/acme.article-picks/versions/from-judgments",
            json={"version": "1.0.0", "projectId": project, "agentId": AGENT},
        )
        assert built.json()["caseCount"] == 3
        save_version(pack, "0.2.0", NEW_INSTRUCTIONS)
        wait_for(lambda: len(http.get(f"/v1/agents/{AGENT}/versions").json()["data"]) == 2,
                 timeout=30)  # fmt: skip
        started = http.post(
            "/v1/eval-suites/acme.article-picks/runs",
            json={"projectId": project, "agentRef": {"agentId": AGENT, "version": "0.2.0"}},
        )
        run_id = started.json()["runId"]
        wait_for(lambda: http.get(f"/v1/eval-runs/{run_id}").json()
                 .get("progress", {}).get("casesDone", 0) >= 1, timeout=20)  # fmt: skip
    return str(run_id)


def interrupted_after_restart(pack: Path, run_id: str) -> tuple[dict[str, Any], str]:
    """The eval run as a fresh `kindgi dev` reads it (it must be failed, saying how far), and
    what that start printed."""
    again = start(pack, "--models", "slow_models.py")
    try:
        with again.client() as http:
            run = http.get(f"/v1/eval-runs/{run_id}").json()
        assert run["status"] == "failed"
        done = len(run["result"]["perCase"])
        assert 1 <= done < 3
        assert run["error"] == (
            "Interrupted: the eval run's executor stopped before it finished. "
            f"{done} of 3 cases finished."
        )
        return run, again.output()
    finally:
        again.stop()


def test_sigkill_mid_run_marks_it_failed_and_keeps_finished_cases(tmp_path: Path) -> None:
    pack = copy_example(tmp_path / "article-picker")
    server, run_id = running_eval_run(pack)
    server.stop(signal.SIGKILL)
    time.sleep(0.2)
    _, printed = interrupted_after_restart(pack, run_id)
    assert "were going when kindgi dev last stopped" in printed


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_mid_run_stops_cleanly_and_records_the_run_interrupted(
    tmp_path: Path, presses: int
) -> None:
    """Once, or twice as an impatient user does (uvicorn's force quit): no traceback, and
    the eval run is recorded as interrupted by this stop, not found at the next start."""
    pack = copy_example(tmp_path / "article-picker")
    server, run_id = running_eval_run(pack)
    for _ in range(presses - 1):
        server.process.send_signal(signal.SIGINT)
        time.sleep(0.05)
    assert server.stop(signal.SIGINT) == 0
    printed = server.output()
    assert "Traceback" not in printed and "Error" not in printed
    assert printed.rstrip().endswith("Stopping kindgi dev... stopped.")
    _, restarted = interrupted_after_restart(pack, run_id)
    assert "were going when kindgi dev last stopped" not in restarted


def test_a_resumed_run_gets_the_summary_of_an_uninterrupted_one(tmp_path: Path) -> None:
    pack = copy_example(tmp_path / "article-picker")
    server, run_id = running_eval_run(pack)
    server.stop(signal.SIGKILL)
    again = start(pack, "--models", "slow_models.py")
    try:
        resumed = kindgi(again, "eval-runs", "start", f"--resume={run_id}", "--wait")
        with again.client() as http:
            project = http.get("/v1/projects/default").json()["id"]
        whole = kindgi(again, "eval-runs", "start", "acme.article-picks", f"--project={project}",
                       f"--agent={AGENT}", "--agent-version=0.2.0", "--wait")  # fmt: skip
    finally:
        again.stop()
    summary = resumed["result"]["summary"]
    assert (resumed["status"], summary["resumeOf"], summary["cases"]) == ("completed", run_id, 3)
    ignored = ("evalRunId", "completedAt", "resumeOf")
    assert {k: v for k, v in summary.items() if k not in ignored} == {
        k: v for k, v in whole["result"]["summary"].items() if k not in ignored
    }
    assert summary["metrics"]["weightedYesShare"]["candidate"] == 1
