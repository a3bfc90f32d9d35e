//! The embedded demo project, kept where the desktop app keeps it.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use time::OffsetDateTime;

use super::import::import_paths;
use super::raters::{CaseSelection, add_rater, assign};
use super::{
    Error, ErrorCode, Project, QuestionnaireChoice, Result, init_project, open_project, stamp,
};

/// Where the demo project lives inside a data folder.
pub const DEMO_PROJECT_FILE: &str = "demo.verity";

/// The desktop app's identifier (`tauri.conf.json`), which names its data folder.
pub const APP_IDENTIFIER: &str = "dev.verity.desktop";

/// The folder the desktop app keeps its demo project in, so that `verity demo` opens the same
/// one: `$XDG_DATA_HOME/dev.verity.desktop/demo` (`~/.local/share/…` by default) on Linux,
/// `~/Library/Application Support/dev.verity.desktop/demo` on macOS, `%APPDATA%\…` on
/// Windows. `None` when the environment names no home folder.
pub fn default_demo_dir() -> Option<PathBuf> {
    Some(user_data_dir()?.join(APP_IDENTIFIER).join("demo"))
}

/// The user's data folder: `$XDG_DATA_HOME` (`~/.local/share` by default) on Linux,
/// `~/Library/Application Support` on macOS, `%APPDATA%` on Windows. `None` when the
/// environment names no home folder.
pub(crate) fn user_data_dir() -> Option<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v: &std::ffi::OsString| !v.is_empty())
            .map(PathBuf::from)
    };
    if cfg!(target_os = "macos") {
        var("HOME").map(|home| home.join("Library/Application Support"))
    } else if cfg!(windows) {
        var("APPDATA")
    } else {
        var("XDG_DATA_HOME").or_else(|| var("HOME").map(|home| home.join(".local/share")))
    }
}

/// Opens the embedded demo project in `data_dir`, creating it on first use: the demo git
/// repository, a project with the SWE-bench Verified questionnaire, the twelve demo tasks, the
/// demo raters and two raters per task.
pub fn open_demo_project(data_dir: &Path, now: OffsetDateTime) -> Result<Project> {
    let write = |source| Error::Write {
        path: data_dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(data_dir).map_err(write)?;
    let repository = crate::demo::write_demo_repository(data_dir).map_err(|e| {
        Error::refused(
            ErrorCode::Internal,
            format!("cannot build the demo repository: {e}"),
        )
    })?;
    let path = data_dir.join(DEMO_PROJECT_FILE);
    if path.exists() {
        return open_project(&path);
    }
    // Build the project under a temporary name and rename it into place, so an interrupted
    // first start never leaves a half-made demo behind.
    let partial = data_dir.join(format!("{DEMO_PROJECT_FILE}.partial"));
    for stale in [
        partial.clone(),
        partial.with_extension("partial-wal"),
        partial.with_extension("partial-shm"),
    ] {
        if stale.exists() {
            std::fs::remove_file(&stale).map_err(write)?;
        }
    }
    let tasks = data_dir.join("demo-tasks.jsonl");
    super::write_file(&tasks, super::Overwrite::Replace, |out| {
        out.write_all(crate::demo::DEMO_TASKS_JSONL.as_bytes())
            .map_err(write)
    })?;
    {
        let mut project = init_project(
            &partial,
            &QuestionnaireChoice::Builtin("swe-bench-verified".into()),
            now,
        )?;
        project.store.put_repository(
            crate::demo::DEMO_REPO,
            &repository.display().to_string(),
            &stamp(now),
        )?;
        import_paths(
            &mut project,
            &[tasks],
            now,
            &mut |_| {},
            &AtomicBool::new(false),
        )?;
        for name in crate::demo::DEMO_RATERS {
            add_rater(&mut project, name, now)?;
        }
        assign(&mut project, 2, 0, &CaseSelection::All, now)?;
    }
    std::fs::rename(&partial, &path).map_err(write)?;
    open_project(&path)
}
