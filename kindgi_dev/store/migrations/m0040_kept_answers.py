"""Answers an eval run can reuse: each replay's answer, by the agent content that gave it
(a hash of the manifest and the model), the frozen case it answered (a hash of what the
replay read) and its repetition; and the judging model's verdicts, by judge, part and text.

Both are written and read only by an eval run started with `reuse: true` (docs/choices.md).
"""

SQL = """
CREATE TABLE kept_answers (
    tenant_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    case_hash TEXT NOT NULL,
    repetition INTEGER NOT NULL,
    answer TEXT NOT NULL,
    PRIMARY KEY (tenant_id, content_hash, case_hash, repetition)
) WITHOUT ROWID;
CREATE TABLE kept_verdicts (
    judge TEXT NOT NULL,
    asked_hash TEXT NOT NULL,
    verdict TEXT NOT NULL,
    PRIMARY KEY (judge, asked_hash)
) WITHOUT ROWID;
"""
