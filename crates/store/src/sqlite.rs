//! The handle on a project file every table group's SQLite code works through: the connection,
//! the file's path, and how a database failure is said.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::StoreError;

/// An open project file.
pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    pub(crate) fn sql(&self, source: rusqlite::Error) -> StoreError {
        sql_err(&self.path, source)
    }

    /// Runs one statement outside any transaction; the rows it changed.
    pub(crate) fn execute(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<usize, StoreError> {
        self.conn.execute(sql, params).map_err(|e| self.sql(e))
    }

    pub(crate) fn corrupt(&self, what: &'static str, source: serde_json::Error) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            what,
            source,
        }
    }
}

/// Refuses a questionnaire whose id and version the project holds with other content.
pub(crate) fn changed_questionnaire(id: &str, version: &str) -> StoreError {
    StoreError::Rule(format!(
        "the project already holds questionnaire {id} version {version} with different content; give the changed file a new version"
    ))
}

/// The store's error for a database failure: a full disk and a read-only file are said as
/// such, since what the user can do about them differs from any other failure.
pub(crate) fn sql_err(path: &Path, source: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::SqliteFailure(e, _) = &source {
        match e.code {
            rusqlite::ErrorCode::DiskFull => {
                return StoreError::DiskFull {
                    path: path.to_path_buf(),
                };
            }
            rusqlite::ErrorCode::ReadOnly => {
                return StoreError::ReadOnly {
                    path: path.to_path_buf(),
                };
            }
            _ => {}
        }
    }
    StoreError::Database {
        path: path.to_path_buf(),
        source: Box::new(source),
    }
}
