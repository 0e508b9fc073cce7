"""A help-desk pack for the features an app relies on deployed: conversations, a tool that
needs an approval, guardrails and memory. Written into a folder, served in-process with its
real pack service (`desk_served`) or by the real `kindgi dev` (the e2e tests).

The function model answers by the user's message:

- `Refund order <id>.`: calls `acme-desk.issue-refund`, which needs an approval when
  unattended, then says what came back (the refund, or that a reviewer said no, and why);
- `Remember <text>`: calls the built-in `kindgi_remember`, then answers `Noted.`;
- `Say nothing.` (or any message, for a 2.x version): answers with empty text (the
  `answer-not-empty` guardrail halts it);
- `Shout <text>`: answers in capitals (the `no-shouting` guardrail only records it);
- anything else: `Turn <n>: you said <text>`, `n` counting the conversation's user messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from kindgi_dev.api.app import context_of, create_app
from kindgi_dev.services.context import Context
from kindgi_dev.settings import Settings

AGENT = "acme-desk.helper"
REFUND = "acme-desk.issue-refund"
LOOKUP = "acme-desk.lookup-order"
NOT_EMPTY = "acme-desk.answer-not-empty"
NO_SHOUTING = "acme-desk.no-shouting"

PYPROJECT = """\
[project]
name = "acme-desk"
version = "0.1.0"

[tool.kindgi.pack]
id = "acme-desk"
version = "0.1.0"

[tool.kindgi-dev]
models = "dev_models.py"
"""

TOOLS = '''\
"""Orders: look one up (a read), issue a refund (a write a person approves when unattended)."""

from kindgi import ToolContext, tool
from pydantic import BaseModel, Field


class Order(BaseModel):
    order_id: str = Field(alias="orderId", min_length=1)


class Found(BaseModel):
    order_id: str = Field(alias="orderId")
    total: float


class Refunded(BaseModel):
    refund_id: str = Field(alias="refundId")
    order_id: str = Field(alias="orderId")


@tool(id="acme-desk.lookup-order", mutating=False,
      effects=[{"kind": "reads", "resource": "orders"}])
def lookup_order(args: Order, ctx: ToolContext) -> Found:
    """Reads an order."""
    return Found(orderId=args.order_id, total=42.5)


@tool(id="acme-desk.issue-refund", mutating=True, needs_approval_when_unattended=True,
      effects=[{"kind": "writes", "resource": "refunds"}])
def issue_refund(args: Order, ctx: ToolContext) -> Refunded:
    """Refunds an order in full."""
    return Refunded(refundId=f"rf-{args.order_id}", orderId=args.order_id)
'''

GUARDRAILS = '''\
"""The answer has words (halts the turn), and doesn't shout (only recorded, live runs only)."""

from kindgi import CheckResult, RunTrace, guardrail


@guardrail(id="acme-desk.answer-not-empty", name="The answer has text",
           check_id="acme-desk.checks.answer-not-empty", on_violation="halt",
           severity="error", scope={"when": "always"})
def answer_not_empty(config: dict, trace: RunTrace) -> CheckResult:
    """Passes when the turn answered with some text."""
    if (trace.output or "").strip():
        return CheckResult(passed=True)
    return CheckResult(passed=False, reason="The answer is empty.")


@guardrail(id="acme-desk.no-shouting", name="No shouting",
           check_id="acme-desk.checks.no-shouting", on_violation="log-only",
           severity="warn", scope={"when": "runtime-only"})
def no_shouting(config: dict, trace: RunTrace) -> CheckResult:
    """Fails an answer written all in capitals."""
    text = trace.output or ""
    if text.strip() and text == text.upper() and any(c.isalpha() for c in text):
        return CheckResult(passed=False, reason="The answer is in capitals.")
    return CheckResult(passed=True)
'''

AGENT_FILE = '''\
"""The help desk: refunds orders, remembers what people prefer, and chats."""

from kindgi import Agent

from ..guardrails.answers import answer_not_empty, no_shouting
from ..tools.orders import issue_refund, lookup_order

helper = Agent(
    id="acme-desk.helper", version="{version}", name="Help desk",
    instructions="{instructions}",
    capabilities=[{{"needs": [{{"feature": "tool-use"}}]}}],
    tools=[lookup_order, issue_refund],
    guardrails=[answer_not_empty, no_shouting],
    memory={{"remember": {{"types": ["preference"], "scope": "same-user"}}}},
)
'''

MODELS = '''\
"""The help desk's deterministic model (see tests/desk_pack.py)."""

from kindgi_dev.models import Reply, ToolCall, model


@model(default=True)
def desk(turn):
    question = turn.question()
    results = turn.tool_results()
    if question.startswith("Refund order "):
        order = question.removeprefix("Refund order ").strip(" .")
        if not results:
            return Reply(tool_calls=[ToolCall("acme-desk.issue-refund", {"orderId": order})])
        last = results[-1]
        if last.error is not None:
            return Reply(text=f"I could not refund order {order}: {last.error}")
        if last.content.get("status") == "rejected":
            why = last.content.get("rationale", "no reason given")
            return Reply(text=f"I could not refund order {order}: a reviewer said no ({why}).")
        return Reply(text=f"Refunded order {order}: {last.content['refundId']}.")
    if question.startswith("Remember "):
        if not results:
            fact = {"type": "preference", "text": question.removeprefix("Remember ")}
            return Reply(tool_calls=[ToolCall("kindgi_remember", fact)])
        return Reply(text="Noted." if results[-1].error is None else results[-1].error)
    if question == "Say nothing." or "Say nothing." in turn.instructions:
        return Reply(text="")
    if question.startswith("Shout "):
        return Reply(text=question.removeprefix("Shout ").upper())
    said = sum(1 for m in turn.messages if m.role == "user")
    return Reply(text=f"Turn {said}: you said {question}")
'''


def write_desk_pack(root: Path, versions: tuple[str, ...] = ("1.0.0",)) -> Path:
    """The desk pack under `root` (one agent file per version); `root`."""
    for folder in ("tools", "guardrails", "agents"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "dev_models.py").write_text(MODELS)
    (root / "tools" / "orders.py").write_text(TOOLS)
    (root / "guardrails" / "answers.py").write_text(GUARDRAILS)
    for number, version in enumerate(versions):
        name = "helper.py" if number == 0 else f"helper_{number + 1}.py"
        quiet = " Say nothing." if version.startswith("2.") else ""
        instructions = "Help the customer. Refund orders with acme-desk.issue-refund." + quiet
        (root / "agents" / name).write_text(
            AGENT_FILE.format(version=version, instructions=instructions)
        )
    return root


@contextmanager
def desk_served(
    root: Path, versions: tuple[str, ...] = ("1.0.0",)
) -> Iterator[tuple[TestClient, Context]]:
    """The desk pack served in-process with its real pack service; client and context."""
    write_desk_pack(root, versions)
    app = create_app(Settings(pack_dir=root, watch=False))
    ctx = context_of(app)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        client.headers["Authorization"] = f"Bearer {ctx.identity.token}"
        yield client, ctx


def turn(client: TestClient, message: str, version: str | None = None, **input: Any) -> Any:
    """Start a waited turn of the desk agent (`input` adds to the user's message); the answer,
    its status for the caller to check."""
    body: dict[str, Any] = {"agent": AGENT, "input": {"userMessage": message, **input}}
    if version is not None:
        body["agentVersion"] = version
    return client.post("/v1/runs", json=body)


def every_row(database: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, read through a read-only connection of its own."""
    import sqlite3

    reader = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        names = [r[0] for r in reader.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {n: reader.execute(f'SELECT * FROM "{n}" ORDER BY 1').fetchall() for n in names}
    finally:
        reader.close()
