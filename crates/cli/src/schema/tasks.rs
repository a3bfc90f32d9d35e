//! The schema of tasks: the project, importing and fetching tasks, queues, cases, the demo, calibration tasks.

use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Args)]
pub struct InitArgs {
    /// A built-in questionnaire id (swe-bench-verified, determinacy) or a TOML file.
    #[arg(long, default_value = "swe-bench-verified")]
    pub questionnaire: String,
}

#[derive(Args)]
pub struct ImportArgs {
    /// Files and folders; the format of each is detected from its content.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct FetchArgs {
    /// The dataset, OWNER/NAME: princeton-nlp/SWE-bench_Verified, ScaleAI/SWE-bench_Pro…
    pub dataset: String,
    /// The split.
    #[arg(long, default_value = "test")]
    pub split: String,
    /// A branch, tag or commit.
    #[arg(long, default_value = "main")]
    pub revision: String,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct QueueArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct CasesArgs {
    /// Only cases assigned to this rater.
    #[arg(long)]
    pub rater: Option<String>,
    /// Only cases with an assignment in this status (the --rater's, when given).
    #[arg(long, value_enum)]
    pub status: Option<StatusArg>,
    /// Only cases of this repository (OWNER/NAME).
    #[arg(long)]
    pub repo: Option<String>,
    /// The order: natural id order, or the highest evidence risk first (tasks whose
    /// evidence is not computed go last).
    #[arg(long, value_enum, default_value = "id")]
    pub sort: SortArg,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct DemoArgs {
    /// Open the empty demo instead (`demo-empty.verity`): the same tasks, two raters per
    /// task and nothing answered yet, for trying a rater's first hour.
    #[arg(long)]
    pub empty: bool,
    /// The folder to keep the demo project and its repository in; by default the desktop
    /// app's own (`~/.local/share/dev.verity.desktop/demo` on Linux), so both open the
    /// same project.
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum CaseAction {
    /// Show a case: its texts, patch summaries, tests, and each rater's answers with their
    /// revision history (the coordinator sees every rater's; with --as RATER only that rater's).
    Show {
        /// The instance id (or a unique prefix of it).
        id: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SortArg {
    /// Natural id order.
    Id,
    /// The highest evidence risk score first.
    Risk,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum StatusArg {
    /// Nothing saved yet.
    ToDo,
    /// A draft is saved.
    InProgress,
    /// Submitted.
    Submitted,
}

#[derive(Subcommand)]
pub enum CalibrationAction {
    /// Make tasks with reference labels calibration tasks (with --all, every such task).
    Add {
        /// Task ids (or unique prefixes).
        ids: Vec<String>,
        /// Every task a reference set labels.
        #[arg(long, conflicts_with = "ids")]
        all: bool,
    },
    /// Make calibration tasks ordinary again; their assignments and answers stay.
    Remove {
        /// Task ids (or unique prefixes).
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Set the share of each rater's queue that `assign` fills with calibration tasks (0.1:
    /// one in ten; 0: none).
    Rate {
        /// The share, from 0 up to 1.
        rate: f64,
    },
    /// The calibration tasks and the rate.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}
