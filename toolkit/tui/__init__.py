"""The terminal user interfaces: judging, adjudication and the organiser's progress screen (Textual).

The only package that imports Textual, and it holds Textual only. The apps are thin shells: what a key
does to a campaign lives in ``toolkit.judging.session`` (judging) and ``toolkit.judging.adjudication``, what
the organiser sees in ``toolkit.judging.progress``, and every write goes through
``toolkit.judging.store.CampaignStore``. Entry points: ``judge.judge_app``, ``adjudicate.adjudicate_app``,
``progress.ProgressApp``; the screen judging and adjudication share in ``app``, how it writes in
``writing``; keys and their remapping in ``keymap``; styles in ``app.tcss``.
"""
