//! Model raters: listed, added, removed, run over tasks with progress, compared with the
//! panel, and included in the figures or not.

use std::time::Duration;

use annotations::ops::{
    self, BootstrapOptions, CaseSelection, CompareRequest, ModelAddRequest, ModelComparison,
    ModelSummary, RateProgress, RateReport, RateRequest,
};
use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager};
use time::OffsetDateTime;

use crate::error::CommandError;
use crate::state::{AppState, long_job, with_project};

/// The model raters, with their answers, failed tasks and what their requests cost so far.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_models(app: AppHandle) -> Result<Vec<ModelSummary>, CommandError> {
    with_project(app, |p| ops::list_models(p)).await
}

/// Adds a model rater. The request names the environment variable holding the API key, never
/// the key.
#[tauri::command(rename_all = "snake_case")]
pub async fn add_model(app: AppHandle, req: ModelAddRequest) -> Result<ModelSummary, CommandError> {
    with_project(app, move |p| {
        ops::add_model(p, &req, OffsetDateTime::now_utc())
    })
    .await
}

/// Removes a model rater that never answered.
#[tauri::command(rename_all = "snake_case")]
pub async fn remove_model(app: AppHandle, name: String) -> Result<(), CommandError> {
    with_project(app, move |p| ops::remove_model(p, &name)).await
}

/// What the Models section asks a run to do.
#[derive(Debug, Deserialize)]
pub struct ModelRunRequest {
    /// The model rater.
    pub name: String,
    /// The tasks by id; every task when `None`.
    pub cases: Option<Vec<String>>,
    /// Requests at once (at least 1).
    pub concurrency: usize,
    /// Stop before a request that could take the run's cost past this, in USD.
    pub budget_usd: Option<f64>,
}

/// What a run did: `verity models rate --json`'s keys, and why it stopped early, if it did.
#[derive(Debug, Serialize)]
pub struct ModelRun {
    /// The counts, tokens and cost.
    #[serde(flatten)]
    pub report: RateReport,
    /// Why the run stopped before its end (the budget, Stop), with the tasks left.
    pub stopped: Option<String>,
}

/// How long one request may take before it is retried, as `verity models rate` waits.
const MODEL_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs a model rater over tasks, reporting tasks, tokens and cost on `on_progress` after each
/// request; `cancel_job` stops it cleanly (no new request; the replies of those in flight are
/// waited for and stored, answers stored stay, and a new run goes on after them), and a second
/// `cancel_job` abandons the requests in flight (each counted, its spend estimated). The API
/// key is read from its environment variable (`OPENAI_API_KEY` when none was named). One long
/// job at a time.
#[tauri::command(rename_all = "snake_case")]
pub async fn rate_model(
    app: AppHandle,
    req: ModelRunRequest,
    on_progress: Channel<RateProgress>,
) -> Result<ModelRun, CommandError> {
    let request = RateRequest {
        name: req.name,
        cases: req.cases.map_or(CaseSelection::All, CaseSelection::Ids),
        concurrency: req.concurrency.max(1),
        budget_usd: req.budget_usd,
        timeout: MODEL_REQUEST_TIMEOUT,
    };
    let halt = app.state::<AppState>().halt.clone();
    long_job(
        app,
        "A model run",
        on_progress,
        move |p, progress, _cancel| {
            let mut report =
                ops::rate_model(p, &request, &OffsetDateTime::now_utc, progress, &halt)?;
            let stopped = report.stopped.take();
            Ok(ModelRun { report, stopped })
        },
    )
    .await
}

/// Each model rater against the panel's humans per question (the alternative annotator test),
/// with its agreement figures and their 95% bootstrap intervals (1,000 resamples, seed 0, as
/// `verity models compare` by default).
#[tauri::command(rename_all = "snake_case")]
pub async fn compare_models(
    app: AppHandle,
    question: Option<String>,
    epsilon: Option<f64>,
) -> Result<Vec<ModelComparison>, CommandError> {
    let request = CompareRequest {
        question,
        epsilon,
        bootstrap: BootstrapOptions {
            resamples: 1000,
            seed: 0,
            ..BootstrapOptions::default()
        },
    };
    with_project(app, move |p| ops::compare_models(p, &request)).await
}

/// Makes agreement, the ensemble, the disagreements and the exports take model raters' answers
/// beside the humans' (`--include-models`), or leave them out, as they do when a project opens.
#[tauri::command(rename_all = "snake_case")]
pub async fn include_models(app: AppHandle, include: bool) -> Result<bool, CommandError> {
    with_project(app, move |p| {
        p.include_models(include);
        Ok(include)
    })
    .await
}
