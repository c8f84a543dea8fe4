"""Which assessor guidelines the judging screens show (``g``): one precedence rule for judge and adjudicate.

``--guidelines FILE`` first; else the campaign's own (stored by ``pool`` in the campaign's metadata: the
``[judge] guidelines`` file of the workspace that pooled it, else the topic set's description — so every
assessor of a campaign reads the same text wherever they run from); else ``[judge] guidelines`` in
``toolkit.toml``, relative to the workspace; else none (the screen shows the grade scale only).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from toolkit.errors import UsageError


def configured_guidelines(config: Mapping[str, object], root: Path) -> str | None:
    """The text of ``[judge] guidelines`` in ``toolkit.toml`` (relative to the workspace); None when unset.
    ``pool`` stores it in the campaign, so it becomes the campaign's own."""
    judge = config.get("judge")
    configured = judge.get("guidelines") if isinstance(judge, dict) else None
    return _read(root / str(configured)) if configured else None


def read_guidelines(
    path: Path | None, store_meta: Mapping[str, str], config: Mapping[str, object], root: Path
) -> str | None:
    """The guidelines text: ``--guidelines FILE``, else the campaign's own, else ``[judge] guidelines``."""
    if path is not None:
        return _read(path)
    if store_meta.get("guidelines"):
        return store_meta["guidelines"]
    return configured_guidelines(config, root)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the guidelines ({exc.strerror})") from None
