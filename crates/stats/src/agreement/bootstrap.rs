//! Percentile bootstrap confidence intervals, resampling units with replacement.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_distr::{Binomial, Distribution};
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
/// replacement `options.resamples` times (ChaCha8 seeded with `options.seed`; unit by unit,
/// indices drawn without modulo bias, or, for a table of at least 16 units per distinct row,
/// each distinct row's count at once, as the multinomial the unit draws add up to), recompute
/// the coefficient on each resample, and take the
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
    let by_profile = profiles.len() * PROFILE_DRAW_COST <= n_units;
    for _ in 0..options.resamples {
        if by_profile {
            profile_counts(&mut rng, &profiles.multiplicity, n_units as u64, &mut w);
        } else {
            w.iter_mut().for_each(|x| *x = 0.0);
            for _ in 0..n_units {
                let u = draw_index(&mut rng, n_units as u64) as usize;
                w[profiles.unit_profile[u] as usize] += 1.0;
            }
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

/// About how many unit draws one binomial draw costs: a table with this many units per
/// profile or more is resampled profile by profile.
const PROFILE_DRAW_COST: usize = 16;

/// The profiles' counts in one resample of `n` units drawn with replacement, into `w`: a
/// multinomial draw of `n` over the profiles' shares of the units (`multiplicity`), made as
/// successive binomials, each profile's count among the units the profiles before it left.
/// The same distribution as drawing unit by unit, in one draw per profile instead of one per
/// unit.
fn profile_counts(rng: &mut ChaCha8Rng, multiplicity: &[f64], n: u64, w: &mut [f64]) {
    let mut left = n;
    let mut mass: f64 = multiplicity.iter().sum();
    for (weight, &m) in w.iter_mut().zip(multiplicity) {
        // `mass` and `m` count units, exactly: the last profile takes what is left.
        let drawn = if m >= mass {
            left
        } else {
            Binomial::new(left, m / mass).map_or(0, |b| b.sample(rng))
        };
        *weight = drawn as f64;
        left -= drawn;
        mass -= m;
    }
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
    fn profile_counts_have_the_moments_of_drawing_unit_by_unit() {
        // Drawing n units with replacement gives profile i, holding a share p_i of them, a
        // count of mean n p_i, variance n p_i (1 − p_i) and covariance −n p_i p_j with j.
        let multiplicity = [500.0, 300.0, 150.0, 40.0, 10.0];
        let n = 1000_u64;
        let runs = 20_000;
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut w = [0.0; 5];
        let (mut sum, mut sq, mut cross) = ([0.0; 5], [0.0; 5], 0.0);
        for _ in 0..runs {
            profile_counts(&mut rng, &multiplicity, n, &mut w);
            assert_eq!(
                w.iter().sum::<f64>(),
                n as f64,
                "every unit is drawn once: {w:?}"
            );
            for i in 0..5 {
                sum[i] += w[i];
                sq[i] += w[i] * w[i];
            }
            cross += w[0] * w[1];
        }
        let runs = f64::from(runs);
        for i in 0..5 {
            let p = multiplicity[i] / n as f64;
            let (mean, var) = (n as f64 * p, n as f64 * p * (1.0 - p));
            let got_mean = sum[i] / runs;
            let got_var = sq[i] / runs - got_mean * got_mean;
            // Five standard errors of the mean; the variance within 5%.
            assert!(
                (got_mean - mean).abs() < 5.0 * (var / runs).sqrt(),
                "{i}: {got_mean}"
            );
            assert!(
                (got_var / var - 1.0).abs() < 0.05,
                "{i}: {got_var} against {var}"
            );
        }
        let got = cross / runs - (sum[0] / runs) * (sum[1] / runs);
        let want = -(n as f64) * 0.5 * 0.3;
        assert!((got / want - 1.0).abs() < 0.05, "{got} against {want}");
    }

    #[test]
    fn a_table_resampled_by_profile_or_by_unit_gives_alike_intervals() {
        // Units drawn one by one or profile counts drawn at once: the same distribution, so
        // intervals over many resamples agree to within their own Monte Carlo error.
        let mut cells = Vec::new();
        for u in 0..400_u32 {
            let a = u % 4;
            let b = if u % 5 == 0 { (a + 1) % 4 } else { a };
            let c = if u % 7 == 0 { (a + 2) % 4 } else { a };
            cells.extend([Some(a), Some(b), Some(c)]);
        }
        let table = RatingTable::new(
            (0..400).map(|u| format!("t{u}")).collect(),
            ["a", "b", "c"].map(String::from).to_vec(),
            (0..4)
                .map(|c| super::super::Category::number(f64::from(c)))
                .collect(),
            super::super::Level::Nominal,
            cells,
        )
        .expect("a table");
        let profiles = Profiles::new(&table);
        assert!(profiles.len() * PROFILE_DRAW_COST <= profiles.units());
        let options = BootstrapOptions {
            resamples: 4000,
            ..BootstrapOptions::default()
        };
        let stat = [Statistic::Alpha(super::super::Level::Nominal)];
        let by_profile = bootstrap_many(&table, &stat, &options).expect("bootstrapped");
        let by_unit = by_unit_interval(&table, &options);
        let by_profile = by_profile[0].as_ref().expect("an interval");
        assert!(
            (by_profile.low - by_unit.0).abs() < 0.01,
            "{by_profile:?} {by_unit:?}"
        );
        assert!(
            (by_profile.high - by_unit.1).abs() < 0.01,
            "{by_profile:?} {by_unit:?}"
        );
    }

    /// Alpha's interval with units drawn one by one, as a table of many profiles is resampled.
    fn by_unit_interval(table: &RatingTable, options: &BootstrapOptions) -> (f64, f64) {
        let profiles = Profiles::new(table);
        let level = super::super::Level::Nominal;
        let x = alpha_values(table, level).expect("values");
        let n = profiles.units();
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed + 1);
        let mut values = Vec::new();
        for _ in 0..options.resamples {
            let mut w = vec![0.0; profiles.len()];
            for _ in 0..n {
                w[profiles.unit_profile[draw_index(&mut rng, n as u64) as usize] as usize] += 1.0;
            }
            if let Ok(v) = alpha_eval(&profiles, &w, level, &x).1 {
                values.push(v);
            }
        }
        let ci = percentile_interval(values, options.confidence).expect("an interval");
        (ci.low, ci.high)
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
