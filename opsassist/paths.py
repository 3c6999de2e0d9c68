"""Where opsassist keeps its files.

`OPSASSIST_HOME` relocates everything (config, database, secrets) into one folder; tests rely on it.
Without it, the XDG locations from platformdirs are used.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "opsassist"


@dataclass(frozen=True)
class Paths:
    config_dir: Path
    data_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def database(self) -> Path:
        return self.data_dir / "opsassist.db"

    @property
    def themes_dir(self) -> Path:
        return self.config_dir / "themes"

    @property
    def secret_file(self) -> Path:
        return self.data_dir / "approval.key"

    @property
    def ui_state(self) -> Path:
        """What the TUI remembers between runs (the chosen theme)."""
        return self.data_dir / "ui-state.json"


def resolve_paths(environ: dict[str, str] | None = None) -> Paths:
    env = os.environ if environ is None else environ
    home = env.get("OPSASSIST_HOME")
    if home:
        root = Path(home).expanduser()
        return Paths(config_dir=root, data_dir=root)
    import platformdirs  # only needed when OPSASSIST_HOME is not set

    return Paths(
        config_dir=Path(platformdirs.user_config_dir(APP_NAME)),
        data_dir=Path(platformdirs.user_data_dir(APP_NAME)),
    )
