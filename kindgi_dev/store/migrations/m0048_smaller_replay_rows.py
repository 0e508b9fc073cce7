"""A conversation's messages are stored in their key's own b-tree (`WITHOUT ROWID`): as a
rowid table each message kept its key (a 36-character conversation id and its place) twice,
in the row and in the key's index, about 50 bytes a message, and an agent replay writes
four. Same columns, same key: a conversation's messages are the same lookup, now in one
b-tree. (A conversation's row and a run's tool calls stay rowid tables: keyed by a text id
their b-tree is filled in the middle and left a fifth of each page empty, more than the
index they would save.)

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
    created_at TEXT NOT NULL,
    PRIMARY KEY (conversation_id, sequence)
) WITHOUT ROWID;
INSERT INTO conversation_messages_keyed SELECT conversation_id, sequence, role, content,
    tool_call, actor, run_id, created_at FROM conversation_messages;
DROP TABLE conversation_messages;
ALTER TABLE conversation_messages_keyed RENAME TO conversation_messages;
DROP INDEX runs_replay_of;
CREATE INDEX runs_replay_of ON runs (replay_of) WHERE replay_of IS NOT NULL AND eval_run_id IS NULL
"""
