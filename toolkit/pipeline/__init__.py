"""The pipeline: the library's room for what runs the stages together (docs/design.md §4, §9).

The stages (``systems``, ``truth``, ``pooling``, ``scoring``, ``stats``) each do one thing on the objects they
are given; ``toolkit.workspace`` resolves what a command is given (topic set, settings, covered docs, paths).
This room holds what joins them, so that a command-line command and the Python API do the same:

* ``runs`` — which system, which settings, where its run goes, its pre-flight check, when a run is reused
  (``run`` and ``audit``);
* ``failures`` — the run-failure policy: which topics failed, the warning, the error, no reuse;
* ``pilot`` — the pilot-run policy: which runs are pilots, who refuses them (``audit``, ``gate``);
* ``truth`` — regex truth over the covered docs, written with its manifest (``truth`` and ``audit``);
* ``export`` — a campaign's qrels with the manifest that pins them down (log position, agreement), which
  joins ``judging`` and ``agreement`` (``export``);
* ``audit`` — the whole pipeline from ``toolkit.toml`` to the written audit.

It sits above every stage and above ``reports`` (the audit is written through the renderer); only the CLI
sits above it. Import the module you need (``from toolkit.pipeline.audit import run_audit``): importing the
package itself loads nothing, so a quick command never pays for the statistics.
"""
