"""`POST /v1/test-sets/{testSetId}/versions/{version}/pull`: a version from another Kindgi
runtime, answered at once or as progress lines."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable

from pydantic import Field
from starlette.responses import Response, StreamingResponse

from ..domain.errors import KindgiError
from ..domain.json import JSONObject
from ..remote import OnProgress, Transfer
from ..services import test_set_pulls
from ..services.test_set_pulls import PulledVersion
from .endpoint import Call, Endpoint, NoQuery
from .errors import wire_details
from .responses import json_response
from .routing import shape
from .wire import WireModel

log = logging.getLogger("kindgi_dev.api")


class PullBody(WireModel):
    """Where to pull a version from, with the remote's token (used once, kept nowhere)."""

    source: str = Field(alias="from", min_length=1, max_length=2000)
    token: str | None = Field(default=None, max_length=8000)
    insecure: bool = False


class PullSource(WireModel):
    """Where a pulled version came from, and when."""

    url: str
    pulled_at: str


class PulledTestSetVersion(WireModel):
    """A pulled version, read-only here; `pulled` is false when it was here already."""

    test_set_id: str
    version: str
    case_count: int
    source: PullSource
    pulled: bool


def _pulling(
    call: Call[PullBody, NoQuery], on_progress: OnProgress | None
) -> Awaitable[PulledVersion]:
    body, path = call.body, call.path
    return test_set_pulls.pull(
        call.ctx,
        path["testSetId"],
        path["version"],
        body.source,
        body.token,
        insecure=body.insecure,
        on_progress=on_progress,
    )


def _pulled_wire(found: PulledVersion) -> JSONObject:
    """A pulled version as its answer shows it, rendered where every answer is."""
    return shape(PulledTestSetVersion, found)


async def pull(call: Call[PullBody, NoQuery]) -> Response:
    """201 when the version was stored, 200 when the same content was here already; asked
    with `Accept: application/x-ndjson`, progress lines first, then the answer's line."""
    if "application/x-ndjson" in call.request.headers.get("accept", ""):
        return StreamingResponse(_pull_lines(call), media_type="application/x-ndjson")
    found = await _pulling(call, None)
    return json_response(_pulled_wire(found), 201 if found.pulled else 200)


def _line(value: JSONObject) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


async def _pull_lines(call: Call[PullBody, NoQuery]) -> AsyncIterator[bytes]:
    """`{"progress": {cases, total, bytes}}` per page read, then `{"status", "result"}` or
    `{"status", "error"}` (the envelope's error)."""
    steps: asyncio.Queue[Transfer | None] = asyncio.Queue()
    task = asyncio.ensure_future(_pulling(call, steps.put_nowait))
    task.add_done_callback(lambda _: steps.put_nowait(None))
    while (step := await steps.get()) is not None:
        yield _line({"progress": {"cases": step.cases, "total": step.total, "bytes": step.bytes}})
    try:
        found = task.result()
    except KindgiError as error:
        envelope: JSONObject = {
            "code": error.wire_code,
            "message": error.message,
            **({"details": wire_details(error)} if error.details else {}),
        }
        yield _line({"status": error.status, "error": envelope})
        return
    except Exception:
        log.exception("pulling %s failed", call.path["testSetId"])
        failed: JSONObject = {
            "code": "internal-server-error",
            "message": "kindgi dev failed on this pull; its log has the details.",
        }
        yield _line({"status": 500, "error": failed})
        return
    yield _line({"status": 201 if found.pulled else 200, "result": _pulled_wire(found)})


ENDPOINTS = [
    Endpoint(
        "POST",
        "/v1/test-sets/{testSetId}/versions/{version}/pull",
        "testSets.pull",
        pull,
        "Pull a version from another Kindgi runtime (`from`, its `token`): stored read-only "
        "as the same id and version (201; the same content again: 200).",
        body=PullBody,
        response=PulledTestSetVersion,
        status=201,
        also=(200,),
        errors=(400, 401, 409, 413, 502),
    ),
]
