"""The features of a deployed Kindgi runtime that kindgi dev doesn't serve: one row each,
with the sentence a caller gets and the official client 0.1.10's operations it covers
(`"METHOD [METHOD…] /path"`, as the client's operation table spells them). `unserved`
answers each with `501 not-in-kindgi-dev`; a row goes when kindgi dev serves its feature.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Feature:
    """A feature kindgi dev doesn't serve: what to call it, why, and the client's paths."""

    key: str
    name: str
    why: str
    operations: tuple[str, ...]

    def routes(self) -> Iterator[tuple[str, str]]:
        """Each (method, path) the feature covers."""
        for entry in self.operations:
            *methods, path = entry.split()
            for method in methods:
                yield method, path


DEPLOYED = "a deployed Kindgi runtime"

UNSERVED: tuple[Feature, ...] = (
    Feature(
        "public-run-progress",
        "Public run progress",
        f"A run's public progress, for a browser holding its public token, is served by"
        f" {DEPLOYED}; kindgi dev issues no public tokens: follow a run with"
        " GET /v1/runs/{runId}/stream.",
        (
            "GET /v1/runs/{runId}/progress",
            "GET /v1/runs/{runId}/progress/stream",
            "POST /v1/tokens/public",
        ),
    ),
    Feature(
        "api-keys",
        "API keys",
        f"API keys are listed and revoked on {DEPLOYED}; kindgi dev's own token is the one"
        " in .kindgirc.json.",
        (
            "GET /v1/tokens",
            "GET /v1/tokens/{tokenId}",
            "POST /v1/tokens/{tokenId}/revoke",
        ),
    ),
    Feature(
        "service-accounts",
        "Service accounts",
        f"Service accounts are made and granted on {DEPLOYED}; kindgi dev has one user.",
        (
            "GET POST /v1/service-accounts",
            "GET /v1/service-accounts/{serviceAccountId}",
            "POST /v1/service-accounts/{serviceAccountId}/grant",
            "POST /v1/service-accounts/{serviceAccountId}/ungrant",
            "POST /v1/service-accounts/{serviceAccountId}/unregister",
        ),
    ),
    Feature(
        "system",
        "The operator's system API",
        f"The operator's API (tenants, system keys, deployments and usage across tenants) is"
        f" {DEPLOYED}'s; kindgi dev has one tenant and no operator.",
        (
            "GET POST /v1/system/keys",
            "POST /v1/system/keys/{keyId}/revoke",
            "GET /v1/system/whoami",
            "GET POST /v1/system/tenants",
            "GET PATCH /v1/system/tenants/{tenantId}",
            "POST /v1/system/tenants/{tenantId}/close",
            "PUT /v1/system/tenants/{tenantId}/suspended",
            "PUT /v1/system/tenants/{tenantId}/image-prefix",
            "PUT /v1/system/tenants/{tenantId}/projects/{projectId}/suspended",
            "GET /v1/system/tenants/{tenantId}/admins",
            "POST /v1/system/tenants/{tenantId}/purge",
            "PUT /v1/system/tenants/{tenantId}/production-allowed",
            "GET PUT /v1/system/tenants/{tenantId}/limits",
            "GET /v1/system/usage",
            "GET /v1/system/deployments",
            "PUT DELETE /v1/system/tenants/{tenantId}/deployments/{deploymentId}/endpoint",
            "PUT /v1/system/tenants/{tenantId}/deployments/{deploymentId}/endpoint/problem",
            "GET /v1/system/pack-env",
            "GET PUT /v1/system/tenants/{tenantId}/deployments/{deploymentId}/pack-env",
            "PUT /v1/system/tenants/{tenantId}/deployments/{deploymentId}/suspended",
        ),
    ),
    Feature(
        "publishing",
        "Publishing over the API",
        f"Publishing, deriving, unregistering and reinstating agents, flows, tools and"
        f" guardrails over the API is {DEPLOYED}'s; kindgi dev registers what the pack folder"
        " holds, at every save.",
        (
            "POST /v1/agents",
            "POST /v1/agents/{agentId}/versions",
            "POST /v1/agents/{agentId}/versions/{version}/unregister",
            "POST /v1/agents/{agentId}/versions/{version}/reinstate",
            "POST /v1/flows",
            "POST /v1/flows/{flowId}/versions/{version}/unregister",
            "POST /v1/flows/{flowId}/versions/{version}/reinstate",
            "POST /v1/tools",
            "POST /v1/tools/{toolId}/versions/{version}/unregister",
            "POST /v1/tools/{toolId}/versions/{version}/reinstate",
            "POST /v1/guardrails",
            "POST /v1/guardrails/{guardrailId}/unregister",
        ),
    ),
    Feature(
        "signing-keys",
        "Signing keys",
        f"The trust list of keys that sign pack images is kept by {DEPLOYED}; kindgi dev"
        " runs the pack from its folder, unsigned.",
        (
            "GET POST /v1/signing-keys",
            "GET /v1/signing-keys/{keyId}",
            "POST /v1/signing-keys/{keyId}/revoke",
        ),
    ),
    Feature(
        "proposals",
        "Improvement proposals and passes",
        f"Improvement proposals and passes are run by {DEPLOYED}; kindgi dev doesn't search"
        " for better settings.",
        (
            "GET POST /v1/proposals",
            "POST /v1/proposals/improve",
            "GET /v1/proposals/{proposalId}",
            "POST /v1/proposals/{proposalId}/evaluate",
            "POST /v1/proposals/{proposalId}/rescore",
            "POST /v1/proposals/{proposalId}/request",
            "POST /v1/proposals/{proposalId}/rollback",
            "POST /v1/proposals/{proposalId}/withdraw",
            "GET /v1/improvement-passes",
            "GET /v1/improvement-passes/{passId}",
            "POST /v1/improvement-passes/{passId}/cancel",
        ),
    ),
    Feature(
        "provenance",
        "Provenance",
        f"Provenance records and their signed exports are kept by {DEPLOYED}; in kindgi dev"
        " a run's journal says what ran: GET /v1/runs/{runId}/journal.",
        (
            "GET /v1/provenance",
            "GET /v1/provenance/{runId}",
            "POST /v1/provenance/{runId}/export",
        ),
    ),
    Feature(
        "signed-exports",
        "Signed exports",
        f"Exports (an approval's audit bundle among them) are signed by {DEPLOYED}'s export"
        " key; kindgi dev signs nothing.",
        ("GET /v1/export-signing-keys", "POST /v1/approvals/{approvalId}/audit-bundle"),
    ),
    Feature(
        "compliance",
        "Compliance evidence",
        f"Compliance evidence is collected by {DEPLOYED}; kindgi dev collects none.",
        (
            "GET /v1/compliance/evidence",
            "GET /v1/compliance/evidence/{evidenceId}",
            "POST /v1/compliance/evidence/export",
        ),
    ),
    Feature(
        "audit",
        "Audit logs",
        f"Sign-in and access-decision audit logs are kept by {DEPLOYED}; kindgi dev has one"
        " token and logs its requests to its own log.",
        ("GET /v1/audit/sign-ins", "GET /v1/audit/authz"),
    ),
    Feature(
        "license",
        "License",
        f"A license key enrolls {DEPLOYED}; kindgi dev needs none.",
        ("GET /v1/license", "GET /v1/license/usage"),
    ),
    Feature(
        "artifacts",
        "Artifacts",
        f"Files kept in the runtime (artifacts) are stored by {DEPLOYED}; kindgi dev keeps none.",
        ("GET POST /v1/artifacts", "GET DELETE /v1/artifacts/{blobId}"),
    ),
    Feature(
        "observations",
        "Observations",
        f"Observations are collected by {DEPLOYED}; kindgi dev records runs, their tool calls"
        " and journals.",
        ("GET /v1/observations",),
    ),
    Feature(
        "mcp-endpoints",
        "MCP endpoints",
        f"MCP endpoints are registered and called by {DEPLOYED}; kindgi dev lists none.",
        (
            "POST /v1/mcp/endpoints",
            "GET /v1/mcp/endpoints/{endpointId}",
            "POST /v1/mcp/endpoints/{endpointId}/unregister",
            "GET /v1/mcp/endpoints/{endpointId}/resources",
            "GET /v1/mcp/endpoints/{endpointId}/resources/{uri}",
            "GET /v1/mcp/endpoints/{endpointId}/prompts",
            "POST /v1/mcp/endpoints/{endpointId}/prompts/{name}",
        ),
    ),
    Feature(
        "adapters",
        "Adapters",
        f"Adapters are prepared and tested on {DEPLOYED}; kindgi dev calls its own"
        " OpenAI-compatible and Anthropic adapters and the pack's function models.",
        (
            "GET /v1/adapters",
            "GET /v1/adapters/{adapterId}",
            "POST /v1/adapters/{adapterId}/test",
            "POST /v1/adapters/{adapterId}/prepare",
        ),
    ),
    Feature(
        "policies",
        "Policies",
        f"Policies are published and enforced on {DEPLOYED}; kindgi dev enforces none.",
        (
            "GET POST /v1/policies",
            "GET /v1/policies/{policyId}",
            "GET /v1/policies/{policyId}/versions",
            "GET /v1/policies/{policyId}/versions/{version}",
            "POST /v1/policies/{policyId}/versions/{version}/unregister",
            "POST /v1/policies/{policyId}/versions/{version}/reinstate",
        ),
    ),
    Feature(
        "retention",
        "Retention",
        f"Retention sweeps run on {DEPLOYED}; kindgi dev keeps everything until"
        " kindgi dev --reset.",
        (
            "GET /v1/retention/scheduled",
            "POST /v1/retention/sweep",
            "POST /v1/retention/sweep/{domain}",
        ),
    ),
    Feature(
        "sign-in",
        "Single sign-on and sign-in settings",
        f"Identity providers, sessions and sign-in settings are {DEPLOYED}'s; kindgi dev signs"
        " you in with its one token (the console with the link its banner prints).",
        (
            "GET POST /v1/auth/providers",
            "GET PATCH /v1/auth/providers/{providerId}",
            "GET /v1/auth/providers/{providerId}/sign-in",
            "POST /v1/auth/providers/{providerId}/unregister",
            "GET PATCH /v1/auth/settings",
            "POST /v1/auth/token-sign-in",
            "POST /v1/auth/refresh",
            "POST /v1/auth/logout",
        ),
    ),
    Feature(
        "people",
        "People",
        f"People, their grants and second factors are managed on {DEPLOYED}; kindgi dev has"
        " one user, an admin.",
        (
            "GET POST /v1/identity/users",
            "GET /v1/identity/users/{userId}",
            "GET /v1/identity/users/{userId}/sessions",
            "POST /v1/identity/users/{userId}/unregister",
            "POST /v1/identity/users/{userId}/invite",
            "GET /v1/identity/users/{userId}/second-factor",
            "POST /v1/identity/users/{userId}/second-factor/remove",
            "POST /v1/identity/users/{userId}/revoke-sessions",
            "GET /v1/identity/users/{userId}/grants",
            "POST /v1/identity/users/{userId}/grant",
            "POST /v1/identity/users/{userId}/ungrant",
            "GET POST /v1/identity/me/second-factor",
            "POST /v1/identity/me/second-factor/confirm",
            "POST /v1/identity/me/second-factor/recovery-codes",
            "POST /v1/identity/me/second-factor/remove",
            "GET /v1/identity/me/permissions",
        ),
    ),
    Feature(
        "orgs-and-teams",
        "Organisations and teams",
        f"Organisations and teams are kept by {DEPLOYED}; kindgi dev has one tenant, with no"
        " organisations or teams.",
        (
            "GET POST /v1/orgs",
            "GET PATCH DELETE /v1/orgs/{orgId}",
            "GET POST /v1/teams",
            "GET PATCH DELETE /v1/teams/{teamId}",
            "GET POST /v1/teams/{teamId}/memberships",
            "PATCH DELETE /v1/teams/{teamId}/memberships/{userId}",
            "GET /v1/teams/{teamId}/project-grants",
        ),
    ),
    Feature(
        "project-access",
        "Project memberships and grants",
        f"Who may use a project (memberships, team grants) is {DEPLOYED}'s; in kindgi dev"
        " its one user may use every project.",
        (
            "GET POST /v1/projects/{projectId}/memberships",
            "PATCH DELETE /v1/projects/{projectId}/memberships/{userId}",
            "GET /v1/projects/{projectId}/access",
            "GET POST /v1/projects/{projectId}/team-grants",
            "PATCH DELETE /v1/projects/{projectId}/team-grants/{teamId}",
        ),
    ),
    Feature(
        "project-deletion",
        "Deleting a project",
        f"Projects are deleted on {DEPLOYED}; kindgi dev keeps every project, so its runs and"
        " test sets keep naming it.",
        ("DELETE /v1/projects/{projectId}",),
    ),
    Feature(
        "judging-rules",
        "Judging rules and the judging queue",
        f"Judging rules and the judging queue run on {DEPLOYED}; in kindgi dev, correct a run"
        " in the console (Correct this run) or with POST /v1/corrections.",
        (
            "GET POST /v1/projects/{projectId}/judging-rules",
            "GET /v1/projects/{projectId}/judging-rules/preview",
            "GET PATCH /v1/projects/{projectId}/judging-rules/{ruleId}",
            "POST /v1/projects/{projectId}/judging-rules/{ruleId}/unregister",
            "GET /v1/projects/{projectId}/judging-rules/{ruleId}/versions",
            "GET /v1/projects/{projectId}/judging-rules/{ruleId}/results",
            "GET /v1/projects/{projectId}/judging-queue",
            "POST /v1/projects/{projectId}/judging-queue/{runId}/dismiss",
            "POST /v1/projects/{projectId}/judging-queue/{runId}/reopen",
        ),
    ),
    Feature(
        "tenant-config",
        "Tenant config",
        f"The tenant's config is kept by {DEPLOYED}; kindgi dev reads its settings from the"
        " pack's pyproject.toml ([tool.kindgi-dev]).",
        ("GET PATCH /v1/tenant/config",),
    ),
    Feature(
        "environments",
        "Environments and their values",
        f"Environments, their order and their values are {DEPLOYED}'s; kindgi dev runs in one"
        " environment, with the values of its own process and the pack's env files.",
        (
            "GET /v1/environments",
            "GET /v1/environment-orders",
            "GET PUT /v1/environment-orders/tenant",
            "GET PUT /v1/environment-orders/orgs/{orgId}",
            "GET /v1/env",
            "GET PUT DELETE /v1/env/{name}",
        ),
    ),
    Feature(
        "secrets",
        "Secrets",
        f"Secrets are stored and rotated by {DEPLOYED}; kindgi dev reads keys from its"
        " environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, …).",
        (
            "GET POST /v1/secrets",
            "GET DELETE /v1/secrets/{name}",
            "GET /v1/secrets/{name}/versions",
            "GET /v1/secrets/{name}/versions/{versionId}",
            "POST /v1/secrets/{name}/rotate",
            "GET /v1/secrets/{name}/rotations/{rotationId}",
            "GET /v1/secrets/{name}/rotations/{rotationId}/events",
        ),
    ),
    Feature(
        "deployments",
        "Deployments",
        f"Deployments are made and promoted on {DEPLOYED}; kindgi dev runs the pack in its folder.",
        (
            "GET POST /v1/deployments",
            "GET /v1/deployments/{deploymentId}",
            "GET /v1/deployments/{deploymentId}/pack-env",
            "POST /v1/deployments/{deploymentId}/secrets",
            "GET /v1/deployments/{deploymentId}/values",
            "POST /v1/deployments/{deploymentId}/promotions",
            "POST /v1/deployments/{deploymentId}/promotions/check",
        ),
    ),
    Feature(
        "schedules",
        "Schedules",
        f"Schedules run on {DEPLOYED}; kindgi dev doesn't run them.",
        (
            "GET POST /v1/schedules",
            "GET PATCH /v1/schedules/{triggerId}",
            "POST /v1/schedules/{triggerId}/pause",
            "POST /v1/schedules/{triggerId}/resume",
            "POST /v1/schedules/{triggerId}/unregister",
            "GET /v1/schedules/{triggerId}/fires",
            "POST /v1/schedules/{triggerId}/run-now",
            "POST /v1/schedules/{triggerId}/owner",
        ),
    ),
    Feature(
        "webhooks",
        "Webhooks",
        f"Webhooks start runs on {DEPLOYED}, and its webhook endpoints send events out;"
        " kindgi dev neither takes nor sends them.",
        (
            "GET POST /v1/webhooks",
            "GET PATCH /v1/webhooks/{triggerId}",
            "POST /v1/webhooks/{triggerId}/pause",
            "POST /v1/webhooks/{triggerId}/resume",
            "POST /v1/webhooks/{triggerId}/unregister",
            "GET /v1/webhooks/{triggerId}/fires",
            "POST /v1/webhooks/{triggerId}/owner",
            "GET POST /v1/webhook-endpoints",
            "POST /v1/webhook-endpoints/generate-secret",
            "GET PATCH /v1/webhook-endpoints/{endpointId}",
            "POST /v1/webhook-endpoints/{endpointId}/unregister",
            "GET /v1/webhook-endpoints/{endpointId}/deliveries",
            "POST /v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/redeliver",
            "POST /v1/webhook-endpoints/{endpointId}/test",
        ),
    ),
    Feature(
        "sites",
        "Sites",
        f"Sites that sign their own people in (the WordPress plugin) enroll with {DEPLOYED};"
        " kindgi dev has none.",
        (
            "GET POST /v1/projects/{projectId}/sites",
            "GET PATCH /v1/projects/{projectId}/sites/{siteId}",
            "POST /v1/projects/{projectId}/sites/{siteId}/pause",
            "POST /v1/projects/{projectId}/sites/{siteId}/resume",
            "POST /v1/projects/{projectId}/sites/{siteId}/unregister",
            "POST /v1/projects/{projectId}/sites/{siteId}/enrollment-codes",
            "POST /v1/projects/{projectId}/sites/{siteId}/keys/{kid}/revoke",
            "POST /v1/projects/{projectId}/sites/{siteId}/people/{userId}/restore",
            "POST /v1/auth/sites/enroll",
            "POST /v1/auth/site-sign-in",
        ),
    ),
)
