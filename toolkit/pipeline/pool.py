"""Pooling in a workspace: which topic set, depth, doc source, parallel fetches and guidelines a round uses.

``pool`` and ``example campaign`` both come through here, so they resolve their settings the same way:
the topic set by ``Workspace.topics``, the depth and the number of parallel fetches by the run settings'
precedence (the option, else ``[workspace]``, else the defaults), the doc source by ``--docs`` else
``[docs]``, and the assessor guidelines by ``[judge] guidelines`` (stored in the campaign, so every
assessor reads the same text). The round itself — pool, skip what is judged, snapshot, assign the new
items by the campaign's recorded policy — is ``toolkit.pooling.rounds``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.errors import UsageError
from toolkit.pooling.rounds import Design, RoundResult
from toolkit.workspace import Workspace

if TYPE_CHECKING:
    from toolkit.judging.assign import AssignResult

#: What ``example campaign`` builds, and how it shares it out.
EXAMPLE_CAMPAIGN = "stdlib.sqlite"
EXAMPLE_ASSESSORS = ("alice", "bob")
EXAMPLE_OVERLAP = 0.2


def pool_runs(
    ws: Workspace,
    runs: Sequence[str | Path],
    campaign: str | Path,
    *,
    topics: str | Path | None = None,
    strategy: str = "depth",
    depth: int | None = None,
    budget: int | None = None,
    exclude: Sequence[str | Path] = (),
    docs: str | None = None,
    workers: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    design: Design | None = None,
) -> RoundResult:
    """One pooling round of ``runs`` into ``campaign`` with the workspace's settings (arguments that are not
    None win); ``progress(step, done, total)`` names each step (``read runs``, ``fetch docs …``); ``design``
    a total budget, a sample's strata and seed (``toolkit.pooling.rounds.Design``)."""
    from toolkit.formats import read_qrels, read_run
    from toolkit.judging.guidelines import configured_guidelines
    from toolkit.pooling.rounds import pool_campaign

    topic_set = ws.topics(topics)
    source = ws.doc_source(docs, required=True, workers=workers)
    fetches = int(ws.setting("workers", workers))
    if progress is not None:
        progress("read runs", 0, len(runs))
    read = []
    for i, path in enumerate(runs, start=1):
        read.append(dataclasses.replace(read_run(path), path=ws.relative(path)))
        if progress is not None:
            progress("read runs", i, len(runs))
    step = f"fetch docs ({fetches} at a time) from {_short(source.describe())}"
    return pool_campaign(
        campaign,
        read,
        topic_set,
        source=source,
        strategy=strategy,
        depth=int(ws.setting("depth", depth)) if strategy == "depth" else depth,
        budget=budget,
        exclude=[read_qrels(p) for p in exclude],
        progress=(lambda done, total: progress(step, done, total)) if progress is not None else None,
        guidelines=configured_guidelines(ws.config, ws.root),
        design=design,
    )


@dataclass(frozen=True)
class ExampleCampaign:
    """What ``example campaign`` made: the campaign, its first round, and how it was shared out."""

    path: Path
    round: RoundResult
    assigned: AssignResult


def example_campaign(
    ws: Workspace,
    *,
    output: str | Path | None = None,
    assessors: Sequence[str] = EXAMPLE_ASSESSORS,
    overlap: float | str = EXAMPLE_OVERLAP,
    seed: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
) -> ExampleCampaign:
    """The example campaign, ready to judge: every committed run of the workspace pooled at the workspace's
    depth into ``judging/stdlib.sqlite`` and shared out among ``assessors`` with ``overlap``. An existing
    campaign is never touched (it may hold judgments): remove it first to start over."""
    from toolkit.judging.assign import assign
    from toolkit.judging.store import CampaignStore

    path = Path(output) if output is not None else ws.judging_dir / EXAMPLE_CAMPAIGN
    if path.exists():
        raise UsageError(
            f"{ws.relative(path)} exists (it may hold judgments); judge it, or delete it to build it again"
        )
    runs = sorted(ws.runs_dir.glob("*.run"))
    if not runs:
        raise UsageError(f"no runs in {ws.relative(ws.runs_dir)}; make them first with `trec-toolkit audit`")
    result = pool_runs(ws, runs, path, progress=progress)
    with CampaignStore.open(path) as store:
        shared = assign(store, list(assessors), overlap=overlap, seed=seed)
    return ExampleCampaign(path, dataclasses.replace(result, unassigned=0), shared)


def _short(text: str, width: int = 48) -> str:
    text = text.replace("{python}", "python")
    return text if len(text) <= width else "…" + text[-(width - 1) :]
