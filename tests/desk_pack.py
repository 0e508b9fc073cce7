"""The help-desk example (`examples/help-desk`) for the features an app relies on deployed:
conversations, a tool that needs an approval, guardrails and memory. Copied into a folder
with the agent at the versions a test needs, served in-process with its real pack service
(`desk_served`) or by the real `kindgi dev` (the e2e tests).

Its function model answers by the user's message:

- `Refund order <id>.`: calls `acme-desk.issue-refund`, which needs an approval when
  unattended, then says what came back (the refund, or that a reviewer said no, and why);
- `Remember <text>`: calls the built-in `kindgi_remember`, then answers `Noted.`;
- `Say nothing.` (or any message, for a 2.x version): answers with empty text (the
  `answer-not-empty` guardrail halts it);
- any message, for a 3.x version: fails, its error quoting the message (as a provider's
  error may quote the prompt);
- `Shout <text>`: answers in capitals (the `no-shouting` guardrail only records it);
- anything else: `Turn <n>: you said <text>`, `n` counting the conversation's user messages.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from examples_committed import example
from starlette.testclient import TestClient

from kindgi_dev.app import context_of, create_app
from kindgi_dev.services.context import Context
from kindgi_dev.settings import Settings

AGENT = "acme-desk.helper"
REFUND = "acme-desk.issue-refund"
LOOKUP = "acme-desk.lookup-order"
NOT_EMPTY = "acme-desk.answer-not-empty"
NO_SHOUTING = "acme-desk.no-shouting"

EXAMPLE = example("help-desk")
ASKED = "    question = turn.question()\n"
FAILS = (
    '    if "Fail." in turn.instructions:\n        raise ValueError(f"no answer to {question!r}")\n'
)
"""Where a 3.x version's model fails, and how: after reading the user's message."""


def write_desk_pack(root: Path, versions: tuple[str, ...] = ("1.0.0",)) -> Path:
    """A copy of `examples/help-desk` under `root`, with the agent at each of `versions`
    (a 2.x version is told to say nothing, a 3.x one's model fails); `root`."""
    ignored = shutil.ignore_patterns(".kindgi*", "__pycache__")
    shutil.copytree(EXAMPLE, root, ignore=ignored, dirs_exist_ok=True)
    agent = (root / "agents" / "helper.py").read_text()
    (root / "agents" / "helper.py").unlink()
    for number, version in enumerate(versions):
        name = "helper.py" if number == 0 else f"helper_{number + 1}.py"
        text = agent.replace('version="1.0.0"', f'version="{version}"')
        if version.startswith("2."):
            text = text.replace('acme-desk.issue-refund."', 'acme-desk.issue-refund. Say nothing."')
        if version.startswith("3."):
            text = text.replace('acme-desk.issue-refund."', 'acme-desk.issue-refund. Fail."')
            models = root / "dev_models.py"
            models.write_text(models.read_text().replace(ASKED, ASKED + FAILS))
        (root / "agents" / name).write_text(text)
    return root


@contextmanager
def desk_served(
    root: Path, versions: tuple[str, ...] = ("1.0.0",), edit: Callable[[Path], None] | None = None
) -> Iterator[tuple[TestClient, Context]]:
    """The desk pack served in-process with its real pack service; client and context.
    `edit` changes the pack's copy before it is served."""
    write_desk_pack(root, versions)
    if edit is not None:
        edit(root)
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
