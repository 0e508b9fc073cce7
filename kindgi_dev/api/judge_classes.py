"""`/v1/judge-classes`: create, list, get, update and unregister judge classes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator
from pydantic.json_schema import WithJsonSchema

from ..domain.bounds import MAX_WEIGHT
from ..domain.corrections import AssertableBy
from ..domain.paging import Page
from ..services import judge_classes
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .routing import SHORT_WRITE_BYTES
from .wire import Number, Omittable, WireModel, WirePage

PrincipalKind = Literal["user", "service"]
ReviewerRole = Literal["standard", "senior", "admin"]


class JudgeClassTenantScope(WireModel):
    """A class for the whole tenant."""

    kind: Literal["tenant"]


class JudgeClassProjectScope(WireModel):
    """A class for one project."""

    kind: Literal["project"]
    project_id: str = Field(min_length=1)


class AgentScope(WireModel):
    """A class for one agent in one project."""

    kind: Literal["agent"]
    project_id: str = Field(min_length=1)
    agent_id: str = Field(min_length=1)


JudgeClassScope = Annotated[
    JudgeClassTenantScope | JudgeClassProjectScope | AgentScope, Field(discriminator="kind")
]


class JudgeClassAssertableBy(WireModel):
    """Who may use a class: every part that is set must hold."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    min_reviewer_role: Omittable[ReviewerRole] = None
    principal_kinds: Omittable[list[PrincipalKind]] = Field(default=None, min_length=1)
    principal_ids: Omittable[list[Annotated[str, Field(min_length=1)]]] = Field(
        default=None, min_length=1, max_length=100
    )

    @model_validator(mode="after")
    def _one_part(self) -> JudgeClassAssertableBy:
        parts = (self.min_reviewer_role, self.principal_kinds, self.principal_ids)
        if all(part is None for part in parts):
            raise ValueError("give at least one of minReviewerRole, principalKinds, principalIds")
        return self

    def record(self) -> AssertableBy:
        """Who may use the class, as the service takes it."""
        kinds, ids = self.principal_kinds, self.principal_ids
        return AssertableBy(
            self.min_reviewer_role,
            None if kinds is None else tuple(kinds),
            None if ids is None else tuple(ids),
        )


class JudgeClassAssertableByView(JudgeClassAssertableBy):
    """`assertableBy` as read: the parts, and how many principals it names."""

    principal_count: int | None = Field(default=None, ge=1)


class CreateJudgeClassBody(WireModel):
    """The body of `judgeClasses.create`."""

    scope: JudgeClassScope
    name: str = Field(min_length=1, max_length=100)
    weight: float = Field(ge=0, le=MAX_WEIGHT)
    description: Omittable[str] = None
    assertable_by: Omittable[JudgeClassAssertableBy] = None


class UpdateJudgeClassBody(WireModel):
    """The body of `judgeClasses.update`: at least one field; `assertableBy: null` lifts it.

    `weight` may be left out but not sent as null: a class always weighs something.
    """

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    weight: Annotated[
        float | None, WithJsonSchema({"type": "number", "minimum": 0, "maximum": MAX_WEIGHT})
    ] = Field(default=None, ge=0, le=MAX_WEIGHT)
    description: Omittable[str] = None
    assertable_by: JudgeClassAssertableBy | None = None

    @field_validator("weight", mode="before")
    @classmethod
    def _not_null(cls, value: object) -> object:
        if value is None:
            raise ValueError("may be left out, but not null")
        return value


class JudgeClassAnswer(WireModel):
    """A judge class as the contract shapes it."""

    model_config = ConfigDict(title="JudgeClass")

    id: str
    tenant_id: str
    scope: JudgeClassScope
    name: str
    weight: Number
    description: str | None = None
    assertable_by: JudgeClassAssertableByView | None = None
    created_at: str
    updated_at: str
    unregistered_at: str | None = None


class JudgeClassCollectionPage(WirePage[JudgeClassAnswer]):
    """A page of judge classes."""


class JudgeClassQuery(WireModel):
    """Paging and scope of `judgeClasses.list`."""

    limit: int | None = None
    cursor: str | None = None
    scope_kind: Literal["tenant", "project", "agent"] | None = None
    project_id: str | None = Field(default=None, min_length=1)
    agent_id: str | None = Field(default=None, min_length=1)


class UnregisterJudgeClassResult(WireModel):
    """What unregistering a class answers."""

    judge_class_id: str
    unregistered: Literal[True]


def create(call: Call[CreateJudgeClassBody, NoQuery]) -> judge_classes.JudgeClass:
    body = call.body
    scope = body.scope
    return judge_classes.create(
        call.ctx,
        (
            scope.kind,
            getattr(scope, "project_id", None),
            getattr(scope, "agent_id", None),
        ),
        name=body.name,
        weight=body.weight,
        description=body.description,
        assertable_by=None if body.assertable_by is None else body.assertable_by.record(),
    )


async def list_classes(call: Call[NoBody, JudgeClassQuery]) -> Page[judge_classes.JudgeClass]:
    q = call.query
    return judge_classes.list_page(
        call.ctx,
        limit=q.limit,
        cursor=q.cursor,
        scope_kind=q.scope_kind,
        project_id=q.project_id,
        agent_id=q.agent_id,
    )


async def get(call: Call[NoBody, NoQuery]) -> judge_classes.JudgeClass:
    return judge_classes.get(call.ctx, call.path["judgeClassId"])


def update(call: Call[UpdateJudgeClassBody, NoQuery]) -> judge_classes.JudgeClass:
    body = call.body
    changes: dict[str, object] = {name: getattr(body, name) for name in body.model_fields_set}
    if body.assertable_by is not None:
        changes["assertable_by"] = body.assertable_by.record()
    return judge_classes.update(call.ctx, call.path["judgeClassId"], changes)


def unregister(call: Call[NoBody, NoQuery]) -> judge_classes.UnregisteredClass:
    return judge_classes.unregister(call.ctx, call.path["judgeClassId"])


ENDPOINTS = [
    Endpoint(
        "POST",
        "/v1/judge-classes",
        "judgeClasses.create",
        create,
        "Create a judge class.",
        body=CreateJudgeClassBody,
        response=JudgeClassAnswer,
        status=201,
        errors=(400, 401, 404, 409, 413),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "GET",
        "/v1/judge-classes",
        "judgeClasses.list",
        list_classes,
        "List live judge classes, newest first.",
        query=JudgeClassQuery,
        response=JudgeClassCollectionPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/judge-classes/{judgeClassId}",
        "judgeClasses.get",
        get,
        "One judge class, retired ones too.",
        response=JudgeClassAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "PATCH",
        "/v1/judge-classes/{judgeClassId}",
        "judgeClasses.update",
        update,
        "Change a judge class's weight, description or restriction.",
        body=UpdateJudgeClassBody,
        response=JudgeClassAnswer,
        errors=(400, 401, 404, 409, 413),
        inline_below=SHORT_WRITE_BYTES,
    ),
    Endpoint(
        "POST",
        "/v1/judge-classes/{judgeClassId}/unregister",
        "judgeClasses.unregister",
        unregister,
        "Retire a judge class; its judgments keep it.",
        response=UnregisterJudgeClassResult,
        errors=(400, 401, 404, 409),
        inline_below=SHORT_WRITE_BYTES,
    ),
]
