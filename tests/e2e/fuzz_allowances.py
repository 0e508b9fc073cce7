"""The exceptions the contract itself forces on schemathesis's built-in checks, each named
with its reason (`fuzz_hooks` runs each built-in that has one as a wrapper that lets exactly
that answer through).

An allowance names the check, the document (`own`: our `/openapi.json`; `contract`: the
contract's `openapi-subset.json`), the operations, the answer it lets through, and why that
answer is right although the document's schema can't say so: a refusal the contract's own
text calls for, or one that depends on stored state (as a 404 for an unknown id does). The
document fuzzed is `KINDGI_FUZZ_DOCUMENT` (`own` unless set).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.routing import compile_path

from kindgi_dev.api.app import endpoints
from kindgi_dev.api.unserved import UNSERVED

DOCUMENT = os.environ.get("KINDGI_FUZZ_DOCUMENT", "own")
BOTH = ("own", "contract")
SERVED = [(e.method, compile_path(e.path)[0]) for e in endpoints()]
"""Every operation kindgi dev serves: its method and its path's pattern."""
ROUTED = SERVED + [(method, compile_path(path)[0]) for f in UNSERVED for method, path in f.routes()]
"""Every method a path answers: served, or `501 not-in-kindgi-dev` (issue 28)."""


def sent_to(response: Any) -> str:
    """The path a request went to."""
    return urlsplit(str(response.request.url)).path


def methods_of(path: str, routes: list[tuple[str, re.Pattern[str]]]) -> set[str]:
    """The methods `routes` answer at `path`, with HEAD beside GET."""
    found = {method for method, pattern in routes if pattern.fullmatch(path)}
    return found | ({"HEAD"} if "GET" in found else set())


def allow_lists_the_routes(response: Any, case: Any) -> bool:
    """A 405 whose Allow lists exactly the methods kindgi dev routes at the path."""
    allowed = response.headers.get("allow", [""])[0]
    listed = {method.strip() for method in allowed.split(",") if method.strip()}
    return response.status_code == 405 and listed == methods_of(sent_to(response), ROUTED)


def refused(code: str, *fields: str) -> Callable[[Any, Any], bool]:
    """A 400 with this envelope code (and, when given, naming one of these fields: a
    trailing `*` matches any field that starts so)."""

    def matches(response: Any, case: Any) -> bool:
        if response.status_code != 400:
            return False
        error = response.json().get("error") or {}
        named = str((error.get("details") or {}).get("field"))
        return error.get("code") == code and (
            not fields
            or any(named.startswith(f[:-1]) if f.endswith("*") else named == f for f in fields)
        )

    return matches


def status(code: int, wire_code: str) -> Callable[[Any, Any], bool]:
    """An answer with this status and envelope code."""

    def matches(response: Any, case: Any) -> bool:
        body = response.json() if response.status_code >= 400 else {}
        return bool(response.status_code == code and body.get("error", {}).get("code") == wire_code)

    return matches


def says(code: str, text: str) -> Callable[[Any, Any], bool]:
    """A 400 with this envelope code whose message says `text`."""

    def matches(response: Any, case: Any) -> bool:
        error = (response.json().get("error") or {}) if response.status_code == 400 else {}
        return error.get("code") == code and text in str(error.get("message"))

    return matches


def limit_clamped(response: Any, case: Any) -> bool:
    """A 2xx to a case whose only schema violation is its `limit`."""
    data = case.meta.phase.data if case.meta is not None else None
    mutations = getattr(data, "mutations", ()) or ()
    mutated = {m.parameter for m in mutations} or {getattr(data, "parameter", None)}
    return bool(response.status_code < 300 and mutated == {"limit"})


def pointer_of_another_item(response: Any, case: Any) -> bool:
    """A 400 naming an item's pointer that doesn't resolve in the run's output, or names
    another item there than the key says."""
    error = (response.json().get("error") or {}) if response.status_code == 400 else {}
    field = str((error.get("details") or {}).get("field"))
    return (
        error.get("code") in ("validation-failed", "item-not-found")
        and field.split("/")[-1] == "pointer"
        and (
            "in the run's output" in str(error.get("message"))
            or "resolves to nothing" in str(error.get("message"))
            or " has no " in str(error.get("message"))
            or "is a list" in str(error.get("message"))
            or "neither an object nor a list" in str(error.get("message"))
        )
    )


@dataclass(frozen=True)
class Allowance:
    """An answer a built-in check would fail that the contract calls for, and why."""

    check: str
    answer: Callable[[Any, Any], bool]
    why: str
    documents: tuple[str, ...] = BOTH
    operations: tuple[str, ...] = ()
    """Operation labels (`GET /v1/runs`); none: every operation."""

    def applies(self, response: Any, case: Any) -> bool:
        """Whether this allowance lets `response` to `case` through."""
        if DOCUMENT not in self.documents:
            return False
        if self.operations and case.operation.label not in self.operations:
            return False
        return self.answer(response, case)


POSITIVE = "positive_data_acceptance"
ALLOWANCES = [
    Allowance(
        POSITIVE,
        refused("bad-input", "cursor"),
        "A cursor is opaque and signed for the list it pages (contract README §3: a runtime "
        "that seals cursors takes one only for the same list, else 400 bad-input); the "
        "schema says `string`, and no schema tells a cursor we gave out from any other text.",
    ),
    Allowance(
        POSITIVE,
        refused("scope-invalid"),
        "scopeKind and scopeId go together (README §7: scopeId required for org/project, "
        "absent for tenant, else 400 scope-invalid), a rule between two query parameters "
        "that an OpenAPI parameter list can't state.",
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "agentVersion"),
        "A version number names a version of one agent, so `agentVersion` filters judgments "
        "only with `agentId` (as a build's agentVersion needs its agentId, README §7.9): a "
        "rule between two query parameters that a parameter list can't state.",
        operations=("GET /v1/judgments",),
    ),
    Allowance(
        POSITIVE,
        lambda response, case: (
            says("bad-input", "scopeKind")(response, case)
            or says("bad-input", "A segment path needs a projectId")(response, case)
        ),
        "A release's scope is read from scopeKind, scopeId and segment together (a scopeId or "
        "a segment needs its scopeKind, a project or segment scope its id, a segment path its "
        "project): rules between query parameters a parameter list can't state.",
        documents=("own",),
    ),
    Allowance(
        POSITIVE,
        says("bad-input", "takes a decision and an optional rationale"),
        "What completing an approval takes depends on what it approves (a promotion takes a "
        "decision, not a value): the approval is stored state, which no schema knows.",
        documents=("own",),
        operations=("POST /v1/approvals/{approvalId}/complete",),
    ),
    Allowance(
        POSITIVE,
        lambda response, case: (
            refused("validation-failed", "caseCount")(response, case)
            or refused("digest-mismatch")(response, case)
        ),
        "A test-set file is what `test-sets export` wrote: its caseCount counts its cases and "
        "its sha256 is theirs (400 digest-mismatch otherwise); no schema ties a field to a "
        "count or a digest of another.",
        documents=("own",),
        operations=("POST /v1/test-sets/import",),
    ),
    Allowance(
        POSITIVE,
        lambda response, case: (
            status(422, "semantic-unavailable")(response, case)
            or status(422, "run-resume-not-supported")(response, case)
        ),
        "Features kindgi dev doesn't serve answer the one error that names them (DESIGN.md): "
        "a search by meaning (it has no embeddings), a run resumed by hand (a waiting run "
        "goes on when its approval is decided).",
        documents=("own",),
        operations=("POST /v1/memory/retrieve", "POST /v1/runs/{runId}/resume"),
    ),
    Allowance(
        POSITIVE,
        lambda response, case: (
            says("validation-failed", "baseline is an agent version")(response, case)
            or says("validation-failed", "baseline is another version of flow")(response, case)
        ),
        "A version baseline is of the candidate's kind (an agent's version for an agent "
        "candidate, a flow's for a flow): a rule between two fields of the body, the "
        "candidate's and the baseline's, which its schema leaves to the server.",
        documents=("own",),
    ),
    Allowance(
        POSITIVE,
        status(410, "run-erased"),
        "A run whose content an erasure cleared is gone (410 run-erased, as the contract "
        "answers a correction of one): that is stored state, which no schema knows.",
    ),
    Allowance(
        POSITIVE,
        refused("bad-input", "projectId"),
        "A conversation opens in a project of the tenant (conversations.open answers one of "
        "no project 400): the tenant's projects are stored state, which no schema knows.",
        documents=("own",),
        operations=("POST /v1/conversations",),
    ),
    Allowance(
        POSITIVE,
        refused("reference-out-of-scope", "agentId"),
        "A conversation opens on a version its agent has: the agent's versions are stored "
        "state, which no schema knows (an unknown agent is a 404).",
        documents=("own",),
        operations=("POST /v1/conversations",),
    ),
    Allowance(
        POSITIVE,
        refused("bad-input", "scope"),
        "A fact list's `scope` is a partial fact scope written as a JSON object in one query "
        "parameter, which the document types as the string it is sent as.",
        documents=("own",),
        operations=("GET /v1/memory/facts",),
    ),
    Allowance(
        POSITIVE,
        refused(
            "validation-failed",
            "baseline/agentId",
            "baseline/flowId",
            "baseline/version",
            "baseline/live*",
        ),
        "A version baseline names the agent (or flow) whose version it is and a "
        "MAJOR.MINOR.PATCH version, a live one the project it reads the live pin of; the "
        "contract's EvalBaseline lets those be any string.",
        documents=("contract",),
        operations=("POST /v1/eval-suites/{suiteId}/runs",),
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "tenantId", "scope/tenantId"),
        "A body's tenantId must be the caller's own tenant (cross-tenant writes are refused); "
        "no schema can name the tenant of whoever calls.",
    ),
    Allowance(
        "negative_data_rejection",
        status(413, "request-too-large"),
        "A body over the size limit is refused before it is read: 413 request-too-large, as "
        "every operation with a body documents, not the 4xx schemathesis lists.",
    ),
    Allowance(
        "negative_data_rejection",
        limit_clamped,
        "README §3: the reference server clamps `limit` rather than rejecting it (below 1 → "
        "25, above 100 → 100), as kindgi dev does, though the schema bounds it to 1..100.",
        documents=("contract",),
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "agent", "flow", "input*"),
        "runs.start takes exactly one of agent / flow, and an agent turn's input is "
        "`{userMessage, parameters}` (README §7.2); the contract's StartRunBody says neither.",
        documents=("contract",),
        operations=("POST /v1/runs",),
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "reuse"),
        "Answers are reused for an agent's content only (docs/choices.md): an eval run of a "
        "flow asked to reuse them is refused, as a flow's cases are replayed every time; our "
        "document's body can't say that `reuse` and `flowRef` exclude each other.",
        documents=("own",),
    ),
    Allowance(
        POSITIVE,
        refused("bad-input", "agentRef"),
        "An eval run names exactly one of agentRef / flowRef (the contract's 400 says: both / "
        "neither), which its StartEvalRunBody doesn't state.",
        documents=("contract",),
        operations=("POST /v1/eval-suites/{suiteId}/runs",),
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "agentId", "agentVersion", "version", "since", "until"),
        "A build names exactly one of agentId / flowId, agentVersion only with agentId, and a "
        "MAJOR.MINOR.PATCH version (README §7.9); the contract's BuildJudgedSuiteBody types "
        "them as plain strings.",
        documents=("contract",),
        operations=("POST /v1/eval-suites/{suiteId}/versions/from-judgments",),
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "kind"),
        "A judged suite's versions are built from judgments (versions/from-judgments), not "
        "published; the contract's EvalKind lists `judged` for both.",
        documents=("contract",),
        operations=("POST /v1/eval-suites",),
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "item/pointer"),
        "`item.pointer` is a JSON Pointer into Run.output (README §7.7, RFC 6901); the "
        "contract's JudgedItem types it as a plain string.",
        documents=("contract",),
        operations=("POST /v1/judgments",),
    ),
    Allowance(
        POSITIVE,
        pointer_of_another_item,
        "An item's pointer must resolve in the run's stored output, to the item its key names "
        "(README §7.7: `item.pointer` must resolve): that depends on the run, which no schema "
        "knows, as a run id that names no run is a 404.",
    ),
    Allowance(
        POSITIVE,
        lambda response, case: (
            says("validation-failed", "is not one of the agent's tools")(response, case)
            or says("validation-failed", "is not a tool of")(response, case)
        ),
        "A call the run should have made names one of its agent's tools: that depends on the "
        "agent the run ran, which no schema knows.",
        documents=("own",),
    ),
    Allowance(
        POSITIVE,
        lambda response, case: (
            says("validation-failed", "is given twice")(response, case)
            or says("validation-failed", "is gated twice")(response, case)
        ),
        "A correction (or a hand case) gives each item once, by its key, a gate policy each "
        "metric once, by its name, and a provider's registration each model once, by its "
        "name: a field unique across a list's objects, which JSON Schema's `uniqueItems` "
        "(whole items) can't state.",
        documents=("own",),
    ),
    Allowance(
        POSITIVE,
        says("validation-failed", "which can't be a case"),
        "A hand case is made on one of the agent's own runs, not on an eval run's replay: "
        "whether a run is one is stored state, which no schema knows.",
        documents=("own",),
        operations=("POST /v1/agents/{agentId}/test-set/cases",),
    ),
    Allowance(
        POSITIVE,
        refused("judge-class-not-applicable"),
        "A judge class applies to the runs of its scope (README §7.7: 400 "
        "judge-class-not-applicable): that depends on the class and the run, which no schema "
        "knows.",
    ),
    Allowance(
        POSITIVE,
        says("validation-failed", "is also in mustNotCall"),
        "A tool can't be both one the run should have called and one it must not call: a rule "
        "between the items of two lists, which JSON Schema can't state.",
        documents=("own",),
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "overrides*"),
        "kindgi dev serves no settings or prompt blocks' content to replays, so each override "
        "named is refused saying why (a feature it doesn't serve, DESIGN.md).",
        documents=("contract",),
    ),
    Allowance(
        POSITIVE,
        lambda response, case: says("validation-failed", "less than or equal to 1000000")(
            response, case
        ),
        "A judge class's weight and an item's rank are at most 1,000,000 (issue 22: every "
        "stored number bounded, so what is summed from it stays finite; docs/choices.md), "
        "which our schemas say and the contract's don't.",
        documents=("contract",),
    ),
    Allowance(
        POSITIVE,
        says("bad-input", "64 bits"),
        "Every number of a body is held within 64 bits (SQLite's integers; issue 22: every "
        "stored value reads back), which our own schemas say and the contract's don't.",
        documents=("contract",),
    ),
    Allowance(
        "ensure_resource_availability",
        status(404, "project-not-found"),
        "A 404 for the body's projectId (a project the fuzzer made up) after it created the "
        "resource the request names: the project is not found, the created resource is.",
        documents=("own",),
    ),
    Allowance(
        "status_code_conformance",
        status(404, "project-not-found"),
        "A judge class scoped to a project that isn't this tenant's is 404 project-not-found, "
        "as every operation answers an unknown projectId; the contract's list for "
        "judgeClasses.create omits the 404.",
        documents=("contract",),
        operations=("POST /v1/judge-classes",),
    ),
    Allowance(
        "not_a_server_error",
        status(501, "not-in-kindgi-dev"),
        "The 501 is the answer of an operation of the official client that kindgi dev doesn't "
        "serve (issue 28): it names the feature and says a deployed runtime serves it. No "
        "operation a document describes answers it; only the methods neither lists do.",
    ),
    Allowance(
        "allow_header_conformance",
        allow_lists_the_routes,
        "A 405's Allow lists every method the path answers, the official client's operations "
        "kindgi dev answers 501 not-in-kindgi-dev among them (issue 28), and on the "
        "contract's subset those kindgi dev serves that the subset leaves out: the truth of "
        "the routes, where the document describes only part of them.",
    ),
    Allowance(
        "unsupported_method",
        lambda response, case: (
            case.method in methods_of(sent_to(response), SERVED)
            and 400 <= response.status_code < 500
        ),
        "kindgi dev serves operations of the official client that the contract's subset "
        "leaves out (conversations.open beside their list, projects.update and "
        "projects.production.set beside projects.get, providers and blocks beside their lists, "
        "README §7: not in the subset), so that "
        "method is supported there: an empty or made-up request to it is a 4xx of its own.",
        documents=("contract",),
    ),
    Allowance(
        "unsupported_method",
        status(501, "not-in-kindgi-dev"),
        "An operation of the official client 0.1.10 that kindgi dev doesn't serve answers 501 "
        "not-in-kindgi-dev naming its feature (issue 28, docs/api.md), so a caller learns a "
        "deployed runtime serves it; neither document describes those operations, so the "
        "client's method there is one the document doesn't list.",
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "to", "from"),
        "A window ends after it starts, `from` and `to` go together, and a usage window spans "
        "at most 92 days (as the real CLI's `usage` says): rules between two query "
        "parameters, which a parameter list can't state.",
        documents=("own",),
        operations=("GET /v1/usage", "GET /v1/runs/failures", "GET /v1/cost/aggregate"),
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "content/values*", "content/schema"),
        "A settings block's values satisfy its own schema and the latest version's (the "
        "client's blocks.publish): a rule between two fields of the body, and stored state.",
        documents=("own",),
        operations=("POST /v1/blocks",),
    ),
    Allowance(
        POSITIVE,
        says("bad-input", "'s test set in project"),
        "An agent's test set named by its registry id (`<agentId>~<projectId>`, issue 28) is "
        "that project's, so a body naming another project of the tenant is refused (the "
        "contract's 400 bad-input): a rule between the path and the body, and stored state.",
        operations=("POST /v1/eval-suites/{suiteId}/runs",),
    ),
    Allowance(
        POSITIVE,
        status(422, "gate-failed"),
        "A promotion passes the gate policy that applies to its scope (the client's "
        "agents.promotions.create: 422 gate-failed with every check, the refusal recorded); "
        "the policies the fuzzer published and the eval runs they ask for are stored state, "
        "which no schema knows.",
        documents=("own",),
        operations=("POST /v1/agents/{agentId}/promotions",),
    ),
    Allowance(
        POSITIVE,
        status(422, "provider-config-invalid"),
        "A registration names the platform's adapter and its settings, which the runtime's "
        "adapter checks (the client's providers.register: 422 provider-config-invalid); "
        "kindgi dev calls only the OpenAI-compatible and Anthropic ones, which no schema of "
        "the registration says.",
        documents=("own",),
        operations=("POST /v1/providers",),
    ),
    Allowance(
        POSITIVE,
        refused("validation-failed", "testSetId"),
        "Only a corrections test set exports (a file of cases people corrected): a registry "
        "entry's kind is stored state, which no schema knows.",
        documents=("own",),
        operations=("GET /v1/test-sets/{testSetId}/versions/{version}/export",),
    ),
    Allowance(
        "status_code_conformance",
        lambda response, case: response.status_code == 400,
        "This operation takes `limit` and `cursor`, which README §3 refuses with 400 when they "
        "aren't valid, but the contract lists no 400 for it.",
        documents=("contract",),
        operations=("GET /v1/eval-suites/{suiteId}/versions/{version}/cases",),
    ),
]
