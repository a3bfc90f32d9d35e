//! Raters' answers on one case with every revision, for `verity case show`: the coordinator
//! sees every rater's; a rater sees only their own.

use serde::Serialize;
use serde_json::{Map, Value};

use super::conflicts::{ConflictView, case_conflicts};
use super::lookup::{find_case, find_rater};
use super::status::{AnswerStatus, status_of};
use super::{Actor, Project, Result, natural_cmp};
use verity_store::EventKind;

/// One saved event of an answer.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerEventView {
    /// `draft`, `submit` or `revise`.
    pub event: EventKind,
    /// 0 for drafts before the first submission, 1 for it, n+1 after each revision.
    pub answer_revision: i64,
    /// The case revision the rater saw.
    pub case_revision: i64,
    /// When it was saved.
    pub at: String,
    /// Why a revision was made.
    pub reason: Option<String>,
    /// Question id to value, each in its question's canonical type.
    pub values: Map<String, Value>,
    /// A model rater's answer: what it was given with (model, endpoint, prompt hash,
    /// sampling, tokens, latency, cost, response id); absent for a human's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Map<String, Value>>,
}

/// A rater's answer on a case with its history, oldest first.
#[derive(Debug, Clone, Serialize)]
pub struct RaterAnswerHistory {
    /// The rater.
    pub rater: String,
    /// How far they are.
    pub status: AnswerStatus,
    /// Every event.
    pub events: Vec<AnswerEventView>,
    /// Answers of this rater on the case that did not follow the history (a package's
    /// diverging revision), each with where it came from; the coordinator's alone.
    pub conflicts: Vec<ConflictView>,
}

/// Every rater's answer on a case with its revision history, as far as the project's actor
/// may see: the coordinator sees every rater; a rater only themselves. Raters with no saved
/// event are left out.
pub fn answer_history(project: &Project, case: &str) -> Result<Vec<RaterAnswerHistory>> {
    project.require_actor()?;
    let stored = find_case(project, case)?;
    let (raters, conflicts) = match project.actor() {
        Some(Actor::Rater { name }) => (vec![find_rater(project, name)?], Vec::new()),
        _ => (
            project.store.list_raters()?,
            case_conflicts(project, stored.case_id)?,
        ),
    };
    let mut provenance = match project.actor() {
        Some(Actor::Coordinator) => super::models::provenance_by_uid(project)?,
        _ => std::collections::HashMap::new(),
    };
    let mut out = Vec::new();
    for rater in raters {
        let events = project.store.answer_events(stored.case_id, rater.id)?;
        let conflicts: Vec<ConflictView> = conflicts
            .iter()
            .filter(|c| c.rater == rater.name)
            .cloned()
            .collect();
        if events.is_empty() && conflicts.is_empty() {
            continue;
        }
        let status = status_of(&events);
        let mut views = Vec::new();
        for event in &events {
            views.push(AnswerEventView {
                event: event.kind,
                answer_revision: event.answer_revision,
                case_revision: project
                    .store
                    .case_revision(event.case_revision_id)?
                    .revision,
                at: event.at.clone(),
                reason: event.reason.clone(),
                values: project.questionnaire.decode_answer(&event.answer),
                provenance: provenance.remove(&event.uid),
            });
        }
        out.push(RaterAnswerHistory {
            rater: rater.name,
            status,
            events: views,
            conflicts,
        });
    }
    out.sort_by(|a, b| natural_cmp(&a.rater, &b.rater));
    Ok(out)
}
