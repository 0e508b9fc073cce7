"""The typed API of function models: the turn a model is asked about, and its reply.

A pack names a file of function models in `[tool.kindgi-dev] models = "dev_models.py"`
(or `kindgi dev --models FILE`). Each function decorated with `@model` gets a `Turn`
and returns a `Reply` (or a plain string, read as the answer's text):

    from kindgi_dev.models import Reply, ToolCall, Turn, model

    @model(default=True)
    def picker(turn: Turn) -> Reply:
        if not turn.tool_results():
            search = ToolCall("acme-ops.search-articles", {"query": turn.question()})
            return Reply(tool_calls=[search])
        return Reply(text="Here you go.", output={"articles": []})

This is how kindgi dev runs agents deterministically, with no network.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .domain.json import JSON, JSONObject

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool the agent may call, as the model sees it."""

    id: str
    version: str
    description: str
    input_schema: JSONObject
    mutating: bool | None = None
    effects: tuple[JSONObject, ...] = ()


@dataclass(frozen=True)
class ToolCall:
    """One call the model asks for; `id` ties the result back to it."""

    tool_id: str
    arguments: JSONObject
    id: str = field(default_factory=lambda: "call_" + uuid.uuid4().hex[:24])


@dataclass(frozen=True)
class Message:
    """One message of the conversation the model reads.

    `tool` messages carry a result (or `error`) for `tool_call_id`; `assistant`
    messages may carry the calls they asked for.
    """

    role: Role
    content: JSON
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_id: str | None = None
    error: str | None = None


# A public name pack authors import; services.cost.Usage is the API's usage window.
@dataclass(frozen=True)
class Usage:
    """Tokens a step used, when the provider says."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


# A public name pack authors import; domain.cost.Turn is what a run recorded for its cost.
@dataclass(frozen=True)
class Turn:
    """What a model is asked: the agent, its instructions, the messages so far, its tools.

    `messages` opens with the instructions as a `system` message, then the conversation so
    far and the user's message; a later `system` message asks to repair a typed answer.
    """

    agent_id: str
    agent_version: str
    instructions: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    output_schema: JSONObject | None = None
    model: str | None = None
    step: int = 0

    def question(self) -> str:
        """The text of the last user message."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.content if isinstance(message.content, str) else str(message.content)
        return ""

    def tool_results(self) -> list[Message]:
        """The tool results this turn has had so far (after its user message), in order."""
        last_user = max((i for i, m in enumerate(self.messages) if m.role == "user"), default=-1)
        return [m for m in self.messages[last_user + 1 :] if m.role == "tool"]


@dataclass(frozen=True)
class Reply:
    """A model's next step: tool calls to make, or the answer (text and/or typed `output`)."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] | list[ToolCall] = ()
    output: JSON = None
    usage: Usage = field(default_factory=Usage)
    model: str | None = None


FunctionModel = Callable[[Turn], "Reply | str"]

REGISTRY_ATTRIBUTE = "__kindgi_dev_model__"


@dataclass(frozen=True)
class ModelMark:
    """What `@model` records on a function: its name and whether it is the default."""

    name: str
    default: bool


def model(
    name: str | None = None, *, default: bool = False
) -> Callable[[FunctionModel], FunctionModel]:
    """Mark a function as a model named `name` (the function's name by default)."""

    def mark(function: FunctionModel) -> FunctionModel:
        setattr(function, REGISTRY_ATTRIBUTE, ModelMark(name or function.__name__, default))
        return function

    return mark
