"""`Kindgi`: the official client (`kindgi.client`, 0.1.10) with Kindgi 0.4's resources added.

The pinned client predates an agent's test set and the 0.4 corrections API, so the 0.4
guide's scripts would stop at `AttributeError`. This one is the official client, same
configuration lookup (`KINDGI_API_URL`, `KINDGI_API_TOKEN`, else the running kindgi dev's
`.kindgirc.json`), same errors and retries, plus:

    from kindgi_dev.client import Kindgi

    kindgi = Kindgi()
    test_set = kindgi.agents.test_set.get("acme-ops.article-picker", project_id=project_id)
    cases = kindgi.agents.test_set.list_cases("acme-ops.article-picker", project_id=project_id)
    kindgi.agents.test_set.add_case(agent_id, run_id=run_id, items=[...])
    kindgi.agents.test_set.retire_case(agent_id, case_id, reason="…")
    kindgi.test_sets.list_cases(test_set_id, version)
    kindgi.corrections.create(run_id=run_id, items=[...])  # add_item, update, list, get

Answers are typed models with snake_case fields (`test_set.cases.active`,
`test_set.frozen_version`), as the official client's are.
"""

from __future__ import annotations

from typing import Any

from kindgi.client import Kindgi as OfficialKindgi

from .corrections import CorrectionsResource
from .models import AgentTestSet, Correction, CorrectionPage, TestCase, TestCasePage
from .test_sets import AgentsResource, TestSetsResource

__all__ = [
    "AgentTestSet",
    "Correction",
    "CorrectionPage",
    "Kindgi",
    "TestCase",
    "TestCasePage",
]


class Kindgi(OfficialKindgi):
    """The official `Kindgi` client with `agents.test_set`, `test_sets.list_cases` and
    `corrections` added; everything else is the official client's own."""

    agents: AgentsResource
    test_sets: TestSetsResource
    corrections: CorrectionsResource

    def __init__(self, base_url: str | None = None, **options: Any) -> None:
        # Untyped: the official client's own options (timeout, retries, …), passed on as given.
        super().__init__(base_url, **options)
        self.agents = AgentsResource(self)
        self.test_sets = TestSetsResource(self)
        self.corrections = CorrectionsResource(self)
