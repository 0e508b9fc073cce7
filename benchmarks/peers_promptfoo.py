"""promptfoo's side of `peers.py`: its config, a file provider and a JavaScript assertion.

The provider is the deterministic candidate (the first three articles of the case's
recorded search); the assertion scores the share of them marked right. `eval --no-cache`
runs it, with its config, database and logs in a folder of the run's own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from devserver import clean_env
from peers_work import PICKED, Isolated, run_isolated

VERSION = "0.121.20"
"""The last release that runs on Debian's Node 20."""
HOME = Path(os.environ.get("KINDGI_PEERS_HOME", Path.home() / ".cache/kindgi-dev/peers"))
BIN = HOME / "promptfoo" / "node_modules" / ".bin" / "promptfoo"

PROVIDER = f"""\
// The deterministic candidate: the first {PICKED} articles of the recorded search.
class Picker {{
  id() {{ return "article-picker-0.1.0"; }}
  async callApi(prompt, context) {{
    const found = JSON.parse(context.vars.found);
    const articles = found.slice(0, {PICKED}).map((a) => ({{ id: a.id, title: a.title }}));
    return {{ output: JSON.stringify({{ articles }}) }};
  }}
}}
module.exports = Picker;
"""

ASSERTION = """\
// Share of the answer's articles that the case's correction marked right.
module.exports = (output, context) => {
  const right = new Set(JSON.parse(context.vars.right));
  const articles = JSON.parse(output).articles;
  const marked = articles.filter((a) => right.has(a.id)).length;
  const share = articles.length ? marked / articles.length : 0;
  return { pass: true, score: share, reason: `share marked right ${share}` };
};
"""


def installed() -> bool:
    """Whether promptfoo is in the cache folder (see benchmarks/README.md)."""
    return BIN.exists()


def write_config(folder: Path, cases: list[dict[str, Any]]) -> Path:
    """The config, provider, assertion and tests of one run, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "provider.js").write_text(PROVIDER)
    (folder / "share_right.js").write_text(ASSERTION)
    tests = [
        {"description": c["id"], "vars": {"question": c["question"],
                                          "found": json.dumps(c["found"]),
                                          "right": json.dumps(c["right"])}}
        for c in cases
    ]  # fmt: skip
    (folder / "tests.json").write_text(json.dumps(tests))
    config = {
        "description": "kindgi dev peers: article picker replay",
        "prompts": ["{{question}}"],
        "providers": ["file://provider.js"],
        "defaultTest": {"assert": [{"type": "javascript", "value": "file://share_right.js"}]},
        "tests": "file://tests.json",
    }
    path = folder / "promptfooconfig.json"
    path.write_text(json.dumps(config))
    return path


def run(folder: Path, cases: list[dict[str, Any]]) -> tuple[Isolated, float]:
    """One `promptfoo eval --no-cache` of the cases; what it cost, and its mean score."""
    config = write_config(folder, cases)
    env = clean_env(
        PROMPTFOO_CONFIG_DIR=str(folder / "state"),
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
        PROMPTFOO_CACHE_ENABLED="false",
        PROMPTFOO_DISABLE_SHARING="1",
        NO_COLOR="1",
    )
    command = [str(BIN), "eval", "-c", str(config), "--no-cache", "--no-table",
               "--no-progress-bar", "-o", str(folder / "results.json")]  # fmt: skip
    cost = run_isolated(command, folder, env)
    results = json.loads((folder / "results.json").read_text())["results"]
    scores = [r["score"] for r in results["results"]]
    if len(scores) != len(cases):
        raise RuntimeError(f"promptfoo scored {len(scores)} cases, not {len(cases)}")
    return cost, sum(scores) / len(scores)
