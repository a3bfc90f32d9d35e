//! `verity migrate`: copies a whole project into a new one, from a file to a server or back,
//! losslessly: every row of every table, with its ids, answer events' global ids and times.

use std::path::Path;

use serde::Serialize;

use super::{Project, Result};
use crate::store::Store;
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

/// Copies the project into a new project at `to` (a file or a `postgres://` URL), which must
/// not exist yet. Nothing of a copy that fails is visible: a new file is removed; a server
/// keeps the empty schema the copy made.
pub fn migrate_project(project: &Project, to: &Path) -> Result<MigrateReport> {
    project.require_coordinator("copies the whole project")?;
    let mut dest = crate::store::create(to, None)?;
    match copy_rows(project.store.as_ref(), dest.as_mut(), &mut |_, _| true) {
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
            // A new file goes; a server keeps the empty schema, which a later copy refuses
            // as it refuses any project there.
            if !crate::store::postgres::is_server_url(&to.to_string_lossy())
                && let Err(e) = Store::remove_files(to)
            {
                tracing::warn!(path = %to.display(), %e, "cannot remove a failed copy");
            }
            Err(err.into())
        }
    }
}
