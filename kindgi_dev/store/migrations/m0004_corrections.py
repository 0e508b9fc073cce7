"""Corrections (0.4) and judgments (0.1) over one store, judge classes, and run copies.

A correction is one corrector's word on one run; each of its verdicts is a row of
`verdicts`, which is exactly what 0.1 calls a judgment.
"""

SQL = """
CREATE TABLE judge_classes (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    scope_kind TEXT NOT NULL,
    project_id TEXT,
    agent_id TEXT,
    name TEXT NOT NULL,
    weight REAL NOT NULL,
    description TEXT,
    assertable_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    unregistered_at TEXT
);
CREATE INDEX judge_classes_order ON judge_classes (created_at DESC, id DESC);
CREATE TABLE corrections (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    run_id TEXT NOT NULL REFERENCES runs (id),
    subject_kind TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    subject_version TEXT NOT NULL,
    corrector_kind TEXT NOT NULL,
    corrector_id TEXT NOT NULL,
    participant_id TEXT NOT NULL DEFAULT '',
    judge_class_id TEXT,
    restricted INTEGER NOT NULL DEFAULT 0,
    decisions TEXT,
    answer TEXT,
    status TEXT NOT NULL DEFAULT 'open',
    replaced_by TEXT,
    erased_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX corrections_one_live
    ON corrections (run_id, corrector_kind, corrector_id, participant_id)
    WHERE replaced_by IS NULL;
CREATE INDEX corrections_subject ON corrections (subject_id, project_id, created_at DESC, id DESC);
CREATE INDEX corrections_order ON corrections (created_at DESC, id DESC);
CREATE TABLE verdicts (
    id TEXT PRIMARY KEY,
    correction_id TEXT NOT NULL REFERENCES corrections (id),
    tenant_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    run_id TEXT NOT NULL REFERENCES runs (id),
    item_key TEXT NOT NULL,
    pointer TEXT,
    rank INTEGER,
    verdict TEXT NOT NULL CHECK (verdict IN ('yes', 'no')),
    reason TEXT,
    judge_class_id TEXT,
    restricted INTEGER NOT NULL DEFAULT 0,
    asserted_by_kind TEXT NOT NULL,
    asserted_by_id TEXT NOT NULL,
    participant_id TEXT,
    item_value TEXT,
    created_at TEXT NOT NULL,
    unregistered_at TEXT,
    superseded_by TEXT
);
CREATE INDEX verdicts_correction ON verdicts (correction_id);
CREATE INDEX verdicts_run ON verdicts (run_id, item_key);
CREATE INDEX verdicts_order ON verdicts (created_at DESC, id DESC);
CREATE TABLE judged_run_copies (
    run_id TEXT PRIMARY KEY REFERENCES runs (id),
    subject TEXT NOT NULL,
    input TEXT,
    context TEXT,
    output TEXT,
    segments TEXT,
    captured_at TEXT NOT NULL
)
"""
