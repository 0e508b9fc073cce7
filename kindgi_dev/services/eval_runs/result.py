"""An eval run's result: the comparison of the cases stored so far, and ending a run with it."""

from __future__ import annotations

from typing import Any

from ...domain import comparison
from ...domain.metrics import CaseScore
from ...domain.time import now_iso
from ...store import eval_runs as store
from .. import models
from ..context import Context


def summarize(ctx: Context, run_id: str, *, partial: bool = False) -> dict[str, Any]:
    """The `JudgedComparisonResult` of the cases stored so far."""
    record = store.get(ctx.db, run_id)
    assert record is not None
    settings = record["comparison"]
    done = store.cases(ctx.db, run_id)
    entries = [d["result"] for d in done]
    rated = [e for e in entries if "stopped" not in e["entry"]]
    ok = [e for e in rated if "error" not in e["entry"] or e["candidate"]]
    baseline = [CaseScore(**e["baseline"]) for e in rated]
    candidate = [[CaseScore(**c) for c in e["candidate"]] for e in ok]
    checks = [e["checks"] for e in entries]
    test_set = record.get("frozen_version") is not None
    metrics = comparison.metrics(
        baseline,
        candidate,
        k=settings["k"],
        test_set=test_set,
        baseline_checks=[e["baselineChecks"] for e in entries],
        candidate_checks=checks,
    )
    versions: dict[str, int] = {}
    models: dict[tuple[str, str], int] = {}
    for e in entries:
        versions[e["madeOn"]] = versions.get(e["madeOn"], 0) + 1
        for m in e["models"]:
            key = (m.get("id", ""), m.get("model", ""))
            models[key] = models.get(key, 0) + 1
    subject, subject_id, candidate_of = _candidate(record)
    errors = sum(1 for e in entries if "error" in e["entry"])
    summary = {
        "evalRunId": run_id,
        "status": "partial" if partial or errors else "completed",
        "completedAt": now_iso(),
        "suite": {"id": record["suite_id"], "version": record["suite_version"]},
        "candidate": candidate_of,
        "baseline": {
            "kind": "recorded",
            "versions": [
                {subject: subject_id, "version": v, "cases": n} for v, n in sorted(versions.items())
            ],
        },
        "scope": {"projectId": record["project_id"]},
        "cases": len(entries),
        "diverged": sum(1 for e in entries if e["entry"]["diverged"]),
        "refusedWrites": sum(e["entry"]["refusedWrites"] for e in entries),
        "errors": errors,
        "stopped": sum(1 for e in entries if "stopped" in e["entry"]),
        "reads": settings["reads"],
        "classWeights": settings["classWeights"],
        **({"sample": settings["sample"]} if settings.get("sample") else {}),
        "sampling": {
            "models": [
                {"providerId": p, "model": m, "runs": n} for (p, m), n in sorted(models.items())
            ]
        },
        "repetitions": settings["repetitions"],
        "metrics": metrics,
        "corrections": {
            "checked": sum(len(c) for c in checks),
            "passed": sum(sum(c) for c in checks),
        },
    }
    if any(c.get("part") == "answer" for e in entries for c in e["entry"].get("corrections", [])):
        summary["judge"] = _judge_summary(ctx)
    return {"summary": summary, "perCase": [e["entry"] for e in entries]}


def _candidate(record: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The key naming the subject (`agentId` or `flowId`), its id, and the summary's candidate."""
    if record.get("flow_ref"):
        ref = record["flow_ref"]
        candidate = {"kind": "flow", "flowId": ref["flowId"], "version": ref["version"]}
        versions = record["comparison"].get("versions")
        if versions:
            candidate["versions"] = versions
        return "flowId", ref["flowId"], candidate
    ref = record["agent_ref"]
    return "agentId", ref["agentId"], {"kind": "agent", **ref}


def _judge_summary(ctx: Context) -> dict[str, Any]:
    """Which judge checked the answers: the configured model, or the deterministic one."""
    adapter = models.judging_adapter(ctx)
    if adapter is not None:
        return {"kind": "model", "providerId": adapter.provider_id, "model": adapter.model}
    return {
        "kind": "deterministic",
        "note": "No judging model is configured, so answer checks "
        "compared text: the same answer for `right`, one containing shouldSay for `wrong`.",
    }


def finish(
    ctx: Context, run_id: str, status: str, result: dict[str, Any], error: str | None = None
) -> None:
    """End the run with `status` and its result (and the error that ended it, if any)."""
    changes: dict[str, Any] = {"status": status, "completed_at": now_iso(), "result": result}
    if error:
        changes["error"] = error
    store.update(ctx.db, run_id, changes)
