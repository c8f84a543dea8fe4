"""Regex truth → qrels: each topic's patterns applied to a universe of doc ids (docs/design.md §1, truth 1).

The universe is what the caller knows exists: the doc ids seen in runs and/or a full corpus id list. A doc
matching several patterns of a topic takes the highest grade (``Topic.grade``). Only matches are written
(with the grade of their pattern; ``zeros=True`` also writes grade 0 for every covered doc that matched nothing, making
"judged" mean "covered by the regex").

Two checks catch the usual mistakes in hand-written truth: a topic whose patterns match nothing (a typo, or
the right doc is not in the universe — both worth knowing before scoring), and a pattern that matches
suspiciously many docs (a missing anchor or an unescaped dot). Preference pairs (class ``deprecation``) are
not qrels: they travel with the topic set to ``compare``. Topics declared ``expect = "empty"`` have no truth
by definition (the topic readers refuse truth on them); they are listed apart, not as topics missing truth.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.errors import ConfigError, SystemCallError, UsageError
from toolkit.model import Qrels, TopicSet

#: A pattern matching more docs than this is reported as suspicious (unless the caller sets another limit).
DEFAULT_MAX_MATCHES = 50


@dataclass(frozen=True)
class SuspiciousPattern:
    query_id: str
    pattern: str
    matches: int


@dataclass(frozen=True)
class TruthResult:
    """The qrels and what the checks found."""

    qrels: Qrels
    covered: frozenset[str]
    unmatched_topics: tuple[str, ...]
    unmatched_patterns: tuple[tuple[str, str], ...]
    suspicious: tuple[SuspiciousPattern, ...]
    no_truth: tuple[str, ...]
    max_matches: int
    expect_empty: tuple[str, ...] = ()

    @property
    def judged_topics(self) -> int:
        return sum(1 for docs in self.qrels.judgments.values() if any(r > 0 for r in docs.values()))

    def summary(self) -> dict[str, Any]:
        return {
            "covered_docs": len(self.covered),
            "covered_sha256": covered_digest(self.covered),
            "judgments": len(self.qrels),
            "topics_with_relevant": self.judged_topics,
            "unmatched_topics": list(self.unmatched_topics),
            "unmatched_patterns": [{"query_id": q, "pattern": p} for q, p in self.unmatched_patterns],
            "suspicious_patterns": [
                {"query_id": s.query_id, "pattern": s.pattern, "matches": s.matches} for s in self.suspicious
            ],
            "max_matches": self.max_matches,
            "topics_without_truth": list(self.no_truth),
            "expect_empty_topics": list(self.expect_empty),
        }


def covered_digest(doc_ids: Iterable[str]) -> str:
    """SHA-256 of the distinct covered doc ids, sorted, one per line: names the universe without listing it."""
    digest = hashlib.sha256()
    for doc_id in sorted(set(doc_ids)):
        digest.update(doc_id.encode("utf-8") + b"\n")
    return digest.hexdigest()


def build_qrels(
    topics: TopicSet,
    doc_ids: Iterable[str],
    *,
    max_matches: int = DEFAULT_MAX_MATCHES,
    zeros: bool = False,
    name: str | None = None,
) -> TruthResult:
    """Grade every doc id of the universe against every topic's truth."""
    if max_matches < 1:
        raise UsageError(f"--max-matches must be at least 1, not {max_matches}")
    universe = sorted(set(doc_ids))
    judgments: dict[str, dict[str, int]] = {}
    unmatched_topics: list[str] = []
    unmatched_patterns: list[tuple[str, str]] = []
    suspicious: list[SuspiciousPattern] = []
    no_truth: list[str] = []
    for topic in topics:
        if topic.expects_empty:
            continue
        if not topic.truth:
            no_truth.append(topic.query_id)
            continue
        grades: dict[str, int] = {}
        for pattern in topic.truth:
            matched = _matching(pattern.regex, universe)
            if not matched:
                unmatched_patterns.append((topic.query_id, pattern.pattern))
            if len(matched) > max_matches:
                suspicious.append(SuspiciousPattern(topic.query_id, pattern.pattern, len(matched)))
            for doc_id in matched:
                grades[doc_id] = max(grades.get(doc_id, pattern.grade), pattern.grade)
        if not grades:
            unmatched_topics.append(topic.query_id)
        docs = {d: grades.get(d, 0) for d in universe} if zeros else dict(sorted(grades.items()))
        if docs:
            judgments[topic.query_id] = docs
    qrels = Qrels(judgments=judgments, name=name or topics.name)
    return TruthResult(
        qrels=qrels,
        covered=frozenset(universe),
        unmatched_topics=tuple(unmatched_topics),
        unmatched_patterns=tuple(unmatched_patterns),
        suspicious=tuple(suspicious),
        no_truth=tuple(no_truth),
        max_matches=max_matches,
        expect_empty=topics.empty_ids,
    )


def _matching(regex: re.Pattern[str], universe: list[str]) -> list[str]:
    """The ids of the sorted ``universe`` that ``regex`` matches (``TruthPattern.matches``: a search).

    Every pattern is searched in every covered id, so a corpus-wide universe costs topics × patterns × ids
    searches. A pattern anchored by a literal (``^pydoc://json\\.``, most hand-written truth) can only match
    ids starting with that literal: in the sorted universe they are one slice, found by bisection, and only
    the slice is searched. The searches run in C (``filter``), one per id as before.
    """
    prefix = _anchored_prefix(regex)
    if prefix:
        cut = len(prefix)

        def head(doc_id: str) -> str:
            return doc_id[:cut]

        low = bisect.bisect_left(universe, prefix, key=head)
        universe = universe[low : bisect.bisect_right(universe, prefix, lo=low, key=head)]
    return list(filter(regex.search, universe))


#: Characters with a meaning in a pattern outside a class (without the VERBOSE flag).
_SPECIAL = frozenset(".^$*+?{}[]|()\\")
#: Quantifiers: the literal character before one may be absent or repeated, so it is not a certain prefix.
_QUANTIFIERS = frozenset("*+?{")


def _anchored_prefix(regex: re.Pattern[str]) -> str:
    """The literal every match of ``regex`` starts with at position 0, or "" when none is certain.

    Only a pattern that starts with ``^`` (no flags: no IGNORECASE, MULTILINE or VERBOSE), has no alternation
    at its top level and no comment group has one: ``^`` then anchors every match at the start of the id, and
    the plain or escaped characters after it, up to the first other construct (less a character a quantifier
    makes optional), are consumed first. Anything else (unsure) gives "": the pattern is searched everywhere.
    """
    pattern = regex.pattern
    if regex.flags != re.UNICODE or not pattern.startswith("^") or "(?#" in pattern:
        return ""
    body = pattern[1:]
    if _top_level_alternation(body):
        return ""
    literal: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body) and body[i + 1] in string.punctuation:
            literal.append(body[i + 1])
            i += 2
        elif char in _SPECIAL:
            break
        else:
            literal.append(char)
            i += 1
    if i < len(body) and body[i] in _QUANTIFIERS and literal:
        literal.pop()
    return "".join(literal)


def _top_level_alternation(body: str) -> bool:
    """Whether ``body`` has a ``|`` outside every group and class (or unbalanced groups: unsure, so yes)."""
    depth = 0
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":  # a class: "]" right after "[" or "[^" is a member, the next one ends it
            i += 1
            if body[i : i + 1] == "^":
                i += 1
            if body[i : i + 1] == "]":
                i += 1
            while i < len(body) and body[i] != "]":
                i += 2 if body[i] == "\\" else 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return True
        elif char == "|" and depth == 0:
            return True
        i += 1
    return depth != 0


def corpus_ids(
    docs: Mapping[str, Any], root: Path, *, where: str = "toolkit.toml"
) -> tuple[list[str], str] | None:
    """The whole corpus's doc ids from ``[docs] ids``: an argv list printing one id per line (no shell;
    ``{python}`` is the running interpreter) or a file path. Returns (ids, where they came from); None when
    ``ids`` is not declared."""
    spec = docs.get("ids")
    if spec is None:
        return None
    if isinstance(spec, str):
        from toolkit.formats.textfile import iter_data_lines

        path = root / spec
        return [line for _, line in iter_data_lines(path)], str(path)
    if not isinstance(spec, list) or not spec or not all(isinstance(a, str) for a in spec):
        raise ConfigError(
            f"{where}: [docs] ids must be a file path or an argv list printing one doc id per line"
        )
    import subprocess
    import sys

    argv = [a.replace("{python}", sys.executable) for a in spec]
    try:
        done = subprocess.run(
            argv, cwd=root, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
        )
    except OSError as exc:
        raise SystemCallError(f"{where}: [docs] ids: cannot run {argv[0]!r}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [""]
        raise SystemCallError(f"{where}: [docs] ids command exited with {done.returncode}: {tail[0]}")
    ids = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    if not ids:
        raise SystemCallError(f"{where}: [docs] ids command printed no doc ids")
    return ids, " ".join(spec)


def write_truth(
    result: TruthResult,
    path: str | Path,
    *,
    topics: TopicSet,
    sources: Mapping[str, str | Path] | None = None,
    command: list[str] | None = None,
    details: Mapping[str, Any] | None = None,
    root: str | Path | None = None,
) -> Path | None:
    """Write the qrels (topic-set order, doc ids sorted) and the manifest beside them (first); returns the
    manifest (None when ``path`` is not a regular file: no manifest).

    ``root`` is the folder relative input paths are under (the workspace), for the manifest's input hashes.
    """
    from toolkit.formats.manifest import write_with_manifest
    from toolkit.formats.qrels import format_qrels

    inputs: dict[str, str | Path] = {"topics": topics.path} if topics.path else {}
    inputs.update(sources or {})
    extra = {
        "method": "regex truth: each topic's patterns on the covered doc ids; highest matching grade wins",
        "topic_set": {
            "name": topics.name,
            "path": topics.path,
            "sha256": topics.sha256,
            "topics": len(topics),
        },
        "preference_topics": [t.query_id for t in topics if t.preferences],
        **result.summary(),
        **(details or {}),
    }
    return write_with_manifest(
        path, format_qrels(result.qrels), kind="qrels", inputs=inputs, command=command, extra=extra, root=root
    )
