"""Counts the database keeps for the organiser's report as the campaign changes (schema version 7).

Why: the organiser's screen refreshes its report every 2 s. With the decisions in force kept
(``toolkit.judging.sql.decisions``), a report still looked each of them up by its assignment and grouped
them by assessor and topic (342,302 stacks: about 1.3 s of a 3 s report on SQLite), and grouped the whole log
into session windows (0.6 s on SQLite, 1.5 s on PostgreSQL, which parses every event's time). Two tables hold
those results instead, so a report reads a row per assessor and topic and a row per window:

- ``queue_counts``, per (assessor, topic): their assigned items, and of those how many have ``judge``,
  ``skip`` and ``unrateable`` on top of the stack, and the reading time of the settling ones
  (``queue``). The queue's stale rule (a decision made on an older text of a stale item is ``todo`` again)
  is not kept: stale items are few, and the report takes them off at read time
  (``toolkit.judging.sql.readmodels``);
- ``session_windows``, per (assessor, window of ``WINDOW_S`` seconds of log time, block of ``BLOCK`` event
  ids): the first and last event id, the decisions and their reading time (``windows``) — adjudications are
  not judging.

How they stay right: ``queue`` and ``windows`` say each rule once, as SQL over the tables they summarise;
the migration to 7 fills the tables with them, and a read of a campaign not migrated uses them in place of the
tables. Triggers keep the tables as rows come and go — on ``decisions_in_force`` (every change of a stack,
whichever trigger or restore made it), on ``assignments`` (an item given or taken back) and on the log (a
window) — each adding what the new row brings and taking off what the old one brought, so the order in which
two connections' changes land does not matter. The tables are derived: never dumped, hashed or copied (a copy
rebuilds them through the triggers). On PostgreSQL the trigger functions are ``SECURITY DEFINER`` and name
every table with the campaign's schema (as ``toolkit.judging.sql.decisions``'s); an assessor's role has no
write grant on either table and reads only its own rows (``readers`` ``OWN``). ``tests/judging/
test_readmodels.py`` holds both tables to ``queue`` and ``windows`` and the report to a replay of the log.
"""

from __future__ import annotations

from toolkit.judging.records import DECISIONS
from toolkit.judging.sql.dialect import Dialect
from toolkit.judging.sql.tables import listed, table

QUEUE = table("queue_counts")
WINDOWS = table("session_windows")
#: The schema version that brought them.
SINCE = QUEUE.since

#: A pause longer than this between two of an assessor's log events starts a new session (30 min).
SESSION_GAP_S = 30 * 60
#: The windows kept: shorter than the gap, so no session ends inside one (``toolkit.judging.progress``).
WINDOW_S = SESSION_GAP_S - 1

#: Event ids per row of a window: a window's row is updated by each of its events, and PostgreSQL keeps every
#: version of a row a transaction updates until it ends, looking through them all on the next update — so
#: one row for a bulk import's 171,000 events of one assessor (one window of log time) cost it quadratic
#: time (20,000 updates of one row: 13.5 s). A row per block of ids bounds that to ``BLOCK`` versions.
BLOCK = 256

#: Decisions that settle an item (``toolkit.judging.queue.SETTLED``: a skip does not).
SETTLING = ("judge", "unrateable")
#: The top of the stack counted, and the column that counts it.
COUNTED = {"judge": "judged", "skip": "skipped", "unrateable": "unrateable"}

_ITEM = ("assessor", "query_id", "doc_id")


def stack_brings(row: str) -> dict[str, str]:
    """What the stack ``row`` (a row of the decisions in force, or NULLs) adds to its assessor's topic."""
    out = {
        column: f"CASE WHEN {row}.top_action = '{action}' THEN 1 ELSE 0 END"
        for action, column in COUNTED.items()
    }
    out["settled_ms"] = (
        f"CASE WHEN {row}.top_action IN ({listed(SETTLING)}) THEN COALESCE({row}.top_ms, 0) ELSE 0 END"
    )
    return out


def queue(decisions: str = "decisions_in_force", *, schema: str = "") -> str:
    """SELECT the rows of ``queue_counts`` from the assignments and ``decisions`` (the table of the
    decisions in force, or its derivation): every assigned item counts, and what its stack has on top."""
    sums = ", ".join(f"SUM({expression}) AS {column}" for column, expression in stack_brings("d").items())
    on = " AND ".join(f"d.{c} = a.{c}" for c in _ITEM)
    return (
        f"SELECT a.assessor, a.query_id, COUNT(*) AS assigned, {sums} FROM {schema}assignments a "
        f"LEFT JOIN {decisions} d ON {on} GROUP BY a.assessor, a.query_id"
    )


def bucket(dialect: Dialect, time: str, event_id: str, width: str) -> str:
    """The window of an event: its time's seconds over ``width``, or, for a time the database cannot read
    (SQLite's NULL), a window of its own (``-id``)."""
    return f"COALESCE(CAST({dialect.seconds.format(time)} / {width} AS INTEGER), -{event_id})"


#: PostgreSQL's kept window of an event (``bucket`` of ``WINDOW_S``), as a function that never raises: a
#: cast of an unreadable time raises there, and a trigger that raised would refuse the append (SQLite's
#: ``julianday`` says NULL instead).
WINDOW_FUNCTION = "session_window"


def postgresql_window_function() -> str:
    """PostgreSQL's kept window of an event (``{schema}`` placeholder: ``security.compose`` fills it)."""
    from toolkit.judging.sql.dialect import POSTGRESQL

    return (
        f"CREATE FUNCTION {{schema}}.{WINDOW_FUNCTION}(p_time text, p_id bigint) RETURNS bigint "
        "LANGUAGE plpgsql STABLE AS $$\nBEGIN\n"
        f"    RETURN {bucket(POSTGRESQL, 'p_time', 'p_id', str(WINDOW_S))};\n"
        "EXCEPTION WHEN data_exception THEN\n"
        "    RETURN -p_id;\nEND $$;\n"
    )


def kept_bucket(dialect: Dialect, time: str, event_id: str, *, schema: str = "") -> str:
    """The window ``session_windows`` keeps an event in."""
    if dialect.name == "postgresql":
        return f"{schema}{WINDOW_FUNCTION}({time}, {event_id})"
    return bucket(dialect, time, event_id, str(WINDOW_S))


def _decided(action: str, value: str) -> str:
    return f"CASE WHEN {action} IN ({listed(DECISIONS)}) THEN {value} ELSE 0 END"


def windows(dialect: Dialect, width: str | None = None, *, schema: str = "") -> str:
    """SELECT the rows of ``session_windows`` from the log (``width``: windows of that many seconds, a
    literal or a parameter mark, instead of the kept ones): per assessor and window, the first and last event
    id, the decisions and their reading time."""
    window = (
        kept_bucket(dialect, "time", "id", schema=schema)
        if width is None
        else bucket(dialect, "time", "id", width)
    )
    return (
        f"SELECT assessor, {window} AS bucket, id / {BLOCK} AS block, MIN(id) AS first_id, "
        f"MAX(id) AS last_id, SUM({_decided('action', '1')}) AS decisions, "
        f"SUM({_decided('action', 'COALESCE(duration_ms, 0)')}) AS ms "
        f"FROM {schema}judgment_log WHERE action <> 'adjudicate' GROUP BY assessor, bucket, block"
    )


def build(dialect: Dialect, *, schema: str = "") -> list[str]:
    """Fill the (empty) tables from the campaign: the migration's step."""
    return [
        f"INSERT INTO {schema}{QUEUE.name} ({', '.join(QUEUE.names(dumped=False))}) "
        f"{queue(f'{schema}decisions_in_force', schema=schema)}",
        f"INSERT INTO {schema}{WINDOWS.name} ({', '.join(WINDOWS.names(dumped=False))}) "
        f"{windows(dialect, schema=schema)}",
    ]


# ---------------------------------------------------------------------------------------------- the triggers


def _assigned(row: str, schema: str) -> str:
    same = " AND ".join(f"a.{c} = {row}.{c}" for c in _ITEM)
    return f"EXISTS (SELECT 1 FROM {schema}assignments a WHERE {same})"


def _topic(row: str) -> str:
    return f"assessor = {row}.assessor AND query_id = {row}.query_id"


def _stack_moves(row: str, sign: str, schema: str) -> str:
    """Add (``+``) or take off (``-``) what the stack ``row`` brings to its topic, if the item is assigned."""
    sets = ", ".join(f"{c} = {c} {sign} {e}" for c, e in stack_brings(row).items())
    return f"UPDATE {schema}{QUEUE.name} SET {sets} WHERE {_topic(row)} AND {_assigned(row, schema)}"


def _stack_changes(schema: str) -> str:
    """A stack's top changed (the key did not): what ``NEW`` brings instead of what ``OLD`` brought, in one
    statement (two cost an append about twice as much)."""
    old, new = stack_brings("OLD"), stack_brings("NEW")
    sets = ", ".join(f"{c} = {c} - {old[c]} + {new[c]}" for c in new)
    return f"UPDATE {schema}{QUEUE.name} SET {sets} WHERE {_topic('NEW')} AND {_assigned('NEW', schema)}"


def _given(row: str, schema: str) -> str:
    """The item ``row`` of the assignments was given: one more assigned, and what its stack brings."""
    columns = QUEUE.names(dumped=False)
    brings = stack_brings("d")
    on = " AND ".join(f"d.{c} = {row}.{c}" for c in _ITEM)
    values = ", ".join([f"{row}.assessor", f"{row}.query_id", "1", *brings.values()])
    sets = ", ".join(f"{c} = {QUEUE.name}.{c} + excluded.{c}" for c in columns[2:])
    return (
        f"INSERT INTO {schema}{QUEUE.name} ({', '.join(columns)}) SELECT {values} FROM (SELECT 1 AS one) o "
        f"LEFT JOIN {schema}decisions_in_force d ON {on} WHERE true "
        f"ON CONFLICT (assessor, query_id) DO UPDATE SET {sets}"
    )


def _taken(row: str, schema: str) -> list[str]:
    """The item ``row`` of the assignments was taken back: one less assigned, and what its stack brought (a
    topic with nothing assigned left has no row)."""
    on = " AND ".join(f"d.{c} = {row}.{c}" for c in _ITEM)
    sets = ", ".join(
        [
            "assigned = assigned - 1",
            *(
                f"{c} = {c} - COALESCE((SELECT {e} FROM {schema}decisions_in_force d WHERE {on}), 0)"
                for c, e in stack_brings("d").items()
            ),
        ]
    )
    return [
        f"UPDATE {schema}{QUEUE.name} SET {sets} WHERE {_topic(row)}",
        f"DELETE FROM {schema}{QUEUE.name} WHERE {_topic(row)} AND assigned <= 0",
    ]


def _window(dialect: Dialect, schema: str) -> str:
    """The appended event ``NEW`` joins its assessor's window (or opens it)."""
    columns = WINDOWS.names(dumped=False)
    values = [
        "NEW.assessor",
        kept_bucket(dialect, "NEW.time", "NEW.id", schema=schema),
        f"NEW.id / {BLOCK}",
        "NEW.id",
        "NEW.id",
        _decided("NEW.action", "1"),
        _decided("NEW.action", "COALESCE(NEW.duration_ms, 0)"),
    ]
    t = WINDOWS.name
    return (
        f"INSERT INTO {schema}{t} ({', '.join(columns)}) VALUES ({', '.join(values)}) "
        f"ON CONFLICT ({', '.join(WINDOWS.key)}) DO UPDATE SET "
        f"first_id = CASE WHEN excluded.first_id < {t}.first_id THEN excluded.first_id ELSE {t}.first_id END, "
        f"last_id = CASE WHEN excluded.last_id > {t}.last_id THEN excluded.last_id ELSE {t}.last_id END, "
        f"decisions = {t}.decisions + excluded.decisions, ms = {t}.ms + excluded.ms"
    )


#: The trigger names (SQLite's; on PostgreSQL the first three are also their functions' names).
STACKS, ASSIGNED, WINDOWED = "decisions_in_force_counts", "assignments_counts", "judgment_log_windows"
SQLITE_TRIGGERS = tuple(
    f"{name}_{op}"
    for name, ops in (
        (STACKS, ("insert", "update", "move", "delete")),
        (ASSIGNED, ("insert", "update", "delete")),
    )
    for op in ops
) + (WINDOWED,)

#: A change of a stack's top that may change what it brings (a note alone does not), and a change of its key
#: (none of the toolkit's: a row written by hand).
_CHANGED = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in ("top_action", "top_ms"))
_KEY_MOVED = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in _ITEM)


def sqlite_triggers() -> list[str]:
    from toolkit.judging.sql.dialect import SQLITE

    def trigger(name: str, when: str, statements: list[str]) -> str:
        return f"CREATE TRIGGER {name} AFTER {when} BEGIN {''.join(f'{s}; ' for s in statements)}END"

    d, a = "decisions_in_force", "assignments"
    return [
        trigger(f"{STACKS}_insert", f"INSERT ON {d}", [_stack_moves("NEW", "+", "")]),
        trigger(
            f"{STACKS}_update",
            f"UPDATE ON {d} WHEN NOT ({_KEY_MOVED}) AND ({_CHANGED})",
            [_stack_changes("")],
        ),
        trigger(
            f"{STACKS}_move",
            f"UPDATE ON {d} WHEN {_KEY_MOVED}",
            [_stack_moves("OLD", "-", ""), _stack_moves("NEW", "+", "")],
        ),
        trigger(f"{STACKS}_delete", f"DELETE ON {d}", [_stack_moves("OLD", "-", "")]),
        trigger(f"{ASSIGNED}_insert", f"INSERT ON {a}", [_given("NEW", "")]),
        trigger(
            f"{ASSIGNED}_update", f"UPDATE ON {a} WHEN {_KEY_MOVED}", [*_taken("OLD", ""), _given("NEW", "")]
        ),
        trigger(f"{ASSIGNED}_delete", f"DELETE ON {a}", _taken("OLD", "")),
        trigger(WINDOWED, "INSERT ON judgment_log WHEN NEW.action <> 'adjudicate'", [_window(SQLITE, "")]),
    ]


def postgresql_triggers() -> str:
    """The triggers and their functions (``{schema}`` placeholders: ``security.compose`` fills them)."""
    from toolkit.judging.sql.dialect import POSTGRESQL

    schema = "{schema}."
    changed = _CHANGED.replace(" IS NOT ", " IS DISTINCT FROM ")
    key_moved = _KEY_MOVED.replace(" IS NOT ", " IS DISTINCT FROM ")

    def function(name: str, body: str) -> str:
        return (
            f"CREATE FUNCTION {schema}{name}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$\n"
            f"BEGIN\n{body}    RETURN NULL;\nEND $$;\n"
        )

    def lines(statements: list[str], indent: str = "        ") -> str:
        return "".join(f"{indent}{s};\n" for s in statements)

    stacks = (
        "    IF TG_OP = 'UPDATE' AND NOT (" + key_moved + ") THEN\n"
        "        IF " + changed + " THEN\n" + lines([_stack_changes(schema)], " " * 12) + "        END IF;\n"
        "        RETURN NULL;\n"
        "    END IF;\n"
        "    IF TG_OP <> 'INSERT' THEN\n" + lines([_stack_moves("OLD", "-", schema)]) + "    END IF;\n"
        "    IF TG_OP <> 'DELETE' THEN\n" + lines([_stack_moves("NEW", "+", schema)]) + "    END IF;\n"
    )
    assigned = (
        "    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND ("
        + key_moved
        + ")) THEN\n"
        + lines(_taken("OLD", schema))
        + "    END IF;\n"
        "    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND ("
        + key_moved
        + ")) THEN\n"
        + lines([_given("NEW", schema)])
        + "    END IF;\n"
    )
    windowed = (
        "    IF NEW.action <> 'adjudicate' THEN\n" + lines([_window(POSTGRESQL, schema)]) + "    END IF;\n"
    )
    return (
        function(STACKS, stacks)
        + f"CREATE TRIGGER {STACKS} AFTER INSERT OR UPDATE OR DELETE ON decisions_in_force "
        f"FOR EACH ROW EXECUTE FUNCTION {schema}{STACKS}();\n"
        + function(ASSIGNED, assigned)
        + f"CREATE TRIGGER {ASSIGNED} AFTER INSERT OR UPDATE OR DELETE ON assignments "
        f"FOR EACH ROW EXECUTE FUNCTION {schema}{ASSIGNED}();\n"
        + function(WINDOWED, windowed)
        + f"CREATE TRIGGER {WINDOWED} AFTER INSERT ON judgment_log FOR EACH ROW EXECUTE FUNCTION {schema}{WINDOWED}();\n"
    )
