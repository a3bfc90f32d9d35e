//! `verity migrate`: copies a whole project into a new one, from a file to a server or back,
//! losslessly: every row of every table, with its ids, answer events' global ids and times.

use std::path::Path;

use serde::Serialize;

use super::{Project, Result};
use crate::store::Store;
use crate::store::prelude::*;
use crate::store::transfer::copy_rows;

/// What a migration copied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MigrateReport {
    /// The project copied.
    pub from: String,
    /// The new project.
    pub to: String,
    /// Rows copied, table by table.
    pub tables: Vec<(String, usize)>,
}

/// Copies the project into a new project at `to`, which must not exist yet. A copy that fails
/// leaves no new project behind.
pub fn migrate_project(project: &Project, to: &Path) -> Result<MigrateReport> {
    project.require_coordinator("copies the whole project")?;
    let mut dest = Store::create(to)?;
    match copy_rows(project.store.as_ref(), &mut dest, &mut |_, _| true) {
        Ok(tables) => Ok(MigrateReport {
            from: project.path().display().to_string(),
            to: dest.path().display().to_string(),
            tables: tables
                .into_iter()
                .map(|(t, n)| (t.to_string(), n))
                .collect(),
        }),
        Err(err) => {
            drop(dest);
            if let Err(e) = Store::remove_files(to) {
                tracing::warn!(path = %to.display(), %e, "cannot remove a failed copy");
            }
            Err(err.into())
        }
    }
}
