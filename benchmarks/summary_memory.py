"""The summary's metrics on N synthetic case scores, in-process: CPU, the peak RSS it adds,
and a digest of every number it gives, so two trees can be compared in turns (#29).

    .venv/bin/python benchmarks/summary_memory.py 20000 [repetitions]
    PYTHONPATH=/other/tree .venv/bin/python /other/tree/benchmarks/summary_memory.py 20000
"""

from __future__ import annotations

import hashlib
import random
import resource
import sys
import time

from kindgi_dev.domain import comparison
from kindgi_dev.domain.metrics import CaseScore


def _score(rng: random.Random) -> CaseScore:
    items = rng.randint(0, 5)
    judged = rng.randint(0, items)
    yes, total = float(rng.randint(0, judged)), float(judged)
    return CaseScore(yes, total, items, judged, yes if rng.random() < 0.5 else 0.0, total)


def main(cases: int, repetitions: int) -> None:
    """Score `cases` cases (a fixed seed), then time the summary's metrics alone."""
    rng = random.Random(7)
    baseline = [_score(rng) for _ in range(cases)]
    candidate = [tuple(_score(rng) for _ in range(repetitions)) for _ in range(cases)]
    checks = [tuple(rng.random() < 0.6 for _ in range(rng.randint(0, 2))) for _ in range(cases)]
    before_checks = [tuple(rng.random() < 0.5 for _ in c) for c in checks]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    began = time.process_time()
    found = comparison.metrics(
        baseline,
        candidate,
        k=10,
        test_set=True,
        baseline_checks=before_checks,
        candidate_checks=checks,
    )
    cpu = time.process_time() - began
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) / 1024
    digest = hashlib.sha256(repr(found).encode()).hexdigest()[:16]
    print(
        f"{cases:,} cases × {repetitions}: CPU {cpu:.2f} s ({cpu / cases * 1e3:.3f} ms a case), "
        f"peak RSS +{grown:.0f} MB, numbers {digest}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1)
