"""`kindgi conversations open|close|unregister` and `kindgi tokens create --for=sa:<id>`,
spelled as the real CLI 0.1.10 spells them, against the help desk served in-process."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from cli_runner import Kindgi
from desk_pack import AGENT, write_desk_pack
from serving import serve_app

from kindgi_dev.app import context_of, create_app
from kindgi_dev.settings import Settings


@pytest.fixture(scope="module")
def kindgi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kindgi]:
    pack = write_desk_pack(tmp_path_factory.mktemp("desk"))
    app = create_app(Settings(pack_dir=pack, watch=False))
    with serve_app(app, timeout_s=30) as url:
        yield Kindgi(url, context_of(app).identity.token)


def test_a_conversation_opened_closed_and_unregistered_from_the_cli(kindgi: Kindgi) -> None:
    opened = kindgi.json("conversations", "open", AGENT, "1.0.0", "--title=Orders",
                         "--participant=p-5")  # fmt: skip
    assert (opened["agentVersion"], opened["title"], opened["participantId"]) == (
        "1.0.0",
        "Orders",
        "p-5",
    )
    said = json.dumps({"userMessage": "Hello", "conversationId": opened["id"]})
    assert kindgi.json("runs", "start", f"--agent={AGENT}", f"--input={said}")["status"] == (
        "completed"
    )
    closed = kindgi.json("conversations", "close", opened["id"])
    assert (closed["status"], closed["turnCount"]) == ("closed", 1)
    refused = kindgi("runs", "start", f"--agent={AGENT}", f"--input={said}")
    assert refused.exit_code == 1
    assert refused.stderr.startswith("Error [conversation-closed]: ")
    assert "unregisteredAt" in kindgi.json("conversations", "unregister", opened["id"])
    missing = kindgi("conversations", "get", opened["id"])
    assert missing.exit_code == 1
    assert missing.stderr == f"Error [not-found]: No conversation with id {opened['id']}.\n"


def test_a_service_accounts_key_starts_a_run_that_waits_for_a_reviewer(kindgi: Kindgi) -> None:
    minted = kindgi("tokens", "create", f"--for=sa:{uuid.uuid4()}", "--label=nightly")
    assert minted.exit_code == 0, minted.output
    key = json.loads(minted.stdout)
    assert key["principal"]["kind"] == "service-account"
    assert minted.stderr == f"⚠ The secret of key {key['tokenId']} is shown once: store it now.\n"
    robot = Kindgi(kindgi.target[1], key["token"])
    said = json.dumps({"userMessage": "Refund order 4."})
    run = robot.json("runs", "start", f"--agent={AGENT}", f"--input={said}")
    assert (run["status"], run["startedBy"]) == ("suspended", "key")
    [waiting] = run["waitingFor"]["approvals"]
    assert waiting["tool"]["id"] == "acme-desk.issue-refund"
    bad = kindgi("tokens", "create", "--for=robot")
    assert bad.exit_code == 2 and '--for must be user:<id> or sa:<id>, got "robot"' in bad.output
