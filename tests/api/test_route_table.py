"""The `/v1` route table `kindgi dev` keeps between starts: a start that finds it current
imports no resource module until a request reaches it, and answers as one that read
every module; a table made from other sources is made anew."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from starlette.routing import BaseRoute, Route

from kindgi_dev.api import app as api
from kindgi_dev.api import route_table
from kindgi_dev.api.route_table import Declared
from kindgi_dev.api.routing import Loading, endpoint_of

START = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from starlette.testclient import TestClient
    from kindgi_dev.app import context_of, create_app
    from kindgi_dev.settings import Settings

    pack = Path(sys.argv[1])
    app = create_app(
        Settings(pack_dir=pack, start_pack=False, watch=False),
        route_table=pack / ".kindgi" / "dev" / "routes.json",
    )
    def imported():
        return sorted(m for m in sys.modules if m.startswith("kindgi_dev.api.corrections"))
    at_start = imported()
    with TestClient(app, base_url="http://127.0.0.1") as client:
        client.headers["Authorization"] = f"Bearer {context_of(app).identity.token}"
        missing = client.post("/v1/corrections", json={"runId": "no-such-run", "items": []})
        wrong_method = client.put("/v1/corrections")
    print(json.dumps({
        "atStart": at_start,
        "afterRequest": imported(),
        "missing": [missing.status_code, missing.json()["error"]["code"]],
        "wrongMethod": wrong_method.status_code,
    }))
    """
)


def _start(pack: Path) -> dict[str, object]:
    """An app on `pack` in a fresh interpreter (its imports its own), one request made."""
    done = subprocess.run(
        [sys.executable, "-c", START, str(pack)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_a_start_on_the_kept_table_imports_a_resource_at_its_first_request(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    first = _start(tmp_path)  # no table yet: every module read, the table made
    assert first["atStart"] == ["kindgi_dev.api.corrections"]
    kept = route_table.read(tmp_path / ".kindgi" / "dev" / "routes.json")
    assert kept is not None and len(kept) == len(api.endpoints())

    second = _start(tmp_path)
    assert second["atStart"] == []
    assert second["afterRequest"] == ["kindgi_dev.api.corrections"]
    assert second["missing"] == first["missing"]
    assert second["wrongMethod"] == first["wrongMethod"] == 405


def test_the_kept_routes_are_the_declared_ones_in_the_same_order(tmp_path: Path) -> None:
    table = tmp_path / "routes.json"
    read_from_modules = api.routes(table)
    from_table = api.routes(table)

    def loading(routes: list[BaseRoute]) -> int:
        return sum(1 for r in routes if isinstance(r, Route) and isinstance(r.endpoint, Loading))

    assert (loading(read_from_modules), loading(from_table)) == (0, len(api.endpoints()))
    assert [_matched(r) for r in from_table] == [_matched(r) for r in read_from_modules]
    for declared in route_table.read(table) or []:
        assert endpoint_of(declared).operation_id == declared.operation_id


def _matched(route: BaseRoute) -> tuple[str, set[str] | None, str]:
    """What the router matches a route by: its path, methods and name."""
    assert isinstance(route, Route)
    return route.path, route.methods, route.name


def test_a_table_made_from_other_sources_is_made_anew(tmp_path: Path) -> None:
    table = tmp_path / "routes.json"
    gone = {"module": "system", "method": "GET", "path": "/gone", "id": "x.gone"}
    table.write_text(json.dumps({"key": "another-install", "routes": [gone]}))
    assert route_table.read(table) is None
    routes = api.routes(table)
    assert not any(isinstance(r, Route) and r.path == "/gone" for r in routes)
    assert route_table.read(table) is not None


def test_the_key_follows_every_source_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    source = tmp_path / "sub" / "module.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(route_table, "SOURCE", tmp_path)
    first = route_table.source_key()
    assert route_table.source_key() == first
    os.utime(source, ns=(1, 1))
    assert route_table.source_key() != first


def test_a_table_naming_no_resource_module_is_made_anew(tmp_path: Path) -> None:
    table = tmp_path / "routes.json"
    route_table.write(table, [Declared("nowhere", "GET", "/v1/runs", "runs.list")])
    routes = api.routes(table)
    assert not any(isinstance(r, Route) and isinstance(r.endpoint, Loading) for r in routes)
    kept = route_table.read(table)
    assert kept is not None and {d.module for d in kept} == set(api.RESOURCES)


WARM = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from starlette.testclient import TestClient
    from kindgi_dev.app import create_app
    from kindgi_dev.settings import Settings

    pack = Path(sys.argv[1])
    app = create_app(
        Settings(pack_dir=pack, start_pack=False, watch=False),
        route_table=pack / ".kindgi" / "dev" / "routes.json",
    )
    watched = json.loads(sys.argv[2])
    with TestClient(app, base_url="http://127.0.0.1") as client:
        at_start = [m for m in watched if m in sys.modules]
        health = client.get("/health").status_code
        after_health = [m for m in watched if m in sys.modules]
        described = client.get("/openapi.json")
    print(json.dumps({
        "atStart": at_start,
        "afterHealth": after_health,
        "openapi": [described.status_code, described.json()["openapi"], health],
        "afterOpenapi": [m for m in watched if m in sys.modules],
    }))
    """
)
NOT_AT_A_WARM_START = (
    "kindgi_dev.api.openapi",
    "kindgi_dev.services.eval_runs",
    "kindgi_dev.services.run_waits",
    "kindgi_dev.services.runs",
)
"""What a start on the kept table that finds nothing left going imports only when a request
needs it: the API's description, and the services that end the runs, eval runs and decided
approvals a stopped process left (`lifecycle`)."""


def test_a_warm_start_with_nothing_left_going_imports_neither_those_services_nor_the_description(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.kindgi.pack]\nid = "acme-ops"\n')
    _start(tmp_path)  # the table made
    done = subprocess.run(
        [sys.executable, "-c", WARM, str(tmp_path), json.dumps(NOT_AT_A_WARM_START)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["atStart"] == found["afterHealth"] == []
    assert found["openapi"] == [200, "3.1.0", 200]
    assert "kindgi_dev.api.openapi" in found["afterOpenapi"]  # with every resource it describes
