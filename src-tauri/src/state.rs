//! What the app holds between commands: the open project, who is using it, the evidence
//! engine, the data folder, the long job running and its cancel flag.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use annotations::ops::{self, Engine, ErrorCode, Project};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};

use crate::error::CommandError;

/// The file in the data folder naming the last project opened.
const LAST_PROJECT: &str = "last-project";

/// The app's state, managed by Tauri.
pub struct AppState {
    /// The open project; `None` until the user opens one. A `Mutex` because the store's
    /// connection is used from one thread at a time.
    pub project: Mutex<Option<Project>>,
    /// The app's data folder (the demo project and the log live there).
    pub data_dir: PathBuf,
    /// Set by `cancel_job`, read by the running import or evidence run.
    pub cancel: Arc<AtomicBool>,
    /// The long job running, if any (one at a time, so `cancel_job` stops the job the user
    /// sees): what it is, for the message that refuses a second one.
    job: Arc<Mutex<Option<&'static str>>>,
    /// Who is using the project: a rater (blind to other raters) or the coordinator.
    pub role: Mutex<Option<Role>>,
    /// The evidence engine, kept alive so its blob cache serves every task of the session.
    pub engine: Arc<Engine>,
}

/// Who is using the open project. A rater's session can read only that rater's own answers;
/// the commands that show raters' answers (agreement, ensemble, disagreements, exports) and
/// the ones that change the panel (import, raters, adjudication) need the coordinator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Role {
    /// A rater of the project, by name.
    Rater {
        /// The rater's name.
        name: String,
    },
    /// The panel's coordinator.
    Coordinator,
}

impl AppState {
    /// State for a data folder, with no project open.
    pub fn new(data_dir: PathBuf) -> AppState {
        AppState {
            project: Mutex::new(None),
            data_dir,
            cancel: Arc::new(AtomicBool::new(false)),
            job: Arc::new(Mutex::new(None)),
            role: Mutex::new(None),
            engine: Arc::new(Engine::default()),
        }
    }

    /// Starts a long job, `what` naming it in a sentence ("An import"), with a cleared cancel
    /// flag; refuses while another runs. The job ends when the returned guard drops.
    pub fn start_job(&self, what: &'static str) -> Result<JobGuard, CommandError> {
        let mut running = self.job.lock().map_err(|_| poisoned())?;
        if let Some(other) = *running {
            return Err(CommandError::new(
                ErrorCode::Busy,
                format!("{other} is running; wait for it to finish or cancel it first."),
            ));
        }
        *running = Some(what);
        self.cancel.store(false, Ordering::Relaxed);
        Ok(JobGuard {
            job: self.job.clone(),
        })
    }

    /// Remembers the project just opened, so the next start reopens it.
    pub fn remember_project(&self, path: &Path) {
        // Forgetting is harmless (the next start opens the demo project); a log line says why.
        // Written atomically, so a crash never leaves half a path to reopen.
        let file = self.data_dir.join(LAST_PROJECT);
        let written = ops::write_file(&file, ops::Overwrite::Replace, |out| {
            out.write_all(path.as_os_str().as_encoded_bytes())
                .map_err(|source| ops::Error::Write {
                    path: file.clone(),
                    source,
                })
        });
        if let Err(err) = written {
            tracing::warn!(error = %err, "could not remember the open project");
        }
    }

    /// The project open when Verity last closed, if any.
    pub fn last_project(&self) -> Option<PathBuf> {
        let bytes = std::fs::read(self.data_dir.join(LAST_PROJECT)).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let path = PathBuf::from(text.trim_end_matches('\n'));
        (!path.as_os_str().is_empty()).then_some(path)
    }

    /// The current role, or an error when nobody has signed in.
    fn role(&self) -> Result<Role, CommandError> {
        self.role
            .lock()
            .map_err(|_| poisoned())?
            .clone()
            .ok_or_else(|| {
                CommandError::new(
                    ErrorCode::NoRole,
                    "Choose who you are (a rater or the coordinator) first.",
                )
            })
    }

    /// Refuses unless the coordinator is signed in.
    pub fn require_coordinator(&self) -> Result<(), CommandError> {
        match self.role()? {
            Role::Coordinator => Ok(()),
            Role::Rater { name } => Err(CommandError::new(
                ErrorCode::CoordinatorOnly,
                format!(
                    "Only the coordinator can do this; {name} is signed in as a rater, who sees only their own answers."
                ),
            )),
        }
    }

    /// Refuses unless `rater` is the rater signed in.
    pub fn require_rater(&self, rater: &str) -> Result<(), CommandError> {
        match self.role()? {
            Role::Rater { name } if name == rater => Ok(()),
            Role::Rater { name } => Err(CommandError::new(
                ErrorCode::NotYourAnswers,
                format!("{name} is signed in and cannot read or change the answers of {rater}."),
            )),
            Role::Coordinator => Err(CommandError::new(
                ErrorCode::RaterOnly,
                format!("The coordinator cannot answer for {rater}; sign in as that rater."),
            )),
        }
    }
}

/// Marks the app's long job as running until it drops.
pub struct JobGuard {
    job: Arc<Mutex<Option<&'static str>>>,
}

impl Drop for JobGuard {
    fn drop(&mut self) {
        // The lock is held only to read or set the slot, so it is not poisoned in practice;
        // if it were, the next start would report `internal` rather than run.
        if let Ok(mut running) = self.job.lock() {
            *running = None;
        }
    }
}

fn poisoned() -> CommandError {
    CommandError::new(
        ErrorCode::Internal,
        "An earlier command failed while holding the project; restart Verity.",
    )
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
        let mut guard = state.project.lock().map_err(|_| poisoned())?;
        let project = guard.as_mut().ok_or_else(|| {
            CommandError::new(
                ErrorCode::NoProject,
                "No project is open: open the demo project or a project file first.",
            )
        })?;
        work(project).map_err(CommandError::from)
    })
    .await
    .map_err(|err| {
        CommandError::new(
            ErrorCode::Internal,
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
        let mut guard = state.project.lock().map_err(|_| poisoned())?;
        *guard = Some(project);
        *state.role.lock().map_err(|_| poisoned())? = None;
        Ok(info)
    })
    .await
    .map_err(|err| {
        CommandError::new(
            ErrorCode::Internal,
            format!("A background task of Verity failed: {err}."),
        )
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state_as(role: Option<Role>) -> (tempfile::TempDir, AppState) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let state = AppState::new(dir.path().to_path_buf());
        *state.role.lock().expect("unpoisoned") = role;
        (dir, state)
    }

    fn rater(name: &str) -> Option<Role> {
        Some(Role::Rater { name: name.into() })
    }

    #[test]
    fn one_long_job_runs_at_a_time_and_starts_with_a_cleared_cancel_flag() {
        let (_dir, state) = state_as(Some(Role::Coordinator));
        state.cancel.store(true, Ordering::Relaxed);
        let import = state.start_job("An import").expect("no job is running");
        assert!(!state.cancel.load(Ordering::Relaxed));

        // A cancel meant for the import is not lost to a second job's start.
        state.cancel.store(true, Ordering::Relaxed);
        let refused = state.start_job("An evidence run").map(|_| ());
        let err = refused.expect_err("a second job is refused while the import runs");
        assert_eq!(err.code, ErrorCode::Busy);
        assert_eq!(
            err.message,
            "An import is running; wait for it to finish or cancel it first."
        );
        assert!(state.cancel.load(Ordering::Relaxed));

        drop(import);
        assert!(state.start_job("An evidence run").is_ok());
    }

    #[test]
    fn a_rater_session_reaches_only_its_own_answers() {
        let (_dir, state) = state_as(rater("ana"));
        assert!(state.require_rater("ana").is_ok());
        assert_eq!(
            state.require_rater("bo").map_err(|e| e.code),
            Err(ErrorCode::NotYourAnswers)
        );
        assert_eq!(
            state.require_coordinator().map_err(|e| e.code),
            Err(ErrorCode::CoordinatorOnly)
        );
    }

    #[test]
    fn the_coordinator_does_not_answer_for_raters() {
        let (_dir, state) = state_as(Some(Role::Coordinator));
        assert!(state.require_coordinator().is_ok());
        assert_eq!(
            state.require_rater("ana").map_err(|e| e.code),
            Err(ErrorCode::RaterOnly)
        );
    }

    #[test]
    fn nobody_signed_in_reaches_nothing() {
        let (_dir, state) = state_as(None);
        assert_eq!(
            state.require_coordinator().map_err(|e| e.code),
            Err(ErrorCode::NoRole)
        );
        assert_eq!(
            state.require_rater("ana").map_err(|e| e.code),
            Err(ErrorCode::NoRole)
        );
    }

    #[test]
    fn the_last_project_is_remembered() {
        let (dir, state) = state_as(None);
        assert_eq!(state.last_project(), None);
        let project = dir.path().join("panel one.verity");
        state.remember_project(&project);
        assert_eq!(state.last_project(), Some(project));
    }

    #[test]
    fn roles_cross_ipc_tagged_by_kind() {
        let role: Role =
            serde_json::from_str(r#"{"kind":"rater","name":"ana"}"#).expect("a rater role");
        assert_eq!(role, Role::Rater { name: "ana".into() });
        let role: Role = serde_json::from_str(r#"{"kind":"coordinator"}"#).expect("a role");
        assert_eq!(role, Role::Coordinator);
    }
}
