"""What each guardrail's check came to on a live turn (for `guardrails.outcomes`), and the
runs that wait for a person: a turn paused at a tool call an approval holds, its state kept
here so a restart leaves it waiting and resumable.
"""

SQL = """
CREATE TABLE guardrail_outcomes (
    seq INTEGER PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    guardrail_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    agent_version TEXT NOT NULL,
    outcome TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX guardrail_outcomes_window ON guardrail_outcomes (guardrail_id, project_id, at)
"""
