//! What the app holds between commands: the open project, the data folder, the cancel flag of
//! the running import.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use annotations::ops::Project;
use tauri::{AppHandle, Manager};

use crate::error::CommandError;

/// The app's state, managed by Tauri.
pub struct AppState {
    /// The open project; `None` until the user opens one. A `Mutex` because the store's
    /// connection is used from one thread at a time.
    pub project: Mutex<Option<Project>>,
    /// The app's data folder (the demo project and the log live there).
    pub data_dir: PathBuf,
    /// Set by `cancel_import`, read by the running import.
    pub cancel: Arc<AtomicBool>,
}

impl AppState {
    /// State for a data folder, with no project open.
    pub fn new(data_dir: PathBuf) -> AppState {
        AppState {
            project: Mutex::new(None),
            data_dir,
            cancel: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// Runs `work` on the open project on a blocking thread, so SQLite and file work never runs on
/// the UI thread, and maps its error to `{code, message}`.
pub async fn with_project<T, F>(app: AppHandle, work: F) -> Result<T, CommandError>
where
    T: Send + 'static,
    F: FnOnce(&mut Project) -> annotations::ops::Result<T> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || {
        let state = app.state::<AppState>();
        let mut guard = state.project.lock().map_err(|_| {
            CommandError::new(
                "internal",
                "An earlier command failed while holding the project; restart Verity.",
            )
        })?;
        let project = guard.as_mut().ok_or_else(|| {
            CommandError::new(
                "no_project",
                "No project is open: open the demo project or a project file first.",
            )
        })?;
        work(project).map_err(CommandError::from)
    })
    .await
    .map_err(|err| {
        CommandError::new(
            "internal",
            format!("A background task of Verity failed: {err}."),
        )
    })?
}

/// Runs `work` (which opens a project) on a blocking thread and makes its result the open
/// project.
pub async fn replace_project<T, F>(app: AppHandle, work: F) -> Result<T, CommandError>
where
    T: Send + 'static,
    F: FnOnce(&AppState) -> annotations::ops::Result<(Project, T)> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || {
        let state = app.state::<AppState>();
        let (project, info) = work(state.inner()).map_err(CommandError::from)?;
        let mut guard = state.project.lock().map_err(|_| {
            CommandError::new(
                "internal",
                "An earlier command failed while holding the project; restart Verity.",
            )
        })?;
        *guard = Some(project);
        Ok(info)
    })
    .await
    .map_err(|err| {
        CommandError::new(
            "internal",
            format!("A background task of Verity failed: {err}."),
        )
    })?
}
