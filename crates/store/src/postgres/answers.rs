//! Answer events on the server: appended, never changed or deleted, with the project file's
//! behaviour.

use super::{Client, Failure, Params, PgStore};
use crate::answers::{answer_state, check_follows, landed, same_event, vanished};
use crate::shared::{self, Cells, EVENT_COLUMNS, Param};
use crate::{
    AnswerConflict, AnswerEvent, AnswerSave, AnswerState, AnswerStore, NewAnswerEvent, SavedAnswer,
    Sealer, StoreError, SubmissionFilter,
};

/// The columns of an event but its answer, which comes last: whole, or a few of its values
/// ([`PgStore::query_submissions`]).
const EVENT_FIELDS: &str = "id, uid, case_id, rater_id, case_revision_id, questionnaire_id, \
     kind, answer_revision, reason, at";

/// Where a rater's answer on a task stands, as the project file's `HISTORY` query asks it;
/// ids compare byte by byte there, so here too.
const HISTORY: &str = "SELECT
       MAX(CASE WHEN kind <> 'draft' THEN answer_revision END),
       MIN(CASE WHEN kind <> 'draft' THEN uid COLLATE \"C\" END),
       MAX(uid COLLATE \"C\")
     FROM answer_events WHERE case_id = $1 AND rater_id = $2";

/// Where a rater's answer on a task stands, as the project file's `ANSWER_STATE` query asks
/// it; ids compare byte by byte there, so here too.
const ANSWER_STATE: &str = "SELECT e.id, e.uid, e.case_id, e.rater_id, e.case_revision_id,
       e.questionnaire_id, e.kind, e.answer_revision, e.reason, e.at, e.answer,
       (SELECT MIN(uid COLLATE \"C\") FROM answer_events
        WHERE case_id = $1 AND rater_id = $2 AND kind <> 'draft'),
       (SELECT MAX(uid COLLATE \"C\") FROM answer_events WHERE case_id = $1 AND rater_id = $2),
       EXISTS (SELECT 1 FROM assignments WHERE case_id = $1 AND rater_id = $2),
       (SELECT id FROM answer_events WHERE uid = $3)
     FROM (SELECT 1) AS one
     LEFT JOIN answer_events e ON e.id = (SELECT id FROM answer_events
       WHERE case_id = $1 AND rater_id = $2 AND kind <> 'draft'
       ORDER BY answer_revision DESC LIMIT 1)";

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
    store: &PgStore,
    c: &Client,
    event: &NewAnswerEvent<'_>,
    answer: &str,
) -> Result<i64, Failure> {
    c.execute(
        "SELECT lock_answer_history($1, $2)",
        &[&event.case_id, &event.rater_id],
    )
    .await?;
    let stored = c.query_opt(shared::STORED_EVENT, &[&event.uid]).await?;
    if let Some(r) = stored {
        let row = store.cells(&r);
        same_event(event, answer, shared::stored_fields(&row)?)?;
        return Ok(row.cell(0)?);
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
            shared::INSERT_ANSWER_EVENT,
            &pg_params(shared::event_params(event, &event.kind.as_str(), &answer)),
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

/// A save's statements after where the answer stands was read ([`AnswerStore::save_answer`]),
/// in the caller's transaction: the event landed already, or `decide`'s revision appended (by
/// the server's checked function on a rater's login, which takes the rater, the time and the
/// checks as its own), or nothing.
async fn save_after(
    store: &PgStore,
    c: &Client,
    save: &AnswerSave<'_>,
    answer: &str,
    (before, landed_id): (&AnswerState, Option<i64>),
    decide: &mut dyn FnMut(&AnswerState) -> Option<i64>,
) -> Result<Option<AnswerEvent>, Failure> {
    let uid = save.event.uid;
    let read_back = async || -> Result<AnswerEvent, Failure> {
        let row = c.query_opt(shared::EVENT_BY_UID, &[&uid]).await?;
        let row = row.ok_or_else(|| vanished(uid))?;
        Ok(shared::event(&store.cells(&row), None)?)
    };
    if landed_id.is_some() {
        return Ok(Some(landed(&save.event, read_back().await?)?));
    }
    let Some(revision) = decide(before) else {
        return Ok(None);
    };
    let event = NewAnswerEvent {
        answer_revision: revision,
        ..save.event.clone()
    };
    if store.is_rater_session()? {
        if save.seal.is_some() {
            return Err(StoreError::Rule(
                "a rater's login seals no answer: only a rater's package does".into(),
            )
            .into());
        }
        c.query_one(
            "SELECT save_my_answer($1, $2, $3, $4, $5, $6, $7)",
            &[
                &event.uid,
                &event.case_id,
                &event.case_revision_id,
                &event.questionnaire_id,
                &event.kind.as_str(),
                &answer,
                &event.reason,
            ],
        )
        .await?;
        // As stored: the server set its time.
        return Ok(Some(read_back().await?));
    }
    before.check(&event)?;
    if let Some(at) = save.assign_at {
        c.execute(shared::ASSIGN, &[&event.case_id, &event.rater_id, &at])
            .await?;
    }
    if let Some(provenance) = save.provenance {
        c.execute(shared::PUT_PROVENANCE, &[&event.uid, &provenance])
            .await?;
    }
    if let Some(Sealer(seal)) = save.seal {
        c.execute(shared::PUT_SEAL, &[&event.uid, &seal(&event)])
            .await?;
    }
    let kind = event.kind.as_str();
    let row = c
        .query_one(
            shared::INSERT_ANSWER_EVENT,
            &pg_params(shared::event_params(&event, &kind, &answer)),
        )
        .await?;
    Ok(Some(event.stored(row.try_get(0)?)))
}

impl PgStore {
    fn query_events(&self, sql: &str, params: Params<'_>) -> Result<Vec<AnswerEvent>, StoreError> {
        self.decode(sql, params, |row| shared::event(row, None))
    }

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
        self.decode(&sql, &params, |row| shared::event(row, filter.questions))
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
            in_transaction(c, async |c| {
                insert_answer_event(self, c, event, &answer).await
            })
            .await
        })
    }

    fn save_answer(
        &mut self,
        save: &AnswerSave<'_>,
        decide: &mut dyn FnMut(&AnswerState) -> Option<i64>,
    ) -> Result<SavedAnswer, StoreError> {
        let event = &save.event;
        let answer = serde_json::to_string(event.answer).map_err(|e| self.corrupt("answer", e))?;
        // A rater's login may not take the lock: its checked function takes it, and a history
        // moved meanwhile is refused there (the caller tries again).
        let lock = !self.is_rater_session()?;
        self.run(async |c: &mut Client| {
            in_transaction(c, async |c| {
                let (case, rater) = (&event.case_id, &event.rater_id);
                if lock {
                    c.execute("SELECT lock_answer_history($1, $2)", &[case, rater])
                        .await?;
                }
                let row = c
                    .query_one(ANSWER_STATE, &[case, rater, &event.uid])
                    .await?;
                let (before, landed_id) = answer_state(&self.cells(&row))?;
                let stored =
                    save_after(self, c, save, &answer, (&before, landed_id), decide).await?;
                Ok(SavedAnswer { before, stored })
            })
            .await
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
            let kind = event.kind.as_str();
            let params = shared::event_params(event, &kind, &answer)
                .into_iter()
                .chain([&origin as &dyn Param, &found_at]);
            let row = c
                .query_opt(shared::INSERT_CONFLICT, &pg_params(params))
                .await?;
            Ok(row.map(|r| r.try_get(0)).transpose()?)
        })
    }

    fn answer_conflicts(&self) -> Result<Vec<AnswerConflict>, StoreError> {
        self.decode(shared::CONFLICTS, &[], |row| shared::conflict(row))
    }

    fn resolve_conflict(
        &mut self,
        id: i64,
        resolution: &str,
        now: &str,
    ) -> Result<bool, StoreError> {
        Ok(self.execute(shared::RESOLVE_CONFLICT, &[&now, &resolution, &id])? == 1)
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
        Ok(self.query_events(shared::EVENT_BY_UID, &[&uid])?.pop())
    }
}

/// Parameters both backends bind, as the server's client takes them.
fn pg_params<'a>(
    params: impl IntoIterator<Item = &'a dyn Param>,
) -> Vec<&'a (dyn tokio_postgres::types::ToSql + Sync)> {
    params.into_iter().map(|p| p as _).collect()
}
