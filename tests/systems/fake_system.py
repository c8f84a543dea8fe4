"""A fake search system for the runner's tests: ``fake_system.py QUERY_ID QUERY DEPTH``.

The query id's prefix picks the behaviour: ``ok`` (prints DEPTH ids, one per line), ``slow`` (sleeps, then ok),
``crash`` (writes to stderr, exits 3), ``hang`` (sleeps far past any timeout), ``garbage`` (prints text that
is not an id list), ``echo`` (writes its argv as JSON to $FAKE_ECHO, then prints one id), ``flaky`` (fails the
first time per query id, then ok; state in $FAKE_STATE). Every call appends its query id to $FAKE_LOG.
"""

import json
import os
import sys
import time

query_id, query, depth = sys.argv[1], sys.argv[2], int(sys.argv[3])
log = os.environ.get("FAKE_LOG")
if log:
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, (query_id + "\n").encode())
    os.close(fd)
mode = query_id.rstrip("0123456789")
delay = float(os.environ.get("FAKE_DELAY", "0.3"))
if mode == "slow":
    time.sleep(delay)
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
for rank in range(1, depth + 1):
    print(f"doc:{query_id}:{rank}")
