"""``trec-toolkit audit``: the whole pipeline from ``toolkit.toml`` → audits/ (MD + JSON + HTML + PNGs)."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import (
    allow_failed_option,
    allow_pilot_option,
    file_option,
    seed_option,
    topics_shown_option,
)


@click.command()
@file_option(
    "--config",
    "config_path",
    default=None,
    help="toolkit.toml (default: the nearest one at or above the current folder).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the audit files (default: [audit] output, else audits/ in the workspace).",
)
@click.option("--rerun", is_flag=True, help="Run every system again even when a matching run exists.")
@seed_option(None, "Seed of the resampling tests (default: [audit] seed, else 42).")
@allow_pilot_option("Audit systems marked pilot = true and reuse pilot runs; the audit is then marked PILOT.")
@allow_failed_option(
    "Give verdicts even when a system failed some topics (they are still listed in the audit)."
)
@topics_shown_option
def command(
    config_path: Path | None,
    output: Path | None,
    rerun: bool,
    seed: int | None,
    allow_pilot: bool,
    allow_failed: bool,
    topics_shown: int | None,
) -> None:
    """Run every configured system, build the regex qrels, compare all against the baseline, write the audit.

    \b
    Each system's pre-flight check runs first; a failing one stops the audit. Runs are reused when
    their manifest matches (same system config, topic-set hash, depth and pre-flight output, not a
    pilot); --rerun forces fresh runs. Writes audit.md, audit.json, audit.html and audit-*.png, and
    prints a summary. The verdict is the confirmatory test of [workspace] primary (default nDCG@10); a
    candidate compared with a run that has failed topics is "not comparable" unless --allow-failed.
    \b
    Examples:
      trec-toolkit audit                        # the example workspace: bm25f against bm25
      trec-toolkit audit --config other/toolkit.toml -o /tmp/audit --rerun
    """
    from toolkit.cli.options import progress_bar, say
    from toolkit.pipeline.audit import run_audit
    from toolkit.reports.summary import audit_summary

    with progress_bar("topics") as update:
        result = run_audit(
            config_path,
            output=output,
            rerun=rerun,
            seed=seed,
            progress=update,
            log=lambda msg: say(msg, err=True),
            allow_pilot=allow_pilot,
            allow_failed=allow_failed,
            topics_shown=topics_shown,
        )
    say(audit_summary(result), nl=False)
