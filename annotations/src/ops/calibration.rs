//! Calibration tasks: tasks with reference labels that `assign` mixes into every rater's queue
//! at a rate, indistinguishable from the others, so that each rater can be measured against the
//! reference.

use std::collections::HashSet;

use serde::Serialize;
use time::OffsetDateTime;
use ts_rs::TS;

use super::lookup::resolve_case_id;
use super::{Error, ErrorCode, Project, Result, stamp};
use verity_stats::natural::thousands;

/// The meta key of the share of each rater's queue that is calibration tasks.
pub(super) const CALIBRATION_RATE: &str = "calibration_rate";

/// The calibration tasks and the rate they are mixed in at.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct CalibrationView {
    /// The share of each rater's queue given to calibration tasks (0.1: one in ten); `null`
    /// when none is set, and nothing is mixed in.
    pub rate: Option<f64>,
    /// The calibration tasks, in id order.
    pub tasks: Vec<String>,
    /// Tasks with reference labels, which may be made calibration tasks.
    pub with_reference: usize,
    /// Of those, the tasks that lack materials (a problem statement and a gold patch), which
    /// cannot be calibration tasks until their instances are imported.
    pub without_materials: usize,
}

/// The rate stored in the project, if any.
pub(super) fn calibration_rate(project: &Project) -> Result<Option<f64>> {
    Ok(project
        .store
        .meta(CALIBRATION_RATE)?
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|r| *r > 0.0 && *r < 1.0))
}

/// Every task some reference set labels, by instance id.
fn referenced(project: &Project) -> Result<HashSet<String>> {
    let mut out = HashSet::new();
    for (set, _) in project.store.reference_sets()? {
        out.extend(
            project
                .store
                .reference_labels(&set)?
                .into_iter()
                .map(|r| r.instance_id),
        );
    }
    Ok(out)
}

/// The calibration tasks and rate.
pub fn calibration(project: &Project) -> Result<CalibrationView> {
    project.require_coordinator("manages calibration tasks")?;
    let labelled = referenced(project)?;
    let without_materials = project
        .store
        .list_cases()?
        .into_iter()
        .filter(|c| !c.has_materials && labelled.contains(&c.instance_id))
        .count();
    Ok(CalibrationView {
        rate: calibration_rate(project)?,
        tasks: project.store.calibration_tasks()?,
        with_reference: labelled.len(),
        without_materials,
    })
}

/// Marks tasks as calibration tasks (with `all`, every task a reference set labels that has
/// materials); each must have reference labels and materials (a problem statement and a gold
/// patch), since a calibration task is handed to raters like any other. All or nothing.
pub fn mark_calibration(
    project: &mut Project,
    ids: &[String],
    all: bool,
    now: OffsetDateTime,
) -> Result<CalibrationView> {
    project.require_coordinator("manages calibration tasks")?;
    let labelled = referenced(project)?;
    let bare: HashSet<String> = project
        .store
        .list_cases()?
        .into_iter()
        .filter(|c| !c.has_materials)
        .map(|c| c.instance_id)
        .collect();
    let mut chosen: Vec<String> = if all {
        let mut every: Vec<String> = labelled
            .iter()
            .filter(|id| !bare.contains(*id))
            .cloned()
            .collect();
        let lacking = labelled.len() - every.len();
        if every.is_empty() && lacking > 0 {
            return Err(Error::refused(
                ErrorCode::CannotAssign,
                format!(
                    "no task with reference labels can be a calibration task: {} {} a problem statement and gold patch (the reference file made {}): import their instances first",
                    thousands(lacking),
                    if lacking == 1 {
                        "task lacks"
                    } else {
                        "tasks lack"
                    },
                    if lacking == 1 { "it" } else { "them" },
                ),
            ));
        }
        every.sort();
        every
    } else {
        ids.iter()
            .map(|id| resolve_case_id(project, id))
            .collect::<Result<_>>()?
    };
    if chosen.is_empty() {
        return Err(Error::refused(
            ErrorCode::Empty,
            if all {
                "no task has reference labels: import a reference set (OpenAI's ensembled file, say) first".to_string()
            } else {
                "name the tasks to make calibration tasks, or pass --all for every task with reference labels".to_string()
            },
        ));
    }
    if let Some(unlabelled) = chosen.iter().find(|id| !labelled.contains(*id)) {
        return Err(Error::refused(
            ErrorCode::NotFound,
            format!(
                "task {unlabelled} has no reference label, so it cannot be a calibration task: import a reference set that labels it"
            ),
        ));
    }
    if let Some(empty) = chosen.iter().find(|id| bare.contains(*id)) {
        return Err(Error::refused(
            ErrorCode::CannotAssign,
            format!(
                "task {empty} lacks a problem statement and gold patch, so raters would get an empty task: import its instance first"
            ),
        ));
    }
    chosen.dedup();
    let case_ids = case_ids_of(project, &chosen)?;
    project
        .store
        .set_calibration(&case_ids, true, &stamp(now))?;
    calibration(project)
}

/// Makes tasks ordinary again; their assignments and answers stay.
pub fn unmark_calibration(
    project: &mut Project,
    ids: &[String],
    now: OffsetDateTime,
) -> Result<CalibrationView> {
    project.require_coordinator("manages calibration tasks")?;
    let chosen: Vec<String> = ids
        .iter()
        .map(|id| resolve_case_id(project, id))
        .collect::<Result<_>>()?;
    let case_ids = case_ids_of(project, &chosen)?;
    project
        .store
        .set_calibration(&case_ids, false, &stamp(now))?;
    calibration(project)
}

/// Sets the share of each rater's queue that `assign` fills with calibration tasks; 0 stops
/// mixing them in.
pub fn set_calibration_rate(project: &mut Project, rate: f64) -> Result<CalibrationView> {
    project.require_coordinator("manages calibration tasks")?;
    if !(0.0..1.0).contains(&rate) {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "a calibration rate is a share of each queue from 0 up to (not including) 1, such as 0.1 for one task in ten; {rate} is not"
            ),
        ));
    }
    project
        .store
        .set_meta(CALIBRATION_RATE, &rate.to_string())?;
    calibration(project)
}

fn case_ids_of(project: &Project, instance_ids: &[String]) -> Result<Vec<i64>> {
    instance_ids
        .iter()
        .map(|id| {
            project
                .store
                .case_by_instance(id)?
                .map(|c| c.case_id)
                .ok_or_else(|| Error::NotFound(format!("the project has no case {id:?}")))
        })
        .collect()
}
