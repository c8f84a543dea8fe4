"""Helpers shared by the systems tests (imported by name: the test folder is on sys.path)."""

from __future__ import annotations

import sys
from pathlib import Path

from toolkit.model import Topic, TopicSet

FAKE = Path(__file__).with_name("fake_system.py")


def fake_argv() -> list[str]:
    return [sys.executable, str(FAKE), "{query_id}", "{query}", "{depth}"]


def make_topics(*query_ids: str, query: str = "q") -> TopicSet:
    return TopicSet(
        topics=tuple(Topic(query_id=q, query=f"{query} {q}") for q in query_ids), name="t", sha256="x" * 64
    )
