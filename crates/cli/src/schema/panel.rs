//! The schema of raters and the panel: raters, assignments, server logins.

use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args)]
#[command(group(clap::ArgGroup::new("how").required(true).multiple(true).args(["per_case", "rater", "sample"])))]
#[command(group(clap::ArgGroup::new("which").args(["case_ids", "cases_file", "repo"])))]
pub struct AssignArgs {
    /// Raters per case (with --sample, 3 unless given).
    #[arg(long, conflicts_with = "rater")]
    pub per_case: Option<usize>,
    /// Assign to this rater (repeat for several).
    #[arg(long)]
    pub rater: Vec<String>,
    /// Only this case (id or unique prefix; repeat for several).
    #[arg(long = "case")]
    pub case_ids: Vec<String>,
    /// Only the cases listed in this file, one id per line.
    #[arg(long = "cases")]
    pub cases_file: Option<PathBuf>,
    /// Only the cases of this repository (OWNER/NAME).
    #[arg(long)]
    pub repo: Option<String>,
    /// The seed that breaks ties between equally loaded raters (and, with --sample, draws).
    #[arg(long, default_value_t = 0, conflicts_with = "rater")]
    pub seed: u64,
    /// Draw N tasks at random among those with materials not drawn before, record the draw
    /// with each task's probability, and give each --per-case raters (default 3): the random
    /// sample prediction-powered estimates stand on.
    #[arg(long, value_name = "N", conflicts_with_all = ["rater", "case_ids", "cases_file", "repo"])]
    pub sample: Option<usize>,
    /// How --sample draws: uniform, or uncertainty (likelier where --predictor is unsure).
    #[arg(
        long,
        value_name = "uniform|uncertainty",
        default_value = "uniform",
        requires = "sample"
    )]
    pub by: String,
    /// With --by uncertainty: models (the model raters' mean) or risk.
    #[arg(long, value_name = "P", requires = "sample")]
    pub predictor: Option<String>,
    /// With --by uncertainty: the share whose uncertainty counts.
    #[arg(
        long,
        value_name = "L",
        default_value = "underdetermined",
        requires = "sample"
    )]
    pub label: String,
    /// With --by uncertainty: no task's probability below this share of the uniform one.
    #[arg(long, value_name = "F", default_value_t = 0.5, requires = "sample")]
    pub floor: f64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum PanelAction {
    /// Make a login for a rater and print its password once (--reset: a new password for the
    /// login they have; the old one stops working).
    Grant {
        /// The rater.
        name: String,
        /// Replace the password of the rater's login; the old password stops working.
        #[arg(long)]
        reset: bool,
        /// Print {"rater", "role", "password"}.
        #[arg(long)]
        json: bool,
    },
    /// Remove a rater's login; their answers stay.
    Revoke {
        /// The rater.
        name: String,
    },
    /// List raters' logins.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum RaterAction {
    /// Add a rater.
    Add {
        /// The rater's unique name (names that differ only in case are refused).
        name: String,
    },
    /// Deactivate a rater who leaves the panel: their answers stay, they leave every queue,
    /// and their unfinished cases are released for `assign` to give to others.
    Deactivate {
        /// The rater's name.
        name: String,
    },
    /// Bring a deactivated rater back.
    Activate {
        /// The rater's name.
        name: String,
    },
    /// Remove a rater who never saved an answer (with answers, deactivate them instead).
    Remove {
        /// The rater's name.
        name: String,
    },
    /// List raters with their load.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Each rater's quality per question: against the reference on calibration tasks
    /// (accuracy, weighted kappa, signed bias with a 95% interval, drift), against the rest of
    /// the panel (alpha without the rater, kappa against the others' consensus), and pace.
    Quality {
        /// One question (id or number).
        #[arg(long)]
        question: Option<String>,
        /// The reference label set (the project's only one when absent).
        #[arg(long)]
        reference: Option<String>,
        /// Bootstrap resamples for the bias intervals.
        #[arg(long, default_value_t = 1000)]
        bootstrap: usize,
        /// The bootstrap's seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}
