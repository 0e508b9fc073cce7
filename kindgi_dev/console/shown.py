"""What people saved on a run, shown back: each item's live verdicts (whose, weight, reason,
corrector group), each correction's decisions and answer, and the test-set case it made."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..domain.errors import NotFound
from ..domain.expectations import Answer, Decisions
from ..services import corrections, judge_classes
from ..services.context import Context
from ..services.runs import StoredRun


@dataclass(frozen=True)
class Group:
    """A corrector group as a verdict weighs: its name (None: no group) and weight."""

    name: str | None
    weight: float


NO_GROUP = Group(None, 1)


@dataclass(frozen=True)
class ShownVerdict:
    """One person's verdict on one item."""

    by: str
    mine: bool
    verdict: str
    group: Group
    reason: str | None
    rank: int | None


@dataclass(frozen=True)
class ShownCorrection:
    """One person's live correction of the run: its parts and where its test case is."""

    id: str
    by: str
    mine: bool
    group: Group
    status: str
    updated_at: str
    decisions: Decisions | None
    answer: Answer | None
    case_link: str | None


@dataclass
class Saved:
    """Every live correction of a run, and the verdicts on each item by its key."""

    corrections: list[ShownCorrection] = field(default_factory=list)
    verdicts: dict[str, list[ShownVerdict]] = field(default_factory=dict)

    def mine(self) -> ShownCorrection | None:
        """The caller's correction, if any."""
        return next((c for c in self.corrections if c.mine), None)


def _group(ctx: Context, class_id: str | None, known: dict[str, Group]) -> Group:
    """The group a correction was made as (read once per page)."""
    if class_id is None:
        return NO_GROUP
    if class_id not in known:
        try:
            found = judge_classes.get(ctx, class_id)
            known[class_id] = Group(found.name, found.weight)
        except NotFound:
            known[class_id] = Group(class_id, 1)
    return known[class_id]


def case_link(run: StoredRun, correction_id: str) -> str | None:
    """Where the correction's case is: an agent run's correction is a case of the agent's
    test set (a replay's is none)."""
    if not run.agent_id or run.replay_of:
        return None
    return f"/console/test-cases/agents/{run.agent_id}#case-{correction_id}"


def _yours(ctx: Context, correction: corrections.Correction) -> bool:
    """Whether the caller made it for no user of their app (one made for a user is theirs)."""
    made_by = (correction.corrected_by.kind, correction.corrected_by.id)
    return made_by == (ctx.caller.kind, ctx.caller.id) and correction.participant_id is None


def _by(correction: corrections.Correction) -> str:
    """Who made it: the principal, or the app's user it was made for."""
    if correction.participant_id:
        return f"{correction.participant_id} (via {correction.corrected_by.id})"
    return correction.corrected_by.id


def saved_on(ctx: Context, run: StoredRun) -> Saved:
    """The run's live corrections, the caller's first, then newest first."""
    page = corrections.list_page(
        ctx, limit=100, cursor=None, filters={"run_id": run.id}, statuses=(),
        include_replaced=False,
    )  # fmt: skip
    saved, groups = Saved(), dict[str, Group]()
    for correction in sorted(page.items, key=lambda c: not _yours(ctx, c)):
        mine = _yours(ctx, correction)
        by = "you" if mine else _by(correction)
        group = _group(ctx, correction.judge_class_id, groups)
        saved.corrections.append(
            ShownCorrection(
                correction.id, by, mine, group, correction.status, correction.updated_at,
                correction.decisions, correction.answer, case_link(run, correction.id),
            )
        )  # fmt: skip
        for item in correction.items:
            shown = ShownVerdict(by, mine, item.verdict, group, item.reason, item.rank)
            saved.verdicts.setdefault(item.key, []).append(shown)
    return saved
