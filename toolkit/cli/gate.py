"""``trec-toolkit gate``: the CI regression guard — exit 3 when a declared rule fails."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkit.cli.options import (
    allow_failed_option,
    allow_pilot_option,
    emit,
    evaluation_options,
    evaluation_workspace,
    file_option,
    report_options,
)

if TYPE_CHECKING:
    from toolkit.workspace import Workspace


@click.command()
@file_option(
    "--baseline",
    "baseline_path",
    required=True,
    help="The reference run.",
)
@file_option(
    "--candidate",
    "candidate_path",
    required=True,
    help="The run being checked.",
)
@evaluation_options(
    "Topic set (needed for class= rules, win_rate and refusal; default: [workspace] topics, else the qrels' "
    "topics)."
)
@click.option(
    "--rule",
    "rules",
    multiple=True,
    help="MEASURE [value|drop|delta] OP NUMBER [class=CLASS] (repeatable; default: [gate] rules in "
    "toolkit.toml).",
)
@file_option(
    "--config",
    "config_path",
    default=None,
    help="toolkit.toml to read [gate] rules and [workspace] topics from (default: the nearest one).",
)
@allow_pilot_option("Gate pilot runs too (refused by default); the report says PILOT.")
@allow_failed_option("Gate even when a run's manifest records failed topics (they are still listed).")
@report_options()
def command(
    baseline_path: Path,
    candidate_path: Path,
    qrels_path: Path,
    topics_path: Path | None,
    rules: tuple[str, ...],
    config_path: Path | None,
    allow_pilot: bool,
    allow_failed: bool,
    no_workspace: bool,
    fmt: str,
    output: Path | None,
) -> None:
    """Check a candidate run against a baseline; exit 0 when every rule holds, 3 when any fails.

    Rules are thresholds on means, not tests: a passing drop rule is not evidence of no regression (use
    compare --margin … --fail-on regression for that). A run with failed topics fails the gate as "not
    comparable" unless --allow-failed.

    \b
    Rule grammar:  MEASURE [value|drop|delta] <=|<|>=|> NUMBER [class=CLASS]
      value  the candidate's mean (the default)      drop   baseline mean − candidate mean
      delta  candidate mean − baseline mean          win_rate  preference win rate (deprecation pairs)
      refusal  share of the expect = "empty" topics it returned nothing for
      empty_rate  share of the other topics it returned nothing for
    \b
    Examples:
      trec-toolkit gate --baseline runs/bm25.run --candidate runs/bm25f.run --qrels qrels/stdlib.qrels \\
          --topics topics/stdlib.toml --rule 'nDCG@10 drop <= 0.05' --rule 'P@1 >= 1.0 class=canonical'
    \b
    In toolkit.toml:  [gate]
                      rules = ["nDCG@10 drop <= 0.05", "P@1 >= 1.0 class=canonical"]
    """
    from toolkit.errors import CheckFailed
    from toolkit.formats import read_qrels, read_run
    from toolkit.pipeline.failures import comparison_failures, recorded_failures
    from toolkit.pipeline.pilot import refuse_pilot_runs
    from toolkit.reports import document, mark_pilot, render
    from toolkit.stats.gate import run_gate

    workspace = evaluation_workspace(no_workspace, config_path)
    rule_texts = list(rules) or _configured_rules(workspace)
    baseline, candidate = read_run(baseline_path), read_run(candidate_path)
    pilots = refuse_pilot_runs([baseline, candidate], allow=allow_pilot, command="gate")
    topics = workspace.evaluation(topics=topics_path).topics
    policy = comparison_failures(
        recorded_failures([baseline, candidate]), baseline.name, [candidate.name], allow_failed=allow_failed
    )
    result = run_gate(rule_texts, baseline, candidate, read_qrels(qrels_path), topics=topics, failures=policy)
    emit(render(mark_pilot(document(result), pilots), fmt), output)
    if not result.comparable:
        reason = result.failures.not_comparable[result.candidate]
        raise CheckFailed(f"{reason}; pass --allow-failed to gate anyway")
    if not result.passed:
        failed = "; ".join(c.rule.text for c in result.failed)
        raise CheckFailed(f"{len(result.failed)} of {len(result.checks)} gate rule(s) failed: {failed}")


def _configured_rules(workspace: Workspace) -> list[str]:
    """``[gate] rules`` of toolkit.toml; UsageError when there are none there either."""
    from toolkit.errors import ConfigError, UsageError

    configured = workspace.section("gate").get("rules", [])
    if not isinstance(configured, list) or not all(isinstance(r, str) for r in configured):
        raise ConfigError(f"{workspace.config_path}: [gate] rules must be a list of strings")
    if not configured:
        raise UsageError(
            "no gate rules: pass --rule 'nDCG@10 drop <= 0.05' or set [gate] rules in toolkit.toml"
        )
    return configured
