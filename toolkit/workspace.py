"""The workspace (docs/design.md §3): ``toolkit.toml`` plus the ``topics/ runs/ qrels/ judging/`` folders.

Every command resolves its settings here, once and the same way: the evaluation settings that ``score``,
``compare``, ``gate`` and ``audit`` share (the topic set — ``--topics`` else ``[workspace] topics`` —, the
measures and the primary measure: ``Workspace.evaluation``), the run settings (one precedence and one table of defaults: the command line, then
the system's ``[systems.NAME]`` table, then ``[workspace]``, then ``RUN_DEFAULTS``), the doc ids regex truth
covers (runs, an id list, ``[docs] ids``), the doc source and the systems — and paths are recorded relative
to the workspace, so a manifest or an audit reads the same on every checkout.

Each stage still parses its own section (``[systems]`` in ``toolkit.systems``, ``[docs] ids`` in
``toolkit.truth``, ``[docs]`` in ``toolkit.pooling``, ``[gate]`` in the gate): this module hands them the
table, the root and the file name for their errors, and imports them only inside the methods that need them.
"""

from __future__ import annotations

import dataclasses
import os
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from toolkit.errors import ConfigError, UsageError
from toolkit.formats.structured import loads_toml
from toolkit.formats.textfile import read_text

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

    from toolkit.model import Run, TopicSet
    from toolkit.pooling.docsource import DocSource
    from toolkit.systems.base import System

CONFIG_NAME = "toolkit.toml"

#: The defaults of the settings a run takes, used when neither the command line, nor the system's
#: ``[systems.NAME]`` table, nor ``[workspace]`` sets them. ``depth`` is also the pool depth.
RUN_DEFAULTS: dict[str, int | float] = {
    "depth": 10,
    "workers": min(4, os.cpu_count() or 1),
    "timeout": 30.0,
    "retries": 0,
}


@dataclass(frozen=True)
class RunSettings:
    """The resolved settings of one run (see ``Workspace.run_settings``)."""

    depth: int
    workers: int
    timeout: float
    retries: int


#: Keys that once lived in ``[audit]`` and moved to ``[workspace]`` because every command that evaluates reads
#: them; the old place is still read, with a deprecation warning.
MOVED_TO_WORKSPACE = ("measures", "primary")


@dataclass(frozen=True)
class EvaluationSettings:
    """What ``score``, ``compare``, ``gate`` and ``audit`` evaluate with, resolved once (``Workspace.evaluation``).

    ``topics`` is None when neither ``--topics`` nor ``[workspace] topics`` names a topic set (the qrels'
    topics then count); ``measures`` None means the topic set's class measures, else the defaults; ``primary``
    None means the library's default primary measure.
    """

    topics: TopicSet | None
    measures: str | tuple[str, ...] | None
    primary: str | None

    def measure_list(self) -> tuple[Measure, ...]:
        """The measures to compute: ``measures`` parsed (else the topic set's class measures, else the
        defaults), with a declared ``primary`` put first when it is not among them, as ``compare`` does."""
        from toolkit.scoring import resolve_measures
        from toolkit.scoring.measures import parse_measure

        measures = resolve_measures(self.measures, self.topics)
        if self.primary is None:
            return measures
        primary = parse_measure(self.primary)
        return measures if primary in measures else (primary, *measures)

    def primary_name(self) -> str | None:
        """The declared primary measure's canonical name (``R-Prec`` → ``Rprec``), as reports print it."""
        from toolkit.scoring.measures import parse_measure

        return None if self.primary is None else str(parse_measure(self.primary))


@dataclass(frozen=True)
class Coverage:
    """The doc ids regex truth is applied to, and where the corpus part came from (for the manifest)."""

    doc_ids: frozenset[str]
    details: dict[str, str]


@dataclass(frozen=True)
class Workspace:
    """A folder with an optional ``toolkit.toml``; paths in the config are relative to the folder."""

    root: Path
    config_path: Path | None = None
    config: dict[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> dict[str, Any]:
        value = self.config.get(name, {})
        if not isinstance(value, dict):
            raise ConfigError(f"{self.where}: [{name}] must be a table")
        return value

    def path(self, relative: str | Path) -> Path:
        p = Path(relative)
        return p if p.is_absolute() else self.root / p

    def relative(self, path: str | Path) -> str:
        """``path`` as recorded in manifests and reports: relative to the workspace when inside it."""
        try:
            return str(Path(path).resolve().relative_to(self.root.resolve()))
        except ValueError:
            return str(path)

    @property
    def where(self) -> str:
        """How errors name the config: its path, else ``toolkit.toml``."""
        return str(self.config_path or CONFIG_NAME)

    @property
    def settings(self) -> dict[str, Any]:
        """The ``[workspace]`` table: default topics, measures, depth, baseline."""
        return self.section("workspace")

    @property
    def default_topics(self) -> Path | str | None:
        """``[workspace] topics``: a path under the root, or an ``ir_datasets:DATASET_ID`` source as written."""
        from toolkit.formats.irds import is_irds

        topics = self.settings.get("topics")
        if not topics:
            return None
        return str(topics) if is_irds(topics) else self.path(topics)

    @property
    def runs_dir(self) -> Path:
        return self.path(self.settings.get("runs", "runs"))

    @property
    def qrels_dir(self) -> Path:
        return self.path(self.settings.get("qrels", "qrels"))

    @property
    def judging_dir(self) -> Path:
        return self.path(self.settings.get("judging", "judging"))

    def setting(self, key: str, given: Any = None, *, system: Mapping[str, Any] | None = None) -> Any:
        """One run setting: ``given`` (the command line), else the system's table, else ``[workspace]``,
        else ``RUN_DEFAULTS``."""
        if given is not None:
            return given
        if system and key in system:
            return system[key]
        return self.settings.get(key, RUN_DEFAULTS[key])

    def run_settings(self, system: Mapping[str, Any] | None = None, **given: Any) -> RunSettings:
        """Every run setting resolved by ``setting``; ``given`` holds the command line's values (None = unset)."""
        unknown = set(given) - set(RUN_DEFAULTS)
        if unknown:
            raise TypeError(f"unknown run setting(s) {sorted(unknown)}")
        values: dict[str, int | float] = {}
        for key in RUN_DEFAULTS:
            value = self.setting(key, given.get(key), system=system)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"{self.where}: [workspace] {key} must be a number, not {value!r}")
            values[key] = value
        return RunSettings(
            depth=int(values["depth"]),
            workers=int(values["workers"]),
            timeout=float(values["timeout"]),
            retries=int(values["retries"]),
        )

    def topics(self, path: str | Path | None = None) -> TopicSet:
        """The topic set ``path`` (else ``[workspace] topics``), its path recorded relative to the workspace.

        An ``ir_datasets:DATASET_ID`` source is not a file: it is neither looked up under the root nor made
        relative, and is recorded as written.
        """
        from toolkit.formats.irds import is_irds
        from toolkit.formats.topics import read_topics

        topic_file = path or self.default_topics
        if topic_file is None:
            raise UsageError("no topic set: pass --topics PATH or set [workspace] topics in toolkit.toml")
        if is_irds(topic_file):
            return dataclasses.replace(read_topics(str(topic_file)), path=str(topic_file))
        return dataclasses.replace(read_topics(topic_file), path=self.relative(topic_file))

    def evaluation(
        self,
        *,
        topics: str | Path | None = None,
        measures: str | Sequence[str] | None = None,
        primary: str | None = None,
    ) -> EvaluationSettings:
        """The evaluation settings every command shares: each given value (the command line) wins, else the
        workspace's ``[workspace] topics``, ``measures`` and ``primary``.

        An explicit ``topics`` path is read as given; the workspace's is recorded relative to the workspace.
        """
        from toolkit.formats.topics import read_topics

        if topics is not None:
            topic_set = read_topics(topics)
        elif self.default_topics is not None:
            topic_set = self.topics()
        else:
            topic_set = None
        chosen = measures if measures else self.shared_setting("measures")
        return EvaluationSettings(
            topics=topic_set,
            measures=chosen if chosen is None or isinstance(chosen, str) else tuple(chosen),
            primary=primary or self.shared_setting("primary"),
        )

    def shared_setting(self, key: str) -> Any:
        """``[workspace] KEY`` of ``MOVED_TO_WORKSPACE``, else the deprecated ``[audit] KEY`` (with a warning);
        checked for its type and, for measures, for names the toolkit knows."""
        from toolkit.errors import ToolkitWarning

        value = self.settings.get(key)
        where = f"[workspace] {key}"
        old = self.section("audit").get(key)
        if old is not None:
            if value is not None and old != value:
                raise ConfigError(
                    f"{self.where}: [audit] {key} = {old!r} and [workspace] {key} = {value!r} disagree; "
                    f"keep only [workspace] {key}"
                )
            warnings.warn(
                f"{self.where}: [audit] {key} is deprecated: move it to [workspace] {key}, which score, compare, "
                "gate and audit all read",
                ToolkitWarning,
                stacklevel=3,
            )
            value, where = old, f"[audit] {key}"
        if value is None:
            return None
        if key == "primary":
            if not isinstance(value, str):
                raise ConfigError(f'{self.where}: {where} must be one measure name, e.g. "RR@10"')
            self._check_measures(where, [value])
            return value
        names = value.split() if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise ConfigError(
                f'{self.where}: {where} must be a list of measure names, e.g. ["RR@10", "nDCG@10"]'
            )
        self._check_measures(where, names)
        return value

    def _check_measures(self, where: str, names: Sequence[str]) -> None:
        from toolkit.errors import ToolkitError
        from toolkit.scoring.measures import parse_measures

        try:
            parse_measures(list(names))
        except ToolkitError as exc:
            raise ConfigError(f"{self.where}: {where}: {exc}") from None

    def systems(self) -> dict[str, System]:
        """Every ``[systems.NAME]`` of the workspace, validated."""
        from toolkit.systems.config import load_systems

        return load_systems(self.section("systems"), root=self.root, where=self.where)

    def corpus_ids(self) -> tuple[list[str], str] | None:
        """The whole corpus's doc ids from ``[docs] ids`` and where they came from; None when not declared."""
        from toolkit.truth import corpus_ids

        return corpus_ids(self.section("docs"), self.root, where=self.where)

    def covered_doc_ids(
        self,
        runs: Sequence[Run] = (),
        doc_ids: Iterable[str] = (),
        *,
        corpus: tuple[list[str], str] | None = None,
    ) -> Coverage:
        """The docs regex truth covers: every doc of ``runs``, the ``doc_ids`` given, and ``corpus`` (the
        ``[docs] ids`` list from ``corpus_ids``, when the caller uses it)."""
        covered: set[str] = set(doc_ids)
        for run in runs:
            for docs in run.results.values():
                covered.update(docs)
        details: dict[str, str] = {}
        if corpus is not None:
            covered.update(corpus[0])
            details["doc_ids_from"] = f"[docs] ids: {corpus[1]}"
        return Coverage(frozenset(covered), details)

    @overload
    def doc_source(
        self, spec: str | Path | None = None, *, required: Literal[True], workers: int | None = None
    ) -> DocSource: ...
    @overload
    def doc_source(
        self, spec: str | Path | None = None, *, required: bool = False, workers: int | None = None
    ) -> DocSource | None: ...
    def doc_source(
        self, spec: str | Path | None = None, *, required: bool = False, workers: int | None = None
    ) -> DocSource | None:
        """``--docs SOURCE`` when given, else the ``[docs]`` table; None when neither names one (an error when
        ``required``). A command source fetches ``workers`` documents (or batches) at once: the given
        value, else the ``workers`` run setting."""
        from toolkit.pooling.docsource import doc_source_from_config, doc_source_from_option

        if spec is not None:
            return doc_source_from_option(spec)
        count = int(self.setting("workers", workers))
        source = doc_source_from_config(self.section("docs"), self.root, where=self.where, workers=count)
        if source is None and required:
            raise UsageError(
                'no doc source: pass --docs FILE.jsonl|FILE.tsv|DIR, or set [docs] command = [..., "{doc_id}"] '
                "in toolkit.toml"
            )
        return source


def load_workspace(config: str | Path | None = None, *, start: str | Path | None = None) -> Workspace:
    """Load ``toolkit.toml`` from ``config`` or the nearest one at/above ``start`` (cwd); none is fine."""
    if config is not None:
        path = Path(config)
        if not path.is_file():
            raise ConfigError(
                f"{path}: config file not found; pass --config PATH to an existing toolkit.toml"
            )
    else:
        here = Path(start or Path.cwd()).resolve()
        path = next((d / CONFIG_NAME for d in (here, *here.parents) if (d / CONFIG_NAME).is_file()), None)  # type: ignore[assignment]
        if path is None:
            return Workspace(root=here)
    import tomllib  # only a workspace's toolkit.toml needs it (``score`` on bare paths does not)

    text = read_text(path)
    try:
        data = loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        where = f"{path}:{match.group(1)}" if match else str(path)
        raise ConfigError(f"{where}: invalid TOML: {exc}") from None
    return Workspace(root=path.resolve().parent, config_path=path, config=data)
