"""`--junit=FILE`: a finished eval run as a JUnit XML report, one testcase per case, which
GitHub, GitLab and Jenkins show natively.

A case *fails* when some repetition failed it (`passedAll` false: a checked part failed,
or it showed an item people marked wrong), or when the recorded run passed it and the
candidate now shows nothing to pass; an errored case is an `<error>`, a flow case stopped
at a refused call is `<skipped>`. Each failure says what differed. A run that ended
cancelled or failed adds an `<error>` of its own, so its report never reads as a pass.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from ..domain.json import JSONObject
from ..domain.narrow import objects_of
from .answers import member


def failed(case: JSONObject) -> bool:
    """Whether a case is a failure in the report (see the module's docstring)."""
    return case.get("passedAll") is False or (
        case.get("passedBefore") is True and case.get("passedAll") is None
    )


def differences(case: JSONObject) -> list[str]:
    """What differed on a case, one line each: the corrected items kept, dropped and new,
    each checked part's differences, and whether its repetitions disagreed."""
    lines = []
    changes = member(case, "changes")
    kept = [f"{k['key']} (rank {k.get('rankBefore')} → {k.get('rank')})" for k in
            objects_of(changes.get("kept"))]  # fmt: skip
    if kept:
        lines.append("kept: " + ", ".join(kept))
    if changes.get("dropped"):
        lines.append("dropped: " + ", ".join(str(d["key"]) for d in objects_of(changes["dropped"])))
    if changes.get("new"):
        lines.append("new: " + ", ".join(str(n["key"]) for n in objects_of(changes["new"])))
    for found in objects_of(case.get("correctionDifferences")):
        for d in objects_of(found.get("differences")):
            said = {k: v for k, v in d.items() if k != "kind" and v is not None}
            lines.append(
                f"{found['part']}, repetition {found['repetition']}: {d['kind']} "
                f"{json.dumps(said, ensure_ascii=False, sort_keys=True)}"
            )
    if case.get("flaky"):
        lines.append("flaky: some repetitions passed, some failed")
    return lines


def unfinished(run: JSONObject) -> str:
    """What the report says of a run that ended without completing: its status, how many
    of its cases finished, and its error."""
    progress = member(run, "progress")
    done, total = progress.get("casesDone"), progress.get("cases")
    said = f"The eval run ended {run.get('status')}"
    if isinstance(done, int) and isinstance(total, int):
        said += f" with {done} of {total} cases finished"
    error = run.get("error")
    return f"{said}: {error}" if error else f"{said}."


def report(run: JSONObject) -> ET.Element:
    """The run as a `<testsuites>` of one `<testsuite>`, a `<testcase>` per case."""
    result = member(run, "result")
    cases = objects_of(result.get("perCase"))
    summary = member(result, "summary")
    candidate = member(summary, "candidate")
    tried = candidate.get("agentId") or candidate.get("flowId") or "candidate"
    name = f"{run['suiteId']}@{run['suiteVersion']} · {tried} {candidate.get('version') or ''}"
    suite = ET.Element("testsuite", name=name.strip(), timestamp=str(run.get("startedAt", "")))
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    for case in cases:
        entry = ET.SubElement(
            suite, "testcase", classname=str(run["suiteId"]), name=str(case["caseId"]), time="0"
        )
        if case.get("errored"):
            counts["errors"] += 1
            ET.SubElement(entry, "error", message=str(case.get("error") or "errored"))
        elif case.get("stopped"):
            counts["skipped"] += 1
            stopped = member(case, "stopped")
            ET.SubElement(entry, "skipped", message=f"stopped at {stopped.get('toolId')}")
        elif failed(case):
            counts["failures"] += 1
            said = differences(case)
            failure = ET.SubElement(entry, "failure", message=said[0] if said else "failed")
            failure.text = "\n".join(said)
    tests = len(cases)
    status = run.get("status")
    if status != "completed":  # cancelled or failed: the cases it didn't finish aren't passes
        tests += 1
        counts["errors"] += 1
        entry = ET.SubElement(
            suite, "testcase", classname=str(run["suiteId"]), name=f"eval run {run['runId']}",
            time="0",
        )  # fmt: skip
        ET.SubElement(entry, "error", message=unfinished(run))
    suite.set("tests", str(tests))
    for key, value in counts.items():
        suite.set(key, str(value))
    root = ET.Element("testsuites", name=f"kindgi eval run {run['runId']}")
    root.append(suite)
    return root


def write(run: JSONObject, path: Path) -> None:
    """Write the run's report to `path` (its folder made when missing)."""
    tree = ET.ElementTree(report(run))
    ET.indent(tree)
    path.parent.mkdir(parents=True, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)
