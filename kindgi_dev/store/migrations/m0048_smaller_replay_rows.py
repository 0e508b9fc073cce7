"""A conversation's messages are stored in their key's own b-tree (`WITHOUT ROWID`): as a
rowid table each message kept its key (a 36-character conversation id and its place) twice,
in the row and in the key's index, about 50 bytes a message, and an agent replay writes
four. Same columns, same key, the same lookup, now in one b-tree. An eval replay's message
keeps no time when it is when its run ended (read back from there: a replay's turn is kept
all at once), so the time may be null. (A conversation's row and a run's tool calls stay
rowid tables: measured as keyed tables, their pages were left emptier than a rowid table's
append leaves them, by more than the index they would save.)

The table is copied and renamed; its key points at `conversations` as before. An eval
replay's `replay_of` is never looked up (its source run's replays are found by eval run),
so `runs_replay_of` holds only the replays an eval run did not make."""

SQL = """
CREATE TABLE conversation_messages_keyed (
    conversation_id TEXT NOT NULL REFERENCES conversations (id),
    sequence INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT,
    tool_call TEXT,
    actor TEXT,
    run_id TEXT,
    created_at TEXT,
    PRIMARY KEY (conversation_id, sequence)
) WITHOUT ROWID;
INSERT INTO conversation_messages_keyed SELECT m.conversation_id, m.sequence, m.role,
    m.content, m.tool_call, m.actor, m.run_id,
    CASE WHEN c.replay AND m.created_at = (
        SELECT completed_at FROM runs WHERE conversation_id = c.id AND eval_run_id IS NOT NULL
        ORDER BY created_at, id LIMIT 1
    ) THEN NULL ELSE m.created_at END
    FROM conversation_messages m LEFT JOIN conversations c ON c.id = m.conversation_id;
DROP TABLE conversation_messages;
ALTER TABLE conversation_messages_keyed RENAME TO conversation_messages;
DROP INDEX runs_replay_of;
CREATE INDEX runs_replay_of ON runs (replay_of) WHERE replay_of IS NOT NULL AND eval_run_id IS NULL
"""
