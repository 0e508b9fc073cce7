"""Model providers registered over the API: their registration as given, and tombstones."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from ..domain.json import JSONObject
from .db import Database, Row
from .jsoncol import Codec, dump, load_object


@dataclass(frozen=True)
class RegisteredProvider:
    """One registration: the provider's metadata, its adapter, and where its key is."""

    id: str
    adapter_id: str
    metadata: JSONObject
    secret_ref: dict[str, str] | None
    adapter_config: JSONObject | None
    created_at: str

    @property
    def models(self) -> list[JSONObject]:
        """The metadata's `models`, each an object (its `name`, `features`, `cost`)."""
        found = self.metadata.get("models")
        return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []

    @property
    def default_model(self) -> str | None:
        """The metadata's `defaultModel`, when it names one."""
        found = self.metadata.get("defaultModel")
        return found if isinstance(found, str) else None


_SECRET_REF = Codec(dict[str, str])
"""Where a registration's key is: `{kind, name}` as given."""
_COLUMNS = "id, adapter_id, metadata, secret_ref, adapter_config, created_at"


def _record(row: Row) -> RegisteredProvider:
    return RegisteredProvider(
        id=row["id"],
        adapter_id=row["adapter_id"],
        metadata=load_object(row["metadata"]),
        secret_ref=_SECRET_REF.load(row["secret_ref"]),
        adapter_config=None
        if row["adapter_config"] is None
        else load_object(row["adapter_config"]),
        created_at=row["created_at"],
    )


def insert(db: Database, tenant_id: str, provider: RegisteredProvider) -> bool:
    """Add a registration; False (and nothing written) when the id is registered already."""
    try:
        db.run(
            f"INSERT INTO registered_providers (tenant_id, {_COLUMNS})"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                tenant_id,
                provider.id,
                provider.adapter_id,
                dump(provider.metadata),
                dump(provider.secret_ref),
                dump(provider.adapter_config),
                provider.created_at,
            ),
        )
    except sqlite3.IntegrityError:
        return False
    return True


def live(db: Database, tenant_id: str) -> list[RegisteredProvider]:
    """The registrations not unregistered, oldest first."""
    rows = db.all(
        f"SELECT {_COLUMNS} FROM registered_providers"
        " WHERE tenant_id = ? AND unregistered_at IS NULL ORDER BY seq",
        (tenant_id,),
    )
    return [_record(row) for row in rows]


def unregister(db: Database, tenant_id: str, provider_id: str, at: str) -> bool:
    """Tombstone a live registration; whether there was one."""
    changed = db.run(
        "UPDATE registered_providers SET unregistered_at = ?"
        " WHERE tenant_id = ? AND id = ? AND unregistered_at IS NULL",
        (at, tenant_id, provider_id),
    )
    return changed > 0
