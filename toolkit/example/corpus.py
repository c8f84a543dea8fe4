"""Build the example corpus: the installed Python standard library's docstrings, one doc per documented object.

The corpus is real (written by the CPython authors, not by us), changes with the Python version the way a
documentation corpus changes with a release, and needs no download. It is cached in SQLite with two FTS5
indexes (see ``toolkit.example.search``); the file name carries the Python version and ``CORPUS_VERSION``, so
a new Python or a new builder gives a new file instead of a stale one.

Importing modules can have side effects (``antigravity`` opens a browser, ``this`` prints, ``tkinter`` and
``turtle`` want a display), so those are skipped, stdout/stderr are silenced while importing and warnings are
ignored. Only public names count: private ``_`` modules and members are skipped.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import os
import pkgutil
import re
import sqlite3
import sys
import types
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from toolkit.example.corpus_version import CORPUS_VERSION
from toolkit.example.identifiers import identifier_text

#: Modules never imported: side effects (windows, browser, printing), platform-only, or test suites.
SKIP_MODULES = frozenset(
    {
        "antigravity",
        "this",
        "tkinter",
        "turtle",
        "turtledemo",
        "idlelib",
        "test",
        "lib2to3",
        "ensurepip",
        "pydoc_data",
        "msilib",
        "msvcrt",
        "nt",
        "winreg",
        "winsound",
        "_winapi",
        "distutils",
        "site",
        "encodings",
        "posix",
        "sre_compile",
        "sre_constants",
        "sre_parse",
        "nturl2path",
        "ossaudiodev",
        "curses",
        "readline",
        "tty",
        "pty",
        "venv",
        "zipapp",
        "webbrowser",
    }
)

#: Submodules skipped inside packages we walk: test suites, entry points, platform-specific helpers.
SKIP_PARTS = frozenset(
    {"test", "tests", "idle_test", "__main__", "macholib", "wintypes", "windows_events", "windows_utils"}
)

#: Aliases documented under their public name: ``os.path`` is ``posixpath`` on this platform.
ALIASES = {"os.path": "os.path"}

KINDS = ("module", "class", "exception", "function", "method", "property")


@dataclass(frozen=True)
class Doc:
    """One documented object: ``pydoc://json.loads``."""

    doc_id: str
    title: str
    kind: str
    signature: str
    summary: str
    body: str


def _split_doc(doc: str) -> tuple[str, str]:
    doc = doc.strip()
    if not doc:
        return "", ""
    paragraphs = re.split(r"\n\s*\n", doc, maxsplit=1)
    summary = " ".join(paragraphs[0].split())
    body = paragraphs[1].strip() if len(paragraphs) > 1 else ""
    return summary, body


def _signature(obj: object) -> str:
    try:
        return str(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""


def _quiet_import(name: str) -> types.ModuleType | None:
    sink = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        warnings.simplefilter("ignore")
        try:
            return importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - any import failure (even SystemExit) just skips the module
            return None


def module_names() -> list[str]:
    """Public stdlib modules and their public submodules, sorted; ``os.path`` included."""
    names: set[str] = set()
    for top in sorted(sys.stdlib_module_names):
        if top.startswith("_") or top in SKIP_MODULES:
            continue
        module = _quiet_import(top)
        if module is None:
            continue
        names.add(top)
        names.update(_submodules(module))
    names.update(ALIASES)
    return sorted(names)


def _submodules(package: types.ModuleType) -> Iterator[str]:
    """Public submodules, recursing only into packages that are themselves public (never into tests)."""
    for info in pkgutil.iter_modules(getattr(package, "__path__", None) or [], prefix=f"{package.__name__}."):
        last = info.name.rsplit(".", 1)[1]
        if last.startswith("_") or last in SKIP_PARTS:
            continue
        yield info.name
        if info.ispkg:
            sub = _quiet_import(info.name)
            if sub is not None:
                yield from _submodules(sub)


def _is_private(module_name: object) -> bool:
    return isinstance(module_name, str) and any(part.startswith("_") for part in module_name.split("."))


def _members(module: types.ModuleType, name: str) -> Iterator[tuple[str, object]]:
    """Public classes and functions of a module: its ``__all__``; else those defined in it or in a private
    module it exposes (``sqlite3.connect`` is ``_sqlite3.connect``, ``threading.Lock`` is ``_thread``'s)."""
    exported = getattr(module, "__all__", None)
    module_name = module.__name__
    if module_name == "builtins":
        exported = None  # everything in builtins is its public API (``open`` says it is from ``io``)
    if exported is not None:
        # getattr, not vars: packages such as concurrent.futures load some names lazily (__getattr__).
        pairs = [(attr, getattr(module, attr, None)) for attr in exported if isinstance(attr, str)]
    else:
        pairs = list(vars(module).items())
    for attr, obj in sorted(pairs, key=lambda pair: pair[0]):
        if attr.startswith("_") or not (inspect.isclass(obj) or inspect.isroutine(obj)):
            continue
        origin = getattr(obj, "__module__", None)
        public_elsewhere = origin not in (module_name, name) and not _is_private(origin)
        if exported is None and module_name != "builtins" and public_elsewhere:
            continue
        yield attr, obj


def _class_members(cls: type) -> Iterator[tuple[str, str, object]]:
    for attr, raw in sorted(vars(cls).items()):
        if attr.startswith("_"):
            continue
        if isinstance(raw, property):
            yield attr, "property", raw
        elif isinstance(raw, (staticmethod, classmethod)):
            yield attr, "method", raw.__func__
        elif inspect.isroutine(raw):
            yield attr, "method", raw


def iter_docs() -> Iterator[Doc]:
    """Every documented public object of the stdlib, in a stable order (sorted names)."""
    seen: set[str] = set()

    def make(title: str, kind: str, obj: object, signature: str = "") -> Doc | None:
        doc_id = f"pydoc://{title}"
        if doc_id in seen:
            return None
        # Own docstrings only: an inherited one (``getdoc``'s fallback) would repeat the parent's page.
        raw = getattr(obj, "__doc__", None)
        if raw is None and kind in ("class", "exception"):
            raw = vars(obj).get("__init__", None).__doc__ if "__init__" in vars(obj) else None  # type: ignore[call-overload]
        doc = inspect.cleandoc(raw) if isinstance(raw, str) else ""
        if not doc and kind not in ("module", "class", "exception"):
            return None
        seen.add(doc_id)
        summary, body = _split_doc(doc or "")
        return Doc(doc_id, title, kind, signature, summary, body)

    for name in module_names():
        module = sys.modules.get(name) or _quiet_import(name)
        if module is None:
            continue
        made = make(name, "module", module)
        if made:
            yield made
        for attr, obj in _members(module, name):
            title = f"{name}.{attr}"
            if inspect.isclass(obj):
                kind = "exception" if issubclass(obj, BaseException) else "class"
                made = make(title, kind, obj, _signature(obj) if kind == "class" else "")
                if made:
                    yield made
                for member, member_kind, member_obj in _class_members(obj):
                    sig = _signature(member_obj) if member_kind == "method" else ""
                    made = make(f"{title}.{member}", member_kind, member_obj, sig)
                    if made:
                        yield made
            else:
                made = make(title, "function", obj, _signature(obj))
                if made:
                    yield made


SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE docs (
    id INTEGER PRIMARY KEY, doc_id TEXT UNIQUE NOT NULL, title TEXT NOT NULL, kind TEXT NOT NULL,
    signature TEXT NOT NULL, summary TEXT NOT NULL, body TEXT NOT NULL
);
CREATE VIRTUAL TABLE plain USING fts5(text, tokenize = 'unicode61');
CREATE VIRTUAL TABLE fields USING fts5(name, summary, body, ident, tokenize = 'unicode61');
"""


def build_corpus(path: Path) -> int:
    """Build the corpus database at ``path`` (atomically: a temp file renamed into place); returns #docs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    try:
        db.executescript(SCHEMA)
        count = 0
        for count, doc in enumerate(iter_docs(), start=1):
            db.execute(
                "INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?)",
                (count, doc.doc_id, doc.title, doc.kind, doc.signature, doc.summary, doc.body),
            )
            name_text = doc.title
            db.execute(
                "INSERT INTO plain(rowid, text) VALUES (?, ?)",
                (count, "\n".join(p for p in (name_text, doc.signature, doc.summary, doc.body) if p)),
            )
            db.execute(
                "INSERT INTO fields(rowid, name, summary, body, ident) VALUES (?, ?, ?, ?, ?)",
                (
                    count,
                    name_text,
                    doc.summary,
                    "\n".join(p for p in (doc.signature, doc.body) if p),
                    identifier_text(doc.title),
                ),
            )
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [
                ("python", sys.version.split()[0]),
                ("corpus_version", str(CORPUS_VERSION)),
                ("docs", str(count)),
            ],
        )
        db.commit()
        db.execute("INSERT INTO plain(plain) VALUES ('optimize')")
        db.execute("INSERT INTO fields(fields) VALUES ('optimize')")
        db.commit()
    finally:
        db.close()
    os.replace(tmp, path)
    return count
