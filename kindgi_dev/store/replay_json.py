"""How an agent replay's run keeps its output and context: without what its own row holds.

An eval run stores a replay's run for every case it replays, so what the turn's result
repeats of the row is left out and put back on read: its run and conversation ids, its
turn number (1: a replay opens its own conversation), the user's message (the run's
input), the response when it is the last message appended, the provider when it is the
row's provider and model, and the lists every turn result has that are empty; its input
of the user's message alone is kept as the message, its usage
is kept as its values, an agent's message of words alone as the words and one of tool
calls alone as their number. A context
of no retrievals is kept as `[history]`, `[history, true]` when truncated. Each part is
left out only when putting it back gives the same value, key order too; a stored output
with its `runId` is read as it is (a replay's stored before m0046, or one that differs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..domain.json import JSON, JSONObject
from ..domain.stored_values import COPY_DEPTH, clean_text
from .jsoncol import dump, load

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
SAME_AS_END = ""
"""A replay's `updated_at` as its row keeps it when it is its `completed_at` (a replay is
kept once it ended), read back from there: never a time, so never one kept."""
USAGE = ("steps", "promptTokens", "completionTokens", "totalCostUsd", "durationMs")
"""A turn's usage's keys, in the order `agent_turn` writes them: a compact output keeps
their values as a list (`store.cost` reads either)."""


def is_replay(eval_run_id: str | None, agent_id: str | None) -> bool:
    """Whether a run is an agent's replay, whose output and context are kept compact."""
    return eval_run_id is not None and agent_id is not None


@dataclass(frozen=True)
class RowParts:
    """What a replay's row and its tool calls hold that its turn result repeats: its ids,
    the provider it names, its input, and its tool calls as stored (read only when needed)."""

    run_id: str
    conversation_id: str | None
    provider_id: str | None
    model: str | None
    given: JSON
    calls: Callable[[], Sequence[JSONObject]] = tuple

    @property
    def provider(self) -> JSONObject:
        """The provider as a turn result names it."""
        return {"id": self.provider_id, "model": self.model}


def compact_output(output: JSON, row: RowParts) -> JSON:
    """A replay's turn result as its row keeps it (the whole of it when some part would
    not be put back the same)."""
    if not isinstance(output, dict) or output.get("runId") != row.run_id:
        return output
    kept: JSONObject = {k: v for k, v in output.items() if k not in _ORDER[:3]}
    if output.get("turnNumber") != 1:
        kept["turnNumber"] = output.get("turnNumber")
    appended = output.get("appended")
    if isinstance(appended, list) and appended and same_json(appended[0], _asked(row.given)):
        del kept["appended"]
        kept[_REPLIES] = [_short(m) for m in _folded(appended[1:], row.calls())]
    if "response" not in output:
        kept["response"] = None
    elif isinstance(appended, list) and appended and same_json(output["response"], appended[-1]):
        del kept["response"]
    for empty in ("retrieved", "violations"):
        if kept.get(empty) == []:
            del kept[empty]
    if same_json(output.get("provider"), row.provider):
        kept.pop("provider", None)
    usage = kept.get("usage")
    if isinstance(usage, dict) and list(usage) == list(USAGE):
        kept["usage"] = list(usage.values())
    full = full_output(kept, row)
    return kept if same_json(full, output) else output


def full_output(kept: JSON, row: RowParts) -> JSON:
    """A replay's turn result as it was, from what its row keeps."""
    if not isinstance(kept, dict) or "runId" in kept:
        return kept
    replies = kept.get(_REPLIES)
    appended = (
        [_asked(row.given), *_unfolded([_long(m) for m in replies], row.calls)]
        if isinstance(replies, list)
        else kept.get("appended")
    )
    found: JSONObject = {
        "runId": row.run_id,
        "conversationId": row.conversation_id,
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
        usage = kept["usage"]
        found["usage"] = (
            dict(zip(USAGE, usage, strict=True))
            if isinstance(usage, list) and len(usage) == len(USAGE)
            else usage
        )
    found["provider"] = kept.get("provider", row.provider)
    found.update((k, v) for k, v in kept.items() if k not in _ORDER and k != _REPLIES)
    return found


def _folded(replies: list[JSON], calls: Sequence[JSONObject]) -> list[JSON]:
    """The messages after the user's, each agent message whose tool calls and the tool
    messages after it are the stored calls' kept as `toolCalls: n`, the tool messages left
    out (every agent message with calls takes the next ones, folded or not)."""
    folded: list[JSON] = []
    at = taken = 0
    while at < len(replies):
        message = replies[at]
        asked = message.get("toolCalls") if isinstance(message, dict) else None
        if message_calls := (asked if isinstance(asked, list) else []):
            mine = calls[taken : taken + len(message_calls)]
            taken += len(message_calls)
            answers = replies[at + 1 : at + 1 + len(mine)]
            if (
                len(mine) == len(message_calls)
                and same_json(message_calls, [_asked_call(c) for c in mine])
                and same_json(answers, [_tool_message(c) for c in mine])
                and all(_stored_as_is(c) for c in mine)
            ):
                assert isinstance(message, dict)
                folded.append({**message, "toolCalls": len(mine)})
                at += 1 + len(mine)
                continue
        folded.append(message)
        at += 1
    return folded


def _short(message: JSON) -> JSON:
    """An agent's message as a compact output keeps it: its words alone as the string, one
    of folded tool calls alone as their number (`_long` puts it back)."""
    if not isinstance(message, dict) or message.get("role") != "agent":
        return message
    keys, content = list(message), message.get("content")
    if keys == ["role", "content"] and isinstance(content, str):
        return content
    calls = message.get("toolCalls")
    if keys == ["role", "content", "toolCalls"] and content is None and type(calls) is int:
        return calls
    return message


def _long(message: JSON) -> JSON:
    """A kept reply as the agent's message it stands for (`_short`'s)."""
    if isinstance(message, str):
        return {"role": "agent", "content": message}
    if type(message) is int:
        return {"role": "agent", "content": None, "toolCalls": message}
    return message


def _unfolded(replies: list[JSON], calls: Callable[[], Sequence[JSONObject]]) -> list[JSON]:
    """The messages after the user's as they were appended, from their folded form."""
    if not any(isinstance(m, dict) and isinstance(m.get("toolCalls"), int) for m in replies):
        return replies
    stored, taken = calls(), 0
    found: list[JSON] = []
    for message in replies:
        asked = message.get("toolCalls") if isinstance(message, dict) else None
        if isinstance(asked, int) and isinstance(message, dict):
            mine = stored[taken : taken + asked]
            found.append({**message, "toolCalls": [_asked_call(c) for c in mine]})
            found.extend(_tool_message(c) for c in mine)
        else:
            found.append(message)
        taken += asked if isinstance(asked, int) else len(asked) if isinstance(asked, list) else 0
    return found


def _asked_call(call: JSONObject) -> JSONObject:
    """A stored tool call as the agent message that made it names it."""
    return {"id": call["callId"], "toolId": call["toolId"], "arguments": call["arguments"]}


def _tool_message(call: JSONObject) -> JSONObject:
    """The tool message a stored call's answer appended: its result, or else its error."""
    error = call.get("error")
    return {
        "role": "tool",
        "content": call.get("result") if error is None else {"error": error},
        "toolCall": {"toolId": call["toolId"], "invocationId": call["callId"]},
    }


def _stored_as_is(call: JSONObject) -> bool:
    """Whether a call's arguments and result read back from their columns, and from the
    output they are put back in, as they are."""
    return kept_as_is(call.get("arguments")) and kept_as_is(call.get("result"))


def kept_as_is(value: JSON) -> bool:
    """Whether a value reads back from a JSON column as it is, alone or a few levels inside
    a run's output: `jsoncol.dump` keeps a value too deep, not finite or not UTF-8 repaired,
    and a repaired value would not put back the part it was copied from. A string, most of
    a replay's messages, is told without the round trip: kept unless it holds a lone
    surrogate or the brackets of a value too deep."""
    if type(value) is str:
        brackets = value.count("[") + value.count("{")
        return brackets <= COPY_DEPTH // 2 and clean_text(value) is value
    text = dump(value)
    if text is None:
        return True
    return text.count("[") + text.count("{") <= COPY_DEPTH // 2 and same_json(load(text), value)


def compact_input(given: JSON) -> JSON:
    """A replay's input as its row keeps it: the user's message alone when that is all it
    has (`{"userMessage": "…"}` as `"…"`), else as it is."""
    if isinstance(given, dict) and list(given) == ["userMessage"]:
        asked = given["userMessage"]
        return asked if isinstance(asked, str) else given
    return given


def full_input(kept: JSON) -> JSON:
    """A replay's input as it was, from what its row keeps (an agent's input is an object)."""
    return {"userMessage": kept} if isinstance(kept, str) else kept


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


def same_json(a: JSON, b: JSON) -> bool:
    """Whether two values are the same JSON, key order and kinds (`1`, `1.0`, `true`) too."""
    if a is b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
