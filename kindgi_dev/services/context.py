"""What every service call gets: the store, who this instance is, and who is calling."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..settings import Settings
from ..store.db import Database
from ..store.instance import Identity


@dataclass(frozen=True)
class Caller:
    """The principal behind a request: the token's user (or a service)."""

    kind: str
    id: str

    def to_wire(self) -> dict[str, str]:
        """`{kind, id}` as the contract names a principal."""
        return {"kind": self.kind, "id": self.id}


@dataclass
class Context:
    """The services' shared state for one running instance."""

    db: Database
    identity: Identity
    settings: Settings
    runtime: Any = None
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def tenant_id(self) -> str:
        """The one tenant of this instance."""
        return self.identity.tenant_id

    @property
    def caller(self) -> Caller:
        """The token's user: kindgi dev has one token, so one caller."""
        return Caller("user", self.identity.user_id)
