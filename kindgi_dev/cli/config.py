"""Where the CLI finds the API: flag, environment, `./.kindgirc.json`, then `~/.kindgi`."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click


@dataclass(frozen=True)
class Target:
    """The API URL and token a command uses, and where each came from."""

    url: str
    token: str
    source: str


def _read(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise click.ClickException(
            f"Malformed JSON in {path}: {error}. Delete or repair the file."
        ) from None
    return data if isinstance(data, dict) else None


def resolve(url: str | None, token: str | None, *, hosted: bool = False) -> Target:
    """The URL and token per field, first hit wins, as the real CLI finds them."""
    env_url = os.environ.get("KINDGI_API_URL") or None
    env_token = os.environ.get("KINDGI_API_TOKEN") or None
    files = [] if hosted else [Path.cwd() / ".kindgirc.json"]
    files.append(Path.home() / ".kindgi" / "config.json")
    found_url, found_token, source = url or env_url, token or env_token, "flags or environment"
    for path in files:
        data = _read(path)
        if not data:
            continue
        if found_url is None and isinstance(data.get("apiUrl"), str):
            found_url, source = data["apiUrl"], str(path)
        if found_token is None and isinstance(data.get("token"), str):
            found_token = data["token"]
    if not found_url:
        raise click.ClickException(
            "API URL not configured. Set KINDGI_API_URL, pass --url=..., "
            "or run `kindgi dev` in this folder."
        )
    if not found_token:
        raise click.ClickException(
            "API token not configured. Set KINDGI_API_TOKEN, pass --token=..., "
            "or run `kindgi dev` in this folder."
        )
    return Target(found_url.rstrip("/"), found_token, source)
