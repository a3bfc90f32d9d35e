//! Drawing the tasks humans rate (`verity assign --sample`): uniformly, or with probabilities
//! that grow with a predictor's uncertainty, among the tasks with materials not drawn before;
//! each draw recorded with every task it offered and its probability (and, for each task an
//! earlier draw took, the probability this draw would have given it, so that each task's chance
//! of being in the sample is known under the whole design), and the drawn tasks given to
//! raters in the same transaction.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use ts_rs::TS;

use super::label::LabelRule;
use super::predictor::{Predictor, predictions};
use super::{DrawSummary, stats_error};
use crate::ops::raters::{AssignReport, CaseSelection, finish_report, plan_assignment};
use crate::ops::submitted::Panel;
use crate::ops::{Error, ErrorCode, Project, Result, natural_cmp, stamp};
use verity_stats::natural::thousands;
use verity_stats::ppi::design::{systematic_draw, uncertainty_probabilities_beside, uniform_draw};
use verity_store::{PairScope, PairState, SampleDraw};

/// How a draw picks its tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "by", rename_all = "snake_case")]
#[ts(export)]
pub enum SampleMethod {
    /// Every task offered equally likely.
    Uniform,
    /// Likelier where the predictor is unsure of the label: √(f (1 − f)) for a predicted
    /// share f, mixed with a uniform `floor` share so that no task's weight passes 1/floor
    /// times the uniform weight.
    Uncertainty {
        /// `models` or `risk` (one model's 0-or-1 answers say nothing of its uncertainty).
        predictor: String,
        /// The share whose uncertainty counts: `underdetermined`, `determinate`, `kept` or
        /// `Q>=V`.
        label: String,
        /// In (0, 1].
        floor: f64,
    },
}

/// What `verity assign --sample` asks.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct SampleRequest {
    /// Tasks to draw.
    pub size: usize,
    /// The seed of the draw (and of the assignment's ties).
    #[ts(type = "number")]
    pub seed: u64,
    /// Raters each drawn task is given.
    pub per_case: usize,
    /// How.
    pub method: SampleMethod,
}

/// What a draw did.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct SampleReport {
    /// The draw as recorded.
    pub draw: DrawSummary,
    /// Which draw of the project it is: 1 for the first, more for an extension.
    pub number: usize,
    /// Tasks it drew from: those with materials that no earlier draw took.
    pub offered: usize,
    /// The tasks drawn, in natural id order.
    pub drawn: Vec<String>,
    /// The smallest and largest probability it gave a task.
    pub probability_range: [f64; 2],
    /// Tasks drawn by every draw so far.
    pub sampled: usize,
    /// The assignment of the drawn tasks.
    pub assign: AssignReport,
}

/// Refused requests, in sentences naming the flag.
fn check(req: &SampleRequest) -> Result<()> {
    if req.size == 0 {
        return Err(Error::refused(
            ErrorCode::CannotAssign,
            "--sample must draw at least 1 task",
        ));
    }
    if let SampleMethod::Uncertainty { floor, .. } = &req.method
        && !(*floor > 0.0 && *floor <= 1.0)
    {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!("--floor {floor}: the floor is a share of the uniform probability, in (0, 1]"),
        ));
    }
    Ok(())
}

/// Each offered task's probability under an uncertainty-weighted draw.
fn uncertainty_draw(
    project: &Project,
    offered: &[(i64, String)],
    earlier: &[i64],
    size: usize,
    predictor: &str,
    label: &str,
    floor: f64,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let rule = LabelRule::parse(project, label)?;
    if !rule.is_share() {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "--label {label}: a draw by uncertainty is of a share (underdetermined, determinate, kept, Q>=V), whose predicted value says how unsure the predictor is"
            ),
        ));
    }
    let predictor = Predictor::parse(predictor)?;
    if predictor.is_one_answer() {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "--predictor {}: one model's answer is 0 or 1 on every task and says nothing of its uncertainty; draw by models (their disagreement) or risk",
                predictor.name()
            ),
        ));
    }
    let models: HashSet<String> = project
        .store
        .model_raters()?
        .into_iter()
        .map(|m| m.rater.name)
        .collect();
    let read = rule.questions(project);
    let questions: Vec<&str> = read.iter().map(String::as_str).collect();
    let panel = Panel::load_questions(project, true, &questions)?;
    let values = predictions(project, &predictor, &rule, &panel, &models)?;
    let known: Vec<f64> = offered
        .iter()
        .filter_map(|(case, _)| values.get(case).copied())
        .collect();
    if known.is_empty() {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "the predictor {} gives no value on any of the {} tasks to draw from, so it has no uncertainty to draw by",
                predictor.name(),
                thousands(offered.len())
            ),
        ));
    }
    let mean = known.iter().sum::<f64>() / known.len() as f64;
    let uncertainty_of = |case: &i64| {
        let f = values.get(case).copied().unwrap_or(mean).clamp(0.0, 1.0);
        (f * (1.0 - f)).sqrt()
    };
    let pool: Vec<f64> = offered
        .iter()
        .map(|(case, _)| uncertainty_of(case))
        .collect();
    let before: Vec<f64> = earlier.iter().map(uncertainty_of).collect();
    uncertainty_probabilities_beside(&pool, &before, size, floor).map_err(stats_error)
}

/// Draws `req.size` tasks among those with materials that no earlier draw took, records the
/// draw with every task it offered and its probability, and gives each drawn task `per_case`
/// raters (the balanced assignment, without calibration tasks mixed in), all in one
/// transaction. A coordinator function.
pub fn draw_sample(
    project: &mut Project,
    req: &SampleRequest,
    now: OffsetDateTime,
) -> Result<SampleReport> {
    project.require_coordinator("draws the sample humans rate")?;
    check(req)?;
    let earlier: HashSet<i64> = project
        .store
        .sample_frame()?
        .into_iter()
        .filter(|r| r.drawn)
        .map(|r| r.case_id)
        .collect();
    let mut taken: Vec<i64> = earlier.iter().copied().collect();
    taken.sort_unstable();
    let offered: Vec<(i64, String)> = project
        .store
        .list_cases()?
        .into_iter()
        .filter(|c| c.has_materials && !earlier.contains(&c.case_id))
        .map(|c| (c.case_id, c.instance_id))
        .collect();
    if offered.is_empty() {
        return Err(Error::refused(
            ErrorCode::CannotAssign,
            if earlier.is_empty() {
                "the project has no task with materials to draw (import the tasks first)".into()
            } else {
                format!(
                    "every task with materials is in the sample already ({} drawn)",
                    thousands(earlier.len())
                )
            },
        ));
    }
    if req.size > offered.len() {
        return Err(Error::refused(
            ErrorCode::CannotAssign,
            format!(
                "--sample {}: only {} tasks with materials are left to draw{}",
                req.size,
                thousands(offered.len()),
                if earlier.is_empty() {
                    String::new()
                } else {
                    format!(" ({} are drawn already)", thousands(earlier.len()))
                }
            ),
        ));
    }
    // Each offered task's probability, and what each task an earlier draw took would have had
    // (its chance in this step of the design, recorded beside the offered ones).
    let (probabilities, before, positions) = match &req.method {
        SampleMethod::Uniform => {
            let p = req.size as f64 / offered.len() as f64;
            (
                vec![p; offered.len()],
                vec![p; taken.len()],
                uniform_draw(offered.len(), req.size, req.seed).map_err(stats_error)?,
            )
        }
        SampleMethod::Uncertainty {
            predictor,
            label,
            floor,
        } => {
            let (p, before) = uncertainty_draw(
                project, &offered, &taken, req.size, predictor, label, *floor,
            )?;
            let drawn = systematic_draw(&p, req.seed).map_err(stats_error)?;
            (p, before, drawn)
        }
    };
    let chosen: HashSet<usize> = positions.iter().copied().collect();
    let mut drawn: Vec<String> = positions.iter().map(|&i| offered[i].1.clone()).collect();
    drawn.sort_by(|a, b| natural_cmp(a, b));
    let (pairs, mut assign) = plan_assignment(
        project,
        req.per_case,
        req.seed,
        &CaseSelection::Ids(drawn.clone()),
    )?;
    let (method, predictor, label, floor) = match &req.method {
        SampleMethod::Uniform => ("uniform", None, None, None),
        SampleMethod::Uncertainty {
            predictor,
            label,
            floor,
        } => (
            "uncertainty",
            Some(Predictor::parse(predictor)?.name()),
            Some(LabelRule::parse(project, label)?.name()),
            Some(*floor),
        ),
    };
    let record = SampleDraw {
        id: 0,
        method: method.into(),
        seed: req.seed as i64,
        size: req.size as i64,
        per_case: req.per_case as i64,
        predictor,
        label,
        floor,
        drawn_at: stamp(now),
    };
    let frame: Vec<(i64, f64, bool)> = offered
        .iter()
        .zip(&probabilities)
        .enumerate()
        .map(|(i, ((case, _), p))| (*case, *p, chosen.contains(&i)))
        .chain(
            taken
                .iter()
                .zip(&before)
                .map(|(case, p)| (*case, *p, false)),
        )
        .collect();
    let (_, added) = project.store.put_sample_draw(&record, &frame, &pairs)?;
    finish_report(&mut assign, added, req.per_case);
    let number = project.store.sample_draws()?.len();
    let (low, high) = probabilities
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    Ok(SampleReport {
        draw: DrawSummary::from(&record),
        number,
        offered: offered.len(),
        drawn,
        probability_range: [low, high],
        sampled: earlier.len() + positions.len(),
        assign,
    })
}

/// The project's sample as the app shows it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct SampleStatus {
    /// The draws, oldest first.
    pub draws: Vec<DrawSummary>,
    /// Tasks drawn.
    pub sampled: usize,
    /// Of those, the tasks every assigned human rater has submitted.
    pub complete: usize,
    /// Tasks with materials not drawn yet.
    pub undrawn: usize,
    /// Whether humans are assigned tasks outside the sample, which stops every
    /// prediction-powered estimate.
    pub mixed: bool,
}

/// The project's draws, how many tasks they took and how many of those are complete. A
/// coordinator function.
pub fn sample_status(project: &Project) -> Result<SampleStatus> {
    project.require_coordinator("reads the sample")?;
    let draws = project.store.sample_draws()?;
    let drawn: Vec<i64> = project
        .store
        .sample_frame()?
        .into_iter()
        .filter(|r| r.drawn)
        .map(|r| r.case_id)
        .collect();
    let models = crate::ops::lookup::model_rater_ids(project)?;
    let in_sample: HashSet<i64> = drawn.iter().copied().collect();
    let mut done: std::collections::HashMap<i64, bool> = std::collections::HashMap::new();
    for pair in project.store.pair_progress(PairScope::Cases(&drawn))? {
        if models.contains(&pair.rater_id) {
            continue;
        }
        let all = done.entry(pair.case_id).or_insert(true);
        *all &= pair.state == PairState::Submitted;
    }
    let mixed = project
        .store
        .list_assignments()?
        .iter()
        .any(|a| !models.contains(&a.rater_id) && !in_sample.contains(&a.case_id));
    let with_materials = project
        .store
        .list_cases()?
        .iter()
        .filter(|c| c.has_materials)
        .count();
    Ok(SampleStatus {
        draws: draws.iter().map(DrawSummary::from).collect(),
        sampled: drawn.len(),
        complete: done.values().filter(|d| **d).count(),
        undrawn: with_materials.saturating_sub(in_sample.len()),
        mixed,
    })
}
