//! What the app holds between commands: the open project (which knows who is using it, and
//! whose use cases refuse what that actor may not do) and which opening of it is current, the
//! evidence engine, the data folder, the long job running and its cancel flag.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use annotations::ops::{self, Actor, Engine, ErrorCode, Halt, Project};
use tauri::ipc::{Channel, IpcResponse};
use tauri::{AppHandle, Manager};

use crate::error::CommandError;
use crate::feed::{self, Generation};
use crate::recent::RecentProjects;

/// The file in the data folder naming the last project opened.
const LAST_PROJECT: &str = "last-project";

/// The app's state, managed by Tauri.
pub struct AppState {
    /// The open project; `None` until the user opens one. A `Mutex` because the store's
    /// connection is used from one thread at a time.
    pub project: Mutex<Option<Project>>,
    /// Which opening of a project is current, so the watcher of a replaced one stops.
    pub opening: Generation,
    /// The app's data folder (the demo project and the log live there).
    pub data_dir: PathBuf,
    /// Set by `cancel_job`, read by the running import or evidence run.
    pub cancel: Arc<AtomicBool>,
    /// A model run's stop, in two steps: `cancel_job` stops it (the requests in flight are
    /// waited for), and a second `cancel_job` abandons those.
    pub halt: Arc<Halt>,
    /// The long job running, if any (one at a time, so `cancel_job` stops the job the user
    /// sees): what it is, for the message that refuses a second one.
    job: Arc<Mutex<Option<&'static str>>>,
    /// The evidence engine, kept alive so its blob cache serves every task of the session.
    pub engine: Arc<Engine>,
    /// The projects opened lately, in the data folder.
    pub recent: RecentProjects,
    /// The project named on the command line, until the start opens it.
    requested: Mutex<Option<PathBuf>>,
}

impl AppState {
    /// State for a data folder, with no project open; `requested` is the project named on the
    /// command line, which the start opens instead of the last one.
    pub fn new(data_dir: PathBuf, requested: Option<PathBuf>) -> AppState {
        AppState {
            recent: RecentProjects::new(&data_dir),
            requested: Mutex::new(requested),
            project: Mutex::new(None),
            opening: Generation::default(),
            data_dir,
            cancel: Arc::new(AtomicBool::new(false)),
            halt: Arc::new(Halt::new()),
            job: Arc::new(Mutex::new(None)),
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
        self.halt.clear();
        Ok(JobGuard {
            job: self.job.clone(),
        })
    }

    /// Remembers the project just opened, so the next start reopens it, and puts it first in
    /// the recent projects.
    pub fn remember_project(&self, path: &Path) {
        // Forgetting is harmless (the next start opens the demo project, the list lacks one
        // project); a log line says why. Written atomically, so a crash never leaves half a
        // path to reopen.
        match path.to_str() {
            Some(location) => {
                if let Err(err) = self.recent.add(location) {
                    tracing::warn!(error = %err, "could not add the open project to the recent ones");
                }
            }
            None => {
                tracing::warn!(path = %path.display(), "a path that is not UTF-8 is not listed among the recent projects")
            }
        }
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

    /// The project to open at start: the one named on the command line (once: a second start
    /// of the window reopens the project open then), else the one open when Verity last closed.
    pub fn startup_project(&self) -> Option<PathBuf> {
        let requested = self.requested.lock().ok().and_then(|mut r| r.take());
        requested.or_else(|| self.last_project())
    }

    /// The project open when Verity last closed, if any.
    pub fn last_project(&self) -> Option<PathBuf> {
        let bytes = std::fs::read(self.data_dir.join(LAST_PROJECT)).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let path = PathBuf::from(text.trim_end_matches('\n'));
        (!path.as_os_str().is_empty()).then_some(path)
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

/// The error of a blocking thread that ended without finishing its work.
fn background_failed(err: tauri::Error) -> CommandError {
    CommandError::new(
        ErrorCode::Internal,
        format!("A background task of Verity failed: {err}."),
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
    .map_err(background_failed)?
}

/// Asks the running job to stop: the cancel flag, and a model run's halt, whose first step waits
/// for the requests in flight and whose second abandons them.
pub fn cancel_running_job(state: &AppState) {
    state.cancel.store(true, Ordering::Relaxed);
    if state.halt.is_stopping() {
        state.halt.abandon();
    } else {
        state.halt.stop();
    }
}

/// Runs a long job (an import, a fetch, a clone, an evidence run) on the open project as
/// [`with_project`] does: refused while another long job runs (`what` names it in a sentence,
/// "An import"), with the cancel flag `cancel_job` sets cleared first. `work` gets the project,
/// a callback that sends each progress step on `on_progress`, and the cancel flag.
pub async fn long_job<T, P, F>(
    app: AppHandle,
    what: &'static str,
    on_progress: Channel<P>,
    work: F,
) -> Result<T, CommandError>
where
    T: Send + 'static,
    P: IpcResponse + Clone + Send + 'static,
    F: FnOnce(&mut Project, &mut dyn FnMut(&P), &AtomicBool) -> ops::Result<T> + Send + 'static,
{
    let state = app.state::<AppState>();
    let job = state.start_job(what)?;
    let cancel = state.cancel.clone();
    with_project(app, move |p| {
        let _job = job;
        // A closed window drops the channel; the job goes on regardless.
        let mut progress = |step: &P| {
            let _ = on_progress.send(step.clone());
        };
        work(p, &mut progress, &cancel)
    })
    .await
}

/// Runs a long job that needs no project (a publication to the Hub) on a blocking thread, as
/// [`long_job`] does: refused while another long job runs, its cancel flag cleared first, each
/// progress step sent on `on_progress`. The project stays free for other commands meanwhile.
pub async fn background_job<T, P, F>(
    app: AppHandle,
    what: &'static str,
    on_progress: Channel<P>,
    work: F,
) -> Result<T, CommandError>
where
    T: Send + 'static,
    P: IpcResponse + Clone + Send + 'static,
    F: FnOnce(&mut dyn FnMut(&P), &AtomicBool) -> ops::Result<T> + Send + 'static,
{
    let state = app.state::<AppState>();
    let job = state.start_job(what)?;
    let cancel = state.cancel.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let _job = job;
        let mut progress = |step: &P| {
            let _ = on_progress.send(step.clone());
        };
        work(&mut progress, &cancel).map_err(CommandError::from)
    })
    .await
    .map_err(background_failed)?
}

/// Runs `work` (which opens a project) on a blocking thread and makes its result the open
/// project, acting for its first actor (see [`first_actor`]); when the project has an answer
/// feed (a shared server), a watcher tells the window of other sessions' answers.
pub async fn replace_project<T, F>(app: AppHandle, work: F) -> Result<T, CommandError>
where
    T: Send + 'static,
    F: FnOnce(&AppState) -> annotations::ops::Result<(Project, T)> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || {
        let state = app.state::<AppState>();
        let (mut project, info) = work(state.inner()).map_err(CommandError::from)?;
        first_actor(&mut project).map_err(CommandError::from)?;
        // Without a feed the views still refresh when shown and on Refresh; a log line says why.
        let feed = project.answer_feed().unwrap_or_else(|err| {
            tracing::warn!(error = %err, "could not follow other sessions' answers");
            None
        });
        let mut guard = state.project.lock().map_err(|_| poisoned())?;
        *guard = Some(project);
        let opening = state.opening.next();
        drop(guard);
        if let Some(feed) = feed {
            feed::watch(app.clone(), feed, state.opening.clone(), opening);
        }
        Ok(info)
    })
    .await
    .map_err(background_failed)?
}

/// Makes a newly opened project act for its first actor: the rater it is bound to (a rater's
/// package), who is signed in at once; otherwise nobody until "who is using Verity?" is
/// answered.
pub fn first_actor(project: &mut Project) -> ops::Result<()> {
    match project.bound_rater().map(str::to_owned) {
        Some(name) => project.act_as(Actor::Rater { name }),
        None => {
            project.sign_out();
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::OffsetDateTime;

    fn new_state() -> (tempfile::TempDir, AppState) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let state = AppState::new(dir.path().to_path_buf(), None);
        (dir, state)
    }

    #[test]
    fn one_long_job_runs_at_a_time_and_starts_with_a_cleared_cancel_flag() {
        let (_dir, state) = new_state();
        state.cancel.store(true, Ordering::Relaxed);
        state.halt.abandon();
        let import = state.start_job("An import").expect("no job is running");
        assert!(!state.cancel.load(Ordering::Relaxed));
        assert!(!state.halt.is_stopping());

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
    fn a_second_cancel_abandons_a_model_runs_requests_in_flight() {
        let (_dir, state) = new_state();
        let _run = state.start_job("A model run").expect("no job is running");
        cancel_running_job(&state);
        assert!(state.halt.is_stopping() && !state.halt.is_abandoned());
        cancel_running_job(&state);
        assert!(state.halt.is_abandoned());
    }

    #[test]
    fn the_last_project_is_remembered() {
        let (dir, state) = new_state();
        assert_eq!(state.last_project(), None);
        let project = dir.path().join("panel one.verity");
        state.remember_project(&project);
        assert_eq!(state.last_project(), Some(project.clone()));
        let listed: Vec<String> = state.recent.list().into_iter().map(|p| p.path).collect();
        assert_eq!(
            listed,
            [project.display().to_string()],
            "an opened project is a recent one"
        );
    }

    #[test]
    fn the_project_named_on_the_command_line_opens_at_the_first_start_only() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let last = dir.path().join("last.verity");
        let named = PathBuf::from("postgres://ana@db.example:5432/panel");
        let state = AppState::new(dir.path().to_path_buf(), Some(named.clone()));
        state.remember_project(&last);
        assert_eq!(state.startup_project(), Some(named));
        assert_eq!(
            state.startup_project(),
            Some(last),
            "a reloaded window reopens the last project"
        );
    }

    /// A project with the rater ana, and ana's package beside it.
    fn project_and_package(dir: &Path) -> (PathBuf, PathBuf) {
        let now = OffsetDateTime::UNIX_EPOCH;
        let path = dir.join("panel.verity");
        let choice = ops::QuestionnaireChoice::Builtin("swe-bench-verified".into());
        let mut project = ops::init_project(&path, &choice, now).expect("a new project");
        ops::add_rater(&mut project, "ana", now).expect("a new rater");
        let package = dir.join("ana.verity");
        ops::package_for_rater(&mut project, "ana", &package, ops::Overwrite::Refuse, now)
            .expect("ana's package");
        (path, package)
    }

    #[test]
    fn a_package_acts_for_its_rater_at_once_and_a_project_for_nobody_yet() {
        let (dir, _state) = new_state();
        let (path, package) = project_and_package(dir.path());

        let mut project = ops::open_project(&path).expect("the project opens");
        first_actor(&mut project).expect("nobody to sign in");
        assert_eq!(project.actor(), None);

        let mut project = ops::open_project(&package).expect("the package opens");
        first_actor(&mut project).expect("ana is signed in");
        let ana = Actor::Rater { name: "ana".into() };
        assert_eq!(project.actor(), Some(&ana));
        let refused = project
            .act_as(Actor::Coordinator)
            .expect_err("a package acts for its rater only");
        assert_eq!(refused.code(), ErrorCode::IdentityFixed);
    }
}
