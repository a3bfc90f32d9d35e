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
    let d = Distances::new(&marginal, metric, x);
    let expected = d.expected(&marginal);
    if expected <= 0.0 {
        return (units, Err(Undefined::new(NO_EXPECTED_DISAGREEMENT)));
    }
    let n: f64 = marginal.iter().sum();
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
                        s += 2.0 * nc as f64 * nk as f64 * d.delta(c as usize, k as usize);
                    }
                }
                s
            }
        };
        observed += w[i] * s / (m - 1.0);
    }
    (units, Ok(1.0 - (n - 1.0) * observed / expected))
}

const NO_EXPECTED_DISAGREEMENT: &str =
    "every pairable rating has the same value, so the expected disagreement is zero";

/// The distance metric's squared distances between categories, given the pairable values'
/// marginals (the ordinal metric depends on them).
struct Distances {
    metric: Level,
    coords: Vec<f64>,
}

impl Distances {
    fn new(marginal: &[f64], metric: Level, x: &[f64]) -> Self {
        // Ordinal distances are interval distances between mid-rank positions:
        // Σ_{g=c..k} n_g − (n_c + n_k)/2 = pos_k − pos_c with pos_c = N_{c−1} + n_c / 2.
        let coords = match metric {
            Level::Ordinal => {
                let mut cumulative = 0.0;
                marginal
                    .iter()
                    .map(|&m| {
                        let pos = cumulative + m / 2.0;
                        cumulative += m;
                        pos
                    })
                    .collect()
            }
            _ => x.to_vec(),
        };
        Distances { metric, coords }
    }

    fn delta(&self, c: usize, k: usize) -> f64 {
        let coords = &self.coords;
        match self.metric {
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
    }

    /// `Σ_ck n_c n_k δ²_ck`: the disagreement expected by chance, times `n`.
    fn expected(&self, marginal: &[f64]) -> f64 {
        let n: f64 = marginal.iter().sum();
        let coords = &self.coords;
        match self.metric {
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
                let used: Vec<usize> = (0..marginal.len()).filter(|&c| marginal[c] > 0.0).collect();
                let mut s = 0.0;
                for (i, &c) in used.iter().enumerate() {
                    for &k in &used[i + 1..] {
                        s += 2.0 * marginal[c] * marginal[k] * self.delta(c, k);
                    }
                }
                s
            }
        }
    }
}

/// The sums Krippendorff's alpha is computed from, kept in integers so that ratings can be taken
/// out again exactly: over the pairable units (two ratings or more), how many, the ratings per
/// category, and for each number `m` of ratings on a unit the products `n_c n_k` (`c < k`)
/// summed over the units with `m` ratings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Coincidences {
    q: usize,
    units: i64,
    marginal: Vec<i64>,
    /// `(m, products)`, `products[c * q + k]` for `c < k`.
    by_rated: Vec<(i64, Vec<i64>)>,
}

impl Coincidences {
    /// No unit yet, over `q` categories.
    pub(crate) fn new(q: usize) -> Self {
        Coincidences {
            q,
            units: 0,
            marginal: vec![0; q],
            by_rated: Vec::new(),
        }
    }

    /// Adds (`sign` 1) or takes out (`sign` −1) a unit with `counts[c]` ratings in category `c`.
    pub(crate) fn add_unit(&mut self, counts: &[i64], sign: i64) {
        let m: i64 = counts.iter().sum();
        if m < 2 {
            return;
        }
        self.units += sign;
        for (total, n) in self.marginal.iter_mut().zip(counts) {
            *total += sign * n;
        }
        let q = self.q;
        let at = match self.by_rated.iter().position(|(x, _)| *x == m) {
            Some(at) => at,
            None => {
                self.by_rated.push((m, vec![0; q * q]));
                self.by_rated.len() - 1
            }
        };
        let products = &mut self.by_rated[at].1;
        for c in 0..q {
            if counts[c] == 0 {
                continue;
            }
            for k in c + 1..q {
                products[c * q + k] += sign * counts[c] * counts[k];
            }
        }
    }

    /// Krippendorff's alpha of these sums, with the definitions and undefined cases of
    /// [`krippendorff_alpha`] (which computes the same value from the table's rows).
    pub(crate) fn alpha(&self, metric: Level, x: &[f64]) -> Result<f64, Undefined> {
        if self.units == 0 {
            return Err(Undefined::new(NO_PAIRABLE_UNIT));
        }
        let marginal: Vec<f64> = self.marginal.iter().map(|&n| n as f64).collect();
        let d = Distances::new(&marginal, metric, x);
        let expected = d.expected(&marginal);
        if expected <= 0.0 {
            return Err(Undefined::new(NO_EXPECTED_DISAGREEMENT));
        }
        let n: f64 = marginal.iter().sum();
        let q = self.q;
        let mut observed = 0.0;
        for (m, products) in &self.by_rated {
            let mut s = 0.0;
            for c in 0..q {
                for k in c + 1..q {
                    let p = products[c * q + k];
                    if p != 0 {
                        s += 2.0 * p as f64 * d.delta(c, k);
                    }
                }
            }
            observed += s / (*m as f64 - 1.0);
        }
        Ok(1.0 - (n - 1.0) * observed / expected)
    }
}
