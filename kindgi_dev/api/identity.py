"""Who the token is, how people sign in, and the MCP endpoints: what the real CLI's
`auth whoami` and `doctor` ask a runtime, in the platform's shapes."""

from __future__ import annotations

from typing import Literal

from ..services import approvals, identity
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .wire import WireModel, WirePage


class WhoamiPrincipal(WireModel):
    """Whose token it is."""

    kind: Literal["user", "service-account"]
    id: str


class WhoamiResult(WireModel):
    """The token's tenant, user and scopes: the instance's token is its tenant's admin, a
    minted key its user's, a member (with the roster's `reviewerRole` for a reviewer)."""

    tenant_id: str
    actor: str
    user_id: str
    principal: WhoamiPrincipal
    scopes: list[str]
    role: Literal["admin", "member"]
    tenant_admin: bool
    reviewer_role: str | None = None


class SignInMethods(WireModel):
    """How people sign in to the console."""

    identity_providers: bool
    api_token: bool


class SignInOptions(WireModel):
    """No identity provider; the console takes the instance's token (its login link)."""

    data: list[dict[str, str]]
    methods: SignInMethods


class MCPEndpointPage(WirePage[dict[str, object]]):
    """kindgi dev registers no MCP endpoint: always empty."""


async def whoami(call: Call[NoBody, NoQuery]) -> WhoamiResult:
    who = identity.whoami(call.ctx)
    admin = call.ctx.caller.role == "admin"
    reviewer = approvals.roster_role(call.ctx)
    return WhoamiResult(
        tenant_id=who.tenant_id,
        actor=f"user:{who.user_id}",
        user_id=who.user_id,
        principal=WhoamiPrincipal(kind="user", id=who.user_id),
        scopes=list(who.scopes),
        role="admin" if admin else "member",
        tenant_admin=admin,
        **({} if reviewer is None else {"reviewer_role": reviewer}),
    )


async def sign_in_options(call: Call[NoBody, NoQuery]) -> SignInOptions:
    return SignInOptions(data=[], methods=SignInMethods(identity_providers=False, api_token=True))


async def mcp_endpoints(call: Call[NoBody, NoQuery]) -> MCPEndpointPage:
    return MCPEndpointPage(data=[], has_more=False)


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/identity/whoami",
        "identity.whoami",
        whoami,
        "Who this token is: the instance's tenant and user, an admin.",
        response=WhoamiResult,
        errors=(401,),
    ),
    Endpoint(
        "GET",
        "/v1/auth/sign-in-options",
        "auth.signInOptions",
        sign_in_options,
        "How people sign in to the console: with the instance's token.",
        response=SignInOptions,
        public=True,
        errors=(),
    ),
    Endpoint(
        "GET",
        "/v1/mcp/endpoints",
        "mcp.endpoints.list",
        mcp_endpoints,
        "The MCP endpoints registered: none in kindgi dev.",
        response=MCPEndpointPage,
        errors=(401,),
    ),
]
