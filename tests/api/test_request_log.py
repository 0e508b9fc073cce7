"""`kindgi dev --log-level debug` prints one line per request: method, path, status, ms."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kindgi_dev.api.app import context_of, create_app
from kindgi_dev.settings import Settings


@pytest.mark.parametrize(("level", "logged"), [("debug", True), ("info", False)])
def test_a_line_per_request_at_debug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: str, logged: bool
) -> None:
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, log_level=level))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        capsys.readouterr()
        client.get("/health")
        client.get("/v1/projects/default")
        token = context_of(app).identity.token
        client.get("/v1/projects/nope", headers={"Authorization": f"Bearer {token}"})
    lines = [line for line in capsys.readouterr().err.splitlines() if "←" in line]
    if not logged:
        assert lines == []
        return
    assert [re.sub(r"\d+ms$", "Nms", line) for line in lines] == [
        "  ← GET /health 200 Nms",
        "  ← GET /v1/projects/default 401 Nms",
        "  ← GET /v1/projects/nope 404 Nms",
    ]
