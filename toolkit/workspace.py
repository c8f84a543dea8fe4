"""The workspace (DESIGN §3): ``toolkit.toml`` plus the ``topics/ runs/ qrels/ judging/`` folders.

Only the generic shape is read here; each stage parses its own section (``[systems]`` in
``toolkit.systems``, ``[gate]`` in the gate, ``[docs]`` in pooling) so that this module stays small.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.errors import ConfigError
from toolkit.formats.textfile import read_text

CONFIG_NAME = "toolkit.toml"


@dataclass(frozen=True)
class Workspace:
    """A folder with an optional ``toolkit.toml``; paths in the config are relative to the folder."""

    root: Path
    config_path: Path | None = None
    config: dict[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> dict[str, Any]:
        value = self.config.get(name, {})
        if not isinstance(value, dict):
            raise ConfigError(f"{self.config_path}: [{name}] must be a table")
        return value

    def path(self, relative: str | Path) -> Path:
        p = Path(relative)
        return p if p.is_absolute() else self.root / p

    @property
    def settings(self) -> dict[str, Any]:
        """The ``[workspace]`` table: default topics, measures, depth, baseline."""
        return self.section("workspace")

    @property
    def default_topics(self) -> Path | None:
        topics = self.settings.get("topics")
        return self.path(topics) if topics else None

    @property
    def runs_dir(self) -> Path:
        return self.path(self.settings.get("runs", "runs"))

    @property
    def qrels_dir(self) -> Path:
        return self.path(self.settings.get("qrels", "qrels"))

    @property
    def judging_dir(self) -> Path:
        return self.path(self.settings.get("judging", "judging"))


def load_workspace(config: str | Path | None = None, *, start: str | Path | None = None) -> Workspace:
    """Load ``toolkit.toml`` from ``config`` or the nearest one at/above ``start`` (cwd); none is fine."""
    if config is not None:
        path = Path(config)
        if not path.is_file():
            raise ConfigError(
                f"{path}: config file not found; pass --config PATH to an existing toolkit.toml"
            )
    else:
        here = Path(start or Path.cwd()).resolve()
        path = next((d / CONFIG_NAME for d in (here, *here.parents) if (d / CONFIG_NAME).is_file()), None)  # type: ignore[assignment]
        if path is None:
            return Workspace(root=here)
    text = read_text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        where = f"{path}:{match.group(1)}" if match else str(path)
        raise ConfigError(f"{where}: invalid TOML: {exc}") from None
    return Workspace(root=path.resolve().parent, config_path=path, config=data)
