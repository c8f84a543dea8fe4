"""Systems: things that answer a query with a ranked list of doc ids, and the runner that makes a TREC run.

Kinds: ``command`` (an argv list, no shell), ``http`` (GET/POST JSON), ``python`` (``module:function``).
Output parsers: ``json`` (JMESPath), ``regex``, ``lines``, ``tsv``, ``trec``. ``run_system`` writes the run
with scores that keep the system's order under trec_eval's rule, and a manifest with failures and latency.
"""

from toolkit.systems.base import CallFailed, Hit, System
from toolkit.systems.command import CommandSystem, fill_argv, split_command
from toolkit.systems.config import load_systems, run_options, system_from_command, system_from_config
from toolkit.systems.http import HttpSystem
from toolkit.systems.parsers import PARSERS, Parser
from toolkit.systems.python import PythonSystem
from toolkit.systems.runner import Failure, RunResult, TopicOutcome, journal_path, run_system

__all__ = [
    "PARSERS",
    "CallFailed",
    "CommandSystem",
    "Failure",
    "Hit",
    "HttpSystem",
    "Parser",
    "PythonSystem",
    "RunResult",
    "System",
    "TopicOutcome",
    "fill_argv",
    "journal_path",
    "load_systems",
    "run_options",
    "run_system",
    "split_command",
    "system_from_command",
    "system_from_config",
]
