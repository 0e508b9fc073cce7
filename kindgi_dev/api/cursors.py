"""Paging cursors signed with the instance's secret and bound to their list, so a cursor we
didn't make for that list never reaches SQL.

A page's `nextCursor` leaves as `<position>.<mac>`, the MAC taken over the list it pages
(its path: `/v1/runs`, `/v1/runs/{id}/journal`, a console page) and the position; a `cursor`
that comes back is checked against the list it is given to before its position is
decoded, and anything else is a 400 naming `cursor`. Positions differ in shape from list
to list, so a cursor of `/v1/eval-suites` decoded by `/v1/runs` would fail in the store.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
from dataclasses import dataclass

from ..domain.errors import BadInput

_MAC_BYTES = 16


@functools.lru_cache(maxsize=8)
def key_of(secret: str) -> bytes:
    """The cursor key derived from the instance's secret (its token): new after a `--reset`."""
    return hashlib.sha256(b"kindgi-dev cursor\x00" + secret.encode()).digest()  # once a secret


@dataclass(frozen=True)
class Signer:
    """Signs and checks the cursors of one list (`listing`) with the instance's key."""

    key: bytes
    listing: str

    def sign(self, position: str) -> str:
        """The cursor a client gets for a page position of this list."""
        return f"{position}.{self._mac(position)}"

    def verify(self, cursor: str) -> str:
        """The page position of a cursor this instance signed for this list; 400 otherwise."""
        position, dot, mac = cursor.rpartition(".")
        if not dot or not hmac.compare_digest(mac.encode(), self._mac(position).encode()):
            raise BadInput(
                "cursor: not a cursor this server gave out for this list; use the nextCursor "
                "of the previous page.",
                field="cursor",
            )
        return position

    def _mac(self, position: str) -> str:
        signed = self.listing.encode("utf-8", "replace") + b"\x00" + position.encode()
        digest = hmac.new(self.key, signed, hashlib.sha256).digest()[:_MAC_BYTES]
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def signer(secret: str, listing: str) -> Signer:
    """The signer of `listing`'s cursors for the instance whose secret is `secret`."""
    return Signer(key_of(secret), listing)
