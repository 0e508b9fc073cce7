"""Who may use the console: a one-time login link, session cookies, and CSRF tokens.

The banner prints a link carrying a one-time token (as Jupyter does); following it
swaps the token for a session cookie (HttpOnly, SameSite=Strict, named for the instance's
port) and a fresh token takes its place. Sessions live in memory: a restart asks for the
new banner's link, and no other instance knows this one's session ids.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field

from starlette.requests import HTTPConnection
from starlette.types import Scope

COOKIE = "kindgi_console"
LOGIN_PATH = "/console/login"


def cookie_name(scope: Scope) -> str:
    """The session cookie's name for the instance serving this request: `kindgi_console_4000`
    on port 4000. A browser sends a host's cookies to all its ports, so with one name two
    consoles on two ports would each overwrite the other's login."""
    server = scope.get("server")
    return f"{COOKIE}_{server[1]}" if server and server[1] else COOKIE


def session_of(request: HTTPConnection) -> str | None:
    """The session id the request's cookie for this instance carries, if any."""
    return request.cookies.get(cookie_name(request.scope))


@dataclass
class Sessions:
    """The instance's console logins: the pending one-time token and each session's CSRF token."""

    login_token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    _csrf: dict[str, str] = field(default_factory=dict)

    def login_link(self, base_url: str) -> str:
        """The link the banner prints: following it once logs a browser in."""
        return f"{base_url.rstrip('/')}{LOGIN_PATH}?token={self.login_token}"

    def exchange(self, token: str) -> str | None:
        """A new session id for the pending one-time token (then spent), else None."""
        if not hmac.compare_digest(token.encode(), self.login_token.encode()):
            return None
        self.login_token = secrets.token_urlsafe(24)
        return self.open()

    def open(self) -> str:
        """Start a session; its id."""
        session_id = secrets.token_urlsafe(32)
        self._csrf[session_id] = secrets.token_urlsafe(24)
        return session_id

    def csrf_of(self, session_id: str | None) -> str | None:
        """The CSRF token of a live session, None for an unknown id."""
        return None if session_id is None else self._csrf.get(session_id)

    def csrf_matches(self, session_id: str | None, given: str) -> bool:
        """Whether a form's CSRF token is its session's."""
        expected = self.csrf_of(session_id)
        return expected is not None and hmac.compare_digest(expected.encode(), given.encode())
