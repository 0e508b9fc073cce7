"""Many corrections at once, for seeding and imports (#29 point 3): the checks of
`corrections.create` for each, then one transaction writing them with one `executemany`
per table, where one by one costs a transaction and a dozen statements each.

The stored result is the one-by-one path's: the same rows in the same order. A correction
that replaces the corrector's live one (already stored, or earlier in the same batch) is
written as `corrections.create` writes it, in its place in the order.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..domain import corrections as rules
from ..domain.errors import NotFound, ValidationFailed
from ..domain.expectations import Answer, Decisions, GivenItem
from ..domain.json import JSON
from ..domain.time import format_time
from ..ids import ordered_ids
from ..runtime.memory import collector_paused
from ..store import corrections as store
from ..store.runs import StoredRun
from . import corrections, judge_classes, runs
from .context import Context
from .verdicts import (
    agent_tools,
    case_state_of,
    checked_value,
    correctable,
    corrector_of,
    keep_copies,
    new_correction,
    verdict_of,
)


@dataclass(frozen=True)
class NewCorrection:
    """One correction of a batch: what `corrections.create` takes."""

    run_id: str
    items: Sequence[GivenItem] = ()
    decisions: Decisions | None = None
    answer: Answer | None = None
    judge_class_id: str | None = None
    participant_id: str | None = None


@dataclass(frozen=True)
class _Checked:
    """A correction checked, with its rows, ready to write."""

    given: NewCorrection
    run: StoredRun
    corrector: rules.Corrector
    correction: rules.StoredCorrection
    verdicts: list[rules.StoredVerdict]
    case_state: int


_IDS_AT_ONCE = 512


@dataclass
class _Seen:
    """What the batch read or checked already, each a pure function of what it names: its
    runs (read at once, checked at each turn), the items as given, and each item's value in
    a run's output (a seeding batch corrects a few runs many times over). Only what passed
    is kept, so a refusal is found where the one-by-one path finds it."""

    runs: dict[str, StoredRun] = field(default_factory=dict)
    """The batch's runs as read before its checks (`read_runs`)."""
    items: dict[tuple[GivenItem, ...], list[rules.CorrectedItem]] = field(default_factory=dict)
    values: dict[tuple[str, str | None, str], JSON] = field(default_factory=dict)
    spare_ids: list[str] = field(default_factory=list)
    moment: tuple[int, str] = (-1, "")

    def now(self) -> str:
        """`now_iso`, written once a millisecond (a batch makes a few corrections in one)."""
        ms = time.time_ns() // 1_000_000
        if ms != self.moment[0]:
            at = datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000)
            self.moment = (ms, format_time(at))
        return self.moment[1]

    def ids(self, count: int) -> list[str]:
        """`count` (at least one) new ids ordered by time, drawn from `ordered_ids` a few
        hundred at a time (one read of the OS's randomness for many corrections), each
        draw sorted: the id indexes then take each row at their last page."""
        if len(self.spare_ids) < count:
            self.spare_ids.extend(sorted(ordered_ids(max(count, _IDS_AT_ONCE))))
        drawn = self.spare_ids[:count]
        del self.spare_ids[:count]
        return drawn

    def read_runs(self, ctx: Context, run_ids: Sequence[str]) -> None:
        """Read the batch's runs, a few hundred a statement rather than one each."""
        self.runs = runs.get_records(ctx, list(dict.fromkeys(run_ids)))

    def run(self, run_id: str) -> StoredRun:
        """The correctable run (`correctable_run`'s refusals, at its turn in the batch)."""
        found = self.runs.get(run_id)
        if found is None:
            raise NotFound("run", run_id)
        return correctable(found)

    def checked_items(self, given: Sequence[GivenItem], where: str) -> list[rules.CorrectedItem]:
        """`check_items` of the items as given."""
        key = tuple(given)
        found = self.items.get(key)
        if found is None:
            found = self.items[key] = rules.check_items(given, where)
        return found

    def value(self, run: StoredRun, item: rules.CorrectedItem, where: str) -> JSON:
        """`checked_value` of an item in the run's output."""
        key = (run.id, item.pointer, item.key)
        if key not in self.values:
            self.values[key] = checked_value(run, item, where)
        return self.values[key]


@dataclass
class _Rows:
    """The rows waiting for their `executemany` (each correction's case state beside it), and
    the runs whose copies to keep."""

    corrections: list[rules.StoredCorrection] = field(default_factory=list)
    case_states: list[int] = field(default_factory=list)
    verdicts: list[rules.StoredVerdict] = field(default_factory=list)
    copies: dict[str, tuple[StoredRun, str]] = field(default_factory=dict)


def create_many(ctx: Context, batch: Sequence[NewCorrection]) -> list[str]:
    """Create every correction of `batch`, in order, as `corrections.create` would one by
    one; all or nothing: a refusal names its correction (`corrections/3/items/0/pointer`)
    and writes nothing. Returns their ids."""
    with collector_paused():  # the batch's records all live until they are written
        return _create_many(ctx, batch)


def _create_many(ctx: Context, batch: Sequence[NewCorrection]) -> list[str]:
    seen = _Seen()
    seen.read_runs(ctx, [one.run_id for one in batch])
    checked = [_check(ctx, one, f"corrections/{i}/", seen) for i, one in enumerate(batch)]
    ids: list[str] = []
    with ctx.db.transaction():
        live = store.live_correctors(ctx.db, [(c.run.id, c.corrector) for c in checked])
        rows = _Rows()
        for one in checked:
            if (one.run.id, one.corrector) in live:
                _write(ctx, rows)
                ids.append(_replace(ctx, one.given))
                continue
            live.add((one.run.id, one.corrector))
            rows.corrections.append(one.correction)
            rows.case_states.append(one.case_state)
            rows.verdicts.extend(one.verdicts)
            rows.copies.setdefault(one.run.id, (one.run, one.correction.created_at))
            ids.append(one.correction.id)
        _write(ctx, rows)
    return ids


def _check(ctx: Context, given: NewCorrection, where: str, seen: _Seen) -> _Checked:
    """`corrections.create`'s checks, in its order, its refusals' fields under `where`."""
    checked = seen.checked_items(given.items, f"{where}items")
    decisions, answer = given.decisions, given.answer
    decided = None if decisions is None else rules.check_decisions(decisions, f"{where}decisions")
    said = None if answer is None else rules.check_answer(answer, f"{where}answer")
    if not checked and decided is None and said is None:
        raise ValidationFailed(f"{where}items", "a correction needs items, decisions or answer")
    run = seen.run(given.run_id)
    klass = judge_classes.usable(ctx, given.judge_class_id, run)
    if decided is not None:
        rules.check_tools(decided, agent_tools(ctx, run), f"{where}decisions")
    corrector = corrector_of(ctx, given.participant_id)
    now = seen.now()
    made_id, *ids = seen.ids(1 + len(checked))
    made = new_correction(run, corrector, klass, now, made_id)
    correction = made
    if decided is not None or said is not None:
        correction = dataclasses.replace(made, decisions=decided, answer=said)
    verdicts = [
        verdict_of(run, made.id, corrector, item, klass, now,
                   seen.value(run, item, f"{where}items/{i}/pointer"), id_)
        for i, (item, id_) in enumerate(zip(checked, ids, strict=True))
    ]  # fmt: skip
    state = case_state_of(correction, run, verdicts)
    return _Checked(given, run, corrector, correction, verdicts, state)


def _write(ctx: Context, rows: _Rows) -> None:
    """The waiting rows, a statement per table, then the runs' copies; emptied after."""
    store.insert_corrections_staged(ctx.db, rows.corrections, rows.case_states)
    store.insert_verdicts_staged(ctx.db, rows.verdicts)
    keep_copies(ctx, list(rows.copies.values()))
    rows.corrections.clear()
    rows.case_states.clear()
    rows.verdicts.clear()
    rows.copies.clear()


def _replace(ctx: Context, given: NewCorrection) -> str:
    """A correction replacing the corrector's live one, as the one-by-one path writes it."""
    made = corrections.create(
        ctx,
        given.run_id,
        items=given.items,
        decisions=given.decisions,
        answer=given.answer,
        judge_class_id=given.judge_class_id,
        participant_id=given.participant_id,
    )
    return made.id
