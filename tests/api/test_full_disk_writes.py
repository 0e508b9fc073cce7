"""A write sent with an `Idempotency-Key` and the answer kept under the key are one: a disk
that fills as the answer is kept leaves neither, so the 507 ("nothing was saved") is true
and a retry with the key makes the write once. A write that commits on its own (a
coroutine handler's) still answers what it did when its answer can't be kept. A full disk
is never a refusal an endpoint keeps its writes for."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import AGENT, QUESTIONS, recorded_run, served
from tables import every_row

from kindgi_dev.api import releases
from kindgi_dev.services import idempotency, projects
from kindgi_dev.store.db import Database
from kindgi_dev.store.files import DiskFull
from kindgi_dev.store.idempotency import StoredAnswer

PASSWORD = next(iter(QUESTIONS))


@pytest.mark.parametrize("reason_chars", [1500, 3000], ids=["on the loop", "in a thread"])
def test_a_disk_full_as_the_answer_is_kept_keeps_neither_and_the_retry_writes_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reason_chars: int
) -> None:
    """A body under 8 kB is handled on the event loop, a larger one in a worker thread."""
    with served(tmp_path) as (client, ctx):
        run_id = recorded_run(ctx, PASSWORD)
        items = [
            {"key": key, "pointer": f"/output/articles/{rank}", "verdict": "right",
             "reason": "r" * reason_chars}
            for rank, key in enumerate(QUESTIONS[PASSWORD])
        ]  # fmt: skip
        body = {"runId": run_id, "items": items}
        keep = idempotency.store.remember

        def disk_fills(db: Database, key: str, answer: StoredAnswer) -> None:
            """The disk as SQLite sees a full one from the key's insert on: no new page."""
            with db.transaction() as conn:
                pages = conn.execute("PRAGMA page_count").fetchone()[0]
                conn.execute(f"PRAGMA max_page_count = {pages}")
            keep(db, key, answer)

        before = every_row(Path(ctx.db.path))
        monkeypatch.setattr(idempotency.store, "remember", disk_fills)
        first = client.post("/v1/corrections", json=body, headers={"Idempotency-Key": "k-1"})
        monkeypatch.undo()
        with ctx.db.transaction() as conn:
            conn.execute("PRAGMA max_page_count = 1073741823")
        after_refusal = every_row(Path(ctx.db.path))
        retry = client.post("/v1/corrections", json=body, headers={"Idempotency-Key": "k-1"})
        again = client.post("/v1/corrections", json=body, headers={"Idempotency-Key": "k-1"})
        stored = ctx.db.all("SELECT id, replaced_by FROM corrections")
    assert first.status_code == 507, first.text
    assert first.json()["error"]["code"] == "insufficient-storage"
    assert after_refusal == before, "the 507 said nothing was saved"
    assert retry.status_code == 201 and "x-idempotent-replay" not in retry.headers
    assert again.status_code == 201 and again.headers["x-idempotent-replay"] == "true"
    assert again.content == retry.content
    assert [(row["id"], row["replaced_by"]) for row in stored] == [(retry.json()["id"], None)]


def test_a_write_that_committed_on_its_own_answers_what_it_did_when_its_answer_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`PATCH /v1/projects/{id}` commits in its handler; keeping its answer fails after."""
    with served(tmp_path) as (client, ctx):
        made = client.post("/v1/projects", json={"name": "Before", "slug": "kept"}).json()

        def disk_full(*_: object) -> None:
            raise DiskFull("The disk is full: nothing was saved.", database=ctx.db.path)

        monkeypatch.setattr(idempotency.store, "remember", disk_full)
        renamed = client.patch(
            f"/v1/projects/{made['id']}", json={"name": "After"}, headers={"Idempotency-Key": "p"}
        )
        monkeypatch.undo()
        read = client.get(f"/v1/projects/{made['id']}").json()
        retry = client.patch(
            f"/v1/projects/{made['id']}", json={"name": "After"}, headers={"Idempotency-Key": "p"}
        )
    assert renamed.status_code == 204, renamed.text
    assert read["name"] == "After"
    assert retry.status_code == 204 and "x-idempotent-replay" not in retry.headers


def test_a_full_disk_in_a_write_that_keeps_its_refusals_keeps_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A promotion keeps what it wrote when its gate refuses it (a 4xx); a full disk met
    partway (507, when SQLite rolled back only the statement) is no refusal: the 507 says
    nothing was saved, so nothing the handler wrote before it is kept."""
    with served(tmp_path) as (client, ctx):

        def written_then_full(*_: object) -> None:
            projects.create(ctx, name="Half a promotion", slug="half")
            raise DiskFull("The disk is full: nothing was saved.", database=ctx.db.path)

        monkeypatch.setattr(releases.promotions, "promote", written_then_full)
        before = every_row(Path(ctx.db.path))
        scope = {"kind": "project", "projectId": projects.get_default(ctx).id}
        answer = client.post(
            f"/v1/agents/{AGENT}/promotions", json={"version": "0.1.0", "scope": scope}
        )
        after = every_row(Path(ctx.db.path))
    assert answer.status_code == 507, answer.text
    assert after == before


def test_a_kept_answer_without_a_body_is_replayed_without_a_content_type(tmp_path: Path) -> None:
    with served(tmp_path) as (client, _):
        made = client.post("/v1/projects", json={"name": "Before", "slug": "kept"}).json()
        path, key = f"/v1/projects/{made['id']}", {"Idempotency-Key": "rename-1"}
        first = client.patch(path, json={"name": "After"}, headers=key)
        again = client.patch(path, json={"name": "After"}, headers=key)
    assert (first.status_code, again.status_code) == (204, 204)
    assert again.headers["x-idempotent-replay"] == "true"
    assert "content-type" not in first.headers and "content-type" not in again.headers
