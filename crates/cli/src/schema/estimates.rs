//! The schema of prediction-powered estimates.

use clap::Args;

#[derive(Args)]
pub struct EstimateArgs {
    /// What is estimated per task: underdetermined, determinate, kept (by the questionnaire's
    /// [scores] rule and filter), Q>=V (a question's value at least V), or Q (its mean).
    #[arg(long, value_name = "L")]
    pub label: String,
    /// The predictor on every task: model:NAME (one model rater), models (their mean), or risk
    /// (the evidence's risk with the sweep).
    #[arg(long, value_name = "P")]
    pub predictor: String,
    /// The error level: 0.05 gives 95% intervals.
    #[arg(long, value_name = "A", default_value_t = 0.05)]
    pub alpha: f64,
    /// Fix λ instead of estimating it: 0 is the humans alone, 1 plain PPI.
    #[arg(long, value_name = "X")]
    pub lambda: Option<f64>,
    /// Say how many more labelled tasks would bring the interval to ±H (a share: 0.03 for
    /// three points).
    #[arg(long, value_name = "H")]
    pub target_halfwidth: Option<f64>,
    /// Estimate these tasks' own figure (the finite-population correction) rather than that of
    /// a larger population of tasks like them.
    #[arg(long)]
    pub finite: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}
