"""Conversations and their messages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .db import Database
from .jsoncol import dump, load
from .query import Where

_FIELDS = (
    "id, tenant_id, project_id, agent_id, agent_version, title, participant_id, opened_by, "
    "status, opened_at, closed_at, turn_count, last_message_at, replay"
)


def insert(db: Database, conversation: dict[str, Any]) -> None:
    """Open a conversation."""
    db.run(
        f"INSERT INTO conversations ({_FIELDS}) VALUES ({', '.join('?' * 14)})",
        [conversation.get(name.strip()) for name in _FIELDS.split(",")],
    )


def get(db: Database, conversation_id: str) -> dict[str, Any] | None:
    """One conversation."""
    row = db.one(f"SELECT {_FIELDS} FROM conversations WHERE id = ?", (conversation_id,))
    return dict(row) if row else None


def list_page(
    db: Database,
    tenant_id: str,
    *,
    limit: int,
    after: list[Any] | None,
    filters: dict[str, Any],
    replays: str,
) -> list[dict[str, Any]]:
    """Up to `limit + 1` conversations, newest first."""
    where = Where("tenant_id = ?", tenant_id)
    where.equal(filters)
    if replays == "exclude":
        where.add("replay = 0")
    elif replays == "only":
        where.add("replay = 1")
    where.after(after, "opened_at, id")
    rows = db.all(
        f"SELECT {_FIELDS} FROM conversations WHERE {where} "
        "ORDER BY opened_at DESC, id DESC LIMIT ?",
        [*where.params, limit + 1],
    )
    return [dict(row) for row in rows]


@dataclass(frozen=True)
class Message:
    """A message of a conversation: who said it (`role`), what (`content`, kept as JSON), the
    tool call it made, and when; `sequence` is its place, given when it is stored."""

    role: str
    content: Any = None
    tool_call: Any = None
    actor: str | None = None
    created_at: str | None = None
    sequence: int | None = None


def messages(
    db: Database, conversation_id: str, *, after: int = -1, limit: int = -1
) -> list[Message]:
    """A conversation's messages in order."""
    rows = db.all(
        "SELECT sequence, role, content, tool_call, actor, created_at FROM conversation_messages "
        "WHERE conversation_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
        (conversation_id, after, limit),
    )
    return [
        Message(
            role=r["role"],
            content=load(r["content"]),
            tool_call=load(r["tool_call"]),
            actor=r["actor"],
            created_at=r["created_at"],
            sequence=r["sequence"],
        )
        for r in rows
    ]


def append(
    db: Database, conversation_id: str, run_id: str, items: Sequence[Message], at: str
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
