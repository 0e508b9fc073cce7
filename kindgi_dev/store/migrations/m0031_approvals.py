"""Approvals and who may decide them: the approvals themselves (any subject: a promotion
now, a tool call later), the reviewer roster, and the API keys minted for other users.

A key is kept as its SHA-256 only: its text is shown once, when it is minted.
"""

SQL = """
CREATE TABLE approvals (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    project_id TEXT,
    subject_kind TEXT NOT NULL,
    subject_ref TEXT NOT NULL,
    required_role TEXT NOT NULL,
    status TEXT NOT NULL,
    title TEXT,
    description TEXT,
    context TEXT,
    requested_by TEXT,
    separate_approver INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    decided_at TEXT,
    decision TEXT
);
CREATE INDEX approvals_by_status ON approvals (tenant_id, status, seq);
CREATE TABLE reviewers (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    role TEXT NOT NULL,
    display_name TEXT,
    created_at TEXT NOT NULL,
    deactivated_at TEXT,
    UNIQUE (tenant_id, user_id)
);
CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    role TEXT NOT NULL,
    label TEXT,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
)
"""
