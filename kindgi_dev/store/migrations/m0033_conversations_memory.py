"""Conversations opened through the API (their scope, metadata, and unregistering), memory
facts with every revision kept, and the ledger of memory erasures.

A fact's revisions share its `fact_id`; the current one has no `invalidated_at`. The
columns a read filters by (`project_id`, `participant_id`, `user_id`) are kept beside the
scope's JSON. `opened_by` becomes the principal the client names (`user:<id>`).
"""

SQL = """
ALTER TABLE conversations ADD COLUMN scope TEXT;
ALTER TABLE conversations ADD COLUMN metadata TEXT;
ALTER TABLE conversations ADD COLUMN unregistered_at TEXT;
UPDATE conversations SET opened_by = 'user:' || opened_by
    WHERE opened_by IS NOT NULL AND instr(opened_by, ':') = 0;
CREATE TABLE fact_revisions (
    seq INTEGER PRIMARY KEY,
    revision_id TEXT NOT NULL UNIQUE,
    fact_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    tenant_id TEXT NOT NULL,
    type TEXT NOT NULL,
    scope TEXT NOT NULL,
    project_id TEXT,
    participant_id TEXT,
    user_id TEXT,
    conversation_id TEXT,
    content TEXT,
    content_hash TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    invalidated_at TEXT,
    invalidated_by TEXT,
    invalidation_reason TEXT,
    UNIQUE (fact_id, version)
);
CREATE INDEX fact_revisions_current ON fact_revisions (tenant_id, seq)
    WHERE invalidated_at IS NULL;
CREATE INDEX fact_revisions_participant ON fact_revisions (tenant_id, participant_id)
    WHERE participant_id IS NOT NULL;
CREATE TABLE memory_erasures (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    selector_kind TEXT NOT NULL,
    status TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    counts TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    completed_at TEXT
)
"""
