"""Memory facts: what one is, who sees it, which revision a time reads, how a query ranks it,
and what an agent's `kindgi_remember` call writes.

A fact keeps every revision: the first is version 1; superseding or verifying writes the
next and closes the current one (`invalidatedAt`). Its scope is the JSON the client sends
(`tenantId` and the keys that narrow it); the rules here read it, they never reshape it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import timedelta

from .errors import ValidationFailed
from .json import JSON, JSONObject
from .narrow import object_of
from .time import format_time, parse_time

REMEMBER_TOOL = "kindgi_remember"
REMEMBER_VERSION = "1.0.0"
REMEMBER_MAX_TEXT = 2000
REMEMBER_KEEP_DAYS = 30
NARROWING_KEYS = ("userId", "orgId", "projectId", "threadId", "sessionId", "participantId")
WIDE_SCOPES = ("same-project", "tenant")
"""Remember scopes wider than one person: a person approves such a fact before a read sees it."""
_INSTRUCTION = re.compile(
    r"^\s*(ignore|disregard|always|never|you must|you should|from now on|do not)\b", re.I
)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class FactSubject:
    """Whom a fact is about: an app's end user (`participant`), a user, or an `external` id."""

    kind: str
    id: str


@dataclass(frozen=True)
class FactAttribution:
    """Who asserted a fact: the writer's principal, or the agent version that remembered it."""

    kind: str
    id: str
    agent_version: str | None = None


@dataclass(frozen=True)
class FactGeneratedBy:
    """The run step that wrote a fact an agent remembered."""

    run_id: str
    tool_call_id: str | None = None


@dataclass(frozen=True)
class Retention:
    """How long a fact is kept: until a time, or for days from its first write."""

    keep_until: str | None = None
    keep_days: int | None = None
    legal_hold: bool | None = None


@dataclass(frozen=True)
class Fact:
    """One revision of a fact, as reads return it; `revision_id` only where it isn't `id`."""

    id: str
    version: int
    type: str
    scope: JSONObject
    created_at: str
    content: JSON
    content_hash: str
    size: int
    trust: str
    revision_id: str | None = None
    updated_at: str | None = None
    retention: Retention | None = None
    subjects: tuple[FactSubject, ...] | None = None
    attributed_to: FactAttribution | None = None
    generated_by: FactGeneratedBy | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    observed_at: str | None = None
    verified_by: str | None = None
    verified_at: str | None = None
    supersedes: str | None = None
    review: str | None = None
    expires_at: str | None = None
    invalidated_at: str | None = None
    invalidated_by: str | None = None
    invalidation_reason: str | None = None


def check_scope(scope: Mapping[str, JSON], tenant_id: str) -> None:
    """A written scope names this tenant, and a participant's fact names its project."""
    if scope.get("tenantId") != tenant_id:
        raise ValidationFailed("scope/tenantId", "must be this tenant's id")
    if scope.get("participantId") is not None and not scope.get("projectId"):
        raise ValidationFailed("scope/participantId", "needs scope/projectId")
    for key in NARROWING_KEYS:
        if key in scope and not isinstance(scope[key], str):
            raise ValidationFailed(f"scope/{key}", "must be a string")


def hash_of(content: JSON) -> str:
    """The hex SHA-256 of a content's canonical JSON."""
    return hashlib.sha256(canonical(content)).hexdigest()


def canonical(content: JSON) -> bytes:
    """Content as sorted compact JSON: what its hash and size are taken over."""
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def visible_to(fact: Fact, user_id: str, *, admin: bool) -> bool:
    """The tenant's admin sees every fact; anyone else all but other users' own facts."""
    owner = fact.scope.get("userId")
    return admin or owner is None or owner == user_id


def matches(scope: Mapping[str, JSON], partial: Mapping[str, JSON]) -> bool:
    """Whether a fact's scope has every key of a partial scope, with the same value."""
    return all(scope.get(key) == value for key, value in partial.items())


def expiry(created_at: str, retention: Retention | None, unverified_days: int | None) -> str | None:
    """When a revision stops being readable: its retention, or an unverified window."""
    if retention is not None and retention.keep_until is not None:
        return retention.keep_until
    days = retention.keep_days if retention is not None and retention.keep_days else None
    days = days or unverified_days
    if days is None:
        return None
    return format_time(parse_time(created_at) + timedelta(days=days))


def readable(fact: Fact, now: str) -> bool:
    """Not past its expiry."""
    return fact.expires_at is None or fact.expires_at > now


def as_of(revisions: Iterable[Fact], moment: str) -> Fact | None:
    """The revision that was current at `moment` (written by then, not yet closed)."""
    found = [
        f
        for f in revisions
        if f.created_at <= moment and (f.invalidated_at is None or f.invalidated_at > moment)
    ]
    return max(found, key=lambda f: f.version) if found else None


def keyword_score(query: str, content: JSON) -> float:
    """How many of the query's words the content holds, over the query's words (0 to 1)."""
    wanted = {w.lower() for w in _WORD.findall(query)}
    if not wanted:
        return 0.0
    held = {w.lower() for w in _WORD.findall(json.dumps(content, ensure_ascii=False))}
    return len(wanted & held) / len(wanted)


def next_revision(fact: Fact, revision_id: str, at: str) -> Fact:
    """The revision after `fact` (given with the new revision's changes already made): one
    version more, current, replacing it."""
    return replace(
        fact,
        revision_id=revision_id,
        version=fact.version + 1,
        created_at=at,
        updated_at=at,
        supersedes=fact.revision_id or fact.id,
        invalidated_at=None,
        invalidated_by=None,
        invalidation_reason=None,
    )


@dataclass(frozen=True)
class RememberPolicy:
    """An agent's `memory.remember`: the fact types it may write, where, for how long."""

    types: tuple[str, ...]
    scope: str
    keep_days: int

    @classmethod
    def of(cls, agent: Mapping[str, JSON]) -> RememberPolicy | None:
        """The agent's policy, or None when it doesn't remember."""
        remember = object_of(agent.get("memory")).get("remember")
        types = remember.get("types") if isinstance(remember, dict) else None
        if not isinstance(remember, dict) or not isinstance(types, list) or not types:
            return None
        days = remember.get("keepDays")
        return cls(
            types=tuple(str(t) for t in types),
            scope=str(remember.get("scope") or "same-user"),
            keep_days=days if isinstance(days, int) and days >= 1 else REMEMBER_KEEP_DAYS,
        )

    def manifest(self) -> JSONObject:
        """The built-in tool the turn offers the model, shaped as a pack tool's manifest."""
        return {
            "id": REMEMBER_TOOL,
            "version": REMEMBER_VERSION,
            "description": "Remember a fact about the person for later conversations.",
            "input": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": list(self.types)},
                    "text": {"type": "string", "minLength": 1, "maxLength": REMEMBER_MAX_TEXT},
                    "key": {"type": "string", "minLength": 1},
                    "validUntil": {"type": "string", "format": "date-time"},
                },
                "required": ["type", "text"],
            },
            "output": {"type": "object"},
            "mutating": True,
            "effects": [{"kind": "writes", "resource": "memory"}],
        }


@dataclass(frozen=True)
class RunPlace:
    """Where a run stands, for the scope of a fact it remembers."""

    tenant_id: str
    project_id: str
    conversation_id: str
    participant_id: str | None
    user_id: str


@dataclass(frozen=True)
class Remembered:
    """What a `kindgi_remember` call asks to write: type, content, scope, review and expiry."""

    type: str
    content: JSONObject
    scope: JSONObject
    pending: bool
    keep_days: int
    valid_until: str | None
    key: str | None


def remembered(policy: RememberPolicy, arguments: JSON, place: RunPlace) -> Remembered | str:
    """The fact a call writes, or the reason it writes none (told to the model)."""
    if not isinstance(arguments, dict):
        return "kindgi_remember takes an object with type and text"
    kind, text, key = arguments.get("type"), arguments.get("text"), arguments.get("key")
    if kind not in policy.types:
        return f"kindgi_remember: this agent remembers only {', '.join(policy.types)}"
    if not isinstance(text, str) or not text.strip() or len(text) > REMEMBER_MAX_TEXT:
        return f"kindgi_remember: text must be 1 to {REMEMBER_MAX_TEXT} characters"
    if key is not None and (not isinstance(key, str) or not key):
        return "kindgi_remember: key must be a non-empty string"
    until = arguments.get("validUntil")
    try:
        valid_until = None if until is None else format_time(parse_time(str(until)))
    except ValueError:
        return "kindgi_remember: validUntil must be a date-time with a zone"
    content: JSONObject = {"text": text} if key is None else {"text": text, "key": key}
    pending = policy.scope in WIDE_SCOPES or bool(_INSTRUCTION.match(text))
    return Remembered(
        str(kind),
        content,
        scope_of(policy.scope, place),
        pending,
        policy.keep_days,
        valid_until,
        key,
    )


def scope_of(where: str, place: RunPlace) -> JSONObject:
    """A remembered fact's scope: the end user's (else the run's user), the conversation's,
    the project's, or the tenant's; each but the tenant's in the run's project."""
    if where == "tenant":
        return {"tenantId": place.tenant_id}
    scope: JSONObject = {"tenantId": place.tenant_id, "projectId": place.project_id}
    if where == "same-conversation":
        scope["threadId"] = place.conversation_id
    elif where != "same-project":
        if place.participant_id is not None:
            scope["participantId"] = place.participant_id
        else:
            scope["userId"] = place.user_id
    return scope
