"""Eval runs: replay a candidate on each test case and score it beside the recorded runs.

`request` is what starting one asks for, `settings` how a run's row keeps it, `start`
checks and stores a run, `execute` replays its cases in the background (and stops them),
`result` sums the finished cases up, `read` answers about runs, `baselines` resolves and
sums up a version baseline; callers use them through this package.
"""

from .baselines import live_version
from .baselines import resolve as resolve_baseline
from .execute import Replay, cancel, fail_interrupted, interrupt_all
from .read import (
    EvalRun,
    Progress,
    case_pages,
    case_slice,
    finished_after,
    get,
    get_record,
    list_page,
    record_of,
)
from .replay import replay_case
from .request import AgentCandidate, FlowCandidate, Sample, StartRequest
from .result import finish, summarize
from .settings import RunSettings, agent_of, flow_ref, frozen_of, settings_of
from .start import DryRunPreview, Resumed, Started, begin, launch, new_record

__all__ = [
    "AgentCandidate",
    "DryRunPreview",
    "EvalRun",
    "FlowCandidate",
    "Progress",
    "Replay",
    "Resumed",
    "RunSettings",
    "Sample",
    "StartRequest",
    "Started",
    "agent_of",
    "begin",
    "cancel",
    "case_pages",
    "case_slice",
    "fail_interrupted",
    "finish",
    "finished_after",
    "flow_ref",
    "frozen_of",
    "get",
    "get_record",
    "interrupt_all",
    "launch",
    "list_page",
    "live_version",
    "new_record",
    "record_of",
    "replay_case",
    "resolve_baseline",
    "settings_of",
    "summarize",
]
