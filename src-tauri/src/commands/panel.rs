//! The panel's work: raters and assignments, queues and progress, a task and its answers,
//! disagreements and adjudication.

use annotations::ops::{
    self, AdjudicationRequest, AdjudicationView, AnswerRequest, AnswerView, AssignReport, CaseView,
    DisagreementPage, DisagreementQuery, ProgressPage, ProgressQuery, Questionnaire, QueuePage,
    QueueQuery, RaterSummary, SampleReport, SampleRequest, SampleStatus,
};
use tauri::AppHandle;
use time::OffsetDateTime;

use crate::error::CommandError;
use crate::state::with_project;

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

/// Draws a random sample of tasks for the humans, records it and assigns it (`verity assign
/// --sample`).
#[tauri::command(rename_all = "snake_case")]
pub async fn draw_sample(
    app: AppHandle,
    request: SampleRequest,
) -> Result<SampleReport, CommandError> {
    with_project(app, move |p| {
        ops::draw_sample(p, &request, OffsetDateTime::now_utc())
    })
    .await
}

/// The project's draws and how far their tasks are.
#[tauri::command(rename_all = "snake_case")]
pub async fn sample_status(app: AppHandle) -> Result<SampleStatus, CommandError> {
    with_project(app, |p| ops::sample_status(p)).await
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
