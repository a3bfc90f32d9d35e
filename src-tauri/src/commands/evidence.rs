//! Evidence from the tasks' repositories: a task's report, searches and files at the base
//! commit, the registered clones, cloning, evidence for every task, and who sees sweeps.

use std::path::PathBuf;

use annotations::ops::{
    self, CloneProgress, CloneReport, CloneRequest, EvidenceAllReport, EvidenceProgress,
    EvidenceView, GrepQuery, GrepReport, NeededRepository, RepositoryStatus, ShownFile,
};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager};
use time::OffsetDateTime;

use crate::error::CommandError;
use crate::state::{AppState, long_job, with_project};

/// A case's evidence from its repository at the base commit (cached per revision and commit).
#[tauri::command(rename_all = "snake_case")]
pub async fn case_evidence(
    app: AppHandle,
    instance_id: String,
    refresh: bool,
) -> Result<EvidenceView, CommandError> {
    let engine = app.state::<AppState>().engine.clone();
    with_project(app, move |p| {
        ops::case_evidence(p, &engine, &instance_id, refresh, OffsetDateTime::now_utc())
    })
    .await
}

/// Every hit of a search at the case's base commit.
#[tauri::command(rename_all = "snake_case")]
pub async fn grep_case(
    app: AppHandle,
    instance_id: String,
    query: GrepQuery,
) -> Result<GrepReport, CommandError> {
    let engine = app.state::<AppState>().engine.clone();
    with_project(app, move |p| {
        ops::grep_case(p, &engine, &instance_id, &query)
    })
    .await
}

/// One file at the case's base commit.
#[tauri::command(rename_all = "snake_case")]
pub async fn show_file(
    app: AppHandle,
    instance_id: String,
    path: String,
) -> Result<ShownFile, CommandError> {
    let engine = app.state::<AppState>().engine.clone();
    with_project(app, move |p| {
        ops::show_file(p, &engine, &instance_id, &path)
    })
    .await
}

/// The registered clones and how many base commits each holds.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_repositories(app: AppHandle) -> Result<Vec<RepositoryStatus>, CommandError> {
    with_project(app, |p| ops::list_repositories(p)).await
}

/// Registers a local clone for a repository (read only).
#[tauri::command(rename_all = "snake_case")]
pub async fn add_repository(
    app: AppHandle,
    name: String,
    path: PathBuf,
) -> Result<RepositoryStatus, CommandError> {
    with_project(app, move |p| {
        ops::add_repository(p, &name, &path, OffsetDateTime::now_utc())
    })
    .await
}

/// Every repository the tasks name, with its registered clone if there is one.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_needed_repositories(
    app: AppHandle,
) -> Result<Vec<NeededRepository>, CommandError> {
    with_project(app, |p| ops::list_needed_repositories(p)).await
}

/// Clones a repository into the cache folder the command line uses too (or continues an
/// interrupted clone, or reuses a finished one), registers it and fetches the base commits it
/// lacks, reporting progress on `on_progress`; `cancel_job` stops it, and cloning again resumes.
/// Refused while another long job is running.
#[tauri::command(rename_all = "snake_case")]
pub async fn clone_repository(
    app: AppHandle,
    req: CloneRequest,
    on_progress: Channel<CloneProgress>,
) -> Result<CloneReport, CommandError> {
    let cache = ops::default_repository_cache()
        .unwrap_or_else(|| app.state::<AppState>().data_dir.join("repositories"));
    long_job(app, "A clone", on_progress, move |p, progress, cancel| {
        let now = OffsetDateTime::now_utc();
        ops::clone_repository(p, &req, &cache, now, progress, cancel)
    })
    .await
}

/// Computes and caches evidence for every case, reporting progress on `on_progress`;
/// `cancel_job` stops it, keeping what was computed. Refused while an import or another
/// evidence run is running.
#[tauri::command(rename_all = "snake_case")]
pub async fn evidence_all(
    app: AppHandle,
    on_progress: Channel<EvidenceProgress>,
) -> Result<EvidenceAllReport, CommandError> {
    let engine = app.state::<AppState>().engine.clone();
    long_job(
        app,
        "An evidence run",
        on_progress,
        move |p, progress, cancel| {
            ops::evidence_all(
                p,
                &engine,
                false,
                OffsetDateTime::now_utc(),
                progress,
                cancel,
            )
        },
    )
    .await
}

/// Whether raters see the tasks' sweeps (`verity sweep --for-raters`); with `on`, sets it first.
#[tauri::command(rename_all = "snake_case")]
pub async fn sweeps_for_raters(app: AppHandle, on: Option<bool>) -> Result<bool, CommandError> {
    with_project(app, move |p| {
        if let Some(on) = on {
            ops::set_sweep_for_raters(p, on)?;
        }
        ops::sweep_for_raters(p)
    })
    .await
}
