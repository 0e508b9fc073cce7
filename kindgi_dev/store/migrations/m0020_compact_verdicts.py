"""Corrections and verdicts in about half the bytes, read as before.

A verdict repeated five 36-character ids its correction already holds (tenant, project,
run, the corrector and the correction itself) and its participant: it now points to its
correction by an integer key (`correction_seq`, the correction's `seq`), and reads take
those from the correction (services always wrote them equal). The ordering indexes are
ascending: SQLite reads them backwards for "newest first" just as fast, and an index that
grows at its right end stays full where a descending one left half of every page empty.
`corrections_case_page` goes (the cases page reads `corrections_subject`), and one unique
index of a run's corrections by corrector serves both "one live correction each" and
superseding, which used to take an index of every verdict. m0010's triggers are written
again for the new keys; the case states and counts they kept are copied unchanged.
"""

_LIVE_VERDICT = "v.unregistered_at IS NULL AND v.superseded_by IS NULL"

_STATE = f"""
    CASE WHEN subject_kind = 'agent' AND replaced_by IS NULL AND erased_at IS NULL
        AND status IN ('open', 'fixed', 'with-owner')
        AND (SELECT r.replay_of IS NULL FROM runs r WHERE r.id = run_id)
        AND (decisions IS NOT NULL OR answer IS NOT NULL OR EXISTS (
            SELECT 1 FROM verdicts v WHERE v.correction_seq = corrections.seq
            AND {_LIVE_VERDICT}))
    THEN 1 + EXISTS (SELECT 1 FROM case_retirements t WHERE t.case_id = corrections.id)
    ELSE 0 END"""
"""A correction's case state from its row, as m0010 defined it."""


def _refresh(where: str) -> str:
    return f"UPDATE corrections SET case_state = {_STATE} WHERE {where};"


_COLUMNS = (
    "id, tenant_id, project_id, run_id, subject_kind, subject_id, subject_version, "
    "corrector_kind, corrector_id, participant_id, judge_class_id, restricted, decisions, "
    "answer, status, replaced_by, replaced_at, erased_at, created_at, updated_at, case_state"
)
_VERDICT_COLUMNS = (
    "id",
    "item_key",
    "pointer",
    "rank",
    "verdict",
    "reason",
    "judge_class_id",
    "restricted",
    "item_value",
    "created_at",
    "unregistered_at",
    "superseded_by",
)

SQL = f"""
DROP TRIGGER case_state_on_retirement;
CREATE TABLE corrections_new (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
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
    replaced_at TEXT,
    erased_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    case_state INTEGER NOT NULL DEFAULT 0
);
INSERT INTO corrections_new ({_COLUMNS}) SELECT {_COLUMNS} FROM corrections ORDER BY rowid;
CREATE TABLE verdicts_new (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    correction_seq INTEGER NOT NULL REFERENCES corrections_new (seq),
    item_key TEXT NOT NULL,
    pointer TEXT,
    rank INTEGER,
    verdict TEXT NOT NULL CHECK (verdict IN ('yes', 'no')),
    reason TEXT,
    judge_class_id TEXT,
    restricted INTEGER NOT NULL DEFAULT 0,
    item_value TEXT,
    created_at TEXT NOT NULL,
    unregistered_at TEXT,
    superseded_by TEXT
);
INSERT INTO verdicts_new (correction_seq, {", ".join(_VERDICT_COLUMNS)})
    SELECT c.seq, {", ".join(f"v.{c}" for c in _VERDICT_COLUMNS)}
    FROM verdicts v JOIN corrections_new c ON c.id = v.correction_id ORDER BY v.rowid;
DROP TABLE verdicts;
DROP TABLE corrections;
ALTER TABLE corrections_new RENAME TO corrections;
ALTER TABLE verdicts_new RENAME TO verdicts;
CREATE UNIQUE INDEX corrections_by_corrector ON corrections (
    run_id, corrector_kind, corrector_id, participant_id,
    (CASE WHEN replaced_by IS NULL THEN 1 END)
);
CREATE INDEX corrections_subject ON corrections (subject_id, project_id, created_at, id);
CREATE INDEX corrections_order ON corrections (created_at, id);
CREATE INDEX verdicts_item ON verdicts (correction_seq, item_key);
CREATE INDEX verdicts_order ON verdicts (created_at, id);
CREATE TRIGGER case_counts_follow_state AFTER UPDATE OF case_state ON corrections
WHEN OLD.case_state IS NOT NEW.case_state BEGIN
    INSERT OR IGNORE INTO test_set_counts (agent_id, project_id, tenant_id)
        VALUES (NEW.subject_id, NEW.project_id, NEW.tenant_id);
    UPDATE test_set_counts SET
        active = active + (NEW.case_state = 1) - (OLD.case_state = 1),
        retired = retired + (NEW.case_state = 2) - (OLD.case_state = 2)
    WHERE agent_id = NEW.subject_id AND project_id = NEW.project_id
        AND tenant_id = NEW.tenant_id;
END;
CREATE TRIGGER case_set_on_insert AFTER INSERT ON corrections
WHEN NEW.subject_kind = 'agent' BEGIN
    INSERT OR IGNORE INTO test_set_counts (agent_id, project_id, tenant_id)
        VALUES (NEW.subject_id, NEW.project_id, NEW.tenant_id);
END;
CREATE TRIGGER case_state_on_insert AFTER INSERT ON corrections
WHEN NEW.decisions IS NOT NULL OR NEW.answer IS NOT NULL BEGIN
    {_refresh("seq = NEW.seq")}
END;
CREATE TRIGGER case_state_on_change
AFTER UPDATE OF subject_kind, run_id, status, replaced_by, erased_at, decisions, answer
ON corrections BEGIN
    {_refresh("seq = NEW.seq")}
END;
CREATE TRIGGER case_counts_on_delete AFTER DELETE ON corrections WHEN OLD.case_state > 0 BEGIN
    UPDATE test_set_counts SET active = active - (OLD.case_state = 1),
        retired = retired - (OLD.case_state = 2)
    WHERE agent_id = OLD.subject_id AND project_id = OLD.project_id
        AND tenant_id = OLD.tenant_id;
END;
CREATE TRIGGER case_state_on_verdict AFTER INSERT ON verdicts
WHEN NEW.unregistered_at IS NULL AND NEW.superseded_by IS NULL
    AND (SELECT case_state FROM corrections WHERE seq = NEW.correction_seq) = 0 BEGIN
    {_refresh("seq = NEW.correction_seq")}
END;
CREATE TRIGGER case_state_on_verdict_change
AFTER UPDATE OF unregistered_at, superseded_by ON verdicts
WHEN (OLD.unregistered_at IS NULL AND OLD.superseded_by IS NULL)
    IS NOT (NEW.unregistered_at IS NULL AND NEW.superseded_by IS NULL) BEGIN
    {_refresh("seq = NEW.correction_seq")}
END;
CREATE TRIGGER case_state_on_verdict_delete AFTER DELETE ON verdicts BEGIN
    {_refresh("seq = OLD.correction_seq")}
END;
CREATE TRIGGER case_state_on_retirement AFTER INSERT ON case_retirements BEGIN
    {_refresh("id = NEW.case_id")}
    UPDATE test_set_counts SET active = active - 1, retired = retired + 1
    WHERE (agent_id, project_id, tenant_id) =
        (SELECT agent_id, project_id, tenant_id FROM hand_cases WHERE id = NEW.case_id);
END
"""
