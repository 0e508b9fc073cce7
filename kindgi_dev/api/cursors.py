"""Paging cursors signed with the instance's secret, so a cursor we didn't make never reaches SQL.

A page's `nextCursor` leaves as `<position>.<mac>`; a `cursor` that comes back is checked
before its position is decoded, and anything else is a 400 naming `cursor`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from ..domain.errors import BadInput

_MAC_BYTES = 16


def key_of(secret: str) -> bytes:
    """The cursor key derived from the instance's secret (its token): new after a `--reset`."""
    return hashlib.sha256(b"kindgi-dev cursor\x00" + secret.encode()).digest()


def sign(position: str, key: bytes) -> str:
    """The cursor a client gets for a page position."""
    return f"{position}.{_mac(position, key)}"


def verify(cursor: str, key: bytes) -> str:
    """The page position of a cursor this instance signed; 400 `bad-input` otherwise."""
    position, dot, mac = cursor.rpartition(".")
    if not dot or not hmac.compare_digest(mac.encode(), _mac(position, key).encode()):
        raise BadInput(
            "cursor: not a cursor this server gave out; use the nextCursor of the previous page.",
            field="cursor",
        )
    return position


def _mac(position: str, key: bytes) -> str:
    digest = hmac.new(key, position.encode(), hashlib.sha256).digest()[:_MAC_BYTES]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")
