"""Who may do what in a campaign on the server: enforced by PostgreSQL itself, not by the toolkit's client.

An assessor's login can connect with ``psql`` as well as with the toolkit, so every promise the store makes to
organisers is also a rule in the database (docs/postgresql.md "Who may do what"):

- **Who a login is.** A login judges as the assessor an organiser mapped it to (``logins``, set with
  ``campaign member``), else under its own login name — unless that name is mapped to another login.
  ``campaign_assessor()`` says which; it reads ``session_user``, the authenticated login, which ``SET ROLE``
  does not change.
- **What an assessor may append** (``campaign_may_log``, the INSERT policy of the log): only as itself; a grade
  only from the campaign's scale; a decision or note only on an item assigned to it; an undo only of its own
  event on the same item; an adjudication only when the organiser made it an adjudicator, and only of a pooled
  item. UPDATE, DELETE and TRUNCATE it may not do at all (grants), nor may anyone (triggers).
- **What an assessor may read** (row-level security, one policy per table from the declaration's ``readers``):
  only campaigns it belongs to (mapped, or with assignments); there, the topics, scale, pool, documents,
  assignments and rounds; of the log only its own rows (an adjudicator: all); gold grades only as an
  adjudicator; provenance never, nor a round's runs and parameters (column grants: runs and ranks stay
  hidden).

The helper functions are ``SECURITY DEFINER`` (they run as ``trec_owner``, which row-level security does not
restrict) and name every table and function with the campaign's schema, so nothing the caller puts on its
``search_path`` — a temporary table above all, which ``pg_temp`` would otherwise find first — can stand in for
a campaign table. (Schema-qualified names rather than a ``SET search_path`` clause: that clause costs every
call a configuration change, and the policies call these functions on every read and append; PL/pgSQL
rather than SQL functions because PL/pgSQL keeps its plans for the session — together they make an assessor's
judgment cost what an organiser's does, ``bench/bench_pg.py --logins``.) Operators and functions the bodies
use resolve in ``pg_catalog`` first; an assessor may create objects in no schema (``campaign setup`` grants
CREATE on the database to ``trec_owner`` only, and PostgreSQL 15 none on ``public``). Organisers are members of ``trec_owner``, the tables' owner, and are not
restricted: they pool, assign, import and export for everyone.
"""

from __future__ import annotations

from psycopg import sql

from toolkit.judging.sql.tables import ADJUDICATORS, MEMBER_INDEXED, MEMBERS, ORGANISERS, OWN, TABLES, Table

#: The schema version that brought row-level security (and the ``logins`` table it reads).
SECURED = 4

#: ``campaign_member()``: a login belongs to a campaign when an organiser mapped it (``logins``) or, unmapped,
#: when it has assignments under its own name. ``session_user`` is a ``name``, of collation "C"; compared so with
#: the assignments' assessors (the database's collation), no index served the comparison, and each statement an
#: assessor ran under row-level security read the assignments as far as its own first one (12 ms for the second
#: of two assessors at 342,302 assignments), an organiser's open all of them. Under ``COLLATE "default"`` the
#: primary keys serve it; a deterministic collation finds two texts equal exactly when their bytes are, so who
#: belongs is unchanged. Created at ``SECURED``, replaced at ``MEMBER_INDEXED``.
_MEMBER = """FUNCTION {schema}.campaign_member() RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM {schema}.logins WHERE login = session_user::text COLLATE "default")
        OR (EXISTS (SELECT 1 FROM {schema}.assignments
                    WHERE assessor = session_user::text COLLATE "default")
            AND NOT EXISTS (SELECT 1 FROM {schema}.logins
                            WHERE assessor = session_user::text COLLATE "default"));
END $$;
"""

_FUNCTIONS = (
    """
CREATE FUNCTION {schema}.campaign_assessor() RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
BEGIN
    RETURN COALESCE(
        (SELECT assessor FROM {schema}.logins WHERE login = session_user::text),
        CASE WHEN EXISTS (SELECT 1 FROM {schema}.logins WHERE assessor = session_user::text) THEN NULL
             ELSE session_user::text END);
END $$;
CREATE FUNCTION {schema}.campaign_adjudicator() RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
BEGIN
    RETURN COALESCE((SELECT adjudicator FROM {schema}.logins WHERE login = session_user::text), false);
END $$;
"""
    + "CREATE "
    + _MEMBER
    + """CREATE FUNCTION {schema}.campaign_may_log(
    p_assessor text, p_query text, p_doc text, p_action text, p_grade integer, p_undoes bigint
) RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
BEGIN
    IF p_assessor IS DISTINCT FROM {schema}.campaign_assessor()
        OR (p_grade IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {schema}.grades WHERE grade = p_grade)) THEN
        RETURN false;
    END IF;
    IF p_action = 'adjudicate' THEN
        RETURN {schema}.campaign_adjudicator()
            AND EXISTS (SELECT 1 FROM {schema}.pool_items WHERE query_id = p_query AND doc_id = p_doc);
    ELSIF p_action = 'undo' THEN
        RETURN EXISTS (
            SELECT 1 FROM {schema}.judgment_log WHERE id = p_undoes AND assessor = p_assessor
            AND query_id = p_query AND doc_id = p_doc AND action <> 'undo');
    END IF;
    RETURN EXISTS (
        SELECT 1 FROM {schema}.assignments WHERE assessor = p_assessor AND query_id = p_query AND doc_id = p_doc);
END $$;
CREATE POLICY assessor_append ON judgment_log FOR INSERT TO {assessor}
    WITH CHECK (campaign_may_log(assessor, query_id, doc_id, action, grade, undoes));
"""
)

#: Who reads a table's rows, as a policy condition (``readers`` in the declaration). Each function call is a
#: scalar subquery, so the server evaluates it once per statement (an InitPlan), not once per row.
_READERS = {
    MEMBERS: "(SELECT campaign_member())",
    OWN: "assessor = (SELECT campaign_assessor()) OR (SELECT campaign_adjudicator())",
    ADJUDICATORS: "(SELECT campaign_adjudicator())",
}


def _read_policy(table: Table) -> str:
    if table.readers == ORGANISERS:
        return ""  # no policy: no rows, and no SELECT grant either (``grants``)
    condition = _READERS[table.readers]
    if table.readers == OWN and "assessor" not in table.names():
        condition = "login = (SELECT session_user::text)"
    return f"CREATE POLICY assessor_read ON {table.name} FOR SELECT TO {{assessor}} USING ({condition});\n"


def secure(table: Table) -> str:
    """Row-level security for one table (new tables get it when they are created)."""
    return f"ALTER TABLE {table.name} ENABLE ROW LEVEL SECURITY;\n{_read_policy(table)}"


def migration(version: int, created: list[Table]) -> str:
    """What ``version`` adds to a campaign's security: the functions and every table's policies at
    ``SECURED``, ``campaign_member()`` again at ``MEMBER_INDEXED``, a new table's policy after that.
    Placeholders ``{schema}`` and ``{assessor}``."""
    if version < SECURED:
        return ""
    tables = TABLES if version == SECURED else created
    functions = {SECURED: _FUNCTIONS, MEMBER_INDEXED: "CREATE OR REPLACE " + _MEMBER}.get(version, "")
    return functions + "".join(secure(t) for t in tables if t.since <= version)


def grants() -> str:
    """What the assessor role may touch, granted again after every migration (new tables follow the rule):
    SELECT on every table but the organisers' own, and there only on the columns not ``hidden``."""
    hidden = [t for t in TABLES if t.readers == ORGANISERS or any(c.hidden for c in t.columns)]
    partly = "".join(
        f"GRANT SELECT ({', '.join(c.name for c in t.columns if not c.hidden)}) ON {{schema}}.{t.name} "
        "TO {assessor};\n"
        for t in hidden
        if t.readers != ORGANISERS
    )
    return (
        "REVOKE ALL ON SCHEMA {schema} FROM PUBLIC;\n"
        "GRANT USAGE ON SCHEMA {schema} TO {assessor};\n"
        "GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {assessor};\n"
        f"REVOKE SELECT ON {', '.join(f'{{schema}}.{t.name}' for t in hidden)} FROM {{assessor}};\n"
        f"{partly}"
        "GRANT INSERT ON {schema}.judgment_log TO {assessor};\n"
        "REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {schema} FROM PUBLIC;\n"
        "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA {schema} TO {assessor};\n"
    )


def compose(script: str, schema: str, assessor: str) -> sql.Composed:
    """A script with its ``{schema}`` and ``{assessor}`` placeholders filled in as quoted identifiers."""
    return sql.SQL(script).format(schema=sql.Identifier(schema), assessor=sql.Identifier(assessor))  # type: ignore[arg-type]
