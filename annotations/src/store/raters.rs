//! Raters and their assignments.

use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use super::{Store, StoreError, sql_err};

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

const RATER_COLUMNS: &str = "id, name, deactivated_at IS NULL";

fn rater_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Rater> {
    Ok(Rater {
        id: row.get(0)?,
        name: row.get(1)?,
        active: row.get(2)?,
    })
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

    /// Whether the rater is assigned the case.
    fn is_assigned(&self, case_id: i64, rater_id: i64) -> Result<bool, StoreError>;

    /// Adds active time to an assignment; false when the rater is not assigned the case.
    fn add_active_time(&mut self, case_id: i64, rater_id: i64, ms: i64)
    -> Result<bool, StoreError>;
}

impl RaterStore for Store {
    fn add_rater(&mut self, name: &str, now: &str) -> Result<Rater, StoreError> {
        check_name_free(&self.list_raters()?, name)?;
        self.conn
            .execute(
                "INSERT INTO raters(name, created_at) VALUES (?1, ?2)",
                params![name, now],
            )
            .map_err(|e| self.sql(e))?;
        Ok(Rater {
            id: self.conn.last_insert_rowid(),
            name: name.to_string(),
            active: true,
        })
    }

    fn list_raters(&self) -> Result<Vec<Rater>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {RATER_COLUMNS} FROM raters ORDER BY name"))
            .map_err(|e| self.sql(e))?;
        let rows = stmt.query_map([], rater_row).map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    fn rater_by_name(&self, name: &str) -> Result<Option<Rater>, StoreError> {
        self.conn
            .query_row(
                &format!("SELECT {RATER_COLUMNS} FROM raters WHERE name = ?1"),
                [name],
                rater_row,
            )
            .optional()
            .map_err(|e| self.sql(e))
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
            "UPDATE raters SET deactivated_at = ?2 WHERE id = ?1",
            params![rater_id, (!active).then_some(now)],
        )
        .map_err(|e| sql_err(&self.path, e))?;
        let released = if active {
            0
        } else {
            tx.execute(
                "DELETE FROM assignments WHERE rater_id = ?1 AND NOT EXISTS (
                   SELECT 1 FROM answer_events e
                   WHERE e.case_id = assignments.case_id AND e.rater_id = ?1 AND e.kind <> 'draft')",
                [rater_id],
            )
            .map_err(|e| sql_err(&self.path, e))?
        };
        tx.commit().map_err(|e| sql_err(&self.path, e))?;
        Ok(released)
    }

    fn rater_event_count(&self, rater_id: i64) -> Result<i64, StoreError> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM answer_events WHERE rater_id = ?1",
                [rater_id],
                |row| row.get(0),
            )
            .map_err(|e| self.sql(e))
    }

    fn remove_rater(&mut self, rater_id: i64) -> Result<usize, StoreError> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| sql_err(&self.path, e))?;
        let released = tx
            .execute("DELETE FROM assignments WHERE rater_id = ?1", [rater_id])
            .map_err(|e| sql_err(&self.path, e))?;
        // The answer events' foreign key refuses this for a rater who answered.
        tx.execute("DELETE FROM raters WHERE id = ?1", [rater_id])
            .map_err(|e| sql_err(&self.path, e))?;
        tx.commit().map_err(|e| sql_err(&self.path, e))?;
        Ok(released)
    }

    fn list_assignments(&self) -> Result<Vec<Assignment>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT case_id, rater_id, active_ms FROM assignments ORDER BY case_id, rater_id",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| {
                Ok(Assignment {
                    case_id: row.get(0)?,
                    rater_id: row.get(1)?,
                    active_ms: row.get(2)?,
                })
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
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

    fn is_assigned(&self, case_id: i64, rater_id: i64) -> Result<bool, StoreError> {
        self.conn
            .query_row(
                "SELECT 1 FROM assignments WHERE case_id = ?1 AND rater_id = ?2",
                params![case_id, rater_id],
                |_| Ok(()),
            )
            .optional()
            .map(|row| row.is_some())
            .map_err(|e| self.sql(e))
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
                "UPDATE assignments SET active_ms = active_ms + ?3 WHERE case_id = ?1 AND rater_id = ?2",
                params![case_id, rater_id, ms.max(0)],
            )
            .map_err(|e| self.sql(e))?;
        Ok(updated > 0)
    }
}
