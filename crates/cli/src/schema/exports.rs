//! The schema of exports: files written, packages out and in, migration.

use annotations::ops::{DatasetSubset, ExportFormat};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Args)]
pub struct ExportArgs {
    /// The output format.
    #[arg(long, value_parser = formats())]
    pub format: ExportFormat,
    /// The output file (with hub, the dataset folder).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace the output file (or folder) if it exists.
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
    /// With hub: the licence the dataset is published under, as the Hub names it (mit,
    /// apache-2.0, cc-by-4.0, other); required, never guessed.
    #[arg(long)]
    pub license: Option<String>,
    /// With hub: the split's name.
    #[arg(long)]
    pub split: Option<String>,
    /// With hub: the tasks the filter keeps, or every task.
    #[arg(long, value_enum)]
    pub subset: Option<Subset>,
    /// With hub: raters under their names instead of stable pseudonyms.
    #[arg(long)]
    pub rater_names: bool,
}

/// `--subset`'s values.
#[derive(Clone, Copy, ValueEnum)]
pub enum Subset {
    /// The tasks the questionnaire's filter keeps (the default).
    Kept,
    /// Every task: kept, filtered out (with why) or undecided.
    All,
}

impl From<Subset> for DatasetSubset {
    fn from(subset: Subset) -> DatasetSubset {
        match subset {
            Subset::Kept => DatasetSubset::Kept,
            Subset::All => DatasetSubset::All,
        }
    }
}

#[derive(Args)]
pub struct PublishArgs {
    /// The dataset repository, OWNER/NAME; made if it does not exist.
    pub repo: String,
    /// The dataset folder `verity export --format hub` wrote.
    #[arg(long)]
    pub folder: PathBuf,
    /// Make the repository private when Verity makes it.
    #[arg(long)]
    pub private: bool,
    /// The branch to commit to; made from main if it does not exist.
    #[arg(long, default_value = "main")]
    pub revision: String,
    /// The commit message.
    #[arg(long)]
    pub message: Option<String>,
    /// List what would be uploaded, and how, without uploading anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
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

/// `--format`'s values and their help: the core's list of formats.
fn formats() -> impl TypedValueParser<Value = ExportFormat> {
    PossibleValuesParser::new(
        ExportFormat::ALL.map(|f| PossibleValue::new(f.name()).help(f.info().description)),
    )
    .try_map(|name| name.parse::<ExportFormat>())
}
