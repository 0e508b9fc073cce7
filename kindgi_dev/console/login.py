"""The console's login: the banner's one-time link, or the API token posted from a form."""

from __future__ import annotations

import hmac

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .session import cookie_name
from .web import context_of, form_of, plain, same_origin, sessions_of, templates


def _logged_in(request: Request, session_id: str) -> Response:
    response = RedirectResponse("/console/", status_code=303)
    name = cookie_name(request.scope)
    response.set_cookie(name, session_id, httponly=True, samesite="strict", path="/")
    return response


async def login(request: Request) -> Response:
    """The banner's link: a one-time token swapped for a session cookie, then a clean URL.

    A POST takes the API token from `.kindgirc.json` instead, for a second browser.
    """
    sessions = sessions_of(request)
    if request.method == "POST":
        if not same_origin(request):
            return plain(request, 403, "Refused", "This form was sent from another site.")
        given = (await form_of(request)).get("token", "")
        token = context_of(request).identity.token
        if hmac.compare_digest(given.strip().encode(), token.encode()):
            return _logged_in(request, sessions.open())
    else:
        session_id = sessions.exchange(request.query_params.get("token", ""))
        if session_id is not None:
            return _logged_in(request, session_id)
    return templates.TemplateResponse(
        request, "login.html", {"csrf": "", "failed": True}, status_code=401
    )
