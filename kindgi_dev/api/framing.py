"""No page of this server may be framed: a page on another site (or another port of this
machine) that framed the logged-in console could have a person's clicks submit its forms.

Every answer carries `Content-Security-Policy: frame-ancestors 'none'` and, for browsers
that predate it, `X-Frame-Options: DENY`: one rule for the whole app, so no console page
(a login, a refusal, an error, a static file) is left out.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADERS = (
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
)


class NoFramingMiddleware:
    """Add the two headers that forbid framing to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def framed_by_none(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in HEADERS}
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message["headers"] = [*kept, *HEADERS]
            await send(message)

        await self.app(scope, receive, framed_by_none)
