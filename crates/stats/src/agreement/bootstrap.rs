//! Percentile bootstrap confidence intervals, resampling units with replacement.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::alpha::{alpha_eval, alpha_values};
use super::multi::{Chance, agreement_weights, fleiss_eval, gwet_eval};
use super::pairwise::{cohen_from_confusion, pair_confusion, percent_eval};
use super::profile::Profiles;
use super::{AgreementError, Method, RatingTable, Undefined, Weights};

/// How to bootstrap: how many resamples, from which seed, at which confidence level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BootstrapOptions {
    /// Number of resamples.
    pub resamples: usize,
    /// Seed of the ChaCha8 generator; the same seed and table give the same interval.
    pub seed: u64,
    /// Two-sided confidence level, strictly between 0 and 1 (0.95 for a 95% interval).
    pub confidence: f64,
}

impl Default for BootstrapOptions {
    fn default() -> Self {
        BootstrapOptions {
            resamples: 1000,
            seed: 0,
            confidence: 0.95,
        }
    }
}

impl BootstrapOptions {
    pub(crate) fn validate(&self) -> Result<(), AgreementError> {
        if self.resamples == 0 {
            return Err(AgreementError::NoResamples {
                resamples: self.resamples,
            });
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(AgreementError::ConfidenceLevel {
                level: self.confidence,
            });
        }
        Ok(())
    }
}

/// A percentile interval and how many resamples it rests on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceInterval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Resamples on which the coefficient was defined (the interval uses only those).
    pub defined: usize,
}

/// A coefficient to bootstrap together with others on the same resamples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Statistic {
    Percent,
    Cohen {
        a: usize,
        b: usize,
        weights: Weights,
    },
    Fleiss,
    FleissAllUnits,
    Alpha(super::Level),
    Gwet(Weights),
}

impl Statistic {
    fn from_method(method: Method, pair: Option<(usize, usize)>) -> Option<Self> {
        Some(match method {
            Method::PercentAgreement => Statistic::Percent,
            Method::CohenKappa(weights) => {
                let (a, b) = pair?;
                Statistic::Cohen { a, b, weights }
            }
            Method::FleissKappa => Statistic::Fleiss,
            Method::FleissKappaAllUnits => Statistic::FleissAllUnits,
            Method::KrippendorffAlpha(l) => Statistic::Alpha(l),
            Method::GwetAc(w) => Statistic::Gwet(w),
        })
    }
}

/// Percentile bootstrap interval of one coefficient: resample the table's rated units with
/// replacement `options.resamples` times (ChaCha8 seeded with `options.seed`, indices drawn
/// without modulo bias), recompute the coefficient on each resample, and take the
/// `(1 − confidence)/2` and `(1 + confidence)/2` quantiles (linear interpolation between order
/// statistics, numpy's default). Resamples on which the coefficient is undefined are left out;
/// the interval is undefined when none is left. `pair` names the raters for Cohen's kappa and
/// is ignored otherwise.
pub fn bootstrap_ci(
    table: &RatingTable,
    method: Method,
    pair: Option<(usize, usize)>,
    options: &BootstrapOptions,
) -> Result<Result<ConfidenceInterval, Undefined>, AgreementError> {
    let stat = match Statistic::from_method(method, pair) {
        Some(s) => s,
        None => return Err(AgreementError::PairRequired),
    };
    if let Statistic::Cohen { a, b, .. } = stat {
        table.check_rater(a)?;
        table.check_rater(b)?;
        if a == b {
            return Err(AgreementError::SameRater { index: a });
        }
    }
    let mut out = bootstrap_many(table, &[stat], options)?;
    Ok(out
        .pop()
        .unwrap_or_else(|| Err(Undefined::new("nothing was bootstrapped"))))
}

/// Bootstraps several statistics on the same resamples.
pub(crate) fn bootstrap_many(
    table: &RatingTable,
    stats: &[Statistic],
    options: &BootstrapOptions,
) -> Result<Vec<Result<ConfidenceInterval, Undefined>>, AgreementError> {
    options.validate()?;
    let profiles = Profiles::new(table);
    let q = table.categories().len();
    let n_units = profiles.units();
    if n_units == 0 {
        return Ok(stats
            .iter()
            .map(|_| Err(Undefined::new("the table has no rated unit to resample")))
            .collect());
    }
    let identity = agreement_weights(table, Weights::Unweighted);
    let gwet_weights: Vec<(Weights, Vec<f64>)> =
        [Weights::Unweighted, Weights::Linear, Weights::Quadratic]
            .into_iter()
            .map(|w| (w, agreement_weights(table, w)))
            .collect();
    let alpha_x: Vec<(super::Level, Result<Vec<f64>, Undefined>)> = [
        super::Level::Nominal,
        super::Level::Ordinal,
        super::Level::Interval,
        super::Level::Ratio,
    ]
    .into_iter()
    .map(|l| (l, alpha_values(table, l)))
    .collect();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for s in stats {
        if let Statistic::Cohen { a, b, .. } = *s
            && !pairs.contains(&(a, b))
        {
            pairs.push((a, b));
        }
    }
    let mut confusions = vec![vec![0.0; q * q]; pairs.len()];
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(options.resamples); stats.len()];
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut w = vec![0.0; profiles.len()];
    for _ in 0..options.resamples {
        w.iter_mut().for_each(|x| *x = 0.0);
        for _ in 0..n_units {
            let u = draw_index(&mut rng, n_units as u64) as usize;
            w[profiles.unit_profile[u] as usize] += 1.0;
        }
        for (k, &(a, b)) in pairs.iter().enumerate() {
            pair_confusion(&profiles, &w, a, b, &mut confusions[k]);
        }
        for (s, out) in stats.iter().zip(samples.iter_mut()) {
            let value = match *s {
                Statistic::Percent => percent_eval(&profiles, &w).1,
                Statistic::Cohen { a, b, weights } => {
                    let k = pairs.iter().position(|&p| p == (a, b)).unwrap_or(0);
                    cohen_from_confusion(&confusions[k], q, weights)
                }
                Statistic::Fleiss => fleiss_eval(&profiles, &w).1,
                Statistic::FleissAllUnits => gwet_eval(&profiles, &w, &identity, Chance::Fleiss).1,
                Statistic::Alpha(level) => match alpha_x.iter().find(|(l, _)| *l == level) {
                    Some((_, Ok(x))) => alpha_eval(&profiles, &w, level, x).1,
                    _ => continue,
                },
                Statistic::Gwet(weights) => {
                    match gwet_weights.iter().find(|(x, _)| *x == weights) {
                        Some((_, m)) => gwet_eval(&profiles, &w, m, Chance::Gwet).1,
                        None => continue,
                    }
                }
            };
            if let Ok(v) = value {
                out.push(v);
            }
        }
    }
    Ok(samples
        .into_iter()
        .map(|s| percentile_interval(s, options.confidence))
        .collect())
}

fn percentile_interval(
    mut values: Vec<f64>,
    confidence: f64,
) -> Result<ConfidenceInterval, Undefined> {
    if values.is_empty() {
        return Err(Undefined::new(
            "the coefficient was undefined on every bootstrap resample",
        ));
    }
    values.sort_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    Ok(ConfidenceInterval {
        low: quantile(&values, tail),
        high: quantile(&values, 1.0 - tail),
        defined: values.len(),
    })
}

/// Quantile of sorted values, interpolating linearly between order statistics (numpy's
/// default, Hyndman and Fan's type 7).
pub(crate) fn quantile(sorted: &[f64], p: f64) -> f64 {
    let pos = p * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// A uniform index in `0..n` (n ≥ 1): Lemire's multiply-and-reject method, so the draw has no
/// modulo bias and depends only on the generator's output, not on the platform.
pub(crate) fn draw_index(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let m = u128::from(rng.next_u64()) * u128::from(n);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert!((quantile(&v, 0.025) - 1.075).abs() < 1e-12);
    }

    #[test]
    fn drawn_indices_stay_in_range_and_cover_it() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let i = draw_index(&mut rng, 5) as usize;
            seen[i] = true;
        }
        assert!(
            seen.iter().all(|&s| s),
            "every index of 0..5 is drawn in 1000 draws"
        );
    }
}
