"""Eval suites (0.1): publish, list, read, tombstone and reinstate versions, and build a
`judged` version from an agent's corrected runs, whose cases are frozen copies."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..domain import test_sets as rules
from ..domain.errors import BadInput, Conflict, NotFound, ValidationFailed
from ..domain.paging import Page, clamp_limit, make_page, offset_of, page_of
from ..domain.time import format_time, now_iso, parse_time
from ..store import eval_suites as store
from ..store import pulled_test_sets
from ..store import runs as run_store
from . import projects
from .catalog import version_key
from .context import Context

EVAL_KINDS = ("accuracy", "pairwise", "regression", "human-review", "benchmark", "custom", "judged")
_VERSION = re.compile(r"\d+\.\d+\.\d+")


@dataclass(frozen=True)
class EvalSuite:
    """One version of an eval suite: its kind, its spec, and whether it is tombstoned."""

    id: str
    tenant_id: str
    version: str
    kind: str
    spec: dict[str, Any]
    project_id: str | None = None
    description: str | None = None
    unregistered_at: str | None = None


@dataclass(frozen=True)
class Published:
    """What publishing a version answers."""

    suite_id: str
    version: str


@dataclass(frozen=True)
class Built:
    """What building a `judged` version from judgments answers."""

    suite_id: str
    version: str
    kind: str
    case_count: int
    truncated: bool


@dataclass(frozen=True)
class Tombstoned:
    """What unregistering a version answers."""

    suite_id: str
    version: str
    unregistered: bool = True


@dataclass(frozen=True)
class Reinstated:
    """What reinstating a version answers: whether it was tombstoned."""

    suite_id: str
    version: str
    was_tombstoned: bool


def suite_of(row: dict[str, Any]) -> EvalSuite:
    """A stored version as its record."""
    return EvalSuite(
        id=row["id"],
        tenant_id=row["tenant_id"],
        version=row["version"],
        kind=row["kind"],
        spec=row["spec"],
        project_id=row.get("project_id") or None,
        description=row.get("description"),
        unregistered_at=row.get("unregistered_at") or None,
    )


def check_version(version: str, field: str = "version") -> None:
    """400 unless `version` is MAJOR.MINOR.PATCH, as the contract's suite versions are."""
    if not _VERSION.fullmatch(version):
        raise ValidationFailed(field, f"must be a semver such as 1.0.0, not {version!r}")


def _taken(suite_id: str, version: str) -> Conflict:
    return Conflict(
        f'Eval suite "{suite_id}" version "{version}" is already registered.',
        code="eval-suite-already-registered",
        suiteId=suite_id,
        version=version,
    )


def _claim(ctx: Context, suite_id: str, version: str, project_id: str) -> None:
    """409 when the version is taken or the suite's other versions are in another project."""
    rows = store.versions_of(ctx.db, ctx.tenant_id, suite_id)
    if any(row["version"] == version for row in rows):
        raise _taken(suite_id, version)
    if pulled_test_sets.versions(ctx.db, ctx.tenant_id, suite_id):
        raise Conflict(
            f'"{suite_id}" is a test set pulled from another runtime: give the suite another id.',
            code="eval-suite-already-registered",
            suiteId=suite_id,
            version=version,
        )
    others = {row["project_id"] for row in rows if row["project_id"]}
    if others and project_id not in others:
        raise Conflict(
            f'Eval suite "{suite_id}" is in project {others.pop()}, not {project_id}.',
            code="eval-suite-project-mismatch",
            suiteId=suite_id,
        )


def publish(ctx: Context, body: dict[str, Any]) -> Published:
    """Publish a version; `judged` ones are built from judgments, not published."""
    check_version(body["version"])
    if body.get("tenantId") not in (None, ctx.tenant_id):
        raise ValidationFailed(
            "tenantId", "must be your own tenant: cross-tenant publish is refused"
        )
    if body["kind"] == "judged":
        raise ValidationFailed("kind", "a judged suite is built with versions/from-judgments")
    try:
        project_id = projects.get(ctx, body["projectId"]).id
    except NotFound:
        raise BadInput(f"projectId: no project {body['projectId']} in your tenant.") from None
    row = {
        "id": body["id"],
        "version": body["version"],
        "tenant_id": ctx.tenant_id,
        "project_id": project_id,
        "kind": body["kind"],
        "description": body.get("description"),
        "spec": body["spec"],
        "created_at": now_iso(),
    }
    with ctx.db.transaction():
        _claim(ctx, body["id"], body["version"], project_id)
        if not store.insert_version(ctx.db, row):
            raise _taken(body["id"], body["version"])
    return Published(body["id"], body["version"])


def _latest(rows: Sequence[dict[str, Any]], include_retired: bool) -> dict[str, Any] | None:
    """The highest active version, or (when asked) the highest of a retired suite."""
    active = [row for row in rows if not row["unregistered_at"]]
    pool = active or (list(rows) if include_retired else [])
    return max(pool, key=lambda row: version_key(row["version"])) if pool else None


def _latest_suites(
    ctx: Context,
    *,
    kind: str | None = None,
    name: str | None = None,
    project_id: str | None = None,
    include_retired: bool = False,
) -> list[EvalSuite]:
    """The latest version of each suite, by id, filtered on that version."""
    by_id: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in store.all_versions(ctx.db, ctx.tenant_id):
        by_id[row["id"]].append(row)
    shown = []
    for suite_id in sorted(by_id):
        latest = _latest(by_id[suite_id], include_retired)
        if latest is None or (kind and latest["kind"] != kind):
            continue
        if (name and not suite_id.startswith(name)) or (
            project_id and latest["project_id"] != project_id
        ):
            continue
        shown.append(suite_of(latest))
    return shown


def list_suites(
    ctx: Context,
    *,
    kind: str | None = None,
    name: str | None = None,
    project_id: str | None = None,
    include_retired: bool = False,
    limit: int | None = None,
    cursor: str | None = None,
) -> Page[EvalSuite]:
    """A page of the latest version of each suite, by id."""
    shown = _latest_suites(
        ctx, kind=kind, name=name, project_id=project_id, include_retired=include_retired
    )
    return page_of(shown, limit, cursor)


def get(ctx: Context, suite_id: str, project_id: str | None = None) -> EvalSuite:
    """The latest active version; 404 when none (or none in the project asked about)."""
    latest = _latest(store.versions_of(ctx.db, ctx.tenant_id, suite_id), False)
    if latest is None or (project_id and latest["project_id"] not in (None, project_id)):
        raise NotFound("eval-suite", suite_id, id_field="suite_id")
    return suite_of(latest)


def get_version(ctx: Context, suite_id: str, version: str) -> EvalSuite:
    """One version, tombstoned or not; 404 `eval-suite-not-found`."""
    row = store.get_version(ctx.db, suite_id, version)
    if row is None or row["tenant_id"] != ctx.tenant_id:
        error = NotFound("eval-suite", suite_id, id_field="suite_id")
        error.message = f'Eval suite "{suite_id}" has no version "{version}".'
        error.args = (error.message,)
        raise error
    return suite_of(row)


def versions(ctx: Context, suite_id: str, include_tombstoned: bool = False) -> list[EvalSuite]:
    """A suite's versions in ascending semver; tombstoned ones only when asked; 404 if none."""
    rows = store.versions_of(ctx.db, ctx.tenant_id, suite_id)
    if not rows:
        raise NotFound("eval-suite", suite_id, id_field="suite_id")
    shown = [row for row in rows if include_tombstoned or not row["unregistered_at"]]
    shown.sort(key=lambda row: version_key(row["version"]))
    return [suite_of(row) for row in shown]


def list_versions(
    ctx: Context,
    suite_id: str,
    *,
    include_tombstoned: bool = False,
    limit: int | None = None,
    cursor: str | None = None,
) -> Page[EvalSuite]:
    """A page of a suite's versions in ascending semver."""
    return page_of(versions(ctx, suite_id, include_tombstoned), limit, cursor)


def unregister(ctx: Context, suite_id: str, version: str) -> Tombstoned:
    """Tombstone a version (kept and readable); 409 when it is already."""
    with ctx.db.transaction():
        if get_version(ctx, suite_id, version).unregistered_at:
            raise Conflict(
                f'Eval suite "{suite_id}" version "{version}" is already unregistered.',
                code="eval-suite-version-unregistered",
                suiteId=suite_id,
            )
        store.set_unregistered(ctx.db, suite_id, version, now_iso())
    return Tombstoned(suite_id, version)


def reinstate(ctx: Context, suite_id: str, version: str) -> Reinstated:
    """Bring a tombstoned version back (idempotent); whether it was tombstoned."""
    with ctx.db.transaction():
        was = bool(get_version(ctx, suite_id, version).unregistered_at)
        if was:
            store.set_unregistered(ctx.db, suite_id, version, None)
    return Reinstated(suite_id, version, was)


def list_cases(
    ctx: Context, suite_id: str, version: str, *, limit: int | None, cursor: str | None
) -> Page[Any]:
    """A version's cases in stored order (a judged one's newest first judged first)."""
    get_version(ctx, suite_id, version)
    size = clamp_limit(limit)
    rows = store.case_page(ctx.db, suite_id, version, after=offset_of(cursor) - 1, limit=size + 1)
    page = make_page(rows, size, lambda row: [row[0] + 1])
    return page.map(lambda pair: pair[1])


def all_cases(ctx: Context, suite_id: str, version: str) -> Iterator[Any]:
    """Every case of a version, in stored order, a page at a time."""
    cursor = None
    while True:
        page = list_cases(ctx, suite_id, version, limit=100, cursor=cursor)
        yield from page.items
        if not page.has_more:
            return
        cursor = page.next_cursor


def judged_latest(ctx: Context) -> list[EvalSuite]:
    """The latest active version of each `judged` suite (the test sets built before)."""
    return _latest_suites(ctx, kind="judged")


def build_from_judgments(ctx: Context, suite_id: str, body: dict[str, Any]) -> Built:
    """Publish a `judged` version: one frozen case per corrected run, newest first, ≤ 1000."""
    check_version(body["version"])
    subject = _subject(body)
    project_id = projects.get(ctx, body["projectId"]).id
    filters = rules.BuildFilters(
        agent_version=body.get("agentVersion"),
        since=_wire_time(body, "since"),
        until=_wire_time(body, "until"),
        min_judgments=body.get("minJudgments") or 1,
        segments=body.get("segments") or (),
    )
    class_ids = body.get("judgeClassIds") or []
    with ctx.db.transaction():
        _claim(ctx, suite_id, body["version"], project_id)
        judged = [
            rules.JudgedRun(
                r["run_id"], r["first_judged_at"], r["judgments"], r["segments"], r["agent_version"]
            )
            for r in store.judged_runs(ctx.db, ctx.tenant_id, project_id, subject, class_ids)
        ]
        chosen, truncated = rules.select_runs(judged, filters)
        cases = _cases(ctx, [run.run_id for run in chosen], class_ids)
        spec = {
            "source": "judgments",
            "subject": {"kind": subject[0], "id": subject[1]},
            "filters": _filters_of(body),
            "truncated": truncated,
        }
        stored = store.insert_version(
            ctx.db,
            {
                "id": suite_id,
                "version": body["version"],
                "tenant_id": ctx.tenant_id,
                "project_id": project_id,
                "kind": "judged",
                "description": body.get("description"),
                "spec": spec,
                "case_count": len(cases),
                "created_at": now_iso(),
            },
        )
        if not stored:
            raise _taken(suite_id, body["version"])
        store.insert_cases(ctx.db, suite_id, body["version"], cases)
    return Built(suite_id, body["version"], "judged", len(cases), truncated)


def _subject(body: dict[str, Any]) -> tuple[str, str]:
    """("agent", id) or ("flow", id): exactly one; `agentVersion` needs `agentId`."""
    agent, flow = body.get("agentId"), body.get("flowId")
    if (agent is None) == (flow is None):
        raise ValidationFailed("agentId", "give exactly one of agentId or flowId")
    if body.get("agentVersion") and agent is None:
        raise ValidationFailed("agentVersion", "needs agentId")
    if agent is not None:
        return ("agent", agent)
    assert flow is not None  # exactly one of the two is given (checked above)
    return ("flow", flow)


def _wire_time(body: dict[str, Any], name: str) -> str | None:
    """A time filter in wire form, so it compares with stored times as text."""
    text = body.get(name)
    if text is None:
        return None
    try:
        return format_time(parse_time(text))
    except ValueError as error:
        raise ValidationFailed(name, f"must be an ISO-8601 time with a zone: {error}") from None


def _filters_of(body: dict[str, Any]) -> dict[str, Any]:
    names = ("agentVersion", "since", "until", "judgeClassIds", "minJudgments", "segments")
    return {name: body[name] for name in names if body.get(name) is not None}


def _cases(ctx: Context, run_ids: list[str], class_ids: list[str]) -> list[dict[str, Any]]:
    """The frozen `JudgedEvalCase` of each chosen run, in the order chosen."""
    verdicts: dict[str, list[rules.Judgment]] = defaultdict(list)
    for v in store.counted_verdicts(ctx.db, run_ids, class_ids):
        verdicts[v["run_id"]].append(
            rules.Judgment(
                v["id"],
                v["item_key"],
                v["pointer"],
                v["rank"],
                v["verdict"],
                v["reason"],
                v["judge_class_id"],
                bool(v["restricted"]),
                v["created_at"],
            )
        )
    decided: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for correction in store.decision_corrections(ctx.db, run_ids):
        decided[correction["run_id"]].append(correction)
    weights = store.class_weights(ctx.db, ctx.tenant_id)
    copies = store.run_copies(ctx.db, run_ids)
    return [
        _case(ctx, copies[run_id], verdicts[run_id], decided[run_id], weights) for run_id in run_ids
    ]


def _case(
    ctx: Context,
    run: dict[str, Any],
    judgments: list[rules.Judgment],
    corrections: list[dict[str, Any]],
    weights: dict[str, float],
) -> dict[str, Any]:
    subject = run["copy_subject"] or {
        "kind": "agent" if run["agent_id"] else "flow",
        "id": run["agent_id"] or run["flow_id"],
        "version": run["agent_version"] or run["flow_version"],
    }
    if run["content_erased_at"]:
        return {
            "caseId": run["id"],
            "subject": subject,
            "input": None,
            "output": None,
            "items": [],
            "erased": True,
        }
    copied = bool(run["copied"])
    case: dict[str, Any] = {
        "caseId": run["id"],
        "subject": subject,
        "input": rules.case_input(run["copy_input"] if copied else run["input"]),
    }
    context = rules.case_context(run["copy_context"] if copied else run["context"], run["tool_env"])
    if context:
        case["context"] = context
    case["output"] = run["copy_output"] if copied else run["output"]
    case["items"] = rules.summarize_items(judgments, weights)
    if corrections:
        called = [call["toolId"] for call in run_store.tool_calls(ctx.db, run["id"])]
        case["corrections"] = rules.decision_corrections(corrections, called)
    return case
