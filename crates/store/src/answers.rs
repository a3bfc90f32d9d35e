//! Answer events: append-only. Drafts, submissions and revisions are rows that are never
//! changed or deleted (the schema's triggers refuse it); the current answer is derived.

use std::path::Path;

use rusqlite::{OptionalExtension, TransactionBehavior, params, params_from_iter};
use serde::Serialize;
use serde_json::{Map, Value};

use super::shared::{self, Cells, EVENT_COLUMNS, Param, SqliteRow, StoredFields};
use super::{Store, StoreError};
use crate::sqlite::sql_err;

mod save;
pub use save::{AnswerSave, AnswerState, SavedAnswer, Sealer};
pub(crate) use save::{answer_state, landed, vanished};

/// What an answer event records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A saved draft.
    Draft,
    /// The first submission.
    Submit,
    /// A change after submission, with its reason.
    Revise,
}

impl EventKind {
    /// The kind's name as stored and shown: `draft`, `submit` or `revise`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Draft => "draft",
            EventKind::Submit => "submit",
            EventKind::Revise => "revise",
        }
    }

    pub(super) fn parse(name: &str) -> Option<EventKind> {
        match name {
            "draft" => Some(EventKind::Draft),
            "submit" => Some(EventKind::Submit),
            "revise" => Some(EventKind::Revise),
            _ => None,
        }
    }
}

/// An event to append.
#[derive(Debug, Clone)]
pub struct NewAnswerEvent<'a> {
    /// The event's global id: [`new_event_uid`] for a new event, the recorded one for an event
    /// merged from elsewhere. A retried save reuses it, so it is stored once.
    pub uid: &'a str,
    /// The case's row id.
    pub case_id: i64,
    /// The rater's row id.
    pub rater_id: i64,
    /// The case revision the rater saw.
    pub case_revision_id: i64,
    /// The questionnaire row the answer was given under.
    pub questionnaire_id: i64,
    /// What kind of event.
    pub kind: EventKind,
    /// 0 for drafts before the first submission, 1 for the first submission, n+1 for a
    /// revision of n.
    pub answer_revision: i64,
    /// The answers, question id to value.
    pub answer: &'a Map<String, Value>,
    /// Why a submitted answer was revised.
    pub reason: Option<&'a str>,
    /// When.
    pub at: &'a str,
}

/// A stored event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerEvent {
    /// Row id, local to this project.
    pub id: i64,
    /// The global id: the same in every copy of the project, and events' order in time.
    pub uid: String,
    /// The case's row id.
    pub case_id: i64,
    /// The rater's row id.
    pub rater_id: i64,
    /// The case revision the rater saw.
    pub case_revision_id: i64,
    /// The questionnaire row.
    pub questionnaire_id: i64,
    /// What kind of event.
    pub kind: EventKind,
    /// See [`NewAnswerEvent::answer_revision`].
    pub answer_revision: i64,
    /// The answers.
    pub answer: Map<String, Value>,
    /// Why it was revised.
    pub reason: Option<String>,
    /// When.
    pub at: String,
}

/// The refusal of an event whose global id a different stored event holds.
fn stored_otherwise(uid: &str) -> StoreError {
    StoreError::Rule(format!(
        "answer event {uid} is stored already with different content; it was not stored again"
    ))
}

/// The columns of an event after its id and uid, but its answer, which comes last: whole, or
/// a few of its values ([`Store::query_submissions`]).
const EVENT_FIELDS: &str =
    "case_id, rater_id, case_revision_id, questionnaire_id, kind, answer_revision, reason, at";

/// A new event's global id: a UUID v7, so ids sort in the order events were made.
pub fn new_event_uid() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The one insert of an answer event, for the store and for an import session alike. An event
/// whose global id is stored already is not stored twice: the same event again (a retried save,
/// a package merged twice) gives the stored row's id; a different event under that id is refused.
/// A new event must follow its rater's history on its case ([`check_follows`]); the caller holds
/// the write lock (an `IMMEDIATE` transaction), so no other writer moves the history meanwhile.
pub(super) fn insert_answer_event(
    conn: &rusqlite::Connection,
    path: &Path,
    event: &NewAnswerEvent<'_>,
) -> Result<i64, StoreError> {
    let answer = serde_json::to_string(event.answer).map_err(|source| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: "answer",
        source,
    })?;
    let mut stmt = conn
        .prepare_cached(shared::STORED_EVENT)
        .map_err(|e| sql_err(path, e))?;
    let mut rows = stmt.query([event.uid]).map_err(|e| sql_err(path, e))?;
    if let Some(row) = rows.next().map_err(|e| sql_err(path, e))? {
        let row = SqliteRow { row, path };
        same_event(event, &answer, shared::stored_fields(&row)?)?;
        return row.cell(0);
    }
    let (last, first, newest): (Option<i64>, Option<String>, Option<String>) = conn
        .query_row(HISTORY, params![event.case_id, event.rater_id], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })
        .map_err(|e| sql_err(path, e))?;
    check_follows(event, last, first.as_deref(), newest.as_deref())?;
    conn.query_row(
        shared::INSERT_ANSWER_EVENT,
        params_from_iter(shared::event_params(event, &event.kind.as_str(), &answer)),
        |row| row.get(0),
    )
    .map_err(|e| sql_err(path, e))
}

/// Where a rater's answer on a task stands, for [`check_follows`]: the highest submitted
/// revision, the global id of the first submitted event and that of the latest event of any
/// kind (`?1` is the case, `?2` the rater); the server asks the same.
const HISTORY: &str = "SELECT
       MAX(CASE WHEN kind <> 'draft' THEN answer_revision END),
       MIN(CASE WHEN kind <> 'draft' THEN uid END),
       MAX(uid)
     FROM answer_events WHERE case_id = ?1 AND rater_id = ?2";

/// Refuses an event that does not follow its rater's history on its case, given the highest
/// submitted revision stored (`last`), the global id of the first submitted event (`first`) and
/// of the latest event (`newest`): a draft comes before the first submission; a submission is
/// revision 1 of an answer not yet submitted, a revision the one after the last, and either
/// comes after every event in id order (the order answers are read in). So two events never
/// share a revision, and a draft never follows a submitted answer, whichever writer, process or
/// package comes second. Shared by both backends.
pub(crate) fn check_follows(
    event: &NewAnswerEvent<'_>,
    last: Option<i64>,
    first: Option<&str>,
    newest: Option<&str>,
) -> Result<(), StoreError> {
    let latest = newest.is_none_or(|newest| event.uid > newest);
    let follows = match event.kind {
        EventKind::Draft => {
            event.answer_revision == 0 && first.is_none_or(|first| event.uid < first)
        }
        EventKind::Submit => event.answer_revision == 1 && last.is_none() && latest,
        EventKind::Revise => last.is_some_and(|n| event.answer_revision == n + 1) && latest,
    };
    if follows {
        return Ok(());
    }
    let stored = match last {
        None => "no submitted answer".to_string(),
        Some(n) => format!("submitted revision {n}"),
    };
    let given = match event.kind {
        EventKind::Draft => "a draft".to_string(),
        EventKind::Submit => "a submission (revision 1)".to_string(),
        EventKind::Revise => format!("revision {}", event.answer_revision),
    };
    Err(StoreError::HistoryMoved(format!(
        "answer event {} is {given}, but the rater's answer on this task stands at {stored}",
        event.uid
    )))
}

/// Refuses an event that reuses the global id of a different stored event.
pub(super) fn same_event(
    event: &NewAnswerEvent<'_>,
    answer: &str,
    stored: StoredFields,
) -> Result<(), StoreError> {
    let given: StoredFields = (
        event.case_id,
        event.rater_id,
        event.case_revision_id,
        event.questionnaire_id,
        event.kind.as_str().to_string(),
        event.answer_revision,
        answer.to_string(),
        event.reason.map(str::to_string),
        event.at.to_string(),
    );
    if given == stored {
        Ok(())
    } else {
        Err(stored_otherwise(event.uid))
    }
}

/// Which submitted answers to read, and how much of each: a panel's statistics read a few
/// values of every answer, an export reads whole answers a slice of cases at a time.
#[derive(Debug, Clone, Copy, Default)]
pub struct SubmissionFilter<'a> {
    /// Only the answers on these cases (row ids); every case's when absent.
    pub cases: Option<&'a [i64]>,
    /// Only these questions' values in each answer (a question not answered is left out, the
    /// other values, notes and free text among them, stay in the store unread); the whole
    /// answer when absent.
    pub questions: Option<&'a [&'a str]>,
}

/// An answer event that did not follow its rater's history where it arrived (a package's
/// revision beside the project's own, an event stored twice under one revision by an older
/// Verity): kept whole, with where it came from, until the coordinator settles it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerConflict {
    /// The event as it came; its `id` is the conflict's number.
    pub event: AnswerEvent,
    /// Where it came from: the package file and its rater, or why it was set aside.
    pub origin: String,
    /// When it was set aside.
    pub found_at: String,
    /// When the coordinator settled it.
    pub resolved_at: Option<String>,
    /// How it was settled.
    pub resolution: Option<String>,
}

/// Answer events: appended, never changed or deleted.
pub trait AnswerStore {
    /// Appends one event, which must follow its rater's history on its case (see
    /// [`check_follows`]); [`StoreError::HistoryMoved`] when another writer moved it first.
    fn append_answer_event(&mut self, event: &NewAnswerEvent<'_>) -> Result<i64, StoreError>;

    /// Saves a rater's answer event with what goes with it ([`AnswerSave`]) in one transaction,
    /// under the lock every writer of that answer takes: reads where the answer stands, asks
    /// `decide` for the event's answer revision (`None` stores nothing at all), then writes the
    /// assignment and the provenance when the save holds them, and the event, which must
    /// follow the history ([`check_follows`]). An event stored under the save's global id
    /// already is [`landed`]: given back when it is this save's own, refused otherwise.
    fn save_answer(
        &mut self,
        save: &AnswerSave<'_>,
        decide: &mut dyn FnMut(&AnswerState) -> Option<i64>,
    ) -> Result<SavedAnswer, StoreError>;

    /// Keeps an event that does not follow its history as an open conflict, with its origin;
    /// the conflict's number, or `None` when that event is kept already.
    fn record_conflict(
        &mut self,
        event: &NewAnswerEvent<'_>,
        origin: &str,
        found_at: &str,
    ) -> Result<Option<i64>, StoreError>;

    /// Every conflict, open and settled, in the order found.
    fn answer_conflicts(&self) -> Result<Vec<AnswerConflict>, StoreError>;

    /// Marks an open conflict settled; false when there is no open conflict `id`.
    fn resolve_conflict(
        &mut self,
        id: i64,
        resolution: &str,
        now: &str,
    ) -> Result<bool, StoreError>;

    /// A rater's events on a case, oldest first.
    fn answer_events(&self, case_id: i64, rater_id: i64) -> Result<Vec<AnswerEvent>, StoreError>;

    /// The latest event of every (case, rater) pair.
    fn latest_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError>;

    /// Every rater's first submission on every case: the blind answers agreement is measured
    /// on, given before any discussion or revision.
    fn first_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError>;

    /// Every submitted answer's latest revision, per (case, rater).
    fn latest_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError>;

    /// [`Self::first_submissions`] of some cases, or with only some values of each answer.
    fn first_submissions_by(
        &self,
        filter: &SubmissionFilter<'_>,
    ) -> Result<Vec<AnswerEvent>, StoreError>;

    /// [`Self::latest_submissions`] of some cases, or with only some values of each answer.
    fn latest_submissions_by(
        &self,
        filter: &SubmissionFilter<'_>,
    ) -> Result<Vec<AnswerEvent>, StoreError>;

    /// How many submissions and revisions the cases of `filter` hold. When there are as many
    /// as (case, rater) pairs with a submission, every latest submission is its pair's first.
    fn count_submissions(&self, filter: &SubmissionFilter<'_>) -> Result<usize, StoreError>;

    /// Every event of every case and rater, oldest first.
    fn all_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError>;

    /// The event with this global id, if the project holds it.
    fn answer_event_by_uid(&self, uid: &str) -> Result<Option<AnswerEvent>, StoreError>;
}

impl AnswerStore for Store {
    fn append_answer_event(&mut self, event: &NewAnswerEvent<'_>) -> Result<i64, StoreError> {
        // IMMEDIATE takes the file's write lock before the history is read: another process
        // saving the same rater's answer waits (the busy timeout) and then reads this event.
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql_err(path, e))?;
        let id = insert_answer_event(&tx, path, event)?;
        tx.commit().map_err(|e| sql_err(path, e))?;
        Ok(id)
    }

    fn save_answer(
        &mut self,
        save: &AnswerSave<'_>,
        decide: &mut dyn FnMut(&AnswerState) -> Option<i64>,
    ) -> Result<SavedAnswer, StoreError> {
        save::save_answer(&mut self.conn, &self.path, save, decide)
    }

    fn record_conflict(
        &mut self,
        event: &NewAnswerEvent<'_>,
        origin: &str,
        found_at: &str,
    ) -> Result<Option<i64>, StoreError> {
        let answer = serde_json::to_string(event.answer).map_err(|e| self.corrupt("answer", e))?;
        self.conn
            .query_row(
                shared::INSERT_CONFLICT,
                params_from_iter(
                    shared::event_params(event, &event.kind.as_str(), &answer)
                        .into_iter()
                        .chain([&origin as &dyn Param, &found_at]),
                ),
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    fn answer_conflicts(&self) -> Result<Vec<AnswerConflict>, StoreError> {
        self.decode(shared::CONFLICTS, [], |row| shared::conflict(row))
    }

    fn resolve_conflict(
        &mut self,
        id: i64,
        resolution: &str,
        now: &str,
    ) -> Result<bool, StoreError> {
        let changed = self
            .conn
            .execute(shared::RESOLVE_CONFLICT, params![now, resolution, id])
            .map_err(|e| self.sql(e))?;
        Ok(changed == 1)
    }

    fn answer_events(&self, case_id: i64, rater_id: i64) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!(
                "SELECT {EVENT_COLUMNS} FROM answer_events WHERE case_id = ?1 AND rater_id = ?2 ORDER BY uid"
            ),
            params![case_id, rater_id],
        )
    }

    fn latest_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!(
                "SELECT {EVENT_COLUMNS} FROM answer_events WHERE uid IN
                   (SELECT MAX(uid) FROM answer_events GROUP BY case_id, rater_id)
                 ORDER BY case_id, rater_id"
            ),
            [],
        )
    }

    fn first_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.first_submissions_by(&SubmissionFilter::default())
    }

    fn latest_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.latest_submissions_by(&SubmissionFilter::default())
    }

    fn first_submissions_by(
        &self,
        filter: &SubmissionFilter<'_>,
    ) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_submissions("MIN(uid)", "kind = 'submit'", filter)
    }

    fn latest_submissions_by(
        &self,
        filter: &SubmissionFilter<'_>,
    ) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_submissions("MAX(uid)", "kind IN ('submit', 'revise')", filter)
    }

    fn count_submissions(&self, filter: &SubmissionFilter<'_>) -> Result<usize, StoreError> {
        // Counted from the (rater, case, kind) index alone: no answer is read.
        let count: i64 = match filter.cases {
            None => self.conn.query_row(
                "SELECT COUNT(*) FROM answer_events WHERE kind IN ('submit', 'revise')",
                [],
                |row| row.get(0),
            ),
            Some(ids) => self.conn.query_row(
                "SELECT COUNT(*) FROM answer_events WHERE kind IN ('submit', 'revise')
                 AND case_id IN (SELECT value FROM json_each(?1))",
                [serde_json::Value::from(ids.to_vec()).to_string()],
                |row| row.get(0),
            ),
        }
        .map_err(|e| self.sql(e))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    fn all_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!("SELECT {EVENT_COLUMNS} FROM answer_events ORDER BY uid"),
            [],
        )
    }

    fn answer_event_by_uid(&self, uid: &str) -> Result<Option<AnswerEvent>, StoreError> {
        Ok(self.query_events(shared::EVENT_BY_UID, [uid])?.pop())
    }
}

impl Store {
    /// One submitted event per (case, rater): the one whose uid is `pick` (`MIN(uid)` or
    /// `MAX(uid)`, the query's only aggregate) among the events of `kinds`, as `filter` says. A few values are taken out of
    /// the stored JSON by SQLite (`->` gives each as JSON text, exactly as stored; a question
    /// not answered gives `NULL`), so only those are decoded here.
    fn query_submissions(
        &self,
        pick: &str,
        kinds: &str,
        filter: &SubmissionFilter<'_>,
    ) -> Result<Vec<AnswerEvent>, StoreError> {
        let mut params: Vec<String> = Vec::new();
        let columns: String = match filter.questions {
            None => ", answer".into(),
            Some(questions) => questions
                .iter()
                .map(|q| {
                    // A JSON path quotes the key; a key holding a quote cannot be quoted in a
                    // path, so that one is found by name among the answer's keys instead.
                    if q.contains('"') {
                        params.push((*q).to_string());
                        format!(
                            ", (SELECT answer -> fullkey FROM json_each(answer) WHERE key = ?{})",
                            params.len()
                        )
                    } else {
                        params.push(format!("$.\"{q}\""));
                        format!(", answer -> ?{}", params.len())
                    }
                })
                .collect(),
        };
        let cases = match filter.cases {
            None => String::new(),
            Some(ids) => {
                params.push(serde_json::Value::from(ids.to_vec()).to_string());
                format!(
                    " AND case_id IN (SELECT value FROM json_each(?{}))",
                    params.len()
                )
            }
        };
        // SQLite takes a bare column of a query whose one aggregate is MIN or MAX from the row
        // that aggregate picked, so one pass over the (case, rater, uid) index finds each
        // pair's event, in the order given, with no second lookup by uid and no sort.
        let sql = format!(
            "SELECT id, {pick}, {EVENT_FIELDS}{columns} FROM answer_events WHERE {kinds}{cases}
             GROUP BY case_id, rater_id ORDER BY case_id, rater_id"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.sql(e))?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(&params))
            .map_err(|e| self.sql(e))?;
        let mut events = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.sql(e))? {
            events.push(shared::event(&self.cells(row), filter.questions)?);
        }
        Ok(events)
    }

    fn query_events(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<AnswerEvent>, StoreError> {
        self.decode(sql, params, |row| shared::event(row, None))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::prelude::*;
    use verity_task::case::{CaseRecord, Encoded, SourceKind};

    #[test]
    fn answer_events_cannot_be_changed_or_deleted() {
        let mut store = Store::open_in_memory().unwrap();
        let mut session = store.begin_import("t").unwrap();
        session
            .put_record(
                SourceKind::Dataset,
                "f",
                &Encoded::new(CaseRecord {
                    instance_id: "a".into(),
                    ..CaseRecord::default()
                }),
            )
            .unwrap();
        session.finish().unwrap();
        let case = store.case_by_instance("a").unwrap().unwrap();
        let rater = store.add_rater("ana", "t").unwrap();
        let q = store.put_questionnaire("q", "1", "src").unwrap();
        let answer = Map::new();
        store
            .append_answer_event(&NewAnswerEvent {
                uid: &new_event_uid(),
                case_id: case.case_id,
                rater_id: rater.id,
                case_revision_id: case.revision_id,
                questionnaire_id: q,
                kind: EventKind::Submit,
                answer_revision: 1,
                answer: &answer,
                reason: None,
                at: "t",
            })
            .unwrap();
        let update = store
            .conn
            .execute("UPDATE answer_events SET answer = '{}'", []);
        assert!(update.is_err(), "a submitted answer is never overwritten");
        let delete = store.conn.execute("DELETE FROM answer_events", []);
        assert!(delete.is_err(), "a submitted answer is never deleted");
        assert_eq!(store.first_submissions().unwrap().len(), 1);
    }
}
