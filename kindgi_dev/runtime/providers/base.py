"""The one protocol every model adapter speaks, and what the HTTP adapters share.

An agent turn only ever calls `ModelAdapter.next_step(turn)`; whether a Python function,
an OpenAI-compatible server or Anthropic answers is the adapter's business.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable
from weakref import WeakKeyDictionary

from kindgi_dev.domain.errors import Unprocessable
from kindgi_dev.domain.json import JSON, JSONObject
from kindgi_dev.domain.narrow import is_number, object_of
from kindgi_dev.models import Reply, Turn

if TYPE_CHECKING:
    import httpx


@runtime_checkable
class ModelAdapter(Protocol):
    """Answers a turn with the model's next step: tool calls, or the answer."""

    @property
    def provider_id(self) -> str:
        """The provider's id, e.g. `openai`."""
        ...

    @property
    def model(self) -> str:
        """The model's name at that provider."""
        ...

    async def next_step(self, turn: Turn) -> Reply:
        """Ask the model what to do next, given everything the turn has so far."""
        ...


class ModelError(Exception):
    """The model could not answer; `message` is the provider's own words when it gave any."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.message = message
        self.status = status
        super().__init__(message)


class ModelUnavailable(Unprocessable):
    """No model is configured that can run this agent."""

    code: ClassVar[str] = "model-invocation-failed"


_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class ToolNames:
    """Maps tool ids (dotted) to names providers accept (`^[a-zA-Z0-9_-]{1,64}$`) and back."""

    def __init__(self, tool_ids: Iterable[str]) -> None:
        self._to_name: dict[str, str] = {}
        self._to_id: dict[str, str] = {}
        for tool_id in dict.fromkeys(tool_ids):
            name = _provider_name(tool_id)
            if name in self._to_id:
                name = _provider_name(tool_id, hashed=True)
            self._to_name[tool_id] = name
            self._to_id[name] = tool_id

    @classmethod
    def for_turn(cls, turn: Turn) -> ToolNames:
        """The names of the turn's tools and of every tool its messages called."""
        called = (call.tool_id for m in turn.messages for call in m.tool_calls)
        return cls([*(spec.id for spec in turn.tools), *called])

    def name(self, tool_id: str) -> str:
        """The provider-side name of `tool_id`."""
        return self._to_name.get(tool_id) or _provider_name(tool_id, hashed=True)

    def tool_id(self, name: str) -> str:
        """The tool id a provider-side name stands for (the name itself when unknown)."""
        return self._to_id.get(name, name)


def _provider_name(tool_id: str, *, hashed: bool = False) -> str:
    if not hashed and _TOOL_NAME.match(tool_id):
        return tool_id
    cleaned = re.sub(r"[^a-zA-Z0-9_-]", "_", tool_id) or "tool"
    if not hashed and len(cleaned) <= 64:
        return cleaned
    digest = hashlib.sha256(tool_id.encode()).hexdigest()[:8]
    return f"{cleaned[:55]}_{digest}"


def answer_format_note(schema: JSONObject) -> str:
    """What an HTTP model is told when the agent wants a typed answer.

    The models answer with one JSON object `{"answer": text, "output": value}` in their final
    message, which works on every OpenAI-compatible server and on Anthropic alike.
    """
    return (
        "When you give your final answer (not a tool call), reply with only one JSON object, "
        'no prose around it: {"answer": "<your reply to the user, in words>", '
        '"output": <a value that matches the JSON Schema below>}.\n'
        f"JSON Schema of output: {json.dumps(schema, sort_keys=True)}"
    )


def parse_answer(content: str | None, typed: bool) -> tuple[str | None, JSON]:
    """Split a final message into (text, typed output) as `answer_format_note` asked for it.

    A message that is not JSON stays text with no output (the turn then asks for a repair);
    a JSON value without the `answer`/`output` wrapper is taken as the output itself.
    """
    if not typed or content is None:
        return content, None
    stripped = _strip_fence(content.strip())
    try:
        value: JSON = json.loads(stripped)
    except ValueError:
        return content, None
    if isinstance(value, dict) and "output" in value and set(value) <= {"answer", "output"}:
        answer = value.get("answer")
        return (answer if isinstance(answer, str) else None), value["output"]
    return None, value


def _strip_fence(text: str) -> str:
    match = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, flags=re.DOTALL)
    return match.group(1) if match else text


def tool_result_text(content: JSON, error: str | None) -> str:
    """A tool result as the text a provider's model reads: JSON, or `{"error": ...}`."""
    payload: JSON = {"error": error} if error is not None else content
    return payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)


RATE_LIMITED = 429
RATE_LIMIT_RETRIES = 5
"""How many times a request the provider rate-limited is sent again before the turn fails."""
LONGEST_WAIT_S = 60.0
"""A provider asking for a longer wait than this fails the call instead of stalling it."""
IN_FLIGHT_PER_PROVIDER = 16
"""Requests in flight to one model server at once, however many runs want to ask it."""


async def post_json(
    client: httpx.AsyncClient | None,
    url: str,
    headers: dict[str, str],
    body: JSONObject,
    timeout_s: float,
    provider: str,
) -> JSONObject:
    """POST `body` and return the JSON answer; any failure becomes a `ModelError`.

    A 429 is sent again after the wait its `Retry-After` (or `retry-after-ms`) asks for,
    or a growing one when it names none, up to `RATE_LIMIT_RETRIES` times.
    """
    for attempt in range(RATE_LIMIT_RETRIES + 1):
        response = await _post(client, url, headers, body, timeout_s, provider)
        if response.status_code != RATE_LIMITED or attempt == RATE_LIMIT_RETRIES:
            break
        wait_s = retry_after(response.headers, attempt)
        if wait_s > LONGEST_WAIT_S:
            raise ModelError(
                f"{provider} is rate limited and asked to wait {wait_s:.0f} s: "
                f"{_error_message(response, provider)}",
                status=RATE_LIMITED,
            )
        await asyncio.sleep(wait_s)
    if not response.is_success:
        raise ModelError(_error_message(response, provider), status=response.status_code)
    try:
        answer: JSON = response.json()
    except ValueError as cause:
        raise ModelError(f"{provider} answered with a body that is not JSON.") from cause
    if not isinstance(answer, dict):
        raise ModelError(f"{provider} answered with JSON that is not an object.")
    return answer


async def _post(
    client: httpx.AsyncClient | None,
    url: str,
    headers: dict[str, str],
    body: JSONObject,
    timeout_s: float,
    provider: str,
) -> httpx.Response:
    import httpx  # at the first HTTP model call: a start with function models never needs it

    try:
        if client is None:
            async with httpx.AsyncClient(timeout=timeout_s) as own:
                return await own.post(url, headers=headers, json=body)
        async with _gate(client, url):
            return await client.post(url, headers=headers, json=body, timeout=timeout_s)
    except httpx.TimeoutException as cause:
        raise ModelError(f"{provider} did not answer within {timeout_s:g} s ({url}).") from cause
    except httpx.HTTPError as cause:
        raise ModelError(f"{provider} could not be reached at {url}: {cause}") from cause


def member(value: JSON, key: str) -> JSONObject:
    """The object at `key` of a provider's answer object, or `{}` when there is none."""
    return object_of(object_of(value).get(key))


def count(value: JSON) -> int:
    """A token count a provider answered, 0 when it gave none (or no number)."""
    return int(value) if is_number(value) else 0


def retry_after(headers: Mapping[str, str], attempt: int) -> float:
    """Seconds a rate-limited answer asks to wait: `retry-after-ms`, then `Retry-After` (seconds
    or an HTTP date); without either, 0.5 s doubled for each earlier attempt."""
    try:
        if "retry-after-ms" in headers:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if value is not None:
            if value.strip().replace(".", "", 1).isdigit():
                return float(value)
            when = parsedate_to_datetime(value)
            return max(0.0, (when - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError, IndexError):
        pass
    return 0.5 * 2.0**attempt


_GATES: WeakKeyDictionary[httpx.AsyncClient, dict[tuple[str, str, int | None], asyncio.Semaphore]]
_GATES = WeakKeyDictionary()
"""Each shared client's gates, one per model server (scheme, host, port)."""


def _gate(client: httpx.AsyncClient, url: str) -> asyncio.Semaphore:
    """The place in line to one model server, shared by every call through `client`."""
    import httpx

    parsed = httpx.URL(url)
    gates = _GATES.setdefault(client, {})
    key = (parsed.scheme, parsed.host, parsed.port)
    if key not in gates:
        gates[key] = asyncio.Semaphore(IN_FLIGHT_PER_PROVIDER)
    return gates[key]


def _error_message(response: httpx.Response, provider: str) -> str:
    """The body's `error.message` when there is one, else the status and the body's start."""
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if isinstance(message, str) and message:
        return message
    return f"{provider} answered HTTP {response.status_code}: {response.text[:300]}"
