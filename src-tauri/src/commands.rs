//! Tauri commands. Each has the name of the `ops` function it wraps: it unpacks state, calls
//! that one function on a blocking thread and maps the error to `{code, message}`.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use annotations::ops::{
    self, AnswerRequest, AnswerView, CaseListItem, CaseView, ImportProgress, ImportReport,
    QueueItem, RaterSummary,
};
use annotations::questionnaire::Questionnaire;
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager};
use tauri_plugin_opener::OpenerExt;
use time::OffsetDateTime;

use crate::error::CommandError;
use crate::state::{AppState, replace_project, with_project};

/// The open project, for the window's header.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectInfo {
    /// The project file.
    pub path: String,
    /// The questionnaire's title.
    pub questionnaire: String,
}

fn info(project: &ops::Project) -> ProjectInfo {
    ProjectInfo {
        path: project.path().display().to_string(),
        questionnaire: project.questionnaire().title.clone(),
    }
}

/// Opens (creating on first use) the demo project in the app's data folder.
#[tauri::command]
pub async fn open_demo_project(app: AppHandle) -> Result<ProjectInfo, CommandError> {
    replace_project(app, |state: &AppState| {
        let project =
            ops::open_demo_project(&state.data_dir.join("demo"), OffsetDateTime::now_utc())?;
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// Opens a project file.
#[tauri::command]
pub async fn open_project(app: AppHandle, path: PathBuf) -> Result<ProjectInfo, CommandError> {
    replace_project(app, move |_| {
        let project = ops::open_project(&path)?;
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// The project's raters.
#[tauri::command]
pub async fn list_raters(app: AppHandle) -> Result<Vec<RaterSummary>, CommandError> {
    with_project(app, |p| ops::list_raters(p)).await
}

/// Adds a rater.
#[tauri::command]
pub async fn add_rater(app: AppHandle, name: String) -> Result<RaterSummary, CommandError> {
    with_project(app, move |p| {
        ops::add_rater(p, &name, OffsetDateTime::now_utc())
    })
    .await
}

/// A rater's queue.
#[tauri::command]
pub async fn rater_queue(app: AppHandle, rater: String) -> Result<Vec<QueueItem>, CommandError> {
    with_project(app, move |p| ops::rater_queue(p, &rater)).await
}

/// Every case with the status of its assignments (no answers), for the coordinator.
#[tauri::command]
pub async fn list_cases(app: AppHandle) -> Result<Vec<CaseListItem>, CommandError> {
    with_project(app, |p| ops::list_cases(p)).await
}

/// A case prepared for reading: sanitized issue HTML, parsed patches, linked tests.
#[tauri::command]
pub async fn case_view(app: AppHandle, instance_id: String) -> Result<CaseView, CommandError> {
    with_project(app, move |p| ops::case_view(p, &instance_id)).await
}

/// The project's questionnaire.
#[tauri::command]
pub async fn project_questionnaire(app: AppHandle) -> Result<Questionnaire, CommandError> {
    with_project(app, |p| Ok(p.questionnaire().clone())).await
}

/// The rater's own current answer on a case.
#[tauri::command]
pub async fn current_answer(
    app: AppHandle,
    rater: String,
    case: String,
) -> Result<AnswerView, CommandError> {
    with_project(app, move |p| ops::current_answer(p, &rater, &case)).await
}

/// Saves a draft.
#[tauri::command]
pub async fn save_draft(app: AppHandle, req: AnswerRequest) -> Result<AnswerView, CommandError> {
    with_project(app, move |p| {
        ops::save_draft(p, &req, OffsetDateTime::now_utc())
    })
    .await
}

/// Submits an answer.
#[tauri::command]
pub async fn submit_answer(app: AppHandle, req: AnswerRequest) -> Result<AnswerView, CommandError> {
    with_project(app, move |p| {
        ops::submit_answer(p, &req, OffsetDateTime::now_utc())
    })
    .await
}

/// Revises a submitted answer, with its reason.
#[tauri::command]
pub async fn revise_answer(app: AppHandle, req: AnswerRequest) -> Result<AnswerView, CommandError> {
    with_project(app, move |p| {
        ops::revise_answer(p, &req, OffsetDateTime::now_utc())
    })
    .await
}

/// Adds active time on a case.
#[tauri::command]
pub async fn record_time(
    app: AppHandle,
    rater: String,
    case: String,
    active_ms: i64,
) -> Result<(), CommandError> {
    with_project(app, move |p| {
        ops::record_time(p, &rater, &case, active_ms, OffsetDateTime::now_utc())
    })
    .await
}

/// Imports task files, reporting progress on `on_progress`; `cancel_import` stops it and
/// nothing is stored.
#[tauri::command]
pub async fn import_paths(
    app: AppHandle,
    paths: Vec<PathBuf>,
    on_progress: Channel<ImportProgress>,
) -> Result<ImportReport, CommandError> {
    let cancel = app.state::<AppState>().cancel.clone();
    cancel.store(false, Ordering::Relaxed);
    with_project(app, move |p| {
        ops::import_paths(
            p,
            &paths,
            OffsetDateTime::now_utc(),
            &mut |progress| {
                // A closed window drops the channel; the import goes on regardless.
                let _ = on_progress.send(progress.clone());
            },
            &cancel,
        )
    })
    .await
}

/// Asks the running import to stop.
#[tauri::command]
pub fn cancel_import(app: AppHandle) {
    app.state::<AppState>()
        .cancel
        .store(true, Ordering::Relaxed);
}

/// Writes every submitted answer as JSON lines to `out_path`; returns the number of lines.
#[tauri::command]
pub async fn export_jsonl(app: AppHandle, out_path: PathBuf) -> Result<usize, CommandError> {
    with_project(app, move |p| {
        let file = std::fs::File::create(&out_path).map_err(|source| ops::Error::Write {
            path: out_path.clone(),
            source,
        })?;
        let mut out = std::io::BufWriter::new(file);
        ops::export_jsonl(p, &mut out, &out_path)
    })
    .await
}

/// Opens a link from a task in the system browser, only for `http`, `https` and `mailto`:
/// the page never navigates itself, and nothing else is handed to the desktop.
#[tauri::command]
pub fn open_external(app: AppHandle, url: String) -> Result<(), CommandError> {
    let allowed = ["https://", "http://", "mailto:"].iter().any(|scheme| {
        url.get(..scheme.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
    });
    if !allowed {
        return Err(CommandError::new(
            "refused_url",
            format!("Verity opens only http, https and mailto links; {url:?} was not opened."),
        ));
    }
    app.opener().open_url(&url, None::<&str>).map_err(|err| {
        CommandError::new(
            "open_failed",
            format!("The system browser could not open {url}: {err}."),
        )
    })
}
