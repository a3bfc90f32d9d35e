//! The project file: one SQLite database holding cases, their revisions, raters, assignments,
//! append-only answer events, adjudications, repositories and the evidence cache.
//!
//! Opening sets pragmas outside any transaction, then applies pending migrations inside one
//! `IMMEDIATE` transaction; a file written by a newer Verity is refused before anything is
//! written to it. Reads take `&self`; writes take `&mut self` and run in a transaction.

mod answers;
mod cases;
mod interface;
mod labels;
mod migrations;
mod packed;
pub mod postgres;
mod progress;
mod raters;
mod repos;
mod results;
pub mod transfer;

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

pub use answers::{
    AnswerEvent, AnswerStore, EventKind, NewAnswerEvent, SubmissionFilter, new_event_uid,
};
pub use cases::{CaseRow, CaseStore, ImportBatch, ImportSession, ImportSummary, StoredCase};
pub use interface::ProjectStore;
pub(crate) use packed::pack_ahead;
pub use progress::{ChangeStamp, PairProgress, PairScope, PairState, ProgressStore};

/// Creates a project at `location`: a new file, or the schema in an existing PostgreSQL
/// database when `location` is a `postgres://` URL (with `password`, if given, to connect).
pub fn create(
    location: &Path,
    password: Option<&str>,
) -> Result<Box<dyn ProjectStore>, StoreError> {
    Ok(match server_url(location) {
        Some(url) => Box::new(postgres::PgStore::create(url, password)?),
        None => Box::new(Store::create(location)?),
    })
}

/// Opens the project at `location`: a file, or a `postgres://` URL.
pub fn open(location: &Path, password: Option<&str>) -> Result<Box<dyn ProjectStore>, StoreError> {
    Ok(match server_url(location) {
        Some(url) => Box::new(postgres::PgStore::open(url, password)?),
        None => Box::new(Store::open(location)?),
    })
}

/// The URL, when `location` names a server project.
fn server_url(location: &Path) -> Option<&str> {
    location.to_str().filter(|s| postgres::is_server_url(s))
}

/// Every trait of the store's interface, to call its methods on a concrete backend.
pub mod prelude {
    pub use super::{
        AnswerStore, CaseStore, ImportBatch, ImportLabels, LabelStore, MetaStore, ProgressStore,
        ProjectStore, RaterStore, RepoStore, ResultStore, transfer::TransferStore,
    };
}
pub use labels::{
    AdjudicationRow, EventSpans, ImportLabels, LabelStore, NewAdjudication, ReferenceRow,
    Submission,
};
pub use raters::{Assignment, Rater, RaterStore};
pub use repos::{CachedEvidence, EvidenceKey, RepoStore, Repository};
pub use results::{AuditVerdict, Outcomes, ResultStore, SystemRow};

/// The project setting naming the rater a package is for (`verity package`).
pub const PACKAGE_RATER: &str = "package_rater";

/// Marks a SQLite file as a Verity project (`PRAGMA application_id`, "VERI").
const APPLICATION_ID: i64 = 0x5645_5249;

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
    /// The file is a SQLite database of something else, or not SQLite at all.
    #[error("{path} is not a Verity project file")]
    NotAProject {
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

/// An open project file.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

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

impl MetaStore for Store {
    fn path(&self) -> &Path {
        &self.path
    }

    fn schema_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|e| self.sql(e))
    }

    fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()
            .map_err(|e| self.sql(e))
    }

    fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO meta(key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
            .map_err(|e| self.sql(e))?;
        Ok(())
    }

    fn put_questionnaire(
        &mut self,
        id: &str,
        version: &str,
        source: &str,
    ) -> Result<i64, StoreError> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| sql_err(&self.path, e))?;
        let existing: Option<(i64, String)> = tx
            .query_row(
                "SELECT id, source FROM questionnaires WHERE qid = ?1 AND version = ?2",
                [id, version],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(|e| sql_err(&self.path, e))?;
        let row = match existing {
            Some((row, stored)) if stored == source => row,
            Some(_) => {
                return Err(StoreError::Rule(format!(
                    "the project already holds questionnaire {id} version {version} with different content; give the changed file a new version"
                )));
            }
            None => {
                tx.execute(
                    "INSERT INTO questionnaires(qid, version, source) VALUES (?1, ?2, ?3)",
                    [id, version, source],
                )
                .map_err(|e| sql_err(&self.path, e))?;
                tx.last_insert_rowid()
            }
        };
        tx.commit().map_err(|e| sql_err(&self.path, e))?;
        Ok(row)
    }

    fn bound_rater(&self) -> Result<Option<String>, StoreError> {
        self.meta(PACKAGE_RATER)
    }

    fn questionnaire_source(&self, row: i64) -> Result<(String, String, String), StoreError> {
        self.conn
            .query_row(
                "SELECT qid, version, source FROM questionnaires WHERE id = ?1",
                [row],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(|e| self.sql(e))
    }
}

impl Store {
    /// Creates a new project file; refuses to touch an existing file.
    pub fn create(path: &Path) -> Result<Store, StoreError> {
        if path.exists() {
            return Err(StoreError::AlreadyExists {
                path: path.to_path_buf(),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| sql_err(path, source))?;
        Store::prepare(conn, path, true)
    }

    /// Opens an existing project file, migrating it to the current schema.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if !path.is_file() {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| sql_err(path, source))?;
        Store::prepare(conn, path, false)
    }

    /// A project in memory, for tests.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| sql_err(&path, source))?;
        Store::prepare(conn, &path, true)
    }

    fn prepare(mut conn: Connection, path: &Path, new: bool) -> Result<Store, StoreError> {
        let sql = |source| sql_err(path, source);
        let (app_id, version): (i64, i64) = conn
            .query_row(
                "SELECT application_id, user_version FROM pragma_application_id, pragma_user_version",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(|err| match err {
                rusqlite::Error::SqliteFailure(e, _)
                    if e.code == rusqlite::ErrorCode::NotADatabase =>
                {
                    StoreError::NotAProject {
                        path: path.to_path_buf(),
                    }
                }
                other => sql(other),
            })?;
        if !new && app_id != APPLICATION_ID {
            return Err(StoreError::NotAProject {
                path: path.to_path_buf(),
            });
        }
        let known = migrations::MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found: version,
                known,
            });
        }
        // WAL with synchronous=NORMAL keeps every committed transaction across a killed
        // process; only a power loss can drop the last ones.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sql)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sql)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sql)?;
        migrations::migrate(&mut conn, version, APPLICATION_ID).map_err(sql)?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.refresh_titles()?;
        Ok(store)
    }

    /// Removes a project file that is not open, with SQLite's files beside it; a file already
    /// gone is no error.
    pub fn remove_files(path: &Path) -> std::io::Result<()> {
        for suffix in ["", "-wal", "-shm"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            match std::fs::remove_file(&name) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks the file's structure (SQLite's `quick_check`): a truncated or damaged file is an
    /// error that says what SQLite found.
    pub fn check_integrity(&self) -> Result<(), StoreError> {
        let found: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
            .map_err(|e| self.sql(e))?;
        if found == "ok" {
            Ok(())
        } else {
            Err(StoreError::Rule(format!("SQLite's check found: {found}")))
        }
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        sql_err(&self.path, source)
    }

    fn corrupt(&self, what: &'static str, source: serde_json::Error) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            what,
            source,
        }
    }
}

fn sql_err(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Database {
        path: path.to_path_buf(),
        source: Box::new(source),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_newer_project_file_is_refused_and_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.verity");
        drop(Store::create(&path).unwrap());
        {
            let conn = Connection::open(&path).unwrap();
            conn.pragma_update(None, "user_version", 999).unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let err = Store::open(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::TooNew { found: 999, .. }),
            "{err}"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "a newer file is not modified"
        );
    }

    #[test]
    fn an_existing_file_is_never_overwritten_by_create() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.verity");
        std::fs::write(&path, "hello").unwrap();
        assert!(matches!(
            Store::create(&path).unwrap_err(),
            StoreError::AlreadyExists { .. }
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello");
    }

    #[test]
    fn a_file_that_is_not_a_project_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "x".repeat(4096)).unwrap();
        assert!(matches!(
            Store::open(&path).unwrap_err(),
            StoreError::NotAProject { .. }
        ));
        let other = dir.path().join("other.sqlite");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t(x); PRAGMA user_version = 1;")
            .unwrap();
        assert!(matches!(
            Store::open(&other).unwrap_err(),
            StoreError::NotAProject { .. }
        ));
    }

    #[test]
    fn a_file_written_by_the_first_schema_opens_and_upgrades_with_its_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.verity");
        {
            // The file exactly as the first Verity wrote it: schema 1 and its rows.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(migrations::MIGRATIONS[0]).unwrap();
            conn.pragma_update(None, "application_id", APPLICATION_ID)
                .unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            conn.execute_batch(
                r#"INSERT INTO questionnaires VALUES (1, 'q', '1', 'source');
                INSERT INTO cases VALUES (1, 'a', 't');
                INSERT INTO case_revisions VALUES
                  (1, 1, 1, '{"instance_id":"a"}', 'h', 'o/r', NULL, 'A', 1, 't');
                INSERT INTO raters VALUES (1, 'ana', 't');
                INSERT INTO assignments VALUES (1, 1, 't', 0);
                INSERT INTO answer_events VALUES
                  (1, 1, 1, 1, 1, 'draft', 0, '{"underspecified":"1"}', NULL, 't'),
                  (2, 1, 1, 1, 1, 'submit', 1, '{"underspecified":"2"}', NULL, 't');"#,
            )
            .unwrap();
        }
        let mut store = Store::open(&path).unwrap();
        assert_eq!(
            store.schema_version().unwrap(),
            migrations::MIGRATIONS.len() as i64
        );
        let raters = store.list_raters().unwrap();
        assert_eq!((raters[0].name.as_str(), raters[0].active), ("ana", true));
        let events = store.first_submissions().unwrap();
        assert_eq!(events[0].answer["underspecified"], "2");
        // Events written before global ids get ids that keep their order and precede any
        // event made since.
        let mut uids: Vec<String> = store
            .answer_events(1, 1)
            .unwrap()
            .into_iter()
            .map(|e| e.uid)
            .collect();
        assert_eq!(
            uids,
            [
                "00000000-0000-7000-8000-000000000001",
                "00000000-0000-7000-8000-000000000002"
            ]
        );
        uids.push(new_event_uid());
        assert!(uids.is_sorted());
        let project_id = store.meta("project_id").unwrap().unwrap();
        assert_eq!(project_id.len(), 36);
        assert_eq!(&project_id[14..15], "4");
        assert_eq!(store.list_cases().unwrap()[0].instance_id, "a");
        assert!(store.list_adjudicators().unwrap().is_empty());
        assert!(store.reference_sets().unwrap().is_empty());
        // The new schema's parts work on the upgraded file, and its rules still hold.
        assert_eq!(store.set_rater_active(1, false, "t2").unwrap(), 0);
        assert!(!store.list_raters().unwrap()[0].active);
        assert!(
            store
                .conn
                .execute("UPDATE answer_events SET answer = '{}'", [])
                .is_err()
        );
        drop(store);
        assert_eq!(
            Store::open(&path).unwrap().schema_version().unwrap(),
            migrations::MIGRATIONS.len() as i64,
            "reopening an upgraded file changes nothing"
        );
    }

    #[test]
    fn reopening_keeps_the_schema_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.verity");
        let version = Store::create(&path).unwrap().schema_version().unwrap();
        assert_eq!(version, migrations::MIGRATIONS.len() as i64);
        assert_eq!(
            Store::open(&path).unwrap().schema_version().unwrap(),
            version
        );
    }
}
