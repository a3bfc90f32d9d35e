//! How far a rater is on a task, as the lists and the answers show it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use verity_store::{AnswerEvent, EventKind, PairState};

/// A rater's progress on a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum AnswerStatus {
    /// Nothing saved yet.
    ToDo,
    /// A draft is saved.
    InProgress,
    /// Submitted (perhaps revised since).
    Submitted,
}

impl From<PairState> for AnswerStatus {
    fn from(state: PairState) -> Self {
        match state {
            PairState::Open => AnswerStatus::ToDo,
            PairState::Started => AnswerStatus::InProgress,
            PairState::Submitted => AnswerStatus::Submitted,
        }
    }
}

/// A rater's assignment on a case, without the answer (raters stay blind to each other).
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct AssignmentStatus {
    /// The rater.
    pub rater: String,
    /// How far they are.
    pub status: AnswerStatus,
    /// Active time spent, in milliseconds.
    #[ts(type = "number")]
    pub active_ms: i64,
}

/// The status of a rater's answer events on a case: none, drafts only, or a submission.
pub(super) fn status_of(events: &[AnswerEvent]) -> AnswerStatus {
    if events.iter().any(|e| e.kind != EventKind::Draft) {
        AnswerStatus::Submitted
    } else if events.is_empty() {
        AnswerStatus::ToDo
    } else {
        AnswerStatus::InProgress
    }
}
