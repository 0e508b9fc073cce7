"""`/v1/blocks`: data blocks (prompts and settings), published as versions agent versions pin."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, RootModel, field_validator

from ..domain import semver
from ..domain.blocks import Block
from ..domain.errors import ValidationFailed
from ..domain.json import JSONObject
from ..domain.paging import Page, page_of
from ..domain.semver import SEMVER_PATTERN
from ..services import blocks
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .limits import MAX_KEY
from .wire import JsonObject, OpenModel, OpenObject, WireModel, WirePage

BLOCK_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class BlockContent(OpenModel):
    """A prompt's `template` (with its `parameters`), or settings' `values` and `schema`."""

    template: str | None = Field(default=None, min_length=1)
    parameters: list[OpenObject] | None = None
    values: OpenObject | None = None
    schema_: OpenObject | None = Field(default=None, alias="schema")


class PromptContent(WireModel):
    """A prompt block's content: its Liquid template and the parameters it reads."""

    template: str = Field(min_length=1)
    parameters: list[JsonObject] | None = None


class SettingsContent(WireModel):
    """A settings block's content: the values tools read, and the JSON Schema they satisfy."""

    values: JsonObject
    schema_: JsonObject | None = Field(default=None, alias="schema")


class _Publish(WireModel):
    """What every block version names: its project, id, semver and description."""

    project_id: str = Field(min_length=1)
    id: str = Field(min_length=1, max_length=MAX_KEY, pattern=BLOCK_ID)
    version: str = Field(max_length=100, json_schema_extra={"pattern": SEMVER_PATTERN})
    description: str | None = Field(default=None, max_length=4000)

    @field_validator("version")
    @classmethod
    def _semver(cls, version: str) -> str:
        if not semver.is_semver(version):
            raise ValidationFailed("version", "must be a semantic version such as 1.0.0")
        return version


class PublishPrompt(_Publish):
    """A prompt block version."""

    kind: Literal["prompt"]
    content: PromptContent


class PublishSettings(_Publish):
    """A settings block version."""

    kind: Literal["settings"]
    content: SettingsContent


class PublishBlockBody(
    RootModel[Annotated[PublishPrompt | PublishSettings, Field(discriminator="kind")]]
):
    """A block version: its kind says what its content is."""


class BlockAnswer(WireModel):
    """A block version as the contract shapes it."""

    id: str
    version: str
    kind: str
    description: str | None = None
    content: BlockContent
    project_id: str
    published_at: str
    unregistered_at: str | None = None


class BlockPage(WirePage[BlockAnswer]):
    """A page of blocks."""


class BlockQuery(WireModel):
    """Filters of `blocks.list`."""

    limit: int | None = None
    cursor: str | None = None
    kind: Literal["prompt", "settings"] | None = None
    name: str | None = None
    scope_kind: Literal["tenant", "org", "project"] | None = None
    scope_id: str | None = None


class VersionQuery(WireModel):
    """Paging of a block's versions; unregistered ones only when asked."""

    limit: int | None = None
    cursor: str | None = None
    include_tombstoned: bool = False


class BlockGetQuery(WireModel):
    """`projectId` narrows the latest version to one project."""

    project_id: str | None = None


class PublishResult(WireModel):
    """The version published."""

    block_id: str
    version: str


class UnregisterBlockResult(WireModel):
    """The version unregistered."""

    block_id: str
    version: str
    unregistered: Literal[True]


class ReinstateResult(WireModel):
    """The version reinstated, and whether it had been unregistered."""

    block_id: str
    version: str
    was_tombstoned: bool


async def publish(call: Call[PublishBlockBody, NoQuery]) -> dict[str, str]:
    body = call.body.root
    content = body.content.model_dump(by_alias=True, exclude_none=True)
    block = blocks.publish(
        call.ctx,
        project_id=body.project_id,
        block_id=body.id,
        version=body.version,
        kind=body.kind,
        content=content,
        description=body.description,
    )
    return {"block_id": block.id, "version": block.version}


async def list_blocks(call: Call[NoBody, BlockQuery]) -> Page[Block]:
    q = call.query
    if q.scope_kind not in (None, "project"):
        return Page([], False)  # kindgi dev's blocks all belong to projects
    if q.scope_kind == "project" and not q.scope_id:
        raise ValidationFailed(
            "scopeId", "is required with scopeKind=project", code="scope-invalid"
        )
    found = blocks.list_latest(call.ctx, kind=q.kind, name=q.name, project_id=q.scope_id)
    return page_of(found, q.limit, q.cursor)


async def get(call: Call[NoBody, BlockGetQuery]) -> Block:
    return blocks.get(call.ctx, call.path["blockId"], call.query.project_id)


async def versions(call: Call[NoBody, VersionQuery]) -> Page[Block]:
    q = call.query
    found = blocks.versions(call.ctx, call.path["blockId"], include_tombstoned=q.include_tombstoned)
    return page_of(found, q.limit, q.cursor)


async def get_version(call: Call[NoBody, NoQuery]) -> Block:
    return blocks.get_version(call.ctx, call.path["blockId"], call.path["version"])


async def unregister(call: Call[NoBody, NoQuery]) -> JSONObject:
    block_id, version = call.path["blockId"], call.path["version"]
    blocks.unregister(call.ctx, block_id, version)
    return {"block_id": block_id, "version": version, "unregistered": True}


async def reinstate(call: Call[NoBody, NoQuery]) -> blocks.Reinstated:
    return blocks.reinstate(call.ctx, call.path["blockId"], call.path["version"])


_VERSION = "/v1/blocks/{blockId}/versions/{version}"

ENDPOINTS = [
    Endpoint(
        "POST",
        "/v1/blocks",
        "blocks.publish",
        publish,
        "Publish a data block version.",
        body=PublishBlockBody,
        response=PublishResult,
        status=201,
        errors=(400, 401, 404, 409, 413),
    ),
    Endpoint(
        "GET",
        "/v1/blocks",
        "blocks.list",
        list_blocks,
        "List data blocks: the latest active version of each.",
        query=BlockQuery,
        response=BlockPage,
        errors=(400, 401),
    ),
    Endpoint(
        "GET",
        "/v1/blocks/{blockId}",
        "blocks.get",
        get,
        "A data block's latest active version.",
        query=BlockGetQuery,
        response=BlockAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/blocks/{blockId}/versions",
        "blocks.versions.list",
        versions,
        "A data block's versions, newest first.",
        query=VersionQuery,
        response=BlockPage,
        errors=(400, 401, 404),
    ),
    Endpoint(
        "GET",
        _VERSION,
        "blocks.versions.get",
        get_version,
        "One version of a data block, unregistered or not.",
        response=BlockAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "POST",
        _VERSION + "/unregister",
        "blocks.versions.unregister",
        unregister,
        "Unregister a version: no range picks it any more.",
        response=UnregisterBlockResult,
        errors=(401, 404, 409),
    ),
    Endpoint(
        "POST",
        _VERSION + "/reinstate",
        "blocks.versions.reinstate",
        reinstate,
        "Reinstate an unregistered version, unchanged.",
        response=ReinstateResult,
        errors=(401, 404),
    ),
]
