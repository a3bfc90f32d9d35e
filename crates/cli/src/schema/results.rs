//! The schema of results: systems' outcomes and their scores.

use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args)]
pub struct ScoresArgs {
    /// Bootstrap resamples for the intervals of the differences (0 for none).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: u32,
    /// The bootstrap's seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Also estimate each determinate-only rate and difference from the panel's labels on the
    /// recorded random sample and this predictor on every task: model:NAME, models or risk.
    #[arg(long, value_name = "P")]
    pub predictor: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum ResultsAction {
    /// Import one system's outcomes (or several files, each a system named after its file);
    /// the format is told from the content. A bad file stores nothing.
    Import {
        /// Files, or folders of report.json files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The system's name (default: the file's name up to its first dot).
        #[arg(long)]
        system: Option<String>,
        /// Print what was imported as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The systems whose results the project holds.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a system's results.
    Remove {
        /// The system.
        name: String,
    },
}
