//! Long jobs that bring data in or out: importing, fetching from the Hub, exporting,
//! publishing to the Hub, and stopping the running job.

use std::path::PathBuf;

use annotations::ops::{
    self, ExportFormat, ExportFormatInfo, ExportOptions, FetchProgress, FetchReport, FetchRequest,
    HubSettings, ImportProgress, ImportReport, PublicationPreview, PublishProgress, PublishReport,
    PublishRequest,
};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager};
use time::OffsetDateTime;

use crate::error::CommandError;
use crate::state::{AppState, background_job, cancel_running_job, long_job, with_project};

/// Imports task files, reporting progress on `on_progress`; `cancel_job` stops it and
/// nothing is stored. Refused while an evidence run or another import is running.
#[tauri::command(rename_all = "snake_case")]
pub async fn import_paths(
    app: AppHandle,
    paths: Vec<PathBuf>,
    on_progress: Channel<ImportProgress>,
) -> Result<ImportReport, CommandError> {
    long_job(app, "An import", on_progress, move |p, progress, cancel| {
        ops::import_paths(p, &paths, OffsetDateTime::now_utc(), progress, cancel)
    })
    .await
}

/// Fetches a dataset's split from the Hugging Face Hub (or its cache) and imports it, reporting
/// the download and then the import on `on_progress`; `cancel_job` stops it (a partly downloaded
/// file resumes on the next fetch; nothing is imported). The Hub's address, token, cache and
/// proxy come from the environment, as for `verity fetch`. One long job at a time.
#[tauri::command(rename_all = "snake_case")]
pub async fn fetch_dataset(
    app: AppHandle,
    request: FetchRequest,
    on_progress: Channel<FetchProgress>,
) -> Result<FetchReport, CommandError> {
    long_job(app, "A fetch", on_progress, move |p, progress, cancel| {
        let settings = HubSettings::from_env();
        let now = OffsetDateTime::now_utc();
        ops::fetch_dataset(p, &request, &settings, now, progress, cancel)
    })
    .await
}

/// Asks the running import, fetch, evidence run, clone or model run to stop; what it did is
/// rolled back (an import, a fetch's import) or kept (evidence already computed stays cached,
/// and a new run resumes after it; a fetch's partly downloaded file and a clone's finished
/// stages are kept, and fetching or cloning again resumes; a model run waits for its requests
/// in flight and stores their replies, and a second call abandons them).
#[tauri::command(rename_all = "snake_case")]
pub fn cancel_job(app: AppHandle) {
    cancel_running_job(&app.state::<AppState>());
}

/// Every export format with its title, hint, save dialog's file name and type, and whether the
/// ensemble rule changes it: the list `verity export --format` offers too.
#[tauri::command(rename_all = "snake_case")]
pub fn export_formats() -> Vec<ExportFormatInfo> {
    ops::export_formats()
}

/// Writes the project in one format to `out_path`; returns the rows written. The file appears
/// whole or not at all; a file already there is replaced, since the save dialog asked.
#[tauri::command(rename_all = "snake_case")]
pub async fn export_project(
    app: AppHandle,
    format: ExportFormat,
    options: ExportOptions,
    out_path: PathBuf,
) -> Result<usize, CommandError> {
    with_project(app, move |p| {
        ops::export_to_file(p, format, &options, &out_path, ops::Overwrite::Replace)
            .map(|summary| summary.rows)
    })
    .await
}

/// Exports the project as a dataset folder for the Hub repository `repo`, in the app's data
/// folder (`datasets/OWNER--NAME`, replaced each time), and returns the card as the Hub will
/// show it, for the coordinator to read before publishing.
#[tauri::command(rename_all = "snake_case")]
pub async fn prepare_publication(
    app: AppHandle,
    options: ExportOptions,
    repo: String,
) -> Result<PublicationPreview, CommandError> {
    let folders = app.state::<AppState>().data_dir.join("datasets");
    with_project(app, move |p| {
        ops::prepare_publication(p, &options, &repo, &folders, OffsetDateTime::now_utc())
    })
    .await
}

/// Publishes a prepared dataset folder to the Hub as one commit, reporting progress on
/// `on_progress`; `cancel_job` stops it before the commit (publishing again sends only what
/// is missing). The Hub's address, token and proxy come from the environment, as for `verity
/// publish`; the token is never sent back.
#[tauri::command(rename_all = "snake_case")]
pub async fn publish_dataset(
    app: AppHandle,
    request: PublishRequest,
    on_progress: Channel<PublishProgress>,
) -> Result<PublishReport, CommandError> {
    background_job(
        app,
        "A publication",
        on_progress,
        move |progress, cancel| {
            ops::publish_dataset(&request, &HubSettings::from_env(), progress, cancel)
        },
    )
    .await
}
