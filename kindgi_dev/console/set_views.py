"""What the Test cases pages show of each test set, as view models built from the services'
records: every set (an agent's own, one built from corrections, one pulled or imported)
with its versions and how many eval runs tried each, and one eval run's list row."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.json import JSONObject
from ..domain.narrow import object_of, objects_of
from ..domain.results import ComparisonResult
from ..services import eval_runs, eval_suites, test_set_pulls, test_set_versions, test_sets
from ..services.context import Context
from . import words

RUNS_COUNTED = 100
"""The newest eval runs of a set counted per version (the list API's largest page)."""


@dataclass(frozen=True)
class RunRow:
    """One eval run in a set's list: when, what it tried (named whole), on which version of
    the set, its status and its share marked right before and after."""

    run_id: str
    started_at: str
    tried: str
    suite_version: str
    status: str
    before: float | None
    after: float | None
    restricted: bool


def run_row(record: eval_runs.EvalRun) -> RunRow:
    """An eval run's list row, from its record."""
    result = record.result
    share = (
        result.summary.metrics.weighted_yes_share if isinstance(result, ComparisonResult) else None
    )
    return RunRow(
        record.run_id, record.started_at, words.tried(record), record.suite_version,
        record.status, share.baseline if share else None, share.candidate if share else None,
        record.comparison is not None and record.comparison.restricted_only,
    )  # fmt: skip


def runs_on(ctx: Context, suite_id: str) -> list[eval_runs.EvalRun]:
    """The newest eval runs on a set's test cases, newest first (no case is read)."""
    filters = eval_runs.RunFilters(suite_id=suite_id)
    return eval_runs.list_page(ctx, limit=RUNS_COUNTED, cursor=None, filters=filters).items


@dataclass(frozen=True)
class VersionRow:
    """A version of a set, its cases when known, and how many eval runs tried it."""

    version: str
    cases: int | None
    eval_runs: int


@dataclass(frozen=True)
class SetRow:
    """A test set on the Test cases page: where it came from, its versions, its page."""

    id: str
    href: str
    origin: str
    versions: list[VersionRow]


def version_rows(
    ctx: Context, suite_id: str, given: Sequence[tuple[str, int | None]]
) -> list[VersionRow]:
    """Each version with the count of the set's eval runs that tried it."""
    tried = Counter(record.suite_version for record in runs_on(ctx, suite_id))
    return [VersionRow(version, cases, tried[version]) for version, cases in given]


def agent_rows(ctx: Context, agent_ids: list[str]) -> list[SetRow]:
    """Each agent's own test set, with its frozen versions."""
    rows = []
    for agent_id in agent_ids:
        summary = test_sets.get(ctx, agent_id)
        frozen = test_set_versions.frozen_versions(ctx, summary.id)
        given = [(v.version, v.case_count) for v in frozen]
        origin = f"{summary.cases.active} active cases, {summary.cases.retired} retired"
        href = f"/console/test-cases/agents/{agent_id}"
        rows.append(SetRow(agent_id, href, origin, version_rows(ctx, summary.id, given)))
    return rows


def built_rows(ctx: Context) -> list[SetRow]:
    """The sets built from corrections before (`judged` suites), with their versions."""
    rows = []
    for latest in eval_suites.judged_latest(ctx):
        subject = latest.spec.get("subject") or {}
        given: list[tuple[str, int | None]] = [
            (v.version, None) for v in eval_suites.versions(ctx, latest.id)
        ]
        origin = f"Built from the corrected runs of {subject.get('kind')} {subject.get('id')}"
        href = f"/console/test-cases/suites/{latest.id}"
        rows.append(SetRow(latest.id, href, origin, version_rows(ctx, latest.id, given)))
    return rows


def source_of(found: test_set_pulls.PulledVersion) -> str:
    """Where a pulled version came from: `Pulled from <url>` or `Imported from <file>`."""
    url = found.source.url
    if url.startswith(test_set_pulls.FILE):
        return f"Imported from {url.removeprefix(test_set_pulls.FILE)}"
    return f"Pulled from {url}"


def pulled_rows(ctx: Context) -> list[SetRow]:
    """The sets pulled from another runtime or imported from a file, with their versions."""
    rows = []
    for latest in sorted(test_set_pulls.latest_each(ctx), key=lambda p: p.test_set_id):
        ident = latest.test_set_id
        given: list[tuple[str, int | None]] = [
            (v.version, v.case_count) for v in test_set_pulls.versions(ctx, ident)
        ]
        href = f"/console/test-cases/suites/{ident}"
        rows.append(SetRow(ident, href, source_of(latest), version_rows(ctx, ident, given)))
    return rows


@dataclass(frozen=True)
class PulledCase:
    """A pulled case as its page shows it: its title, what ran it, what it expects."""

    title: str
    ran: str
    expects: list[str]


def pulled_case(case: JSONObject, index: int) -> PulledCase:
    """A pulled case (a frozen case, with a copy of its run, or a suite case) in words."""
    run = object_of(case.get("run"))
    subject = object_of(case.get("subject"))
    given = run.get("input") if run else case.get("input")
    if run:
        ran = f"{run.get('agentId') or run.get('flowId')} {case.get('madeOn') or ''}".strip()
    else:
        ran = f"{subject.get('kind', '')} {subject.get('id', '')} {subject.get('version', '')}"
    expect = object_of(case.get("expect"))
    expects = [f"{i.get('key')} {i.get('verdict')}" for i in objects_of(expect.get("items"))]
    parts = {part: expect.get(part) for part in ("decisions", "answer")}
    expects += [f"{part} {said.get('verdict')}" for part, said in parts.items()
                if isinstance(said, dict)]  # fmt: skip
    expects += [f"{i.get('key')}: {i.get('yes', 0)} yes, {i.get('no', 0)} no"
                for i in objects_of(case.get("items")) if not expect]  # fmt: skip
    return PulledCase(words.case_title(given, index), ran.strip(), expects)
