//! Saving a rater's answer as they give it: the event and what goes with it (a model rater's
//! assignment and provenance) in one transaction, decided from where the answer stands as read
//! under the lock every writer of that answer takes.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior, params, params_from_iter};

use super::{AnswerEvent, NewAnswerEvent, check_follows, stored_otherwise};
use crate::StoreError;
use crate::shared::{self, Cells, SqliteRow};
use crate::sqlite::sql_err;

impl NewAnswerEvent<'_> {
    /// The event as stored under row `id`.
    pub(crate) fn stored(&self, id: i64) -> AnswerEvent {
        AnswerEvent {
            id,
            uid: self.uid.to_string(),
            case_id: self.case_id,
            rater_id: self.rater_id,
            case_revision_id: self.case_revision_id,
            questionnaire_id: self.questionnaire_id,
            kind: self.kind,
            answer_revision: self.answer_revision,
            answer: self.answer.clone(),
            reason: self.reason.map(str::to_string),
            at: self.at.to_string(),
        }
    }
}

/// An answer event to save with what goes with it, all in one transaction
/// ([`AnswerStore::save_answer`]).
#[derive(Debug, Clone)]
pub struct AnswerSave<'a> {
    /// The event. Its `answer_revision` is left to the save's `decide`, which gives it from
    /// where the answer stands.
    pub event: NewAnswerEvent<'a>,
    /// Assigns the task to the rater (unless it is) at this time: a model rater's tasks are
    /// assigned as their answers are stored.
    pub assign_at: Option<&'a str>,
    /// The event's provenance (a JSON object: where a model rater's answer came from), stored
    /// under its global id.
    pub provenance: Option<&'a str>,
    /// Seals the event as stored (with its revision): a rater's package seals each event its
    /// rater saves, and keeps the seal under the event's global id (`answer_seals`).
    pub seal: Option<Sealer<'a>>,
}

/// What seals an answer event: given the event as it is stored, the seal kept beside it.
#[derive(Clone, Copy)]
pub struct Sealer<'a>(pub &'a dyn Fn(&NewAnswerEvent<'_>) -> String);

impl std::fmt::Debug for Sealer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer")
    }
}

/// Where a rater's answer on a task stands, as a save reads it under the lock every writer of
/// that answer takes.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerState {
    /// Whether the task is assigned to the rater.
    pub assigned: bool,
    /// The rater's latest submitted event on the task (the submission, or its last revision),
    /// whole: no draft comes after it.
    pub submitted: Option<AnswerEvent>,
    /// The global id of the rater's first submitted event on the task.
    first_submitted: Option<String>,
    /// The global id of the rater's latest event on the task, of any kind.
    newest: Option<String>,
}

impl AnswerState {
    /// Refuses an event that does not follow this history ([`check_follows`]).
    pub(crate) fn check(&self, event: &NewAnswerEvent<'_>) -> Result<(), StoreError> {
        check_follows(
            event,
            self.submitted.as_ref().map(|e| e.answer_revision),
            self.first_submitted.as_deref(),
            self.newest.as_deref(),
        )
    }
}

/// What a save did.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedAnswer {
    /// Where the answer stood before the save.
    pub before: AnswerState,
    /// The event as stored; `None` when `decide` stored nothing.
    pub stored: Option<AnswerEvent>,
}

/// Where a rater's answer on a task stands, read by a save in one statement: the latest
/// submitted event whole (its columns first, `NULL` when there is none), then the global ids
/// of the first submitted and of the latest event, whether the task is assigned, and the row
/// id of an event stored under the new event's global id (`?1` is the case, `?2` the rater,
/// `?3` that id); read by [`answer_state`]. Each part is one index search, through the
/// submitted events alone where it can be, so however many drafts an answer has autosaved,
/// none is walked. The server asks the same.
const ANSWER_STATE: &str = "SELECT e.id, e.uid, e.case_id, e.rater_id, e.case_revision_id,
       e.questionnaire_id, e.kind, e.answer_revision, e.reason, e.at, e.answer,
       (SELECT MIN(uid) FROM answer_events INDEXED BY answer_events_one_revision
        WHERE case_id = ?1 AND rater_id = ?2 AND kind <> 'draft'),
       (SELECT MAX(uid) FROM answer_events WHERE case_id = ?1 AND rater_id = ?2),
       EXISTS (SELECT 1 FROM assignments WHERE case_id = ?1 AND rater_id = ?2),
       (SELECT id FROM answer_events WHERE uid = ?3)
     FROM (SELECT 1) AS one
     LEFT JOIN answer_events e ON e.id = (SELECT id FROM answer_events
       WHERE case_id = ?1 AND rater_id = ?2 AND kind <> 'draft'
       ORDER BY answer_revision DESC LIMIT 1)";

/// Where the answer stands, and the row id of an event stored under the save's global id,
/// from a row of [`ANSWER_STATE`] or of the server's twin.
pub(crate) fn answer_state(row: &impl Cells) -> Result<(AnswerState, Option<i64>), StoreError> {
    let submitted = match row.cell::<Option<i64>>(0)? {
        Some(_) => Some(shared::event(row, None)?),
        None => None,
    };
    let state = AnswerState {
        assigned: row.cell(13)?,
        submitted,
        first_submitted: row.cell(11)?,
        newest: row.cell(12)?,
    };
    Ok((state, row.cell(14)?))
}

/// The event stored under a save's global id already: the save's own, landed by an earlier try
/// whose answer was lost (the same case, rater, task revision, questionnaire, kind, answer and
/// reason; its revision and time are the ones the store gave it then), or another event, which
/// is refused.
pub(crate) fn landed(
    event: &NewAnswerEvent<'_>,
    stored: AnswerEvent,
) -> Result<AnswerEvent, StoreError> {
    let same = stored.case_id == event.case_id
        && stored.rater_id == event.rater_id
        && stored.case_revision_id == event.case_revision_id
        && stored.questionnaire_id == event.questionnaire_id
        && stored.kind == event.kind
        && &stored.answer == event.answer
        && stored.reason.as_deref() == event.reason;
    if same {
        Ok(stored)
    } else {
        Err(stored_otherwise(event.uid))
    }
}

/// The error of a read that a save makes under its lock and that gave no row, which SQL
/// rules out: where the answer stands is one row (a left join to one constant row), and an
/// event found by its id a statement before is there still.
pub(crate) fn vanished(uid: &str) -> StoreError {
    StoreError::Rule(format!(
        "the history of answer event {uid} could not be read back under its lock"
    ))
}

/// [`AnswerStore::save_answer`](super::AnswerStore::save_answer) on the project file `conn`
/// (at `path`).
pub(super) fn save_answer(
    conn: &mut Connection,
    path: &Path,
    save: &AnswerSave<'_>,
    decide: &mut dyn FnMut(&AnswerState) -> Option<i64>,
) -> Result<SavedAnswer, StoreError> {
    let event = &save.event;
    let answer = serde_json::to_string(event.answer).map_err(|source| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: "answer",
        source,
    })?;
    let sql = |e| sql_err(path, e);
    // IMMEDIATE takes the file's write lock before the history is read, as an append does.
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql)?;
    let (before, landed_id) = {
        let mut state = tx.prepare_cached(ANSWER_STATE).map_err(sql)?;
        let mut rows = state
            .query(params![event.case_id, event.rater_id, event.uid])
            .map_err(sql)?;
        let row = rows
            .next()
            .map_err(sql)?
            .ok_or_else(|| vanished(event.uid))?;
        answer_state(&SqliteRow { row, path })?
    };
    let stored = if landed_id.is_some() {
        let mut by_uid = tx.prepare_cached(shared::EVENT_BY_UID).map_err(sql)?;
        let mut rows = by_uid.query([event.uid]).map_err(sql)?;
        let row = rows
            .next()
            .map_err(sql)?
            .ok_or_else(|| vanished(event.uid))?;
        Some(landed(
            event,
            shared::event(&SqliteRow { row, path }, None)?,
        )?)
    } else if let Some(revision) = decide(&before) {
        let event = NewAnswerEvent {
            answer_revision: revision,
            ..event.clone()
        };
        before.check(&event)?;
        if let Some(at) = save.assign_at {
            tx.prepare_cached(shared::ASSIGN)
                .and_then(|mut s| s.execute(params![event.case_id, event.rater_id, at]))
                .map_err(sql)?;
        }
        if let Some(provenance) = save.provenance {
            tx.prepare_cached(shared::PUT_PROVENANCE)
                .and_then(|mut s| s.execute(params![event.uid, provenance]))
                .map_err(sql)?;
        }
        if let Some(Sealer(seal)) = save.seal {
            tx.prepare_cached(shared::PUT_SEAL)
                .and_then(|mut s| s.execute(params![event.uid, seal(&event)]))
                .map_err(sql)?;
        }
        let kind = event.kind.as_str();
        let params = shared::event_params(&event, &kind, &answer);
        let id = tx
            .prepare_cached(shared::INSERT_ANSWER_EVENT)
            .and_then(|mut s| s.query_row(params_from_iter(params), |row| row.get(0)))
            .map_err(sql)?;
        Some(event.stored(id))
    } else {
        // Nothing to store: the transaction rolls back as it is dropped.
        None
    };
    if stored.is_some() {
        tx.commit().map_err(sql)?;
    }
    Ok(SavedAnswer { before, stored })
}
