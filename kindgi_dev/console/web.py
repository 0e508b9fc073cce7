"""How a console page is served: Host, session and form checks, templates, and error pages.

`page(handler)` wraps a handler with every check a page needs, so each handler only
reads or writes through the services and names its template.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl

import jinja2
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from ..api import cursors
from ..api.limits import check_url
from ..domain.errors import BadInput, KindgiError, RequestTooLarge
from ..services.context import Context
from .session import Sessions, session_of


def _share(value: object) -> float | None:
    """A template's number (or numeric text) as a float; None for none."""
    if value is None:
        return None
    if not isinstance(value, int | float | str):
        raise TypeError(f"not a share: {value!r}")
    return float(value)


def _percent(value: object) -> str:
    """A share as a whole percentage (`33%`); an em dash when there is none."""
    share = _share(value)
    if share is None:
        return "—"
    return f"{share * 100:.0f}%"


def _change(value: object) -> str:
    """A change of share in percentage points, signed."""
    share = _share(value)
    if share is None:
        return "—"
    points = share * 100
    return "±0 pts" if round(points) == 0 else f"{points:+.0f} pts"


def _pretty(value: object) -> str:
    """JSON indented for reading."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


def _compact(value: object) -> str:
    """JSON on one line."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _when(value: object) -> str:
    """A stored UTC time as `2026-12-01 02:05:06`."""
    text = str(value or "")
    return text[:19].replace("T", " ") if len(text) >= 19 else text


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("kindgi_dev.console", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(
        percent=_percent, change=_change, pretty=_pretty, compact=_compact, when=_when
    )
    return env


templates = Jinja2Templates(env=_environment())


@dataclass
class Visit:
    """One request to a logged-in console page."""

    request: Request
    ctx: Context
    csrf: str
    form: dict[str, str] | None = None
    listing: str = ""
    """The list this page pages through (`/console/runs`, a set's cases): its cursors are
    bound to it, the ones it takes and the one it hands out."""

    def field(self, name: str) -> str:
        """A form field's text, stripped; empty when absent."""
        return (self.form or {}).get(name, "").strip()

    def cursor(self, listing: str) -> str | None:
        """The page position of the `cursor` query parameter, checked as the API checks it:
        signed by this instance for `listing`, the list this page shows."""
        self.listing = listing
        given = self.request.query_params.get("cursor")
        return self._pages().verify(given) if given else None

    def _pages(self) -> cursors.Signer:
        return cursors.signer(self.ctx.identity.token, "console:" + self.listing)

    def render(self, template: str, status: int = 200, **context: object) -> Response:
        """The template as an HTML page, with the CSRF token its forms carry and `signed`
        to hand out the cursor of the next page of its list."""
        shown = {"csrf": self.csrf, "signed": self._pages().sign}
        return templates.TemplateResponse(
            self.request, template, {**shown, **context}, status_code=status
        )


Handler = Callable[[Visit], Awaitable[Response]]


def sessions_of(request: Request) -> Sessions:
    """The app's console sessions."""
    found: Sessions = request.app.state.console
    return found


def context_of(request: Request) -> Context:
    """The services' context."""
    found: Context = request.app.state.ctx
    return found


def same_origin(request: Request) -> bool:
    """Whether a form came from this console: `Origin` (or `Referer`) is this server."""
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    origin = request.headers.get("origin")
    if origin is not None:
        return origin == own
    referer = request.headers.get("referer", "")
    return referer == own or referer.startswith(own + "/")


def plain(request: Request, status: int, title: str, text: str) -> Response:
    """A refusal as a small HTML page, with no data in it."""
    return templates.TemplateResponse(
        request, "refused.html", {"csrf": "", "title": title, "text": text}, status_code=status
    )


async def form_of(request: Request) -> dict[str, str]:
    """A URL-encoded form's fields (the last value of a repeated name wins); 413 past the
    body size the API takes."""
    limit = context_of(request).settings.max_body_bytes
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestTooLarge(f"The form is larger than {limit} bytes.", maxBytes=limit)
        chunks.append(chunk)
    try:  # strictly, as the API reads a body: bytes that aren't UTF-8 are refused, not replaced
        text = b"".join(chunks).decode("utf-8")
        return dict(parse_qsl(text, keep_blank_values=True, errors="strict"))
    except UnicodeDecodeError as error:
        raise BadInput(f"The form is not valid UTF-8: {error}") from None


async def _refused_form(visit: Visit, sessions: Sessions) -> Response | None:
    """Read a POST's form; the refusal when it came from another site or lacks the token."""
    request = visit.request
    if not same_origin(request):
        return plain(request, 403, "Refused", "This form was sent from another site.")
    visit.form = await form_of(request)
    if not sessions.csrf_matches(session_of(request), visit.form.get("csrf", "")):
        return plain(request, 403, "Refused", "This form's CSRF token is not this session's.")
    return None


FRONT_DOOR = "/console/"
"""The console's own address: without a session it shows the login page with 200, as a
deployed console loads before sign-in (the real CLI's `kindgi console` checks that it
answers 2xx); every other page answers 401."""


def page(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """A console page: session required, forms checked; what it raises is rendered by
    `error_page`.

    `Host` is checked for the whole app, console included, by `api.hosts`.
    """

    async def endpoint(request: Request) -> Response:
        sessions = sessions_of(request)
        csrf = sessions.csrf_of(session_of(request))
        if csrf is None:
            status = 200 if request.method == "GET" and request.url.path == FRONT_DOOR else 401
            return templates.TemplateResponse(
                request, "login.html", {"csrf": "", "failed": False}, status_code=status
            )
        visit = Visit(request, context_of(request), csrf)
        check_url(request.scope.get("raw_path") or b"", request.scope["query_string"])
        refused = await _refused_form(visit, sessions) if request.method == "POST" else None
        return refused or await handler(visit)

    return endpoint


def error_page(request: Request, error: KindgiError) -> Response:
    """An error on a console path as a console page, with its status: the app's one error
    path renders every error here that the API answers in its envelope."""
    csrf = sessions_of(request).csrf_of(session_of(request)) or ""
    return templates.TemplateResponse(
        request, "error.html", {"csrf": csrf, "error": error}, status_code=error.status
    )


def redirect(url: str) -> Response:
    """See other: after a form is saved, the browser reads the page it made."""
    return RedirectResponse(url, status_code=303)
