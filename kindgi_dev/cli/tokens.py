"""`kindgi tokens create`, as the real CLI spells it: a key acting for a person, or for a
service account (`--for=sa:<id>`), whose runs no person started (they are unattended: a
tool that needs an approval when unattended waits for a reviewer)."""

from __future__ import annotations

import click

from ..domain.json import JSON, JSONObject
from .answers import an_object
from .command import api_command
from .http import Api

KINDS = {"user": "user", "sa": "service-account", "service-account": "service-account"}


@click.group("tokens", help="API keys: create one for a person or a service account.")
def tokens() -> None:
    """The tokens group."""


@api_command(tokens, "create", help="Mint a key (its secret is shown once).")
@click.option("--for", "for_", help="Whom it acts for: user:<id> or sa:<id>.")
@click.option("--role", type=click.Choice(["member", "admin"]))
@click.option("--label", help="A name for the key.")
def create(api: Api, for_: str | None, role: str | None, label: str | None) -> JSON:
    body: JSONObject = {}
    if for_ is not None:
        kind, _, ident = for_.partition(":")
        if kind not in KINDS or not ident:
            raise click.UsageError(f'--for must be user:<id> or sa:<id>, got "{for_}"')
        body["for"] = {"kind": KINDS[kind], "id": ident}
    body.update({k: v for k, v in (("role", role), ("label", label)) if v is not None})
    minted = an_object(api.call("POST", "/v1/tokens", json=body, idempotent=True))
    click.echo(f"⚠ The secret of key {minted['tokenId']} is shown once: store it now.", err=True)
    return minted
