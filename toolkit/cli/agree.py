"""``trec-toolkit agree``: inter-assessor agreement of a campaign or a judgments TSV."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import CAMPAIGN, emit, report_options, resamples_option, seed_option
from toolkit.errors import ToolkitError, UsageError


def parse_labels(text: str | None) -> list[int] | None:
    """``0,1,2,3`` → [0, 1, 2, 3]; the order given does not matter, repeats are an error."""
    if text is None:
        return None
    from toolkit.formats.numbers import NumberError, NumberRangeError, grade_hint, parse_grade

    labels = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            labels.append(parse_grade(part))
        except NumberRangeError as exc:
            raise UsageError(f"--labels {text!r}: {part!r} is {exc.reason}") from None
        except NumberError:
            raise UsageError(
                f"--labels {text!r}: {part!r} is not an integer grade{grade_hint(part)}; expected comma-separated "
                "integer grades, e.g. 0,1,2,3"
            ) from None
    if not labels:
        raise UsageError("--labels is empty: expected comma-separated integer grades, e.g. 0,1,2,3")
    if len(set(labels)) != len(labels):
        raise UsageError(f"--labels {text!r} repeats a grade; list each grade once")
    return sorted(labels)


@click.command()
@click.argument("source", type=CAMPAIGN)
@click.option(
    "--labels",
    "labels_text",
    default=None,
    metavar="0,1,2,3",
    help="The full label set (default: the campaign's grade scale, else 0..max grade seen).",
)
@seed_option(42, "Seed of the topic bootstrap.")
@resamples_option("--bootstrap", 2000, "Topic resamples for the bootstrap CI of kappa (0 = none).")
@click.option("--include-gold", is_flag=True, help="Count judgments on gold items too (campaigns only).")
@report_options()
def command(
    source: str | Path,
    labels_text: str | None,
    fmt: str,
    seed: int,
    bootstrap: int,
    include_gold: bool,
    output: Path | None,
) -> None:
    """Inter-assessor agreement: Cohen's kappa per pair, Fleiss' kappa, Krippendorff's alpha.

    SOURCE is a campaign (.sqlite) or a judgments TSV: assessor<TAB>query_id<TAB>doc_id<TAB>grade
    (header optional, # comments). Only graded judgments count: skips, unrateables and gold items do not.
    Every statistic uses the full label set; an undefined value is shown with its reason.

    \b
    Examples:
      trec-toolkit agree judging/stdlib.sqlite
      trec-toolkit agree judgments.tsv --labels 0,1,2,3 --format json -o agreement.json
    """
    from toolkit.agreement import agree, load_judgments, read_judgments_tsv
    from toolkit.agreement.judgments import is_campaign
    from toolkit.reports import render

    labels = parse_labels(labels_text)
    if is_campaign(source):
        loaded = load_judgments(source, include_gold=include_gold)
    else:
        loaded = read_judgments_tsv(source, labels=labels)
    if labels is None and loaded.labels is not None:
        labels = list(loaded.labels)
    result = agree(loaded.ratings, labels=labels, seed=seed, bootstrap=bootstrap)
    if result.nothing_to_compare:
        raise ToolkitError(
            f"{source}: nothing to compare: {result.nothing_to_compare}; agreement needs items that two or "
            "more assessors graded (give them an overlap: `trec-toolkit assign --overlap …`)"
        )
    emit(render(result, fmt), output)
