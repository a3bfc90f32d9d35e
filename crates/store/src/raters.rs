//! Raters and their assignments.

use rusqlite::params;
use serde::Serialize;

use super::shared::{self, Cells, RATER_COLUMNS};
use super::{Store, StoreError};
use crate::sqlite::sql_err;

/// A member of the panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rater {
    /// Row id.
    pub id: i64,
    /// The unique name.
    pub name: String,
    /// False once deactivated: the rater's answers stay, and they leave every queue.
    pub active: bool,
}

/// A case given to a rater.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assignment {
    /// The case's row id.
    pub case_id: i64,
    /// The rater's row id.
    pub rater_id: i64,
    /// Active time spent on the case, in milliseconds.
    pub active_ms: i64,
}

/// A rater's package as the project that made it records it: the secret its events are sealed
/// with. The project keeps it; the package holds only its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageKey {
    /// The package's id, which the package holds too.
    pub package_id: String,
    /// The rater the package was made for (row id).
    pub rater_id: i64,
    /// The secret, as hex.
    pub secret: String,
    /// When it was made.
    pub made_at: String,
}

/// Refuses a new rater's name when a rater has it, or one differing only in case.
pub(super) fn check_name_free(raters: &[Rater], name: &str) -> Result<(), StoreError> {
    let folded = name.to_lowercase();
    match raters.iter().find(|r| r.name.to_lowercase() == folded) {
        None => Ok(()),
        Some(existing) => Err(StoreError::NameTaken(if existing.name == name {
            format!("the project already has a rater named {name:?}")
        } else {
            format!(
                "the project already has a rater named {:?}; {name:?} differs only in case and is refused as a likely duplicate",
                existing.name
            )
        })),
    }
}

/// Raters and their assignments.
pub trait RaterStore {
    /// Adds a rater. Names are unique regardless of case: `Alice` beside `alice` is refused as
    /// a likely duplicate.
    fn add_rater(&mut self, name: &str, now: &str) -> Result<Rater, StoreError>;

    /// Every rater, active or not, by name.
    fn list_raters(&self) -> Result<Vec<Rater>, StoreError>;

    /// The rater with this name.
    fn rater_by_name(&self, name: &str) -> Result<Option<Rater>, StoreError>;

    /// Deactivates a rater (or, with `active`, brings them back). Deactivating releases every
    /// assignment the rater has not submitted, so `assign` can give those cases to others; the
    /// rater's answer events, drafts included, stay. Returns the released assignments.
    fn set_rater_active(
        &mut self,
        rater_id: i64,
        active: bool,
        now: &str,
    ) -> Result<usize, StoreError>;

    /// How many answer events a rater has saved.
    fn rater_event_count(&self, rater_id: i64) -> Result<i64, StoreError>;

    /// Removes a rater who never saved an answer, with their assignments, and returns how
    /// many assignments went. Refused when they have answer events: those are never deleted.
    fn remove_rater(&mut self, rater_id: i64) -> Result<usize, StoreError>;

    /// Every assignment.
    fn list_assignments(&self) -> Result<Vec<Assignment>, StoreError>;

    /// Adds assignments in one transaction; existing pairs are kept as they are.
    fn add_assignments(&mut self, pairs: &[(i64, i64)], now: &str) -> Result<usize, StoreError>;

    /// Adds active time to an assignment; false when the rater is not assigned the case.
    fn add_active_time(&mut self, case_id: i64, rater_id: i64, ms: i64)
    -> Result<bool, StoreError>;

    /// The cases assigned to a rater (row ids): what a rater reads.
    fn assigned_cases(&self, rater_id: i64) -> Result<Vec<i64>, StoreError>;

    /// Records a package made for a rater, with its secret.
    fn put_package_key(&mut self, key: &PackageKey) -> Result<(), StoreError>;

    /// The package recorded under this id, if this project made it.
    fn package_key(&self, package_id: &str) -> Result<Option<PackageKey>, StoreError>;
}

impl RaterStore for Store {
    fn add_rater(&mut self, name: &str, now: &str) -> Result<Rater, StoreError> {
        check_name_free(&self.list_raters()?, name)?;
        let id = self
            .conn
            .query_row(shared::INSERT_RATER, params![name, now], |row| row.get(0))
            .map_err(|e| self.sql(e))?;
        Ok(Rater {
            id,
            name: name.to_string(),
            active: true,
        })
    }

    fn list_raters(&self) -> Result<Vec<Rater>, StoreError> {
        self.decode(
            &format!("SELECT {RATER_COLUMNS} FROM raters ORDER BY name"),
            [],
            |row| shared::rater(row),
        )
    }

    fn rater_by_name(&self, name: &str) -> Result<Option<Rater>, StoreError> {
        Ok(self
            .decode(shared::RATER_BY_NAME, [name], |row| shared::rater(row))?
            .pop())
    }

    fn set_rater_active(
        &mut self,
        rater_id: i64,
        active: bool,
        now: &str,
    ) -> Result<usize, StoreError> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| sql_err(&self.path, e))?;
        tx.execute(
            shared::SET_RATER_DEACTIVATED,
            params![(!active).then_some(now), rater_id],
        )
        .map_err(|e| sql_err(&self.path, e))?;
        let released = if active {
            0
        } else {
            tx.execute(shared::RELEASE_UNSUBMITTED, [rater_id])
                .map_err(|e| sql_err(&self.path, e))?
        };
        tx.commit().map_err(|e| sql_err(&self.path, e))?;
        Ok(released)
    }

    fn rater_event_count(&self, rater_id: i64) -> Result<i64, StoreError> {
        self.conn
            .query_row(shared::RATER_EVENT_COUNT, [rater_id], |row| row.get(0))
            .map_err(|e| self.sql(e))
    }

    fn remove_rater(&mut self, rater_id: i64) -> Result<usize, StoreError> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| sql_err(&self.path, e))?;
        let released = tx
            .execute(shared::DELETE_RATER_ASSIGNMENTS, [rater_id])
            .map_err(|e| sql_err(&self.path, e))?;
        // The answer events' foreign key refuses this for a rater who answered.
        tx.execute(shared::DELETE_RATER, [rater_id])
            .map_err(|e| sql_err(&self.path, e))?;
        tx.commit().map_err(|e| sql_err(&self.path, e))?;
        Ok(released)
    }

    fn list_assignments(&self) -> Result<Vec<Assignment>, StoreError> {
        self.decode(shared::ASSIGNMENTS, [], |row| shared::assignment(row))
    }

    fn add_assignments(&mut self, pairs: &[(i64, i64)], now: &str) -> Result<usize, StoreError> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| sql_err(&self.path, e))?;
        let mut added = 0;
        {
            let mut stmt = tx
                .prepare(
                    "INSERT OR IGNORE INTO assignments(case_id, rater_id, assigned_at) VALUES (?1, ?2, ?3)",
                )
                .map_err(|e| sql_err(&self.path, e))?;
            for (case_id, rater_id) in pairs {
                added += stmt
                    .execute(params![case_id, rater_id, now])
                    .map_err(|e| sql_err(&self.path, e))?;
            }
        }
        tx.commit().map_err(|e| sql_err(&self.path, e))?;
        Ok(added)
    }

    fn add_active_time(
        &mut self,
        case_id: i64,
        rater_id: i64,
        ms: i64,
    ) -> Result<bool, StoreError> {
        let updated = self
            .conn
            .execute(
                shared::ADD_ACTIVE_TIME,
                params![ms.max(0), case_id, rater_id],
            )
            .map_err(|e| self.sql(e))?;
        Ok(updated > 0)
    }

    fn assigned_cases(&self, rater_id: i64) -> Result<Vec<i64>, StoreError> {
        self.decode(shared::ASSIGNED_CASES, [rater_id], |row| row.cell(0))
    }

    fn put_package_key(&mut self, key: &PackageKey) -> Result<(), StoreError> {
        self.conn
            .execute(
                shared::PUT_PACKAGE_KEY,
                params![key.package_id, key.rater_id, key.secret, key.made_at],
            )
            .map_err(|e| self.sql(e))?;
        Ok(())
    }

    fn package_key(&self, package_id: &str) -> Result<Option<PackageKey>, StoreError> {
        Ok(self
            .decode(shared::PACKAGE_KEY, [package_id], |row| {
                shared::package_key(row)
            })?
            .pop())
    }
}
