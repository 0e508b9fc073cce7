"""A test set's metrics drawn across its eval runs as server-rendered SVG: a chart per
metric, the versions tried along the x axis, each metric's meaning beside it; and an eval
run's metrics with their meaning and, where the statistics give one, the interval."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from flow_pack import FIND, SUGGEST, flow_served
from test_eval_run_names import ORIGIN, SUITE, corrected_suite, finished

from kindgi_dev.app import console_link
from kindgi_dev.console import charts, words

INTERVAL = r'<line class="interval" x1="[^"]+" x2="[^"]+" y1="([^"]+)" y2="([^"]+)"'


def circles(figure: str, kind: str) -> list[float]:
    return [
        float(y) for y in re.findall(rf'<circle class="{kind}" cx="[^"]+" cy="([^"]+)"', figure)
    ]


def test_each_metric_is_drawn_across_the_runs_with_the_versions_on_the_x_axis(
    tmp_path: Path,
) -> None:
    with flow_served(tmp_path) as (api, _ctx, _pack):
        corrected_suite(api)
        api.get(console_link(api.app, "http://127.0.0.1"))
        empty = api.get(f"/console/test-cases/suites/{SUITE}").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', empty)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "kind": "flow", "subject": SUGGEST, "version": "0.1.0",
                "repetitions": "1", "reads": "live"}  # fmt: skip
        ids = []
        for swap in ({}, {f"tool:{FIND}": "0.2.0"}):
            tried = api.post(f"/console/test-cases/suites/{SUITE}/try", data={**form, **swap},
                             headers=ORIGIN, follow_redirects=False)  # fmt: skip
            assert tried.status_code == 303, tried.text
            run_page = finished(api, tried.headers["location"])
            ids.append(tried.headers["location"].rsplit("/", 1)[1])
        page = html.unescape(api.get(f"/console/test-cases/suites/{SUITE}").text)
        metrics = [api.get(f"/v1/eval-runs/{i}").json()["result"]["summary"]["metrics"]
                   for i in ids]  # fmt: skip
    assert 'id="charts"' not in empty
    figures = dict(re.findall(r'<figure class="chart card" data-metric="([^"]+)">(.*?)</figure>',
                              page, re.DOTALL))  # fmt: skip
    assert sorted(figures) == sorted(metrics[0])
    for key, figure in figures.items():
        caption = re.search(r"<figcaption><strong>([^<]+)</strong> — ([^<]+)</figcaption>", figure)
        assert caption is not None
        assert caption.groups() == (
            words.metric_name(key, metrics[0][key]),
            words.metric_meaning(key, metrics[0][key].get("k") or 10),
        )
        assert circles(figure, "after") == [
            round(charts.y_of(m[key]["candidate"]), 1) for m in metrics]  # fmt: skip
        assert circles(figure, "before") == [
            round(charts.y_of(m[key]["baseline"]), 1) for m in metrics]  # fmt: skip
        assert re.findall(r'data-run="([^"]+)"', figure) == ids
        assert re.findall(r'<text class="version"[^>]*>([^<]+)</text>', figure) == ["0.1.0"] * 2
        assert re.findall(r'<text class="swapped"[^>]*>([^<]+)</text>', figure) == [
            "+ find-articles 0.2.0"]  # fmt: skip
        drawn = re.findall(INTERVAL, figure)
        assert drawn == [tuple(str(round(charts.y_of(m[key]["baseline"] + i[end]), 1))
                               for end in ("low", "high")) for m in metrics
                         if (i := interval_of(m[key])) is not None]  # fmt: skip
    share = metrics[1]["weightedYesShare"]
    assert (share["baseline"], share["candidate"]) == (0.5, 1.0)
    assert circles(figures["weightedYesShare"], "after") == [72.0, 12.0]
    assert "Lower is no worse an answer" in run_page
    found = interval_of(share)
    assert found is not None
    low, high = (min(max(0.5 + found[end], 0.0), 1.0) for end in ("low", "high"))
    assert (f"the change's 95% interval puts it between {words.percent(low)} and "
            f"{words.percent(high)}") in run_page  # fmt: skip


def interval_of(metric: dict[str, Any]) -> dict[str, float] | None:
    found: dict[str, float] | None = (metric.get("paired") or {}).get("interval")
    return found


def test_every_metric_says_what_it_means_and_which_way_is_better() -> None:
    for key in charts.METRIC_KEYS.values():
        meaning = words.metric_meaning(key, 5)
        assert meaning.endswith(".") and len(meaning) > 40, key
    assert "first 5" in words.metric_meaning("weightedPrecisionAtK", 5)
    assert words.metric_meaning("weightedYesShare").endswith("Higher is better.")
    assert (charts.y_of(1.0), charts.y_of(0.0), charts.y_of(1.7)) == (12.0, 132.0, 12.0)
