//! Answer events: append-only. Drafts, submissions and revisions are rows that are never
//! changed or deleted (the schema's triggers refuse it); the current answer is derived.

use std::path::Path;

use rusqlite::params;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{Store, StoreError, sql_err};

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
    fn as_str(self) -> &'static str {
        match self {
            EventKind::Draft => "draft",
            EventKind::Submit => "submit",
            EventKind::Revise => "revise",
        }
    }

    fn parse(name: &str) -> Option<EventKind> {
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
    /// Row id (increasing in time).
    pub id: i64,
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

const EVENT_COLUMNS: &str = "id, case_id, rater_id, case_revision_id, questionnaire_id, kind, \
     answer_revision, answer, reason, at";

/// The one insert of an answer event, for the store and for an import session alike.
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
    conn.execute(
        "INSERT INTO answer_events(case_id, rater_id, case_revision_id, questionnaire_id,
           kind, answer_revision, answer, reason, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            event.case_id,
            event.rater_id,
            event.case_revision_id,
            event.questionnaire_id,
            event.kind.as_str(),
            event.answer_revision,
            answer,
            event.reason,
            event.at
        ],
    )
    .map_err(|e| sql_err(path, e))?;
    Ok(conn.last_insert_rowid())
}

/// Answer events: appended, never changed or deleted.
pub trait AnswerStore {
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
}

impl AnswerStore for Store {
    fn append_answer_event(&mut self, event: &NewAnswerEvent<'_>) -> Result<i64, StoreError> {
        insert_answer_event(&self.conn, &self.path, event)
    }

    fn answer_events(&self, case_id: i64, rater_id: i64) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!(
                "SELECT {EVENT_COLUMNS} FROM answer_events WHERE case_id = ?1 AND rater_id = ?2 ORDER BY id"
            ),
            params![case_id, rater_id],
        )
    }

    fn latest_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!(
                "SELECT {EVENT_COLUMNS} FROM answer_events WHERE id IN
                   (SELECT MAX(id) FROM answer_events GROUP BY case_id, rater_id)
                 ORDER BY case_id, rater_id"
            ),
            [],
        )
    }

    fn first_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!(
                "SELECT {EVENT_COLUMNS} FROM answer_events WHERE id IN
                   (SELECT MIN(id) FROM answer_events WHERE kind = 'submit' GROUP BY case_id, rater_id)
                 ORDER BY case_id, rater_id"
            ),
            [],
        )
    }

    fn latest_submissions(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!(
                "SELECT {EVENT_COLUMNS} FROM answer_events WHERE id IN
                   (SELECT MAX(id) FROM answer_events WHERE kind IN ('submit', 'revise') GROUP BY case_id, rater_id)
                 ORDER BY case_id, rater_id"
            ),
            [],
        )
    }

    fn all_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!("SELECT {EVENT_COLUMNS} FROM answer_events ORDER BY id"),
            [],
        )
    }
}

impl Store {
    fn query_events(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<AnswerEvent>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params, |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, i64>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, i64>(6)?,
                    row.get::<_, String>(7)?,
                    row.get::<_, Option<String>>(8)?,
                    row.get::<_, String>(9)?,
                ))
            })
            .map_err(|e| self.sql(e))?;
        let mut events = Vec::new();
        for row in rows {
            let (
                id,
                case_id,
                rater_id,
                case_revision_id,
                questionnaire_id,
                kind,
                rev,
                answer,
                reason,
                at,
            ) = row.map_err(|e| self.sql(e))?;
            events.push(AnswerEvent {
                id,
                case_id,
                rater_id,
                case_revision_id,
                questionnaire_id,
                kind: EventKind::parse(&kind).ok_or_else(|| {
                    StoreError::Rule(format!("unknown answer event kind {kind:?}"))
                })?,
                answer_revision: rev,
                answer: serde_json::from_str(&answer).map_err(|e| self.corrupt("answer", e))?,
                reason,
                at,
            });
        }
        Ok(events)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::case::{CaseRecord, SourceKind};
    use crate::store::prelude::*;

    #[test]
    fn answer_events_cannot_be_changed_or_deleted() {
        let mut store = Store::open_in_memory().unwrap();
        let mut session = store.begin_import("t").unwrap();
        session
            .put_record(
                SourceKind::Dataset,
                "f",
                &CaseRecord {
                    instance_id: "a".into(),
                    ..CaseRecord::default()
                },
            )
            .unwrap();
        session.finish().unwrap();
        let case = store.case_by_instance("a").unwrap().unwrap();
        let rater = store.add_rater("ana", "t").unwrap();
        let q = store.put_questionnaire("q", "1", "src").unwrap();
        let answer = Map::new();
        store
            .append_answer_event(&NewAnswerEvent {
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
