"""Gate policies: publish a version (immutable, one policy per agent and scope), read,
list, unregister and reinstate, and resolve which policy gates a promotion for a scope."""

from __future__ import annotations

from ..domain.errors import Conflict, NotFound
from ..domain.gate_specs import GatePolicy, GateSpec
from ..domain.live import LiveScope, within
from ..domain.paging import Page, page_of
from ..domain.time import now_iso
from ..store import gate_policies as store
from . import catalog, identity, live
from .catalog import version_key
from .context import Context


def missing(policy_id: str, version: str | None = None) -> NotFound:
    """404 `gate-policy-not-found`."""
    error = NotFound("gate-policy", policy_id, id_field="policy_id")
    if version is not None:
        error.message = f"Gate policy {policy_id} has no version {version}."
        error.details["version"] = version
    else:
        error.message = f"No active gate policy {policy_id}."
    error.args = (error.message,)
    return error


def publish(
    ctx: Context,
    policy_id: str,
    version: str,
    agent_id: str,
    scope: LiveScope,
    spec: GateSpec,
    description: str | None = None,
) -> tuple[GatePolicy, bool]:
    """Publish a policy version; the version and whether it is new (the same content sent
    again is the version already published). 409 when the version holds other content, when
    another policy gates the agent for the scope, when a new version moves the policy to
    another agent or scope, or when the scope has no pin of its own."""
    identity.require_admin(ctx, "Publishing a gate policy")
    catalog.get_agent(ctx, agent_id)
    live.check_scope(ctx, scope)
    with ctx.db.transaction():
        existing = store.get(ctx.db, ctx.tenant_id, policy_id, version)
        if existing is not None:
            same = (existing.agent_id, existing.scope, existing.spec, existing.description)
            if same == (agent_id, scope, spec, description):
                return existing, False
            raise Conflict(
                f"Gate policy {policy_id} {version} is published with other content: publish "
                "a new version.",
                code="gate-policy-already-registered",
                policyId=policy_id,
                version=version,
            )
        _check_scope_free(ctx, policy_id, agent_id, scope)
        policy = GatePolicy(
            policy_id, version, agent_id, scope, spec, now_iso(), description=description
        )
        store.insert(ctx.db, ctx.tenant_id, policy)
    return policy, True


def _check_scope_free(ctx: Context, policy_id: str, agent_id: str, scope: LiveScope) -> None:
    """The publish rules about where a policy applies (see `publish`)."""
    for other in store.versions(ctx.db, ctx.tenant_id, policy_id):
        if (other.agent_id, other.scope.key) != (agent_id, scope.key):
            raise Conflict(
                f"Gate policy {policy_id} gates {other.agent_id} for {other.scope.describe()}; "
                "a new version can't move it to another agent or scope.",
                code="gate-policy-scope-changed",
                policyId=policy_id,
            )
    _check_held(ctx, policy_id, agent_id, scope)
    if live.own_pin(ctx, agent_id, scope) is None:
        raise Conflict(
            f"{agent_id} has no version pinned for {scope.describe()}: a gated scope keeps a "
            "pin of its own (else a promotion above it would change it ungated). Promote a "
            "version for the scope first.",
            code="gate-policy-scope-unpinned",
            agentId=agent_id,
        )


def _check_held(ctx: Context, policy_id: str, agent_id: str, scope: LiveScope) -> None:
    """409 `gate-policy-scope-taken` when another active policy gates the agent for the scope."""
    held = [
        p
        for p in active(ctx, agent_id=agent_id, scope=scope)
        if p.id != policy_id and p.scope.key == scope.key
    ]
    if held:
        raise Conflict(
            f"Gate policy {held[0].id} already gates {agent_id} for {scope.describe()}: "
            "publish a new version of it instead.",
            code="gate-policy-scope-taken",
            heldBy=held[0].id,
        )


def active(
    ctx: Context, *, agent_id: str | None = None, scope: LiveScope | None = None
) -> list[GatePolicy]:
    """Each policy's latest active version (of one agent, or one scope, when given), by id."""
    found = store.all_versions(
        ctx.db, ctx.tenant_id, agent_id=agent_id, scope_key=None if scope is None else scope.key
    )
    latest: dict[str, GatePolicy] = {}
    for policy in found:
        if policy.unregistered_at is not None:
            continue
        kept = latest.get(policy.id)
        if kept is None or version_key(policy.version) > version_key(kept.version):
            latest[policy.id] = policy
    return [latest[key] for key in sorted(latest)]


def list_page(
    ctx: Context,
    *,
    agent_id: str | None,
    scope: LiveScope | None,
    limit: int | None,
    cursor: str | None,
) -> Page[GatePolicy]:
    """Each policy's latest active version, by id, a page at a time."""
    return page_of(active(ctx, agent_id=agent_id, scope=scope), limit, cursor)


def get(ctx: Context, policy_id: str) -> GatePolicy:
    """A policy's latest active version; 404 `gate-policy-not-found`."""
    found = [p for p in versions(ctx, policy_id) if p.unregistered_at is None]
    if not found:
        raise missing(policy_id)
    return found[-1]


def versions(ctx: Context, policy_id: str) -> list[GatePolicy]:
    """Every version of a policy, oldest (lowest) first, unregistered ones too; 404 if none."""
    found = store.versions(ctx.db, ctx.tenant_id, policy_id)
    if not found:
        raise missing(policy_id)
    return sorted(found, key=lambda p: version_key(p.version))


def get_version(ctx: Context, policy_id: str, version: str) -> GatePolicy:
    """One version, unregistered or not."""
    found = store.get(ctx.db, ctx.tenant_id, policy_id, version)
    if found is None:
        raise missing(policy_id, version)
    return found


def unregister(ctx: Context, policy_id: str, version: str) -> GatePolicy:
    """The version stops applying: the policy's latest remaining version does, or the scope
    above's policy. Promotions keep the version they were checked against."""
    identity.require_admin(ctx, "Unregistering a gate policy")
    with ctx.db.transaction():
        found = get_version(ctx, policy_id, version)
        if found.unregistered_at is None:
            store.set_unregistered(ctx.db, ctx.tenant_id, policy_id, version, now_iso())
        return get_version(ctx, policy_id, version)


def reinstate(ctx: Context, policy_id: str, version: str) -> GatePolicy:
    """The version applies again, under the rules a publish checks."""
    identity.require_admin(ctx, "Reinstating a gate policy")
    with ctx.db.transaction():
        found = get_version(ctx, policy_id, version)
        if found.unregistered_at is not None:
            _check_held(ctx, policy_id, found.agent_id, found.scope)
            if live.own_pin(ctx, found.agent_id, found.scope) is None:
                raise Conflict(
                    f"{found.agent_id} has no version pinned for {found.scope.describe()}: "
                    "promote one for the scope first.",
                    code="gate-policy-scope-unpinned",
                    agentId=found.agent_id,
                )
            store.set_unregistered(ctx.db, ctx.tenant_id, policy_id, version, None)
        return get_version(ctx, policy_id, version)


def resolve(ctx: Context, agent_id: str, scope: LiveScope) -> GatePolicy | None:
    """The policy a promotion of the agent for `scope` is checked against: the most specific
    scope with an active policy (longer segment prefixes first, then the project, then the
    tenant), at its latest active version; None when none applies."""
    found = within(((p.scope, p) for p in active(ctx, agent_id=agent_id)), scope)
    return None if found is None else found[1]
