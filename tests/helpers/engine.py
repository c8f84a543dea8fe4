"""The tests' one fake search engine, a stand-alone program: ``engine.py [--engine NAME] QUERY_ID QUERY [DEPTH]``.

Every test that needs a system to run calls this program, so there is one engine to read and to change:

* **Rankings.** With ``--engine NAME`` it answers from ``rankings.json`` beside it (or ``$FAKE_RANKINGS``):
  ``{"NAME": {"QUERY_ID": ["doc", …]}}`` (a query id the engine does not list gets no results), printed as
  ``{"results": [{"doc_id": …, "score": …}]}`` with strictly decreasing scores, cut at DEPTH when given.
  Without ``--engine`` it prints DEPTH ids ``doc:QUERY_ID:RANK``, one per line (the runner's tests).
* **Failures on demand.** ``$FAKE_FAIL`` lists ``ENGINE:QUERY_ID`` (or a bare ``QUERY_ID``, any engine),
  comma separated: those calls print "search backend down" on stderr and exit 1.
* **Behaviour by the query id's prefix** (the digits stripped): ``slow`` sleeps ``$FAKE_DELAY`` seconds
  (default 0.3) first, ``crash`` writes a traceback to stderr and exits 3, ``hang`` sleeps far past any
  timeout, ``garbage`` prints text that is not an id list, ``echo`` writes its argv as JSON to
  ``$FAKE_ECHO``, ``flaky`` fails the first time per query id (state in ``$FAKE_STATE``), then answers.
* **A log.** Every call appends its query id to ``$FAKE_LOG`` when set.

Arguments after DEPTH are ignored (a test changes a system's command by adding one). The query is read by
position, never parsed as an option, so any text (``-x``, markup, newlines) is a query.
"""

import json
import os
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> None:
    engine = None
    if argv[:1] == ["--engine"]:
        engine, argv = argv[1], argv[2:]
    query_id, depth = argv[0], int(argv[2]) if len(argv) > 2 else None
    log = os.environ.get("FAKE_LOG")
    if log:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(fd, (query_id + "\n").encode())
        os.close(fd)
    failing = set(filter(None, os.environ.get("FAKE_FAIL", "").split(",")))
    if query_id in failing or f"{engine}:{query_id}" in failing:
        sys.exit("search backend down")
    behave(query_id)
    if engine is None:
        for rank in range(1, (depth or 10) + 1):
            print(f"doc:{query_id}:{rank}")
        return
    source = Path(os.environ.get("FAKE_RANKINGS") or Path(__file__).with_name("rankings.json"))
    docs = json.loads(source.read_text(encoding="utf-8"))[engine].get(query_id, [])[:depth]
    results = [{"doc_id": doc, "score": len(docs) - i} for i, doc in enumerate(docs)]
    print(json.dumps({"results": results}))


def behave(query_id: str) -> None:
    """What the query id's prefix asks for before the answer (see the module docstring)."""
    mode = query_id.rstrip("0123456789")
    if mode == "slow":
        time.sleep(float(os.environ.get("FAKE_DELAY", "0.3")))
    elif mode == "crash":
        sys.stderr.write("Traceback (most recent call last):\nRuntimeError: index corrupt\n")
        sys.exit(3)
    elif mode == "hang":
        time.sleep(30)
    elif mode == "garbage":
        sys.stdout.write("<html>500 Internal Server Error</html>\n")
        sys.exit(0)
    elif mode == "echo":
        with open(os.environ["FAKE_ECHO"], "w", encoding="utf-8") as handle:
            json.dump(sys.argv[1:], handle, ensure_ascii=False)
    elif mode == "flaky":
        state = os.path.join(os.environ["FAKE_STATE"], query_id)
        if not os.path.exists(state):
            open(state, "w").close()
            sys.stderr.write("temporary failure\n")
            sys.exit(75)


if __name__ == "__main__":
    main(sys.argv[1:])
