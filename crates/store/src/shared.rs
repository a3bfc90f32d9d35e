//! What both backends share: the statements whose text is the same in SQLite's and
//! PostgreSQL's dialect, and the row decoders that read their results.
//!
//! A shared statement writes its parameters `$1`, `$2`, ... in the order they are bound, each
//! first appearing in that order: PostgreSQL numbers them so, and SQLite, which takes `$1` for
//! a named parameter, numbers named parameters in the order they first appear
//! (`tests::shared_statements_number_their_parameters_in_order` holds them to it). Statements
//! that differ between the dialects (an order by bytes, an upsert, a filter on a list of ids)
//! stay in each backend's module beside the method that runs them.

use std::path::Path;

use serde_json::{Map, Value};

use super::{
    AdjudicationRow, AnswerConflict, AnswerEvent, Assignment, EventKind, NewAnswerEvent,
    PackageKey, Rater, ReferenceRow, Repository, StoreError,
};
use crate::sqlite::sql_err;

/// The columns of an event, in the order [`event`] reads them: its answer comes last, whole,
/// or as a few of its values, one column each.
macro_rules! event_columns {
    () => {
        "id, uid, case_id, rater_id, case_revision_id, questionnaire_id, kind, answer_revision, \
         reason, at, answer"
    };
}

/// Every column of an event, in the order [`event`] reads them.
pub(crate) const EVENT_COLUMNS: &str = event_columns!();

/// A stored event by its global id, with the fields [`stored_fields`] reads after its row id.
pub(crate) const STORED_EVENT: &str = "SELECT id, case_id, rater_id, case_revision_id, \
     questionnaire_id, kind, answer_revision, answer, reason, at FROM answer_events WHERE uid = $1";

/// Appends an answer event; gives its row id.
pub(crate) const INSERT_ANSWER_EVENT: &str = "INSERT INTO answer_events(uid, case_id, rater_id, \
     case_revision_id, questionnaire_id, kind, answer_revision, answer, reason, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id";

/// Sets an event aside as a conflict, once per global id; gives the new row's id, no row when
/// the event was set aside already.
pub(crate) const INSERT_CONFLICT: &str = "INSERT INTO answer_conflicts(uid, case_id, rater_id, \
     case_revision_id, questionnaire_id, kind, answer_revision, answer, reason, at, origin, found_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (uid) DO NOTHING RETURNING id";

/// Every conflict, read by [`conflict`].
pub(crate) const CONFLICTS: &str = concat!(
    "SELECT ",
    event_columns!(),
    ", origin, found_at, resolved_at, resolution FROM answer_conflicts ORDER BY id"
);

/// Settles a conflict not settled yet: the time, the resolution, the conflict's id.
pub(crate) const RESOLVE_CONFLICT: &str = "UPDATE answer_conflicts \
     SET resolved_at = $1, resolution = $2 WHERE id = $3 AND resolved_at IS NULL";

/// One event by its global id.
pub(crate) const EVENT_BY_UID: &str = concat!(
    "SELECT ",
    event_columns!(),
    " FROM answer_events WHERE uid = $1"
);

/// A project setting.
pub(crate) const META: &str = "SELECT value FROM meta WHERE key = $1";

/// Writes a project setting.
pub(crate) const SET_META: &str = "INSERT INTO meta(key, value) VALUES ($1, $2)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value";

/// A questionnaire's row id and source by its id and version.
pub(crate) const QUESTIONNAIRE_BY_VERSION: &str =
    "SELECT id, source FROM questionnaires WHERE qid = $1 AND version = $2";

/// A questionnaire's id, version and source by its row id.
pub(crate) const QUESTIONNAIRE_SOURCE: &str =
    "SELECT qid, version, source FROM questionnaires WHERE id = $1";

/// The columns [`rater`] reads.
macro_rules! rater_columns {
    () => {
        "id, name, deactivated_at"
    };
}

/// Every column [`rater`] reads, for a listing whose order differs between the dialects.
pub(crate) const RATER_COLUMNS: &str = rater_columns!();

/// Adds a rater; gives the row id.
pub(crate) const INSERT_RATER: &str =
    "INSERT INTO raters(name, created_at) VALUES ($1, $2) RETURNING id";

/// A rater by name.
pub(crate) const RATER_BY_NAME: &str =
    concat!("SELECT ", rater_columns!(), " FROM raters WHERE name = $1");

/// Deactivates a rater (a time) or activates one (`NULL`).
pub(crate) const SET_RATER_DEACTIVATED: &str =
    "UPDATE raters SET deactivated_at = $1 WHERE id = $2";

/// Releases a deactivated rater's assignments on tasks they have not submitted.
pub(crate) const RELEASE_UNSUBMITTED: &str =
    "DELETE FROM assignments WHERE rater_id = $1 AND NOT EXISTS (
       SELECT 1 FROM answer_events e
       WHERE e.case_id = assignments.case_id AND e.rater_id = $1 AND e.kind <> 'draft')";

/// How many answer events a rater has.
pub(crate) const RATER_EVENT_COUNT: &str = "SELECT COUNT(*) FROM answer_events WHERE rater_id = $1";

/// Releases every assignment of a rater.
pub(crate) const DELETE_RATER_ASSIGNMENTS: &str = "DELETE FROM assignments WHERE rater_id = $1";

/// Removes a rater.
pub(crate) const DELETE_RATER: &str = "DELETE FROM raters WHERE id = $1";

/// Every assignment, read by [`assignment`].
pub(crate) const ASSIGNMENTS: &str =
    "SELECT case_id, rater_id, active_ms FROM assignments ORDER BY case_id, rater_id";

/// Gives a task to a rater at a time, unless it is given already: the case, the rater, the
/// time.
pub(crate) const ASSIGN: &str = "INSERT INTO assignments(case_id, rater_id, assigned_at) \
     VALUES ($1, $2, $3) ON CONFLICT (case_id, rater_id) DO NOTHING";

/// Stores an answer event's provenance under its global id.
pub(crate) const PUT_PROVENANCE: &str = "INSERT INTO answer_provenance(event_uid, provenance) \
     VALUES ($1, $2) ON CONFLICT (event_uid) DO UPDATE SET provenance = excluded.provenance";

/// Stores the seal of an answer event saved in a rater's package, under its global id.
pub(crate) const PUT_SEAL: &str =
    "INSERT INTO answer_seals(event_uid, seal) VALUES ($1, $2) ON CONFLICT (event_uid) DO NOTHING";

/// The cases assigned to a rater.
pub(crate) const ASSIGNED_CASES: &str = "SELECT case_id FROM assignments WHERE rater_id = $1";

/// Records a package's secret: its id, rater, secret and when it was made.
pub(crate) const PUT_PACKAGE_KEY: &str =
    "INSERT INTO package_keys(package_id, rater_id, secret, made_at) VALUES ($1, $2, $3, $4)";

/// A package's record by its id.
pub(crate) const PACKAGE_KEY: &str =
    "SELECT package_id, rater_id, secret, made_at FROM package_keys WHERE package_id = $1";

/// Adds active time (milliseconds) to an assignment: the time, the case, the rater.
pub(crate) const ADD_ACTIVE_TIME: &str =
    "UPDATE assignments SET active_ms = active_ms + $1 WHERE case_id = $2 AND rater_id = $3";

/// Adds an adjudicator, once.
pub(crate) const ADD_ADJUDICATOR: &str =
    "INSERT INTO adjudicators(name, added_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING";

/// Removes an adjudicator.
pub(crate) const REMOVE_ADJUDICATOR: &str = "DELETE FROM adjudicators WHERE name = $1";

/// Records an adjudication; gives its row id.
pub(crate) const INSERT_ADJUDICATION: &str = "INSERT INTO adjudications(case_id, question_id, \
     value, rationale, decided_by, rule, at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";

/// The columns [`adjudication`] reads.
pub(crate) const ADJUDICATION_COLUMNS: &str =
    "id, case_id, question_id, value, rationale, decided_by, rule, at";

/// The fields recorded with each answer event, by event row id.
pub(crate) const ANSWER_EVENT_FIELDS: &str =
    "SELECT answer_event_id, fields FROM answer_event_fields";

/// Registers (or moves) a repository's clone.
pub(crate) const PUT_REPOSITORY: &str = "INSERT INTO repositories(name, path, added_at) \
     VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET path = excluded.path, added_at = excluded.added_at";

/// Forgets a repository's clone.
pub(crate) const REMOVE_REPOSITORY: &str = "DELETE FROM repositories WHERE name = $1";

/// A repository by name, read by [`repository`].
pub(crate) const REPOSITORY: &str = "SELECT name, path FROM repositories WHERE name = $1";

/// A cached evidence report and when it was computed, by its key.
pub(crate) const CACHED_EVIDENCE: &str = "SELECT report, computed_at FROM evidence_cache
     WHERE case_revision_id = $1 AND base_commit = $2 AND engine_version = $3";

/// Stores a case's sweep, replacing the one before.
pub(crate) const PUT_SWEEP: &str =
    "INSERT INTO sweeps(case_id, base_commit, results, computed_at) \
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (case_id) DO UPDATE SET base_commit = excluded.base_commit,
         results = excluded.results, computed_at = excluded.computed_at";

/// A case's sweep.
pub(crate) const SWEEP: &str =
    "SELECT results, base_commit, computed_at FROM sweeps WHERE case_id = $1";

/// Every stored sweep's results, by case row id.
pub(crate) const ALL_SWEEPS: &str = "SELECT case_id, results FROM sweeps ORDER BY case_id";

/// Some cases' sweeps, by case row id: `cases` is the condition on `case_id` in the backend's
/// dialect (`IN (…)`, `= ANY($1)`).
pub(crate) fn sweeps_of_sql(cases: &str) -> String {
    format!("SELECT case_id, results FROM sweeps WHERE case_id {cases} ORDER BY case_id")
}

/// A case's row id by its instance id.
pub(crate) const CASE_ID: &str = "SELECT id FROM cases WHERE instance_id = $1";

/// Every revision of a case: (row id, revision number), oldest first.
pub(crate) const CASE_REVISIONS: &str =
    "SELECT id, revision FROM case_revisions WHERE case_id = $1 ORDER BY revision";

/// The row id of a case's latest revision.
pub(crate) const LATEST_REVISION_ID: &str =
    "SELECT id FROM case_revisions WHERE case_id = $1 ORDER BY revision DESC LIMIT 1";

/// The hash of a case's source of one kind.
pub(crate) const SOURCE_HASH: &str =
    "SELECT content_hash FROM case_sources WHERE case_id = $1 AND kind = $2";

/// Adds a rater an import names, unless the project has them.
pub(crate) const ENSURE_RATER: &str =
    "INSERT INTO raters(name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING";

/// A rater's row id by name.
pub(crate) const RATER_ID: &str = "SELECT id FROM raters WHERE name = $1";

/// A rater's first submitted answer on a case, and when.
pub(crate) const FIRST_SUBMISSION: &str = "SELECT answer, at FROM answer_events
     WHERE case_id = $1 AND rater_id = $2 AND kind = 'submit' ORDER BY uid LIMIT 1";

/// The fields an import recorded beside an answer event.
pub(crate) const INSERT_EVENT_FIELDS: &str =
    "INSERT INTO answer_event_fields(answer_event_id, origin, fields) VALUES ($1, $2, $3)";

/// Writes a case's label in a reference set.
pub(crate) const PUT_REFERENCE_LABEL: &str = "INSERT INTO reference_labels(label_set, case_id, \
     labels, origin, imported_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (label_set, case_id) DO UPDATE SET labels = excluded.labels,
       origin = excluded.origin, imported_at = excluded.imported_at";

/// A statement parameter SQLite and PostgreSQL both bind.
pub(crate) trait Param: rusqlite::ToSql + tokio_postgres::types::ToSql + Sync {}

impl<T> Param for T where T: rusqlite::ToSql + tokio_postgres::types::ToSql + Sync {}

/// The parameters of [`INSERT_ANSWER_EVENT`], which begin [`INSERT_CONFLICT`]'s: `kind` holds
/// the event kind's name and `answer` the answer as JSON text.
pub(crate) fn event_params<'a>(
    event: &'a NewAnswerEvent<'_>,
    kind: &'a &'static str,
    answer: &'a dyn Param,
) -> [&'a dyn Param; 10] {
    [
        &event.uid,
        &event.case_id,
        &event.rater_id,
        &event.case_revision_id,
        &event.questionnaire_id,
        kind,
        &event.answer_revision,
        answer,
        &event.reason,
        &event.at,
    ]
}

/// A value SQLite and PostgreSQL both read into the same Rust type.
pub(crate) trait Cell:
    rusqlite::types::FromSql + for<'a> tokio_postgres::types::FromSql<'a>
{
}

impl<T> Cell for T where T: rusqlite::types::FromSql + for<'a> tokio_postgres::types::FromSql<'a> {}

/// A result row of either backend, read cell by cell with the backend's errors said as the
/// store's.
pub(crate) trait Cells {
    /// The cell at `index`.
    fn cell<T: Cell>(&self, index: usize) -> Result<T, StoreError>;

    /// The store's error for a stored JSON value that cannot be read.
    fn corrupt(&self, what: &'static str, source: serde_json::Error) -> StoreError;

    /// The cell at `index`, stored as JSON text, decoded.
    fn json<T: serde::de::DeserializeOwned>(
        &self,
        index: usize,
        what: &'static str,
    ) -> Result<T, StoreError> {
        let text: String = self.cell(index)?;
        serde_json::from_str(&text).map_err(|e| self.corrupt(what, e))
    }
}

/// A row of the project file.
pub(crate) struct SqliteRow<'r, 's> {
    /// The row.
    pub row: &'r rusqlite::Row<'s>,
    /// The project file, for errors.
    pub path: &'r Path,
}

impl Cells for SqliteRow<'_, '_> {
    fn cell<T: Cell>(&self, index: usize) -> Result<T, StoreError> {
        self.row.get(index).map_err(|e| sql_err(self.path, e))
    }

    fn corrupt(&self, what: &'static str, source: serde_json::Error) -> StoreError {
        StoreError::Corrupt {
            path: self.path.to_path_buf(),
            what,
            source,
        }
    }
}

impl super::Store {
    /// A row of this project file, to decode.
    pub(crate) fn cells<'r, 's>(&'r self, row: &'r rusqlite::Row<'s>) -> SqliteRow<'r, 's> {
        SqliteRow {
            row,
            path: &self.path,
        }
    }

    /// Every row a query gives, decoded by `decode`.
    pub(crate) fn decode<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        decode: impl Fn(&SqliteRow<'_, '_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let mut out = Vec::new();
        self.each_row(sql, params, |row| {
            out.push(decode(row)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Hands every row a query gives to `each`, one at a time.
    pub(crate) fn each_row(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        mut each: impl FnMut(&SqliteRow<'_, '_>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.sql(e))?;
        let mut rows = stmt.query(params).map_err(|e| self.sql(e))?;
        while let Some(row) = rows.next().map_err(|e| self.sql(e))? {
            each(&self.cells(row))?;
        }
        Ok(())
    }
}

/// An event from a row of [`EVENT_COLUMNS`]: its answer whole, or the values of `questions`,
/// one column each.
pub(crate) fn event(
    row: &impl Cells,
    questions: Option<&[&str]>,
) -> Result<AnswerEvent, StoreError> {
    let kind: String = row.cell(6)?;
    Ok(AnswerEvent {
        id: row.cell(0)?,
        uid: row.cell(1)?,
        case_id: row.cell(2)?,
        rater_id: row.cell(3)?,
        case_revision_id: row.cell(4)?,
        questionnaire_id: row.cell(5)?,
        kind: EventKind::parse(&kind)
            .ok_or_else(|| StoreError::Rule(format!("unknown answer event kind {kind:?}")))?,
        answer_revision: row.cell(7)?,
        reason: row.cell(8)?,
        at: row.cell(9)?,
        answer: answer_from_cells(
            questions,
            |i| row.cell(10 + i),
            |e| row.corrupt("answer", e),
        )?,
    })
}

/// A conflict from a row of [`CONFLICTS`].
pub(crate) fn conflict(row: &impl Cells) -> Result<AnswerConflict, StoreError> {
    Ok(AnswerConflict {
        event: event(row, None)?,
        origin: row.cell(11)?,
        found_at: row.cell(12)?,
        resolved_at: row.cell(13)?,
        resolution: row.cell(14)?,
    })
}

/// An answer event's stored fields after its ids: case, rater, case revision, questionnaire,
/// kind, answer revision, answer (JSON), reason and time.
pub(crate) type StoredFields = (
    i64,
    i64,
    i64,
    i64,
    String,
    i64,
    String,
    Option<String>,
    String,
);

/// A stored event's fields after its row id, from a row of [`STORED_EVENT`].
pub(crate) fn stored_fields(row: &impl Cells) -> Result<StoredFields, StoreError> {
    Ok((
        row.cell(1)?,
        row.cell(2)?,
        row.cell(3)?,
        row.cell(4)?,
        row.cell(5)?,
        row.cell(6)?,
        row.cell(7)?,
        row.cell(8)?,
        row.cell(9)?,
    ))
}

/// An answer as a query of events gives it, from the cells after the event's fields: the whole
/// answer's JSON in one cell (`questions` is `None`), or the JSON of each question's value in a
/// cell of its own, `NULL` where it was not answered.
pub(crate) fn answer_from_cells(
    questions: Option<&[&str]>,
    mut cell: impl FnMut(usize) -> Result<Option<String>, StoreError>,
    corrupt: impl Fn(serde_json::Error) -> StoreError,
) -> Result<Map<String, Value>, StoreError> {
    let Some(questions) = questions else {
        return serde_json::from_str(&cell(0)?.unwrap_or_default()).map_err(corrupt);
    };
    let mut answer = Map::new();
    for (i, question) in questions.iter().enumerate() {
        if let Some(value) = cell(i)? {
            let value = serde_json::from_str(&value).map_err(&corrupt)?;
            answer.insert((*question).to_string(), value);
        }
    }
    Ok(answer)
}

/// A rater from a row of [`RATER_COLUMNS`].
pub(crate) fn rater(row: &impl Cells) -> Result<Rater, StoreError> {
    Ok(Rater {
        id: row.cell(0)?,
        name: row.cell(1)?,
        active: row.cell::<Option<String>>(2)?.is_none(),
    })
}

/// An assignment from a row of [`ASSIGNMENTS`].
pub(crate) fn assignment(row: &impl Cells) -> Result<Assignment, StoreError> {
    Ok(Assignment {
        case_id: row.cell(0)?,
        rater_id: row.cell(1)?,
        active_ms: row.cell(2)?,
    })
}

/// A package's record from a row of [`PACKAGE_KEY`].
pub(crate) fn package_key(row: &impl Cells) -> Result<PackageKey, StoreError> {
    Ok(PackageKey {
        package_id: row.cell(0)?,
        rater_id: row.cell(1)?,
        secret: row.cell(2)?,
        made_at: row.cell(3)?,
    })
}

/// An adjudication from a row of [`ADJUDICATION_COLUMNS`].
pub(crate) fn adjudication(row: &impl Cells) -> Result<AdjudicationRow, StoreError> {
    Ok(AdjudicationRow {
        id: row.cell(0)?,
        case_id: row.cell(1)?,
        question: row.cell(2)?,
        value: row.json(3, "adjudication")?,
        rationale: row.cell(4)?,
        decided_by: row.cell(5)?,
        rule: row.cell(6)?,
        at: row.cell(7)?,
    })
}

/// A reference label row from (case id, instance id, labels).
pub(crate) fn reference(row: &impl Cells) -> Result<ReferenceRow, StoreError> {
    Ok(ReferenceRow {
        case_id: row.cell(0)?,
        instance_id: row.cell(1)?,
        labels: row.json(2, "labels")?,
    })
}

/// One answer event's recorded fields from a row of [`ANSWER_EVENT_FIELDS`].
pub(crate) fn event_fields(row: &impl Cells) -> Result<(i64, Map<String, Value>), StoreError> {
    Ok((row.cell(0)?, row.json(1, "fields")?))
}

/// A repository from (name, path).
pub(crate) fn repository(row: &impl Cells) -> Result<Repository, StoreError> {
    Ok(Repository {
        name: row.cell(0)?,
        path: row.cell(1)?,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Every statement both backends run.
    const SHARED: &[&str] = &[
        STORED_EVENT,
        INSERT_ANSWER_EVENT,
        INSERT_CONFLICT,
        CONFLICTS,
        RESOLVE_CONFLICT,
        EVENT_BY_UID,
        META,
        SET_META,
        QUESTIONNAIRE_BY_VERSION,
        QUESTIONNAIRE_SOURCE,
        INSERT_RATER,
        RATER_BY_NAME,
        SET_RATER_DEACTIVATED,
        RELEASE_UNSUBMITTED,
        RATER_EVENT_COUNT,
        DELETE_RATER_ASSIGNMENTS,
        DELETE_RATER,
        ASSIGNMENTS,
        ASSIGN,
        PUT_PROVENANCE,
        PUT_SEAL,
        PUT_PACKAGE_KEY,
        PACKAGE_KEY,
        ASSIGNED_CASES,
        ADD_ACTIVE_TIME,
        ADD_ADJUDICATOR,
        REMOVE_ADJUDICATOR,
        INSERT_ADJUDICATION,
        ANSWER_EVENT_FIELDS,
        PUT_REPOSITORY,
        REMOVE_REPOSITORY,
        REPOSITORY,
        CACHED_EVIDENCE,
        PUT_SWEEP,
        SWEEP,
        ALL_SWEEPS,
        CASE_ID,
        CASE_REVISIONS,
        LATEST_REVISION_ID,
        SOURCE_HASH,
        ENSURE_RATER,
        RATER_ID,
        FIRST_SUBMISSION,
        INSERT_EVENT_FIELDS,
        PUT_REFERENCE_LABEL,
    ];

    /// The parameter numbers of a statement, in the order they first appear.
    fn first_appearances(sql: &str) -> Vec<usize> {
        let mut seen = Vec::new();
        for (i, _) in sql.match_indices('$') {
            let digits: String = sql[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let n: usize = digits.parse().unwrap();
            if !seen.contains(&n) {
                seen.push(n);
            }
        }
        seen
    }

    #[test]
    fn shared_statements_number_their_parameters_in_order() {
        for sql in SHARED {
            let seen = first_appearances(sql);
            let ordered: Vec<usize> = (1..=seen.len()).collect();
            assert_eq!(seen, ordered, "{sql}");
        }
        assert_eq!(first_appearances("a = $2 AND b = $1"), [2, 1]);
    }

    #[test]
    fn sqlite_binds_shared_statements_by_their_numbers() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let row: (i64, String, i64) = conn
            .query_row(
                "SELECT $1, $2, $1 + $3",
                rusqlite::params![1, "two", 2],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(row, (1, "two".to_string(), 3));
    }
}
