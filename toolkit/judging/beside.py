"""A read of the campaign on a connection of its own, in a thread, while the caller goes on with its own reads.

Why: the organiser's report and ``export`` each run statements that do not depend on one another (the report's
medians and pool counts beside its queue counts; export's log check and pool beside its grades). On one
connection they run one after another; on several, PostgreSQL's server runs them on every core, and SQLite's
driver lets go of the interpreter while a statement runs, so the caller's thread goes on meanwhile. One
mechanism for both, so the fallback and the error handling are said once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from toolkit.judging.store import CampaignStore

T = TypeVar("T")


def beside(store: CampaignStore, read: Callable[[CampaignStore], T]) -> Callable[[], T]:
    """Start ``read`` on a connection of the store's own campaign, in a thread; calling what is returned
    waits for it and gives what it read (or raises what it raised). Where a second connection cannot be
    opened (a campaign only this connection sees), the call reads on ``store`` instead — the same answer,
    one statement after another. What is read beside is what is committed when its statement runs, as a
    statement the caller ran after its own would read."""
    import threading

    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            other = CampaignStore.open(store.location)
        except Exception:  # no second connection: the caller reads on its own
            return
        try:
            with other:
                outcome.append((True, read(other)))
        except BaseException as exc:  # handed to the caller, who raises it
            outcome.append((False, exc))

    thread = threading.Thread(target=run, name="read beside", daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        if not outcome:
            return read(store)
        done, value = outcome[0]
        if not done:
            raise value
        return cast(T, value)

    return result
