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
    /// With --model: the tasks, by id or unique prefix.
    #[arg(value_name = "ID", requires = "model", conflicts_with_all = ["all", "proposals", "for_raters"])]
    pub cases: Vec<String>,
    /// With --model: every task with a base commit whose repository has a registered clone.
    #[arg(long, requires = "model", conflicts_with_all = ["proposals", "for_raters"])]
    pub all: bool,
    /// A JSON file of one proposal or a list, in the audit's codebase_ambiguity.json format
    /// (snippets under `verified` or `proposed`).
    #[arg(
        long,
        required_unless_present_any = ["for_raters", "model"],
        conflicts_with_all = ["for_raters", "model"]
    )]
    pub proposals: Option<std::path::PathBuf>,
    /// The model rater (`verity models add`) whose endpoint proposes each task's choice and
    /// snippets; Verity verifies them.
    #[arg(long, value_name = "NAME", conflicts_with = "for_raters")]
    pub model: Option<String>,
    /// With --model: requests at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// With --model: stop before a request that could take the run's cost past this many USD.
    #[arg(long, value_name = "X")]
    pub budget_usd: Option<f64>,
    /// With --model: seconds one request may take before it is retried.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    /// Show sweeps to raters (on) or hide them (off, the default): in `case show` and their
    /// packages.
    #[arg(long, value_parser = ["on", "off"])]
    pub for_raters: Option<String>,
    /// Print JSON: a list, per proposal {"iid", "choice", "snippets", "n_verified",
    /// "ways_verified", "tier", ...}; with --model each also has "proposer" (the model rater
    /// and its reply's provenance).
    #[arg(long)]
    pub json: bool,
}
