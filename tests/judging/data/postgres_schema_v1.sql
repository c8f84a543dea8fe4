-- A campaign schema as trec-toolkit 0.1.0 created it on PostgreSQL (schema_info version 1), before
-- snapshots had format and version: the migration tests start from it. Run with search_path set to the campaign.
CREATE TABLE schema_info (application text NOT NULL, version integer NOT NULL);
INSERT INTO schema_info (application, version) VALUES ('trec-toolkit campaign', 0);
CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE topics (
    query_id text PRIMARY KEY, ord integer NOT NULL, query text NOT NULL,
    description text NOT NULL DEFAULT '', narrative text NOT NULL DEFAULT '', query_class text
);
CREATE TABLE grades (grade integer PRIMARY KEY, definition text NOT NULL);
CREATE TABLE rounds (
    round integer PRIMARY KEY, created text NOT NULL, strategy text NOT NULL, depth integer,
    budget integer, runs text NOT NULL, added integer NOT NULL DEFAULT 0,
    stale integer NOT NULL DEFAULT 0, skipped integer NOT NULL DEFAULT 0, params text
);
CREATE TABLE pool_items (
    query_id text NOT NULL REFERENCES topics(query_id), doc_id text NOT NULL,
    round integer NOT NULL, stale boolean NOT NULL DEFAULT false,
    PRIMARY KEY (query_id, doc_id)
);
CREATE TABLE provenance (
    round integer NOT NULL, query_id text NOT NULL, doc_id text NOT NULL, run text NOT NULL,
    rank integer NOT NULL, PRIMARY KEY (round, query_id, doc_id, run)
);
CREATE TABLE snapshots (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, doc_id text NOT NULL, round integer NOT NULL,
    title text NOT NULL DEFAULT '', text text NOT NULL DEFAULT '', content_hash text,
    fetch_error text, fetched text NOT NULL
);
CREATE INDEX snapshots_doc ON snapshots (doc_id, id);
CREATE TABLE gold (
    query_id text NOT NULL, doc_id text NOT NULL, grade integer NOT NULL,
    PRIMARY KEY (query_id, doc_id)
);
CREATE TABLE assignments (
    assessor text NOT NULL, query_id text NOT NULL, doc_id text NOT NULL,
    position integer NOT NULL, overlap boolean NOT NULL DEFAULT false,
    gold boolean NOT NULL DEFAULT false, round integer NOT NULL DEFAULT 1,
    PRIMARY KEY (assessor, query_id, doc_id)
);
CREATE INDEX assignments_order ON assignments (assessor, position);
CREATE TABLE judgment_log (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_key uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    time text NOT NULL, assessor text NOT NULL, query_id text NOT NULL, doc_id text NOT NULL,
    action text NOT NULL CHECK (action IN ('judge','skip','unrateable','undo','note','adjudicate')),
    grade integer, note text, duration_ms bigint, position integer, content_hash text,
    undoes bigint REFERENCES judgment_log(id),
    CHECK ((action IN ('judge','adjudicate')) = (grade IS NOT NULL))
);
CREATE INDEX judgment_log_assessor ON judgment_log (assessor, id);
CREATE INDEX judgment_log_item ON judgment_log (assessor, query_id, doc_id, id);
CREATE FUNCTION judgment_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the judgment log is append-only (% refused)', TG_OP
        USING HINT = 'append an undo event instead';
END $$;
CREATE TRIGGER judgment_log_no_update BEFORE UPDATE OR DELETE ON judgment_log
    FOR EACH ROW EXECUTE FUNCTION judgment_log_append_only();
CREATE TRIGGER judgment_log_no_truncate BEFORE TRUNCATE ON judgment_log
    FOR EACH STATEMENT EXECUTE FUNCTION judgment_log_append_only();
UPDATE schema_info SET version = 1;
-- The grants 0.1.0 gave (campaign setup's roles must exist).
REVOKE ALL ON SCHEMA {schema} FROM PUBLIC;
GRANT USAGE ON SCHEMA {schema} TO trec_assessor;
GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO trec_assessor;
REVOKE SELECT ON {schema}.provenance, {schema}.rounds FROM trec_assessor;
GRANT INSERT ON {schema}.judgment_log TO trec_assessor;
