//! Conflicts: answer events that did not follow their rater's history where they arrived (a
//! package's revision beside the project's own revision of the same number, an event stored
//! twice under one revision by an older Verity). Each is kept whole with where it came from, the
//! rater's answer stays as it was meanwhile, and the coordinator settles it: keep the project's
//! answer, or take the conflict's answer as the rater's next revision, its reason naming the
//! conflict and its origin. Both answers stay in the history either way.

use serde::Serialize;
use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::answers::check_answer_values;
use super::{Error, ErrorCode, Project, Result, stamp};
use verity_store::{AnswerConflict, EventKind, NewAnswerEvent, Rater, new_event_uid};
use verity_task::questionnaire::Stage;

/// A conflict as the coordinator reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConflictView {
    /// The conflict's number, which `verity conflicts resolve` takes.
    pub id: i64,
    /// The task's id.
    pub instance_id: String,
    /// The rater whose answer it is.
    pub rater: String,
    /// `draft`, `submit` or `revise`, as the event came.
    pub kind: EventKind,
    /// The answer revision the event claimed.
    pub answer_revision: i64,
    /// When the rater saved it, as recorded.
    pub at: String,
    /// Its reason, for a revision.
    pub reason: Option<String>,
    /// Its answers.
    pub values: Map<String, Value>,
    /// Where it came from: the package and its rater, or why it was set aside.
    pub origin: String,
    /// When it was set aside.
    pub found_at: String,
    /// The rater's submitted answer in the project that it competes with: its revision.
    pub current_revision: Option<i64>,
    /// That answer's values.
    pub current_values: Option<Map<String, Value>>,
    /// When the coordinator settled it; `None` while open.
    pub resolved_at: Option<String>,
    /// How it was settled.
    pub resolution: Option<String>,
}

/// Which answer a settled conflict keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The answer the project holds; the conflict's stays in the history as set aside.
    Stored,
    /// The conflict's answer, appended as the rater's next revision.
    Incoming,
}

/// Every conflict (only the open ones unless `all`), in the order found.
pub fn list_conflicts(project: &Project, all: bool) -> Result<Vec<ConflictView>> {
    project.require_coordinator("reads answer conflicts")?;
    let raters = project.store.list_raters()?;
    project
        .store
        .answer_conflicts()?
        .into_iter()
        .filter(|c| all || c.resolved_at.is_none())
        .map(|c| conflict_view(project, &raters, c))
        .collect()
}

/// The conflicts of one task, open and settled, for its answer history.
pub(super) fn case_conflicts(project: &Project, case_id: i64) -> Result<Vec<ConflictView>> {
    let raters = project.store.list_raters()?;
    project
        .store
        .answer_conflicts()?
        .into_iter()
        .filter(|c| c.event.case_id == case_id)
        .map(|c| conflict_view(project, &raters, c))
        .collect()
}

/// A conflict as shown, with its rater's name from `raters` (read once per listing, not once
/// per conflict).
fn conflict_view(project: &Project, raters: &[Rater], c: AnswerConflict) -> Result<ConflictView> {
    let e = c.event;
    let case = project.store.case_revision(e.case_revision_id)?;
    let rater = raters
        .iter()
        .find(|r| r.id == e.rater_id)
        .map(|r| r.name.clone())
        .unwrap_or_default();
    let current = project
        .store
        .answer_events(e.case_id, e.rater_id)?
        .into_iter()
        .rfind(|s| s.kind != EventKind::Draft);
    Ok(ConflictView {
        id: e.id,
        instance_id: case.case.instance_id,
        rater,
        kind: e.kind,
        answer_revision: e.answer_revision,
        at: e.at,
        reason: e.reason,
        values: project.questionnaire.decode_answer(&e.answer),
        origin: c.origin,
        found_at: c.found_at,
        current_revision: current.as_ref().map(|s| s.answer_revision),
        current_values: current.map(|s| project.questionnaire.decode_answer(&s.answer)),
        resolved_at: c.resolved_at,
        resolution: c.resolution,
    })
}

/// Settles open conflict `id`: keeps the project's answer, or takes the conflict's as the
/// rater's next revision (checked as any submission; nothing new is appended when the rater's
/// answer already says the same). `note`, when given, is added to the record.
pub fn resolve_conflict(
    project: &mut Project,
    id: i64,
    keep: Keep,
    note: Option<&str>,
    now: OffsetDateTime,
) -> Result<ConflictView> {
    project.require_coordinator("settles answer conflicts")?;
    let conflict = project
        .store
        .answer_conflicts()?
        .into_iter()
        .find(|c| c.event.id == id)
        .ok_or_else(|| Error::NotFound(format!("the project has no answer conflict {id}")))?;
    if let Some(when) = &conflict.resolved_at {
        return Err(Error::refused(
            ErrorCode::NotFound,
            format!(
                "answer conflict {id} was settled already, at {when}; it has no open conflict {id}"
            ),
        ));
    }
    let note = note.map(str::trim).filter(|n| !n.is_empty());
    let at = stamp(now);
    let e = &conflict.event;
    let mut resolution = match keep {
        Keep::Stored => "kept the answer the project holds".to_string(),
        Keep::Incoming => {
            let reason = format!(
                "conflict {id} settled by the coordinator: the answer from {} (its revision {}) kept{}",
                conflict.origin,
                e.answer_revision,
                note.map(|n| format!("; {n}")).unwrap_or_default()
            );
            // Checked as any revision is, its reason with it.
            let values = check_answer_values(
                project,
                &project.questionnaire.decode_answer(&e.answer),
                Some(&reason),
                Stage::Submit,
            )?
            .0;
            let events = project.store.answer_events(e.case_id, e.rater_id)?;
            let last = events.iter().rfind(|s| s.kind != EventKind::Draft);
            match last {
                Some(s) if project.questionnaire.decode_answer(&s.answer) == values => format!(
                    "took the answer from {}, which revision {} already holds",
                    conflict.origin, s.answer_revision
                ),
                _ => {
                    let (kind, revision) = match last {
                        Some(s) => (EventKind::Revise, s.answer_revision + 1),
                        None => (EventKind::Submit, 1),
                    };
                    let uid = new_event_uid();
                    project.store.append_answer_event(&NewAnswerEvent {
                        uid: &uid,
                        case_id: e.case_id,
                        rater_id: e.rater_id,
                        case_revision_id: e.case_revision_id,
                        questionnaire_id: e.questionnaire_id,
                        kind,
                        answer_revision: revision,
                        answer: &values,
                        reason: (kind == EventKind::Revise).then_some(reason.as_str()),
                        at: &at,
                    })?;
                    format!(
                        "took the answer from {} as revision {revision} (event {uid})",
                        conflict.origin
                    )
                }
            }
        }
    };
    if let Some(n) = note {
        resolution.push_str(&format!("; {n}"));
    }
    if !project.store.resolve_conflict(id, &resolution, &at)? {
        return Err(Error::refused(
            ErrorCode::NotFound,
            format!("answer conflict {id} was settled meanwhile by another session"),
        ));
    }
    let settled = project
        .store
        .answer_conflicts()?
        .into_iter()
        .find(|c| c.event.id == id)
        .ok_or_else(|| Error::NotFound(format!("the project has no answer conflict {id}")))?;
    conflict_view(project, &project.store.list_raters()?, settled)
}
