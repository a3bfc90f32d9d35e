//! Creating, opening, upgrading and copying a project file, and its metadata. Opening sets pragmas outside any transaction, then
//! applies pending migrations inside one `IMMEDIATE` transaction; a file written by a newer
//! Verity is refused before anything is written to it. Reads take `&self`; writes take
//! `&mut self` and run in a transaction.

use std::path::{Path, PathBuf};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::sqlite::{Store, changed_questionnaire, sql_err};
use crate::{MetaStore, PACKAGE_RATER, StatementCount, StoreError, count, migrations, shared};

/// Marks a SQLite file as a Verity project (`PRAGMA application_id`, "VERI").
const APPLICATION_ID: i64 = 0x5645_5249;

/// Marks a copy `migrate` is still writing ("VERu"): such a file never opens as a project, so
/// one a crash left half-written cannot be mistaken for the copy.
const UNFINISHED_ID: i64 = 0x5645_5275;

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
            .query_row(shared::META, [key], |row| row.get(0))
            .optional()
            .map_err(|e| self.sql(e))
    }

    fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.execute(shared::SET_META, [key, value])?;
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
            .query_row(shared::QUESTIONNAIRE_BY_VERSION, [id, version], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()
            .map_err(|e| sql_err(&self.path, e))?;
        let row = match existing {
            Some((row, stored)) if stored == source => row,
            Some(_) => return Err(changed_questionnaire(id, version)),
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
            .query_row(shared::QUESTIONNAIRE_SOURCE, [row], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .map_err(|e| self.sql(e))
    }

    fn count_statements(&mut self) -> Result<StatementCount, StoreError> {
        count::count_sqlite(&mut self.conn).map_err(|e| self.sql(e))
    }
}

impl Store {
    /// Creates a new project file; refuses to touch an existing file.
    pub fn create(path: &Path) -> Result<Store, StoreError> {
        Store::create_marked(path, APPLICATION_ID)
    }

    /// Creates a new file whose application id is `mark`.
    fn create_marked(path: &Path, mark: i64) -> Result<Store, StoreError> {
        if path.is_dir() {
            return Err(StoreError::IsFolder {
                path: path.to_path_buf(),
            });
        }
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
        Store::prepare(conn, path, Some(mark))
    }

    /// Opens an existing project file, migrating it to the current schema. A file that cannot
    /// be written (its folder or share neither) opens read-only: every read works, and every
    /// write is refused with [`StoreError::ReadOnly`].
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if path.is_dir() {
            return Err(StoreError::IsFolder {
                path: path.to_path_buf(),
            });
        }
        if !path.is_file() {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        if !writable(path) {
            return Store::open_read_only(path);
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| sql_err(path, source))?;
        Store::prepare(conn, path, None)
    }

    /// Opens a project that cannot be written. With no write-ahead log beside it (the last
    /// writer closed it), it is opened immutable: SQLite then creates no `-shm` file, which a
    /// folder that can be written would otherwise keep, stale, after Verity ends. With a log, a
    /// writer may be at work, and SQLite reads through the log's shared index.
    fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let logged = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let uri = format!(
            "{}{}",
            file_uri(path),
            if logged { "" } else { "?immutable=1" }
        );
        let conn =
            Connection::open_with_flags(uri, flags).map_err(|source| sql_err(path, source))?;
        let sql = |source| sql_err(path, source);
        let (app_id, version) = read_marks(&conn, path)?;
        check_application_id(path, app_id)?;
        let known = check_not_newer(path, version)?;
        if version < known {
            return Err(StoreError::ReadOnlyOld {
                path: path.to_path_buf(),
                found: version,
            });
        }
        configure(&conn).map_err(sql)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Creates the file a copy of a project is written into (`verity migrate`), marked
    /// unfinished so that it never opens as a project until [`Store::finish_copy`].
    pub fn create_unfinished(path: &Path) -> Result<Store, StoreError> {
        Store::create_marked(path, UNFINISHED_ID)
    }

    /// Marks a finished copy as a project, closes it with everything written into the file
    /// itself, and moves it to `target`, which must not exist.
    pub fn finish_copy(self, target: &Path) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sql = |source| sql_err(&path, source);
        self.conn
            .pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(sql)?;
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(sql)?;
        self.conn.close().map_err(|(_, e)| sql(e))?;
        let io = |e: std::io::Error| StoreError::Database {
            path: path.clone(),
            source: Box::new(e),
        };
        std::fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(io)?;
        if target.exists() {
            return Err(StoreError::AlreadyExists {
                path: target.to_path_buf(),
            });
        }
        std::fs::rename(&path, target).map_err(io)?;
        Store::remove_files(&path).map_err(io)
    }

    /// A project in memory, for tests.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| sql_err(&path, source))?;
        Store::prepare(conn, &path, Some(APPLICATION_ID))
    }

    /// Sets the connection up and brings the schema up to date; `new` is the application id to
    /// mark a new file with, `None` for an existing project.
    fn prepare(mut conn: Connection, path: &Path, new: Option<i64>) -> Result<Store, StoreError> {
        let sql = |source| sql_err(path, source);
        let (app_id, version) = read_marks(&conn, path)?;
        if new.is_none() {
            check_application_id(path, app_id)?;
        }
        check_not_newer(path, version)?;
        // WAL with synchronous=NORMAL keeps every committed transaction across a killed
        // process; only a power loss can drop the last ones.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sql)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql)?;
        configure(&conn).map_err(sql)?;
        migrations::migrate(&mut conn, version, new.unwrap_or(APPLICATION_ID)).map_err(sql)?;
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
}

/// A file's application id and schema version; a file that is no SQLite database is
/// [`StoreError::NotAProject`].
/// What every connection to a project sets, read-only or not.
///
/// The query planner's stability guarantee: a cached statement keeps its plan whatever values
/// are bound to it. Without it, SQLite re-prepared a join on a bound id at every new id (a
/// task's lookup by instance id took four times as long), hoping the value would find a better
/// plan. Bound values could choose better only with statistics (a project has none), a `LIKE`
/// on a parameter or a partial index tested against one (its queries have neither).
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    Ok(())
}

fn read_marks(conn: &Connection, path: &Path) -> Result<(i64, i64), StoreError> {
    conn.query_row(
        "SELECT application_id, user_version FROM pragma_application_id, pragma_user_version",
        [],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
    .map_err(|err| match err {
        rusqlite::Error::SqliteFailure(e, _) if e.code == rusqlite::ErrorCode::NotADatabase => {
            StoreError::NotAProject {
                path: path.to_path_buf(),
            }
        }
        other => sql_err(path, other),
    })
}

/// Refuses a file whose schema `version` is newer than this Verity's migrations; the number of
/// those it knows.
fn check_not_newer(path: &Path, version: i64) -> Result<i64, StoreError> {
    let known = migrations::MIGRATIONS.len() as i64;
    if version > known {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found: version,
            known,
        });
    }
    Ok(known)
}

/// Refuses a file that is not a finished Verity project.
fn check_application_id(path: &Path, app_id: i64) -> Result<(), StoreError> {
    match app_id {
        APPLICATION_ID => Ok(()),
        UNFINISHED_ID => Err(StoreError::Unfinished {
            path: path.to_path_buf(),
        }),
        _ => Err(StoreError::NotAProject {
            path: path.to_path_buf(),
        }),
    }
}

/// Whether this process may write the file and create files beside it (SQLite's log and
/// index): `access(2)`, which also says no for a read-only file system.
#[cfg(unix)]
fn writable(path: &Path) -> bool {
    use rustix::fs::{Access, access};
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    access(path, Access::WRITE_OK).is_ok() && access(folder, Access::WRITE_OK).is_ok()
}

#[cfg(not(unix))]
fn writable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
}

/// The `file:` URI of a path, for SQLite's URI parameters: characters with a meaning in a URI
/// are escaped.
fn file_uri(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for byte in absolute.as_os_str().as_encoded_bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(char::from(*byte));
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri
}

#[cfg(test)]
mod tests;
