"""Eval runs (runs on the test cases) and each finished case's result, kept as it lands."""

SQL = """
CREATE TABLE eval_runs (
    run_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    suite_id TEXT NOT NULL,
    suite_version TEXT NOT NULL,
    kind TEXT NOT NULL,
    agent_ref TEXT,
    flow_ref TEXT,
    status TEXT NOT NULL,
    dry_run INTEGER NOT NULL DEFAULT 0,
    started_at TEXT NOT NULL,
    completed_at TEXT,
    result TEXT,
    error TEXT,
    cancel_reason TEXT,
    correlation_id TEXT,
    comparison TEXT,
    frozen_version TEXT,
    case_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX eval_runs_order ON eval_runs (started_at DESC, run_id DESC);
CREATE TABLE eval_run_cases (
    eval_run_id TEXT NOT NULL REFERENCES eval_runs (run_id),
    case_index INTEGER NOT NULL,
    case_id TEXT NOT NULL,
    result TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (eval_run_id, case_index)
)
"""
