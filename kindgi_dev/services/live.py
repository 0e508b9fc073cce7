"""Live versions: which version serves a scope, which one a run gets, and the pins of an
agent. A run that names no version gets the most specific pin covering its project and
segment path, else the latest registered version."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..domain.errors import NotFound
from ..domain.live import LiveScope, most_specific, within
from ..domain.releases import LivePin
from ..domain.segments import Segment
from ..store import releases as store
from . import catalog, projects
from .context import Context


def check_scope(ctx: Context, scope: LiveScope) -> None:
    """404 for a scope naming a project that doesn't exist, or any org (kindgi dev has none)."""
    if scope.kind == "org":
        raise NotFound("org", str(scope.org_id))
    if scope.project_id is not None:
        projects.get(ctx, scope.project_id)


def pins(ctx: Context, agent_id: str) -> list[LivePin]:
    """Every scope with a version of the agent pinned."""
    return store.pins(ctx.db, ctx.tenant_id, agent_id)


def own_pin(ctx: Context, agent_id: str, scope: LiveScope) -> LivePin | None:
    """The scope's own pin, not one above it."""
    return next((pin for pin in pins(ctx, agent_id) if pin.scope.key == scope.key), None)


@dataclass(frozen=True)
class Serving:
    """The version that serves a scope (or a run), and the pin that chose it (None: the
    latest registered version, nothing being pinned on the way up)."""

    agent_id: str
    version: str
    pin: LivePin | None

    @property
    def via(self) -> str:
        """`live` or `latest`."""
        return "latest" if self.pin is None else "live"


def serving(ctx: Context, agent_id: str, scope: LiveScope) -> Serving:
    """What a run anywhere in `scope` gets now; 404 `agent-not-found` for an unknown agent."""
    found = within(((pin.scope, pin) for pin in pins(ctx, agent_id)), scope)
    return _serving(ctx, agent_id, None if found is None else found[1])


def for_run(
    ctx: Context, agent_id: str, project_id: str | None, segments: Sequence[Segment] = ()
) -> Serving:
    """What a run in `project_id` at `segments` that names no version gets."""
    found = most_specific(((pin.scope, pin) for pin in pins(ctx, agent_id)), project_id, segments)
    return _serving(ctx, agent_id, None if found is None else found[1])


def _serving(ctx: Context, agent_id: str, pin: LivePin | None) -> Serving:
    if pin is not None:
        return Serving(agent_id, pin.version, pin)
    return Serving(agent_id, str(catalog.get_agent(ctx, agent_id)["version"]), None)


def held_back_notes(ctx: Context, saved: list[tuple[str, str]]) -> list[str]:
    """What `kindgi dev` says when a saved version is not what runs get: for each newly
    registered version, the scopes pinned to another one, and how to make it live."""
    notes = []
    for agent_id, version in saved:
        for pin in pins(ctx, agent_id):
            if pin.version == version:
                continue
            flag = _scope_flags(pin.scope)
            notes.append(
                f"ℹ agent {agent_id} {version} is registered; runs in {pin.scope.describe()} "
                f"still get {pin.version} (live there). Try it, then: kindgi agents promote "
                f"{agent_id} {version} {flag} --eval-run=<eval-run-id>"
            )
    return notes


def _scope_flags(scope: LiveScope) -> str:
    """The CLI flags naming a scope."""
    if scope.kind == "tenant":
        return "--tenant"
    if scope.kind == "org":
        return f"--org={scope.org_id}"
    steps = "".join(f" --segment={s.key}:{s.value}" for s in scope.path or ())
    return f"--project={scope.project_id}{steps}"


def banner_lines(ctx: Context) -> list[str]:
    """Where each agent has a version pinned, for the banner: `<agent> <version> · <scope>`."""
    return [
        f"{pin.agent_id} {pin.version} · {pin.scope.describe()}"
        for pin in store.pinned_agents(ctx.db, ctx.tenant_id)
    ]
