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

impl Store {
    /// Adds a rater; names are unique.
    pub fn add_rater(&mut self, name: &str, now: &str) -> Result<Rater, StoreError> {
        if self.rater_by_name(name)?.is_some() {
            return Err(StoreError::Rule(format!(
                "the project already has a rater named {name:?}"
            )));
        }
        self.conn
            .execute(
                "INSERT INTO raters(name, created_at) VALUES (?1, ?2)",
                params![name, now],
            )
            .map_err(|e| self.sql(e))?;
        Ok(Rater {
            id: self.conn.last_insert_rowid(),
            name: name.to_string(),
        })
    }

    /// Every rater, by name.
    pub fn list_raters(&self) -> Result<Vec<Rater>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, name FROM raters ORDER BY name")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| {
                Ok(Rater {
                    id: row.get(0)?,
                    name: row.get(1)?,
                })
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    /// The rater with this name.
    pub fn rater_by_name(&self, name: &str) -> Result<Option<Rater>, StoreError> {
        self.conn
            .query_row(
                "SELECT id, name FROM raters WHERE name = ?1",
                [name],
                |row| {
                    Ok(Rater {
                        id: row.get(0)?,
                        name: row.get(1)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    /// Every assignment.
    pub fn list_assignments(&self) -> Result<Vec<Assignment>, StoreError> {
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

    /// Adds assignments in one transaction; existing pairs are kept as they are.
    pub fn add_assignments(
        &mut self,
        pairs: &[(i64, i64)],
        now: &str,
    ) -> Result<usize, StoreError> {
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

    /// Adds active time to an assignment, creating the assignment when a rater works on a case
    /// nobody assigned (a rater may pick any case).
    pub fn add_active_time(
        &mut self,
        case_id: i64,
        rater_id: i64,
        ms: i64,
        now: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO assignments(case_id, rater_id, assigned_at, active_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(case_id, rater_id) DO UPDATE SET active_ms = active_ms + excluded.active_ms",
                params![case_id, rater_id, now, ms.max(0)],
            )
            .map_err(|e| self.sql(e))?;
        Ok(())
    }
}
