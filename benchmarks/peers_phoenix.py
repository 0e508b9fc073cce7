"""Arize Phoenix's side of `peers.py`: its venv, apart from ours, and one run of the script."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from devserver import clean_env
from peers_promptfoo import HOME
from peers_work import run_isolated

PYTHON = HOME / "phoenix-venv" / "bin" / "python"
SCRIPT = Path(__file__).with_name("peers_phoenix_script.py")


@dataclass(frozen=True)
class PhoenixRun:
    """One Phoenix run: its wall time, each step's time, memory and mean score."""

    seconds: float
    start_s: float
    upload_s: float
    experiment_s: float
    peak_mb: float
    """Server and client peaks added: the work needs both."""
    mean: float


def installed() -> bool:
    """Whether Phoenix's venv is in the cache folder (see benchmarks/README.md)."""
    return PYTHON.exists() and (PYTHON.parent / "phoenix").exists()


def run(folder: Path, cases_file: Path, count: int) -> PhoenixRun:
    """The script on the cases, in a network namespace of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    env = clean_env(PYTHONDONTWRITEBYTECODE="1")
    cost = run_isolated([str(PYTHON), str(SCRIPT), str(cases_file), str(folder)], folder, env)
    answer = json.loads(cost.stdout.strip().splitlines()[-1])
    if answer["scored"] != count or answer["mean"] is None:
        raise RuntimeError(f"Phoenix scored {answer['scored']} cases, not {count}")
    return PhoenixRun(cost.seconds, answer["start_s"], answer["upload_s"],
                      answer["experiment_s"], answer["server_mb"] + answer["client_mb"],
                      answer["mean"])  # fmt: skip
