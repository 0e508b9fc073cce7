"""Releases: gate policies (immutable versions), the version pinned live per agent and
scope, and the history of every promotion, rollback and unpin.

`scope_key` is a scope in one comparable text (`project:<id>`, `segment:<id>:k=v/…`); `seq`
orders the history newest first, whatever the clock said.
"""

SQL = """
CREATE TABLE gate_policies (
    id TEXT NOT NULL,
    version TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    scope_key TEXT NOT NULL,
    spec TEXT NOT NULL,
    description TEXT,
    created_at TEXT NOT NULL,
    unregistered_at TEXT,
    PRIMARY KEY (id, version)
);
CREATE INDEX gate_policies_by_scope ON gate_policies (tenant_id, agent_id, scope_key);
CREATE TABLE live_pins (
    tenant_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    scope_key TEXT NOT NULL,
    scope TEXT NOT NULL,
    version TEXT NOT NULL,
    promotion_id TEXT NOT NULL,
    set_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, agent_id, scope_key)
);
CREATE TABLE promotions (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    scope_key TEXT NOT NULL,
    action TEXT NOT NULL,
    from_version TEXT,
    to_version TEXT,
    requested_by TEXT NOT NULL,
    reason TEXT,
    eval_run_id TEXT,
    created_at TEXT NOT NULL,
    status TEXT,
    policy TEXT,
    checks TEXT,
    approval_id TEXT,
    resolved_at TEXT
);
CREATE INDEX promotions_by_agent ON promotions (tenant_id, agent_id, seq)
"""
