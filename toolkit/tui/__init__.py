"""The terminal user interfaces: judging, adjudication and the organiser's progress screen (Textual).

The only package that imports Textual. The apps are thin shells: what a key does to a campaign lives in
``session`` (judging), ``adjudication`` and ``organiser`` (no Textual there), and every write goes through
``toolkit.judging.store.CampaignStore``. Entry points: ``app.judge_app``, ``adjudicate.adjudicate_app``,
``progress.ProgressApp``; keys and their remapping in ``keymap``; styles in ``app.tcss``.
"""
