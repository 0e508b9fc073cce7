"""The `Host` check: a page on another site that rebinds its name to this machine gets a 400.

A browser sends the name it looked up as `Host`; only the served address, loopback names,
and (when serving on every interface) an IP address typed as such are this instance's.
"""

from __future__ import annotations

import ipaddress

from starlette.responses import Response
from starlette.types import Scope

from .errors import envelope, request_id_of

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def allowed_hosts(served: str) -> frozenset[str]:
    """The names a request may give in `Host` for an instance served on `served`."""
    return LOOPBACK | {served.strip("[]").lower()}


def host_name(header: str) -> str:
    """The name part of a `Host` header, without port or IPv6 brackets."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rpartition(":")[0] if value.count(":") == 1 else value


def is_ip(name: str) -> bool:
    """Whether a host name is an IP address (no DNS lookup can rebind it)."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostCheck:
    """The 400 `bad-input` answer to a request whose `Host` isn't one this instance serves."""

    def __init__(self, served: str) -> None:
        self.hosts = allowed_hosts(served)
        self.any_ip = served.strip("[]") in WILDCARDS

    def refusal(self, scope: Scope) -> Response | None:
        """The refusal of an HTTP request to another host, None for one to this instance."""
        if self._allowed(scope):
            return None
        given = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
        return envelope(
            400,
            "bad-input",
            f"Host {given or '(none)'} is not this kindgi dev's address; "
            "call it as 127.0.0.1, localhost or [::1].",
            request_id_of(scope),
        )

    def _allowed(self, scope: Scope) -> bool:
        header = dict(scope["headers"]).get(b"host")
        if header is None:
            return False
        name = host_name(header.decode("latin-1"))
        return name in self.hosts or (self.any_ip and is_ip(name))
