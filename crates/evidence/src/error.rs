//! What evidence work names in its messages (the case and repository) and what can go wrong.

use std::path::PathBuf;

/// Names a task and its repository so that every error message can say which ones it is about.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CaseContext {
    /// The case's id, or `None` for work not tied to a case (such as `verity repo list`).
    pub case_id: Option<String>,
    /// The repository's name (`owner/name`) as the project knows it.
    pub repo: String,
}

impl CaseContext {
    /// Context for work on one case.
    pub fn new(case_id: impl Into<String>, repo: impl Into<String>) -> CaseContext {
        CaseContext {
            case_id: Some(case_id.into()),
            repo: repo.into(),
        }
    }

    /// Context for work on a repository alone.
    pub fn repository(repo: impl Into<String>) -> CaseContext {
        CaseContext {
            case_id: None,
            repo: repo.into(),
        }
    }
}

impl std::fmt::Display for CaseContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.case_id {
            Some(case) => write!(f, "case {case} (repository {})", self.repo),
            None => write!(f, "repository {}", self.repo),
        }
    }
}

/// Everything that can go wrong while computing evidence, searching or showing a file.
#[derive(Debug, thiserror::Error)]
pub enum EvidenceError {
    /// Nothing exists at the repository path.
    #[error("For {context}: no repository exists at {}.", path.display())]
    RepositoryMissing {
        /// Case and repository.
        context: Box<CaseContext>,
        /// Where the clone was expected.
        path: PathBuf,
    },
    /// Something exists at the path but git cannot open it as a repository.
    #[error("For {context}: {} is not a git repository git2 can open: {message}.", path.display())]
    RepositoryUnreadable {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The path given.
        path: PathBuf,
        /// libgit2's explanation.
        message: String,
    },
    /// The base commit is not a full 40-hex-digit id.
    #[error(
        "For {context}: base commit '{commit}' is not a full 40-hex-digit commit id; abbreviated or symbolic ids are refused because they can be ambiguous."
    )]
    CommitNotFullId {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The id as given.
        commit: String,
    },
    /// The clone does not hold the commit.
    #[error(
        "For {context}: the clone at {} does not hold base commit {commit}; fetch it or point the project at a fuller clone.",
        path.display()
    )]
    CommitMissing {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The clone.
        path: PathBuf,
        /// The missing commit.
        commit: String,
    },
    /// The id names an object that is not a commit (or a tag of one).
    #[error("For {context}: object {commit} in {} is a {kind}, not a commit.", path.display())]
    NotACommit {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The clone.
        path: PathBuf,
        /// The id given.
        commit: String,
        /// The object's type.
        kind: String,
    },
    /// An object could not be read or inflated.
    #[error(
        "For {context}: object {object} reachable from commit {commit} in {} cannot be read ({message}); the clone may be corrupt.",
        path.display()
    )]
    CorruptObject {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The clone.
        path: PathBuf,
        /// The commit being read.
        commit: String,
        /// The unreadable object (commit, tree or blob id).
        object: String,
        /// libgit2's explanation.
        message: String,
    },
    /// A file asked for does not exist at the commit.
    #[error("For {context}: commit {commit} has no file '{file}'.")]
    FileMissing {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The commit.
        commit: String,
        /// The path asked for.
        file: String,
    },
    /// A file asked for is at the commit, but the clone lacks its content (a partial clone).
    #[error(
        "For {context}: the clone at {} lacks the content of '{file}' at commit {commit} (blob {blob}); it is a partial clone or snapshot.",
        path.display()
    )]
    FileContentMissing {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The clone.
        path: PathBuf,
        /// The commit.
        commit: String,
        /// The path asked for.
        file: String,
        /// The missing blob's id.
        blob: String,
    },
    /// A file asked for is binary and cannot be shown as text.
    #[error(
        "For {context}: '{file}' at commit {commit} is a binary file ({size} bytes, a NUL byte in its first 8,000 bytes) and is not shown as text."
    )]
    BinaryFile {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The commit.
        commit: String,
        /// The path asked for.
        file: String,
        /// Its size in bytes.
        size: usize,
    },
    /// A search pattern is not a valid regular expression.
    #[error(
        "For {context}: the search pattern '{pattern}' is not a valid regular expression: {message}"
    )]
    InvalidPattern {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The pattern given.
        pattern: String,
        /// The regex engine's explanation.
        message: String,
    },
    /// A search pattern is empty.
    #[error("For {context}: the search pattern is empty; type at least one character.")]
    EmptyPattern {
        /// Case and repository.
        context: Box<CaseContext>,
    },
    /// A `codebase_ambiguity.json` document does not have the expected shape.
    #[error("{source_name} is not a valid codebase_ambiguity.json document: {message}.")]
    AmbiguityFormat {
        /// Where the document came from (a path or a label).
        source_name: String,
        /// What is wrong with it.
        message: String,
    },
    /// A sweep's proposals document does not have the expected shape.
    #[error("{source_name} is not a valid proposals document: {message}.")]
    ProposalFormat {
        /// Where the document came from (a path or a label).
        source_name: String,
        /// What is wrong with it.
        message: String,
    },
    /// A search worker thread panicked (a bug in Verity, not in the input).
    #[error("For {context}: a search thread stopped unexpectedly; this is a bug in Verity.")]
    WorkerPanicked {
        /// Case and repository.
        context: Box<CaseContext>,
    },
}
