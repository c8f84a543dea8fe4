"""The library's public face, re-exported lazily by ``toolkit/__init__.py`` (``toolkit.score``, ``toolkit.compare`` …).

The room sits on top, beside ``pipeline``: it joins ``formats`` (inputs of every kind, ``formats.interop``),
``scoring``, ``stats``, ``agreement``, ``judging`` and ``reports`` for a notebook, and holds no rule of its own —
every number comes from the room that computes it for the command line too. Modules:

- ``files``: ``read_run``, ``read_qrels``, ``read_topics``, ``write_run``, ``write_qrels``;
- ``inputs``: naming in-memory runs (``names=``, a dict of runs, ranx names) and judgments of every kind;
- ``evaluation``: ``score`` (a tidy DataFrame), ``compare``, ``agree``;
- ``results``: ``ComparisonResult`` and ``AgreementResult`` with ``to_dataframe``/``to_markdown``/``to_html``/
  ``to_json``/``_repr_html_``, rendered by ``toolkit.reports``;
- ``campaign``: ``Campaign.open(location)`` with ``judgments()`` and ``log()`` as DataFrames.

Nothing is imported here, so ``import toolkit`` stays instant; pandas is imported by the functions that build
a DataFrame. docs/python-api.md is the reference.
"""
