"""What each guardrail's check came to on a live turn (for `guardrails.outcomes`); the
runs that wait for a person: a turn paused at a tool call an approval holds, its state kept
here so a restart leaves it waiting and resumable; the decision a gated tool call ran on;
and keys that act for a service account (whose runs no person started).
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
CREATE INDEX guardrail_outcomes_window ON guardrail_outcomes (guardrail_id, project_id, at);
CREATE TABLE run_waits (
    token_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (id),
    approval_id TEXT NOT NULL,
    tool_id TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    call_id TEXT NOT NULL,
    snapshot TEXT NOT NULL,
    created_at TEXT NOT NULL,
    decision TEXT,
    resolved_at TEXT
);
CREATE INDEX run_waits_run ON run_waits (run_id);
ALTER TABLE run_tool_calls ADD COLUMN approval TEXT;
ALTER TABLE api_tokens ADD COLUMN principal_kind TEXT NOT NULL DEFAULT 'user'
"""
