//! The figures: agreement, rater quality, calibration, the ensemble, systems' results and
//! their scores.

use annotations::ops::{
    self, AgreementRequest, AgreementView, CalibrationView, EnsembleReport, Estimate,
    EstimateRequest, QualityReport, QualityRequest, ResultsImport, ResultsSource, ScoresOptions,
    ScoresReport, SystemResults,
};
use tauri::AppHandle;
use time::OffsetDateTime;

use crate::error::CommandError;
use crate::state::with_project;

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

/// A prediction-powered estimate beside the humans alone (`verity estimate`).
#[tauri::command(rename_all = "snake_case")]
pub async fn project_estimate(
    app: AppHandle,
    request: EstimateRequest,
) -> Result<Estimate, CommandError> {
    with_project(app, move |p| ops::estimate(p, &request)).await
}

/// Each system's raw and determinate-only rates, ranks and pairwise comparisons.
#[tauri::command(rename_all = "snake_case")]
pub async fn project_scores(
    app: AppHandle,
    options: ScoresOptions,
) -> Result<ScoresReport, CommandError> {
    with_project(app, move |p| ops::scores(p, &options)).await
}
