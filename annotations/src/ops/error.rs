//! What goes wrong in a use case: one error type whose every failure has a stable code. The
//! codes are exported to TypeScript, so the desktop app branches on them, never on sentences.

use std::path::PathBuf;

use serde::Serialize;
use ts_rs::TS;

use crate::import::ImportError;
use verity_store::StoreError;
use verity_task::questionnaire::{QuestionnaireError, Violation};

/// Shorthand for a use case's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A stable, machine-readable name for each kind of failure, as it crosses IPC (`{code,
/// message}`). The desktop shell's own refusals (who may do what, one job at a time) are here
/// too, so that the app sees one list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ErrorCode {
    /// The project file was written by a newer Verity.
    ProjectTooNew,
    /// There is no project file at the path.
    ProjectMissing,
    /// The file is not a Verity project.
    NotAProject,
    /// A file is already where a new one would go (`init`, an export, a report).
    AlreadyExists,
    /// The project file failed or holds something this Verity cannot read.
    Store,
    /// The project cannot be written (a read-only file, folder or share): it is read, and
    /// nothing was saved.
    ReadOnly,
    /// The disk holding the project is full; nothing was saved.
    DiskFull,
    /// The project's server cannot be reached; nothing was stored, and the same request can be
    /// sent again.
    ServerUnavailable,
    /// An input file (tasks, ratings) is malformed.
    BadInput,
    /// A questionnaire file is malformed.
    BadQuestionnaire,
    /// Something named (a case, a rater, a question, a repository) does not exist.
    NotFound,
    /// A name or id prefix fits more than one thing.
    Ambiguous,
    /// An answer breaks the questionnaire's rules.
    InvalidAnswer,
    /// The rater already submitted: a change is a revision.
    AlreadySubmitted,
    /// A revision needs its reason.
    NeedsReason,
    /// There is no submitted answer to revise.
    NothingToRevise,
    /// The case is not assigned to the rater.
    NotAssigned,
    /// The rater is deactivated.
    RaterInactive,
    /// The rater is already active.
    RaterActive,
    /// A rater by that name (or one differing only in case) exists.
    NameTaken,
    /// A rater who saved answers cannot be removed.
    HasAnswers,
    /// A required name, rationale or value is empty.
    Empty,
    /// The assignment cannot be made (too few raters, no case to assign).
    CannotAssign,
    /// Only the coordinator or a named adjudicator adjudicates.
    NotAdjudicator,
    /// Nobody has submitted an answer on the case.
    NothingToAdjudicate,
    /// A free-text question has no options to measure or decide.
    FreeTextQuestion,
    /// The value is not one of the question's options.
    NotAnOption,
    /// The questionnaire cannot serve what was asked (a format's or rule's questions).
    QuestionnaireMismatch,
    /// A repository name is not `OWNER/NAME` as the tasks spell it.
    BadRepositoryName,
    /// The case has no base commit to compute evidence at.
    NoBaseCommit,
    /// Answers could not be combined by the rule.
    Ensemble,
    /// Evidence could not be computed (a missing clone or commit, a corrupt object).
    Evidence,
    /// An output file could not be written.
    Write,
    /// A long job was cancelled.
    Cancelled,
    /// A repository could not be cloned or its commits fetched: the server cannot be reached,
    /// the transfer broke off, or git failed.
    CloneFailed,
    /// The desktop app: nobody has chosen who they are yet.
    NoRole,
    /// The desktop app: only the coordinator may do this.
    CoordinatorOnly,
    /// The desktop app: only a rater may do this.
    RaterOnly,
    /// The desktop app: a rater may read and change only their own answers.
    NotYourAnswers,
    /// The desktop app: no project is open.
    NoProject,
    /// The desktop app: another long job is running.
    Busy,
    /// The desktop app opens only web and mail links.
    RefusedUrl,
    /// The system could not open a link.
    OpenFailed,
    /// A rater's package is from another project, holds another rater's answers, or is damaged.
    BadPackage,
    /// The project is a file, and this needs a project on a server.
    NotAServer,
    /// The project acts for one rater only (a rater's package, a rater's server login).
    IdentityFixed,
    /// A dataset could not be fetched from the Hugging Face Hub: the network, access, a
    /// missing dataset or split, a corrupt download.
    Hub,
    /// A model endpoint refused the key or the request, or could not be reached.
    ModelEndpoint,
    /// A model rater's run cannot keep its budget (a price or the reply's size is unknown).
    BudgetUnknown,
    /// A prediction-powered estimate has no recorded random sample to stand on: none was
    /// drawn, humans rate tasks outside it, or too few of its tasks are complete.
    NotRandomSample,
    /// A bug in Verity; the log has details.
    Internal,
}

/// What went wrong in a use case.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The project file.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An input file.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// A questionnaire file.
    #[error(transparent)]
    Questionnaire(#[from] QuestionnaireError),
    /// A ratings file (`unit,rater,value`).
    #[error(transparent)]
    Ratings(#[from] crate::import::ratings_csv::RatingsError),
    /// Statistics asked for something the data cannot give.
    #[error(transparent)]
    Agreement(#[from] verity_stats::agreement::AgreementError),
    /// Answers could not be combined.
    #[error(transparent)]
    Ensemble(#[from] verity_stats::ensemble::EnsembleError),
    /// Something named does not exist.
    #[error("{0}")]
    NotFound(String),
    /// An answer breaks the questionnaire's rules.
    #[error("{}", violations.iter().map(|v| v.message.as_str()).collect::<Vec<_>>().join(" "))]
    Invalid {
        /// Every broken rule.
        violations: Vec<Violation>,
    },
    /// The request is refused by a rule of the data model or the panel, said in `message`.
    #[error("{message}")]
    Refused {
        /// Which rule.
        code: ErrorCode,
        /// A sentence saying what is wrong and what to do.
        message: String,
    },
    /// An output could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// Where.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A value could not be turned into JSON (a bug: every type Verity writes serializes).
    #[error("cannot encode {what} as JSON: {source}")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// The underlying error.
        source: serde_json::Error,
    },
    /// Evidence could not be computed (a missing clone or commit, a corrupt object).
    #[error(transparent)]
    Evidence(Box<verity_evidence::EvidenceError>),
    /// A dataset could not be fetched from the Hugging Face Hub.
    #[error(transparent)]
    Hub(#[from] crate::hub::HubError),
    /// A long job was cancelled; nothing was stored.
    #[error("cancelled; nothing was stored")]
    Cancelled,
}

impl Error {
    /// A refusal with its code and sentence.
    pub fn refused(code: ErrorCode, message: impl Into<String>) -> Error {
        Error::Refused {
            code,
            message: message.into(),
        }
    }

    /// The repository whose clone lacks the case's base commit, when that is what went wrong:
    /// fetching the commit (`fetch_missing_commits`) may help.
    pub fn missing_base_commit(&self) -> Option<&str> {
        match self {
            Error::Evidence(err) => match err.as_ref() {
                verity_evidence::EvidenceError::CommitMissing { context, .. } => {
                    Some(context.repo.as_str())
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The stable code front ends branch on.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Store(StoreError::TooNew { .. }) => ErrorCode::ProjectTooNew,
            Error::Store(StoreError::Missing { .. }) => ErrorCode::ProjectMissing,
            Error::Store(
                StoreError::NotAProject { .. }
                | StoreError::Unfinished { .. }
                | StoreError::IsFolder { .. },
            ) => ErrorCode::NotAProject,
            Error::Store(StoreError::ReadOnly { .. } | StoreError::ReadOnlyOld { .. }) => {
                ErrorCode::ReadOnly
            }
            Error::Store(StoreError::DiskFull { .. }) => ErrorCode::DiskFull,
            Error::Store(StoreError::AlreadyExists { .. }) => ErrorCode::AlreadyExists,
            Error::Store(StoreError::NameTaken(_)) => ErrorCode::NameTaken,
            Error::Store(StoreError::Unavailable { .. }) => ErrorCode::ServerUnavailable,
            Error::Store(_) => ErrorCode::Store,
            Error::Import(_) | Error::Ratings(_) | Error::Agreement(_) => ErrorCode::BadInput,
            Error::Questionnaire(_) => ErrorCode::BadQuestionnaire,
            Error::Ensemble(_) => ErrorCode::Ensemble,
            Error::NotFound(_) => ErrorCode::NotFound,
            Error::Invalid { .. } => ErrorCode::InvalidAnswer,
            Error::Refused { code, .. } => *code,
            Error::Write { .. } => ErrorCode::Write,
            Error::Encode { .. } => ErrorCode::Internal,
            Error::Evidence(_) => ErrorCode::Evidence,
            Error::Hub(crate::hub::HubError::Cancelled | crate::hub::HubError::Stopped)
            | Error::Cancelled => ErrorCode::Cancelled,
            Error::Hub(_) => ErrorCode::Hub,
        }
    }
}
