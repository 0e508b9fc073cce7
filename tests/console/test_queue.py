"""The correction queue without JavaScript: its filters (agent or flow, version, project,
segment; oldest or newest first), its progress in words, plain forms that save and open the
next run, a refused form that writes nothing; and what was saved, shown back on the run's
page and marked on the runs list."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import httpx
import pytest
from factories import AGENT, QUESTIONS, recorded_run, served
from flow_pack import SUGGEST, flow_served
from starlette.testclient import TestClient
from tables import every_row

from kindgi_dev.app import console_link
from kindgi_dev.domain.expectations import Answer, GivenItem
from kindgi_dev.services import corrections, judge_classes, projects
from kindgi_dev.services.context import Caller, Context, acting_as
from kindgi_dev.store import runs as run_store

BASE = "http://127.0.0.1"
PASSWORD, CHARGED, PACKAGE = QUESTIONS


@dataclass
class Queue:
    """A logged-in console over six runs: four in the queue, a replay and an unfinished run."""

    client: TestClient
    ctx: Context
    csrf: str
    runs: dict[str, str]
    other_project: str

    def page(self, **query: str) -> str:
        answer = self.client.get("/console/queue", params=query)
        assert answer.status_code == 200, answer.text
        return html.unescape(answer.text)

    def post(self, path: str, form: dict[str, str]) -> httpx.Response:
        return self.client.post(path, data={"csrf": self.csrf, **form},
                                headers={"Origin": BASE}, follow_redirects=False)  # fmt: skip


def progress(page: str) -> str:
    found = re.search(r'id="queue-progress" role="status">([^<]*)<', page)
    assert found, page
    return found.group(1)


def next_run(page: str) -> str | None:
    """The run whose form the queue shows, if any."""
    found = re.findall(r'action="/console/runs/([^/"]+)/correct"', page)
    assert len(found) <= 1
    return found[0] if found else None


@pytest.fixture(scope="module")
def queue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Queue]:
    with served(tmp_path_factory.mktemp("queue"), versions=("0.1.0", "0.2.0")) as (client, ctx):
        other = projects.create(ctx, name="Other shop", slug="other-shop")
        acme, globex = (
            [{"key": "company", "value": "acme"}],
            [{"key": "company", "value": "globex"}],
        )
        made = {
            "first": recorded_run(ctx, PASSWORD, segments=acme),
            "second": recorded_run(ctx, CHARGED, segments=globex),
            "third": recorded_run(ctx, PACKAGE, version="0.2.0", segments=acme),
            "fourth": recorded_run(ctx, PASSWORD, project_id=other),
        }
        made["replay"] = recorded_run(ctx, PASSWORD, replay_of=made["first"], segments=acme)
        made["running"] = recorded_run(ctx, CHARGED, finish=False, segments=acme)
        for n, run_id in enumerate(made.values()):
            run_store.update(ctx.db, run_id, {"created_at": f"2026-11-0{n + 1}T10:00:00.000Z"})
        client.get(console_link(client.app, BASE))
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/console/runs").text)
        assert csrf is not None
        yield Queue(client, ctx, csrf.group(1), made, other)


def test_the_queue_holds_finished_runs_as_filtered_in_the_order_asked(queue: Queue) -> None:
    seen = {}
    asked = {
        "all": {},
        "newest": {"order": "newest"},
        "agent": {"agent": AGENT},
        "another agent": {"agent": "acme-ops.nobody"},
        "version": {"agent": AGENT, "version": "0.2.0"},
        "project": {"project": queue.other_project},
        "segment": {"segment": "company=acme"},
        "segment, newest": {"segment": "company = acme", "order": "newest"},
        "segment of no run": {"segment": "company=initech"},
    }
    for name, query in asked.items():
        page = queue.page(**query)
        run_id = next_run(page)
        names = {v: k for k, v in queue.runs.items()}
        seen[name] = (progress(page), names.get(run_id or "", run_id))
    assert seen == {
        "all": ("0 of 4 runs corrected in this queue.", "first"),
        "newest": ("0 of 4 runs corrected in this queue.", "fourth"),
        "agent": ("0 of 4 runs corrected in this queue.", "first"),
        "another agent": ("No finished runs are in this queue.", None),
        "version": ("0 of 1 run corrected in this queue.", "third"),
        "project": ("0 of 1 run corrected in this queue.", "fourth"),
        "segment": ("0 of 2 runs corrected in this queue.", "first"),
        "segment, newest": ("0 of 2 runs corrected in this queue.", "third"),
        "segment of no run": ("No finished runs are in this queue.", None),
    }


def test_skipping_a_run_goes_on_past_it_and_saving_there_goes_on_from_there(
    queue: Queue,
) -> None:
    newest = queue.page(order="newest")
    assert next_run(newest) == queue.runs["fourth"]  # never corrected: the newest left
    skip = re.search(r'href="/console/queue\?([^"]+)" id="skip"', newest)
    assert skip is not None
    assert dict(parse_qsl(skip.group(1))) == {"order": "newest", "after": queue.runs["fourth"]}
    past = queue.page(**dict(parse_qsl(skip.group(1))))
    assert progress(past) == progress(newest)
    assert next_run(past) not in (None, queue.runs["fourth"])
    skipped_to = run_store.get(queue.ctx.db, str(next_run(past)))
    assert skipped_to is not None and skipped_to["created_at"] < "2026-11-04"
    assert "Start over from the first" in past
    end = queue.page(order="newest", after=queue.runs["first"])
    assert next_run(end) is None
    assert "No run is left past the ones you skipped." in end
    assert queue.client.get("/console/queue", params={"after": "nope"}).status_code == 404


def test_a_segment_that_is_not_key_value_is_refused(queue: Queue) -> None:
    answer = queue.client.get("/console/queue", params={"segment": "acme"})
    assert answer.status_code == 400
    page = html.unescape(answer.text)
    assert 'data-field="segment">must be key=value, as company=acme<' in page
    assert next_run(page) is None and 'id="queue-progress"' not in page


def test_a_bad_form_in_the_queue_writes_nothing_and_keeps_its_queue(queue: Queue) -> None:
    before = every_row(queue.ctx.settings.database_path)
    in_queue = urlencode({"version": "0.2.0", "order": "oldest"})
    form = {"verdict-0": "right", "rank-0": "-1", "queue": in_queue}
    answer = queue.post(f"/console/runs/{queue.runs['third']}/correct", form)
    assert answer.status_code == 400
    assert every_row(queue.ctx.settings.database_path) == before
    page = html.unescape(answer.text)
    assert 'data-field="items/0/rank">Input should be greater than or equal to 0<' in page
    assert f'name="queue" value="{in_queue}"' in page


def test_saving_in_the_queue_opens_its_next_run_until_none_is_left(queue: Queue) -> None:
    in_queue = {"segment": "company=acme", "order": "oldest"}
    form = {"verdict-0": "right", "reason-0": "Resets the password", "verdict-1": "wrong",
            "verdict-3": "wrong", "should-say": "Try kb-101 first.",
            "queue": urlencode(in_queue)}  # fmt: skip
    saved = queue.post(f"/console/runs/{queue.runs['first']}/correct", form)
    assert saved.status_code == 303, saved.text
    assert saved.headers["location"] == "/console/queue?" + urlencode(in_queue)
    page = html.unescape(queue.client.get(saved.headers["location"]).text)
    assert (progress(page), next_run(page)) == (
        "1 of 2 runs corrected in this queue.", queue.runs["third"])  # fmt: skip
    done = queue.post(f"/console/runs/{queue.runs['third']}/correct",
                      {"verdict-0": "wrong", "queue": urlencode(in_queue)})  # fmt: skip
    assert done.status_code == 303
    page = html.unescape(queue.client.get(done.headers["location"]).text)
    assert (progress(page), next_run(page)) == ("All 2 runs in this queue are corrected.", None)
    assert progress(queue.page()) == "2 of 4 runs corrected in this queue."
    saved_body = queue.client.get("/v1/corrections", params={"runId": queue.runs["first"]})
    (correction,) = saved_body.json()["data"]
    assert correction["answer"] == {"verdict": "wrong", "shouldSay": "Try kb-101 first."}
    assert sorted((i["key"], i["verdict"]) for i in correction["items"]) == [
        ("answer", "wrong"), ("kb-101", "right"), ("kb-102", "wrong")]  # fmt: skip


def test_what_was_saved_is_shown_on_the_run_page_and_marked_on_the_list(queue: Queue) -> None:
    run_id = queue.runs["second"]
    experts = judge_classes.create(queue.ctx, ("tenant", None, None), name="Experts", weight=3)
    mine = [GivenItem("kb-201", "/output/articles/0", "right", 0, "The refund steps")]
    corrections.create(queue.ctx, run_id, items=mine, judge_class_id=experts.id)
    with acting_as(Caller("user", "usr_sam")):
        theirs = [GivenItem("kb-201", "/output/articles/0", "wrong", 0, "Not a refund")]
        other = corrections.create(queue.ctx, run_id, items=theirs, answer=Answer("right"))
    for_a_user = [GivenItem("kb-201", "/output/articles/0", "wrong", 0, "Asked for a refund")]
    corrections.create(queue.ctx, run_id, items=for_a_user, participant_id="end-user-7")
    page = html.unescape(queue.client.get(f"/console/runs/{run_id}").text)
    verdicts = re.findall(r'class="verdict [^"]*" data-by="[^"]*">([^<]*)<', page)
    assert verdicts[0] == "you: Yes · Experts, weighs 3 — “The refund steps”"
    assert sorted(verdicts[1:]) == [  # the others newest first: made in the same millisecond
        f"end-user-7 (via {queue.ctx.identity.user_id}): No · no group, weighs 1"
        " — “Asked for a refund”",
        "usr_sam: No · no group, weighs 1 — “Not a refund”",
    ]
    form = html.unescape(queue.client.get(f"/console/runs/{run_id}/correct").text)
    assert re.findall(r'name="verdict-(\d)" value="(right|wrong)" checked', form) == [
        ("0", "right")
    ]
    assert 'value="The refund steps"' in form
    assert f'href="/console/test-cases/agents/{AGENT}#case-{other.id}"' in page
    assert "Change your correction" in page
    listed = html.unescape(queue.client.get("/console/runs").text)
    row = r'href="/console/runs/([^"]+)">.*?(?:corrected-mark"[^>]*>([^<]*)<|</tr>)'
    marks = dict(re.findall(row, listed, re.S))
    assert marks[run_id] == "✓ 3 corrections, one of them yours"
    assert marks[queue.runs["fourth"]] == ""


def test_the_correct_form_asks_about_the_answer_once(queue: Queue) -> None:
    page = html.unescape(queue.client.get(f"/console/runs/{queue.runs['fourth']}/correct").text)
    answer = "These articles should help: kb-101, kb-102, kb-103."
    assert page.count(answer) == 1
    assert 'name="answer-verdict"' not in page
    assert re.search(r'placeholder="tool ids, comma-separated"', page)
    assert 'size="32" placeholder="tool ids, comma-separated"' in page


def test_an_answer_right_with_words_is_refused_beside_the_answer(queue: Queue) -> None:
    before = every_row(queue.ctx.settings.database_path)
    form = {"answer-right": "1", "why": "It names the wrong article"}
    answer = queue.post(f"/console/runs/{queue.runs['fourth']}/correct", form)
    assert answer.status_code == 400
    assert every_row(queue.ctx.settings.database_path) == before
    assert 'data-field="answer">right takes no shouldSay or why<' in html.unescape(answer.text)


def test_add_a_case_picks_a_run_and_takes_a_rank_and_cases_show_their_question(
    queue: Queue,
) -> None:
    path = f"/console/test-cases/agents/{AGENT}"
    page = html.unescape(queue.client.get(path).text)
    picks = re.findall(r'<option value="([^"]+)" >[^<]*· ([^<]*)</option>', page)
    first, second, third, fourth = (queue.runs[n] for n in ("first", "second", "third", "fourth"))
    assert picks == [(fourth, PASSWORD), (third, PACKAGE), (second, CHARGED), (first, PASSWORD)]
    before = every_row(queue.ctx.settings.database_path)
    form = {"run": second, "key": "kb-203", "pointer": "/output/articles/1", "rank": "1.5",
            "verdict": "wrong"}  # fmt: skip
    refused = queue.post(f"{path}/cases", form)
    assert refused.status_code == 400
    assert 'data-field="rank">Input should be a valid integer' in refused.text
    assert every_row(queue.ctx.settings.database_path) == before
    added = queue.post(f"{path}/cases", {**form, "rank": "1"})
    assert added.status_code == 303, added.text
    cases = queue.client.get(f"/v1/agents/{AGENT}/test-set/cases").json()["data"]
    hand = [case for case in cases if case["kind"] == "hand"]
    expected = {"key": "kb-203", "pointer": "/output/articles/1", "rank": 1, "verdict": "wrong"}
    assert [(c["runId"], c["expect"]["items"]) for c in hand] == [(second, [expected])]
    page = html.unescape(queue.client.get(path).text)
    row = (
        r'<tr class="active" id="case-([^"]+)">\s*<td[^>]*>(\w+)[^\n]*\n'
        r'<td[^>]*class="question">([^<]*)<'
    )
    asked = dict(
        zip((first, second, third, fourth), (PASSWORD, CHARGED, PACKAGE, PASSWORD), strict=True)
    )
    shown = {case_id: (kind, question) for case_id, kind, question in re.findall(row, page)}
    assert shown == {case["id"]: (case["kind"], asked[case["runId"]]) for case in cases}
    assert shown[hand[0]["id"]] == ("hand", CHARGED)


def test_a_flows_runs_are_a_queue_and_its_form_saves_and_opens_the_next(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, _ctx, _pack):
        made = []
        for question in (PASSWORD, CHARGED):
            run = client.post("/v1/runs", json={"flow": SUGGEST, "input": {"question": question}})
            assert run.status_code == 201, run.text
            made.append(run.json()["id"])
        client.get(console_link(client.app, BASE))
        page = html.unescape(client.get("/console/queue", params={"agent": SUGGEST}).text)
        assert (progress(page), next_run(page)) == ("0 of 2 runs corrected in this queue.", made[0])
        assert progress(html.unescape(client.get("/console/queue?agent=" + AGENT).text)) == (
            "No finished runs are in this queue."
        )
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "verdict-0": "right", "queue": f"agent={SUGGEST}"}
        saved = client.post(f"/console/runs/{made[0]}/correct", data=form,
                            headers={"Origin": BASE}, follow_redirects=False)  # fmt: skip
        assert saved.status_code == 303, saved.text
        page = html.unescape(client.get(saved.headers["location"]).text)
    assert (progress(page), next_run(page)) == ("1 of 2 runs corrected in this queue.", made[1])
