"""A version baseline: which version it is (named, or the live one), and what its replays add
to each finished case and to the summary.

The baseline version is replayed on each case under exactly the candidate's rules, by the
same executor and in the same run, so the comparison changes the version and holds the
world still. `live_version` is where a `{live: …}` baseline finds its version: the release's
live pins.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ...domain import comparison, two_versions
from ...domain.baselines import AskedBaseline, BaselineScope, LiveAsked, VersionAsked
from ...domain.catalog import Kind
from ...domain.comparison import ReplayCase, Replayed
from ...domain.errors import ValidationFailed
from ...domain.eval_runs import RunSettings
from ...domain.live import LiveScope as ReleaseScope
from ...domain.metrics import CaseScore, Metrics
from ...domain.results import Baseline, BaselineCounts, FinishedCase, ModelUse
from .. import catalog, live, runnable
from ..context import Context

T = TypeVar("T", bound=Hashable)
LATEST_REGISTERED = "latest-registered"
PIN = "pin"


@dataclass(frozen=True)
class LiveVersion:
    """The version live in a scope, and where that came from: a pin (`pin`), or, with
    nothing pinned on the way up, the latest registered version (`latest-registered`)."""

    version: str
    source: str


def live_version(ctx: Context, kind: Kind, subject_id: str, scope: BaselineScope) -> LiveVersion:
    """The version of an agent live in `scope`, as releases pin it (what a run anywhere in
    the scope gets: its own pin, else the nearest one above); a flow's, which no release
    pins, the latest registered."""
    if kind == "agent":
        found = live.serving(ctx, subject_id, release_scope(scope))
        return LiveVersion(found.version, LATEST_REGISTERED if found.pin is None else PIN)
    return LiveVersion(str(catalog.get(ctx, kind, subject_id)["version"]), LATEST_REGISTERED)


def release_scope(scope: BaselineScope) -> ReleaseScope:
    """A live baseline's scope as releases name it: the tenant, a project, or a segment
    path in one."""
    if scope.project_id is None:
        return ReleaseScope("tenant")
    if scope.segments:
        return ReleaseScope("segment", project_id=scope.project_id, path=scope.segments)
    return ReleaseScope("project", project_id=scope.project_id)


def resolve(ctx: Context, asked: AskedBaseline, kind: Kind, subject_id: str) -> Baseline | None:
    """The version baseline a start asks for (None for the recorded runs): another version of
    the candidate's flow, or any agent version. It must be able to run (`runnable`: 409
    naming each pinned tool version that is gone), or nothing starts."""
    if kind == "agent":
        found = resolve_agent(ctx, asked, subject_id)
        return None if found is None else found[0]
    named = _named(ctx, asked, kind, subject_id)
    if named is None:
        return None
    flow = runnable.flow(ctx, named[0], named[1])
    return replace(named[2], agent_id=flow.id, flow_id=flow.id, version=flow.version)


def resolve_agent(
    ctx: Context, asked: AskedBaseline, agent_id: str
) -> tuple[Baseline, dict[str, Any]] | None:
    """An agent candidate's version baseline (as `resolve`), with the version's manifest,
    which its replays run."""
    named = _named(ctx, asked, "agent", agent_id)
    if named is None:
        return None
    agent = runnable.agent(ctx, named[0], named[1])
    return replace(named[2], agent_id=agent["id"], version=agent["version"]), agent


def _named(
    ctx: Context, asked: AskedBaseline, kind: Kind, subject_id: str
) -> tuple[str, str, Baseline] | None:
    """The subject and version a baseline asks for, and how it was asked (explicitly, or
    live in a scope: then the version live there); None for the recorded runs."""
    if isinstance(asked, LiveAsked):
        live.check_scope(ctx, release_scope(asked.live))
        found = live_version(ctx, kind, subject_id, asked.live)
        named, version = subject_id, found.version
        how = replace(_EXPLICIT, via="live", live_scope=asked.live, live_source=found.source)
    elif isinstance(asked, VersionAsked):
        if kind == "flow" and asked.subject_id != subject_id:
            raise ValidationFailed(
                "baseline", f"a flow's baseline is another version of flow {subject_id}"
            )
        if kind == "agent" and asked.flow_id is not None:
            raise ValidationFailed("baseline/flowId", "an agent's baseline is an agent version")
        named, version, how = asked.subject_id, asked.version, _EXPLICIT
    else:
        return None
    return named, version, how


_EXPLICIT = Baseline("version", via="explicit")
"""A version baseline named in the request; `resolve` fills in which."""


def finished_case(
    case: ReplayCase,
    replays: Sequence[Replayed],
    baseline: Sequence[Replayed],
    settings: RunSettings,
) -> FinishedCase:
    """A finished case as the run keeps it: the candidate's repetitions compared with the
    recorded run, and with a version baseline its repetitions beside them (scored, and
    checked against the case's expectations, the same way)."""
    k, restricted_only = settings.k, settings.restricted_only
    result, passes = comparison.case_result(case, replays, k=k, restricted_only=restricted_only)
    before = comparison.baseline_passes(case)
    if settings.baseline_version is not None:
        side, before = comparison.case_result(case, baseline, k=k, restricted_only=restricted_only)
        result = two_versions.beside(result, side)
    return FinishedCase(
        result=result,
        checks=passes,
        baseline_checks=before,
        made_on=case.made_on,
        models=[r.provider for r in replays if r.provider],
        baseline_models=[r.provider for r in baseline if r.provider],
        reused=sum(r.reused for r in [*replays, *baseline]),
    )


@dataclass
class VersionTally:
    """What a version baseline's summary needs of each finished case: both sides' scores and
    checks on the cases both answered, and the baseline's own counts."""

    baseline: list[tuple[CaseScore, ...]] = field(default_factory=list)
    candidate: list[tuple[CaseScore, ...]] = field(default_factory=list)
    baseline_checks: list[tuple[bool, ...]] = field(default_factory=list)
    candidate_checks: list[tuple[bool, ...]] = field(default_factory=list)
    diverged: int = 0
    refused_writes: int = 0
    errors: int = 0
    stopped: int = 0
    models: dict[tuple[str, str], int] = field(default_factory=dict)
    _kept: dict[Hashable, Any] = field(default_factory=dict)

    def _same(self, value: T) -> T:
        """The equal value seen before, or this one, now kept (see `result._Tally`)."""
        kept: T = self._kept.setdefault(value, value)
        return kept

    def add(self, entry: FinishedCase) -> None:
        """Count one finished case. A case either side stopped on, or that either side had
        no answer for (errored), is left out of both sides' scores and checks, so the sides
        rest on the same cases, one entry each, in order (`result._Tally`'s rule)."""
        result, side = entry.result, entry.result.baseline_replay
        if side is None:
            return
        self.diverged += side.diverged
        self.refused_writes += side.refused_writes
        self.errors += side.error is not None
        self.stopped += side.stopped is not None
        answered = (result.error is None or bool(result.candidate)) and (
            side.error is None or bool(side.scores)
        )
        if result.stopped is None and side.stopped is None and answered:
            self.baseline.append(self._same(tuple(self._same(s) for s in side.scores)))
            self.candidate.append(self._same(tuple(self._same(s) for s in result.candidate)))
            self.baseline_checks.append(self._same(tuple(entry.baseline_checks)))
            self.candidate_checks.append(self._same(tuple(entry.checks)))
        for m in entry.baseline_models:
            key = (m.get("id", ""), m.get("model", ""))
            self.models[key] = self.models.get(key, 0) + 1

    def metrics(self, *, k: int, test_set: bool) -> Metrics:
        """The summary's metrics, the baseline version beside the candidate."""
        return two_versions.version_metrics(
            self.baseline,
            self.candidate,
            k=k,
            test_set=test_set,
            baseline_checks=self.baseline_checks,
            candidate_checks=self.candidate_checks,
        )

    def counts(self) -> BaselineCounts:
        """The baseline's own counts: divergence, refusals, errors, stops, its models."""
        return BaselineCounts(
            self.diverged,
            self.refused_writes,
            self.errors,
            self.stopped,
            [ModelUse(p, m, n) for (p, m), n in sorted(self.models.items())],
        )
