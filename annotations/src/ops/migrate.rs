//! `verity migrate`: copies a whole project into a new one, from a file to a server or back,
//! losslessly: every row of every table, with its ids, answer events' global ids and times.

use std::path::Path;

use serde::Serialize;

use super::{Error, ErrorCode, Project, Result};
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
/// not exist yet. Nothing of a copy that fails is kept: a new file is removed; on a server the
/// empty schema stays, and the error says so.
pub fn migrate_project(project: &Project, to: &Path) -> Result<MigrateReport> {
    project.require_coordinator("copies the whole project")?;
    let mut dest = crate::store::create(to, None)?;
    match copy_rows(project.store.as_ref(), dest.as_mut(), &mut |_, _| Ok(true)) {
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
            if crate::store::postgres::is_server_url(&to.to_string_lossy()) {
                // Verity drops no schema on a server; the coordinator does, knowingly.
                return Err(Error::refused(
                    ErrorCode::Store,
                    format!(
                        "{err}; nothing was copied, and the empty project Verity made at {} stays: drop it (DROP SCHEMA verity CASCADE) before copying again",
                        to.display()
                    ),
                ));
            }
            if let Err(e) = Store::remove_files(to) {
                tracing::warn!(path = %to.display(), %e, "cannot remove a failed copy");
            }
            Err(err.into())
        }
    }
}
