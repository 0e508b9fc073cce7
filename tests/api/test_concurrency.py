"""Issue 10: a long write in flight holds up neither `/health` nor a list read."""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import factories
import httpx
import pytest
from factories import QUESTIONS, recorded_run, register_pack
from serving import serve_app

from kindgi_dev.app import context_of, create_app
from kindgi_dev.domain.expectations import GivenItem
from kindgi_dev.services import corrections, test_set_versions
from kindgi_dev.settings import Settings

ITEMS = 14_000


def test_a_14000_item_correction_in_flight_holds_up_no_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, watch=False))
    ctx = context_of(app)
    register_pack(ctx)
    articles = [f"kb-{i}" for i in range(ITEMS)]
    monkeypatch.setattr(factories, "TITLES", {key: f"Article {key}" for key in articles})
    run_id = recorded_run(ctx, next(iter(QUESTIONS)), articles)
    inside, release = threading.Event(), threading.Event()
    insert = corrections.store.insert_verdicts

    def held(db: Any, rows: Any) -> None:
        """Insert, then keep the write transaction open until the reads have answered."""
        insert(db, rows)
        inside.set()
        release.wait(60)

    monkeypatch.setattr(corrections.store, "insert_verdicts", held)
    items = [
        {"key": key, "pointer": f"/output/articles/{i}", "verdict": "right"}
        for i, key in enumerate(articles)
    ]
    with serve_app(app) as url, ThreadPoolExecutor(1) as pool:
        auth = {"Authorization": f"Bearer {ctx.identity.token}"}
        with httpx.Client(base_url=url, headers=auth, timeout=120) as http:
            write = pool.submit(http.post, "/v1/corrections",
                                json={"runId": run_id, "items": items})  # fmt: skip
            while not inside.wait(0.05):
                assert not write.done(), write.result().text[:500]
            with httpx.Client(base_url=url, headers=auth, timeout=120) as reader:
                health = reader.get("/health")
                listed = reader.get("/v1/corrections", params={"runId": run_id})
            answered_while_held = not write.done()
            release.set()
            written = write.result(timeout=120)
            after = http.get("/v1/corrections", params={"runId": run_id}).json()["data"]
    assert answered_while_held
    assert health.json() == {"ok": True}
    assert listed.status_code == 200 and listed.json()["data"] == []
    assert written.status_code == 201, written.text
    assert len(written.json()["items"]) == ITEMS
    assert [c["id"] for c in after] == [written.json()["id"]]


def test_a_small_correction_never_waits_for_a_long_write_on_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small body is written on the loop only when no write is in flight; behind a long
    one it waits in a worker thread, so `/health` still answers meanwhile."""
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, watch=False))
    ctx = context_of(app)
    register_pack(ctx)
    articles = [f"kb-{i}" for i in range(ITEMS)]
    monkeypatch.setattr(factories, "TITLES", {key: f"Article {key}" for key in articles})
    long_run, short_run = (
        recorded_run(ctx, question, articles) for question in list(QUESTIONS)[:2]
    )
    inside, release = threading.Event(), threading.Event()
    on_loop: list[bool] = []
    insert = corrections.store.insert_verdicts

    def held(db: Any, rows: Any) -> None:
        """The long write keeps its transaction open until the reads have answered."""
        insert(db, rows)
        on_loop.append(_on_event_loop())
        if len(rows) == ITEMS:
            inside.set()
            release.wait(60)

    monkeypatch.setattr(corrections.store, "insert_verdicts", held)
    items = [
        {"key": key, "pointer": f"/output/articles/{i}", "verdict": "right"}
        for i, key in enumerate(articles)
    ]
    short = {"runId": short_run, "items": [items[0]]}
    with serve_app(app) as url, ThreadPoolExecutor(2) as pool:
        auth = {"Authorization": f"Bearer {ctx.identity.token}"}
        with httpx.Client(base_url=url, headers=auth, timeout=120) as http:
            first = http.post("/v1/corrections", json=short)
            long = pool.submit(
                http.post, "/v1/corrections", json={"runId": long_run, "items": items}
            )
            assert inside.wait(60), long.result().text[:500]
            behind = pool.submit(http.post, "/v1/corrections", json=short)
            with httpx.Client(base_url=url, headers=auth, timeout=120) as reader:
                health = reader.get("/health")
            answered_while_held = not long.done() and not behind.done()
            release.set()
            assert long.result(timeout=120).status_code == 201
            replaced = behind.result(timeout=60)
    assert answered_while_held
    assert health.json() == {"ok": True}
    assert first.status_code == 201 and replaced.status_code == 201, replaced.text
    assert replaced.json()["items"][0]["key"] == "kb-0"
    assert on_loop == [True, False, False]


def test_a_large_correction_draws_its_verdict_ids_in_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each read of the OS's randomness lets go of the GIL: one per verdict, the event loop
    hardly got it back while a worker thread made a large correction."""
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    ctx = context_of(create_app(Settings(pack_dir=tmp_path, start_pack=False, watch=False)))
    register_pack(ctx)
    articles = [f"kb-{i}" for i in range(2000)]
    monkeypatch.setattr(factories, "TITLES", {key: f"Article {key}" for key in articles})
    run_id = recorded_run(ctx, next(iter(QUESTIONS)), articles)
    reads: list[int] = []
    urandom = os.urandom
    monkeypatch.setattr(os, "urandom", lambda size: reads.append(size) or urandom(size))
    items = [GivenItem(key, f"/output/articles/{i}", "right") for i, key in enumerate(articles)]
    made = corrections.create(ctx, run_id, items=items)
    assert len({item.judgment_id for item in made.items}) == len(articles)
    assert len(reads) <= 2, f"{len(reads)} reads of the OS's randomness"


def _on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@pytest.mark.parametrize("start", ["freeze", "runs"])
def test_freezing_a_test_set_holds_up_no_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: str
) -> None:
    """Freezing copies every case (a second for thousands): it runs in a worker thread, so
    `/health` answers while it is still writing, whether asked for alone or by a run."""
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, watch=False))
    ctx = context_of(app)
    register_pack(ctx)
    run_id = recorded_run(ctx, next(iter(QUESTIONS)))
    inside, release = threading.Event(), threading.Event()
    insert = test_set_versions.store.insert_version_cases

    def held(*args: Any) -> None:
        """Copy the cases, then keep the freeze's transaction open until `/health` answered."""
        insert(*args)
        inside.set()
        release.wait(60)

    monkeypatch.setattr(test_set_versions.store, "insert_version_cases", held)
    body = {"runId": run_id, "items": [{"key": "kb-101", "pointer": "/output/articles/0",
                                        "verdict": "right"}]}  # fmt: skip
    with serve_app(app) as url, ThreadPoolExecutor(1) as pool:
        auth = {"Authorization": f"Bearer {ctx.identity.token}"}
        with httpx.Client(base_url=url, headers=auth, timeout=60) as http:
            assert http.post("/v1/corrections", json=body).status_code == 201
            project = http.get("/v1/projects/default").json()["id"]
            path = f"/v1/agents/{factories.AGENT}/test-set/{start}"
            started = {"projectId": project, "agentRef": {"agentId": factories.AGENT}}
            freezing = pool.submit(
                http.post, path, params={"projectId": project}, json=started, timeout=60
            )
            while not inside.wait(0.05):
                assert not freezing.done(), freezing.result().text[:500]
            with httpx.Client(base_url=url, timeout=60) as reader:
                health = reader.get("/health")
            answered_while_held = not freezing.done()
            release.set()
            frozen = freezing.result(timeout=60)
    assert answered_while_held
    assert health.json() == {"ok": True}
    assert frozen.status_code == 201, frozen.text
