"""Publishing eval suite versions: register one, tombstone it, reinstate it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...domain.errors import BadInput, Conflict, ValidationFailed
from ...domain.ids import is_uuid
from ...domain.semver import is_release
from ...domain.time import now_iso
from ...store import eval_suites as store
from ...store import pulled_test_sets
from .. import projects
from ..context import Context
from .read import get_version

EVAL_KINDS = ("accuracy", "pairwise", "regression", "human-review", "benchmark", "custom", "judged")


@dataclass(frozen=True)
class Published:
    """What publishing a version answers."""

    suite_id: str
    version: str


@dataclass(frozen=True)
class Tombstoned:
    """What unregistering a version answers."""

    suite_id: str
    version: str
    unregistered: bool = True


@dataclass(frozen=True)
class SuiteReinstated:
    """What reinstating a version answers: whether it was tombstoned."""

    suite_id: str
    version: str
    was_tombstoned: bool


def check_version(version: str, field: str = "version") -> None:
    """400 unless `version` is MAJOR.MINOR.PATCH, as the contract's suite versions are."""
    if not is_release(version):
        raise ValidationFailed(field, f"must be a semver such as 1.0.0, not {version!r}")


def taken(suite_id: str, version: str) -> Conflict:
    """409 `eval-suite-already-registered` for a version already published."""
    return Conflict(
        f'Eval suite "{suite_id}" version "{version}" is already registered.',
        code="eval-suite-already-registered",
        suiteId=suite_id,
        version=version,
    )


def claim(ctx: Context, suite_id: str, version: str, project_id: str) -> None:
    """409 when the version is taken or the suite's other versions are in another project."""
    rows = store.versions_of(ctx.db, ctx.tenant_id, suite_id)
    if any(row.version == version for row in rows):
        raise taken(suite_id, version)
    if pulled_test_sets.versions(ctx.db, ctx.tenant_id, suite_id):
        raise Conflict(
            f'"{suite_id}" is a test set pulled from another runtime: give the suite another id.',
            code="eval-suite-already-registered",
            suiteId=suite_id,
            version=version,
        )
    others = {row.project_id for row in rows if row.project_id}
    if others and project_id not in others:
        raise Conflict(
            f'Eval suite "{suite_id}" is in project {others.pop()}, not {project_id}.',
            code="eval-suite-project-mismatch",
            suiteId=suite_id,
        )


@dataclass(frozen=True)
class NewVersion:
    """A suite version to publish; `spec` is the dispatcher's business, kept as given."""

    id: str
    project_id: str
    version: str
    kind: str
    spec: dict[str, Any]
    description: str | None = None
    tenant_id: str | None = None


def publish(ctx: Context, new: NewVersion) -> Published:
    """Publish a version; `judged` ones are built from judgments, not published."""
    check_version(new.version)
    if new.tenant_id not in (None, ctx.tenant_id):
        raise ValidationFailed(
            "tenantId", "must be your own tenant: cross-tenant publish is refused"
        )
    if new.kind == "judged":
        raise ValidationFailed("kind", "a judged suite is built with versions/from-judgments")
    if not is_uuid(new.project_id):
        raise BadInput(
            f"projectId: {new.project_id!r} is not a project id (a UUID).", field="projectId"
        )
    project_id = projects.get(ctx, new.project_id).id
    row = store.SuiteVersionRow(
        id=new.id,
        version=new.version,
        tenant_id=ctx.tenant_id,
        project_id=project_id,
        kind=new.kind,
        description=new.description,
        spec=new.spec,
        created_at=now_iso(),
    )
    with ctx.db.transaction():
        claim(ctx, new.id, new.version, project_id)
        if not store.insert_version(ctx.db, row):
            raise taken(new.id, new.version)
    return Published(new.id, new.version)


def unregister(ctx: Context, suite_id: str, version: str) -> Tombstoned:
    """Tombstone a version (kept and readable); 409 when it is already."""
    with ctx.db.transaction():
        if get_version(ctx, suite_id, version).unregistered_at:
            raise Conflict(
                f'Eval suite "{suite_id}" version "{version}" is already unregistered.',
                code="eval-suite-version-unregistered",
                suiteId=suite_id,
            )
        store.set_unregistered(ctx.db, suite_id, version, now_iso())
    return Tombstoned(suite_id, version)


def reinstate(ctx: Context, suite_id: str, version: str) -> SuiteReinstated:
    """Bring a tombstoned version back (idempotent); whether it was tombstoned."""
    with ctx.db.transaction():
        was = bool(get_version(ctx, suite_id, version).unregistered_at)
        if was:
            store.set_unregistered(ctx.db, suite_id, version, None)
    return SuiteReinstated(suite_id, version, was)
