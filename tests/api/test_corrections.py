"""`/v1/corrections` and `/v1/erasures`: one store under two APIs, replacing, erasing, refusing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import (
    QUESTIONS,
    SEARCH,
    UNCORRECTABLE,
    served,
    tutorial_runs,
    uncorrectable_run,
)
from starlette.testclient import TestClient
from tables import row_counts

from kindgi_dev.services.context import Context

PASSWORD = next(iter(QUESTIONS))
REASONS = {"yes": "Answers the question", "no": "Not about this question"}


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, Context, dict[str, str]]]:
    with served(tmp_path) as (client, ctx):
        yield client, ctx, tutorial_runs(ctx)


def item(key: str, index: int, verdict: str = "right", **extra: Any) -> dict[str, Any]:
    return {
        "key": key,
        "pointer": f"/output/articles/{index}",
        "rank": index,
        "verdict": verdict,
        **extra,
    }


def tutorial_items(question: str) -> list[dict[str, Any]]:
    """The spec's corrections of one run: the first article right, the other two wrong."""
    return [
        item(key, i, "right" if i == 0 else "wrong", reason=REASONS["yes" if i == 0 else "no"])
        for i, key in enumerate(QUESTIONS[question])
    ]


def correct(client: TestClient, run_id: str, items: list[dict[str, Any]], **extra: Any) -> Any:
    return client.post("/v1/corrections", json={"runId": run_id, "items": items, **extra})


def test_create_answers_the_correction(app: Any) -> None:
    client, ctx, runs = app
    answer = correct(client, runs[PASSWORD], tutorial_items(PASSWORD), answer={"verdict": "right"})
    assert answer.status_code == 201
    body = answer.json()
    assert [(i["key"], i["rank"], i["verdict"]) for i in body["items"]] == [
        ("kb-101", 0, "right"),
        ("kb-102", 1, "wrong"),
        ("kb-103", 2, "wrong"),
    ]
    assert body["runId"] == runs[PASSWORD]
    assert body["subject"] == {"kind": "agent", "id": "acme-ops.article-picker", "version": "0.1.0"}
    assert body["correctedBy"] == {"kind": "user", "id": ctx.identity.user_id}
    assert body["status"] == "open" and body["answer"] == {"verdict": "right"}
    assert body["createdAt"] == body["updatedAt"]
    assert not {"replacedBy", "erased", "restricted", "participantId"} & set(body)
    assert client.get(f"/v1/corrections/{body['id']}").json() == body


def test_the_tutorial_through_corrections_reads_back_as_judgments(app: Any) -> None:
    client, _, runs = app
    written = set()
    for question, run_id in runs.items():
        correct(client, run_id, tutorial_items(question))
        written |= {
            (run_id, i["key"], i["pointer"], i["rank"], i["verdict"], i["reason"])
            for i in tutorial_items(question)
        }
    judgments = client.get("/v1/judgments", params={"limit": 100}).json()["data"]
    read = {
        (j["runId"], j["item"]["key"], j["item"]["pointer"], j["item"]["rank"],
         "right" if j["verdict"] == "yes" else "wrong", j["reason"])
        for j in judgments
    }  # fmt: skip
    assert len(judgments) == 9
    assert read == written


def test_the_tutorial_through_judgments_reads_back_as_corrections(app: Any) -> None:
    client, _, runs = app
    written = set()
    for question, run_id in runs.items():
        for i, key in enumerate(QUESTIONS[question]):
            verdict = "yes" if i == 0 else "no"
            body = {
                "runId": run_id,
                "item": {"key": key, "pointer": f"/output/articles/{i}", "rank": i},
                "verdict": verdict,
                "reason": REASONS[verdict],
            }
            assert client.post("/v1/judgments", json=body).status_code == 201
            written.add((run_id, key, f"/output/articles/{i}", i, verdict, REASONS[verdict]))
    page = client.get("/v1/corrections").json()["data"]
    assert len(page) == 3
    read = {
        (c["runId"], i["key"], i["pointer"], i["rank"],
         "yes" if i["verdict"] == "right" else "no", i["reason"])
        for c in page for i in c["items"]
    }  # fmt: skip
    assert read == written
    for correction in page:
        keys = [i["key"] for i in correction["items"]]
        assert keys == QUESTIONS[next(q for q, r in runs.items() if r == correction["runId"])]


def test_a_new_correction_replaces_the_old_one(app: Any) -> None:
    client, _, runs = app
    first = correct(client, runs[PASSWORD], tutorial_items(PASSWORD)).json()
    second = correct(client, runs[PASSWORD], [item("kb-101", 0, "wrong")]).json()
    old = client.get(f"/v1/corrections/{first['id']}").json()
    assert old["replacedBy"] == second["id"]
    assert [i["key"] for i in old["items"]] == ["kb-101", "kb-102", "kb-103"]
    live = client.get("/v1/judgments", params={"runId": runs[PASSWORD]}).json()["data"]
    assert [(j["item"]["key"], j["verdict"]) for j in live] == [("kb-101", "no")]
    earlier = client.get(f"/v1/judgments/{first['items'][0]['judgmentId']}").json()
    assert earlier["supersededBy"] == second["items"][0]["judgmentId"]
    dropped = client.get(f"/v1/judgments/{first['items'][1]['judgmentId']}").json()
    assert "unregisteredAt" in dropped and "supersededBy" not in dropped
    listed = client.get("/v1/corrections", params={"runId": runs[PASSWORD]}).json()["data"]
    assert [c["id"] for c in listed] == [second["id"]]
    params = {"runId": runs[PASSWORD], "includeReplaced": "true"}
    assert len(client.get("/v1/corrections", params=params).json()["data"]) == 2


def test_adding_and_changing_items(app: Any) -> None:
    client, _, runs = app
    correction = correct(client, runs[PASSWORD], [item("kb-101", 0)]).json()
    path = f"/v1/corrections/{correction['id']}/items"
    added = client.post(path, json=item("kb-102", 1, "wrong"))
    assert added.status_code == 200
    assert [i["key"] for i in added.json()["items"]] == ["kb-101", "kb-102"]
    changed = client.post(path, json=item("kb-101", 0, "wrong", reason="Not quite")).json()
    assert [(i["key"], i["verdict"]) for i in changed["items"]] == [
        ("kb-101", "wrong"),
        ("kb-102", "wrong"),
    ]
    old = client.get(f"/v1/judgments/{correction['items'][0]['judgmentId']}").json()
    assert old["supersededBy"] == changed["items"][0]["judgmentId"]
    assert len(client.get("/v1/judgments").json()["data"]) == 2


def test_an_item_key_that_is_not_the_item_at_its_pointer_is_refused_naming_both(
    app: Any,
) -> None:
    client, ctx, runs = app
    before = row_counts(ctx.db)
    typo = correct(client, runs[PASSWORD], [item("kb-101", 0), item("kb-103", 1, "wrong")])
    reason = (
        "/output/articles/1 is item kb-102 in the run's output, not kb-103: "
        "give the key and pointer of the same item"
    )
    assert typo.status_code == 400
    assert typo.json()["error"] == {
        "code": "validation-failed",
        "message": f"items/1/pointer: {reason}",
        "requestId": typo.headers["x-request-id"],
        "details": {
            "field": "items/1/pointer",
            "reason": reason,
            "issues": [{"path": "items/1/pointer", "message": reason}],
            "key": "kb-103",
            "pointer": "/output/articles/1",
            "foundKey": "kb-102",
        },
    }
    assert row_counts(ctx.db) == before
    correction = correct(client, runs[PASSWORD], [item("kb-101", 0)]).json()
    written = row_counts(ctx.db)
    path = f"/v1/corrections/{correction['id']}/items"
    added = client.post(path, json=item("kb-101", 2, "wrong"))
    assert added.status_code == 400
    assert added.json()["error"]["message"] == (
        "pointer: /output/articles/2 is item kb-103 in the run's output, not kb-101: "
        "give the key and pointer of the same item"
    )
    assert row_counts(ctx.db) == written
    shown = client.get(f"/v1/corrections/{correction['id']}").json()
    assert [(i["key"], i["pointer"]) for i in shown["items"]] == [("kb-101", "/output/articles/0")]


def test_items_of_a_replaced_or_unknown_correction_are_refused(app: Any) -> None:
    client, ctx, runs = app
    first = correct(client, runs[PASSWORD], [item("kb-101", 0)]).json()
    correct(client, runs[PASSWORD], [item("kb-102", 1)])
    before = row_counts(ctx.db)
    replaced = client.post(f"/v1/corrections/{first['id']}/items", json=item("kb-103", 2))
    assert (replaced.status_code, replaced.json()["error"]["code"]) == (409, "correction-replaced")
    unknown = client.post("/v1/corrections/nope/items", json=item("kb-103", 2))
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "correction-not-found")
    assert row_counts(ctx.db) == before


def test_list_filters_and_pages(app: Any) -> None:
    client, ctx, runs = app
    made = [correct(client, r, [item(QUESTIONS[q][0], 0)]).json() for q, r in runs.items()]
    client.patch(f"/v1/corrections/{made[0]['id']}", json={"status": "wont-fix"})
    listed = client.get("/v1/corrections").json()["data"]
    assert {c["id"] for c in listed} == {c["id"] for c in made}
    created = [c["createdAt"] for c in listed]
    assert created == sorted(created, reverse=True)
    project = ctx.db.one("SELECT id FROM projects WHERE is_default = 1")["id"]
    for params, count in (
        ({"agentId": "acme-ops.article-picker"}, 3),
        ({"agentId": "other"}, 0),
        ({"projectId": project}, 3),
        ({"status": "wont-fix"}, 1),
        ({"status": "open,fixed"}, 2),
        ({"runId": made[1]["runId"]}, 1),
        ({"correctedBy": "me"}, 3),
    ):
        assert len(client.get("/v1/corrections", params=params).json()["data"]) == count, params
    page = client.get("/v1/corrections", params={"limit": 2}).json()
    rest = client.get("/v1/corrections", params={"limit": 2, "cursor": page["nextCursor"]}).json()
    assert len(page["data"]) == 2 and len(rest["data"]) == 1 and rest["hasMore"] is False
    bad = client.get("/v1/corrections", params={"status": "closed"})
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "validation-failed")


def test_patch_status_decisions_and_answer(app: Any) -> None:
    client, _, runs = app
    correction = correct(client, runs[PASSWORD], [item("kb-101", 0)]).json()
    path = f"/v1/corrections/{correction['id']}"
    fixed = client.patch(path, json={"status": "fixed"}).json()
    assert fixed["status"] == "fixed"
    decisions = {"verdict": "wrong", "mustNotCall": ["acme-ops.log-suggestion"]}
    changed = client.patch(path, json={"decisions": decisions, "answer": {"verdict": "right"}})
    assert changed.json()["decisions"] == decisions
    assert changed.json()["answer"] == {"verdict": "right"}
    cleared = client.patch(path, json={"answer": None}).json()
    assert "answer" not in cleared and cleared["decisions"] == decisions
    for body in ({}, {"status": "closed"}):
        answer = client.patch(path, json=body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "validation-failed")


def test_erasure_clears_the_words_and_keeps_the_counts(app: Any) -> None:
    client, _, runs = app
    words = {"verdict": "wrong", "shouldSay": "kb-101 only", "why": "Too many articles"}
    theirs = correct(
        client, runs[PASSWORD], tutorial_items(PASSWORD), answer=words, participantId="p-7"
    ).json()
    mine = correct(client, runs[PASSWORD], tutorial_items(PASSWORD)).json()
    answer = client.post("/v1/erasures", json={"participantId": "p-7"})
    assert answer.status_code == 200
    assert answer.json()["corrections"] == 1 and answer.json()["judgments"] == 3
    erased = client.get(f"/v1/corrections/{theirs['id']}").json()
    assert erased["erased"] is True
    assert erased["answer"] == {"verdict": "wrong"}
    assert [(i["key"], i["verdict"]) for i in erased["items"]] == [
        ("kb-101", "right"),
        ("kb-102", "wrong"),
        ("kb-103", "wrong"),
    ]
    assert not any("reason" in i for i in erased["items"])
    judged = client.get("/v1/judgments", params={"participantId": "p-7"}).json()["data"]
    assert sorted(j["verdict"] for j in judged) == ["no", "no", "yes"]
    assert not any("reason" in j for j in judged)
    untouched = client.get(f"/v1/corrections/{mine['id']}").json()
    assert all(i["reason"] for i in untouched["items"]) and "erased" not in untouched


def test_an_erased_correction_takes_no_items_and_a_new_judgment_starts_anew(app: Any) -> None:
    client, _, runs = app
    theirs = correct(client, runs[PASSWORD], tutorial_items(PASSWORD), participantId="p-7").json()
    client.post("/v1/erasures", json={"participantId": "p-7"})
    refused = client.post(f"/v1/corrections/{theirs['id']}/items", json=item("kb-101", 0))
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "correction-erased")
    body = {"runId": runs[PASSWORD], "item": {"key": "kb-102"}, "verdict": "yes",
            "participantId": "p-7", "reason": "On second thought"}  # fmt: skip
    assert client.post("/v1/judgments", json=body).status_code == 201
    old = client.get(f"/v1/corrections/{theirs['id']}").json()
    assert old["erased"] is True and "replacedBy" in old
    new = client.get(f"/v1/corrections/{old['replacedBy']}").json()
    assert [(i["key"], i["verdict"]) for i in new["items"]] == [("kb-102", "right")]
    judged = client.get("/v1/judgments", params={"participantId": "p-7"}).json()["data"]
    assert sorted((j["item"]["key"], j["verdict"]) for j in judged) == [
        ("kb-101", "yes"),
        ("kb-102", "yes"),
        ("kb-103", "no"),
    ]


def test_a_correction_under_a_restricted_class_is_restricted(app: Any) -> None:
    client, ctx, runs = app
    body = {"scope": {"kind": "tenant"}, "name": "expert", "weight": 3,
            "assertableBy": {"principalIds": [ctx.identity.user_id]}}  # fmt: skip
    class_id = client.post("/v1/judge-classes", json=body).json()["id"]
    made = correct(client, runs[PASSWORD], [item("kb-101", 0)], judgeClassId=class_id).json()
    assert made["restricted"] is True and made["judgeClassId"] == class_id
    judgment = client.get(f"/v1/judgments/{made['items'][0]['judgmentId']}").json()
    assert judgment["restricted"] is True and judgment["judgeClassId"] == class_id


@pytest.mark.parametrize(("kind", "status", "code"), UNCORRECTABLE)
def test_runs_that_cannot_be_corrected(app: Any, kind: str, status: int, code: str) -> None:
    client, ctx, runs = app
    run_id = uncorrectable_run(ctx, runs, kind)
    before = row_counts(ctx.db)
    answer = correct(client, run_id, [item("kb-101", 0)])
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    assert row_counts(ctx.db) == before


WRONG_NEITHER = {"verdict": "wrong"}
UNKNOWN_TOOL = {"verdict": "wrong", "shouldCall": [{"toolId": SEARCH}, {"toolId": "acme.nope"}]}
BAD_BODIES = [
    ({"items": [item("kb-101", 0, pointer="output/0")]}, 400, "validation-failed",
     "items/0/pointer"),
    ({"items": [item("kb-101", 0, pointer="/output/articles/7")]}, 400, "item-not-found",
     "items/0/pointer"),
    ({"items": [{"pointer": "/output/articles/0", "verdict": "right"}]}, 400, "validation-failed",
     "items/0/key"),
    ({"items": [item("kb-101", -1)]}, 400, "validation-failed", "items/0/rank"),
    ({"items": [item("kb-101", 0, "yes")]}, 400, "validation-failed", "items/0/verdict"),
    ({"items": [item("kb-101", 0, reason="x" * 4001)]}, 400, "validation-failed",
     "items/0/reason"),
    ({"items": [item("kb-101", 0), item("kb-101", 1)]}, 400, "validation-failed", "items/1/key"),
    ({"items": [item("kb-101", 0), item("kb-103", 1)]}, 400, "validation-failed",
     "items/1/pointer"),
    ({"items": []}, 400, "validation-failed", "items"),
    ({"items": {"key": "kb-101"}}, 400, "validation-failed", "items"),
    ({"items": [item("kb-101", 0, colour="red")]}, 400, "validation-failed", "items/0/colour"),
    ({"decisions": "wrong"}, 400, "validation-failed", "decisions"),
    ({"decisions": WRONG_NEITHER}, 400, "validation-failed", "decisions"),
    ({"decisions": UNKNOWN_TOOL}, 400, "validation-failed", "decisions/shouldCall/1/toolId"),
    ({"answer": {"verdict": "wrong"}}, 400, "validation-failed", "answer"),
    ({"judgeClassId": "nope"}, 404, "judge-class-not-found", None),
    ({"status": "fixed"}, 400, "validation-failed", "status"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "status", "code", "field"), BAD_BODIES)
def test_bad_bodies_are_refused_and_nothing_is_written(
    app: Any, change: dict[str, Any], status: int, code: str, field: str | None
) -> None:
    client, ctx, runs = app
    body = {"runId": runs[PASSWORD], "items": [item("kb-101", 0)], **change}
    before = row_counts(ctx.db)
    answer = client.post("/v1/corrections", json=body)
    error = answer.json()["error"]
    assert (answer.status_code, error["code"]) == (status, code)
    if field is not None:
        assert error["details"]["field"] == field
    assert row_counts(ctx.db) == before


def test_a_retired_class_is_refused(app: Any) -> None:
    client, ctx, runs = app
    body = {"scope": {"kind": "tenant"}, "name": "old", "weight": 1}
    class_id = client.post("/v1/judge-classes", json=body).json()["id"]
    client.post(f"/v1/judge-classes/{class_id}/unregister")
    before = row_counts(ctx.db)
    answer = correct(client, runs[PASSWORD], [item("kb-101", 0)], judgeClassId=class_id)
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "judge-class-not-found")
    assert row_counts(ctx.db) == before


def test_decisions_only_and_an_answer_item(app: Any) -> None:
    client, _, runs = app
    decisions = {"verdict": "wrong", "shouldCall": [{"toolId": SEARCH, "args": {"query": "pw"}}]}
    made = client.post("/v1/corrections", json={"runId": runs[PASSWORD], "decisions": decisions})
    assert made.status_code == 201 and made.json()["items"] == []
    text = {"key": "answer", "pointer": "/appended/3/content", "verdict": "wrong"}
    added = client.post(f"/v1/corrections/{made.json()['id']}/items", json=text).json()
    assert added["items"] == [{**text, "judgmentId": added["items"][0]["judgmentId"]}]
    assert added["decisions"] == decisions


def test_erasure_needs_a_participant(app: Any) -> None:
    client, _, _ = app
    answer = client.post("/v1/erasures", json={})
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "validation-failed")
