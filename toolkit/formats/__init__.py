"""Read and write the toolkit's file formats: TREC runs and qrels, topic sets, sidecar manifests.

Only reading and writing lives here; what the data means lives in the pipeline stages.
"""

from toolkit.formats.manifest import manifest_path, read_manifest, versions, write_manifest
from toolkit.formats.qrels import read_qrels, write_qrels
from toolkit.formats.run import read_run, write_run
from toolkit.formats.topics import read_topics

__all__ = [
    "manifest_path",
    "read_manifest",
    "read_qrels",
    "read_run",
    "read_topics",
    "versions",
    "write_manifest",
    "write_qrels",
    "write_run",
]
