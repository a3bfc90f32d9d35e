//! A ratio of two prediction-powered means, E[a] / E[b] (a system's rate over the determinate
//! tasks: a = determinate and resolved, b = determinate), with its delta-method interval.
//!
//! The ratio is the root θ of E[a − θ b] = 0, so its interval is the prediction-powered
//! interval of the mean of z = a − θ̂ b (whose estimate at θ̂ is 0), divided by the
//! denominator's estimate; λ is tuned for z at the plain PPI ratio, as ppi-python tunes an
//! M-estimator's at its λ = 1 estimate.

use super::PpiError;
use super::mean::{Lambda, PairSums, Prepared, Sample, check_alpha};
use crate::{normal, student};

/// Labels, predictions on the labelled tasks and predictions on the unlabelled ones: one
/// quantity of a [`RatioSample`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Columns<'a> {
    /// The gold value on each labelled task.
    pub labels: &'a [f64],
    /// The predicted value on each labelled task.
    pub predictions: &'a [f64],
    /// The predicted value on each unlabelled task.
    pub unlabeled: &'a [f64],
}

/// The numerator's and the denominator's columns over the same tasks, drawn by one design.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioSample<'a> {
    /// a.
    pub numerator: Columns<'a>,
    /// b.
    pub denominator: Columns<'a>,
    /// How the labelled tasks were drawn (the design of a [`Sample`]).
    pub design: super::Design<'a>,
}

/// An estimated ratio with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioEstimate {
    /// The λ used.
    pub lambda: f64,
    /// The point estimate: the numerator's estimate over the denominator's.
    pub estimate: f64,
    /// The two-sided interval at the level asked for.
    pub ci: (f64, f64),
    /// The estimate's standard error.
    pub se: f64,
    /// The denominator's estimate.
    pub denominator: f64,
}

fn combine(a: &[f64], b: &[f64], theta: f64) -> Vec<f64> {
    a.iter().zip(b).map(|(a, b)| a - theta * b).collect()
}

/// The labelled tasks' values of a and b (gold and predicted), with the unlabelled tasks'
/// sums: a ratio whose unlabelled side is summed by its caller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioParts<'a> {
    /// a's gold values on the labelled tasks.
    pub numerator_labels: &'a [f64],
    /// a's predicted values on the labelled tasks.
    pub numerator_predictions: &'a [f64],
    /// b's gold values on the labelled tasks.
    pub denominator_labels: &'a [f64],
    /// b's predicted values on the labelled tasks.
    pub denominator_predictions: &'a [f64],
    /// The unlabelled tasks' sums of a's and b's predictions (weighed as the design says).
    pub unlabeled: PairSums,
    /// The labelled tasks' design; its unlabelled weights, if any, are the sums' already.
    pub design: super::Design<'a>,
}

impl RatioSample<'_> {
    /// The ratio with its interval at error level `alpha`; `None` when the denominator's
    /// estimate is not positive (no task of the denominator, as far as the data tell).
    pub fn ratio(&self, lambda: Lambda, alpha: f64) -> Result<Option<RatioEstimate>, PpiError> {
        let (a, b) = (&self.numerator, &self.denominator);
        if a.labels.len() != b.labels.len() || a.unlabeled.len() != b.unlabeled.len() {
            return Err(PpiError(format!(
                "the numerator has {} labelled and {} unlabelled tasks, the denominator {} and {}",
                a.labels.len(),
                a.unlabeled.len(),
                b.labels.len(),
                b.unlabeled.len()
            )));
        }
        // The unlabelled values and weights are checked as a mean's would be.
        let weights = match self.design {
            super::Design::Superpopulation {
                unlabeled_weights, ..
            } => unlabeled_weights,
            super::Design::Finite { .. } => None,
        };
        for unlabeled in [a.unlabeled, b.unlabeled] {
            Sample {
                labels: a.labels,
                predictions: a.predictions,
                unlabeled,
                design: self.design,
            }
            .prepare()?;
        }
        RatioParts {
            numerator_labels: a.labels,
            numerator_predictions: a.predictions,
            denominator_labels: b.labels,
            denominator_predictions: b.predictions,
            unlabeled: PairSums::of(a.unlabeled, b.unlabeled, weights),
            design: self.design,
        }
        .ratio(lambda, alpha)
    }
}

impl RatioParts<'_> {
    /// The ratio with its interval at error level `alpha`; `None` when the denominator's
    /// estimate is not positive.
    pub fn ratio(&self, lambda: Lambda, alpha: f64) -> Result<Option<RatioEstimate>, PpiError> {
        check_alpha(alpha)?;
        if self.numerator_labels.len() != self.denominator_labels.len() {
            return Err(PpiError(format!(
                "the numerator has {} labelled tasks, the denominator {}",
                self.numerator_labels.len(),
                self.denominator_labels.len()
            )));
        }
        let u = &self.unlabeled;
        let num = Prepared::from_parts(
            self.numerator_labels,
            self.numerator_predictions,
            u.a,
            self.design,
        )?;
        let den = Prepared::from_parts(
            self.denominator_labels,
            self.denominator_predictions,
            u.b,
            self.design,
        )?;
        let linear = |theta: f64| {
            (
                combine(self.numerator_labels, self.denominator_labels, theta),
                combine(
                    self.numerator_predictions,
                    self.denominator_predictions,
                    theta,
                ),
            )
        };
        let lambda = match lambda {
            Lambda::Fixed(l) => num.lambda(Lambda::Fixed(l)),
            Lambda::Estimated => {
                let plain = den.point(1.0);
                if plain.is_nan() || plain <= 0.0 {
                    return Ok(None);
                }
                let theta = num.point(1.0) / plain;
                let (y, f) = linear(theta);
                Prepared::from_parts(&y, &f, u.combine(theta), self.design)?
                    .lambda(Lambda::Estimated)
            }
        };
        let denominator = den.point(lambda);
        if denominator.is_nan() || denominator <= 0.0 {
            return Ok(None);
        }
        let estimate = num.point(lambda) / denominator;
        let (y, f) = linear(estimate);
        let variance = Prepared::from_parts(&y, &f, u.combine(estimate), self.design)?
            .variance(lambda)
            .total();
        let se = variance.sqrt() / denominator;
        // ppi-python has no ratio: its interval takes Student's t with n − 1 degrees of
        // freedom, as a ratio estimated from this few tasks is taken in survey sampling.
        let n = self.denominator_labels.len();
        let z = if n > 1 {
            student::two_sided_critical(alpha, n as f64 - 1.0)
        } else {
            normal::two_sided_critical(alpha)
        };
        Ok(Some(RatioEstimate {
            lambda,
            estimate,
            ci: (estimate - z * se, estimate + z * se),
            se,
            denominator,
        }))
    }
}
