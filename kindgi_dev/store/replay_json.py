"""How an agent replay's run keeps its output and context: without what its own row holds.

An eval run stores a replay's run for every case it replays, so what the turn's result
repeats of the row is left out and put back on read: its run and conversation ids, its
turn number (1: a replay opens its own conversation), the user's message (the run's
input), the response when it is the last message appended, the provider when it is the
row's provider and model, and the lists every turn result has that are empty. A context
of no retrievals is kept as `[history]`, `[history, true]` when truncated. Each part is
left out only when putting it back gives the same value, key order too; a stored output
with its `runId` is read as it is (a replay's stored before m0046, or one that differs).
"""

from __future__ import annotations

from ..domain.json import JSON, JSONObject

_ORDER = (
    "runId",
    "conversationId",
    "turnNumber",
    "appended",
    "response",
    "retrieved",
    "violations",
    "usage",
    "provider",
)
"""A turn result's first keys, in the order `turn_result` writes them; the others follow."""
_REPLIES = "replies"
"""Where a compact output keeps the messages appended after the user's own."""


def is_replay(eval_run_id: str | None, agent_id: str | None) -> bool:
    """Whether a run is an agent's replay, whose output and context are kept compact."""
    return eval_run_id is not None and agent_id is not None


def compact_output(
    output: JSON, run_id: str, conversation_id: str | None, provider: JSONObject, given: JSON
) -> JSON:
    """A replay's turn result as its row keeps it (the whole of it when some part would
    not be put back the same)."""
    if not isinstance(output, dict) or output.get("runId") != run_id:
        return output
    kept: JSONObject = {k: v for k, v in output.items() if k not in _ORDER[:3]}
    if output.get("turnNumber") != 1:
        kept["turnNumber"] = output.get("turnNumber")
    appended = output.get("appended")
    if isinstance(appended, list) and appended and _same(appended[0], _asked(given)):
        del kept["appended"]
        kept[_REPLIES] = appended[1:]
    if "response" not in output:
        kept["response"] = None
    elif isinstance(appended, list) and appended and _same(output["response"], appended[-1]):
        del kept["response"]
    for empty in ("retrieved", "violations"):
        if kept.get(empty) == []:
            del kept[empty]
    if _same(output.get("provider"), provider):
        kept.pop("provider", None)
    full = full_output(kept, run_id, conversation_id, provider, given)
    return kept if _same(full, output) else output


def full_output(
    kept: JSON, run_id: str, conversation_id: str | None, provider: JSONObject, given: JSON
) -> JSON:
    """A replay's turn result as it was, from what its row keeps."""
    if not isinstance(kept, dict) or "runId" in kept:
        return kept
    replies = kept.get(_REPLIES)
    appended = [_asked(given), *replies] if isinstance(replies, list) else kept.get("appended")
    found: JSONObject = {
        "runId": run_id,
        "conversationId": conversation_id,
        "turnNumber": kept.get("turnNumber", 1),
        "appended": appended,
    }
    last = appended[-1] if isinstance(appended, list) and appended else None
    response = kept.get("response", last)
    if response is not None:
        found["response"] = response
    found["retrieved"] = kept.get("retrieved", [])
    found["violations"] = kept.get("violations", [])
    if "usage" in kept:
        found["usage"] = kept["usage"]
    found["provider"] = kept.get("provider", provider)
    found.update((k, v) for k, v in kept.items() if k not in _ORDER and k != _REPLIES)
    return found


def compact_context(context: JSON) -> JSON:
    """A replay's context as its row keeps it: `[history]` (`[history, true]` when cut)
    when it retrieved nothing, else as it is."""
    if not isinstance(context, dict) or list(context) != ["history", "historyTruncated",
                                                          "retrieved"]:  # fmt: skip
        return context
    truncated = context["historyTruncated"]
    if context["retrieved"] != [] or not isinstance(truncated, bool):
        return context
    return [context["history"], True] if truncated else [context["history"]]


def full_context(kept: JSON) -> JSON:
    """A replay's context as it was, from what its row keeps."""
    if not isinstance(kept, list):
        return kept
    history = kept[0] if kept else []
    return {"history": history, "historyTruncated": len(kept) > 1, "retrieved": []}


def _asked(given: JSON) -> JSONObject:
    """The user's message a replay's turn appended first: its input's `userMessage`."""
    asked = given.get("userMessage") if isinstance(given, dict) else None
    return {"role": "user", "content": asked}


def _same(a: JSON, b: JSON) -> bool:
    """Whether two values are the same JSON, key order and kinds (`1`, `1.0`, `true`) too."""
    if a is b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
