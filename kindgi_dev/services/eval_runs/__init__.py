"""Eval runs: replay a candidate on each test case and score it beside the recorded runs.

`request` is what starting one asks for (its row is `store.eval_runs.EvalRunRow`), `start`
checks and stores a run, `execute` replays its cases in the background (and stops them),
`result` sums the finished cases up, `read` answers about runs, `baselines` resolves and
sums up a version baseline; callers use them through this package.
"""

from ...domain.eval_runs import AgentCandidate, FlowCandidate, FrozenVersion, RunSettings, Sample
from ...store.eval_runs import EvalRunRow, RunFilters
from .baselines import live_version
from .baselines import resolve as resolve_baseline
from .execute import Replay, cancel, fail_interrupted, interrupt_all
from .read import (
    CaseProgress,
    EvalRun,
    case_pages,
    case_slice,
    finished_after,
    get,
    get_record,
    list_page,
    record_of,
)
from .replay import replay_case
from .request import StartRequest
from .result import finish, summarize
from .start import (
    DryRunPreview,
    ResumedFrom,
    Started,
    begin,
    check_overrides,
    launch,
    new_record,
    rescore_record,
)

__all__ = [
    "AgentCandidate",
    "CaseProgress",
    "DryRunPreview",
    "EvalRun",
    "EvalRunRow",
    "FlowCandidate",
    "FrozenVersion",
    "Replay",
    "ResumedFrom",
    "RunFilters",
    "RunSettings",
    "Sample",
    "StartRequest",
    "Started",
    "begin",
    "cancel",
    "case_pages",
    "case_slice",
    "check_overrides",
    "fail_interrupted",
    "finish",
    "finished_after",
    "get",
    "get_record",
    "interrupt_all",
    "launch",
    "list_page",
    "live_version",
    "new_record",
    "record_of",
    "replay_case",
    "rescore_record",
    "resolve_baseline",
    "summarize",
]
