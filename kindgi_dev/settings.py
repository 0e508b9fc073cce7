"""What one kindgi dev instance runs with: where the pack and its data are, and how it serves."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 4000
MAX_BODY_BYTES = 1_048_576
BODY_IDLE_SECONDS = 30.0
"""How long a request body may stall between two chunks before it is refused."""


@dataclass(frozen=True)
class Settings:
    """The options of `kindgi dev` (and of `create_app` in tests)."""

    pack_dir: Path
    data_dir: Path | None = None
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    watch: bool = True
    models_file: Path | None = None
    log_level: str = "info"
    max_body_bytes: int = MAX_BODY_BYTES
    body_idle_seconds: float = BODY_IDLE_SECONDS
    eval_concurrency: int | None = None
    """Replays an eval run runs at once; None picks by the model's provider."""
    start_pack: bool = True
    env: dict[str, str] = field(default_factory=dict)

    @property
    def state_dir(self) -> Path:
        """`.kindgi/` in the pack, or the `--data-dir` given."""
        return self.data_dir if self.data_dir is not None else self.pack_dir / ".kindgi"

    @property
    def database_path(self) -> Path:
        """The one SQLite file."""
        return self.state_dir / "dev.sqlite3"

    @property
    def dev_dir(self) -> Path:
        """The pack's `.kindgi/dev/`: the lock and the index live here."""
        return self.pack_dir / ".kindgi" / "dev"

    @property
    def lock_paths(self) -> tuple[Path, ...]:
        """One `kindgi dev` per database and per pack: the database folder's lock, then the
        pack's when `--data-dir` puts the database elsewhere (by default they are one file)."""
        database = self.state_dir / "dev" / "dev.lock"
        pack = self.dev_dir / "dev.lock"
        return (database,) if database == pack else (database, pack)

    @property
    def rc_path(self) -> Path:
        """`.kindgirc.json` in the pack, where the clients find this instance."""
        return self.pack_dir / ".kindgirc.json"
