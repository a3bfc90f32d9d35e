//! The prediction-powered mean (PPI and PPI++) and the classical mean of the labels alone, with
//! their intervals, under two designs: tasks drawn from a larger population (ppi-python's
//! model, its figures to the last digit) and a benchmark's own tasks as the whole population
//! (the finite-population form).

use super::PpiError;
use crate::{normal, student};

/// How the labelled tasks came to be labelled, and what the mean is of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Design<'a> {
    /// The tasks are independent draws from a larger population of tasks like them, the
    /// labelled ones apart from the unlabelled: ppi-python's model, and its formulas. The
    /// weights (one per labelled task, one per unlabelled task; `None` for all ones) are
    /// normalised to sum to their counts, as ppi-python normalises them.
    Superpopulation {
        /// The labelled tasks' weights.
        weights: Option<&'a [f64]>,
        /// The unlabelled tasks' weights.
        unlabeled_weights: Option<&'a [f64]>,
    },
    /// The labelled and unlabelled tasks are the whole population and the mean is theirs: the
    /// labelled tasks were drawn without replacement, each with its inclusion probability
    /// (`None`: all equal, a simple random sample). The difference estimator (Horvitz and
    /// Thompson's form with unequal probabilities) with its variance under the design, the
    /// finite-population correction included.
    Finite {
        /// The labelled tasks' inclusion probabilities, each in (0, 1].
        inclusion: Option<&'a [f64]>,
    },
}

/// The data of one estimate: the gold labels and the predictions on the labelled tasks, the
/// predictions on the unlabelled ones, and the design.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample<'a> {
    /// The gold label of each labelled task.
    pub labels: &'a [f64],
    /// The predictor on each labelled task, in the same order.
    pub predictions: &'a [f64],
    /// The predictor on each unlabelled task.
    pub unlabeled: &'a [f64],
    /// How the labelled tasks were drawn.
    pub design: Design<'a>,
}

/// The power-tuning parameter λ: estimated from the data (PPI++), or fixed (1 is plain PPI, 0
/// the labels alone).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lambda {
    /// Estimated to minimise the variance, clipped to [0, 1].
    Estimated,
    /// As given.
    Fixed(f64),
}

/// An estimated mean with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanEstimate {
    /// The λ used: 0 when no task is unlabelled, whatever was asked.
    pub lambda: f64,
    /// The point estimate.
    pub estimate: f64,
    /// The two-sided interval at the level asked for.
    pub ci: (f64, f64),
    /// The estimate's standard error.
    pub se: f64,
}

/// The parts of an estimate's variance: the imputed mean's (zero for a finite population,
/// whose predictions are all known) and the rectifier's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Variance {
    pub(super) imputed: f64,
    pub(super) rectifier: f64,
}

impl Variance {
    pub(super) fn total(self) -> f64 {
        self.imputed + self.rectifier
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The variance with divisor `len` (numpy's `std(ddof=0)` squared): the mean first, then the
/// mean squared deviation.
fn variance0(values: &[f64]) -> f64 {
    let m = mean(values);
    values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / values.len() as f64
}

/// The variance of the weighed values wᵢ(vᵢ − v̄) about the weighted mean v̄ = mean(w v), the
/// weights normalised to mean 1: Hájek's linearisation of a weighted mean's variance. With unit
/// weights it is numpy's `var(v)`, as ppi-python takes it; with unequal weights ppi-python
/// takes `var(w v)`, which leaves out the centring and, with inverse-probability weights,
/// understates the variance wherever the weights follow the values (`bench/ppi_coverage.sh`).
fn centred_variance(values: &[f64], weights: &[f64]) -> f64 {
    let m = values.iter().zip(weights).map(|(v, w)| v * w).sum::<f64>() / values.len() as f64;
    let terms: Vec<f64> = values
        .iter()
        .zip(weights)
        .map(|(v, w)| w * (v - m))
        .collect();
    variance0(&terms)
}

/// Weights normalised to sum to `len` (ppi-python's `construct_weight_vector`), or ones.
fn normalised(weights: Option<&[f64]>, len: usize) -> Vec<f64> {
    match weights {
        None => vec![1.0; len],
        Some(w) => {
            let total: f64 = w.iter().sum();
            w.iter().map(|v| v / total * len as f64).collect()
        }
    }
}

/// What the estimates need of one predicted column over the unlabelled tasks: sums of its
/// values f and their weights w (normalised to sum to the count, as ppi-python normalises
/// them; ones when unweighted), so that many columns that differ little (every pair of
/// systems) can be summed without a pass over every task each.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct UnlabeledSums {
    /// The unlabelled tasks, N.
    pub count: f64,
    /// Σ w².
    pub w2: f64,
    /// Σ w f.
    pub wf: f64,
    /// Σ w² f.
    pub w2f: f64,
    /// Σ w² f².
    pub w2ff: f64,
    /// Σ f, unweighted.
    pub f: f64,
    /// Σ f², unweighted.
    pub ff: f64,
}

impl UnlabeledSums {
    /// The sums of `values`, each with its weight (`None`: all ones); the weights are
    /// normalised here.
    pub fn of(values: &[f64], weights: Option<&[f64]>) -> UnlabeledSums {
        let w = normalised(weights, values.len());
        let mut s = UnlabeledSums {
            count: values.len() as f64,
            ..UnlabeledSums::default()
        };
        for (f, w) in values.iter().zip(&w) {
            s.w2 += w * w;
            s.wf += w * f;
            s.w2f += w * w * f;
            s.w2ff += w * w * f * f;
            s.f += f;
            s.ff += f * f;
        }
        s
    }
}

/// The sums of two predicted columns a and b over the same unlabelled tasks and weights, with
/// their products: what a ratio E[a]/E[b] needs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PairSums {
    /// a's sums.
    pub a: UnlabeledSums,
    /// b's sums.
    pub b: UnlabeledSums,
    /// Σ w² a b.
    pub w2ab: f64,
    /// Σ a b, unweighted.
    pub ab: f64,
}

impl PairSums {
    /// The sums of `a` and `b`, each task with its weight (`None`: all ones).
    pub fn of(a: &[f64], b: &[f64], weights: Option<&[f64]>) -> PairSums {
        let w = normalised(weights, a.len());
        let (mut w2ab, mut ab) = (0.0, 0.0);
        for ((x, y), w) in a.iter().zip(b).zip(&w) {
            w2ab += w * w * x * y;
            ab += x * y;
        }
        PairSums {
            a: UnlabeledSums::of(a, weights),
            b: UnlabeledSums::of(b, weights),
            w2ab,
            ab,
        }
    }

    /// The sums of a − θ b.
    pub fn combine(&self, theta: f64) -> UnlabeledSums {
        let (a, b) = (&self.a, &self.b);
        UnlabeledSums {
            count: a.count,
            w2: a.w2,
            wf: a.wf - theta * b.wf,
            w2f: a.w2f - theta * b.w2f,
            w2ff: a.w2ff - 2.0 * theta * self.w2ab + theta * theta * b.w2ff,
            f: a.f - theta * b.f,
            ff: a.ff - 2.0 * theta * self.ab + theta * theta * b.ff,
        }
    }
}

/// A sample checked and prepared: the labelled tasks' values with their normalised weights or
/// inclusion probabilities, and the unlabelled tasks' sums.
pub(super) struct Prepared<'a> {
    y: &'a [f64],
    f: &'a [f64],
    u: UnlabeledSums,
    kind: Weighing,
}

enum Weighing {
    Super { w: Vec<f64> },
    Finite { pi: Vec<f64> },
}

fn check_values(name: &str, values: &[f64]) -> Result<(), PpiError> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(i) => Err(PpiError(format!(
            "{name}[{i}] is {}, and every value must be a finite number",
            values[i]
        ))),
        None => Ok(()),
    }
}

fn check_weights(name: &str, weights: &[f64], len: usize) -> Result<(), PpiError> {
    if weights.len() != len {
        return Err(PpiError(format!(
            "{name} has {} values for {len} tasks",
            weights.len()
        )));
    }
    match weights.iter().position(|w| !(w.is_finite() && *w > 0.0)) {
        Some(i) => Err(PpiError(format!(
            "{name}[{i}] is {}, and every weight must be a positive number",
            weights[i]
        ))),
        None => Ok(()),
    }
}

/// The labelled tasks' part of a design checked: their normalised weights, or their inclusion
/// probabilities.
fn labelled_weighing(design: Design<'_>, n: usize, unlabeled: usize) -> Result<Weighing, PpiError> {
    Ok(match design {
        Design::Superpopulation { weights, .. } => {
            if let Some(w) = weights {
                check_weights("weights", w, n)?;
            }
            Weighing::Super {
                w: normalised(weights, n),
            }
        }
        Design::Finite { inclusion } => Weighing::Finite {
            pi: match inclusion {
                None => vec![n as f64 / (n + unlabeled) as f64; n],
                Some(p) => {
                    if p.len() != n {
                        return Err(PpiError(format!(
                            "{} inclusion probabilities for {n} labelled tasks",
                            p.len()
                        )));
                    }
                    if let Some(i) = p.iter().position(|v| !(*v > 0.0 && *v <= 1.0)) {
                        return Err(PpiError(format!(
                            "inclusion probability [{i}] is {}, outside (0, 1]",
                            p[i]
                        )));
                    }
                    p.to_vec()
                }
            },
        },
    })
}

impl<'a> Prepared<'a> {
    /// Labelled values, the unlabelled tasks' sums, and the design (whose unlabelled weights,
    /// if any, the sums already hold), checked.
    pub(super) fn from_parts(
        labels: &'a [f64],
        predictions: &'a [f64],
        u: UnlabeledSums,
        design: Design<'_>,
    ) -> Result<Prepared<'a>, PpiError> {
        let n = labels.len();
        if predictions.len() != n {
            return Err(PpiError(format!(
                "{n} labels but {} predictions on the labelled tasks",
                predictions.len()
            )));
        }
        if n < 2 {
            return Err(PpiError(format!(
                "an interval needs at least 2 labelled tasks, and there are {n}"
            )));
        }
        check_values("labels", labels)?;
        check_values("predictions", predictions)?;
        Ok(Prepared {
            y: labels,
            f: predictions,
            kind: labelled_weighing(design, n, u.count as usize)?,
            u,
        })
    }
}

impl<'a> Sample<'a> {
    /// The labelled tasks.
    pub fn n(&self) -> usize {
        self.labels.len()
    }

    /// The unlabelled tasks.
    pub fn unlabeled_count(&self) -> usize {
        self.unlabeled.len()
    }

    pub(super) fn prepare(&self) -> Result<Prepared<'a>, PpiError> {
        check_values("unlabeled predictions", self.unlabeled)?;
        let weights = match self.design {
            Design::Superpopulation {
                unlabeled_weights: Some(w),
                ..
            } => {
                check_weights("unlabeled weights", w, self.unlabeled.len())?;
                Some(w)
            }
            _ => None,
        };
        Prepared::from_parts(
            self.labels,
            self.predictions,
            UnlabeledSums::of(self.unlabeled, weights),
            self.design,
        )
    }

    /// The estimate with its interval at error level `alpha` (0.05 for 95%).
    pub fn mean(&self, lambda: Lambda, alpha: f64) -> Result<MeanEstimate, PpiError> {
        check_alpha(alpha)?;
        let prepared = self.prepare()?;
        let lambda = prepared.lambda(lambda);
        let estimate = prepared.point(lambda);
        let se = prepared.variance(lambda).total().sqrt();
        let z = prepared.critical(alpha, prepared.y.len());
        Ok(MeanEstimate {
            lambda,
            estimate,
            ci: (estimate - z * se, estimate + z * se),
            se,
        })
    }

    /// The mean of the labels alone, as the design weighs them (λ = 0): ppi-python's
    /// `classical_mean_ci` in the superpopulation design.
    pub fn classical(&self, alpha: f64) -> Result<MeanEstimate, PpiError> {
        self.mean(Lambda::Fixed(0.0), alpha)
    }

    /// How many labelled tasks in all (`n` or more) would bring the interval at `alpha` with
    /// this λ to ±`halfwidth` at the variances seen: the labelled tasks' variance and, in the
    /// superpopulation design, the imputed one's, the population staying as large. `None` when
    /// no number short of every task does (in the superpopulation design, at least one task
    /// must stay unlabelled).
    pub fn labels_for_halfwidth(
        &self,
        lambda: f64,
        alpha: f64,
        halfwidth: f64,
    ) -> Result<Option<usize>, PpiError> {
        check_alpha(alpha)?;
        if !(halfwidth.is_finite() && halfwidth > 0.0) {
            return Err(PpiError(format!(
                "the target half-width is {halfwidth}, and must be a positive number"
            )));
        }
        let prepared = self.prepare()?;
        let lambda = prepared.lambda(Lambda::Fixed(lambda));
        Ok(prepared.labels_for_halfwidth(lambda, alpha, halfwidth))
    }
}

pub(super) fn check_alpha(alpha: f64) -> Result<(), PpiError> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(())
    } else {
        Err(PpiError(format!(
            "alpha is {alpha}, and must lie strictly between 0 and 1"
        )))
    }
}

impl Prepared<'_> {
    /// λ as asked; estimated: ppi-python's `_calc_lam_glm` for the mean in the superpopulation
    /// design, the variance-minimising coefficient of the finite population's rectifier
    /// otherwise; clipped to [0, 1], and 0 when the predictions do not vary. 0 without an
    /// unlabelled task.
    pub(super) fn lambda(&self, lambda: Lambda) -> f64 {
        if self.u.count == 0.0 {
            return 0.0;
        }
        let value = match lambda {
            Lambda::Fixed(l) => return l,
            Lambda::Estimated => match &self.kind {
                Weighing::Super { w } => {
                    let (n, big_n) = (self.y.len() as f64, self.u.count);
                    let theta = self.point(1.0);
                    let g: Vec<f64> = self.y.iter().zip(w).map(|(y, w)| w * (y - theta)).collect();
                    let h: Vec<f64> = self.f.iter().zip(w).map(|(f, w)| w * (f - theta)).collect();
                    let (gm, hm) = (mean(&g), mean(&h));
                    let cov = g
                        .iter()
                        .zip(&h)
                        .map(|(a, b)| (a - gm) * (b - hm))
                        .sum::<f64>()
                        / n;
                    // The unlabelled tasks' w (f − θ), by their sums.
                    let u = &self.u;
                    let sum_u = u.wf - theta * big_n;
                    let square_u = u.w2ff - 2.0 * theta * u.w2f + theta * theta * u.w2;
                    let all = n + big_n;
                    let m = (h.iter().sum::<f64>() + sum_u) / all;
                    let spread = h.iter().map(|v| (v - m) * (v - m)).sum::<f64>() + square_u
                        - 2.0 * m * sum_u
                        + big_n * m * m;
                    cov / ((1.0 + n / big_n) * (spread / (all - 1.0)))
                }
                Weighing::Finite { pi } => {
                    let d: Vec<f64> = pi.iter().map(|p| 1.0 / p).collect();
                    let dsum: f64 = d.iter().sum();
                    let weighted = |v: &[f64]| -> f64 {
                        v.iter().zip(&d).map(|(v, d)| v * d).sum::<f64>() / dsum
                    };
                    let (ym, fm) = (weighted(self.y), weighted(self.f));
                    let cov = self
                        .y
                        .iter()
                        .zip(self.f)
                        .zip(&d)
                        .map(|((y, f), d)| d * (y - ym) * (f - fm))
                        .sum::<f64>()
                        / dsum;
                    let total = self.y.len() as f64 + self.u.count;
                    let m = (self.f.iter().sum::<f64>() + self.u.f) / total;
                    let squares = self.f.iter().map(|f| f * f).sum::<f64>() + self.u.ff;
                    cov / (squares / total - m * m)
                }
            },
        };
        if value.is_finite() {
            value.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// The point estimate at λ.
    pub(super) fn point(&self, lambda: f64) -> f64 {
        match &self.kind {
            Weighing::Super { w } => {
                let imputed = if self.u.count == 0.0 {
                    0.0
                } else {
                    lambda * self.u.wf / self.u.count
                };
                let rectifier = self
                    .y
                    .iter()
                    .zip(self.f)
                    .zip(w)
                    .map(|((y, f), w)| w * (y - lambda * f))
                    .sum::<f64>()
                    / self.y.len() as f64;
                imputed + rectifier
            }
            Weighing::Finite { pi } => {
                let total = self.y.len() as f64 + self.u.count;
                let all: f64 = self.f.iter().sum::<f64>() + self.u.f;
                let rectified: f64 = self
                    .y
                    .iter()
                    .zip(self.f)
                    .zip(pi)
                    .map(|((y, f), p)| (y - lambda * f) / p)
                    .sum();
                lambda * all / total + rectified / total
            }
        }
    }

    /// The point estimate's variance at λ, in its two parts.
    pub(super) fn variance(&self, lambda: f64) -> Variance {
        match &self.kind {
            Weighing::Super { w } => {
                let u = &self.u;
                let imputed = if u.count == 0.0 {
                    0.0
                } else {
                    // The weighed values w (λ f − m) about m = mean(w λ f): their mean square
                    // less their mean's square, as numpy's two-pass variance takes it.
                    let m = lambda * u.wf / u.count;
                    let square = lambda * lambda * u.w2ff - 2.0 * lambda * m * u.w2f + m * m * u.w2;
                    let centre = (lambda * u.wf - m * u.count) / u.count;
                    (square / u.count - centre * centre) / u.count
                };
                let values: Vec<f64> = self
                    .y
                    .iter()
                    .zip(self.f)
                    .map(|(y, f)| y - lambda * f)
                    .collect();
                Variance {
                    imputed,
                    rectifier: centred_variance(&values, w) / self.y.len() as f64,
                }
            }
            Weighing::Finite { pi } => {
                // Hájek's approximation of a fixed-size design's variance (Deville 1999):
                // (1/T²) n/(n−1) Σ (1−πᵢ)(eᵢ − B)², eᵢ = rᵢ/πᵢ, B their (1−π)-weighted mean;
                // with equal probabilities, (1 − n/T) s²/n exactly.
                let n = self.y.len() as f64;
                let total = n + self.u.count;
                let e: Vec<f64> = self
                    .y
                    .iter()
                    .zip(self.f)
                    .zip(pi)
                    .map(|((y, f), p)| (y - lambda * f) / p)
                    .collect();
                let c: Vec<f64> = pi.iter().map(|p| 1.0 - p).collect();
                let csum: f64 = c.iter().sum();
                let rectifier = if csum <= 0.0 {
                    0.0
                } else {
                    let b = e.iter().zip(&c).map(|(e, c)| e * c).sum::<f64>() / csum;
                    let spread: f64 = e.iter().zip(&c).map(|(e, c)| c * (e - b) * (e - b)).sum();
                    spread * n / (n - 1.0) / (total * total)
                };
                Variance {
                    imputed: 0.0,
                    rectifier,
                }
            }
        }
    }

    /// [`Sample::labels_for_halfwidth`] at a λ already checked.
    pub(super) fn labels_for_halfwidth(
        &self,
        lambda: f64,
        alpha: f64,
        halfwidth: f64,
    ) -> Option<usize> {
        let now = self.variance(lambda);
        let n = self.y.len();
        let unlabeled_now = self.u.count as usize;
        let total = n + unlabeled_now;
        let finite = matches!(self.kind, Weighing::Finite { .. });
        let variance_at = |m: usize| -> f64 {
            let scale = n as f64 / m as f64;
            if finite {
                let correction_now = 1.0 - n as f64 / total as f64;
                if correction_now <= 0.0 {
                    0.0
                } else {
                    now.rectifier * scale * (1.0 - m as f64 / total as f64) / correction_now
                }
            } else {
                let imputed = if unlabeled_now == 0 {
                    0.0
                } else {
                    now.imputed * unlabeled_now as f64 / (total - m) as f64
                };
                imputed + now.rectifier * scale
            }
        };
        let last = if finite {
            total
        } else {
            total.saturating_sub(1)
        };
        (n..=last).find(|&m| self.critical(alpha, m) * variance_at(m).sqrt() <= halfwidth)
    }

    /// The critical value of a two-sided interval at `alpha` from `n` labelled tasks: the
    /// normal's in the superpopulation design, as ppi-python takes it; Student's t with n − 1
    /// degrees of freedom in the finite population's, whose formulas are Verity's own, as a
    /// survey statistician takes it for a sample this small (the normal's below two tasks).
    pub(super) fn critical(&self, alpha: f64, n: usize) -> f64 {
        match self.kind {
            Weighing::Finite { .. } if n > 1 => student::two_sided_critical(alpha, n as f64 - 1.0),
            _ => normal::two_sided_critical(alpha),
        }
    }
}
