"""A kept judging verdict names the case and the past run its question came from (the
case's `shouldSay`, the run's answer and its replay's, which its reason may quote), so an
erasure of either forgets it. Those kept before name neither: they are dropped (a run
asked to reuse asks the judge again, once), as no erasure could find them."""

SQL = """
DROP TABLE kept_verdicts;
CREATE TABLE kept_verdicts (
    judge TEXT NOT NULL,
    asked_hash TEXT NOT NULL,
    verdict TEXT NOT NULL,
    case_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    PRIMARY KEY (judge, asked_hash)
) WITHOUT ROWID;
"""
