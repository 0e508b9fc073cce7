"""`kindgi test-sets pull|push` between two served apps, each recording the headers it got."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner, Result
from correction_rows import tutorial_corrections
from factories import AGENT, register_pack, tutorial_runs
from serving import serve_app

from kindgi_dev.app import context_of, create_app
from kindgi_dev.cli import test_set_moves
from kindgi_dev.cli.main import cli
from kindgi_dev.settings import Settings


@dataclass
class Runtime:
    """A served app with its token, its frozen version, and the headers of every request."""

    url: str = ""
    token: str = ""
    frozen: str = ""
    seen: list[dict[str, str]] = field(default_factory=list)

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.token}"})


def _runtime(folder: Path, stack: ExitStack) -> Runtime:
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    app = create_app(Settings(pack_dir=folder, start_pack=False, watch=False))
    ctx = context_of(app)
    register_pack(ctx)
    tutorial_corrections(ctx, tutorial_runs(ctx))
    runtime = Runtime(token=ctx.identity.token)

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            runtime.seen.append({k.decode(): v.decode() for k, v in scope["headers"]})
        await app(scope, receive, send)

    runtime.url = stack.enter_context(serve_app(recording))
    with runtime.http() as http:
        frozen = http.post(f"/v1/agents/{AGENT}/test-set/freeze").json()
    runtime.frozen = f"{frozen['testSetId']}@{frozen['version']}"
    runtime.seen.clear()
    return runtime


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Runtime, Runtime]]:
    """`there` plays the deployed runtime, `here` the laptop's."""
    with ExitStack() as stack:
        yield _runtime(tmp_path / "there", stack), _runtime(tmp_path / "here", stack)


def kindgi(here: Runtime, *args: str, env: dict[str, str] | None = None) -> Result:
    """`kindgi …` whose local API is `here`, found through KINDGI_API_URL/TOKEN."""
    local = {"KINDGI_API_URL": here.url, "KINDGI_API_TOKEN": here.token, "KINDGI_REMOTE_TOKEN": ""}
    return CliRunner().invoke(cli, list(args), env={**local, **(env or {})})


def _ids(reference: str) -> tuple[str, str]:
    test_set_id, _, version = reference.partition("@")
    return test_set_id, version


def test_each_token_goes_only_to_its_own_runtime(pair: tuple[Runtime, Runtime]) -> None:
    there, here = pair
    pulled = kindgi(here, "test-sets", "pull", there.frozen, f"--from={there.url}",
                    env={"KINDGI_REMOTE_TOKEN": there.token})  # fmt: skip
    assert pulled.exit_code == 0, pulled.output
    assert json.loads(pulled.stdout)["caseCount"] == 3
    pushed = kindgi(here, "test-sets", "push", here.frozen, f"--to={there.url}",
                    f"--token={there.token}")  # fmt: skip
    assert pushed.exit_code == 0, pushed.output
    assert json.loads(pushed.stdout)["published"] is True
    assert {h.get("authorization") for h in there.seen} == {f"Bearer {there.token}"}
    assert {h.get("authorization") for h in here.seen} == {f"Bearer {here.token}"}
    assert not any(there.token in str(h) for h in here.seen)
    with there.http() as http:
        test_set_id, version = _ids(here.frozen)
        back = http.get(f"/v1/test-sets/{test_set_id}/versions/{version}/cases").json()["data"]
    with here.http() as http:
        mine = http.get(f"/v1/test-sets/{test_set_id}/versions/{version}/cases").json()["data"]
    assert json.dumps(back) == json.dumps(mine)


def test_the_local_token_is_never_the_remote_one(
    pair: tuple[Runtime, Runtime], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    there, here = pair
    (tmp_path / ".kindgirc.json").write_text(json.dumps({"apiUrl": here.url, "token": here.token}))
    monkeypatch.chdir(tmp_path)
    refused = kindgi(here, "test-sets", "pull", there.frozen, f"--from={there.url}")
    assert refused.exit_code == 1
    assert refused.stderr.startswith(
        f"Error [remote-error]: {there.url} answered 401 auth-missing: The Authorization header "
        "is required"
    )
    assert [h.get("authorization") for h in there.seen] == [None]


def test_other_content_under_a_taken_version_is_the_remotes_409(
    pair: tuple[Runtime, Runtime],
) -> None:
    there, here = pair
    test_set_id, version = _ids(here.frozen)
    with there.http() as http:
        tenant = http.get("/v1/projects/default").json()["tenantId"]
        taken = {"id": test_set_id, "tenantId": tenant, "version": version,
                 "kind": "corrections", "spec": {"cases": []}}  # fmt: skip
        assert http.post("/v1/test-sets", json=taken).status_code == 201
    refused = kindgi(here, "test-sets", "push", here.frozen, f"--to={there.url}",
                     f"--token={there.token}")  # fmt: skip
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"Error [version-already-exists]: {there.url} answered 409 version-already-exists: "
        f'Test set "{test_set_id}" version "{version}" is already published with other content: '
        "publish a new version.\n"
    )


def test_plain_http_elsewhere_is_refused_and_nothing_is_sent(
    pair: tuple[Runtime, Runtime],
) -> None:
    _, here = pair
    for verb, flag in (("pull", "--from"), ("push", "--to")):
        refused = kindgi(here, "test-sets", verb, here.frozen, f"{flag}=http://kindgi.example.com")
        assert refused.exit_code == 1
        assert "is plain http and not this machine" in refused.stderr
    assert here.seen == []
    plan = kindgi(here, "test-sets", "push", here.frozen, "--to=http://kindgi.example.com",
                  "--insecure", "--dry-run")  # fmt: skip
    assert plan.exit_code == 0, plan.output
    assert json.loads(plan.stdout)["cases"] == 3
    assert [h["authorization"] for h in here.seen] == [f"Bearer {here.token}"]


def test_a_url_or_a_token_that_cant_be_sent_is_an_error_line_and_nothing_is_sent(
    pair: tuple[Runtime, Runtime],
) -> None:
    _, here = pair
    for verb, flag in (("pull", "--from"), ("push", "--to")):
        refused = kindgi(here, "test-sets", verb, here.frozen, f"{flag}=http://[::1")
        assert refused.exit_code == 1, refused.output
        assert refused.stderr.startswith(f"Error [invalid-request]: {flag}: 'http://[::1' is not")
        assert "Traceback" not in refused.output
    pushed = kindgi(here, "test-sets", "push", here.frozen, f"--to={here.url}", "--token=é")
    assert pushed.exit_code == 1, pushed.output
    assert pushed.stderr.startswith("Error [invalid-request]: --token: a token is visible ASCII")
    assert here.seen == []


def test_progress_shows_on_a_terminal_only(
    pair: tuple[Runtime, Runtime], monkeypatch: pytest.MonkeyPatch
) -> None:
    there, here = pair
    args = ("test-sets", "pull", there.frozen, f"--from={there.url}", f"--token={there.token}")
    piped = kindgi(here, *args)
    assert (piped.exit_code, piped.stderr) == (0, "")
    monkeypatch.setattr(test_set_moves, "on_terminal", lambda: True)
    shown = kindgi(here, *args)
    assert shown.exit_code == 0, shown.output
    assert "pulled 3 of 3 cases, " in shown.stderr
    assert json.loads(shown.stdout)["pulled"] is False
    pushed = kindgi(here, "test-sets", "push", here.frozen, f"--to={there.url}",
                    f"--token={there.token}")  # fmt: skip
    assert "pushed 3 of 3 cases, " in pushed.stderr
    test_set_id, _ = _ids(there.frozen)
    missing = kindgi(here, "test-sets", "pull", f"{test_set_id}@9.0.0", f"--from={there.url}",
                     f"--token={there.token}")  # fmt: skip
    assert missing.exit_code == 1
    assert missing.stderr.endswith(
        f"Error [remote-error]: {there.url} answered 404 test-set-version-not-found: "
        f"No test set version with id {test_set_id}@9.0.0.\n"
    )
