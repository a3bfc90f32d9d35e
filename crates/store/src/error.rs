//! Why the project store could not be used.

use std::path::PathBuf;

/// Why the project file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database failed.
    #[error("project {path}: {source}")]
    Database {
        /// The project file.
        path: PathBuf,
        /// The database's own error, kept behind `dyn Error` so no backend's types leave
        /// `store`.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// `init` was asked to create a project where a file already is.
    #[error("{path} already exists; Verity will not overwrite it")]
    AlreadyExists {
        /// The file.
        path: PathBuf,
    },
    /// The project file does not exist.
    #[error("there is no project at {path}; create one with `verity init --project {path}`")]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// The project's path names a folder: a project is a file.
    #[error(
        "{path} is a folder, and a project is a file: name a project file in it, e.g. `--project {}` (`verity init --project {}` creates one)",
        path.join("panel.verity").display(),
        path.join("panel.verity").display()
    )]
    IsFolder {
        /// The folder.
        path: PathBuf,
    },
    /// The file is a SQLite database of something else, or not SQLite at all.
    #[error("{path} is not a Verity project file")]
    NotAProject {
        /// The file.
        path: PathBuf,
    },
    /// The file is a copy that `verity migrate` began and never finished.
    #[error(
        "{path} is an unfinished copy of a project (a `verity migrate` that stopped before its end); it is not a project: delete it and copy again"
    )]
    Unfinished {
        /// The file.
        path: PathBuf,
    },
    /// The project cannot be written: the file, its folder or the share it is on is read-only.
    #[error(
        "the project {path} is read-only (the file, its folder or its share cannot be written): it can be read, but nothing was saved"
    )]
    ReadOnly {
        /// The file.
        path: PathBuf,
    },
    /// A read-only project file written by an older Verity, which would have to be upgraded.
    #[error(
        "the project {path} was written by an older Verity (schema version {found}) and must be upgraded to be read, which a read-only project cannot be: open it once where it can be written"
    )]
    ReadOnlyOld {
        /// The file.
        path: PathBuf,
        /// The file's schema version.
        found: i64,
    },
    /// The disk holding the project is full.
    #[error(
        "the disk holding the project {path} is full: nothing was saved (free some space and try again)"
    )]
    DiskFull {
        /// The file.
        path: PathBuf,
    },
    /// The file was written by a newer Verity.
    #[error(
        "{path} was written by a newer Verity (schema version {found}, this Verity knows up to {known}); it was left untouched"
    )]
    TooNew {
        /// The file.
        path: PathBuf,
        /// The file's schema version.
        found: i64,
        /// The newest version this binary knows.
        known: i64,
    },
    /// A stored JSON value could not be read back.
    #[error("project {path}: stored {what} is not valid JSON: {source}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What was being read.
        what: &'static str,
        /// The underlying error.
        source: serde_json::Error,
    },
    /// A stored compressed text could not be decompressed.
    #[error("project {path}: stored {what} cannot be read: {reason}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What was being read.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// A rater by that name, or by one differing only in case, is already in the project.
    #[error("{0}")]
    NameTaken(String),
    /// A rule of the data model was about to be broken.
    #[error("{0}")]
    Rule(String),
    /// An answer event no longer follows its rater's history: another writer (a second
    /// process, the app beside the command line) saved that rater's answer first.
    #[error("{0}")]
    HistoryMoved(String),
    /// The project's server cannot be reached (it is down, restarting, or the network is);
    /// what was being written was not stored and can be tried again.
    #[error("the project's server at {location} cannot be reached: {reason}")]
    Unavailable {
        /// The server, as `host:port` (never with a password).
        location: String,
        /// What failed.
        reason: String,
    },
}
