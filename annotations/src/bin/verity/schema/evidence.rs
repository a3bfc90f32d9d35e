//! The schema of evidence: what a case's repository says at its base commit.

use clap::Args;

#[derive(Args)]
pub struct EvidenceArgs {
    /// The case's instance id (omit with --all).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub case_id: Option<String>,
    /// Compute and cache evidence for every case (resumes where a previous run stopped).
    #[arg(long)]
    pub all: bool,
    /// Recompute even when a cached report exists.
    #[arg(long)]
    pub refresh: bool,
    /// Memory bound of the evidence cache (blob contents, scan results, listings), in MiB.
    #[arg(long, default_value_t = 64)]
    pub cache_mb: usize,
    /// When the clone lacks the case's base commit, fetch it without asking.
    #[arg(long)]
    pub fetch_missing: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct GrepArgs {
    /// The case's instance id.
    pub case_id: String,
    /// A fixed string (or a regex with --regex).
    pub pattern: String,
    /// Treat the pattern as a regular expression.
    #[arg(long)]
    pub regex: bool,
    /// Ignore case.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Context lines around each hit.
    #[arg(short = 'C', long, default_value_t = 2)]
    pub context: usize,
    /// Live code only (no tests, vendor, generated or docs paths).
    #[arg(long)]
    pub live: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ShowArgs {
    /// The case's instance id.
    pub case_id: String,
    /// The file's path in the repository.
    pub path: String,
}

#[derive(Args)]
pub struct PrecedentArgs {
    /// The case's instance id.
    pub case_id: String,
    /// The snippets (verbatim code; may span lines).
    #[arg(required = true)]
    pub snippets: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct SweepArgs {
    /// A JSON file of one proposal or a list, in the audit's codebase_ambiguity.json format
    /// (snippets under `verified` or `proposed`).
    #[arg(
        long,
        required_unless_present = "for_raters",
        conflicts_with = "for_raters"
    )]
    pub proposals: Option<std::path::PathBuf>,
    /// Show sweeps to raters (on) or hide them (off, the default): in `case show` and their
    /// packages.
    #[arg(long, value_parser = ["on", "off"])]
    pub for_raters: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}
