//! Scores from few humans (`verity scores --predictor P`): each system's determinate-only rate
//! as a ratio of two prediction-powered means, E[determinate and resolved] / E[determinate],
//! the panel's labels on the recorded random sample and the predictor on every task, beside
//! the rate over the labelled tasks alone; and each pair's difference the same way.
//!
//! The unlabelled tasks enter through sums (`verity_stats::ppi::PairSums`): a system's from one
//! pass over the population, a pair's from its systems' and one pass over the tasks both
//! resolved, so a hundred systems' 4,950 pairs cost little more than the systems.

use serde::Serialize;
use ts_rs::TS;

use super::pairs::Bits;
use crate::ops::ppi::{
    Columns, LabelRule, Predictor, Sampling, assumptions, grounds, predictions,
    predictor_on_population,
};
use crate::ops::{Error, ErrorCode, Project, Result};
use verity_stats::ppi::{Design, Lambda, PairSums, RatioEstimate, RatioParts, UnlabeledSums};

/// What the prediction-powered scores stand on.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ScoresPpi {
    /// The predictor, as named.
    pub predictor: String,
    /// Labelled tasks: drawn, complete, with a label.
    pub n_labeled: usize,
    /// The rest of the sampled population.
    pub n_unlabeled: usize,
    /// Tasks drawn.
    pub sampled: usize,
    /// How they were drawn.
    pub sampling: Sampling,
    /// The share of determinate tasks, prediction-powered (the rates' denominator).
    pub determinate_share: Option<f64>,
    /// Its 95% interval.
    pub determinate_share_ci: Option<[f64; 2]>,
    /// Tasks without a predictor value, given its mean over the others.
    pub predictor_missing: usize,
    /// What the intervals assume, in sentences.
    pub assumes: Vec<String>,
}

/// One system's prediction-powered rate and its labelled-only rate.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SystemPpi {
    pub(super) rate: Option<RatioEstimate>,
    pub(super) labeled: Option<RatioEstimate>,
}

/// The figures [`super::scores`] adds with a predictor.
pub(super) struct PpiScores {
    pub(super) summary: ScoresPpi,
    pub(super) systems: Vec<SystemPpi>,
    /// By (a, b) as `compare_pairs` lists them: the difference a − b and labelled-only.
    pub(super) pairs: std::collections::HashMap<(usize, usize), SystemPpi>,
}

fn refused(e: verity_stats::ppi::PpiError) -> Error {
    Error::refused(ErrorCode::BadInput, e.0)
}

/// Per-system sums over the unlabelled tasks of w f R, w² f R, w² f² R, f R and f² R.
#[derive(Clone, Copy, Default)]
struct SystemSums {
    wf: f64,
    w2f: f64,
    w2ff: f64,
    f: f64,
    ff: f64,
}

/// The prediction-powered rates of every system and every pair's differences, with
/// `predictor` on every task. `position` maps a case row id to its place in `resolved`'s bits.
pub(super) fn ppi_scores(
    project: &Project,
    predictor: &str,
    names: &[String],
    resolved: &[Bits],
    position: &std::collections::HashMap<i64, usize>,
) -> Result<PpiScores> {
    let rule = LabelRule::Determinate;
    if project.questionnaire.filter.is_none() {
        return Err(Error::refused(
            ErrorCode::QuestionnaireMismatch,
            format!(
                "questionnaire {} has no [filter] to say which tasks are determinate",
                project.questionnaire.id
            ),
        ));
    }
    let predictor = Predictor::parse(predictor)?;
    let grounds = grounds(project, &rule)?;
    let values = predictions(project, &predictor, &rule, &grounds.panel, &grounds.models)?;
    let (on_population, predictor_missing) =
        predictor_on_population(&grounds, &values, &predictor)?;
    let columns = Columns::split(&grounds, &on_population);
    // The unlabelled tasks' normalised weights, and each labelled and unlabelled task's place
    // in the systems' bits.
    let big_n = columns.unlabeled.len();
    let unlabeled_weights: Vec<f64> = match &columns.weights {
        None => vec![1.0; big_n],
        Some((_, wu)) => {
            let total: f64 = wu.iter().sum();
            wu.iter().map(|w| w / total * big_n as f64).collect()
        }
    };
    let (mut labelled_at, mut unlabelled_at) = (Vec::new(), Vec::new());
    for (case, _) in &grounds.population {
        let at = position.get(case).copied();
        if grounds.labels.contains_key(case) {
            labelled_at.push(at);
        } else {
            unlabelled_at.push(at);
        }
    }
    let f_u = &columns.unlabeled;
    let base = UnlabeledSums::of(f_u, Some(&unlabeled_weights));
    let design = Design::Superpopulation {
        weights: columns.weights.as_ref().map(|(w, _)| w.as_slice()),
        unlabeled_weights: None,
    };
    let held = |bits: &Bits, at: Option<usize>| at.is_some_and(|i| bits.get(i));

    // Each system's outcomes on the unlabelled tasks as bits in their order, and its sums.
    let mut on_unlabelled = Vec::with_capacity(resolved.len());
    let mut sums = Vec::with_capacity(resolved.len());
    for bits in resolved {
        let mut mine = Bits::new(big_n);
        let mut s = SystemSums::default();
        for (j, at) in unlabelled_at.iter().enumerate() {
            if held(bits, *at) {
                mine.set(j);
                let (f, w) = (f_u[j], unlabeled_weights[j]);
                s.wf += w * f;
                s.w2f += w * w * f;
                s.w2ff += w * w * f * f;
                s.f += f;
                s.ff += f * f;
            }
        }
        on_unlabelled.push(mine);
        sums.push(s);
    }
    let (w2ff_u, ff_u): (Vec<f64>, Vec<f64>) = (0..big_n)
        .map(|j| {
            let (f, w) = (f_u[j], unlabeled_weights[j]);
            (w * w * f * f, f * f)
        })
        .unzip();
    let outcome = |bits: &Bits| -> Vec<f64> {
        labelled_at
            .iter()
            .map(|at| if held(bits, *at) { 1.0 } else { 0.0 })
            .collect()
    };
    let labelled_outcomes: Vec<Vec<f64>> = resolved.iter().map(outcome).collect();
    let d = &columns.labels;
    let f = &columns.predictions;
    let ratio = |x: &[f64], u: UnlabeledSums, w2ab: f64, ab: f64| -> Result<SystemPpi> {
        let a: Vec<f64> = d.iter().zip(x).map(|(d, x)| d * x).collect();
        let a_hat: Vec<f64> = f.iter().zip(x).map(|(f, x)| f * x).collect();
        let parts = RatioParts {
            numerator_labels: &a,
            numerator_predictions: &a_hat,
            denominator_labels: d,
            denominator_predictions: f,
            unlabeled: PairSums {
                a: u,
                b: base,
                w2ab,
                ab,
            },
            design,
        };
        Ok(SystemPpi {
            rate: parts.ratio(Lambda::Estimated, 0.05).map_err(refused)?,
            labeled: parts.ratio(Lambda::Fixed(0.0), 0.05).map_err(refused)?,
        })
    };
    let unlabeled_of = |s: &SystemSums, w2ff: f64, ff: f64| UnlabeledSums {
        count: base.count,
        w2: base.w2,
        wf: s.wf,
        w2f: s.w2f,
        w2ff,
        f: s.f,
        ff,
    };
    let mut systems = Vec::with_capacity(resolved.len());
    for (x, s) in labelled_outcomes.iter().zip(&sums) {
        // a = f R: Σ w² f (f R) = Σ w² f² R, Σ f (f R) = Σ f² R.
        systems.push(ratio(x, unlabeled_of(s, s.w2ff, s.ff), s.w2ff, s.ff)?);
    }
    let mut pairs = std::collections::HashMap::new();
    for a in 0..names.len() {
        for b in a + 1..names.len() {
            // X = R_a − R_b; X² = R_a + R_b − 2 R_a R_b.
            let (mut w2ff_both, mut ff_both) = (0.0, 0.0);
            on_unlabelled[a].each_common(&on_unlabelled[b], &mut |j| {
                w2ff_both += w2ff_u[j];
                ff_both += ff_u[j];
            });
            let (sa, sb) = (&sums[a], &sums[b]);
            let difference = SystemSums {
                wf: sa.wf - sb.wf,
                w2f: sa.w2f - sb.w2f,
                w2ff: 0.0,
                f: sa.f - sb.f,
                ff: 0.0,
            };
            let u = unlabeled_of(
                &difference,
                sa.w2ff + sb.w2ff - 2.0 * w2ff_both,
                sa.ff + sb.ff - 2.0 * ff_both,
            );
            let x: Vec<f64> = labelled_outcomes[a]
                .iter()
                .zip(&labelled_outcomes[b])
                .map(|(ra, rb)| ra - rb)
                .collect();
            pairs.insert((a, b), ratio(&x, u, sa.w2ff - sb.w2ff, sa.ff - sb.ff)?);
        }
    }
    let share = verity_stats::ppi::Sample {
        labels: d,
        predictions: f,
        unlabeled: f_u,
        design: columns.design(false),
    }
    .mean(Lambda::Estimated, 0.05)
    .map_err(refused)?;
    Ok(PpiScores {
        summary: ScoresPpi {
            predictor: predictor.name(),
            n_labeled: d.len(),
            n_unlabeled: big_n,
            sampled: grounds.sampled,
            sampling: if grounds.uniform {
                Sampling::Uniform
            } else {
                Sampling::Weighted
            },
            determinate_share: Some(share.estimate),
            determinate_share_ci: Some([share.ci.0, share.ci.1]),
            predictor_missing,
            assumes: assumptions(&grounds, false, predictor_missing, &predictor.name()),
        },
        systems,
        pairs,
    })
}
