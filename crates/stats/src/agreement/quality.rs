//! One rater's quality: against a reference label set (accuracy, weighted kappa, signed bias
//! with a bootstrap interval, the confusion matrix, drift over blocks of calibration tasks), and
//! against the rest of the panel (Krippendorff's alpha without the rater, weighted kappa against
//! the consensus of the others).
//!
//! Figures that scale with a panel of many raters who each share few tasks: every figure here
//! compares one rater with a pooled counterpart, never with one other rater.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use serde::{Deserialize, Serialize};

use super::alpha::{Coincidences, alpha_values};
use super::bootstrap::{draw_index, quantile};
use super::pairwise::cohen_from_confusion;
use super::{
    AgreementError, BootstrapOptions, Category, Level, RatingTable, Undefined, Weights,
    krippendorff_alpha,
};

/// Calibration tasks per drift block.
pub const DRIFT_BLOCK: usize = 20;

/// The kappa weights a level calls for: linear on ordered scales, none on a nominal one.
pub fn weights_for(level: Level) -> Weights {
    match level {
        Level::Nominal => Weights::Unweighted,
        _ => Weights::Linear,
    }
}

/// A mean with its bootstrap interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bias {
    /// The mean of (rater − reference), in the scale's values (its positions when the
    /// categories carry no number).
    pub mean: Result<f64, Undefined>,
    /// The percentile bootstrap interval of the mean.
    pub ci95: Result<[f64; 2], Undefined>,
}

/// Accuracy, kappa and bias on some of a rater's pairs with the reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceFigures {
    /// Tasks with both the rater's and the reference's label.
    pub units: usize,
    /// The share of those where they are equal.
    pub accuracy: Result<f64, Undefined>,
    /// Cohen's kappa of rater against reference, linearly weighted on ordered scales.
    pub weighted_kappa: Result<f64, Undefined>,
    /// The signed bias.
    pub bias: Bias,
}

/// A rater against a reference label set on one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgainstReference {
    /// Over every task.
    pub overall: ReferenceFigures,
    /// `confusion[i][j]`: tasks where the rater chose category `i` and the reference `j`.
    pub confusion: Vec<Vec<u64>>,
    /// The same figures over successive blocks of [`DRIFT_BLOCK`] tasks in the order the rater
    /// answered them (the last block may be shorter).
    pub drift: Vec<ReferenceFigures>,
}

/// A category's number for differences: its value, else its position in the scale.
fn numeric(categories: &[Category], index: u32) -> f64 {
    categories
        .get(index as usize)
        .and_then(|c| c.value)
        .unwrap_or(f64::from(index))
}

/// A rater against the reference: `pairs` holds (rater's category, reference's category), in
/// the order the rater answered.
pub fn against_reference(
    pairs: &[(u32, u32)],
    categories: &[Category],
    level: Level,
    options: &BootstrapOptions,
) -> Result<AgainstReference, AgreementError> {
    options.validate()?;
    let q = categories.len();
    let mut confusion = vec![vec![0u64; q]; q];
    for &(r, x) in pairs {
        if let Some(cell) = confusion
            .get_mut(r as usize)
            .and_then(|row| row.get_mut(x as usize))
        {
            *cell += 1;
        }
    }
    Ok(AgainstReference {
        overall: figures(pairs, categories, level, options),
        confusion,
        drift: pairs
            .chunks(DRIFT_BLOCK)
            .map(|block| figures(block, categories, level, options))
            .collect(),
    })
}

fn figures(
    pairs: &[(u32, u32)],
    categories: &[Category],
    level: Level,
    options: &BootstrapOptions,
) -> ReferenceFigures {
    let q = categories.len();
    let n = pairs.len();
    let none = || Undefined::new("the rater and the reference share no task");
    let accuracy = if n == 0 {
        Err(none())
    } else {
        Ok(pairs.iter().filter(|(r, x)| r == x).count() as f64 / n as f64)
    };
    let mut conf = vec![0.0; q * q];
    for &(r, x) in pairs {
        if (r as usize) < q && (x as usize) < q {
            conf[r as usize * q + x as usize] += 1.0;
        }
    }
    let weighted_kappa = if n == 0 {
        Err(none())
    } else {
        cohen_from_confusion(&conf, q, weights_for(level))
    };
    ReferenceFigures {
        units: n,
        accuracy,
        weighted_kappa,
        bias: bias(pairs, categories, level, options),
    }
}

fn bias(
    pairs: &[(u32, u32)],
    categories: &[Category],
    level: Level,
    options: &BootstrapOptions,
) -> Bias {
    let undefined = |reason: &str| Bias {
        mean: Err(Undefined::new(reason)),
        ci95: Err(Undefined::new(reason)),
    };
    if level == Level::Nominal {
        return undefined("the scale is nominal: a difference between categories has no sign");
    }
    if pairs.is_empty() {
        return undefined("the rater and the reference share no task");
    }
    let diffs: Vec<f64> = pairs
        .iter()
        .map(|&(r, x)| numeric(categories, r) - numeric(categories, x))
        .collect();
    let mean = diffs.iter().sum::<f64>() / diffs.len() as f64;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let n = diffs.len() as u64;
    let mut means: Vec<f64> = (0..options.resamples)
        .map(|_| {
            let sum: f64 = (0..n)
                .map(|_| diffs[draw_index(&mut rng, n) as usize])
                .sum();
            sum / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let tail = (1.0 - options.confidence) / 2.0;
    Bias {
        mean: Ok(mean),
        ci95: Ok([quantile(&means, tail), quantile(&means, 1.0 - tail)]),
    }
}

/// A rater against the rest of the panel on one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgainstPanel {
    /// The rater.
    pub rater: String,
    /// Krippendorff's alpha of the panel without this rater.
    pub alpha_without: Result<f64, Undefined>,
    /// Tasks this rater shares with at least one other rater.
    pub shared_units: usize,
    /// Cohen's kappa (linear on ordered scales) of this rater against the consensus of the
    /// other raters on the same tasks: their median on ordered scales, their most frequent
    /// category on a nominal one (ties to the lower category).
    pub kappa_vs_consensus: Result<f64, Undefined>,
}

/// The panel's alpha, and each rater against the rest of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PanelLeaveOneOut {
    /// Krippendorff's alpha of the whole panel, at the table's level.
    pub alpha: Result<f64, Undefined>,
    /// Per rater, in the table's order.
    pub raters: Vec<AgainstPanel>,
}

/// Krippendorff's alpha with and without each rater, and each rater's weighted kappa against
/// the leave-one-out consensus of the others.
///
/// Alpha without a rater is the alpha of the table with that rater's column removed. It is
/// computed from the whole table's coincidence sums, by taking out and putting back only the
/// units that rater rated, so a panel of many raters costs a pass over the ratings rather than a
/// new table per rater.
pub fn leave_one_out(table: &RatingTable) -> Result<PanelLeaveOneOut, AgreementError> {
    let level = table.level();
    let raters = table.raters();
    let q = table.categories().len();
    let n_units = table.units().len();
    // Each unit's ratings as (rater, category), and each rater's units, in table order.
    let mut ratings: Vec<Vec<(usize, u32)>> = Vec::with_capacity(n_units);
    let mut rated_by: Vec<Vec<usize>> = vec![Vec::new(); raters.len()];
    for u in 0..n_units {
        let row: Vec<(usize, u32)> = table
            .row(u)
            .iter()
            .enumerate()
            .filter_map(|(r, c)| c.map(|c| (r, c)))
            .collect();
        for &(r, _) in &row {
            rated_by[r].push(u);
        }
        ratings.push(row);
    }
    let counts_of = |u: usize| -> Vec<i64> {
        let mut counts = vec![0i64; q];
        for &(_, c) in &ratings[u] {
            if let Some(n) = counts.get_mut(c as usize) {
                *n += 1;
            }
        }
        counts
    };
    let values = alpha_values(table, level);
    let mut whole = Coincidences::new(q);
    for u in 0..n_units {
        whole.add_unit(&counts_of(u), 1);
    }
    let mut out = Vec::with_capacity(raters.len());
    for (r, name) in raters.iter().enumerate() {
        let mut without = whole.clone();
        let mut conf = vec![0.0; q * q];
        let mut shared = 0;
        for &u in &rated_by[r] {
            let mut counts = counts_of(u);
            without.add_unit(&counts, -1);
            let mut own = None;
            let mut rest = Vec::with_capacity(ratings[u].len());
            for &(rater, c) in &ratings[u] {
                if rater == r {
                    own = Some(c);
                } else {
                    rest.push(c);
                }
            }
            if let Some(c) = own
                && let Some(n) = counts.get_mut(c as usize)
            {
                *n -= 1;
            }
            without.add_unit(&counts, 1);
            let Some(own) = own else { continue };
            if rest.is_empty() {
                continue;
            }
            let consensus = consensus(&mut rest, level, q);
            conf[own as usize * q + consensus as usize] += 1.0;
            shared += 1;
        }
        out.push(AgainstPanel {
            rater: name.clone(),
            alpha_without: values.clone().and_then(|x| without.alpha(level, &x)),
            shared_units: shared,
            kappa_vs_consensus: if shared == 0 {
                Err(Undefined::new(
                    "the rater shares no task with another rater",
                ))
            } else {
                cohen_from_confusion(&conf, q, weights_for(level))
            },
        });
    }
    Ok(PanelLeaveOneOut {
        alpha: krippendorff_alpha(table, level).estimate,
        raters: out,
    })
}

/// The others' consensus: the lower median on ordered scales, the most frequent category (the
/// lower on a tie) on a nominal one.
pub(crate) fn consensus(values: &mut [u32], level: Level, categories: usize) -> u32 {
    if level == Level::Nominal {
        let mut counts = vec![0usize; categories];
        for &v in values.iter() {
            if let Some(c) = counts.get_mut(v as usize) {
                *c += 1;
            }
        }
        let best = counts.iter().copied().max().unwrap_or(0);
        return counts.iter().position(|&c| c == best).unwrap_or(0) as u32;
    }
    values.sort_unstable();
    values[(values.len() - 1) / 2]
}

/// Active time on submitted tasks, and the submissions much faster than usual.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pace {
    /// The rater's median active seconds per submitted task.
    pub median_active_seconds: Result<f64, Undefined>,
    /// Tasks submitted in under [`FAST_SHARE_OF_PANEL`] of the panel's median and under
    /// [`FAST_SHARE_OF_OWN`] of the rater's own.
    pub fast_submissions: Vec<String>,
}

/// A submission faster than this share of the panel's median active time is fast...
pub const FAST_SHARE_OF_PANEL: f64 = 0.25;
/// ...when it is also faster than this share of the rater's own median.
pub const FAST_SHARE_OF_OWN: f64 = 0.5;

/// The median of some numbers (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    })
}

/// Each rater's pace: `times` holds, per rater, (task, active seconds) of their submissions.
pub fn pace(times: &[(String, Vec<(String, f64)>)]) -> Vec<(String, Pace)> {
    let all: Vec<f64> = times
        .iter()
        .flat_map(|(_, t)| t.iter().map(|(_, s)| *s))
        .collect();
    let panel = median(&all);
    times
        .iter()
        .map(|(rater, tasks)| {
            let own: Vec<f64> = tasks.iter().map(|(_, s)| *s).collect();
            let own_median = median(&own);
            let fast = match (panel, own_median) {
                (Some(p), Some(o)) => tasks
                    .iter()
                    .filter(|(_, s)| *s < FAST_SHARE_OF_PANEL * p && *s < FAST_SHARE_OF_OWN * o)
                    .map(|(task, _)| task.clone())
                    .collect(),
                _ => Vec::new(),
            };
            (
                rater.clone(),
                Pace {
                    median_active_seconds: own_median.ok_or_else(|| {
                        Undefined::new("no active time is recorded on the rater's submitted tasks")
                    }),
                    fast_submissions: fast,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(rater: &str, seconds: &[f64]) -> (String, Vec<(String, f64)>) {
        (
            rater.to_string(),
            seconds
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("{rater}-{i}"), *s))
                .collect(),
        )
    }

    /// A panel of `raters` raters of whom each unit has 0 to 4 ratings, on a scale of numbered
    /// categories (0 and positive, so the ratio metric applies too).
    fn random_panel(seed: u64, raters: usize, level: Level) -> RatingTable {
        use rand_chacha::rand_core::Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let q = 2 + (rng.next_u32() % 4) as usize;
        let units = 5 + (rng.next_u32() % 60) as usize;
        let mut cells = vec![None; units * raters];
        for u in 0..units {
            let truth = rng.next_u32() % q as u32;
            for _ in 0..rng.next_u32() % 5 {
                let r = (rng.next_u32() as usize) % raters;
                let noise = rng.next_u32() % 3;
                let c = (truth + noise).saturating_sub(1).min(q as u32 - 1);
                cells[u * raters + r] = Some(c);
            }
        }
        RatingTable::new(
            (0..units).map(|u| format!("u{u}")).collect(),
            (0..raters).map(|r| format!("r{r}")).collect(),
            (0..q).map(|c| Category::number(c as f64 * 1.5)).collect(),
            level,
            cells,
        )
        .expect("a well-formed table")
    }

    /// The direct computation: the table without the rater's column.
    fn without(table: &RatingTable, rater: usize) -> RatingTable {
        let r = table.raters().len();
        RatingTable::new(
            table.units().to_vec(),
            (0..r)
                .filter(|&i| i != rater)
                .map(|i| table.raters()[i].clone())
                .collect(),
            table.categories().to_vec(),
            table.level(),
            (0..table.units().len())
                .flat_map(|u| (0..r).filter(|&i| i != rater).map(move |i| (u, i)))
                .map(|(u, i)| table.rating(u, i))
                .collect(),
        )
        .expect("a well-formed table")
    }

    #[test]
    fn alpha_without_a_rater_equals_alpha_of_the_table_without_that_rater() {
        let mut compared = 0;
        for seed in 0..60 {
            for level in [
                Level::Nominal,
                Level::Ordinal,
                Level::Interval,
                Level::Ratio,
            ] {
                let table = random_panel(seed, 2 + seed as usize % 9, level);
                let loo = leave_one_out(&table).expect("a valid table");
                for (r, got) in loo.raters.iter().enumerate() {
                    let direct = krippendorff_alpha(&without(&table, r), level).estimate;
                    match (&got.alpha_without, &direct) {
                        (Ok(a), Ok(b)) => {
                            assert!(
                                (a - b).abs() < 1e-12,
                                "seed {seed}, {level}, rater {r}: {a} incrementally, {b} directly"
                            );
                            compared += 1;
                        }
                        (a, b) => assert_eq!(a, b, "seed {seed}, {level}, rater {r}"),
                    }
                }
            }
        }
        assert!(
            compared > 500,
            "most panels have a defined alpha: {compared}"
        );
    }

    #[test]
    fn medians_take_the_middle_or_the_mean_of_the_middle_two() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn a_submission_is_fast_only_when_far_below_both_the_panel_and_the_rater() {
        // The panel's median is 600 s. Ana's 100 s is under a quarter of it and under half of
        // her own 500 s median; Bo is fast on every task, so none is fast for him.
        let paces = pace(&[
            times("ana", &[500.0, 600.0, 100.0, 500.0, 700.0]),
            times("bo", &[120.0, 130.0, 110.0]),
            times("cy", &[600.0, 650.0, 700.0, 800.0]),
        ]);
        assert_eq!(paces[0].1.fast_submissions, ["ana-2"]);
        assert!(paces[1].1.fast_submissions.is_empty());
        assert_eq!(paces[1].1.median_active_seconds, Ok(120.0));
        assert!(paces[2].1.fast_submissions.is_empty());
        let none = pace(&[times("dee", &[])]);
        assert!(none[0].1.median_active_seconds.is_err());
    }

    #[test]
    fn a_nominal_scale_has_no_bias_and_drift_comes_in_blocks() {
        let categories: Vec<Category> = ["a", "b"].iter().map(|l| Category::label(*l)).collect();
        let pairs: Vec<(u32, u32)> = (0..45).map(|i| (i % 2, 0)).collect();
        let out = against_reference(
            &pairs,
            &categories,
            Level::Nominal,
            &BootstrapOptions::default(),
        )
        .expect("valid options");
        assert!(out.overall.bias.mean.is_err());
        assert_eq!(
            out.drift.iter().map(|b| b.units).collect::<Vec<_>>(),
            [20, 20, 5]
        );
        assert_eq!(out.confusion, [[23, 0], [22, 0]]);
    }
}
