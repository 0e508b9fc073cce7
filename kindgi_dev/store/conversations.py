"""Conversations and their messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..domain.json import JSON, JSONObject
from .db import Database, Row
from .jsoncol import dump, load
from .query import SQLValue, Where, chunks, marks
from .replay_json import is_replay, kept_as_is, same_json
from .runs import StoredRun
from .runs import get as get_run

_FIELDS = (
    "id, tenant_id, project_id, agent_id, agent_version, title, participant_id, opened_by, "
    "status, opened_at, closed_at, turn_count, last_message_at, replay, scope, metadata, "
    "unregistered_at"
)
_NAMES = [name.strip() for name in _FIELDS.split(",")]
_INSERT = f"INSERT INTO conversations ({_FIELDS}) VALUES ({', '.join('?' * len(_NAMES))})"
_READ = _FIELDS.replace(
    "last_message_at",
    "coalesce(last_message_at, CASE WHEN replay AND turn_count > 0 THEN (SELECT r.completed_at "
    "FROM runs r WHERE r.conversation_id = conversations.id AND r.eval_run_id IS NOT NULL "
    "ORDER BY r.created_at, r.id LIMIT 1) END) AS last_message_at",
)
"""A conversation's columns as read: a replay's last message time, which its row keeps
only when it is not its replay run's end (`_said_at`), read from its run then."""


@dataclass(frozen=True)
class StoredConversation:
    """A conversation as it is kept: the agent version it pins, who opened it for whom, its
    turns so far, and whether it is a replay's (an eval run's own) or was closed or
    unregistered; `scope` and `metadata` as they were given."""

    id: str
    tenant_id: str
    project_id: str
    agent_id: str
    agent_version: str
    title: str
    opened_by: str
    status: str
    opened_at: str
    participant_id: str | None = None
    closed_at: str | None = None
    turn_count: int = 0
    last_message_at: str | None = None
    replay: bool = False
    scope: JSONObject | None = None
    metadata: JSONObject | None = None
    unregistered_at: str | None = None


def _values(c: StoredConversation) -> tuple[SQLValue, ...]:
    """A conversation's columns, in `_FIELDS`' order."""
    return (
        c.id,
        c.tenant_id,
        c.project_id,
        c.agent_id,
        c.agent_version,
        c.title,
        c.participant_id,
        c.opened_by,
        c.status,
        c.opened_at,
        c.closed_at,
        c.turn_count,
        c.last_message_at,
        1 if c.replay else 0,
        dump(c.scope),
        dump(c.metadata),
        c.unregistered_at,
    )


def insert(db: Database, conversation: StoredConversation) -> None:
    """Open a conversation."""
    db.run(_INSERT, _values(conversation))


def insert_turns(
    db: Database,
    turns: Sequence[tuple[StoredConversation, StoredRun, Sequence[ConversationMessage]]],
) -> None:
    """Open conversations that each hold one finished turn (its run, messages) already
    counted in their row: an eval run's page of replays, in two statements. A replay's
    message is kept without its words and run when its words are its run's appended
    message's, read from there (`messages`: the run is its replay conversation's), and
    it and its conversation's last message time without it when it is its run's end
    (`_said_at`)."""
    with db.transaction() as conn:
        conn.executemany(
            _INSERT, [_values(replace(c, last_message_at=_said_at(c, run))) for c, run, _ in turns]
        )
        conn.executemany(
            "INSERT INTO conversation_messages (conversation_id, sequence, role, content, "
            "tool_call, actor, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (c.id, i, m.role, *_words(m, said[i] if i < len(said) else None, run.id),
                 _said_at(c, run))
                for c, run, items in turns
                for said in [_appended(run)]
                for i, m in enumerate(items)
            ],
        )  # fmt: skip


def _said_at(conversation: StoredConversation, run: StoredRun) -> str | None:
    """When a replay's messages were said, as their rows keep it: nothing when it is when
    its run ended (a replay's turn is kept all at once), read back from there."""
    at = conversation.last_message_at
    replayed = conversation.replay and is_replay(run.eval_run_id, run.agent_id)
    return None if replayed and at == run.completed_at else at


def _appended(run: StoredRun) -> list[JSON]:
    """The messages a replay's run appended, as its output keeps them (none for another run)."""
    output = run.output if is_replay(run.eval_run_id, run.agent_id) else None
    appended = output.get("appended") if isinstance(output, dict) else None
    return appended if isinstance(appended, list) else []


def _words(
    message: ConversationMessage, said: JSON, run_id: str
) -> tuple[str | None, str | None, str | None, str | None]:
    """A message's content, tool call, actor and run as its row keeps them: only its actor
    when the others are those of its replay run's appended message `said` (and read back
    from it as they are)."""
    if isinstance(said, dict) and _same_words(message, said):
        return None, None, message.actor, None
    return dump(message.content), dump(message.tool_call), message.actor, run_id


def _same_words(message: ConversationMessage, said: JSONObject) -> bool:
    """Whether a message says what the appended message it was made from does."""
    content, tool_call = said.get("content"), said.get("toolCall") or None
    return (
        same_json(message.content, content)
        and same_json(message.tool_call, tool_call)
        and kept_as_is(content)
        and kept_as_is(tool_call)
    )


def get(db: Database, conversation_id: str) -> StoredConversation | None:
    """One conversation, unregistered or not."""
    row = db.one(f"SELECT {_READ} FROM conversations WHERE id = ?", (conversation_id,))
    return _conversation(row) if row else None


def _conversation(row: Row) -> StoredConversation:
    """A read row as its record, `scope` and `metadata` loaded."""
    found = dict(zip(row.keys(), row, strict=True))
    found["scope"] = _object(load(row["scope"]))
    found["metadata"] = _object(load(row["metadata"]))
    found["replay"] = bool(row["replay"])
    return StoredConversation(**found)


def _object(value: JSON) -> JSONObject | None:
    return value if isinstance(value, dict) else None


def close(db: Database, conversation_id: str, at: str) -> None:
    """Close an open conversation at `at` (a closed one keeps its time)."""
    db.run(
        "UPDATE conversations SET status = 'closed', closed_at = ? "
        "WHERE id = ? AND status = 'open'",
        (at, conversation_id),
    )


def unregister(db: Database, conversation_id: str, at: str) -> None:
    """Tombstone a conversation: no read or list returns it from now on."""
    db.run(
        "UPDATE conversations SET unregistered_at = ? WHERE id = ? AND unregistered_at IS NULL",
        (at, conversation_id),
    )


def list_page(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: Sequence[SQLValue] | None,
    filters: Mapping[str, SQLValue],
    replays: str,
) -> list[StoredConversation]:
    """Up to `limit + 1` conversations, newest first."""
    where = Where("tenant_id = ? AND unregistered_at IS NULL", tenant_id)
    where.equal(filters)
    if replays == "exclude":
        where.add("replay = 0")
    elif replays == "only":
        where.add("replay = 1")
    where.after(after, "opened_at, id")
    rows = db.all(
        f"SELECT {_READ} FROM conversations WHERE {where} ORDER BY opened_at DESC, id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [_conversation(row) for row in rows]


@dataclass(frozen=True)
class ConversationMessage:
    """A message of a conversation: who said it (`role`), what (`content`, kept as JSON), the
    tool call it made, and when; `sequence` is its place, given when it is stored."""

    role: str
    content: JSON = None
    tool_call: JSON = None
    actor: str | None = None
    created_at: str | None = None
    sequence: int | None = None


def messages(
    db: Database, conversation_id: str, *, after: int = -1, limit: int = -1
) -> list[ConversationMessage]:
    """A conversation's messages in order; a replay's with the words its row left out put
    back from its run's output."""
    rows = db.all(
        "SELECT sequence, role, content, tool_call, actor, created_at, run_id "
        "FROM conversation_messages WHERE conversation_id = ? AND sequence > ? "
        "ORDER BY sequence LIMIT ?",
        (conversation_id, after, limit),
    )
    said = _said(db, conversation_id, rows)
    said_at = _said_when(db, conversation_id, rows)
    found = []
    for r in rows:
        content, tool_call = load(r["content"]), load(r["tool_call"])
        appended = said.get(r["run_id"], [])
        if r["run_id"] in said and r["sequence"] < len(appended):
            message = appended[r["sequence"]]
            if isinstance(message, dict):
                content, tool_call = message.get("content"), message.get("toolCall") or None
        found.append(
            ConversationMessage(
                role=r["role"],
                content=content,
                tool_call=tool_call,
                actor=r["actor"],
                created_at=r["created_at"] or said_at,
                sequence=r["sequence"],
            )
        )
    return found


def _said(db: Database, conversation_id: str, rows: Sequence[Row]) -> dict[str | None, list[JSON]]:
    """What the runs of the messages in `rows` that keep no words appended, by the run each
    names (None: the replay run of the conversation, whose messages keep no run): only in
    a replay's conversation."""
    runs = {r["run_id"] for r in rows if r["content"] is None and r["tool_call"] is None}
    if not runs:
        return {}
    row = db.one("SELECT replay FROM conversations WHERE id = ?", (conversation_id,))
    if row is None or not row["replay"]:
        return {}
    found: dict[str | None, list[JSON]] = {}
    for named in runs:
        run = get_run(db, named) if named is not None else _replay_run(db, conversation_id)
        if run is not None:
            found[named] = _appended(run)
    return found


def _said_when(db: Database, conversation_id: str, rows: Sequence[Row]) -> str | None:
    """When the conversation's replay run ended, if a message of `rows` keeps no time of
    its own (a replay's: `_said_at`)."""
    if all(r["created_at"] is not None for r in rows):
        return None
    row = db.one(
        "SELECT completed_at FROM runs WHERE conversation_id = ? AND eval_run_id IS NOT NULL "
        "ORDER BY created_at, id LIMIT 1",
        (conversation_id,),
    )
    return str(row["completed_at"]) if row else None


def _replay_run(db: Database, conversation_id: str) -> StoredRun | None:
    """The replay run a replay's conversation was opened for."""
    row = db.one(
        "SELECT id FROM runs WHERE conversation_id = ? AND eval_run_id IS NOT NULL "
        "ORDER BY created_at, id LIMIT 1",
        (conversation_id,),
    )
    return get_run(db, row["id"]) if row else None


def append(
    db: Database, conversation_id: str, run_id: str, items: Sequence[ConversationMessage], at: str
) -> None:
    """Add a turn's messages (made `at`) and count the turn."""
    with db.transaction() as conn:
        last = conn.execute(
            "SELECT coalesce(max(sequence), -1) FROM conversation_messages "
            "WHERE conversation_id = ?",
            (conversation_id,),
        ).fetchone()[0]
        conn.executemany(
            "INSERT INTO conversation_messages (conversation_id, sequence, role, content, "
            "tool_call, actor, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    conversation_id,
                    last + 1 + i,
                    m.role,
                    dump(m.content),
                    dump(m.tool_call),
                    m.actor,
                    run_id,
                    at,
                )
                for i, m in enumerate(items)
            ],
        )
        conn.execute(
            "UPDATE conversations SET turn_count = turn_count + 1, last_message_at = ? "
            "WHERE id = ?",
            (at, conversation_id),
        )


def turn_runs(db: Database, conversation_id: str) -> list[str]:
    """The runs of a conversation's turns, oldest first."""
    rows = db.all(
        "SELECT id FROM runs WHERE conversation_id = ? ORDER BY created_at, id",
        (conversation_id,),
    )
    return [r["id"] for r in rows]


def of_participant(db: Database, tenant_id: str, participant_id: str) -> list[str]:
    """The conversations an app's end user had."""
    rows = db.all(
        "SELECT id FROM conversations WHERE tenant_id = ? AND participant_id = ?",
        (tenant_id, participant_id),
    )
    return [r["id"] for r in rows]


def erase(db: Database, conversation_ids: Sequence[str], at: str) -> int:
    """Clear the words of these conversations (messages, titles, who they were with), keeping
    their structure, and close the open ones at `at`: a turn there would keep new words
    where no erasure of the person finds them. How many messages were cleared."""
    cleared = 0
    for chunk in chunks(conversation_ids):
        places = marks(chunk)
        cleared += db.run(
            "UPDATE conversation_messages SET content = NULL, tool_call = NULL "
            f"WHERE conversation_id IN ({places})",
            chunk,
        )
        db.run(
            "UPDATE conversations SET title = '', participant_id = NULL, scope = NULL, "
            "metadata = NULL, status = 'closed', closed_at = coalesce(closed_at, ?) "
            f"WHERE id IN ({places})",
            [at, *chunk],
        )
    return cleared
