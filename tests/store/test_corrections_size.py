"""What 1,000 corrections cost on disk, written by the store's own functions.

Seeded like `benchmarks/scale.py` (row 10): three items each, by a participant each, on 20
runs. The bound is wide (1,800 bytes: today's figure is about 1,300, the schema before
m0020's about 3,400), so only a change of what a row or an index holds moves it across.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from kindgi_dev.domain.corrections import (
    CorrectedItem,
    Corrector,
    StoredCorrection,
    StoredVerdict,
    Subject,
)
from kindgi_dev.store import corrections, runs
from kindgi_dev.store.db import Database
from kindgi_dev.store.runs import StoredRun

ITEMS = [{"id": f"kb-10{n}", "title": "Reset your password"} for n in range(1, 4)]


def _pages(db: Database) -> int:
    row = db.one("PRAGMA page_count")
    assert row is not None
    return int(row[0]) * 4096


def test_a_correction_of_three_items_takes_under_1_800_bytes_on_disk(
    tmp_path: Path,
) -> None:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    assert db.one("PRAGMA page_size")[0] == 4096  # type: ignore[index]
    run_ids = [str(uuid.uuid4()) for _ in range(20)]
    stamp = "2026-11-02T09:14:03.000Z"
    with db.transaction():
        for run_id in run_ids:
            runs.insert(db, StoredRun(id=run_id, tenant_id="t" * 36, project_id="p" * 36,
                                      flow_id="agent.turn", flow_version="1.1.0",
                                      status="completed", dry_run=False, created_at=stamp,
                                      updated_at=stamp, input={},
                                      output={"articles": ITEMS}))  # fmt: skip
    empty = _pages(db)
    with db.transaction():
        for n in range(1_000):
            _correct(db, n, run_ids[n % 20])
    per_correction = (_pages(db) - empty) / 1_000
    assert json.dumps(ITEMS[0], separators=(",", ":")) in {
        r["item_value"] for r in db.all("SELECT item_value FROM verdicts")
    }, "JSON is stored compactly"
    assert per_correction < 1_800, per_correction


def _correct(db: Database, n: int, run_id: str) -> None:
    """The n-th correction, by participant `p-n`, with a verdict on each of the three items."""
    at = f"2026-11-02T09:{n // 60000:02d}:{n // 1000 % 60:02d}.{n % 1000:03d}Z"
    subject = Subject("agent", "acme-ops.article-picker", "0.1.0")
    corrector = Corrector("user", "u" * 36, f"p-{n}")
    correction = StoredCorrection(
        id=str(uuid.uuid4()), tenant_id="t" * 36, project_id="p" * 36, run_id=run_id,
        subject=subject, corrector=corrector, status="open", created_at=at, updated_at=at,
    )  # fmt: skip
    corrections.insert_correction(db, correction)
    corrections.insert_verdicts(db, [
        StoredVerdict(
            id=str(uuid.uuid4()), correction_id=correction.id, tenant_id=correction.tenant_id,
            project_id=correction.project_id, run_id=run_id, subject=subject,
            asserted_by=corrector, created_at=at, item_value=item,
            item=CorrectedItem(item["id"], f"/output/articles/{rank}", rank,
                               "yes" if rank == 0 else "no", None),
        )
        for rank, item in enumerate(ITEMS)
    ])  # fmt: skip
