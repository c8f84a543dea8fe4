"""What the judging screens show besides the documents: one precedence rule each for judge and adjudicate.

**Guidelines** (``g``):

``--guidelines FILE`` first; else the campaign's own (stored by ``pool`` in the campaign's metadata: the
``[judge] guidelines`` file of the workspace that pooled it, else the topic set's description — so every
assessor of a campaign reads the same text wherever they run from); else ``[judge] guidelines`` in
``toolkit.toml``, relative to the workspace; else none (the screen shows the grade scale only).

**The documents' format** (how their text is rendered): each document's own ``format``, as its doc source
gave it (``toolkit.formats.corpus``); for documents whose source said nothing, ``[docs] format`` in
``toolkit.toml`` (``default_document_format``), else ``text`` — which keeps every line break and renders
nothing, the one reading that is never wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from toolkit.errors import ConfigError, FormatError, UsageError
from toolkit.formats.corpus import DOC_FORMATS


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
    """The guidelines file, read as one document within the input limits (``toolkit.formats.limits``)."""
    from toolkit.formats.textfile import read_text

    try:
        return read_text(path, kind="document")
    except FormatError as exc:
        where = f"{exc.path}:{exc.line}" if exc.line else exc.path
        raise UsageError(f"{where}: cannot read the guidelines ({exc.detail})") from None


def default_document_format(config: Mapping[str, object]) -> str:
    """How to render a document whose source did not say: ``[docs] format``, else ``text``."""
    docs = config.get("docs")
    declared = docs.get("format") if isinstance(docs, dict) else None
    if declared is None:
        return "text"
    if declared not in DOC_FORMATS:
        raise ConfigError(
            f"toolkit.toml [docs] format: {declared!r} is not a document format; use one of {', '.join(DOC_FORMATS)}"
        )
    return str(declared)
