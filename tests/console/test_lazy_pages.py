"""The console's pages and jinja2 are imported on the first console request, not at start;
jsonschema only at a typed answer that breaks its schema (`domain.plain_schema`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
from starlette.testclient import TestClient
from kindgi_dev.app import console_link, create_app
from kindgi_dev.settings import Settings
from pathlib import Path

app = create_app(Settings(pack_dir=Path(sys.argv[1]), start_pack=False))
with TestClient(app, base_url="http://127.0.0.1") as client:
    print("started:", "jinja2" in sys.modules, "kindgi_dev.console.web" in sys.modules,
          "jsonschema" in sys.modules)
    client.get("/health")
    print("after /health:", "jinja2" in sys.modules)
    bare = client.get("/console/runs")
    print("anonymous page:", bare.status_code, "<form" in bare.text)
    page = client.get(console_link(app, "http://127.0.0.1"))
    print("logged in:", page.status_code, "jinja2" in sys.modules)
"""


def test_starting_imports_no_page_and_the_first_console_request_loads_them(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "started: False False False",
        "after /health: False",
        "anonymous page: 401 True",
        "logged in: 200 True",
    ]
