//! The schema of exports: files written, packages out and in, migration.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Args)]
pub struct ExportArgs {
    /// The output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// The output file.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
    /// With answers-jsonl: every answer event (drafts, submission, revisions), not only
    /// each rater's latest submitted answer.
    #[arg(long)]
    pub history: bool,
    /// The ensemble rule (max-severity, majority, median, adjudicated); the
    /// questionnaire's default when absent.
    #[arg(long)]
    pub rule: Option<String>,
    /// With openai-ensembled: write a reference label set instead of the panel's ensemble
    /// (no name: the project's only set).
    #[arg(long, num_args = 0..=1, default_missing_value = "")]
    pub reference: Option<String>,
}

#[derive(Args)]
pub struct PackageArgs {
    /// The rater.
    #[arg(long)]
    pub rater: String,
    /// The package file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace the file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Print what was written as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct MergeArgs {
    /// The package files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print what was merged as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct MigrateArgs {
    /// The new project: a file, or postgres://USER@HOST:PORT/DB.
    #[arg(long)]
    pub to: PathBuf,
    /// Print what was copied as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// One JSON line per case: the ensemble, each rater's answers, the agreement per question.
    Jsonl,
    /// One JSON line per case and rater with every answer.
    AnswersJsonl,
    /// One CSV row per case: the ensemble, each rater's answers, the agreement per question.
    Csv,
    /// OpenAI's per-annotator file: one row per case and rater.
    OpenaiAnnotations,
    /// OpenAI's ensembled file: one row per case, its 14 columns.
    OpenaiEnsembled,
    /// The tasks a determinate-only score leaves out, and why (CSV).
    Underdetermined,
}
