//! The project store: cases, their revisions, raters, assignments, append-only answer events,
//! adjudications, repositories, results, random samples and the evidence cache, in a SQLite project file
//! ([`Store`]) or a PostgreSQL database ([`postgres`]), both behind [`ProjectStore`], the traits
//! each table group declares beside its SQLite code.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod answers;
mod cases;
mod count;
mod error;
mod file;
mod interface;
mod labels;
mod location;
mod meta;
mod migrations;
pub(crate) mod models;
mod packed;
pub mod postgres;
mod progress;
mod raters;
mod repos;
mod results;
mod samples;
mod shared;
mod sqlite;
pub mod transfer;

pub use answers::{
    AnswerConflict, AnswerEvent, AnswerSave, AnswerState, AnswerStore, EventKind, NewAnswerEvent,
    SavedAnswer, Sealer, SubmissionFilter, new_event_uid,
};
pub use cases::{
    CaseRef, CaseRow, CaseStore, ImportBatch, ImportSession, ImportSummary, StoredCase,
};
pub use count::StatementCount;
pub use error::StoreError;
pub use interface::ProjectStore;
pub use location::{create, open};
pub use meta::{AnswersChanged, Login, MetaStore, PACKAGE_RATER, PanelLogins};
pub use packed::pack_ahead;
pub use progress::{ChangeStamp, PairProgress, PairScope, PairState, ProgressStore};
pub use sqlite::Store;

/// Every trait of the store's interface, to call its methods on a concrete backend.
pub mod prelude {
    pub use super::{
        AnswerStore, CaseStore, ImportBatch, ImportLabels, LabelStore, MetaStore, ModelStore,
        ProgressStore, ProjectStore, RaterStore, RepoStore, ResultStore, SampleStore,
        TransferStore,
    };
}
pub use labels::{
    AdjudicationRow, EventSpans, ImportLabels, LabelStore, NewAdjudication, ReferenceRow,
    Submission,
};
pub use models::{
    AttemptPurpose, ModelAttempt, ModelConfig, ModelRater, ModelSettings, ModelStore,
};
pub use raters::{Assignment, PackageKey, Rater, RaterStore};
pub use repos::{CachedEvidence, EvidenceKey, RepoStore, Repository, StoredSweep};
pub use results::{AuditVerdict, EncodedOutcomes, Outcomes, ResultStore, SystemRow};
pub use samples::{FrameRow, SampleDraw, SampleStore};
pub use transfer::TransferStore;
