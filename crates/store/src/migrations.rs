//! The schema, as an append-only list of migrations tracked by `PRAGMA user_version`.
//! Never edit a migration that has shipped: add a new one.

use rusqlite::{Connection, TransactionBehavior};

/// Migration `i` brings the schema from version `i` to `i + 1`.
pub(super) const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE questionnaires (
    id      INTEGER PRIMARY KEY,
    qid     TEXT NOT NULL,
    version TEXT NOT NULL,
    source  TEXT NOT NULL,
    UNIQUE (qid, version)
);
CREATE TABLE cases (
    id          INTEGER PRIMARY KEY,
    instance_id TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);
-- What each kind of source said about a case; the case's content is their merge.
CREATE TABLE case_sources (
    case_id      INTEGER NOT NULL REFERENCES cases(id),
    kind         TEXT NOT NULL,
    origin       TEXT NOT NULL,
    content      TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    imported_at  TEXT NOT NULL,
    PRIMARY KEY (case_id, kind)
);
CREATE TABLE case_revisions (
    id            INTEGER PRIMARY KEY,
    case_id       INTEGER NOT NULL REFERENCES cases(id),
    revision      INTEGER NOT NULL,
    content       TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    repo          TEXT NOT NULL,
    base_commit   TEXT,
    title         TEXT NOT NULL,
    has_materials INTEGER NOT NULL,
    created_at    TEXT NOT NULL,
    UNIQUE (case_id, revision)
);
CREATE TABLE raters (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);
CREATE TABLE assignments (
    case_id     INTEGER NOT NULL REFERENCES cases(id),
    rater_id    INTEGER NOT NULL REFERENCES raters(id),
    assigned_at TEXT NOT NULL,
    active_ms   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (case_id, rater_id)
);
-- Append-only: drafts, submissions and revisions. The current answer is derived.
CREATE TABLE answer_events (
    id               INTEGER PRIMARY KEY,
    case_id          INTEGER NOT NULL REFERENCES cases(id),
    rater_id         INTEGER NOT NULL REFERENCES raters(id),
    case_revision_id INTEGER NOT NULL REFERENCES case_revisions(id),
    questionnaire_id INTEGER NOT NULL REFERENCES questionnaires(id),
    kind             TEXT NOT NULL CHECK (kind IN ('draft', 'submit', 'revise')),
    answer_revision  INTEGER NOT NULL,
    answer           TEXT NOT NULL,
    reason           TEXT,
    at               TEXT NOT NULL
);
CREATE INDEX answer_events_by_case_rater ON answer_events (case_id, rater_id, id);
CREATE TRIGGER answer_events_no_update BEFORE UPDATE ON answer_events
BEGIN SELECT RAISE(ABORT, 'answer events are append-only: a saved answer is never changed'); END;
CREATE TRIGGER answer_events_no_delete BEFORE DELETE ON answer_events
BEGIN SELECT RAISE(ABORT, 'answer events are append-only: a saved answer is never deleted'); END;
CREATE TABLE adjudications (
    id          INTEGER PRIMARY KEY,
    case_id     INTEGER NOT NULL REFERENCES cases(id),
    question_id TEXT NOT NULL,
    value       TEXT NOT NULL,
    rationale   TEXT NOT NULL,
    decided_by  TEXT NOT NULL,
    rule        TEXT NOT NULL,
    at          TEXT NOT NULL
);
CREATE TABLE repositories (
    name     TEXT PRIMARY KEY,
    path     TEXT NOT NULL,
    added_at TEXT NOT NULL
);
CREATE TABLE evidence_cache (
    case_revision_id INTEGER NOT NULL REFERENCES case_revisions(id),
    base_commit      TEXT NOT NULL,
    engine_version   TEXT NOT NULL,
    report           TEXT NOT NULL,
    computed_at      TEXT NOT NULL,
    PRIMARY KEY (case_revision_id, base_commit, engine_version)
);
"#,
    // 2: labels published by others (OpenAI's ensembled SWE-bench Verified annotations) to
    // compare the panel against, and the columns of imported answers that are not questions
    // (OpenAI's claimed_at, updated_at, submitted_at as written), so an export gives back the
    // rows that were imported.
    r#"
CREATE TABLE reference_labels (
    label_set   TEXT NOT NULL,
    case_id     INTEGER NOT NULL REFERENCES cases(id),
    labels      TEXT NOT NULL,
    origin      TEXT NOT NULL,
    imported_at TEXT NOT NULL,
    PRIMARY KEY (label_set, case_id)
);
CREATE TABLE answer_event_fields (
    answer_event_id INTEGER PRIMARY KEY REFERENCES answer_events(id),
    origin          TEXT NOT NULL,
    fields          TEXT NOT NULL
);
CREATE INDEX adjudications_by_case_question ON adjudications (case_id, question_id, id);
"#,
    // 3: a rater who leaves the panel is deactivated, never deleted once they answered: their
    // answers stay, and they leave every queue and every later assignment. Adjudications are
    // recorded by the coordinator or by the adjudicators the coordinator names.
    r#"
ALTER TABLE raters ADD COLUMN deactivated_at TEXT;
CREATE TABLE adjudicators (
    name     TEXT PRIMARY KEY,
    added_at TEXT NOT NULL
);
"#,
    // 4: answer events get a global id, so events recorded elsewhere (a rater's offline package,
    // a retried save to a server) merge exactly once. New ids are UUID v7, ordered by creation;
    // events written before carry a v7-shaped id of time zero and their row id, so they keep
    // their order and precede every later event. Events are ordered by this id from now on.
    // The project gets an id of its own, which a package carries back to its project.
    r#"
ALTER TABLE answer_events ADD COLUMN uid TEXT;
DROP TRIGGER answer_events_no_update;
UPDATE answer_events SET uid = '00000000-0000-7000-8000-' || printf('%012x', id);
CREATE TRIGGER answer_events_no_update BEFORE UPDATE ON answer_events
BEGIN SELECT RAISE(ABORT, 'answer events are append-only: a saved answer is never changed'); END;
CREATE TRIGGER answer_events_need_uid BEFORE INSERT ON answer_events WHEN NEW.uid IS NULL
BEGIN SELECT RAISE(ABORT, 'an answer event needs its global id'); END;
CREATE UNIQUE INDEX answer_events_by_uid ON answer_events (uid);
DROP INDEX answer_events_by_case_rater;
CREATE INDEX answer_events_by_case_rater ON answer_events (case_id, rater_id, uid);
INSERT INTO meta(key, value)
SELECT 'project_id', substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-'
       || substr('89ab', 1 + abs(random() % 4), 1) || substr(h, 18, 3) || '-' || substr(h, 21, 12)
FROM (SELECT lower(hex(randomblob(16))) AS h);
"#,
    // 5: calibration tasks, which raters cannot tell from their other tasks.
    r#"
CREATE TABLE calibration_tasks (
    case_id   INTEGER PRIMARY KEY REFERENCES cases(id),
    marked_at TEXT NOT NULL
);
"#,
    // 6: large texts (cases' contents and sources, evidence reports) are written as zstd frames
    // in BLOBs from now on, which an older Verity would read as text: the new version makes it
    // refuse the file instead. Texts written before stay as they are and read alike. And
    // indexes that answer the queue and progress listings without reading a case's content or
    // an answer: a rater's assignments and answer events, and each revision's listing line (the
    // title sits after the content in the row, so reading it from the table walks the
    // content's overflow pages).
    r#"
CREATE INDEX assignments_by_rater ON assignments (rater_id, case_id, active_ms);
CREATE INDEX answer_events_by_rater_case ON answer_events (rater_id, case_id, kind);
CREATE INDEX case_revisions_listing
    ON case_revisions (case_id, revision, repo, title, base_commit, has_materials);
"#,
    // 7: each evidence report's risk score, in thousandths, so that task lists sort by it
    // without reading reports. Reports cached before have none until they are computed again.
    r#"
ALTER TABLE evidence_cache ADD COLUMN risk_permille INTEGER;
"#,
    // 8: the risks read through an index: the column sits after the report in the row, so
    // reading it from the table walks each report's overflow pages.
    r#"
CREATE INDEX evidence_cache_risks
    ON evidence_cache (engine_version, case_revision_id, base_commit, risk_permille);
"#,
    // 9: one event per answer revision. A submission or revision that does not follow its
    // rater's history (a second revision 1 saved at the same moment, a package's revision 2
    // beside the project's own) is a conflict, kept whole with where it came from until the
    // coordinator settles it (`verity conflicts`). Events stored twice under one revision
    // before this schema move there, as open conflicts; the earliest of each stays.
    r#"
CREATE TABLE answer_conflicts (
    id               INTEGER PRIMARY KEY,
    uid              TEXT NOT NULL UNIQUE,
    case_id          INTEGER NOT NULL REFERENCES cases(id),
    rater_id         INTEGER NOT NULL REFERENCES raters(id),
    case_revision_id INTEGER NOT NULL REFERENCES case_revisions(id),
    questionnaire_id INTEGER NOT NULL REFERENCES questionnaires(id),
    kind             TEXT NOT NULL,
    answer_revision  INTEGER NOT NULL,
    answer           TEXT NOT NULL,
    reason           TEXT,
    at               TEXT NOT NULL,
    origin           TEXT NOT NULL,
    found_at         TEXT NOT NULL,
    resolved_at      TEXT,
    resolution       TEXT
);
INSERT INTO answer_conflicts(uid, case_id, rater_id, case_revision_id, questionnaire_id, kind,
    answer_revision, answer, reason, at, origin, found_at)
SELECT e.uid, e.case_id, e.rater_id, e.case_revision_id, e.questionnaire_id, e.kind,
    e.answer_revision, e.answer, e.reason, e.at,
    'stored beside another answer of the same revision before schema 9',
    strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
FROM answer_events e
WHERE e.kind <> 'draft' AND EXISTS (
    SELECT 1 FROM answer_events o WHERE o.case_id = e.case_id AND o.rater_id = e.rater_id
    AND o.answer_revision = e.answer_revision AND o.kind <> 'draft' AND o.uid < e.uid);
DROP TRIGGER answer_events_no_delete;
DELETE FROM answer_events WHERE uid IN (SELECT uid FROM answer_conflicts);
CREATE TRIGGER answer_events_no_delete BEFORE DELETE ON answer_events
BEGIN SELECT RAISE(ABORT, 'answer events are append-only: a saved answer is never deleted'); END;
CREATE UNIQUE INDEX answer_events_one_revision
    ON answer_events (case_id, rater_id, answer_revision) WHERE kind <> 'draft';
"#,
    // 10: systems' per-task outcomes (`verity results import`), one row per system with its
    // outcomes packed, for determinacy-aware scores. The coordinator's alone.
    r#"
CREATE TABLE system_results (
    name        TEXT PRIMARY KEY,
    format      TEXT NOT NULL,
    origin      TEXT NOT NULL,
    submitted   INTEGER NOT NULL,
    resolved    INTEGER NOT NULL,
    outcomes    BLOB NOT NULL,
    imported_at TEXT NOT NULL
);
"#,
    // 11: model raters (`store/models.rs`). A rater is a human or a model; a model's
    // configuration (never its API key: the name of the variable that holds it), each request
    // made for it, each reply paid for (by request hash, so a rerun never pays twice) and the
    // provenance of each answer it gave. The coordinator's alone: no rater's package carries it.
    crate::models::MIGRATION,
    // 12: each case's latest sweep (`verity sweep`): its proposals' results, verified at the
    // base commit, with their tiers. The coordinator's: a rater's package carries it only when
    // the project shows sweeps to raters (`sweep_for_raters`).
    r#"
CREATE TABLE sweeps (
    case_id     INTEGER PRIMARY KEY REFERENCES cases(id),
    base_commit TEXT NOT NULL,
    results     BLOB NOT NULL,
    computed_at TEXT NOT NULL
);
"#,
    // 13: what each model request was for (`store/models.rs`): rating a task, or proposing its
    // sweep (`verity sweep --model`).
    crate::models::PURPOSE_MIGRATION,
    // 14: a model request left in flight when its run was stopped is recorded as `abandoned`
    // (`store/models.rs`), so every request sent is counted with its spend.
    crate::models::ABANDONED_MIGRATION,
    // 15: rater packages that prove whose they are. Each package made gets a secret of its own,
    // kept here under the package's id with its rater and when it was made (the coordinator's:
    // no package carries this table); the package itself holds its own secret, and seals each
    // answer event its rater saves with it (`answer_seals`, by the event's global id), which a
    // merge checks (`ops/packages/`).
    r#"
CREATE TABLE package_keys (
    package_id TEXT PRIMARY KEY,
    rater_id   INTEGER NOT NULL REFERENCES raters(id),
    secret     TEXT NOT NULL,
    made_at    TEXT NOT NULL
);
CREATE TABLE answer_seals (
    event_uid TEXT PRIMARY KEY,
    seal      TEXT NOT NULL
);
"#,
    // 16: the random samples humans rate (`store/samples.rs`): each draw and every task it
    // offered with its probability, for prediction-powered estimates. The coordinator's alone.
    crate::samples::MIGRATION,
    // 17: each revision's shape, for a dataset export (`store/cases.rs`).
    crate::cases::SHAPE_MIGRATION,
];

/// Applies the migrations after `from` in one `IMMEDIATE` transaction, so a failure leaves the
/// file as it was.
pub(super) fn migrate(conn: &mut Connection, from: i64, app_id: i64) -> rusqlite::Result<()> {
    let from = usize::try_from(from).unwrap_or(0);
    if from >= MIGRATIONS.len() {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for sql in &MIGRATIONS[from..] {
        tx.execute_batch(sql)?;
    }
    tx.pragma_update(None, "application_id", app_id)?;
    tx.pragma_update(None, "user_version", MIGRATIONS.len() as i64)?;
    tx.commit()
}
