//! Raters, assignments, answer events, adjudications, reference labels, clones and the evidence
//! cache on the server, with the project file's behaviour, and the connection that listens for
//! other sessions' answers.

use std::collections::HashMap;
use std::sync::mpsc::Sender;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Map, Value};
use tokio_postgres::AsyncMessage;

use super::{Client, Failure, PgStore};
use crate::store::answers::answer_from_cells;
use crate::store::answers::{StoredFields, check_follows, same_event};
use crate::store::raters::check_name_free;
use crate::store::repos::{case_risks_sql, risk_permille};
use crate::store::{
    AdjudicationRow, AnswerConflict, AnswerEvent, AnswerStore, AnswersChanged, Assignment,
    CachedEvidence, EventKind, EventSpans, EvidenceKey, LabelStore, NewAdjudication,
    NewAnswerEvent, Rater, RaterStore, ReferenceRow, RepoStore, Repository, StoreError,
    SubmissionFilter,
};

/// The columns of an event but its answer, which comes last: whole, or a few of its values
/// ([`PgStore::query_submissions`]).
const EVENT_FIELDS: &str = "id, uid, case_id, rater_id, case_revision_id, questionnaire_id, \
     kind, answer_revision, reason, at";

/// Every column of an event, in the order [`PgStore::event_from_row`] reads them.
const EVENT_COLUMNS: &str = "id, uid, case_id, rater_id, case_revision_id, questionnaire_id, \
     kind, answer_revision, reason, at, answer";

/// Where a rater's answer on a task stands, as the project file's `HISTORY` query asks it;
/// ids compare byte by byte there, so here too.
const HISTORY: &str = "SELECT
       MAX(CASE WHEN kind <> 'draft' THEN answer_revision END),
       MIN(CASE WHEN kind <> 'draft' THEN uid COLLATE \"C\" END),
       MAX(uid COLLATE \"C\")
     FROM answer_events WHERE case_id = $1 AND rater_id = $2";

/// Each rater's first submission on each case: the kinds, and the order whose first row
/// `DISTINCT ON (case_id, rater_id)` keeps.
const FIRST_SUBMISSIONS: (&str, &str) = ("kind = 'submit'", "uid COLLATE \"C\"");

/// Each rater's latest submitted answer on each case.
const LATEST_SUBMISSIONS: (&str, &str) = ("kind IN ('submit', 'revise')", "uid COLLATE \"C\" DESC");

/// The one insert of an answer event on the server, inside the caller's transaction: an event
/// whose global id is stored already is not stored twice (a retried save whose first try did
/// commit gives the stored row's id); a different event under that id is refused. Under the
/// (case, rater) lock every writer of that answer takes, the new event must follow the history
/// ([`check_follows`]).
pub(super) async fn insert_answer_event(
    c: &Client,
    event: &NewAnswerEvent<'_>,
    answer: &str,
) -> Result<i64, Failure> {
    c.execute(
        "SELECT lock_answer_history($1, $2)",
        &[&event.case_id, &event.rater_id],
    )
    .await?;
    let stored = c
        .query_opt(
            "SELECT id, case_id, rater_id, case_revision_id, questionnaire_id, kind,
               answer_revision, answer, reason, at FROM answer_events WHERE uid = $1",
            &[&event.uid],
        )
        .await?;
    if let Some(r) = stored {
        let stored: StoredFields = (
            r.try_get(1)?,
            r.try_get(2)?,
            r.try_get(3)?,
            r.try_get(4)?,
            r.try_get(5)?,
            r.try_get(6)?,
            r.try_get(7)?,
            r.try_get(8)?,
            r.try_get(9)?,
        );
        same_event(event, answer, stored)?;
        return Ok(r.try_get(0)?);
    }
    let history = c
        .query_one(HISTORY, &[&event.case_id, &event.rater_id])
        .await?;
    let (last, first, newest): (Option<i64>, Option<String>, Option<String>) = (
        history.try_get(0)?,
        history.try_get(1)?,
        history.try_get(2)?,
    );
    check_follows(event, last, first.as_deref(), newest.as_deref())?;
    let row = c
        .query_one(
            "INSERT INTO answer_events(uid, case_id, rater_id, case_revision_id, questionnaire_id,
               kind, answer_revision, answer, reason, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
            &[
                &event.uid,
                &event.case_id,
                &event.rater_id,
                &event.case_revision_id,
                &event.questionnaire_id,
                &event.kind.as_str(),
                &event.answer_revision,
                &answer,
                &event.reason,
                &event.at,
            ],
        )
        .await?;
    Ok(row.try_get(0)?)
}

/// Runs `f` in a transaction of its own on `c`: committed when it succeeds, rolled back when it
/// fails, so the pooled connection goes back clean either way.
async fn in_transaction<T>(
    c: &Client,
    f: impl AsyncFnOnce(&Client) -> Result<T, Failure>,
) -> Result<T, Failure> {
    c.batch_execute("BEGIN").await?;
    match f(c).await {
        Ok(value) => {
            c.batch_execute("COMMIT").await?;
            Ok(value)
        }
        Err(e) => {
            // A connection already lost has nothing to roll back; the first error says why.
            let _ = c.batch_execute("ROLLBACK").await;
            Err(e)
        }
    }
}

fn rater(r: &tokio_postgres::Row) -> Result<Rater, tokio_postgres::Error> {
    Ok(Rater {
        id: r.try_get(0)?,
        name: r.try_get(1)?,
        active: r.try_get::<_, Option<String>>(2)?.is_none(),
    })
}

impl PgStore {
    fn query_events(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<AnswerEvent>, StoreError> {
        let rows = self.run(async |c: &mut Client| Ok(c.query(sql, params).await?))?;
        rows.iter().map(|r| self.event_from_row(r, None)).collect()
    }

    /// An event from a row of [`EVENT_COLUMNS`]: its answer whole, or the values of
    /// `questions`, one column each.
    fn event_from_row(
        &self,
        r: &tokio_postgres::Row,
        questions: Option<&[&str]>,
    ) -> Result<AnswerEvent, StoreError> {
        let field = |e: tokio_postgres::Error| self.failure(e.into());
        let kind: String = r.try_get(6).map_err(field)?;
        Ok(AnswerEvent {
            id: r.try_get(0).map_err(field)?,
            uid: r.try_get(1).map_err(field)?,
            case_id: r.try_get(2).map_err(field)?,
            rater_id: r.try_get(3).map_err(field)?,
            case_revision_id: r.try_get(4).map_err(field)?,
            questionnaire_id: r.try_get(5).map_err(field)?,
            kind: EventKind::parse(&kind)
                .ok_or_else(|| StoreError::Rule(format!("unknown answer event kind {kind:?}")))?,
            answer_revision: r.try_get(7).map_err(field)?,
            reason: r.try_get(8).map_err(field)?,
            at: r.try_get(9).map_err(field)?,
            answer: answer_from_cells(
                questions,
                |i| r.try_get(10 + i).map_err(field),
                |e| self.corrupt("answer", e),
            )?,
        })
    }
}

impl PgStore {
    /// One submitted event per (case, rater), the first in `order` among those of `kinds`, as
    /// `filter` says. A few values are taken out of the stored text as `json` by the server
    /// (which keeps each exactly as written; a question not answered gives `NULL`), so only
    /// those travel and are decoded.
    fn query_submissions(
        &self,
        (kinds, order): (&str, &str),
        filter: &SubmissionFilter<'_>,
    ) -> Result<Vec<AnswerEvent>, StoreError> {
        let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = Vec::new();
        let columns: String = match filter.questions {
            None => ", answer".into(),
            Some(questions) => questions
                .iter()
                .map(|q| {
                    params.push(q);
                    format!(", (answer::json -> ${}::text)::text", params.len())
                })
                .collect(),
        };
        let cases = filter.cases.map(<[i64]>::to_vec);
        let case_filter = match &cases {
            None => String::new(),
            Some(ids) => {
                params.push(ids);
                format!(" AND case_id = ANY(${})", params.len())
            }
        };
        let sql = format!(
            "SELECT DISTINCT ON (case_id, rater_id) {EVENT_FIELDS}{columns} FROM answer_events
             WHERE {kinds}{case_filter} ORDER BY case_id, rater_id, {order}"
        );
        let rows = self.run(async |c: &mut Client| Ok(c.query(&sql, &params).await?))?;
        rows.iter()
            .map(|r| self.event_from_row(r, filter.questions))
            .collect()
    }
}

impl RaterStore for PgStore {
    fn add_rater(&mut self, name: &str, now: &str) -> Result<Rater, StoreError> {
        check_name_free(&self.list_raters()?, name)?;
        let id: i64 = self.run(async |c: &mut Client| {
            Ok(c.query_one(
                "INSERT INTO raters(name, created_at) VALUES ($1, $2) RETURNING id",
                &[&name, &now],
            )
            .await?
            .try_get(0)?)
        })?;
        Ok(Rater {
            id,
            name: name.to_string(),
            active: true,
        })
    }

    fn list_raters(&self) -> Result<Vec<Rater>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c
                .query(
                    "SELECT id, name, deactivated_at FROM raters ORDER BY name COLLATE \"C\"",
                    &[],
                )
                .await?;
            Ok(rows.iter().map(rater).collect::<Result<_, _>>()?)
        })
    }

    fn rater_by_name(&self, name: &str) -> Result<Option<Rater>, StoreError> {
        self.run(async |c: &mut Client| {
            let row = c
                .query_opt(
                    "SELECT id, name, deactivated_at FROM raters WHERE name = $1",
                    &[&name],
                )
                .await?;
            Ok(row.as_ref().map(rater).transpose()?)
        })
    }

    fn set_rater_active(
        &mut self,
        rater_id: i64,
        active: bool,
        now: &str,
    ) -> Result<usize, StoreError> {
        let deactivated = (!active).then_some(now);
        self.run(async |c: &mut Client| {
            let tx = c.transaction().await?;
            tx.execute(
                "UPDATE raters SET deactivated_at = $2 WHERE id = $1",
                &[&rater_id, &deactivated],
            )
            .await?;
            let released = if active {
                0
            } else {
                tx.execute(
                    "DELETE FROM assignments a WHERE a.rater_id = $1 AND NOT EXISTS (
                       SELECT 1 FROM answer_events e
                       WHERE e.case_id = a.case_id AND e.rater_id = $1 AND e.kind <> 'draft')",
                    &[&rater_id],
                )
                .await?
            };
            tx.commit().await?;
            Ok(released as usize)
        })
    }

    fn rater_event_count(&self, rater_id: i64) -> Result<i64, StoreError> {
        self.run(async |c: &mut Client| {
            Ok(c.query_one(
                "SELECT COUNT(*) FROM answer_events WHERE rater_id = $1",
                &[&rater_id],
            )
            .await?
            .try_get(0)?)
        })
    }

    fn remove_rater(&mut self, rater_id: i64) -> Result<usize, StoreError> {
        self.run(async |c: &mut Client| {
            let tx = c.transaction().await?;
            let released = tx
                .execute("DELETE FROM assignments WHERE rater_id = $1", &[&rater_id])
                .await?;
            // The answer events' foreign key refuses this for a rater who answered.
            tx.execute("DELETE FROM raters WHERE id = $1", &[&rater_id])
                .await?;
            tx.commit().await?;
            Ok(released as usize)
        })
    }

    fn list_assignments(&self) -> Result<Vec<Assignment>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c
                .query(
                    "SELECT case_id, rater_id, active_ms FROM assignments ORDER BY case_id, rater_id",
                    &[],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| {
                    Ok(Assignment {
                        case_id: r.try_get(0)?,
                        rater_id: r.try_get(1)?,
                        active_ms: r.try_get(2)?,
                    })
                })
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }

    fn add_assignments(&mut self, pairs: &[(i64, i64)], now: &str) -> Result<usize, StoreError> {
        let cases: Vec<i64> = pairs.iter().map(|p| p.0).collect();
        let raters: Vec<i64> = pairs.iter().map(|p| p.1).collect();
        self.run(async |c: &mut Client| {
            let added = c
                .execute(
                    "INSERT INTO assignments(case_id, rater_id, assigned_at)
                     SELECT c, r, $3::TEXT FROM UNNEST($1::BIGINT[], $2::BIGINT[]) AS p(c, r)
                     ON CONFLICT (case_id, rater_id) DO NOTHING",
                    &[&cases, &raters, &now],
                )
                .await?;
            Ok(added as usize)
        })
    }

    fn is_assigned(&self, case_id: i64, rater_id: i64) -> Result<bool, StoreError> {
        self.run(async |c: &mut Client| {
            Ok(c.query_opt(
                "SELECT 1 FROM assignments WHERE case_id = $1 AND rater_id = $2",
                &[&case_id, &rater_id],
            )
            .await?
            .is_some())
        })
    }

    fn add_active_time(
        &mut self,
        case_id: i64,
        rater_id: i64,
        ms: i64,
    ) -> Result<bool, StoreError> {
        let ms = ms.max(0);
        if self.is_rater_session()? {
            return self.run(async |c: &mut Client| {
                Ok(c.query_one("SELECT add_my_time($1, $2)", &[&case_id, &ms])
                    .await?
                    .try_get(0)?)
            });
        }
        self.run(async |c: &mut Client| {
            let updated = c
                .execute(
                    "UPDATE assignments SET active_ms = active_ms + $3
                     WHERE case_id = $1 AND rater_id = $2",
                    &[&case_id, &rater_id, &ms],
                )
                .await?;
            Ok(updated > 0)
        })
    }
}

impl AnswerStore for PgStore {
    fn append_answer_event(&mut self, event: &NewAnswerEvent<'_>) -> Result<i64, StoreError> {
        let answer = serde_json::to_string(event.answer).map_err(|e| self.corrupt("answer", e))?;
        if self.is_rater_session()? {
            // A rater's login appends through the one checked path: the server takes the
            // rater from the session, the revision from the history and the time from its
            // clock, and checks the answer against the questionnaire.
            let reason = event.reason;
            return self.run(async |c: &mut Client| {
                Ok(c.query_one(
                    "SELECT save_my_answer($1, $2, $3, $4, $5, $6, $7)",
                    &[
                        &event.uid,
                        &event.case_id,
                        &event.case_revision_id,
                        &event.questionnaire_id,
                        &event.kind.as_str(),
                        &answer,
                        &reason,
                    ],
                )
                .await?
                .try_get(0)?)
            });
        }
        self.run(async |c: &mut Client| {
            in_transaction(c, async |c| insert_answer_event(c, event, &answer).await).await
        })
    }

    fn record_conflict(
        &mut self,
        event: &NewAnswerEvent<'_>,
        origin: &str,
        found_at: &str,
    ) -> Result<Option<i64>, StoreError> {
        let answer = serde_json::to_string(event.answer).map_err(|e| self.corrupt("answer", e))?;
        self.run(async |c: &mut Client| {
            let row = c
                .query_opt(
                    "INSERT INTO answer_conflicts(uid, case_id, rater_id, case_revision_id,
                       questionnaire_id, kind, answer_revision, answer, reason, at, origin, found_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                     ON CONFLICT (uid) DO NOTHING RETURNING id",
                    &[
                        &event.uid,
                        &event.case_id,
                        &event.rater_id,
                        &event.case_revision_id,
                        &event.questionnaire_id,
                        &event.kind.as_str(),
                        &event.answer_revision,
                        &answer,
                        &event.reason,
                        &event.at,
                        &origin,
                        &found_at,
                    ],
                )
                .await?;
            Ok(row.map(|r| r.try_get(0)).transpose()?)
        })
    }

    fn answer_conflicts(&self) -> Result<Vec<AnswerConflict>, StoreError> {
        let rows = self.rows(
            &format!(
                "SELECT {EVENT_COLUMNS}, origin, found_at, resolved_at, resolution
                 FROM answer_conflicts ORDER BY id"
            ),
            &[],
        )?;
        rows.iter()
            .map(|r| {
                let field = |e: tokio_postgres::Error| self.failure(e.into());
                Ok(AnswerConflict {
                    event: self.event_from_row(r, None)?,
                    origin: r.try_get(11).map_err(field)?,
                    found_at: r.try_get(12).map_err(field)?,
                    resolved_at: r.try_get(13).map_err(field)?,
                    resolution: r.try_get(14).map_err(field)?,
                })
            })
            .collect()
    }

    fn resolve_conflict(
        &mut self,
        id: i64,
        resolution: &str,
        now: &str,
    ) -> Result<bool, StoreError> {
        Ok(self.execute(
            "UPDATE answer_conflicts SET resolved_at = $2, resolution = $3
             WHERE id = $1 AND resolved_at IS NULL",
            &[&id, &now, &resolution],
        )? == 1)
    }

    fn answer_events(&self, case_id: i64, rater_id: i64) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!(
                "SELECT {EVENT_COLUMNS} FROM answer_events WHERE case_id = $1 AND rater_id = $2
                 ORDER BY uid COLLATE \"C\""
            ),
            &[&case_id, &rater_id],
        )
    }

    fn latest_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!(
                "SELECT DISTINCT ON (case_id, rater_id) {EVENT_COLUMNS} FROM answer_events
                 ORDER BY case_id, rater_id, uid COLLATE \"C\" DESC"
            ),
            &[],
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
        self.query_submissions(FIRST_SUBMISSIONS, filter)
    }

    fn latest_submissions_by(
        &self,
        filter: &SubmissionFilter<'_>,
    ) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_submissions(LATEST_SUBMISSIONS, filter)
    }

    fn count_submissions(&self, filter: &SubmissionFilter<'_>) -> Result<usize, StoreError> {
        let sql = "SELECT COUNT(*) FROM answer_events WHERE kind IN ('submit', 'revise')";
        let count: Vec<i64> = match filter.cases {
            None => self.column(sql, &[])?,
            Some(ids) => self.column(
                &format!("{sql} AND case_id = ANY($1::BIGINT[])"),
                &[&ids.to_vec()],
            )?,
        };
        Ok(count
            .first()
            .map_or(0, |n| usize::try_from(*n).unwrap_or(0)))
    }

    fn all_answer_events(&self) -> Result<Vec<AnswerEvent>, StoreError> {
        self.query_events(
            &format!("SELECT {EVENT_COLUMNS} FROM answer_events ORDER BY uid COLLATE \"C\""),
            &[],
        )
    }

    fn answer_event_by_uid(&self, uid: &str) -> Result<Option<AnswerEvent>, StoreError> {
        Ok(self
            .query_events(
                &format!("SELECT {EVENT_COLUMNS} FROM answer_events WHERE uid = $1"),
                &[&uid],
            )?
            .pop())
    }
}

impl LabelStore for PgStore {
    fn add_adjudicator(&mut self, name: &str, now: &str) -> Result<(), StoreError> {
        self.execute(
            "INSERT INTO adjudicators(name, added_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            &[&name, &now],
        )?;
        Ok(())
    }

    fn remove_adjudicator(&mut self, name: &str) -> Result<bool, StoreError> {
        Ok(self.execute("DELETE FROM adjudicators WHERE name = $1", &[&name])? > 0)
    }

    fn list_adjudicators(&self) -> Result<Vec<String>, StoreError> {
        self.column(
            "SELECT name FROM adjudicators ORDER BY name COLLATE \"C\"",
            &[],
        )
    }

    fn add_adjudication(&mut self, d: &NewAdjudication<'_>) -> Result<i64, StoreError> {
        let value = serde_json::to_string(d.value).map_err(|e| self.corrupt("adjudication", e))?;
        self.run(async |c: &mut Client| {
            Ok(c.query_one(
                "INSERT INTO adjudications(case_id, question_id, value, rationale, decided_by, rule, at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                &[&d.case_id, &d.question, &value, &d.rationale, &d.decided_by, &d.rule, &d.at],
            )
            .await?
            .try_get(0)?)
        })
    }

    fn latest_adjudications(&self) -> Result<Vec<AdjudicationRow>, StoreError> {
        let rows = self.rows(
            "SELECT * FROM (SELECT DISTINCT ON (case_id, question_id)
                   id, case_id, question_id, value, rationale, decided_by, rule, at
                 FROM adjudications ORDER BY case_id, question_id, id DESC) latest
                 ORDER BY case_id, question_id COLLATE \"C\"",
            &[],
        )?;
        rows.iter()
            .map(|r| {
                let field = |e: tokio_postgres::Error| self.failure(e.into());
                let value: String = r.try_get(3).map_err(field)?;
                Ok(AdjudicationRow {
                    id: r.try_get(0).map_err(field)?,
                    case_id: r.try_get(1).map_err(field)?,
                    question: r.try_get(2).map_err(field)?,
                    value: serde_json::from_str(&value)
                        .map_err(|e| self.corrupt("adjudication", e))?,
                    rationale: r.try_get(4).map_err(field)?,
                    decided_by: r.try_get(5).map_err(field)?,
                    rule: r.try_get(6).map_err(field)?,
                    at: r.try_get(7).map_err(field)?,
                })
            })
            .collect()
    }

    fn reference_sets(&self) -> Result<Vec<(String, usize)>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c
                .query(
                    "SELECT label_set, COUNT(*) FROM reference_labels GROUP BY label_set
                     ORDER BY label_set COLLATE \"C\"",
                    &[],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get::<_, i64>(1)? as usize)))
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }

    fn case_instance_ids(&self) -> Result<Vec<(i64, String)>, StoreError> {
        let rows = self.run(async |c: &mut Client| {
            Ok(c.query(
                "SELECT id, instance_id FROM cases ORDER BY instance_id COLLATE \"C\"",
                &[],
            )
            .await?)
        })?;
        rows.iter()
            .map(|r| {
                let field = |e: tokio_postgres::Error| self.failure(e.into());
                Ok((r.try_get(0).map_err(field)?, r.try_get(1).map_err(field)?))
            })
            .collect()
    }

    fn calibration_tasks(&self) -> Result<Vec<String>, StoreError> {
        self.column(
            "SELECT c.instance_id FROM calibration_tasks k JOIN cases c ON c.id = k.case_id
             ORDER BY c.instance_id COLLATE \"C\"",
            &[],
        )
    }

    fn set_calibration(
        &mut self,
        case_ids: &[i64],
        calibration: bool,
        now: &str,
    ) -> Result<usize, StoreError> {
        let ids = case_ids.to_vec();
        let changed = if calibration {
            self.execute(
                "INSERT INTO calibration_tasks(case_id, marked_at)
                 SELECT id, $2::TEXT FROM UNNEST($1::BIGINT[]) AS t(id)
                 ON CONFLICT (case_id) DO NOTHING",
                &[&ids, &now],
            )?
        } else {
            self.execute(
                "DELETE FROM calibration_tasks WHERE case_id = ANY($1::BIGINT[])",
                &[&ids],
            )?
        };
        Ok(changed as usize)
    }

    fn each_reference_label(
        &self,
        label_set: &str,
        each: &mut dyn FnMut(ReferenceRow),
    ) -> Result<(), StoreError> {
        let rows = self.rows(
            "SELECT r.case_id, c.instance_id, r.labels FROM reference_labels r
                 JOIN cases c ON c.id = r.case_id WHERE r.label_set = $1
                 ORDER BY c.instance_id COLLATE \"C\"",
            &[&label_set],
        )?;
        for r in &rows {
            let field = |e: tokio_postgres::Error| self.failure(e.into());
            let labels: &str = r.try_get(2).map_err(field)?;
            each(ReferenceRow {
                case_id: r.try_get(0).map_err(field)?,
                instance_id: r.try_get(1).map_err(field)?,
                labels: serde_json::from_str(labels).map_err(|e| self.corrupt("labels", e))?,
            });
        }
        Ok(())
    }

    fn answer_event_fields(&self) -> Result<HashMap<i64, Map<String, Value>>, StoreError> {
        let rows = self.rows(
            "SELECT answer_event_id, fields FROM answer_event_fields",
            &[],
        )?;
        rows.iter()
            .map(|r| {
                let field = |e: tokio_postgres::Error| self.failure(e.into());
                let fields: String = r.try_get(1).map_err(field)?;
                Ok((
                    r.try_get(0).map_err(field)?,
                    serde_json::from_str(&fields).map_err(|e| self.corrupt("fields", e))?,
                ))
            })
            .collect()
    }

    fn answer_event_span(&self) -> Result<EventSpans, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c
                .query(
                    "SELECT case_id, rater_id,
                       (ARRAY_AGG(at ORDER BY uid COLLATE \"C\"))[1],
                       (ARRAY_AGG(at ORDER BY uid COLLATE \"C\" DESC))[1]
                     FROM answer_events GROUP BY case_id, rater_id",
                    &[],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| {
                    Ok((
                        (r.try_get(0)?, r.try_get(1)?),
                        (r.try_get(2)?, r.try_get(3)?),
                    ))
                })
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }
}

impl RepoStore for PgStore {
    fn put_repository(&mut self, name: &str, path: &str, now: &str) -> Result<(), StoreError> {
        self.execute(
            "INSERT INTO repositories(name, path, added_at) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO UPDATE SET path = excluded.path, added_at = excluded.added_at",
            &[&name, &path, &now],
        )?;
        Ok(())
    }

    fn remove_repository(&mut self, name: &str) -> Result<bool, StoreError> {
        Ok(self.execute("DELETE FROM repositories WHERE name = $1", &[&name])? > 0)
    }

    fn list_repositories(&self) -> Result<Vec<Repository>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c
                .query(
                    "SELECT name, path FROM repositories ORDER BY name COLLATE \"C\"",
                    &[],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| {
                    Ok(Repository {
                        name: r.try_get(0)?,
                        path: r.try_get(1)?,
                    })
                })
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }

    fn repository(&self, name: &str) -> Result<Option<Repository>, StoreError> {
        self.run(async |c: &mut Client| {
            let row = c
                .query_opt(
                    "SELECT name, path FROM repositories WHERE name = $1",
                    &[&name],
                )
                .await?;
            Ok(row
                .map(|r| -> Result<_, tokio_postgres::Error> {
                    Ok(Repository {
                        name: r.try_get(0)?,
                        path: r.try_get(1)?,
                    })
                })
                .transpose()?)
        })
    }

    fn cached_evidence(&self, key: &EvidenceKey<'_>) -> Result<Option<CachedEvidence>, StoreError> {
        self.run(async |c: &mut Client| {
            let row = c
                .query_opt(
                    "SELECT report, computed_at FROM evidence_cache
                     WHERE case_revision_id = $1 AND base_commit = $2 AND engine_version = $3",
                    &[&key.case_revision_id, &key.base_commit, &key.engine_version],
                )
                .await?;
            Ok(row
                .map(|r| -> Result<_, tokio_postgres::Error> {
                    Ok(CachedEvidence {
                        report: r.try_get(0)?,
                        computed_at: r.try_get(1)?,
                    })
                })
                .transpose()?)
        })
    }

    fn put_evidence(
        &mut self,
        key: &EvidenceKey<'_>,
        report: &str,
        risk: f64,
        now: &str,
    ) -> Result<(), StoreError> {
        // Evidence a rater's machine computes is theirs to read, never the panel's: the
        // coordinator's cached report stays (and a rater's login may not write the cache).
        if self.is_rater_session()? {
            return Ok(());
        }
        let risk = risk_permille(risk);
        self.run(async |c: &mut Client| {
            c.execute(
                "INSERT INTO evidence_cache(case_revision_id, base_commit, engine_version, report, computed_at, risk_permille)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (case_revision_id, base_commit, engine_version)
                 DO UPDATE SET report = excluded.report, computed_at = excluded.computed_at,
                               risk_permille = excluded.risk_permille",
                &[&key.case_revision_id, &key.base_commit, &key.engine_version, &report, &now, &risk],
            )
            .await?;
            Ok(())
        })
    }

    fn case_risks(
        &self,
        engine_version: &str,
        cases: Option<&[i64]>,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = match cases {
                None => {
                    c.query(&case_risks_sql("$1", None), &[&engine_version])
                        .await?
                }
                Some(ids) => {
                    let sql = case_risks_sql("$1", Some("= ANY($2)"));
                    c.query(&sql, &[&engine_version, &ids]).await?
                }
            };
            rows.iter()
                .map(|r| -> Result<_, tokio_postgres::Error> {
                    Ok((r.try_get(0)?, r.try_get::<_, i64>(1)? as f64 / 1000.0))
                })
                .collect::<Result<_, _>>()
                .map_err(Into::into)
        })
    }
}

/// Listens on `verity_answers` and sends one message per notification, until the store is
/// dropped (`closed`) or nobody holds the receiver; `ready` hears once the first LISTEN is in
/// place (or why it could not be). A lost connection is made again after a pause, and one
/// message follows it: changes may have been missed meanwhile.
pub(super) async fn listen(
    config: tokio_postgres::Config,
    tls: tokio_postgres_rustls::MakeRustlsConnect,
    send: Sender<AnswersChanged>,
    ready: std::sync::mpsc::SyncSender<Result<(), String>>,
    mut closed: tokio::sync::watch::Receiver<()>,
    server: String,
) {
    loop {
        let connected = tokio::select! {
            _ = closed.changed() => return,
            connected = config.connect(tls.clone()) => connected,
        };
        match connected {
            Ok((client, mut connection)) => {
                let mut messages =
                    futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                let listening = client.batch_execute("LISTEN verity_answers");
                let mut listening = std::pin::pin!(listening);
                let mut subscribed = false;
                loop {
                    tokio::select! {
                        _ = closed.changed() => return,
                        done = &mut listening, if !subscribed => {
                            if let Err(e) = done {
                                let _ = ready.try_send(Err(e.to_string()));
                                break;
                            }
                            subscribed = true;
                            // Only the first LISTEN is waited for; later ones find it full.
                            let _ = ready.try_send(Ok(()));
                        }
                        message = messages.next() => match message {
                            Some(Ok(AsyncMessage::Notification(_))) => {
                                if send.send(AnswersChanged).is_err() {
                                    return;
                                }
                            }
                            Some(Ok(_)) => {}
                            Some(Err(_)) | None => break,
                        }
                    }
                }
                tracing::debug!(%server, "the answer feed's connection ended; connecting again");
            }
            Err(e) => {
                let _ = ready.try_send(Err(e.to_string()));
                tracing::debug!(%server, error = %e, "the answer feed cannot connect yet");
            }
        }
        tokio::select! {
            _ = closed.changed() => return,
            _ = tokio::time::sleep(Duration::from_secs(2)) => {}
        }
        if send.send(AnswersChanged).is_err() {
            return;
        }
    }
}
