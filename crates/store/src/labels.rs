//! What a panel's coordinator works with besides raters' answers: adjudications, reference label
//! sets published by others, and the columns of imported answers that are not questions.
//!
//! Imported ratings are written inside an [`ImportSession`], so a ratings file with one bad row
//! stores nothing, together with the stub cases it needs.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::{Map, Value};

use super::answers::NewAnswerEvent;
use super::shared::{self, ADJUDICATION_COLUMNS};
use super::{ImportSession, Store, StoreError};
use crate::sqlite::sql_err;

/// An adjudicator's decision on one question of one case, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct AdjudicationRow {
    /// Row id (increasing in time).
    pub id: i64,
    /// The case's row id.
    pub case_id: i64,
    /// The question's id.
    pub question: String,
    /// The final value.
    pub value: Value,
    /// Why.
    pub rationale: String,
    /// Who decided.
    pub decided_by: String,
    /// The rule recorded with it (`adjudicated`).
    pub rule: String,
    /// When.
    pub at: String,
}

/// A label set published by others, per case.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceRow {
    /// The case's row id.
    pub case_id: i64,
    /// The task's id.
    pub instance_id: String,
    /// The labels, as the importer structured them.
    pub labels: Value,
}

/// A submitted answer and when it was given.
pub type Submission = (Map<String, Value>, String);

/// (case row id, rater row id) to the times of the pair's first and latest answer events.
pub type EventSpans = HashMap<(i64, i64), (String, String)>;

fn tx_path<'t>(tx: &'t Transaction<'_>) -> &'t Path {
    Path::new(tx.path().unwrap_or(":memory:"))
}

fn corrupt(path: &Path, what: &'static str, source: serde_json::Error) -> StoreError {
    StoreError::Corrupt {
        path: path.to_path_buf(),
        what,
        source,
    }
}

/// What an import of OpenAI's annotation files writes besides cases, inside the import's
/// transaction.
pub trait ImportLabels {
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

impl ImportLabels for ImportSession<'_> {
    fn revision_for_answers(&self, instance_id: &str) -> Result<(i64, i64), StoreError> {
        let tx = self.transaction();
        let path = tx_path(tx);
        let case_id: i64 = tx
            .query_row(shared::CASE_ID, [instance_id], |row| row.get(0))
            .optional()
            .map_err(|e| sql_err(path, e))?
            .ok_or_else(|| {
                StoreError::Rule(format!(
                    "the project has no case {instance_id:?} to attach answers to"
                ))
            })?;
        // Every source a case gets settles its revision at once, so a case made in this
        // import has one too.
        let id = tx
            .query_row(shared::LATEST_REVISION_ID, [case_id], |row| row.get(0))
            .optional()
            .map_err(|e| sql_err(path, e))?
            .ok_or_else(|| {
                StoreError::Rule(format!("case {instance_id:?} has no revision after import"))
            })?;
        Ok((case_id, id))
    }

    fn ensure_rater(&self, name: &str, now: &str) -> Result<i64, StoreError> {
        let tx = self.transaction();
        let path = tx_path(tx);
        tx.execute(shared::ENSURE_RATER, params![name, now])
            .map_err(|e| sql_err(path, e))?;
        tx.query_row(shared::RATER_ID, [name], |row| row.get(0))
            .map_err(|e| sql_err(path, e))
    }

    fn submission_of(&self, case_id: i64, rater_id: i64) -> Result<Option<Submission>, StoreError> {
        let tx = self.transaction();
        let path = tx_path(tx);
        let row: Option<(String, String)> = tx
            .query_row(
                shared::FIRST_SUBMISSION,
                params![case_id, rater_id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(|e| sql_err(path, e))?;
        row.map(|(answer, at)| {
            Ok((
                serde_json::from_str(&answer).map_err(|e| corrupt(path, "answer", e))?,
                at,
            ))
        })
        .transpose()
    }

    fn append_imported_answer(
        &self,
        event: &NewAnswerEvent<'_>,
        origin: &str,
        fields: &Map<String, Value>,
    ) -> Result<i64, StoreError> {
        let tx = self.transaction();
        let path = tx_path(tx);
        let id = super::answers::insert_answer_event(tx, path, event)?;
        let fields = serde_json::to_string(fields).map_err(|e| corrupt(path, "fields", e))?;
        tx.execute(shared::INSERT_EVENT_FIELDS, params![id, origin, fields])
            .map_err(|e| sql_err(path, e))?;
        Ok(id)
    }

    fn put_reference_label(
        &self,
        label_set: &str,
        case_id: i64,
        labels: &Value,
        origin: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        let tx = self.transaction();
        let path = tx_path(tx);
        let labels = serde_json::to_string(labels).map_err(|e| corrupt(path, "labels", e))?;
        tx.execute(
            shared::PUT_REFERENCE_LABEL,
            params![label_set, case_id, labels, origin, now],
        )
        .map_err(|e| sql_err(path, e))?;
        Ok(())
    }

    fn case_row_id(&self, instance_id: &str) -> Result<Option<i64>, StoreError> {
        let tx = self.transaction();
        tx.query_row(shared::CASE_ID, [instance_id], |row| row.get(0))
            .optional()
            .map_err(|e| sql_err(tx_path(tx), e))
    }
}

/// An adjudication to record.
#[derive(Debug, Clone)]
pub struct NewAdjudication<'a> {
    /// The case's row id.
    pub case_id: i64,
    /// The question's id.
    pub question: &'a str,
    /// The final value.
    pub value: &'a Value,
    /// Why.
    pub rationale: &'a str,
    /// Who decided.
    pub decided_by: &'a str,
    /// The rule's name (`adjudicated`).
    pub rule: &'a str,
    /// When.
    pub at: &'a str,
}

/// Adjudications, adjudicators, reference labels and imported answers' fields.
pub trait LabelStore {
    /// Names an adjudicator; naming one twice changes nothing.
    fn add_adjudicator(&mut self, name: &str, now: &str) -> Result<(), StoreError>;

    /// Removes an adjudicator (their decisions stay); false when there was none by that name.
    fn remove_adjudicator(&mut self, name: &str) -> Result<bool, StoreError>;

    /// The named adjudicators, by name.
    fn list_adjudicators(&self) -> Result<Vec<String>, StoreError>;

    /// Records an adjudication; earlier ones on the same question stay as history and the
    /// latest applies.
    fn add_adjudication(&mut self, decision: &NewAdjudication<'_>) -> Result<i64, StoreError>;

    /// The latest adjudication of every (case, question).
    fn latest_adjudications(&self) -> Result<Vec<AdjudicationRow>, StoreError>;

    /// The names of the reference label sets with how many cases each labels.
    fn reference_sets(&self) -> Result<Vec<(String, usize)>, StoreError>;

    /// Hands every case's labels in one reference set to `each`, by instance id, one row at a
    /// time, so that a caller keeping what it needs never holds every row's labels at once.
    fn each_reference_label(
        &self,
        label_set: &str,
        each: &mut dyn FnMut(ReferenceRow),
    ) -> Result<(), StoreError>;

    /// Every case's labels in one reference set, by instance id.
    fn reference_labels(&self, label_set: &str) -> Result<Vec<ReferenceRow>, StoreError> {
        let mut rows = Vec::new();
        self.each_reference_label(label_set, &mut |row| rows.push(row))?;
        Ok(rows)
    }

    /// The calibration tasks' instance ids, in id order.
    fn calibration_tasks(&self) -> Result<Vec<String>, StoreError>;

    /// Marks cases as calibration tasks (or, with `calibration` false, unmarks them) in one
    /// transaction; returns how many changed.
    fn set_calibration(
        &mut self,
        case_ids: &[i64],
        calibration: bool,
        now: &str,
    ) -> Result<usize, StoreError>;

    /// The kept source columns of imported answer events, by event id.
    fn answer_event_fields(&self) -> Result<HashMap<i64, Map<String, Value>>, StoreError>;

    /// When each (case, rater) pair's first and latest answer events were saved.
    fn answer_event_span(&self) -> Result<EventSpans, StoreError>;

    /// Every case's row id with its instance id, which answers and labels are reported by;
    /// no case content is read.
    fn case_instance_ids(&self) -> Result<Vec<(i64, String)>, StoreError>;
}

impl LabelStore for Store {
    fn add_adjudicator(&mut self, name: &str, now: &str) -> Result<(), StoreError> {
        self.execute(shared::ADD_ADJUDICATOR, params![name, now])?;
        Ok(())
    }

    fn remove_adjudicator(&mut self, name: &str) -> Result<bool, StoreError> {
        let removed = self
            .conn
            .execute(shared::REMOVE_ADJUDICATOR, [name])
            .map_err(|e| self.sql(e))?;
        Ok(removed > 0)
    }

    fn list_adjudicators(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT name FROM adjudicators ORDER BY name")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| row.get(0))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    fn add_adjudication(&mut self, d: &NewAdjudication<'_>) -> Result<i64, StoreError> {
        let value = serde_json::to_string(d.value).map_err(|e| self.corrupt("adjudication", e))?;
        self.conn
            .query_row(
                shared::INSERT_ADJUDICATION,
                params![
                    d.case_id,
                    d.question,
                    value,
                    d.rationale,
                    d.decided_by,
                    d.rule,
                    d.at
                ],
                |row| row.get(0),
            )
            .map_err(|e| self.sql(e))
    }

    fn latest_adjudications(&self) -> Result<Vec<AdjudicationRow>, StoreError> {
        self.decode(
            &format!(
                "SELECT {ADJUDICATION_COLUMNS} FROM adjudications WHERE id IN
                   (SELECT MAX(id) FROM adjudications GROUP BY case_id, question_id)
                 ORDER BY case_id, question_id"
            ),
            [],
            |row| shared::adjudication(row),
        )
    }

    fn reference_sets(&self) -> Result<Vec<(String, usize)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT label_set, COUNT(*) FROM reference_labels GROUP BY label_set ORDER BY label_set",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as usize))
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    fn case_instance_ids(&self) -> Result<Vec<(i64, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, instance_id FROM cases ORDER BY instance_id")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    fn calibration_tasks(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT c.instance_id FROM calibration_tasks k JOIN cases c ON c.id = k.case_id
                 ORDER BY c.instance_id",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| row.get(0))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    fn set_calibration(
        &mut self,
        case_ids: &[i64],
        calibration: bool,
        now: &str,
    ) -> Result<usize, StoreError> {
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| sql_err(&path, e))?;
        let mut changed = 0;
        {
            // Unmarking binds the time too, so both statements take the same parameters.
            let sql = if calibration {
                "INSERT OR IGNORE INTO calibration_tasks(case_id, marked_at) VALUES (?1, ?2)"
            } else {
                "DELETE FROM calibration_tasks WHERE case_id = ?1 AND ?2 IS NOT NULL"
            };
            let mut stmt = tx.prepare(sql).map_err(|e| sql_err(&path, e))?;
            for id in case_ids {
                changed += stmt
                    .execute(params![id, now])
                    .map_err(|e| sql_err(&path, e))?;
            }
        }
        tx.commit().map_err(|e| sql_err(&path, e))?;
        Ok(changed)
    }

    fn each_reference_label(
        &self,
        label_set: &str,
        each: &mut dyn FnMut(ReferenceRow),
    ) -> Result<(), StoreError> {
        self.each_row(
            "SELECT r.case_id, c.instance_id, r.labels FROM reference_labels r
             JOIN cases c ON c.id = r.case_id WHERE r.label_set = ?1 ORDER BY c.instance_id",
            [label_set],
            |row| {
                each(shared::reference(row)?);
                Ok(())
            },
        )
    }

    fn answer_event_fields(&self) -> Result<HashMap<i64, Map<String, Value>>, StoreError> {
        Ok(self
            .decode(shared::ANSWER_EVENT_FIELDS, [], |row| {
                shared::event_fields(row)
            })?
            .into_iter()
            .collect())
    }

    fn answer_event_span(&self) -> Result<EventSpans, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT g.case_id, g.rater_id, f.at, l.at FROM
                   (SELECT case_id, rater_id, MIN(uid) AS first_uid, MAX(uid) AS last_uid
                    FROM answer_events GROUP BY case_id, rater_id) g
                 JOIN answer_events f ON f.uid = g.first_uid
                 JOIN answer_events l ON l.uid = g.last_uid",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    (row.get::<_, i64>(0)?, row.get::<_, i64>(1)?),
                    (row.get::<_, String>(2)?, row.get::<_, String>(3)?),
                ))
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::prelude::*;
    use crate::{EventKind, new_event_uid};

    #[test]
    fn imported_answers_on_a_new_case_point_at_a_settled_stub_revision() {
        let mut store = Store::open_in_memory().unwrap();
        let q = store.put_questionnaire("q", "1", "src").unwrap();
        let mut session = store.begin_import("t").unwrap();
        assert!(session.ensure_case("a", "ann.csv").unwrap());
        let (case_id, revision_id) = session.revision_for_answers("a").unwrap();
        let rater = session.ensure_rater("17", "t").unwrap();
        assert_eq!(session.ensure_rater("17", "t").unwrap(), rater);
        let mut answer = Map::new();
        answer.insert("underspecified".into(), Value::from(1));
        let mut fields = Map::new();
        fields.insert("claimed_at".into(), Value::from("2024-01-01"));
        session
            .append_imported_answer(
                &NewAnswerEvent {
                    uid: &new_event_uid(),
                    case_id,
                    rater_id: rater,
                    case_revision_id: revision_id,
                    questionnaire_id: q,
                    kind: EventKind::Submit,
                    answer_revision: 1,
                    answer: &answer,
                    reason: None,
                    at: "t",
                },
                "ann.csv:line 2",
                &fields,
            )
            .unwrap();
        assert!(session.submission_of(case_id, rater).unwrap().is_some());
        let summary = session.finish().unwrap();
        assert_eq!(summary.added, 1);
        let rows = store.list_cases().unwrap();
        assert_eq!(
            rows[0].revision, 1,
            "settling early does not make a second revision"
        );
        assert!(!rows[0].has_materials);
        let kept = store.answer_event_fields().unwrap();
        assert_eq!(kept.values().next().unwrap()["claimed_at"], "2024-01-01");
    }

    #[test]
    fn the_latest_adjudication_applies_and_earlier_ones_stay() {
        let mut store = Store::open_in_memory().unwrap();
        let mut session = store.begin_import("t").unwrap();
        session.ensure_case("a", "x").unwrap();
        session.finish().unwrap();
        let case = store.case_by_instance("a").unwrap().unwrap();
        for (value, rationale, at) in [
            ("1-4 hours", "first", "t1"),
            (">4 hours", "second look", "t2"),
        ] {
            store
                .add_adjudication(&NewAdjudication {
                    case_id: case.case_id,
                    question: "difficulty",
                    value: &Value::from(value),
                    rationale,
                    decided_by: "lead",
                    rule: "adjudicated",
                    at,
                })
                .unwrap();
        }
        let latest = store.latest_adjudications().unwrap();
        assert_eq!(latest.len(), 1);
        assert_eq!(latest[0].value, Value::from(">4 hours"));
        let count: i64 = store
            .conn
            .query_row("SELECT COUNT(*) FROM adjudications", [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, 2, "an adjudication never erases an earlier one");
    }
}
