"""Runs: start an agent turn, record what a replay needs, read, list, cancel, follow.

`start` opens and performs a turn, `record` stores what it did, `read` answers about runs;
callers use them through this package.
"""

from ...store.runs import StoredRun
from .failures import failures
from .read import (
    JournalEntry,
    Run,
    RunAgent,
    RunFailure,
    cancel,
    get,
    get_record,
    get_records,
    journal,
    list_page,
    list_records,
    run_of,
    tool_calls,
)
from .record import fail, fail_interrupted, finish_cancelled, record_outcome
from .start import (
    AGENT_FLOW_ID,
    AGENT_FLOW_VERSION,
    TurnFailedError,
    check_input,
    live_dispatcher,
    open_run,
    perform_turn,
    settings_for,
    start,
    tools_of,
)

__all__ = [
    "AGENT_FLOW_ID",
    "AGENT_FLOW_VERSION",
    "JournalEntry",
    "Run",
    "RunAgent",
    "RunFailure",
    "StoredRun",
    "TurnFailedError",
    "cancel",
    "check_input",
    "fail",
    "fail_interrupted",
    "failures",
    "finish_cancelled",
    "get",
    "get_record",
    "get_records",
    "journal",
    "list_page",
    "list_records",
    "live_dispatcher",
    "open_run",
    "perform_turn",
    "record_outcome",
    "run_of",
    "settings_for",
    "start",
    "tool_calls",
    "tools_of",
]
