"""``trec-toolkit trec_eval``: trec_eval 10's command line and output, byte for byte (``toolkit.treceval``)."""

from __future__ import annotations

import click


class VerbatimCommand(click.Command):
    """Hands every argument to trec_eval's own option parser untouched (click would eat a ``--``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.params["argv"] = tuple(args)
        return []


@click.command(cls=VerbatimCommand, add_help_option=False, options_metavar="[OPTIONS] QRELS RUN")
@click.pass_context
def command(ctx: click.Context, argv: tuple[str, ...]) -> None:
    """Drop-in trec_eval 10: trec_eval QRELS RUN with its options, its measures and its exact output.

    \b
    Options (as trec_eval's, values attached or separate, in any order):
      -q            also print every topic's values
      -c            average over every qrels topic; one missing from the run scores 0
      -n            no summary ("all") lines
      -J            only judged docs count (unjudged ones are dropped first)
      -l N          grade >= N is relevant (default 1)
      -M N          only the top N docs of each topic count
      -N N          collection size (for utility)
      -m MEASURE    add a measure or nickname, with parameters after a dot; repeatable:
                    official (default), all_trec, set, P.5,10, ndcg_cut.10, ndcg.1=3,2=9, rbp.p=0.8
      -D 0.TOPIC    evaluate that topic only
      -v            print the version
    RUN is read from standard input when it starts with '-' ('-', or '-x' after '--'), as
    trec_eval reads it; QRELS '-' is a file named '-'. Either file may be gzipped.

    \b
    Examples:
      trec-toolkit trec_eval qrels/stdlib.qrels runs/bm25.run
      trec-toolkit trec_eval -q -c -m all_trec qrels.test results.test
      trec-toolkit trec_eval -m P.5,10 -m ndcg_cut.10 -m recip_rank qrels.test - < run.txt

    Exit codes are trec_eval's (1 usage, 2 unreadable file or bad measure parameters, 4 a topic it cannot
    evaluate). Differences from trec_eval and from `score`: docs/trec_eval.md.
    """
    from toolkit.reports.trec_eval import render_trec_eval
    from toolkit.treceval import TREC_EVAL_VERSION, parse_options, trec_eval

    options = parse_options(list(argv))
    if options.version:
        from toolkit import __version__

        click.echo(f"trec_eval version {TREC_EVAL_VERSION} (trec-toolkit {__version__} drop-in)", err=True)
        return
    if options.help:
        click.echo(ctx.get_help())
        return
    result = trec_eval(options)
    click.echo(render_trec_eval(result.lines), nl=False)
    if result.error is not None:
        raise result.error
