//! Krippendorff's alpha with missing data, for the four standard metrics.

use super::pairwise::NO_PAIRABLE_UNIT;
use super::profile::Profiles;
use super::{Coefficient, Level, Method, RatingTable, Undefined};

/// Krippendorff's alpha with the distance metric of `metric`.
///
/// From the coincidence matrix `o_ck = Σ_u (number of ordered pairs of ratings (c, k) on unit
/// u) / (m_u − 1)` over the units with `m_u ≥ 2` ratings, with marginals `n_c` and `n = Σ n_c`:
/// `α = 1 − (n − 1) Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck`. The metrics: nominal `[c ≠ k]`;
/// ordinal Krippendorff's rank metric `(Σ_{g=c..k} n_g − (n_c + n_k)/2)²` on the categories'
/// positions in the declared scale, which depends on the marginal frequencies (it is not
/// `|c − k|`); interval `(x_c − x_k)²`; ratio `((x_c − x_k)/(x_c + x_k))²` (0 when both are 0),
/// `x` being the categories' numeric values. Missing ratings: a unit contributes the pairs of
/// the ratings it has; units with fewer than two ratings contribute nothing. Undefined when no
/// unit has two ratings, when the expected disagreement is zero (every pairable rating has the
/// same value), or for the interval and ratio metrics on categories without numbers.
/// Reference: Krippendorff (2011), *Computing Krippendorff's Alpha-Reliability*; the
/// `krippendorff` Python package's `alpha(reliability_data, value_domain=scale,
/// level_of_measurement=...)`.
pub fn krippendorff_alpha(table: &RatingTable, metric: Level) -> Coefficient {
    let p = Profiles::new(table);
    let (units, estimate) = match alpha_values(table, metric) {
        Ok(x) => alpha_eval(&p, &p.multiplicity, metric, &x),
        Err(u) => (0.0, Err(u)),
    };
    Coefficient {
        method: Method::KrippendorffAlpha(metric),
        units: units as usize,
        raters: table.raters().len(),
        estimate,
    }
}

/// The numbers the metric measures distances between: numeric values for interval and ratio,
/// positions otherwise (unused by the nominal and ordinal metrics, which work on indices).
pub(crate) fn alpha_values(table: &RatingTable, metric: Level) -> Result<Vec<f64>, Undefined> {
    let cats = table.categories();
    match metric {
        Level::Nominal | Level::Ordinal => Ok((0..cats.len()).map(|i| i as f64).collect()),
        Level::Interval | Level::Ratio => cats
            .iter()
            .map(|c| {
                c.value.ok_or_else(|| {
                    Undefined::new(format!(
                        "the {metric} metric needs a number for every category, and category '{}' has none",
                        c.label
                    ))
                })
            })
            .collect(),
    }
}

pub(crate) fn alpha_eval(
    p: &Profiles,
    w: &[f64],
    metric: Level,
    x: &[f64],
) -> (f64, Result<f64, Undefined>) {
    let q = p.n_categories;
    let mut marginal = vec![0.0; q];
    let mut units = 0.0;
    for i in 0..p.len() {
        if p.rated[i] < 2 || w[i] == 0.0 {
            continue;
        }
        units += w[i];
        for &(c, n) in p.counts(i) {
            marginal[c as usize] += w[i] * n as f64;
        }
    }
    if units == 0.0 {
        return (0.0, Err(Undefined::new(NO_PAIRABLE_UNIT)));
    }
    let n: f64 = marginal.iter().sum();
    // Ordinal distances are interval distances between mid-rank positions:
    // Σ_{g=c..k} n_g − (n_c + n_k)/2 = pos_k − pos_c with pos_c = N_{c−1} + n_c / 2.
    let ordinal_pos: Vec<f64>;
    let coords: &[f64] = match metric {
        Level::Ordinal => {
            let mut cumulative = 0.0;
            ordinal_pos = marginal
                .iter()
                .map(|&m| {
                    let pos = cumulative + m / 2.0;
                    cumulative += m;
                    pos
                })
                .collect();
            &ordinal_pos
        }
        _ => x,
    };
    let delta = |c: usize, k: usize| -> f64 {
        match metric {
            Level::Nominal => f64::from(u8::from(c != k)),
            Level::Ordinal | Level::Interval => {
                let d = coords[c] - coords[k];
                d * d
            }
            Level::Ratio => {
                let s = coords[c] + coords[k];
                if s == 0.0 {
                    0.0
                } else {
                    let d = (coords[c] - coords[k]) / s;
                    d * d
                }
            }
        }
    };
    let expected = match metric {
        Level::Nominal => n * n - marginal.iter().map(|m| m * m).sum::<f64>(),
        Level::Ordinal | Level::Interval => {
            let mean = marginal.iter().zip(coords).map(|(m, c)| m * c).sum::<f64>() / n;
            2.0 * n
                * marginal
                    .iter()
                    .zip(coords)
                    .map(|(m, c)| m * (c - mean) * (c - mean))
                    .sum::<f64>()
        }
        Level::Ratio => {
            let used: Vec<usize> = (0..q).filter(|&c| marginal[c] > 0.0).collect();
            let mut s = 0.0;
            for (i, &c) in used.iter().enumerate() {
                for &k in &used[i + 1..] {
                    s += 2.0 * marginal[c] * marginal[k] * delta(c, k);
                }
            }
            s
        }
    };
    if expected <= 0.0 {
        return (
            units,
            Err(Undefined::new(
                "every pairable rating has the same value, so the expected disagreement is zero",
            )),
        );
    }
    let mut observed = 0.0;
    for i in 0..p.len() {
        if p.rated[i] < 2 || w[i] == 0.0 {
            continue;
        }
        let m = p.rated[i] as f64;
        let counts = p.counts(i);
        let s = match metric {
            Level::Nominal => {
                m * m
                    - counts
                        .iter()
                        .map(|&(_, n)| (n as f64) * (n as f64))
                        .sum::<f64>()
            }
            _ => {
                let mut s = 0.0;
                for (j, &(c, nc)) in counts.iter().enumerate() {
                    for &(k, nk) in &counts[j + 1..] {
                        s += 2.0 * nc as f64 * nk as f64 * delta(c as usize, k as usize);
                    }
                }
                s
            }
        };
        observed += w[i] * s / (m - 1.0);
    }
    (units, Ok(1.0 - (n - 1.0) * observed / expected))
}
