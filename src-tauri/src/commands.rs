//! Tauri commands. Each has the name of the `ops` function it wraps: it unpacks state, calls
//! that one function on a blocking thread and maps the error to `{code, message}`.
//!
//! Every command takes its arguments by their snake_case Rust names (`rename_all =
//! "snake_case"`) instead of Tauri's camelCase default, so the IPC spells keys the way every
//! `--json` output and the generated bindings do.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use annotations::ops::{
    self, Actor, AdjudicationRequest, AdjudicationView, AgreementRequest, AgreementView,
    AnswerRequest, AnswerView, AssignReport, BootstrapOptions, CalibrationView, CaseSelection,
    CaseView, CloneProgress, CloneReport, CloneRequest, CompareRequest, DisagreementPage,
    DisagreementQuery, EnsembleReport, ErrorCode, EvidenceAllReport, EvidenceProgress,
    EvidenceView, ExportFormat, ExportOptions, FetchProgress, FetchReport, FetchRequest, GrepQuery,
    GrepReport, HubSettings, ImportProgress, ImportReport, ModelAddRequest, ModelComparison,
    ModelSummary, NeededRepository, ProgressPage, ProgressQuery, QualityReport, QualityRequest,
    Questionnaire, QueuePage, QueueQuery, RateProgress, RateReport, RateRequest, RaterSummary,
    RepositoryStatus, ResultsImport, ResultsSource, ScoresOptions, ScoresReport, ShownFile,
    SystemResults,
};
use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager};
use tauri_plugin_opener::OpenerExt;
use time::OffsetDateTime;

use crate::error::CommandError;
use crate::recent::RecentProject;
use crate::state::{AppState, long_job, replace_project, with_project};

/// The open project, for the window's header.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectInfo {
    /// The project file, or the server project's `postgres://` URL (never with a password).
    pub path: String,
    /// True when the project is on a server: `path` is its URL.
    pub server: bool,
    /// The questionnaire's title.
    pub questionnaire: String,
    /// The one rater the project acts for (a rater's package or a rater's login on a server),
    /// already signed in; `None` when the app asks who is using it.
    pub bound_rater: Option<String>,
}

fn info(project: &ops::Project) -> ProjectInfo {
    let path = project.path().display().to_string();
    ProjectInfo {
        server: ops::is_server_url(&path),
        path,
        questionnaire: project.questionnaire().title.clone(),
        bound_rater: project.bound_rater().map(str::to_owned),
    }
}

/// What the window shows at start.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Startup {
    /// A project is open: the last one, or the demo project on the first start.
    Opened {
        /// The project.
        project: ProjectInfo,
    },
    /// The last project is on a server that Verity could not open without a password (or could
    /// not reach): the window asks for the password, the URL filled in.
    Server {
        /// The server project's URL, as remembered (without a password).
        url: String,
        /// Why opening it without a password failed.
        error: CommandError,
    },
}

/// Opens (creating on first use) the demo project, a finished round, in the app's data folder.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_demo_project(app: AppHandle) -> Result<ProjectInfo, CommandError> {
    replace_project(app, |state: &AppState| {
        let project = ops::open_demo_project(&state.data_dir.join("demo"))?;
        state.remember_project(project.path());
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// Opens (creating on first use) the empty demo project, nothing answered yet, in the app's
/// data folder.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_empty_demo_project(app: AppHandle) -> Result<ProjectInfo, CommandError> {
    replace_project(app, |state: &AppState| {
        let project =
            ops::open_empty_demo_project(&state.data_dir.join("demo"), OffsetDateTime::now_utc())?;
        state.remember_project(project.path());
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// Opens a project file.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_project(app: AppHandle, path: PathBuf) -> Result<ProjectInfo, CommandError> {
    replace_project(app, move |state| {
        let project = ops::open_project(&path)?;
        state.remember_project(project.path());
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// Opens a project on a server: `url` is `postgres://USER@HOST:PORT/DATABASE`, without a
/// password; `password` connects when given (else libpq's `PGPASSWORD` or `~/.pgpass`). The
/// password stays in the open project's memory: the last-project file keeps the URL only, and
/// no error or log line holds it.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_server_project(
    app: AppHandle,
    url: String,
    password: Option<String>,
) -> Result<ProjectInfo, CommandError> {
    let url = server_address(&url)?.to_owned();
    let password = password.filter(|p| !p.is_empty());
    replace_project(app, move |state| {
        let project = ops::open_project_with_password(Path::new(&url), password.as_deref())?;
        state.remember_project(project.path());
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// The address typed for a server project, trimmed; anything but a `postgres://` URL is refused
/// (a file opens through [`open_project`]). The refusal does not repeat what was typed, which
/// may hold a password.
fn server_address(url: &str) -> Result<&str, CommandError> {
    let url = url.trim();
    if ops::is_server_url(url) {
        Ok(url)
    } else {
        Err(CommandError::new(
            ErrorCode::NotAServer,
            "A server's address starts with postgres://, as in postgres://USER@HOST:PORT/DATABASE.",
        ))
    }
}

/// The project to show at start: the one named on the command line, else the one open when
/// Verity last closed, or the demo project on the first start. A server project is tried
/// without a password first (`PGPASSWORD`, `~/.pgpass`); when that fails the window asks for
/// one. A URL holding a password is refused before any of that, so the window never shows it.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_startup_project(app: AppHandle) -> Result<Startup, CommandError> {
    let first = app.state::<AppState>().startup_project();
    let project = match first {
        Some(path) => match path.to_str().filter(|p| ops::is_server_url(p)) {
            Some(url) => {
                ops::check_server_url(url)?;
                let url = url.to_owned();
                match open_server_project(app, url.clone(), None).await {
                    Ok(project) => project,
                    Err(error) => return Ok(Startup::Server { url, error }),
                }
            }
            None => open_project(app, path).await?,
        },
        None => open_demo_project(app).await?,
    };
    Ok(Startup::Opened { project })
}

/// The projects opened lately, most recent first: files (marked when missing) and server URLs.
#[tauri::command(rename_all = "snake_case")]
pub async fn recent_projects(app: AppHandle) -> Vec<RecentProject> {
    app.state::<AppState>().recent.list()
}

/// Takes a project off the recent projects; returns the list left.
#[tauri::command(rename_all = "snake_case")]
pub async fn forget_recent_project(
    app: AppHandle,
    path: String,
) -> Result<Vec<RecentProject>, CommandError> {
    let recent = &app.state::<AppState>().recent;
    recent.remove(&path)?;
    Ok(recent.list())
}

/// Signs in as a rater of the project or as the coordinator; opening a project signs out (or
/// in as the rater a package is bound to, who alone may sign in to it). The project's use cases
/// then refuse what that actor may not do.
#[tauri::command(rename_all = "snake_case")]
pub async fn sign_in(app: AppHandle, role: Actor) -> Result<Actor, CommandError> {
    with_project(app, move |p| {
        p.act_as(role.clone())?;
        Ok(role)
    })
    .await
}

/// The project's raters.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_raters(app: AppHandle) -> Result<Vec<RaterSummary>, CommandError> {
    with_project(app, |p| ops::list_raters(p)).await
}

/// Adds a rater.
#[tauri::command(rename_all = "snake_case")]
pub async fn add_rater(app: AppHandle, name: String) -> Result<RaterSummary, CommandError> {
    with_project(app, move |p| {
        ops::add_rater(p, &name, OffsetDateTime::now_utc())
    })
    .await
}

/// Assigns `per_case` distinct raters to every case that has fewer, evenly, reproducibly.
#[tauri::command(rename_all = "snake_case")]
pub async fn assign_raters(
    app: AppHandle,
    per_case: usize,
    seed: u64,
) -> Result<AssignReport, CommandError> {
    with_project(app, move |p| {
        ops::assign(
            p,
            per_case,
            seed,
            &ops::CaseSelection::All,
            OffsetDateTime::now_utc(),
        )
    })
    .await
}

/// A page of a rater's queue, filtered and searched.
#[tauri::command(rename_all = "snake_case")]
pub async fn queue_page(app: AppHandle, query: QueueQuery) -> Result<QueuePage, CommandError> {
    with_project(app, move |p| ops::queue_page(p, &query)).await
}

/// The task a rater works on next: the first one to take up, or the next one not submitted
/// after `after`.
#[tauri::command(rename_all = "snake_case")]
pub async fn next_task(
    app: AppHandle,
    rater: String,
    after: Option<String>,
) -> Result<Option<String>, CommandError> {
    with_project(app, move |p| ops::next_task(p, &rater, after.as_deref())).await
}

/// A page of the progress per task (statuses, no answers), for the coordinator.
#[tauri::command(rename_all = "snake_case")]
pub async fn progress_page(
    app: AppHandle,
    query: ProgressQuery,
) -> Result<ProgressPage, CommandError> {
    with_project(app, move |p| ops::progress_page(p, &query)).await
}

/// A case prepared for reading: sanitized issue HTML, parsed patches, linked tests.
#[tauri::command(rename_all = "snake_case")]
pub async fn case_view(app: AppHandle, instance_id: String) -> Result<CaseView, CommandError> {
    with_project(app, move |p| ops::case_view(p, &instance_id)).await
}

/// The project's questionnaire.
#[tauri::command(rename_all = "snake_case")]
pub async fn project_questionnaire(app: AppHandle) -> Result<Questionnaire, CommandError> {
    with_project(app, |p| Ok(p.questionnaire().clone())).await
}

/// The rater's own current answer on a case.
#[tauri::command(rename_all = "snake_case")]
pub async fn current_answer(
    app: AppHandle,
    rater: String,
    case: String,
) -> Result<AnswerView, CommandError> {
    with_project(app, move |p| ops::current_answer(p, &rater, &case)).await
}

/// Saves a draft.
#[tauri::command(rename_all = "snake_case")]
pub async fn save_draft(app: AppHandle, req: AnswerRequest) -> Result<AnswerView, CommandError> {
    with_project(app, move |p| {
        ops::save_draft(p, &req, OffsetDateTime::now_utc())
    })
    .await
}

/// Submits an answer.
#[tauri::command(rename_all = "snake_case")]
pub async fn submit_answer(app: AppHandle, req: AnswerRequest) -> Result<AnswerView, CommandError> {
    with_project(app, move |p| {
        ops::submit_answer(p, &req, OffsetDateTime::now_utc())
    })
    .await
}

/// Revises a submitted answer, with its reason.
#[tauri::command(rename_all = "snake_case")]
pub async fn revise_answer(app: AppHandle, req: AnswerRequest) -> Result<AnswerView, CommandError> {
    with_project(app, move |p| {
        ops::revise_answer(p, &req, OffsetDateTime::now_utc())
    })
    .await
}

/// Adds active time on a case.
#[tauri::command(rename_all = "snake_case")]
pub async fn record_time(
    app: AppHandle,
    rater: String,
    case: String,
    active_ms: i64,
) -> Result<(), CommandError> {
    with_project(app, move |p| ops::record_time(p, &rater, &case, active_ms)).await
}

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

/// Asks the running import, fetch, evidence run or clone to stop; what it did is rolled back
/// (an import, a fetch's import) or kept (evidence already computed stays cached, and a new run
/// resumes after it; a fetch's partly downloaded file and a clone's finished stages are kept,
/// and fetching or cloning again resumes).
#[tauri::command(rename_all = "snake_case")]
pub fn cancel_job(app: AppHandle) {
    app.state::<AppState>()
        .cancel
        .store(true, Ordering::Relaxed);
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

/// Agreement per question over raters' first submissions; with model raters included, also
/// among humans, among models and pooled.
#[tauri::command(rename_all = "snake_case")]
pub async fn project_agreement(
    app: AppHandle,
    req: AgreementRequest,
) -> Result<AgreementView, CommandError> {
    with_project(app, move |p| ops::agreement_view(p, &req)).await
}

/// Each rater's quality per question: against the reference on calibration tasks, against the
/// rest of the panel, and their pace.
#[tauri::command(rename_all = "snake_case")]
pub async fn rater_quality(
    app: AppHandle,
    req: QualityRequest,
) -> Result<QualityReport, CommandError> {
    with_project(app, move |p| ops::rater_quality(p, &req)).await
}

/// The calibration tasks and their rate.
#[tauri::command(rename_all = "snake_case")]
pub async fn calibration(app: AppHandle) -> Result<CalibrationView, CommandError> {
    with_project(app, move |p| ops::calibration(p)).await
}

/// Makes every task with reference labels a calibration task.
#[tauri::command(rename_all = "snake_case")]
pub async fn mark_all_calibration(app: AppHandle) -> Result<CalibrationView, CommandError> {
    with_project(app, move |p| {
        ops::mark_calibration(p, &[], true, OffsetDateTime::now_utc())
    })
    .await
}

/// Sets the share of each rater's queue that assigning fills with calibration tasks.
#[tauri::command(rename_all = "snake_case")]
pub async fn set_calibration_rate(
    app: AppHandle,
    rate: f64,
) -> Result<CalibrationView, CommandError> {
    with_project(app, move |p| ops::set_calibration_rate(p, rate)).await
}

/// Every case's labels under an ensemble rule (the questionnaire's default when `null`).
#[tauri::command(rename_all = "snake_case")]
pub async fn ensemble_labels(
    app: AppHandle,
    rule: Option<String>,
) -> Result<EnsembleReport, CommandError> {
    with_project(app, move |p| ops::ensemble_labels(p, rule.as_deref())).await
}

/// Imports systems' per-task outcomes, each file a system; all or nothing.
#[tauri::command(rename_all = "snake_case")]
pub async fn import_results(
    app: AppHandle,
    sources: Vec<ResultsSource>,
) -> Result<Vec<ResultsImport>, CommandError> {
    with_project(app, move |p| {
        ops::import_results(p, &sources, OffsetDateTime::now_utc())
    })
    .await
}

/// The systems whose results the project holds.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_results(app: AppHandle) -> Result<Vec<SystemResults>, CommandError> {
    with_project(app, |p| ops::list_results(p)).await
}

/// Removes a system's results.
#[tauri::command(rename_all = "snake_case")]
pub async fn remove_results(app: AppHandle, system: String) -> Result<(), CommandError> {
    with_project(app, move |p| ops::remove_results(p, &system)).await
}

/// Each system's raw and determinate-only rates, ranks and pairwise comparisons.
#[tauri::command(rename_all = "snake_case")]
pub async fn project_scores(
    app: AppHandle,
    options: ScoresOptions,
) -> Result<ScoresReport, CommandError> {
    with_project(app, move |p| ops::scores(p, &options)).await
}

/// A page of the disagreement queue, worst first.
#[tauri::command(rename_all = "snake_case")]
pub async fn disagreement_page(
    app: AppHandle,
    query: DisagreementQuery,
) -> Result<DisagreementPage, CommandError> {
    with_project(app, move |p| ops::disagreement_page(p, &query)).await
}

/// Records an adjudicator's decision.
#[tauri::command(rename_all = "snake_case")]
pub async fn adjudicate(
    app: AppHandle,
    req: AdjudicationRequest,
) -> Result<AdjudicationView, CommandError> {
    with_project(app, move |p| {
        ops::adjudicate(p, &req, OffsetDateTime::now_utc())
    })
    .await
}

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
/// request; `cancel_job` stops it cleanly (answers stored stay, replies paid for are kept, and a
/// new run goes on after them). The API key is read from its environment variable. One long
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
    long_job(
        app,
        "A model run",
        on_progress,
        move |p, progress, cancel| {
            let mut report =
                ops::rate_model(p, &request, &OffsetDateTime::now_utc, progress, cancel)?;
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

/// Opens a link from a task in the system browser, only for `http`, `https` and `mailto`:
/// the page never navigates itself, and nothing else is handed to the desktop.
#[tauri::command(rename_all = "snake_case")]
pub fn open_external(app: AppHandle, url: String) -> Result<(), CommandError> {
    let allowed = ["https://", "http://", "mailto:"].iter().any(|scheme| {
        url.get(..scheme.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
    });
    if !allowed {
        return Err(CommandError::new(
            ErrorCode::RefusedUrl,
            format!("Verity opens only http, https and mailto links; {url:?} was not opened."),
        ));
    }
    app.opener().open_url(&url, None::<&str>).map_err(|err| {
        CommandError::new(
            ErrorCode::OpenFailed,
            format!("The system browser could not open {url}: {err}."),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_address_is_a_postgres_url_and_a_refusal_does_not_repeat_it() {
        let url = "postgres://ana@db.example.org:5432/panel";
        assert_eq!(server_address(&format!(" {url}\n")).expect("a URL"), url);
        assert!(server_address("postgresql://ana@db/panel").is_ok());
        for typed in ["/home/ana/panel.verity", "mysql://ana:s3cret@db/panel", ""] {
            let err = server_address(typed).expect_err("not a server's address");
            assert_eq!(err.code, ErrorCode::NotAServer);
            assert!(!err.message.contains("s3cret"));
        }
    }

    #[test]
    fn the_startup_answer_names_its_kind_as_the_window_reads_it() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("panel.verity");
        let choice = ops::QuestionnaireChoice::Builtin("swe-bench-verified".into());
        let project =
            ops::init_project(&path, &choice, OffsetDateTime::UNIX_EPOCH).expect("a new project");
        let opened = serde_json::to_value(Startup::Opened {
            project: info(&project),
        })
        .expect("serializable");
        assert_eq!(opened["kind"], "opened");
        assert_eq!(opened["project"]["path"], path.display().to_string());
        assert_eq!(opened["project"]["server"], false);

        let url = "postgres://ana@db.example.org:5432/panel";
        let asked = serde_json::to_value(Startup::Server {
            url: url.into(),
            error: CommandError::new(ErrorCode::ServerUnavailable, "The server is down."),
        })
        .expect("serializable");
        assert_eq!(
            asked,
            serde_json::json!({
                "kind": "server",
                "url": url,
                "error": { "code": "server_unavailable", "message": "The server is down." },
            })
        );
    }
}
