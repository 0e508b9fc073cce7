"""The browser tests' harness: Debian's `chromium`, driven by Playwright for Python.

Playwright's own browser download can't be reached here, so the tests launch the
system's Chromium with `executable_path`. On a fresh Debian machine, run as root, a
missing `chromium` is installed with apt-get once per session; anywhere else a missing
browser fails the tests with the command that installs it. They are never skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

INSTALL = "apt-get update && apt-get install -y chromium"


def _install_chromium() -> None:
    """`apt-get install chromium` as root on Debian; otherwise fail saying how."""
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.fail(f"The browser tests need Debian's chromium: run `sudo {INSTALL}`.")
    done = subprocess.run(["sh", "-c", INSTALL], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"`{INSTALL}` failed ({done.returncode}):\n{done.stderr[-2000:]}")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Where Debian's chromium is, installing it first when it is missing."""
    found = shutil.which("chromium")
    if found is None:
        _install_chromium()
        found = shutil.which("chromium")
    if found is None:
        pytest.fail(f"chromium is still missing after `{INSTALL}`.")
    return found


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Browser]:
    """One headless Chromium for a test module."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium_path, headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()
