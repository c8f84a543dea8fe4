"""``trec-toolkit audit`` hands each run's top k and the ``[docs]`` titles to ``audits/audit.html``.

On a copy of the example workspace (docs/audit.md, "The per-topic view"): the page's embedded data for the
degraded topic holds both rankings as the run files rank them (score descending, ties by doc id descending), the
grades of the qrels file, a title for every document from the example's doc command, and the page stays
small. The browser side is tests/browser/test_topic_view.py.
"""

from __future__ import annotations

import json
from pathlib import Path


def ranked(path: Path, k: int = 10) -> dict[str, list[str]]:
    rows: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        rows.setdefault(q, []).append((float(score), doc))
    return {q: [d for _, d in sorted(r, reverse=True)[:k]] for q, r in rows.items()}


def test_the_example_audit_page_holds_the_degraded_topics_rankings(example_audit: Path) -> None:
    tmp_path = example_audit  # the audit, run once for the tests that read it (tests/conftest.py)
    assert "documents of the per-topic view from command" in (tmp_path / "stderr.txt").read_text()
    page = (tmp_path / "audits" / "audit.html").read_text(encoding="utf-8")
    assert len(page.encode()) < 3_000_000  # "the default keeps the example's report under a few MB"
    data = json.loads(
        page.split('<script type="application/json" id="tv-data">', 1)[1].split("</script>", 1)[0]
    )
    audit = json.loads((tmp_path / "audits" / "audit.json").read_text())
    assert data["runs"] == audit["runs"] == ["bm25", "bm25f"]
    assert data["measures"][data["primary"]] == "RR@10"
    assert data["shown"] == data["total"] == 67  # 61 counted topics and 6 that should find nothing
    judged: dict[str, dict[str, int]] = {}
    for line in (tmp_path / "qrels" / "stdlib.qrels").read_text().splitlines():
        q, _, doc, rel = line.split()
        judged.setdefault(q, {})[doc] = int(rel)
    runs = {name: ranked(tmp_path / "runs" / f"{name}.run") for name in data["runs"]}
    for qid in audit["rank1"][0]["topics"]["degraded"]:
        topic = next(t for t in data["topics"] if t["q"] == qid)
        assert topic["o"][0][0] == "degraded"
        for entries, run in zip(topic["l"], data["runs"], strict=True):
            docs = [data["docs"][i] for i, _ in entries]
            assert [d[0] for d in docs] == runs[run][qid]
            assert [g for _, g in entries] == [judged.get(qid, {}).get(d[0]) for d in docs]
            assert all(d[1] and d[3] is None for d in docs)  # a title each, no fetch error
    # degraded topics come first in the candidate's order, after the fixed ones of larger |Δ| at most
    first = [data["topics"][i]["o"][0] for i in data["order"][0][:5]]
    assert all(o[5] for o in first)  # the outcome changed
