//! `verity migrate`: copies a whole project into a new one, from a file to a server or back,
//! losslessly: every row of every table, with its ids, answer events' global ids and times.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Error, ErrorCode, Project, Result};
use verity_store::transfer::copy_rows;
use verity_store::{Store, StoreError};

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
/// not exist yet. A new file is written beside `to` and renamed to it at the end, so a copy
/// that fails or is killed never leaves a file at `to`, and what it left beside it is removed
/// by the next copy (and never opens as a project). On a server a failed copy leaves the
/// empty schema, and the error says so.
pub fn migrate_project(project: &Project, to: &Path) -> Result<MigrateReport> {
    project.require_coordinator("copies the whole project")?;
    let report = |tables: Vec<(&str, usize)>, to: &Path| MigrateReport {
        from: project.path().display().to_string(),
        to: to.display().to_string(),
        tables: tables
            .into_iter()
            .map(|(t, n)| (t.to_string(), n))
            .collect(),
    };
    if !verity_store::postgres::is_server_url(&to.to_string_lossy()) {
        return copy_to_file(project, to).map(|tables| report(tables, to));
    }
    let mut dest = verity_store::create(to, None)?;
    match copy_rows(project.store.as_ref(), dest.as_mut(), &mut |_, _| Ok(true)) {
        Ok(tables) => Ok(report(tables, dest.path())),
        Err(err) => {
            drop(dest);
            // Verity drops no schema on a server; the coordinator does, knowingly.
            Err(Error::refused(
                ErrorCode::Store,
                format!(
                    "{err}; nothing was copied, and the empty project Verity made at {} stays: drop it (DROP SCHEMA verity CASCADE) before copying again",
                    to.display()
                ),
            ))
        }
    }
}

/// Copies the project into the unfinished file beside `to`, then renames it to `to`.
fn copy_to_file(project: &Project, to: &Path) -> Result<Vec<(&'static str, usize)>> {
    if to.exists() {
        return Err(StoreError::AlreadyExists {
            path: to.to_path_buf(),
        }
        .into());
    }
    let partial = unfinished_path(to);
    let cleanup = |path: &Path| {
        Store::remove_files(path).map_err(|source| Error::Write {
            path: path.to_path_buf(),
            source,
        })
    };
    // What a killed copy left is incomplete by construction: it is ours to remove.
    cleanup(&partial)?;
    let mut dest = Store::create_unfinished(&partial)?;
    let finished = match copy_rows(project.store.as_ref(), &mut dest, &mut |_, _| Ok(true)) {
        Ok(tables) => dest.finish_copy(to).map(|()| tables),
        Err(err) => {
            drop(dest);
            Err(err)
        }
    };
    match finished {
        Ok(tables) => Ok(tables),
        Err(err) => {
            if let Err(e) = cleanup(&partial) {
                tracing::warn!(path = %partial.display(), %e, "cannot remove a failed copy");
            }
            Err(err.into())
        }
    }
}

/// `dir/.name.migrating`: beside the target, so the final rename stays on one file system.
fn unfinished_path(to: &Path) -> PathBuf {
    let name = to
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    to.with_file_name(format!(".{name}.migrating"))
}
