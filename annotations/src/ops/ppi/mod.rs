//! Few humans, valid numbers: prediction-powered estimates (PPI and PPI++) from the panel's
//! labels on a recorded random sample of tasks and a predictor on every task, beside the
//! humans-alone estimate; and the draws that make the sample (`assign --sample`).
//!
//! The statistics are `verity_stats::ppi`'s. What this module adds is what a reviewer of the
//! figures would ask for: the labelled tasks must be the recorded random sample (refused
//! otherwise, never used silently), the gold labels are the humans' alone (the model raters'
//! answers only ever feed the predictor), and every figure says what its interval assumes.

mod draw;
mod grounds;
mod label;
mod predictor;
mod section;

pub use draw::{
    SampleMethod, SampleReport, SampleRequest, SampleStatus, draw_sample, sample_status,
};
pub(crate) use grounds::{Grounds, grounds};
pub(crate) use label::LabelRule;
pub(crate) use predictor::{Predictor, predictions};
pub(in crate::ops) use section::{FewHumansSection, render_few_humans, report_few_humans};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Error, ErrorCode, Project, Result};
use verity_stats::natural::thousands;
use verity_stats::ppi::design::superpopulation_weights;
use verity_stats::ppi::{Design, Lambda, PpiError, Sample};
use verity_store::SampleDraw;

/// What `verity estimate` asks.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct EstimateRequest {
    /// `underdetermined`, `determinate`, `kept`, `Q>=V` or `Q`.
    pub label: String,
    /// `model:NAME`, `models` or `risk`.
    pub predictor: String,
    /// The error level: 0.05 for 95% intervals.
    pub alpha: f64,
    /// λ fixed (0: humans alone, 1: plain PPI); `null` to estimate it (PPI++).
    pub lambda: Option<f64>,
    /// Say how many more labelled tasks would bring the interval to ± this.
    pub target_halfwidth: Option<f64>,
    /// The benchmark's own tasks as the whole population (the finite-population correction).
    pub finite: bool,
}

impl Default for EstimateRequest {
    fn default() -> Self {
        EstimateRequest {
            label: "underdetermined".into(),
            predictor: "models".into(),
            alpha: 0.05,
            lambda: None,
            target_halfwidth: None,
            finite: false,
        }
    }
}

/// How the labelled tasks were drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Sampling {
    /// Every task of the population had the same probability.
    Uniform,
    /// The probabilities differed (a draw by uncertainty, or a draw after tasks were added):
    /// each task is weighted by the inverse of its probability.
    Weighted,
}

/// One recorded draw, as a figure's reader needs it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct DrawSummary {
    /// `uniform` or `uncertainty`.
    pub method: String,
    /// Tasks drawn.
    pub size: usize,
    /// The seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// Raters given each task.
    pub per_case: usize,
    /// The predictor whose uncertainty weighed it.
    pub predictor: Option<String>,
    /// The label that uncertainty was of.
    pub label: Option<String>,
    /// The floor of its probabilities, as a share of the uniform one.
    pub floor: Option<f64>,
    /// When.
    pub drawn_at: String,
}

impl From<&SampleDraw> for DrawSummary {
    fn from(d: &SampleDraw) -> Self {
        DrawSummary {
            method: d.method.clone(),
            size: usize::try_from(d.size).unwrap_or(0),
            seed: d.seed as u64,
            per_case: usize::try_from(d.per_case).unwrap_or(0),
            predictor: d.predictor.clone(),
            label: d.label.clone(),
            floor: d.floor,
            drawn_at: d.drawn_at.clone(),
        }
    }
}

impl DrawSummary {
    /// The draw in words: "40 uniformly (seed 7)", "50 by the uncertainty of models (seed 1,
    /// floor 0.5)".
    pub fn describe(&self) -> String {
        match &self.predictor {
            None => format!("{} uniformly (seed {})", self.size, self.seed),
            Some(p) => format!(
                "{} by the uncertainty of {p} (seed {}, floor {})",
                self.size,
                self.seed,
                self.floor.unwrap_or(0.0)
            ),
        }
    }
}

/// How many more labelled tasks reach a half-width.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Target {
    /// The half-width asked for.
    pub halfwidth: f64,
    /// More labelled tasks for the prediction-powered interval; `null` when no number short of
    /// every task reaches it.
    pub more_tasks: Option<usize>,
    /// The same for the humans-alone interval.
    pub more_tasks_classical: Option<usize>,
}

/// A prediction-powered estimate beside the humans-alone one.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Estimate {
    /// The label, as named.
    pub label: String,
    /// The predictor, as named.
    pub predictor: String,
    /// Labelled tasks: drawn, complete, with a gold label.
    pub n_labeled: usize,
    /// The rest of the population, where only the predictor speaks.
    pub n_unlabeled: usize,
    /// The λ used.
    pub lambda: f64,
    /// The prediction-powered estimate.
    pub estimate: f64,
    /// Its interval.
    pub ci: [f64; 2],
    /// The humans' labels alone.
    pub classical_estimate: f64,
    /// Their interval.
    pub classical_ci: [f64; 2],
    /// How many labelled tasks the humans alone would need for the prediction-powered
    /// interval's width.
    pub effective_n: f64,
    /// How the labelled tasks were drawn.
    pub sampling: Sampling,
    /// The error level (0.05 for 95%).
    pub alpha: f64,
    /// Whether the finite-population correction was applied.
    pub finite: bool,
    /// Whether the label is a share (0 or 1 per task) rather than a question's mean.
    pub share: bool,
    /// The prediction-powered estimate's standard error.
    pub se: f64,
    /// The humans-alone standard error.
    pub classical_se: f64,
    /// Tasks some draw offered: the population estimated.
    pub population: usize,
    /// Tasks drawn.
    pub sampled: usize,
    /// Drawn tasks whose panel is not complete.
    pub incomplete: usize,
    /// Drawn tasks complete but without a label by the rule (adjudicate them).
    pub undecided: usize,
    /// Tasks with materials no draw offered, outside the population.
    pub outside: usize,
    /// Tasks without a predictor value, given its mean over the others.
    pub predictor_missing: usize,
    /// The draws, oldest first.
    pub draws: Vec<DrawSummary>,
    /// With `target_halfwidth`: how many more labelled tasks reach it.
    pub target: Option<Target>,
    /// What the intervals assume, in sentences.
    pub assumes: Vec<String>,
    /// What weakens them here, in sentences.
    pub warnings: Vec<String>,
}

fn stats_error(e: PpiError) -> Error {
    Error::refused(ErrorCode::BadInput, e.0)
}

/// Checks the request's numbers, each refused in a sentence naming its flag.
fn check_request(req: &EstimateRequest) -> Result<()> {
    let bad = |m: String| Err(Error::refused(ErrorCode::BadInput, m));
    if !(req.alpha > 0.0 && req.alpha < 1.0) {
        return bad(format!(
            "--alpha {}: the error level lies strictly between 0 and 1 (0.05 for 95% intervals)",
            req.alpha
        ));
    }
    if let Some(l) = req.lambda
        && !(0.0..=1.0).contains(&l)
    {
        return bad(format!(
            "--lambda {l}: λ lies in [0, 1] (0 is the humans alone, 1 plain PPI)"
        ));
    }
    if let Some(h) = req.target_halfwidth
        && !(h.is_finite() && h > 0.0)
    {
        return bad(format!(
            "--target-halfwidth {h}: a half-width is a positive number"
        ));
    }
    Ok(())
}

/// The predictor on every task of the population: its values where it has one, its mean over
/// those elsewhere (a fixed predictor all the same, so the estimate stays unbiased); how many
/// were missing. Refused when it has none.
pub(crate) fn predictor_on_population(
    grounds: &Grounds,
    values: &std::collections::HashMap<i64, f64>,
    predictor: &Predictor,
) -> Result<(Vec<f64>, usize)> {
    let known: Vec<f64> = grounds
        .population
        .iter()
        .filter_map(|(case, _)| values.get(case).copied())
        .collect();
    if known.is_empty() {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "the predictor {} gives no value on any of the {} tasks sampled from: {}",
                predictor.name(),
                thousands(grounds.population.len()),
                match predictor {
                    Predictor::Risk => "compute their evidence first (`verity evidence --all`)",
                    _ => "let the model rate them first (`verity models rate NAME --all`)",
                }
            ),
        ));
    }
    let mean = known.iter().sum::<f64>() / known.len() as f64;
    let all: Vec<f64> = grounds
        .population
        .iter()
        .map(|(case, _)| values.get(case).copied().unwrap_or(mean))
        .collect();
    Ok((all, grounds.population.len() - known.len()))
}

/// The labelled and unlabelled columns of one quantity, with the design's weights.
pub(crate) struct Columns {
    pub(crate) labels: Vec<f64>,
    pub(crate) predictions: Vec<f64>,
    pub(crate) unlabeled: Vec<f64>,
    /// Each labelled task's probability of being labelled.
    pub(crate) labelled_probability: Vec<f64>,
    /// Each unlabelled task's.
    pub(crate) unlabelled_probability: Vec<f64>,
    /// The labelled tasks' weights and the unlabelled tasks', when the sample is weighted.
    pub(crate) weights: Option<(Vec<f64>, Vec<f64>)>,
}

impl Columns {
    /// Splits the population's predictions (in population order) into the labelled tasks' and
    /// the others'. A task is labelled with its drawing probability times the share of drawn
    /// tasks that are labelled: the tasks not labelled yet are taken as missing at random.
    pub(crate) fn split(grounds: &Grounds, predictions: &[f64]) -> Columns {
        let complete = grounds.labels.len() as f64 / grounds.sampled.max(1) as f64;
        let mut c = Columns {
            labels: Vec::with_capacity(grounds.labels.len()),
            predictions: Vec::with_capacity(grounds.labels.len()),
            unlabeled: Vec::with_capacity(grounds.population.len()),
            labelled_probability: Vec::with_capacity(grounds.labels.len()),
            unlabelled_probability: Vec::with_capacity(grounds.population.len()),
            weights: None,
        };
        for ((case, p), f) in grounds.population.iter().zip(predictions) {
            match grounds.labels.get(case) {
                Some(y) => {
                    c.labels.push(*y);
                    c.predictions.push(*f);
                    c.labelled_probability.push(p * complete);
                }
                None => {
                    c.unlabeled.push(*f);
                    c.unlabelled_probability.push(p * complete);
                }
            }
        }
        if !grounds.uniform {
            c.weights = Some(superpopulation_weights(
                &c.labelled_probability,
                &c.unlabelled_probability,
            ));
        }
        c
    }

    /// The design: ppi-python's superpopulation, weighted when the sample is, or the finite
    /// population.
    pub(crate) fn design(&self, finite: bool) -> Design<'_> {
        match (finite, &self.weights) {
            (false, None) => Design::Superpopulation {
                weights: None,
                unlabeled_weights: None,
            },
            (false, Some((w, wu))) => Design::Superpopulation {
                weights: Some(w),
                unlabeled_weights: Some(wu),
            },
            (true, None) => Design::Finite { inclusion: None },
            (true, Some(_)) => Design::Finite {
                inclusion: Some(&self.labelled_probability),
            },
        }
    }
}

/// What every prediction-powered figure assumes, in sentences; shared by `estimate` and
/// `scores --predictor`.
pub(crate) fn assumptions(
    grounds: &Grounds,
    finite: bool,
    predictor_missing: usize,
    predictor: &str,
) -> Vec<String> {
    let population = thousands(grounds.population.len());
    let mut out = vec![if grounds.uniform {
        format!(
            "The labelled tasks are a simple random sample of the {population} tasks, drawn by `verity assign --sample` and recorded."
        )
    } else {
        format!(
            "The labelled tasks were drawn from the {population} tasks with recorded, unequal probabilities (a draw by the predictor's uncertainty, or a draw after tasks were added); each task is weighted by the inverse of its probability."
        )
    }];
    out.push(if finite {
        format!(
            "The estimate is of these {population} tasks themselves (the finite-population correction): the labelled tasks' own labels are known, and only the rest is estimated."
        )
    } else {
        "The tasks are taken as draws from a larger population of tasks like them, as ppi-python takes them (`verity estimate --finite` estimates these tasks' own figure instead, with a narrower interval).".into()
    });
    out.push("A mean's interval is a normal approximation, as ppi-python's is; a ratio's (a determinate-only rate, a difference of two) and every finite-population interval take Student's t with n − 1 degrees of freedom instead, having no reference to follow. Each holds its level for large samples, and with few labelled tasks of the rarer value covers less (the simulation in the README gives the figures).".into());
    let waiting = grounds.incomplete + grounds.undecided;
    if waiting > 0 {
        out.push(format!(
            "{} of the {} sampled tasks are not labelled yet ({} incomplete, {} complete without a label by the rule): the intervals take them as missing at random, unrelated to their labels.",
            thousands(waiting),
            thousands(grounds.sampled),
            thousands(grounds.incomplete),
            thousands(grounds.undecided)
        ));
    }
    if predictor_missing > 0 {
        out.push(format!(
            "{} tasks have no value of {predictor} and are given its mean over the others: the predictor stays fixed, so the estimate stays unbiased, and only its width suffers.",
            thousands(predictor_missing)
        ));
    }
    if grounds.outside > 0 {
        out.push(format!(
            "{} tasks with materials were added after the last draw: no draw offered them, so they are outside the population estimated (a new draw offers them).",
            thousands(grounds.outside)
        ));
    }
    out.push("The humans-alone figures use the humans' labels only; the model raters' answers enter the predictor and nothing else.".into());
    out
}

/// The label of fewer than this many labelled tasks (of either value, for a share) makes the
/// large-sample approximation rough.
const FEW_OF_A_VALUE: usize = 20;

/// Estimates the mean of `req.label` over the sampled population from the panel's labels on the
/// recorded random sample and `req.predictor` on every task: PPI++ (or PPI at a fixed λ) beside
/// the humans alone, with their intervals, the effective sample size and, with a target
/// half-width, how many more labelled tasks reach it. A coordinator function. Refused when the
/// humans' tasks are not a recorded random sample or fewer than 10 of its tasks are complete.
pub fn estimate(project: &Project, req: &EstimateRequest) -> Result<Estimate> {
    project.require_coordinator("reads every rater's answers")?;
    check_request(req)?;
    let rule = LabelRule::parse(project, &req.label)?;
    let predictor = Predictor::parse(&req.predictor)?;
    let grounds = grounds(project, &rule)?;
    let values = predictions(project, &predictor, &rule, &grounds.panel, &grounds.models)?;
    let (on_population, predictor_missing) =
        predictor_on_population(&grounds, &values, &predictor)?;
    let columns = Columns::split(&grounds, &on_population);
    let sample = Sample {
        labels: &columns.labels,
        predictions: &columns.predictions,
        unlabeled: &columns.unlabeled,
        design: columns.design(req.finite),
    };
    let lambda = req.lambda.map_or(Lambda::Estimated, Lambda::Fixed);
    let ppi = sample.mean(lambda, req.alpha).map_err(stats_error)?;
    let classical = sample.classical(req.alpha).map_err(stats_error)?;
    let n = columns.labels.len();
    let effective_n = if ppi.se > 0.0 {
        n as f64 * (classical.se * classical.se) / (ppi.se * ppi.se)
    } else {
        grounds.population.len() as f64
    };
    let target = match req.target_halfwidth {
        None => None,
        Some(h) => {
            let more = |l: f64| -> Result<Option<usize>> {
                Ok(sample
                    .labels_for_halfwidth(l, req.alpha, h)
                    .map_err(stats_error)?
                    .map(|m| m - n))
            };
            Some(Target {
                halfwidth: h,
                more_tasks: more(ppi.lambda)?,
                more_tasks_classical: more(0.0)?,
            })
        }
    };
    let mut warnings = Vec::new();
    if rule.is_share() {
        let ones = columns.labels.iter().filter(|y| **y >= 0.5).count();
        let fewest = ones.min(n - ones);
        if fewest < FEW_OF_A_VALUE {
            warnings.push(format!(
                "only {fewest} of the {n} labelled tasks have the rarer value: the large-sample approximation is rough here, and such intervals covered less than their level in the simulation (92–94% for 95% at 100 tasks with a 15% share); sample more tasks"
            ));
        }
    }
    if ppi.lambda == 0.0 && req.lambda.is_none() {
        warnings.push(format!(
            "{} follows the labels no better than chance on the labelled tasks (λ = 0): the estimate is the humans' alone",
            predictor.name()
        ));
    }
    Ok(Estimate {
        label: rule.name(),
        predictor: predictor.name(),
        n_labeled: n,
        n_unlabeled: columns.unlabeled.len(),
        lambda: ppi.lambda,
        estimate: ppi.estimate,
        ci: [ppi.ci.0, ppi.ci.1],
        classical_estimate: classical.estimate,
        classical_ci: [classical.ci.0, classical.ci.1],
        effective_n,
        sampling: if grounds.uniform {
            Sampling::Uniform
        } else {
            Sampling::Weighted
        },
        alpha: req.alpha,
        finite: req.finite,
        share: rule.is_share(),
        se: ppi.se,
        classical_se: classical.se,
        population: grounds.population.len(),
        sampled: grounds.sampled,
        incomplete: grounds.incomplete,
        undecided: grounds.undecided,
        outside: grounds.outside,
        predictor_missing,
        draws: grounds.draws.iter().map(DrawSummary::from).collect(),
        target,
        assumes: assumptions(&grounds, req.finite, predictor_missing, &predictor.name()),
        warnings,
    })
}
