"""Where the CLI finds the API: flag, environment, `./.kindgirc.json`, then `~/.kindgi`."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import click

from ..domain.json import JSON, JSONObject


@dataclass(frozen=True)
class Target:
    """The API URL and token a command uses, and where each came from."""

    url: str
    token: str
    source: str
    """Where the URL came from: `--url`, `KINDGI_API_URL`, or a file's path."""
    token_source: str = "--token"
    overridden: str | None = None
    """The file whose token the environment's `KINDGI_API_TOKEN` overrode, if one."""

    @property
    def from_rc(self) -> bool:
        """Whether the URL is the one a `kindgi dev` wrote into `.kindgirc.json`."""
        return self.source.endswith(".kindgirc.json")


def _read(path: Path) -> JSONObject | None:
    if not path.is_file():
        return None
    try:
        data: JSON = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise click.ClickException(
            f"Malformed JSON in {path}: {error}. Delete or repair the file."
        ) from None
    return data if isinstance(data, dict) else None


def resolve(url: str | None, token: str | None, *, hosted: bool = False) -> Target:
    """The URL and token per field, first hit wins, as the real CLI finds them.

    A token read from a file goes only to the address that file names: with `--url` or
    `KINDGI_API_URL` pointing elsewhere it is refused before anything is sent.
    """
    env_url = os.environ.get("KINDGI_API_URL") or None
    env_token = os.environ.get("KINDGI_API_TOKEN") or None
    files = [] if hosted else [Path.cwd() / ".kindgirc.json"]
    files.append(Path.home() / ".kindgi" / "config.json")
    found_url = url or env_url
    url_source = "--url" if url else "KINDGI_API_URL"
    found_token = token or env_token
    token_source = "--token" if token else "KINDGI_API_TOKEN"
    token_file: JSONObject = {}
    overridden = None
    for path in files:
        data = _read(path)
        if not data:
            continue
        named_url, named_token = data.get("apiUrl"), data.get("token")
        if found_url is None and isinstance(named_url, str):
            found_url, url_source = named_url, str(path)
        if isinstance(named_token, str):
            if found_token is None:
                found_token, token_source, token_file = named_token, str(path), data
            elif token is None and overridden is None and named_token != found_token:
                overridden = path.name
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
    meant = token_file.get("apiUrl")
    if isinstance(meant, str) and meant.rstrip("/") != found_url.rstrip("/"):
        raise click.ClickException(
            f"Refusing to send the token from {token_source} to {found_url.rstrip('/')} "
            f"({url_source}): that token is for {meant.rstrip('/')}. Pass --token=<token> "
            f"(or KINDGI_API_TOKEN) for {found_url.rstrip('/')}, or drop {url_source}."
        )
    return Target(found_url.rstrip("/"), found_token, url_source, token_source, overridden)
