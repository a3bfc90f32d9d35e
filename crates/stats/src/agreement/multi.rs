//! Multi-rater kappa-type coefficients: Fleiss' kappa and Gwet's AC1/AC2.

use super::pairwise::NO_PAIRABLE_UNIT;
use super::profile::Profiles;
use super::{Coefficient, Method, RatingTable, Undefined, Weights};

/// Fleiss' kappa on the units rated by every rater of the table.
///
/// With `R` raters, `N` complete units, `n_ik` raters putting unit `i` in category `k`:
/// `P_i = (Σ_k n_ik² − R) / (R (R − 1))`, `P̄ = mean_i P_i`, `p_k = Σ_i n_ik / (N R)`,
/// `P_e = Σ_k p_k²`, `κ = (P̄ − P_e) / (1 − P_e)`. Missing ratings: a unit missing any rating is
/// left out (see [`fleiss_kappa_all_units`] for the form that keeps them). Undefined with fewer
/// than two raters, no complete unit, or every complete rating in one category. Reference:
/// Fleiss (1971); statsmodels' `fleiss_kappa(table, method="fleiss")`.
pub fn fleiss_kappa(table: &RatingTable) -> Coefficient {
    let p = Profiles::new(table);
    let (units, estimate) = fleiss_eval(&p, &p.multiplicity);
    Coefficient {
        method: Method::FleissKappa,
        units: units as usize,
        raters: table.raters().len(),
        estimate,
    }
}

pub(crate) fn fleiss_eval(p: &Profiles, w: &[f64]) -> (f64, Result<f64, Undefined>) {
    let r = p.n_raters;
    if r < 2 {
        return (
            0.0,
            Err(Undefined::new("Fleiss' kappa needs at least two raters")),
        );
    }
    let rf = r as f64;
    let mut totals = vec![0.0; p.n_categories];
    let (mut agreement, mut units) = (0.0, 0.0);
    for i in 0..p.len() {
        if p.rated[i] as usize != r || w[i] == 0.0 {
            continue;
        }
        let mut squares = 0.0;
        for &(c, n) in p.counts(i) {
            let n = n as f64;
            squares += n * n;
            totals[c as usize] += w[i] * n;
        }
        agreement += w[i] * (squares - rf) / (rf * (rf - 1.0));
        units += w[i];
    }
    if units == 0.0 {
        return (
            0.0,
            Err(Undefined::new(format!(
                "no unit was rated by all {r} raters"
            ))),
        );
    }
    let all = units * rf;
    let expected: f64 = totals.iter().map(|t| (t / all) * (t / all)).sum();
    if expected >= 1.0 {
        return (
            units,
            Err(Undefined::new(
                "every rating on the completely rated units is the same category, so chance agreement is 1",
            )),
        );
    }
    (units, Ok((agreement / units - expected) / (1.0 - expected)))
}

/// Fleiss' kappa over all units, missing ratings allowed, in Gwet's formulation.
///
/// Over the `n` units with at least one rating (`r_i` ratings, `r_ik` in category `k`):
/// `p_a = mean over units with r_i ≥ 2 of Σ_k r_ik (r_ik − 1) / (r_i (r_i − 1))`,
/// `π_k = (1/n) Σ_i r_ik / r_i`, `p_e = Σ_k π_k²`, `κ = (p_a − p_e) / (1 − p_e)`. Missing
/// ratings: every unit with one rating or more feeds `π`, units with two or more feed `p_a`.
/// Undefined when no unit has two ratings or every rating is the same category. Reference: Gwet,
/// *Handbook of Inter-Rater Reliability* (2014); irrCAC's `fleiss_kappa_raw`
/// (Python: `irrCAC.raw.CAC(...).fleiss()`).
pub fn fleiss_kappa_all_units(table: &RatingTable) -> Coefficient {
    let p = Profiles::new(table);
    let (units, estimate) = gwet_eval(
        &p,
        &p.multiplicity,
        &agreement_weights(table, Weights::Unweighted),
        Chance::Fleiss,
    );
    Coefficient {
        method: Method::FleissKappaAllUnits,
        units: units as usize,
        raters: table.raters().len(),
        estimate,
    }
}

/// Gwet's AC1: the unweighted form of [`gwet_ac2`].
pub fn gwet_ac1(table: &RatingTable) -> Coefficient {
    gwet_ac2(table, Weights::Unweighted)
}

/// Gwet's AC2 (AC1 when `weights` is [`Weights::Unweighted`]), missing ratings allowed.
///
/// With agreement weights `w_kl` (identity; linear `1 − |x_k − x_l| / (x_max − x_min)`;
/// quadratic `1 − (x_k − x_l)² / (x_max − x_min)²`, where `x` is the category's numeric value
/// when every category of the scale has one and its 1-based position otherwise), over the `n`
/// units with at least one rating: `r*_ik = Σ_l w_kl r_il`,
/// `p_a = mean over units with r_i ≥ 2 of Σ_k r_ik (r*_ik − 1) / (r_i (r_i − 1))`,
/// `π_k = (1/n) Σ_i r_ik / r_i`, `p_e = (Σ_kl w_kl) / (q (q − 1)) · Σ_k π_k (1 − π_k)` with `q`
/// the number of declared categories, and `AC = (p_a − p_e) / (1 − p_e)`. Missing ratings as in
/// [`fleiss_kappa_all_units`]. Undefined when the scale has fewer than two categories or no
/// unit has two ratings. Reference: Gwet (2008), *Computing inter-rater reliability and its
/// variance in the presence of high agreement*; irrCAC's `gwet_ac1_raw` (Python:
/// `irrCAC.raw.CAC(..., weights=..., categories=scale).gwet()`).
pub fn gwet_ac2(table: &RatingTable, weights: Weights) -> Coefficient {
    let p = Profiles::new(table);
    let (units, estimate) = gwet_eval(
        &p,
        &p.multiplicity,
        &agreement_weights(table, weights),
        Chance::Gwet,
    );
    Coefficient {
        method: Method::GwetAc(weights),
        units: units as usize,
        raters: table.raters().len(),
        estimate,
    }
}

/// Which chance-agreement model [`gwet_eval`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chance {
    /// `p_e = Σ_kl w_kl π_k π_l` (Fleiss).
    Fleiss,
    /// `p_e = Σw / (q (q − 1)) · Σ π_k (1 − π_k)` (Gwet's AC).
    Gwet,
}

/// Agreement weights `q × q` as irrCAC defines them (1 on the diagonal).
pub(crate) fn agreement_weights(table: &RatingTable, weights: Weights) -> Vec<f64> {
    let cats = table.categories();
    let q = cats.len();
    let x: Vec<f64> = if table.is_numeric() {
        cats.iter().map(|c| c.value.unwrap_or(0.0)).collect()
    } else {
        (1..=q).map(|i| i as f64).collect()
    };
    let (lo, hi) = x
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let span = hi - lo;
    let mut out = vec![0.0; q * q];
    for k in 0..q {
        for l in 0..q {
            let d = (x[k] - x[l]).abs();
            out[k * q + l] = match weights {
                Weights::Unweighted => f64::from(u8::from(k == l)),
                // A one-category scale (span 0) is refused before these are used.
                Weights::Linear if span > 0.0 => 1.0 - d / span,
                Weights::Quadratic if span > 0.0 => 1.0 - (d * d) / (span * span),
                _ => f64::from(u8::from(k == l)),
            };
        }
    }
    out
}

pub(crate) fn gwet_eval(
    p: &Profiles,
    w: &[f64],
    weights: &[f64],
    chance: Chance,
) -> (f64, Result<f64, Undefined>) {
    let q = p.n_categories;
    if chance == Chance::Gwet && q < 2 {
        return (
            0.0,
            Err(Undefined::new(
                "Gwet's AC needs a scale of at least two categories",
            )),
        );
    }
    let mut pi = vec![0.0; q];
    let (mut units, mut pa_sum, mut pa_units) = (0.0, 0.0, 0.0);
    for i in 0..p.len() {
        if w[i] == 0.0 {
            continue;
        }
        let counts = p.counts(i);
        let m = p.rated[i] as f64;
        units += w[i];
        for &(c, n) in counts {
            pi[c as usize] += w[i] * n as f64 / m;
        }
        if p.rated[i] >= 2 {
            let mut s = 0.0;
            for &(k, nk) in counts {
                let mut weighted = 0.0;
                for &(l, nl) in counts {
                    weighted += weights[k as usize * q + l as usize] * nl as f64;
                }
                s += nk as f64 * (weighted - 1.0);
            }
            pa_sum += w[i] * s / (m * (m - 1.0));
            pa_units += w[i];
        }
    }
    if pa_units == 0.0 {
        return (units, Err(Undefined::new(NO_PAIRABLE_UNIT)));
    }
    pi.iter_mut().for_each(|x| *x /= units);
    let pa = pa_sum / pa_units;
    let pe = match chance {
        Chance::Fleiss => {
            let mut s = 0.0;
            for k in 0..q {
                for l in 0..q {
                    s += weights[k * q + l] * pi[k] * pi[l];
                }
            }
            s
        }
        Chance::Gwet => {
            let total: f64 = weights.iter().sum();
            total * pi.iter().map(|x| x * (1.0 - x)).sum::<f64>() / (q as f64 * (q as f64 - 1.0))
        }
    };
    if pe >= 1.0 {
        return (
            units,
            Err(Undefined::new(
                "every rating is the same category, so chance agreement is 1",
            )),
        );
    }
    (units, Ok((pa - pe) / (1.0 - pe)))
}
