"""axe-core (npm `axe-core`), kept between runs in `~/.cache/kindgi-dev/axe-core-<version>`
(`KINDGI_AXE_DIR` elsewhere) and installed there with npm on the first run, as CI does;
injected into a page by Playwright to report its accessibility violations."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

VERSION = "4.14.1"
SEVERE = ("serious", "critical")
RUN = """async () => {
  const found = await axe.run(document, {resultTypes: ["violations"]});
  return found.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                     nodes: v.nodes.map(n => n.target.join(" "))}));
}"""


def axe_script() -> Path:
    """`axe.min.js`, installed with `npm install axe-core@VERSION` when it isn't there yet."""
    default = Path.home() / ".cache" / "kindgi-dev" / f"axe-core-{VERSION}"
    folder = Path(os.environ.get("KINDGI_AXE_DIR", default))
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    if script.exists():
        return script
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("The accessibility check needs npm: run `sudo apt-get install -y npm`.")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", "--prefix", str(folder), "--no-save", "--no-audit",
                           "--no-fund", f"axe-core@{VERSION}"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    if done.returncode != 0 or not script.exists():
        pytest.fail(f"npm install axe-core@{VERSION} failed:\n{done.stderr[-2000:]}")
    return script


def severe_violations(page: Page, script: Path) -> list[dict[str, Any]]:
    """The page's serious and critical axe-core violations."""
    page.add_script_tag(path=str(script))
    found: list[dict[str, Any]] = page.evaluate(RUN)
    return [v for v in found if v["impact"] in SEVERE]
