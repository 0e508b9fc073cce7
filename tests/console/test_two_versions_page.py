"""An eval run of one version against another in the console: chosen in the Try form, and
its page says "0.3.0 against 0.2.0" where it says "against the recorded runs" otherwise."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path

from flow_pack import flow_served
from version_pack import AGENT, SUITE, corrected_tutorial, register_versions

from kindgi_dev.app import console_link
from kindgi_dev.console import words
from kindgi_dev.domain.metrics import Metric
from kindgi_dev.domain.results import Baseline, Candidate

ORIGIN = {"Origin": "http://127.0.0.1"}


def test_a_version_tried_against_another_from_the_try_form(tmp_path: Path) -> None:
    with flow_served(tmp_path) as (client, ctx, _pack):
        corrected_tutorial(client)
        register_versions(ctx)
        client.get(console_link(client.app, "http://127.0.0.1"))
        suite_page = html.unescape(client.get(f"/console/test-cases/suites/{SUITE}").text)
        csrf = re.search(r'name="csrf" value="([^"]+)"', suite_page)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "kind": "agent", "subject": AGENT, "version": "0.3.0",
                "repetitions": "1", "baseline": "0.2.0"}  # fmt: skip
        tried = client.post(f"/console/test-cases/suites/{SUITE}/try", data=form,
                            headers=ORIGIN, follow_redirects=False)  # fmt: skip
        assert tried.status_code == 303, tried.text
        for _ in range(200):
            shown = html.unescape(client.get(tried.headers["location"]).text)
            if 'id="headline"' in shown:
                break
            time.sleep(0.05)
        listed = html.unescape(client.get(f"/console/test-cases/suites/{SUITE}").text)
    assert f"{AGENT} 0.2.0, replayed the same way" in suite_page
    assert f'<p class="against" id="against">{AGENT} 0.3.0 against 0.2.0</p>' in shown
    assert (
        f"People's corrections rate {AGENT} 0.3.0 worse than 0.2.0: 100% marked right with "
        "0.2.0, 50% with 0.3.0, on the 3 of 3 cases with answers people corrected."
    ) in shown
    assert '<th class="num">0.2.0</th><th class="num">This version</th>' in shown
    assert shown.count("<h4>0.2.0</h4>") == 3 and "<h4>Recorded</h4>" not in shown
    assert shown.count("0.2.0's replay run 1") == 3
    assert "against the recorded runs" not in shown
    assert f"{AGENT} 0.3.0 against 0.2.0" in listed


def versus(before: float, after: float, baseline: dict[str, str]) -> words.SummaryView:
    """The view of 0.3.0's summary of 3 corrected cases against `baseline` (a version, unless
    it says another kind)."""
    share = Metric(baseline=before, candidate=after, delta=None, n=3, weight=3.0,
                   baseline_n=3, baseline_weight=3.0)  # fmt: skip
    against = Baseline(kind=baseline.get("kind", "version"), agent_id=baseline.get("agentId"),
                       version=baseline.get("version"), via=baseline.get("via"))  # fmt: skip
    tried = Candidate(kind="agent", version="0.3.0", agent_id=AGENT)
    return words.view_of(tried, against, 3, 0, share)


def test_the_headline_names_both_versions() -> None:
    explicit = versus(0.5, 1.0, {"agentId": AGENT, "version": "0.2.0", "via": "explicit"})
    live = versus(0.5, 0.5, {"agentId": AGENT, "version": "0.4.0", "via": "live"})
    other = versus(1.0, 0.5, {"agentId": "acme-ops.picker-two", "version": "1.0.0",
                              "via": "explicit"})  # fmt: skip
    assert words.headline(explicit) == (
        f"People's corrections rate {AGENT} 0.3.0 better than 0.2.0: 50% marked right with "
        "0.2.0, 100% with 0.3.0, on the 3 of 3 cases with answers people corrected."
    )
    assert words.headline(live) == (
        f"People's corrections rate {AGENT} 0.3.0 the same as the live version (0.4.0): 50% "
        "marked right with 0.4.0, 50% with 0.3.0, on the 3 of 3 cases with answers people "
        "corrected."
    )
    assert words.against(other) == f"{AGENT} 0.3.0 against acme-ops.picker-two 1.0.0"
    assert words.against(versus(0.5, 1.0, {"kind": "recorded"})) == (
        f"{AGENT} 0.3.0 against the recorded runs"
    )
