//! Prediction-powered inference: a mean estimated from gold labels on a random sample of tasks
//! and a predictor's values on every task, unbiased whatever the predictor's quality and
//! narrower the better it is (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, Science 2023),
//! with the power-tuned λ of PPI++ (Angelopoulos, Duchi and Zrnic 2023); ratios of two such
//! means by the delta method; and the draws that give the sample, uniform or weighted by the
//! predictor's uncertainty (Zrnic and Candès 2024).
//!
//! In the superpopulation design every figure is ppi-python's (`ppi_mean_pointestimate`,
//! `ppi_mean_ci`, `classical_mean_ci`, λ by `_calc_lam_glm` with its (1 + n/N) factor and
//! clipped to [0, 1], z-intervals on the rectifier's and the imputed mean's standard errors
//! with numpy's population standard deviation, weights normalised to sum to their counts);
//! `bench/ppi.sh` checks them to 1e-9. The finite-population design and the ratio are this
//! crate's own: their intervals take Student's t with n − 1 degrees of freedom, and
//! `bench/ppi_coverage.sh` checks their coverage by simulation with the others'.
//!
//! ```
//! use verity_stats::ppi::{Design, Lambda, Sample};
//!
//! let sample = Sample {
//!     labels: &[1.0, 0.0, 0.0, 1.0, 1.0, 0.0],
//!     predictions: &[0.9, 0.2, 0.1, 0.7, 0.8, 0.3],
//!     unlabeled: &[0.85, 0.15, 0.2, 0.9, 0.1, 0.6, 0.3, 0.75],
//!     design: Design::Superpopulation { weights: None, unlabeled_weights: None },
//! };
//! let ppi = sample.mean(Lambda::Estimated, 0.05).expect("valid data");
//! let humans = sample.classical(0.05).expect("valid data");
//! assert!(ppi.ci.1 - ppi.ci.0 < humans.ci.1 - humans.ci.0);
//! ```

pub mod design;
mod mean;
mod ratio;

pub use mean::{Design, Lambda, MeanEstimate, PairSums, Sample, UnlabeledSums};
pub use ratio::{Columns, RatioEstimate, RatioParts, RatioSample};

/// Input a prediction-powered estimate cannot take, in one sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PpiError(pub String);

#[cfg(test)]
mod tests;
