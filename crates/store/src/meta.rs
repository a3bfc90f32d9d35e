//! The project's metadata and questionnaires, raters' logins where the backend has them, and
//! the feed of other sessions' answers.

use std::path::Path;
use std::sync::mpsc::Receiver;

use crate::{StatementCount, StoreError};

/// The project setting naming the rater a package is for (`verity package`).
pub const PACKAGE_RATER: &str = "package_rater";

/// The project's metadata and questionnaires.
pub trait MetaStore {
    /// The project file's path.
    fn path(&self) -> &Path;

    /// The schema version of the open file.
    fn schema_version(&self) -> Result<i64, StoreError>;

    /// Reads a project setting.
    fn meta(&self, key: &str) -> Result<Option<String>, StoreError>;

    /// Writes a project setting.
    fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError>;

    /// Stores a questionnaire's source (once per id and version) and returns its row id.
    fn put_questionnaire(
        &mut self,
        id: &str,
        version: &str,
        source: &str,
    ) -> Result<i64, StoreError>;

    /// A stored questionnaire's source by row id.
    fn questionnaire_source(&self, row: i64) -> Result<(String, String, String), StoreError>;

    /// Tells when another session (another rater's app on a shared server) appends answer
    /// events: one message per change, from the moment it returns, for as long as the receiver
    /// is kept. `None` where nobody else writes while the project is open (a project file).
    fn answer_feed(&self) -> Result<Option<Receiver<AnswersChanged>>, StoreError> {
        Ok(None)
    }

    /// The one rater this session may act for: a rater's package names its rater; on a server,
    /// a rater's own login is that rater. `None` for the coordinator.
    fn bound_rater(&self) -> Result<Option<String>, StoreError>;

    /// Raters' own logins, where the backend has them (a server).
    fn logins(&mut self) -> Option<&mut dyn PanelLogins> {
        None
    }

    /// Begins counting the statements this store runs, from zero (a diagnostic: the tests that
    /// hold an autosave to its number of statements, the benchmarks that report it).
    fn count_statements(&mut self) -> Result<StatementCount, StoreError>;
}

/// A login made for a rater: the role and its one-time password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    /// The role to connect as.
    pub role: String,
    /// Its password, shown once and never stored in the clear.
    pub password: String,
}

/// Raters' own database logins, which the server itself holds to their rows.
pub trait PanelLogins {
    /// Makes a login role for the rater, or a new password for the one they have.
    fn grant(&mut self, rater_id: i64, rater: &str, now: &str) -> Result<Login, StoreError>;

    /// Removes the rater's login; its role, if there was one.
    fn revoke(&mut self, rater_id: i64) -> Result<Option<String>, StoreError>;

    /// Every login: (rater id, role).
    fn list(&mut self) -> Result<Vec<(i64, String)>, StoreError>;
}

/// Answer events were appended by another session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswersChanged;
