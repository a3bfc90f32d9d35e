//! Statistics over rater pairs: percent agreement, Cohen's kappa, confusion matrices.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::profile::Profiles;
use super::{AgreementError, Coefficient, Method, RatingTable, Undefined, Weights};

/// Percent agreement: the mean, over units with at least two ratings, of the share of rater
/// pairs on the unit that gave the same category.
///
/// For a unit with `m ≥ 2` ratings and `n_c` ratings in category `c`, the unit's agreement is
/// `Σ_c n_c (n_c − 1) / (m (m − 1))`; the coefficient is the unweighted mean of that over units.
/// Missing ratings: a unit counts with the raters who rated it; units with fewer than two
/// ratings are left out. Undefined when no unit has two ratings. Reference: the definition in
/// Verity's design (it equals irr's `agree` with tolerance 0 on complete data).
pub fn percent_agreement(table: &RatingTable) -> Coefficient {
    let profiles = Profiles::new(table);
    let (units, estimate) = percent_eval(&profiles, &profiles.multiplicity);
    Coefficient {
        method: Method::PercentAgreement,
        units: units as usize,
        raters: table.raters().len(),
        estimate,
    }
}

pub(crate) fn percent_eval(p: &Profiles, w: &[f64]) -> (f64, Result<f64, Undefined>) {
    let (mut sum, mut units) = (0.0, 0.0);
    for i in 0..p.len() {
        let m = p.rated[i] as f64;
        if p.rated[i] < 2 || w[i] == 0.0 {
            continue;
        }
        let agreeing: f64 = p
            .counts(i)
            .iter()
            .map(|&(_, n)| n as f64 * (n as f64 - 1.0))
            .sum();
        sum += w[i] * agreeing / (m * (m - 1.0));
        units += w[i];
    }
    if units == 0.0 {
        return (0.0, Err(Undefined::new(NO_PAIRABLE_UNIT)));
    }
    (units, Ok(sum / units))
}

pub(crate) const NO_PAIRABLE_UNIT: &str = "no unit has ratings from two or more raters";

/// Cohen's kappa for raters `a` and `b` on the units both rated.
///
/// With `p_o` the observed and `p_e` the chance-expected weighted disagreement,
/// `κ = 1 − Σ w_ij o_ij / Σ w_ij e_ij`, where `o` is the confusion matrix over the declared
/// categories, `e_ij = (row_i · col_j) / n` and the disagreement weight `w_ij` is `[i ≠ j]`
/// (unweighted), `|i − j|` (linear) or `(i − j)²` (quadratic), `i` and `j` being the categories'
/// positions in the declared scale (not their numeric values). Missing ratings: only units both
/// raters rated count. Undefined when the pair shares no unit or when the expected disagreement
/// is zero (both raters used one and the same category). Reference: scikit-learn's
/// `cohen_kappa_score(y1, y2, labels=scale, weights=...)`.
pub fn cohen_kappa(
    table: &RatingTable,
    a: usize,
    b: usize,
    weights: Weights,
) -> Result<Coefficient, AgreementError> {
    let conf = confusion_matrix(table, a, b)?;
    let q = table.categories().len();
    let flat: Vec<f64> = conf.counts.iter().flatten().map(|&c| c as f64).collect();
    Ok(Coefficient {
        method: Method::CohenKappa(weights),
        units: conf.units,
        raters: 2,
        estimate: cohen_from_confusion(&flat, q, weights),
    })
}

/// Kappa from a flattened `q × q` confusion matrix (rows: first rater).
pub(crate) fn cohen_from_confusion(
    conf: &[f64],
    q: usize,
    weights: Weights,
) -> Result<f64, Undefined> {
    let mut rows = vec![0.0; q];
    let mut cols = vec![0.0; q];
    let mut total = 0.0;
    for i in 0..q {
        for j in 0..q {
            let c = conf[i * q + j];
            rows[i] += c;
            cols[j] += c;
            total += c;
        }
    }
    if total == 0.0 {
        return Err(Undefined::new("the two raters rated no unit in common"));
    }
    let (mut observed, mut expected) = (0.0, 0.0);
    for i in 0..q {
        for j in 0..q {
            let d = (i as f64 - j as f64).abs();
            let w = match weights {
                Weights::Unweighted => f64::from(u8::from(i != j)),
                Weights::Linear => d,
                Weights::Quadratic => d * d,
            };
            observed += w * conf[i * q + j];
            expected += w * rows[i] * cols[j] / total;
        }
    }
    if expected == 0.0 {
        return Err(Undefined::new(
            "chance disagreement between the two raters is zero: on their common units they used one and the same category",
        ));
    }
    Ok(1.0 - observed / expected)
}

/// Counts of category pairs for two raters on the units both rated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfusionMatrix {
    /// The first rater (rows).
    pub rater_a: String,
    /// The second rater (columns).
    pub rater_b: String,
    /// Category labels, in scale order; rows and columns follow it.
    pub categories: Vec<String>,
    /// `counts[i][j]`: units where the first rater chose category `i` and the second `j`.
    pub counts: Vec<Vec<u64>>,
    /// Units both raters rated.
    pub units: usize,
}

/// The confusion matrix of raters `a` (rows) and `b` (columns) over the declared categories,
/// on the units both rated.
pub fn confusion_matrix(
    table: &RatingTable,
    a: usize,
    b: usize,
) -> Result<ConfusionMatrix, AgreementError> {
    table.check_rater(a)?;
    table.check_rater(b)?;
    if a == b {
        return Err(AgreementError::SameRater { index: a });
    }
    let q = table.categories().len();
    let mut counts = vec![vec![0u64; q]; q];
    let mut units = 0;
    for u in 0..table.units().len() {
        let row = table.row(u);
        if let (Some(x), Some(y)) = (row[a], row[b]) {
            counts[x as usize][y as usize] += 1;
            units += 1;
        }
    }
    Ok(ConfusionMatrix {
        rater_a: table.raters()[a].clone(),
        rater_b: table.raters()[b].clone(),
        categories: table.categories().iter().map(|c| c.label.clone()).collect(),
        counts,
        units,
    })
}

/// Weighted confusion matrix of a pair over profiles; returns (flattened matrix, co-rated weight).
pub(crate) fn pair_confusion(p: &Profiles, w: &[f64], a: usize, b: usize, out: &mut [f64]) -> f64 {
    let q = p.n_categories;
    out.iter_mut().for_each(|x| *x = 0.0);
    let mut units = 0.0;
    for i in 0..p.len() {
        if w[i] == 0.0 {
            continue;
        }
        let row = p.row(i);
        if let (Some(x), Some(y)) = (row[a], row[b]) {
            out[x as usize * q + y as usize] += w[i];
            units += w[i];
        }
    }
    units
}

/// The confusion matrix of every rater pair that shares a unit, from one pass over the profiles.
///
/// A panel of many raters who each rate few units has few such pairs among very many: only the
/// pairs met on some unit get a matrix, so the cost follows the ratings, not the square of the
/// raters. Each cell is summed over the profiles in their order, as [`pair_confusion`] sums it,
/// so both give the same numbers.
pub(crate) struct PairConfusions {
    q: usize,
    slots: HashMap<(usize, usize), usize>,
    counts: Vec<f64>,
    units: Vec<f64>,
}

impl PairConfusions {
    /// Confusions of the pairs `(a, b)`, `a < b`, weighting profile `i` by `w[i]`.
    pub(crate) fn new(p: &Profiles, w: &[f64]) -> Self {
        let q = p.n_categories;
        let mut out = PairConfusions {
            q,
            slots: HashMap::new(),
            counts: Vec::new(),
            units: Vec::new(),
        };
        let mut rated: Vec<(usize, usize)> = Vec::with_capacity(p.n_raters);
        for i in 0..p.len() {
            if w[i] == 0.0 || p.rated[i] < 2 {
                continue;
            }
            rated.clear();
            rated.extend(
                p.row(i)
                    .iter()
                    .enumerate()
                    .filter_map(|(r, c)| c.map(|c| (r, c as usize))),
            );
            for (j, &(a, x)) in rated.iter().enumerate() {
                for &(b, y) in &rated[j + 1..] {
                    let next = out.units.len();
                    let slot = *out.slots.entry((a, b)).or_insert(next);
                    if slot == next {
                        out.units.push(0.0);
                        out.counts.resize(out.counts.len() + q * q, 0.0);
                    }
                    out.counts[slot * q * q + x * q + y] += w[i];
                    out.units[slot] += w[i];
                }
            }
        }
        out
    }

    /// The flattened `q × q` matrix of raters `a < b` (rows: `a`) and their co-rated weight;
    /// `None` when they share no unit.
    pub(crate) fn get(&self, a: usize, b: usize) -> Option<(&[f64], f64)> {
        let slot = *self.slots.get(&(a, b))?;
        let size = self.q * self.q;
        Some((
            &self.counts[slot * size..(slot + 1) * size],
            self.units[slot],
        ))
    }
}

/// Cohen's kappa for every pair of raters, as a square matrix in the table's rater order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaterPairMatrix {
    /// Rater names; rows and columns follow this order.
    pub raters: Vec<String>,
    /// The weights used.
    pub weights: Weights,
    /// `kappa[i][j]` for `i ≠ j` (symmetric); `None` on the diagonal, where a rater is not
    /// compared with itself.
    pub kappa: Vec<Vec<Option<Coefficient>>>,
}

/// Cohen's kappa (see [`cohen_kappa`]) for every rater pair.
pub fn cohen_kappa_matrix(table: &RatingTable, weights: Weights) -> RaterPairMatrix {
    let r = table.raters().len();
    let q = table.categories().len();
    let profiles = Profiles::new(table);
    let confusions = PairConfusions::new(&profiles, &profiles.multiplicity);
    let none = vec![0.0; q * q];
    let mut kappa = vec![vec![None; r]; r];
    for a in 0..r {
        for b in (a + 1)..r {
            let (conf, units) = confusions.get(a, b).unwrap_or((&none, 0.0));
            let c = Coefficient {
                method: Method::CohenKappa(weights),
                units: units as usize,
                raters: 2,
                estimate: cohen_from_confusion(conf, q, weights),
            };
            kappa[b][a] = Some(c.clone());
            kappa[a][b] = Some(c);
        }
    }
    RaterPairMatrix {
        raters: table.raters().to_vec(),
        weights,
        kappa,
    }
}
