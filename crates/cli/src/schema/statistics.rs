//! The schema of statistics: agreement, the ensemble, disagreements, the report.

use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct AgreementArgs {
    /// A long-format ratings file: header `unit,rater,value`, one row per rating.
    #[arg(long)]
    pub ratings: Option<PathBuf>,
    /// The level of measurement (nominal, ordinal, interval, ratio); --ratings only.
    #[arg(long)]
    pub level: Option<String>,
    /// The scale's categories in order, comma-separated; --ratings only.
    #[arg(long)]
    pub categories: Option<String>,
    /// One question of the project's questionnaire.
    #[arg(long)]
    pub question: Option<String>,
    /// Bootstrap resamples for 95% intervals.
    #[arg(long)]
    pub bootstrap: Option<usize>,
    /// The bootstrap's seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct EnsembleArgs {
    /// max-severity, majority, median or adjudicated; the questionnaire's default when
    /// absent.
    #[arg(long)]
    pub rule: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct DisagreementsArgs {
    /// Only this question (its id or number, as `verity questions` lists them).
    #[arg(long)]
    pub question: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ReportArgs {
    /// The folder to write report.md and the charts into.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace a report already in the folder.
    #[arg(long)]
    pub force: bool,
    /// Bootstrap resamples for the intervals (0 for none).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// The bootstrap's seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}
