"""The client's answers: typed models with snake_case fields, camelCase on the wire."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from ..domain.json import JSONObject

Verdict = Literal["right", "wrong"]


class _Model(BaseModel):
    """An answer: camelCase on the wire, snake_case here; fields a newer runtime adds kept.
    A client's own reading of the wire, as the official client's models are: so it keeps
    the wire's names (`Correction`, `Principal`, `TestCase`) beside the server's models."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, alias_generator=to_camel)


class CaseCounts(_Model):
    """How many cases a test set has, and how many were retired."""

    active: int
    retired: int


# The wire's FrozenVersion, as the client reads it: named as the official client names it.
class FrozenVersion(_Model):
    """A frozen version of a test set: `{test_set_id, version}`."""

    test_set_id: str
    version: str


# The wire's AgentTestSet, as the client reads it: named as the official client names it.
class AgentTestSet(_Model):
    """An agent's test set in one project: case counts and its newest frozen version."""

    id: str
    agent_id: str
    project_id: str
    cases: CaseCounts
    frozen_version: FrozenVersion | None = None


class ExpectedItem(_Model):
    """An item a case expects, right or wrong."""

    key: str
    pointer: str | None = None
    rank: int | None = None
    verdict: Verdict
    reason: str | None = None


class CaseExpect(_Model):
    """What a case expects: its items, decisions and answer, each when given."""

    items: list[ExpectedItem] | None = None
    decisions: JSONObject | None = None
    answer: JSONObject | None = None


# The wire's Principal, as the client reads it: named as the official client names it.
class Principal(_Model):
    """Who added, retired or corrected something."""

    kind: str
    id: str


class CaseRetirement(_Model):
    """Why, by whom and when a case was retired."""

    reason: str
    by: Principal
    at: str


# The wire's TestCase, as the client reads it: named as the official client names it.
class TestCase(_Model):
    """A case of an agent's test set: a correction's (its id) or one added by hand (`case-…`)."""

    id: str
    kind: str
    project_id: str
    run_id: str
    made_on: str
    expect: CaseExpect
    expert: bool | None = None
    added_by: Principal | None = None
    added_at: str | None = None
    updated_at: str | None = None
    retired: CaseRetirement | None = None


class TestCasePage(_Model):
    """A page of cases, newest first."""

    data: list[TestCase]
    has_more: bool
    next_cursor: str | None = None


class VersionCasePage(_Model):
    """A page of one test-set version's cases, as they were when it was frozen or built."""

    data: list[JSONObject]
    has_more: bool
    next_cursor: str | None = None


# The wire's CorrectedItem, as the client reads it: named as the official client names it.
class CorrectedItem(_Model):
    """One item of a correction, with the judgment that records it."""

    key: str
    pointer: str | None = None
    rank: int | None = None
    verdict: Verdict
    reason: str | None = None
    judgment_id: str | None = None


class CorrectionSubject(_Model):
    """What the corrected run ran."""

    kind: str
    id: str
    version: str


# The wire's Correction, as the client reads it: named as the official client names it.
class Correction(_Model):
    """One corrector's correction of one run: items, and what it should have done or said."""

    id: str
    run_id: str
    project_id: str
    subject: CorrectionSubject
    items: list[CorrectedItem]
    decisions: JSONObject | None = None
    answer: JSONObject | None = None
    judge_class_id: str | None = None
    restricted: bool | None = None
    participant_id: str | None = None
    corrected_by: Principal
    status: str
    replaced_by: str | None = None
    erased: bool | None = None
    created_at: str
    updated_at: str


class CorrectionPage(_Model):
    """A page of corrections, newest first."""

    data: list[Correction]
    has_more: bool
    next_cursor: str | None = None
