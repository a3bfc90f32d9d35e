//! The project store's interface: every read and write `ops` makes of a project, as traits a
//! second backend can implement. The SQLite file (`Store`, with `ImportSession` for imports)
//! is the one implementation today; each method's SQL lives in the file of its table group
//! (`cases.rs`, `raters.rs`, `answers.rs`, `labels.rs`, `repos.rs`, `mod.rs`).
//!
//! Answer events are append-only: the interface has no way to change or delete one, and the
//! SQLite schema refuses both besides (`tests/store_suite.rs` checks both).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::{
    AdjudicationRow, AnswerEvent, Assignment, CachedEvidence, CaseRow, EventSpans, ImportSession,
    ImportSummary, NewAnswerEvent, Rater, ReferenceRow, Repository, Store, StoreError, StoredCase,
    Submission,
};
use crate::case::{CaseRecord, SourceKind};

/// Everything `ops` reads and writes in a project.
pub trait ProjectStore: Send + std::fmt::Debug {
    /// The project file's path.
    fn path(&self) -> &Path;

    /// The schema version of the open file.
    fn schema_version(&self) -> Result<i64, StoreError>;

    /// Reads a project setting.
    fn meta(&self, key: &str) -> Result<Option<String>, StoreError>;

    /// Writes a project setting.
    fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError>;

    /// Stores a questionnaire's source (once per id and version) and returns its row id.
    fn put_questionnaire(
        &mut self,
        id: &str,
        version: &str,
        source: &str,
    ) -> Result<i64, StoreError>;

    /// A stored questionnaire's source by row id.
    fn questionnaire_source(&self, row: i64) -> Result<(String, String, String), StoreError>;

    /// Appends one event.
    fn append_answer_event(&mut self, event: &NewAnswerEvent<'_>) -> Result<i64, StoreError>;

    /// A rater's events on a case, oldest first.
    fn answer_events(&self, case_id: i64, rater_id: i64) -> Result<Vec<AnswerEvent>, StoreError>;

    /// The latest event of every (case, rater) pair.
    fn latest_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError>;

    /// Every rater's first submission on every case: the blind answers agreement is measured
    /// on, given before any discussion or revision.
    fn first_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError>;

    /// Every submitted answer's latest revision, per (case, rater).
    fn latest_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError>;

    /// Every event of every case and rater, oldest first.
    fn all_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError>;

    /// Starts an import.
    fn begin_import(&mut self, now: &str) -> Result<Box<dyn ImportBatch + '_>, StoreError>;

    /// The current revision of a case.
    fn case_by_instance(&self, instance_id: &str) -> Result<Option<StoredCase>, StoreError>;

    /// Up to `limit` instance ids that start with `prefix`, in order.
    fn instance_ids_with_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;

    /// One revision of a case by its row id.
    fn case_revision(&self, revision_id: i64) -> Result<StoredCase, StoreError>;

    /// Every revision of a case: (row id, revision number), oldest first.
    fn case_revisions(&self, case_id: i64) -> Result<Vec<(i64, i64)>, StoreError>;

    /// Every case's current revision, by instance id.
    fn list_cases(&self) -> Result<Vec<CaseRow>, StoreError>;

    /// Names an adjudicator; naming one twice changes nothing.
    fn add_adjudicator(&mut self, name: &str, now: &str) -> Result<(), StoreError>;

    /// Removes an adjudicator (their decisions stay); false when there was none by that name.
    fn remove_adjudicator(&mut self, name: &str) -> Result<bool, StoreError>;

    /// The named adjudicators, by name.
    fn list_adjudicators(&self) -> Result<Vec<String>, StoreError>;

    /// Records an adjudication; earlier ones on the same question stay as history and the
    /// latest applies.
    #[allow(clippy::too_many_arguments)]
    fn add_adjudication(
        &mut self,
        case_id: i64,
        question: &str,
        value: &Value,
        rationale: &str,
        decided_by: &str,
        rule: &str,
        now: &str,
    ) -> Result<i64, StoreError>;

    /// The latest adjudication of every (case, question).
    fn latest_adjudications(&self) -> Result<Vec<AdjudicationRow>, StoreError>;

    /// The names of the reference label sets with how many cases each labels.
    fn reference_sets(&self) -> Result<Vec<(String, usize)>, StoreError>;

    /// Every case's labels in one reference set, by instance id.
    fn reference_labels(&self, label_set: &str) -> Result<Vec<ReferenceRow>, StoreError>;

    /// The kept source columns of imported answer events, by event id.
    fn answer_event_fields(&self) -> Result<HashMap<i64, Map<String, Value>>, StoreError>;

    /// When each (case, rater) pair's first and latest answer events were saved.
    fn answer_event_span(&self) -> Result<EventSpans, StoreError>;

    /// Adds a rater. Names are unique regardless of case: `Alice` beside `alice` is refused as
    /// a likely duplicate.
    fn add_rater(&mut self, name: &str, now: &str) -> Result<Rater, StoreError>;

    /// Every rater, active or not, by name.
    fn list_raters(&self) -> Result<Vec<Rater>, StoreError>;

    /// The rater with this name.
    fn rater_by_name(&self, name: &str) -> Result<Option<Rater>, StoreError>;

    /// Deactivates a rater (or, with `active`, brings them back). Deactivating releases every
    /// assignment the rater has not submitted, so `assign` can give those cases to others; the
    /// rater's answer events, drafts included, stay. Returns the released assignments.
    fn set_rater_active(
        &mut self,
        rater_id: i64,
        active: bool,
        now: &str,
    ) -> Result<usize, StoreError>;

    /// How many answer events a rater has saved.
    fn rater_event_count(&self, rater_id: i64) -> Result<i64, StoreError>;

    /// Removes a rater who never saved an answer, with their assignments. Refused when they
    /// have answer events: those are never deleted.
    fn remove_rater(&mut self, rater_id: i64) -> Result<(), StoreError>;

    /// Every assignment.
    fn list_assignments(&self) -> Result<Vec<Assignment>, StoreError>;

    /// Adds assignments in one transaction; existing pairs are kept as they are.
    fn add_assignments(&mut self, pairs: &[(i64, i64)], now: &str) -> Result<usize, StoreError>;

    /// Whether the rater is assigned the case.
    fn is_assigned(&self, case_id: i64, rater_id: i64) -> Result<bool, StoreError>;

    /// Adds active time to an assignment; false when the rater is not assigned the case.
    fn add_active_time(&mut self, case_id: i64, rater_id: i64, ms: i64)
    -> Result<bool, StoreError>;

    /// Registers (or moves) the clone of a repository.
    fn put_repository(&mut self, name: &str, path: &str, now: &str) -> Result<(), StoreError>;

    /// Forgets the clone registered for a repository (the clone itself is never touched);
    /// false when none was registered.
    fn remove_repository(&mut self, name: &str) -> Result<bool, StoreError>;

    /// Every registered repository, by name.
    fn list_repositories(&self) -> Result<Vec<Repository>, StoreError>;

    /// The clone registered for a repository.
    fn repository(&self, name: &str) -> Result<Option<Repository>, StoreError>;

    /// A cached evidence report.
    fn cached_evidence(
        &self,
        case_revision_id: i64,
        base_commit: &str,
        engine_version: &str,
    ) -> Result<Option<CachedEvidence>, StoreError>;

    /// Stores an evidence report.
    fn put_evidence(
        &mut self,
        case_revision_id: i64,
        base_commit: &str,
        engine_version: &str,
        report: &str,
        now: &str,
    ) -> Result<(), StoreError>;
}

/// One import, all or nothing: nothing it wrote is visible until [`ImportBatch::finish`], and
/// dropping it unfinished stores nothing.
pub trait ImportBatch {
    /// Records what one source says about a case. The case's revision is settled in
    /// [`ImportSession::finish`], once every source of this import is in.
    fn put_record(
        &mut self,
        kind: SourceKind,
        origin: &str,
        record: &CaseRecord,
    ) -> Result<(), StoreError>;

    /// Makes sure a case exists, creating it from its id alone (a stub lacking materials) when
    /// the project does not hold it yet. Returns whether it had to be created.
    fn ensure_case(&mut self, instance_id: &str, origin: &str) -> Result<bool, StoreError>;

    /// Settles a new revision for every case whose merged content changed, and commits.
    fn finish(self: Box<Self>) -> Result<ImportSummary, StoreError>;

    /// The case's row id and the id of its current revision, settling a first revision now for
    /// a case this import created (answers must point at a revision).
    fn revision_for_answers(&self, instance_id: &str) -> Result<(i64, i64), StoreError>;

    /// The rater with this name, created when the project does not have one.
    fn ensure_rater(&self, name: &str, now: &str) -> Result<i64, StoreError>;

    /// A rater's first submission on a case, if any: (answers, time).
    fn submission_of(&self, case_id: i64, rater_id: i64) -> Result<Option<Submission>, StoreError>;

    /// Appends an imported answer event with the columns of its source row that are not
    /// questions, kept as written.
    fn append_imported_answer(
        &self,
        event: &NewAnswerEvent<'_>,
        origin: &str,
        fields: &Map<String, Value>,
    ) -> Result<i64, StoreError>;

    /// Stores (or replaces) one case's labels in a reference label set.
    fn put_reference_label(
        &self,
        label_set: &str,
        case_id: i64,
        labels: &Value,
        origin: &str,
        now: &str,
    ) -> Result<(), StoreError>;

    /// The row id of a case, which must exist in this import's view of the project.
    fn case_row_id(&self, instance_id: &str) -> Result<Option<i64>, StoreError>;
}

impl ProjectStore for Store {
    fn path(&self) -> &Path {
        Store::path(self)
    }

    fn schema_version(&self) -> Result<i64, StoreError> {
        Store::schema_version(self)
    }

    fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        Store::meta(self, key)
    }

    fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        Store::set_meta(self, key, value)
    }

    fn put_questionnaire(
        &mut self,
        id: &str,
        version: &str,
        source: &str,
    ) -> Result<i64, StoreError> {
        Store::put_questionnaire(self, id, version, source)
    }

    fn questionnaire_source(&self, row: i64) -> Result<(String, String, String), StoreError> {
        Store::questionnaire_source(self, row)
    }

    fn append_answer_event(&mut self, event: &NewAnswerEvent<'_>) -> Result<i64, StoreError> {
        Store::append_answer_event(self, event)
    }

    fn answer_events(&self, case_id: i64, rater_id: i64) -> Result<Vec<AnswerEvent>, StoreError> {
        Store::answer_events(self, case_id, rater_id)
    }

    fn latest_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        Store::latest_answer_events(self)
    }

    fn first_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        Store::first_submissions(self)
    }

    fn latest_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        Store::latest_submissions(self)
    }

    fn all_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        Store::all_answer_events(self)
    }

    fn begin_import(&mut self, now: &str) -> Result<Box<dyn ImportBatch + '_>, StoreError> {
        Ok(Box::new(Store::begin_import(self, now)?))
    }

    fn case_by_instance(&self, instance_id: &str) -> Result<Option<StoredCase>, StoreError> {
        Store::case_by_instance(self, instance_id)
    }

    fn instance_ids_with_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        Store::instance_ids_with_prefix(self, prefix, limit)
    }

    fn case_revision(&self, revision_id: i64) -> Result<StoredCase, StoreError> {
        Store::case_revision(self, revision_id)
    }

    fn case_revisions(&self, case_id: i64) -> Result<Vec<(i64, i64)>, StoreError> {
        Store::case_revisions(self, case_id)
    }

    fn list_cases(&self) -> Result<Vec<CaseRow>, StoreError> {
        Store::list_cases(self)
    }

    fn add_adjudicator(&mut self, name: &str, now: &str) -> Result<(), StoreError> {
        Store::add_adjudicator(self, name, now)
    }

    fn remove_adjudicator(&mut self, name: &str) -> Result<bool, StoreError> {
        Store::remove_adjudicator(self, name)
    }

    fn list_adjudicators(&self) -> Result<Vec<String>, StoreError> {
        Store::list_adjudicators(self)
    }

    #[allow(clippy::too_many_arguments)]
    fn add_adjudication(
        &mut self,
        case_id: i64,
        question: &str,
        value: &Value,
        rationale: &str,
        decided_by: &str,
        rule: &str,
        now: &str,
    ) -> Result<i64, StoreError> {
        Store::add_adjudication(
            self, case_id, question, value, rationale, decided_by, rule, now,
        )
    }

    fn latest_adjudications(&self) -> Result<Vec<AdjudicationRow>, StoreError> {
        Store::latest_adjudications(self)
    }

    fn reference_sets(&self) -> Result<Vec<(String, usize)>, StoreError> {
        Store::reference_sets(self)
    }

    fn reference_labels(&self, label_set: &str) -> Result<Vec<ReferenceRow>, StoreError> {
        Store::reference_labels(self, label_set)
    }

    fn answer_event_fields(&self) -> Result<HashMap<i64, Map<String, Value>>, StoreError> {
        Store::answer_event_fields(self)
    }

    fn answer_event_span(&self) -> Result<EventSpans, StoreError> {
        Store::answer_event_span(self)
    }

    fn add_rater(&mut self, name: &str, now: &str) -> Result<Rater, StoreError> {
        Store::add_rater(self, name, now)
    }

    fn list_raters(&self) -> Result<Vec<Rater>, StoreError> {
        Store::list_raters(self)
    }

    fn rater_by_name(&self, name: &str) -> Result<Option<Rater>, StoreError> {
        Store::rater_by_name(self, name)
    }

    fn set_rater_active(
        &mut self,
        rater_id: i64,
        active: bool,
        now: &str,
    ) -> Result<usize, StoreError> {
        Store::set_rater_active(self, rater_id, active, now)
    }

    fn rater_event_count(&self, rater_id: i64) -> Result<i64, StoreError> {
        Store::rater_event_count(self, rater_id)
    }

    fn remove_rater(&mut self, rater_id: i64) -> Result<(), StoreError> {
        Store::remove_rater(self, rater_id)
    }

    fn list_assignments(&self) -> Result<Vec<Assignment>, StoreError> {
        Store::list_assignments(self)
    }

    fn add_assignments(&mut self, pairs: &[(i64, i64)], now: &str) -> Result<usize, StoreError> {
        Store::add_assignments(self, pairs, now)
    }

    fn is_assigned(&self, case_id: i64, rater_id: i64) -> Result<bool, StoreError> {
        Store::is_assigned(self, case_id, rater_id)
    }

    fn add_active_time(
        &mut self,
        case_id: i64,
        rater_id: i64,
        ms: i64,
    ) -> Result<bool, StoreError> {
        Store::add_active_time(self, case_id, rater_id, ms)
    }

    fn put_repository(&mut self, name: &str, path: &str, now: &str) -> Result<(), StoreError> {
        Store::put_repository(self, name, path, now)
    }

    fn remove_repository(&mut self, name: &str) -> Result<bool, StoreError> {
        Store::remove_repository(self, name)
    }

    fn list_repositories(&self) -> Result<Vec<Repository>, StoreError> {
        Store::list_repositories(self)
    }

    fn repository(&self, name: &str) -> Result<Option<Repository>, StoreError> {
        Store::repository(self, name)
    }

    fn cached_evidence(
        &self,
        case_revision_id: i64,
        base_commit: &str,
        engine_version: &str,
    ) -> Result<Option<CachedEvidence>, StoreError> {
        Store::cached_evidence(self, case_revision_id, base_commit, engine_version)
    }

    fn put_evidence(
        &mut self,
        case_revision_id: i64,
        base_commit: &str,
        engine_version: &str,
        report: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        Store::put_evidence(
            self,
            case_revision_id,
            base_commit,
            engine_version,
            report,
            now,
        )
    }
}

impl ImportBatch for ImportSession<'_> {
    fn put_record(
        &mut self,
        kind: SourceKind,
        origin: &str,
        record: &CaseRecord,
    ) -> Result<(), StoreError> {
        ImportSession::put_record(self, kind, origin, record)
    }

    fn ensure_case(&mut self, instance_id: &str, origin: &str) -> Result<bool, StoreError> {
        ImportSession::ensure_case(self, instance_id, origin)
    }

    fn finish(self: Box<Self>) -> Result<ImportSummary, StoreError> {
        ImportSession::finish(*self)
    }

    fn revision_for_answers(&self, instance_id: &str) -> Result<(i64, i64), StoreError> {
        ImportSession::revision_for_answers(self, instance_id)
    }

    fn ensure_rater(&self, name: &str, now: &str) -> Result<i64, StoreError> {
        ImportSession::ensure_rater(self, name, now)
    }

    fn submission_of(&self, case_id: i64, rater_id: i64) -> Result<Option<Submission>, StoreError> {
        ImportSession::submission_of(self, case_id, rater_id)
    }

    fn append_imported_answer(
        &self,
        event: &NewAnswerEvent<'_>,
        origin: &str,
        fields: &Map<String, Value>,
    ) -> Result<i64, StoreError> {
        ImportSession::append_imported_answer(self, event, origin, fields)
    }

    fn put_reference_label(
        &self,
        label_set: &str,
        case_id: i64,
        labels: &Value,
        origin: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        ImportSession::put_reference_label(self, label_set, case_id, labels, origin, now)
    }

    fn case_row_id(&self, instance_id: &str) -> Result<Option<i64>, StoreError> {
        ImportSession::case_row_id(self, instance_id)
    }
}
