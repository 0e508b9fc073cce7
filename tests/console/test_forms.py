"""Every console form that writes is an API request body, read by the API's own reader: a
form stores nothing the API would refuse, and a refusal is a 400 with the API's message
beside the field it names, with every table as it was."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from factories import AGENT, QUESTIONS, recorded_run, served
from starlette.testclient import TestClient
from tables import Rows, every_row

from kindgi_dev.app import console_link
from kindgi_dev.services.context import Context

BASE = "http://127.0.0.1"
PASSWORD = next(iter(QUESTIONS))
TOOL = "acme-ops.search-articles"
ARGS = "decisions/shouldCall/0/args"
BEYOND_64_BITS = str(2**63)


@dataclass
class Console:
    """The console of one app, logged in, with a finished run of the picker to correct."""

    client: TestClient
    ctx: Context
    run_id: str
    csrf: str

    def rows(self) -> Rows:
        return every_row(self.ctx.settings.database_path)

    def post(self, path: str, form: dict[str, str]) -> httpx.Response:
        return self.client.post(path, data={"csrf": self.csrf, **form},
                                headers={"Origin": BASE}, follow_redirects=False)  # fmt: skip

    def refused(self, path: str, form: dict[str, str], field: str) -> str:
        """Post a form the API's reader refuses: 400, nothing written; what it says beside
        `field`."""
        before = self.rows()
        answer = self.post(path, form)
        assert answer.status_code == 400, answer.text
        assert self.rows() == before
        return beside(answer.text, field)


def beside(page: str, field: str) -> str:
    """The one refusal the page shows beside `field`."""
    found = re.findall(rf'data-field="{re.escape(field)}">([^<]*)<', page)
    assert len(found) == 1, page
    return html.unescape(found[0])


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    with served(tmp_path_factory.mktemp("forms")) as (client, ctx):
        run_id = recorded_run(ctx, PASSWORD)
        client.get(console_link(client.app, BASE))
        page = client.get("/console/runs").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert csrf is not None
        yield Console(client, ctx, run_id, csrf.group(1))


def api_body(run_id: str, args: str) -> bytes:
    """The `corrections.create` body the form below makes, with `args` as typed."""
    call = {"toolId": TOOL, "args": None}
    body = {"runId": run_id, "items": [], "decisions": {"verdict": "wrong", "shouldCall": [call]}}
    return json.dumps(body).replace("null", args).encode()


ARGS_REFUSED = {
    "500 levels deep": (
        '{"q": ' + "[" * 500 + "]" * 500 + "}",
        "The body nests deeper than 64 levels.",
    ),
    "a number, not an object": ("23", "Input should be an object"),
    "1e23, beyond 64 bits": ('{"q": 1e23}', "q: numbers must fit in 64 bits."),
    "NaN": ('{"q": NaN}', "The body is not valid JSON: NaN is not JSON."),
    "an infinite number": ('{"q": 1e400}', "q: numbers must be finite."),
    "a lone surrogate": (
        '{"q": "\\ud800"}',
        "q: holds a lone surrogate (\\ud800-\\udfff); text must be Unicode.",
    ),
}


@pytest.mark.parametrize(("args", "said"), ARGS_REFUSED.values(), ids=ARGS_REFUSED.keys())
def test_arguments_the_api_refuses_are_refused_beside_their_field(
    console: Console, args: str, said: str
) -> None:
    form = {"decisions-verdict": "wrong", "should-call-tool": TOOL, "should-call-args": args}
    assert console.refused(f"/console/runs/{console.run_id}/correct", form, ARGS) == said
    answer = console.client.post("/v1/corrections", content=api_body(console.run_id, args),
                                 headers={"Content-Type": "application/json"})  # fmt: skip
    assert answer.status_code == 400
    assert answer.json()["error"]["message"].endswith(said)


RANKS_REFUSED = {
    "beyond 64 bits": (BEYOND_64_BITS, "integers must fit in 64 bits."),
    "below 0": ("-1", "Input should be greater than or equal to 0"),
    "a digit that isn't ASCII": ("²", "Input should be a valid integer"),
    "a fraction": ("1.5", "Input should be a valid integer"),
    "infinite": ("1e400", "numbers must be finite."),
    "5,000 digits": ("9" * 5000, "Input should be a valid integer"),
}


@pytest.mark.parametrize(("rank", "said"), RANKS_REFUSED.values(), ids=RANKS_REFUSED.keys())
def test_a_rank_the_api_refuses_is_refused_on_its_own_row(
    console: Console, rank: str, said: str
) -> None:
    form = {"verdict-0": "right", "verdict-2": "wrong", "rank-2": rank}
    path = f"/console/runs/{console.run_id}/correct"
    assert console.refused(path, form, "items/2/rank") == said


def test_a_correction_the_api_takes_is_saved_as_the_api_saves_it(console: Console) -> None:
    form = {"verdict-0": "right", "rank-0": "0", "reason-0": "Resets the password",
            "decisions-verdict": "wrong", "should-call-tool": TOOL,
            "should-call-args": '{"query": "password", "limit": 3}'}  # fmt: skip
    saved = console.post(f"/console/runs/{console.run_id}/correct", form)
    assert saved.status_code == 303, saved.text
    read = console.client.get("/v1/corrections", params={"runId": console.run_id}).json()
    (correction,) = read["data"]
    assert correction["items"][0]["key"] == "kb-101"
    assert (correction["items"][0]["rank"], correction["items"][0]["reason"]) == (
        0, "Resets the password")  # fmt: skip
    assert correction["decisions"] == {"verdict": "wrong", "shouldCall": [
        {"toolId": TOOL, "args": {"query": "password", "limit": 3}}]}  # fmt: skip
    cases = console.client.get(f"/v1/agents/{AGENT}/test-set/cases")
    assert cases.status_code == 200


ADD_REFUSED: dict[str, tuple[dict[str, str], str, str]] = {
    "no run": ({"key": "kb-101", "pointer": "/output/articles/0"}, "run", "is required"),
    "no item": ({"pointer": "/output/articles/0"}, "key", "is required"),
    "a key too long": ({"key": "k" * 501, "pointer": ""}, "key",
                       "String should have at most 500 characters"),
    "a place not in the output": ({"key": "kb-101", "pointer": "/output/nope"}, "pointer",
                                  "/output has no key 'nope'"),
}  # fmt: skip


@pytest.mark.parametrize(("form", "field", "said"), ADD_REFUSED.values(), ids=ADD_REFUSED.keys())
def test_a_hand_case_the_api_refuses_is_refused_beside_its_field(
    console: Console, form: dict[str, str], field: str, said: str
) -> None:
    with_run = {"run": console.run_id, "verdict": "right", **form}
    if field == "run":
        with_run.pop("run")
    path = f"/console/test-cases/agents/{AGENT}/cases"
    assert console.refused(path, with_run, field) == said


def test_a_retirement_the_api_refuses_is_refused_beside_its_case(console: Console) -> None:
    body = {"runId": console.run_id, "answer": {"verdict": "right"}}
    case = console.client.post(f"/v1/agents/{AGENT}/test-set/cases", json=body).json()
    path = f"/console/test-cases/agents/{AGENT}/cases/{case['id']}/retire"
    assert console.refused(path, {"reason": ""}, case["id"]) == "reason: is required"
    too_long = console.refused(path, {"reason": "x" * 4001}, case["id"])
    assert too_long == "reason: String should have at most 4000 characters"


@pytest.mark.parametrize(("given", "said"), [
    ("²", "minJudgments: Input should be a valid integer"),
    (BEYOND_64_BITS, "minJudgments: integers must fit in 64 bits."),
    ("0", "minJudgments: Input should be greater than or equal to 1"),
])  # fmt: skip
def test_a_build_the_api_refuses_is_refused_beside_its_field(
    console: Console, given: str, said: str
) -> None:
    form = {"id": "acme.picks", "version": "1.0.0", "subject": f"agent:{AGENT}",
            "min-judgments": given}  # fmt: skip
    assert console.refused("/console/test-cases", form, "minJudgments") == said


@pytest.mark.parametrize(("given", "said"), [
    ("²", "Input should be a valid integer"),
    (BEYOND_64_BITS, "integers must fit in 64 bits."),
    ("11", "Input should be less than or equal to 10"),
])  # fmt: skip
def test_a_try_the_api_refuses_is_refused_beside_its_field(
    console: Console, given: str, said: str
) -> None:
    path = f"/console/test-cases/agents/{AGENT}/try"
    form = {"version": "0.1.0", "repetitions": given}
    assert console.refused(path, form, "repetitions") == said


def test_a_run_the_api_refuses_to_start_is_refused(console: Console) -> None:
    before = console.rows()
    answer = console.post("/console/runs", {"agent": "", "message": "Where is it?"})
    assert answer.status_code == 400
    assert "agent: String should have at least 1 character" in html.unescape(answer.text)
    assert console.rows() == before


def test_a_form_whose_bytes_are_not_utf8_is_refused_as_the_api_refuses_them(
    console: Console,
) -> None:
    """`%FF` and an encoded lone surrogate are no UTF-8: the form is 400 with nothing
    written, where it was stored with each byte replaced by U+FFFD."""
    path = f"/console/runs/{console.run_id}/correct"
    before = console.rows()
    answer = console.client.post(
        path,
        content=f"csrf={console.csrf}&verdict-0=right&should-say=caf%FF%ED%A0%80e",
        headers={"Origin": BASE, "Content-Type": "application/x-www-form-urlencoded"},
        follow_redirects=False,
    )
    assert answer.status_code == 400, answer.text
    assert "The form is not valid UTF-8" in html.unescape(answer.text)
    assert console.rows() == before
    body = f'{{"runId":"{console.run_id}","answer":{{"shouldSay":"caf'.encode()
    api = console.client.post("/v1/corrections", content=body + b'\xff\xed\xa0\x80e"}}',
                              headers={"Content-Type": "application/json"})  # fmt: skip
    assert api.status_code == 400
    assert console.rows() == before
