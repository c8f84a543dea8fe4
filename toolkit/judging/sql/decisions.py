"""The decisions in force, kept by the database as the log grows (``decisions_in_force``, schema version 6).

Why: every read model starts from the decision in force per (assessor, topic, doc) — the top of the stack, the
assessor's decision, their adjudication, their latest note (``toolkit.judging.log``). Deriving them grouped the
whole log on every read: on a campaign of 342,302 events that was most of ``export`` and of the organiser's
report, which refreshes every 2 s. The table holds them, one row per stack, so a read joins rows by key.

How it stays right: ``derive`` says the rule once, as SQL over the log, and everything uses it —

- **a trigger** on the log (SQLite's and a PL/pgSQL one) keeps the row of the key of every appended event, in
  the transaction that appends: the newest event of its key (every append) sets what ``APPENDED`` says (a
  decision is the new top and decision in force …), anything else — an undo, a row written by hand with an
  older id — recomputes that one key from the log with ``derive`` through the (assessor, query_id, doc_id, id)
  index. (Recomputing every append cost 52 µs an event on SQLite, a third of ``judgments import``; the upsert
  costs about 11.) An upsert changes a column only to a later event's value (``GUARDS``), so two connections
  appending to one item at once leave the later event in force whichever trigger runs last. A trigger rather than maintenance in the store's append path: the database keeps the table
  whoever writes the log — ``record_many``, a restore by ``campaign copy``, a row written in a shell — and no
  code path can forget it;
- **the migration** to version 6 builds the table of an existing campaign from its log (``build``);
- **a campaign read but not migrated** (read-only, schema older than 6) reads ``derive()`` itself in place of
  the table (``SQLReadQueries._decisions``).

The table is derived, so never dumped, hashed or copied (``Table.derived``). On PostgreSQL the trigger's
function is ``SECURITY DEFINER`` (it runs as ``trec_owner``, like ``toolkit.judging.postgres.security``'s
helpers, with every table named with the campaign's schema): an assessor's role may append to the log only
what ``campaign_may_log`` lets it, and the trigger then rewrites just the row of that event's own key; the role
itself has no write grant on the table, and reads only its own rows (the table's ``readers`` are ``OWN``, as the
log's). ``tests/judging/test_readmodels.py`` holds the table to a replay of the log.
"""

from __future__ import annotations

from toolkit.judging.records import DECISIONS
from toolkit.judging.sql.tables import listed, table

TABLE = table("decisions_in_force")
#: The schema version that brought the table.
SINCE = TABLE.since
#: The trigger that keeps it (SQLite's name and PostgreSQL's, for the trigger and its function).
TRIGGER = "judgment_log_decisions"

#: Every decision a stack of the log holds (what ``toolkit.judging.log`` replays).
STACKED = (*DECISIONS, "adjudicate")

_KEY = ("assessor", "query_id", "doc_id")


def derive(where: str = "", *, schema: str = "") -> str:
    """SELECT the table's columns from the log, one row per key (of the keys ``where`` keeps, a condition on
    ``e``, the log row): the latest event of each kind that no later undo of the same item names — an undo of
    another item's event, or of a later one, undoes nothing — and the latest note, which no undo takes back;
    then what the read models need of the top event and of the decision in force."""
    log = f"{schema}judgment_log"
    live = "u.id IS NULL"
    stacks = (
        "SELECT e.assessor, e.query_id, e.doc_id, "
        f"MAX(CASE WHEN e.action IN ({listed(STACKED)}) AND {live} THEN e.id END) AS top_id, "
        f"MAX(CASE WHEN e.action IN ({listed(DECISIONS)}) AND {live} THEN e.id END) AS decision_id, "
        f"MAX(CASE WHEN e.action = 'adjudicate' AND {live} THEN e.id END) AS adjudication_id, "
        "MAX(CASE WHEN e.action = 'note' THEN e.id END) AS note_id "
        f"FROM {log} e LEFT JOIN {log} u ON u.assessor = e.assessor AND u.query_id = e.query_id "
        "AND u.doc_id = e.doc_id AND u.id > e.id AND u.action = 'undo' AND u.undoes = e.id "
        f"{where}{' ' if where else ''}GROUP BY e.assessor, e.query_id, e.doc_id"
    )
    return (
        "SELECT k.assessor, k.query_id, k.doc_id, k.top_id, t.action AS top_action, t.duration_ms AS top_ms, "
        "t.content_hash AS top_hash, k.decision_id, v.action AS decision, v.grade AS grade, "
        "v.duration_ms AS decision_ms, k.adjudication_id, k.note_id "
        f"FROM ({stacks}) k LEFT JOIN {log} t ON t.id = k.top_id LEFT JOIN {log} v ON v.id = k.decision_id"
    )


def build(*, schema: str = "") -> str:
    """Fill the (empty) table from the whole log: the migration's step."""
    return (
        f"INSERT INTO {schema}{TABLE.name} ({', '.join(TABLE.names(dumped=False))}) {derive(schema=schema)}"
    )


def refresh(*, schema: str = "") -> list[str]:
    """The statements that recompute the row of the key of ``NEW``, the event just appended, from the log."""
    key = " AND ".join(f"{c} = NEW.{c}" for c in _KEY)
    of_new = "WHERE " + " AND ".join(f"e.{c} = NEW.{c}" for c in _KEY)
    return [
        f"DELETE FROM {schema}{TABLE.name} WHERE {key}",
        f"INSERT INTO {schema}{TABLE.name} ({', '.join(TABLE.names(dumped=False))}) "
        f"{derive(of_new, schema=schema)}",
    ]


def _later(schema: str) -> str:
    """The log holds a later event of ``NEW``'s key: ``NEW`` is not the newest (as every append is)."""
    same = " AND ".join(f"l.{c} = NEW.{c}" for c in _KEY)
    return f"EXISTS (SELECT 1 FROM {schema}judgment_log l WHERE {same} AND l.id > NEW.id)"


_TOP = {
    "top_id": "NEW.id",
    "top_action": "NEW.action",
    "top_ms": "NEW.duration_ms",
    "top_hash": "NEW.content_hash",
}

#: What the newest event of a key sets in its row, by action (the rest of the row stays): a decision becomes
#: the top of the stack and the decision in force, an adjudication the top and the adjudication in force, a
#: note the latest note. ``derive`` says the same of the whole log; an undo, or an event older than its key's
#: newest (a row written by hand with a lower id), is recomputed by it instead.
APPENDED: dict[tuple[str, ...], dict[str, str]] = {
    DECISIONS: {
        **_TOP,
        "decision_id": "NEW.id",
        "decision": "NEW.action",
        "grade": "NEW.grade",
        "decision_ms": "NEW.duration_ms",
    },
    ("adjudicate",): {**_TOP, "adjudication_id": "NEW.id"},
    ("note",): {"note_id": "NEW.id"},
}


#: The event id each column belongs with: a column changes only to a later event's value than its row holds.
GUARDS = {
    **dict.fromkeys(("top_id", "top_action", "top_ms", "top_hash"), "top_id"),
    **dict.fromkeys(("decision_id", "decision", "grade", "decision_ms"), "decision_id"),
    "adjudication_id": "adjudication_id",
    "note_id": "note_id",
}


def _upsert(sets: dict[str, str], schema: str) -> str:
    """Insert the key's row, or set in it the columns ``sets`` names — each only when the event is later than
    the one the row holds for it: on PostgreSQL two connections of one assessor may append to one item at
    once, their triggers seeing neither the other's uncommitted event nor (so) which one is later, and their
    updates may land in either order; the later event's values stand either way, as in the log."""
    columns = TABLE.names(dumped=False)
    values = [f"NEW.{c}" if c in _KEY else sets.get(c, "NULL") for c in columns]
    kept = ", ".join(
        f"{c} = CASE WHEN {TABLE.name}.{GUARDS[c]} IS NULL OR {TABLE.name}.{GUARDS[c]} < excluded.{GUARDS[c]} "
        f"THEN excluded.{c} ELSE {TABLE.name}.{c} END"
        for c in sets
    )
    return (
        f"INSERT INTO {schema}{TABLE.name} ({', '.join(columns)}) VALUES ({', '.join(values)}) "
        f"ON CONFLICT ({', '.join(_KEY)}) DO UPDATE SET {kept}"
    )


#: SQLite's triggers (a trigger body has no IF: one trigger per case, chosen by its WHEN).
SQLITE_TRIGGERS = (*(f"{TRIGGER}_{actions[0]}" for actions in APPENDED), TRIGGER)


def sqlite_triggers() -> list[str]:
    out = [
        f"CREATE TRIGGER {name} AFTER INSERT ON judgment_log WHEN NEW.action IN ({listed(actions)}) "
        f"AND NOT {_later('')} BEGIN {_upsert(sets, '')}; END"
        for name, (actions, sets) in zip(SQLITE_TRIGGERS, APPENDED.items(), strict=False)
    ]
    body = "".join(f"{statement}; " for statement in refresh())
    out.append(
        f"CREATE TRIGGER {TRIGGER} AFTER INSERT ON judgment_log "
        f"WHEN NEW.action = 'undo' OR {_later('')} BEGIN {body}END"
    )
    return out


def postgresql_trigger() -> str:
    """The trigger and its function (``{schema}`` placeholders: ``security.compose`` fills them)."""
    schema = "{schema}."
    cases = "".join(
        f"        {'IF' if i == 0 else 'ELSIF'} NEW.action IN ({listed(actions)}) THEN\n"
        f"            {_upsert(sets, schema)};\n"
        for i, (actions, sets) in enumerate(APPENDED.items())
    )
    recompute = "".join(f"        {statement};\n" for statement in refresh(schema=schema))
    return (
        f"CREATE FUNCTION {schema}{TRIGGER}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$\n"
        f"BEGIN\n    IF NEW.action <> 'undo' AND NOT {_later(schema)} THEN\n{cases}        END IF;\n"
        f"    ELSE\n{recompute}    END IF;\n    RETURN NULL;\nEND $$;\n"
        f"CREATE TRIGGER {TRIGGER} AFTER INSERT ON judgment_log FOR EACH ROW EXECUTE FUNCTION {schema}{TRIGGER}();\n"
    )
