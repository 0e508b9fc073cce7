"""Runs with what a replay needs, their journal and tool calls, and conversations."""

SQL = """
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    flow_id TEXT NOT NULL,
    flow_version TEXT NOT NULL,
    status TEXT NOT NULL,
    dry_run INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    completed_at TEXT,
    failure_code TEXT,
    failure_message TEXT,
    agent_id TEXT,
    agent_version TEXT,
    conversation_id TEXT,
    via TEXT,
    input TEXT NOT NULL,
    output TEXT,
    context TEXT,
    tool_env TEXT,
    provider_id TEXT,
    model TEXT,
    segments TEXT,
    started_by TEXT,
    replay_of TEXT,
    eval_run_id TEXT,
    content_erased_at TEXT
);
CREATE INDEX runs_order ON runs (created_at DESC, id DESC);
CREATE INDEX runs_agent ON runs (agent_id, created_at DESC);
CREATE INDEX runs_eval_run ON runs (eval_run_id) WHERE eval_run_id IS NOT NULL;
CREATE INDEX runs_replay_of ON runs (replay_of) WHERE replay_of IS NOT NULL;
CREATE TABLE run_tool_calls (
    run_id TEXT NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    step INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    tool_id TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    arguments TEXT NOT NULL,
    result TEXT,
    error TEXT,
    source TEXT NOT NULL,
    reason TEXT,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE run_journal (
    run_id TEXT NOT NULL REFERENCES runs (id),
    sequence INTEGER NOT NULL,
    kind TEXT NOT NULL,
    node_id TEXT,
    payload TEXT,
    timestamp TEXT NOT NULL,
    PRIMARY KEY (run_id, sequence)
);
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    agent_version TEXT NOT NULL,
    title TEXT NOT NULL,
    participant_id TEXT,
    opened_by TEXT,
    status TEXT NOT NULL DEFAULT 'open',
    opened_at TEXT NOT NULL,
    closed_at TEXT,
    turn_count INTEGER NOT NULL DEFAULT 0,
    last_message_at TEXT,
    replay INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX conversations_order ON conversations (opened_at DESC, id DESC);
CREATE TABLE conversation_messages (
    conversation_id TEXT NOT NULL REFERENCES conversations (id),
    sequence INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT,
    tool_call TEXT,
    actor TEXT,
    run_id TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (conversation_id, sequence)
)
"""
