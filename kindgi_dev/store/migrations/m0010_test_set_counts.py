"""An agent test set's case counts kept as its corrections change, so a read is a lookup.

`corrections.case_state` says what a correction is to its agent's set (0 not a case,
1 active, 2 retired); triggers keep it right whatever writes a correction, a verdict or a
retirement, and keep `test_set_counts` in step with it and with hand cases; a verdict
wakes them only when it can change the state. The cases page reads a small index of cases
only, so the wide covering index goes, with two no query needs any more, and one index of
a run's verdicts by item and corrector serves what two did.
"""

_STATE = """
    CASE WHEN subject_kind = 'agent' AND replaced_by IS NULL AND erased_at IS NULL
        AND status IN ('open', 'fixed', 'with-owner')
        AND (SELECT r.replay_of IS NULL FROM runs r WHERE r.id = run_id)
        AND (decisions IS NOT NULL OR answer IS NOT NULL OR EXISTS (
            SELECT 1 FROM verdicts v WHERE v.correction_id = corrections.id
            AND v.unregistered_at IS NULL AND v.superseded_by IS NULL))
    THEN 1 + EXISTS (SELECT 1 FROM case_retirements t WHERE t.case_id = corrections.id)
    ELSE 0 END"""
"""A correction's case state from its row (the statuses are domain.test_sets.CASE_STATUSES)."""


def _refresh(correction_id: str) -> str:
    return f"UPDATE corrections SET case_state = {_STATE} WHERE id = {correction_id};"


def _count(sign: str, agent: str, project: str, tenant: str, column: str) -> str:
    return (
        "INSERT OR IGNORE INTO test_set_counts (agent_id, project_id, tenant_id) "
        f"VALUES ({agent}, {project}, {tenant});\n"
        f"UPDATE test_set_counts SET {column} = {column} {sign} 1 WHERE agent_id = {agent} "
        f"AND project_id = {project} AND tenant_id = {tenant};"
    )


SQL = f"""
CREATE TABLE test_set_counts (
    agent_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 0,
    retired INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent_id, project_id, tenant_id)
) WITHOUT ROWID;
ALTER TABLE corrections ADD COLUMN case_state INTEGER NOT NULL DEFAULT 0;
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
    {_refresh("NEW.id")}
END;
CREATE TRIGGER case_state_on_change
AFTER UPDATE OF subject_kind, run_id, status, replaced_by, erased_at, decisions, answer
ON corrections BEGIN
    {_refresh("NEW.id")}
END;
CREATE TRIGGER case_counts_on_delete AFTER DELETE ON corrections WHEN OLD.case_state > 0 BEGIN
    UPDATE test_set_counts SET active = active - (OLD.case_state = 1),
        retired = retired - (OLD.case_state = 2)
    WHERE agent_id = OLD.subject_id AND project_id = OLD.project_id
        AND tenant_id = OLD.tenant_id;
END;
CREATE TRIGGER case_state_on_verdict AFTER INSERT ON verdicts
WHEN NEW.unregistered_at IS NULL AND NEW.superseded_by IS NULL
    AND (SELECT case_state FROM corrections WHERE id = NEW.correction_id) = 0 BEGIN
    {_refresh("NEW.correction_id")}
END;
CREATE TRIGGER case_state_on_verdict_change
AFTER UPDATE OF unregistered_at, superseded_by ON verdicts
WHEN (OLD.unregistered_at IS NULL AND OLD.superseded_by IS NULL)
    IS NOT (NEW.unregistered_at IS NULL AND NEW.superseded_by IS NULL) BEGIN
    {_refresh("NEW.correction_id")}
END;
CREATE TRIGGER case_state_on_verdict_delete AFTER DELETE ON verdicts BEGIN
    {_refresh("OLD.correction_id")}
END;
CREATE TRIGGER case_state_on_retirement AFTER INSERT ON case_retirements BEGIN
    {_refresh("NEW.case_id")}
    UPDATE test_set_counts SET active = active - 1, retired = retired + 1
    WHERE (agent_id, project_id, tenant_id) =
        (SELECT agent_id, project_id, tenant_id FROM hand_cases WHERE id = NEW.case_id);
END;
CREATE TRIGGER hand_case_counted AFTER INSERT ON hand_cases BEGIN
    {_count("+", "NEW.agent_id", "NEW.project_id", "NEW.tenant_id", "active")}
END;
CREATE TRIGGER hand_case_uncounted AFTER DELETE ON hand_cases BEGIN
    UPDATE test_set_counts SET
        active = active - NOT EXISTS (SELECT 1 FROM case_retirements t WHERE t.case_id = OLD.id),
        retired = retired - EXISTS (SELECT 1 FROM case_retirements t WHERE t.case_id = OLD.id)
    WHERE agent_id = OLD.agent_id AND project_id = OLD.project_id
        AND tenant_id = OLD.tenant_id;
END;
INSERT OR IGNORE INTO test_set_counts (agent_id, project_id, tenant_id)
    SELECT DISTINCT subject_id, project_id, tenant_id FROM corrections
    WHERE subject_kind = 'agent';
UPDATE corrections SET case_state = {_STATE};
INSERT OR IGNORE INTO test_set_counts (agent_id, project_id, tenant_id)
    SELECT DISTINCT agent_id, project_id, tenant_id FROM hand_cases;
UPDATE test_set_counts SET
    active = active + (SELECT count(*) FROM hand_cases h WHERE h.agent_id = test_set_counts.agent_id
        AND h.project_id = test_set_counts.project_id AND h.tenant_id = test_set_counts.tenant_id
        AND NOT EXISTS (SELECT 1 FROM case_retirements t WHERE t.case_id = h.id)),
    retired = retired + (SELECT count(*) FROM hand_cases h
        WHERE h.agent_id = test_set_counts.agent_id AND h.project_id = test_set_counts.project_id
        AND h.tenant_id = test_set_counts.tenant_id
        AND EXISTS (SELECT 1 FROM case_retirements t WHERE t.case_id = h.id));
DROP INDEX corrections_cases;
DROP INDEX runs_replay_flag;
DROP INDEX verdicts_live_by_correction;
DROP INDEX verdicts_run;
DROP INDEX verdicts_corrector_item;
CREATE INDEX verdicts_run_item
    ON verdicts (run_id, item_key, asserted_by_id, coalesce(participant_id, ''));
CREATE INDEX corrections_case_page ON corrections (subject_id, project_id, created_at DESC, id DESC)
    WHERE case_state > 0
"""
