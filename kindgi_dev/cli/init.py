"""`kindgi init`: write a new pack that `kindgi dev` serves at once, with a test that passes."""

from __future__ import annotations

import json
import re
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import click

from ..domain import test_set_files

PACK_ID = re.compile(r"^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$")
TEMPLATES = {
    "python": ("python",),
    "sample": ("python", "sample"),
}
"""Each template: the template folders laid one over the other."""
RENAMED = {"gitignore": ".gitignore"}
CASES = "tests/cases/"
"""Where a template ships test-set files: made by the template's own example runs."""


def template_files(layers: tuple[str, ...]) -> dict[str, str]:
    """`relative path → text` of a template, later layers winning."""
    root = resources.files("kindgi_dev") / "templates"
    files: dict[str, str] = {}
    for layer in layers:
        for path, entry in walk(root / layer, ""):
            name = path.removesuffix(".tmpl")
            files[RENAMED.get(name, name)] = entry.read_text(encoding="utf-8")
    return files


def walk(folder: Traversable, prefix: str) -> list[tuple[str, Traversable]]:
    """Every file under `folder`, with its path relative to it."""
    found: list[tuple[str, Traversable]] = []
    for entry in folder.iterdir():
        if entry.is_dir():
            found.extend(walk(entry, f"{prefix}{entry.name}/"))
        elif entry.name.endswith(".tmpl"):
            found.append((prefix + entry.name, entry))
    return found


def resealed(text: str) -> str:
    """A shipped test-set file written again for the pack's id: its cases name the pack's
    agent, so their digest is computed anew (as `kindgi test-sets export` would write it)."""
    data = json.loads(text)
    cases = data["cases"]
    envelope = test_set_files.envelope_of(data["id"], data["version"], cases)
    return "".join(test_set_files.file_lines(envelope, cases))


@click.command("init")
@click.argument("pack_name", required=False)
@click.option(
    "--template",
    type=click.Choice(sorted(TEMPLATES)),
    default="python",
    show_default=True,
    help="python: a tool, an agent, function models, a test; sample: plus a guardrail, a flow.",
)
@click.option(
    "--path",
    "path",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to write it (default: the pack name's last dot segment, here).",
)
@click.option("--force", is_flag=True, help="Write into a folder that isn't empty.")
def init(pack_name: str | None, template: str, path: Path | None, force: bool) -> None:
    """Write a new Kindgi pack that kindgi dev serves at once."""
    target = (path or Path(pack_name.rsplit(".", 1)[-1] if pack_name else ".")).resolve()
    pack_id = pack_name or target.name
    if not PACK_ID.match(pack_id):
        raise click.UsageError(
            f'"{pack_id}" is not a pack id: lower-case letters, digits and dashes, '
            "in dot-separated parts (e.g. acme.helpdesk)"
        )
    if target.exists() and any(target.iterdir()) and not force:
        raise click.ClickException(
            f"{target} is not empty: kindgi init writes only into an empty folder. "
            "Pass --force to write into it anyway (files of the same name are replaced)."
        )
    files = template_files(TEMPLATES[template])
    for relative, text in sorted(files.items()):
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        named = text.replace("__PACK_ID__", pack_id)
        if relative.startswith(CASES):
            named = resealed(named)
        destination.write_text(named, encoding="utf-8")
    shown = target.relative_to(Path.cwd()) if target.is_relative_to(Path.cwd()) else target
    click.echo(f"✓ {template} pack {pack_id} written to {shown}/ ({len(files)} files)")
    click.echo("Next:")
    if str(shown) != ".":
        click.echo(f"  cd {shown}")
    click.echo("  kindgi dev     # serve it; saving a file reloads it")
    click.echo("  pytest         # its test runs the agent on a kindgi dev of its own")
