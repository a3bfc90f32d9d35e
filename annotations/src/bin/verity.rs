//! The `verity` command line: parses arguments, calls `annotations::ops`, prints.
//!
//! Exit status: 0 on success, 1 when a check fails, 2 on an error (one sentence on stderr).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use annotations::ops::{self, AnswerRequest, Engine, Project, QuestionnaireChoice, ScoresOptions};
use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use serde::Serialize;
use time::OffsetDateTime;

#[path = "verity/case_text.rs"]
mod case_text;
#[path = "verity/coordinator.rs"]
mod coordinator;
#[path = "verity/models.rs"]
mod models;
#[path = "verity/scores.rs"]
mod scores;

#[derive(Parser)]
#[command(
    name = "verity",
    version,
    about = "Rate SWE-bench-style tasks with a panel: import, assign, answer, measure agreement, export"
)]
struct Cli {
    /// The project: a file (a SQLite database), or a server project's
    /// postgres://USER@HOST:PORT/DB (the password from PGPASSWORD or ~/.pgpass, never the URL).
    #[arg(long, global = true, env = "VERITY_PROJECT")]
    project: Option<PathBuf>,
    /// Log what happens to stderr (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Act as this rater instead of the coordinator: see and change only their own answers.
    #[arg(long = "as", global = true, value_name = "RATER")]
    as_rater: Option<String>,
    /// Take model raters' answers into agreement, ensembles, disagreements, the report and
    /// exports (humans only without it).
    #[arg(long, global = true)]
    include_models: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create a new project file.
    Init {
        /// A built-in questionnaire id (swe-bench-verified, determinacy) or a TOML file.
        #[arg(long, default_value = "swe-bench-verified")]
        questionnaire: String,
    },
    /// Import tasks: SWE-bench or SWE-bench Pro JSON/JSONL files, audit case folders.
    Import {
        /// Files and folders; the format of each is detected from its content.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Download a dataset's split from the Hugging Face Hub (its Parquet files, into the cache
    /// Python's huggingface_hub shares) and import its rows. Honours HF_TOKEN, HF_ENDPOINT,
    /// HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE and HTTPS_PROXY; an interrupted download resumes.
    Fetch {
        /// The dataset, OWNER/NAME: princeton-nlp/SWE-bench_Verified, ScaleAI/SWE-bench_Pro…
        dataset: String,
        /// The split.
        #[arg(long, default_value = "test")]
        split: String,
        /// A branch, tag or commit.
        #[arg(long, default_value = "main")]
        revision: String,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// A rater's own queue: their assigned tasks with how far they are (with --as RATER, or
    /// over a rater's login or package).
    Queue {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the project's cases with their assignments' status and evidence risk, in natural id
    /// order or by risk.
    Cases {
        /// Only cases assigned to this rater.
        #[arg(long)]
        rater: Option<String>,
        /// Only cases with an assignment in this status (the --rater's, when given).
        #[arg(long, value_enum)]
        status: Option<StatusArg>,
        /// Only cases of this repository (OWNER/NAME).
        #[arg(long)]
        repo: Option<String>,
        /// The order: natural id order, or the highest evidence risk first (tasks whose
        /// evidence is not computed go last).
        #[arg(long, value_enum, default_value = "id")]
        sort: SortArg,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// One case.
    Case {
        #[command(subcommand)]
        action: CaseAction,
    },
    /// Manage raters.
    Raters {
        #[command(subcommand)]
        action: RaterAction,
    },
    /// Give each case K distinct active raters, evening out the load (seeded, reproducible),
    /// or with --rater assign cases to named raters explicitly. Every case with materials, or
    /// only those named by --case, --cases or --repo.
    #[command(group(clap::ArgGroup::new("how").required(true).args(["per_case", "rater"])))]
    #[command(group(clap::ArgGroup::new("which").args(["case_ids", "cases_file", "repo"])))]
    Assign {
        /// Raters per case.
        #[arg(long)]
        per_case: Option<usize>,
        /// Assign to this rater (repeat for several).
        #[arg(long)]
        rater: Vec<String>,
        /// Only this case (id or unique prefix; repeat for several).
        #[arg(long = "case")]
        case_ids: Vec<String>,
        /// Only the cases listed in this file, one id per line.
        #[arg(long = "cases")]
        cases_file: Option<PathBuf>,
        /// Only the cases of this repository (OWNER/NAME).
        #[arg(long)]
        repo: Option<String>,
        /// The seed that breaks ties between equally loaded raters.
        #[arg(long, default_value_t = 0, conflicts_with = "rater")]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Record a rater's answers from a JSON file (question id to value): a draft, or with
    /// --submit a submission; a change after submission needs --reason.
    Answer {
        /// The rater's name.
        #[arg(long)]
        rater: String,
        /// The case's instance id.
        #[arg(long = "case")]
        case_id: String,
        /// A JSON object of answers.
        #[arg(long)]
        file: PathBuf,
        /// Submit (validated against every rule) instead of saving a draft.
        #[arg(long)]
        submit: bool,
        /// Why a submitted answer is revised.
        #[arg(long)]
        reason: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Register or list local clones of the tasks' repositories (read only, never checked out).
    Repo {
        #[command(subcommand)]
        action: RepoAction,
    },
    /// What the repository at a case's base commit says about it: the test patch's terms and
    /// where each occurs, airtight candidates, precedents; every finding with its git grep.
    Evidence {
        /// The case's instance id (omit with --all).
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        case_id: Option<String>,
        /// Compute and cache evidence for every case (resumes where a previous run stopped).
        #[arg(long)]
        all: bool,
        /// Recompute even when a cached report exists.
        #[arg(long)]
        refresh: bool,
        /// Memory bound of the evidence cache (blob contents, scan results, listings), in MiB.
        #[arg(long, default_value_t = 64)]
        cache_mb: usize,
        /// When the clone lacks the case's base commit, fetch it without asking.
        #[arg(long)]
        fetch_missing: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Search every text file at a case's base commit.
    Grep {
        /// The case's instance id.
        case_id: String,
        /// A fixed string (or a regex with --regex).
        pattern: String,
        /// Treat the pattern as a regular expression.
        #[arg(long)]
        regex: bool,
        /// Ignore case.
        #[arg(short = 'i', long)]
        ignore_case: bool,
        /// Context lines around each hit.
        #[arg(short = 'C', long, default_value_t = 2)]
        context: usize,
        /// Live code only (no tests, vendor, generated or docs paths).
        #[arg(long)]
        live: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a file as it is at a case's base commit.
    Show {
        /// The case's instance id.
        case_id: String,
        /// The file's path in the repository.
        path: String,
    },
    /// Verify code snippets at a case's base commit, in live code.
    Precedent {
        /// The case's instance id.
        case_id: String,
        /// The snippets (verbatim code; may span lines).
        #[arg(required = true)]
        snippets: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Create (on first use) and open the embedded demo project: twelve tasks on a small
    /// git repository and a finished round (three raters' answers on every task, one
    /// adjudication, reference labels on six tasks). Prints the project file's path.
    Demo {
        /// Open the empty demo instead (`demo-empty.verity`): the same tasks, two raters per
        /// task and nothing answered yet, for trying a rater's first hour.
        #[arg(long)]
        empty: bool,
        /// The folder to keep the demo project and its repository in; by default the desktop
        /// app's own (`~/.local/share/dev.verity.desktop/demo` on Linux), so both open the
        /// same project.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Export answers and labels. The file is written whole or not at all; an existing file is
    /// refused unless --force.
    Export {
        /// The output format.
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// The output file.
        #[arg(long)]
        out: PathBuf,
        /// Replace the output file if it exists.
        #[arg(long)]
        force: bool,
        /// With answers-jsonl: every answer event (drafts, submission, revisions), not only
        /// each rater's latest submitted answer.
        #[arg(long)]
        history: bool,
        /// The ensemble rule (max-severity, majority, median, adjudicated); the
        /// questionnaire's default when absent.
        #[arg(long)]
        rule: Option<String>,
        /// With openai-ensembled: write a reference label set instead of the panel's ensemble
        /// (no name: the project's only set).
        #[arg(long, num_args = 0..=1, default_missing_value = "")]
        reference: Option<String>,
    },
    /// Write a rater's package: a project file with their assigned tasks, the questionnaire,
    /// the cached evidence and their own answers, to work on offline and merge back.
    Package {
        /// The rater.
        #[arg(long)]
        rater: String,
        /// The package file to write.
        #[arg(long)]
        out: PathBuf,
        /// Replace the file if it exists.
        #[arg(long)]
        force: bool,
        /// Print what was written as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Merge raters' packages into the project. Events already merged are skipped; two
    /// different events with one id are listed as conflicts and the stored one stays; an answer
    /// that diverges from the rater's history in the project (another revision 2) is listed and
    /// kept as a conflict for `verity conflicts`.
    Merge {
        /// The package files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print what was merged as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Copy the whole project into a new one (a file or a server), every row as it is.
    Migrate {
        /// The new project: a file, or postgres://USER@HOST:PORT/DB.
        #[arg(long)]
        to: PathBuf,
        /// Print what was copied as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Inter-rater agreement: on a ratings CSV (`unit,rater,value`) with --ratings, or per
    /// question of the project's questionnaire over raters' first submissions.
    Agreement {
        /// A long-format ratings file: header `unit,rater,value`, one row per rating.
        #[arg(long)]
        ratings: Option<PathBuf>,
        /// The level of measurement (nominal, ordinal, interval, ratio); --ratings only.
        #[arg(long)]
        level: Option<String>,
        /// The scale's categories in order, comma-separated; --ratings only.
        #[arg(long)]
        categories: Option<String>,
        /// One question of the project's questionnaire.
        #[arg(long)]
        question: Option<String>,
        /// Bootstrap resamples for 95% intervals.
        #[arg(long)]
        bootstrap: Option<usize>,
        /// The bootstrap's seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Combine raters' latest submitted answers into one label per case and question, and
    /// apply the questionnaire's filter.
    Ensemble {
        /// max-severity, majority, median or adjudicated; the questionnaire's default when
        /// absent.
        #[arg(long)]
        rule: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Cases and questions where raters' current answers differ, worst first.
    Disagreements {
        /// Only this question (its id or number, as `verity questions` lists them).
        #[arg(long)]
        question: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The questionnaire's questions: number, id, kind, level and scale. Wherever a command
    /// takes a question, its id or its number will do.
    Questions {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Record an adjudicator's decision on one question of one case.
    Adjudicate {
        /// The case's instance id.
        #[arg(long = "case")]
        case_id: String,
        /// The question's id.
        #[arg(long)]
        question: String,
        /// The final value: one of the question's options.
        #[arg(long)]
        value: String,
        /// Why.
        #[arg(long)]
        rationale: String,
        /// Who decides: the coordinator, or an adjudicator named with `verity adjudicators add`.
        #[arg(long, default_value = ops::COORDINATOR)]
        by: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Raters' own logins on a server project: the server holds each to their own tasks and
    /// answers.
    Panel {
        #[command(subcommand)]
        action: PanelAction,
    },
    /// Calibration tasks: tasks with reference labels that `assign` mixes into every rater's
    /// queue at a rate; raters cannot tell them from the others.
    Calibration {
        #[command(subcommand)]
        action: CalibrationAction,
    },
    /// Name who besides the coordinator may adjudicate.
    Adjudicators {
        #[command(subcommand)]
        action: AdjudicatorAction,
    },
    /// Answers that diverged from their rater's history (a merged package's revision beside the
    /// project's own): list them, and settle each by keeping one answer; both stay in the history.
    Conflicts {
        #[command(subcommand)]
        action: ConflictAction,
    },
    /// Systems' per-task outcomes on the benchmark: SWE-bench run summaries, report.json maps,
    /// results.json, SWE-bench Pro eval_results.json, CSV or JSON lines.
    Results {
        #[command(subcommand)]
        action: ResultsAction,
    },
    /// Each system's resolve rate over every task beside its rate over the determinate ones,
    /// with 95% Wilson intervals, both orders and Kendall's tau-b between them, and every pair
    /// compared (McNemar's exact test, a bootstrap interval of the difference).
    Scores {
        /// Bootstrap resamples for the intervals of the differences (0 for none).
        #[arg(long, default_value_t = 1000)]
        bootstrap: u32,
        /// The bootstrap's seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Model raters: an LLM behind an OpenAI-compatible endpoint rates tasks beside the panel,
    /// within a budget, each answer with its provenance.
    Models {
        #[command(subcommand)]
        action: models::ModelsAction,
    },
    /// Write a Markdown report with SVG charts: agreement per question with intervals, rater
    /// pairs, label distributions, the count the filter keeps. A folder that holds a report is
    /// refused unless --force.
    Report {
        /// The folder to write report.md and the charts into.
        #[arg(long)]
        out: PathBuf,
        /// Replace a report already in the folder.
        #[arg(long)]
        force: bool,
        /// Bootstrap resamples for the intervals (0 for none).
        #[arg(long, default_value_t = 1000)]
        bootstrap: usize,
        /// The bootstrap's seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
}

#[derive(Subcommand)]
enum CaseAction {
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

#[derive(Subcommand)]
enum AdjudicatorAction {
    /// Name an adjudicator.
    Add {
        /// The adjudicator's name, as `adjudicate --by` gives it.
        name: String,
    },
    /// Remove a named adjudicator; their decisions stay.
    Remove {
        /// The adjudicator's name.
        name: String,
    },
    /// List the named adjudicators.
    List,
}

#[derive(Subcommand)]
enum ConflictAction {
    /// List the open conflicts (with --all, the settled ones too).
    List {
        /// The settled conflicts too.
        #[arg(long)]
        all: bool,
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Settle a conflict: keep the project's answer, or take the conflict's answer as the
    /// rater's next revision.
    Resolve {
        /// The conflict's number, as `conflicts list` shows it.
        id: i64,
        /// Which answer to keep.
        #[arg(long, value_parser = ["stored", "incoming"])]
        keep: String,
        /// A note kept with the decision.
        #[arg(long)]
        note: Option<String>,
        /// Print the settled conflict as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum PanelAction {
    /// Make a login for a rater (or a new password for theirs) and print it once.
    Grant {
        /// The rater.
        name: String,
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

#[derive(Clone, Copy, ValueEnum)]
enum SortArg {
    /// Natural id order.
    Id,
    /// The highest evidence risk score first.
    Risk,
}

#[derive(Clone, Copy, ValueEnum)]
enum StatusArg {
    /// Nothing saved yet.
    ToDo,
    /// A draft is saved.
    InProgress,
    /// Submitted.
    Submitted,
}

#[derive(Subcommand)]
enum RepoAction {
    /// Register the local clone (bare or not) of OWNER/NAME.
    Add {
        /// `owner/name`, as the tasks' `repo` field gives it.
        name: String,
        /// The clone's path.
        path: PathBuf,
    },
    /// Forget the clone registered for OWNER/NAME (the clone itself is not touched).
    Remove {
        /// `owner/name`.
        name: String,
    },
    /// List registered clones with how many of the project's base commits each holds.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Clone OWNER/NAME (once, into the cache folder: $VERITY_REPO_CACHE, else
    /// ~/.local/share/verity/repositories), register it, and fetch the base commits it lacks.
    /// Ctrl-C stops it; running it again resumes.
    Clone {
        /// `owner/name`, as the tasks' `repo` field gives it.
        name: String,
        /// Where to clone from (https://, http://, git://, file:// or a local path); by default
        /// https://github.com/OWNER/NAME.
        #[arg(long)]
        url: Option<String>,
        /// The folder to clone into instead of the cache.
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Fetch, by id, the base commits that the registered clone of OWNER/NAME lacks.
    FetchMissing {
        /// `owner/name`.
        name: String,
        /// Where to fetch from; the clone's `origin` by default.
        #[arg(long)]
        url: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum RaterAction {
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

#[derive(Subcommand)]
enum CalibrationAction {
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

#[derive(Subcommand)]
enum ResultsAction {
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

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
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

/// Tunes glibc's malloc for `evidence --all`, whose cache reads and evicts blobs of every size
/// over thousands of commits: with its default, a freed large block raises the threshold above
/// which blocks are mapped on their own, so later large blobs come from the heaps and what the
/// cache evicts stays resident as fragments. Over 418 SWE-bench Pro tasks this kept the peak
/// at 1.7 times the cache's bound. A fixed threshold returns every large block to the system
/// when freed, and two arenas are enough for the engine's two threads.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn tune_malloc() {
    // SAFETY: `mallopt` only sets allocator parameters; `main` runs it before any other
    // thread exists. A parameter it refuses leaves the default in place.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_malloc() {}

/// libgit2 maps pack files in windows of 1 GiB, up to 8 GiB in all, and every page the
/// evidence engine reads stays resident while mapped: `evidence --all` over Ansible's 500 MB
/// pack peaked at 330 MB. Windows of 8 MiB, 32 MiB mapped at most, keep the pages that count
/// near the engine's own cache bound; libgit2 unmaps the least recently used window first.
/// Set for `evidence --all` only, by [`start_git_offline`] before libgit2 starts.
#[allow(unsafe_code)]
fn bound_pack_windows() {
    // SAFETY: these only set libgit2's global window options; `start_git_offline` runs them
    // once, before any repository is opened. An option refused keeps its default.
    unsafe {
        let _ = git2::opts::set_mwindow_size(8 << 20);
        let _ = git2::opts::set_mwindow_mapped_limit(32 << 20);
    }
}

/// Starts libgit2 for the commands that read clones, before any other thread exists, without
/// the TLS certificate authorities; `bound` bounds its pack windows first.
///
/// As it starts, libgit2 loads the system's certificate authorities into the context it would
/// use for https: about 18 ms, more than the whole evidence of a small repository. These
/// commands connect only to fetch a missing base commit, after [`load_trust_store`]. libgit2
/// starts with `SSL_CERT_FILE` pointing at an empty file; then that variable and
/// `SSL_CERT_DIR` (which git2 sets as it starts) are put back as they were, since the
/// PostgreSQL client reads them for its own TLS roots.
#[allow(unsafe_code)]
fn start_git_offline(bound: bool) {
    let prior = ["SSL_CERT_FILE", "SSL_CERT_DIR"].map(|name| (name, std::env::var_os(name)));
    // SAFETY: `main` calls this before it starts any thread, so nothing reads the environment
    // while it changes.
    unsafe { std::env::set_var("SSL_CERT_FILE", "/dev/null") };
    if bound {
        bound_pack_windows();
    }
    annotations::evidence::prepare();
    for (name, value) in prior {
        // SAFETY: as above; libgit2's start has returned and started no thread.
        unsafe {
            match value {
                Some(value) => std::env::set_var(name, value),
                None => std::env::remove_var(name),
            }
        }
    }
}

/// Loads the certificate authorities that [`start_git_offline`] left out, before a fetch.
#[allow(unsafe_code)]
fn load_trust_store() {
    let found = openssl_probe::probe();
    let loaded = (|| -> Result<(), git2::Error> {
        // SAFETY: libgit2 reads these locations only as it opens a TLS connection, and this
        // runs on the command's one thread before its fetch opens any.
        unsafe {
            if let Some(file) = &found.cert_file {
                git2::opts::set_ssl_cert_file(file)?;
            }
            if let Some(dir) = &found.cert_dir {
                git2::opts::set_ssl_cert_dir(dir)?;
            }
        }
        Ok(())
    })();
    if let Err(err) = loaded {
        tracing::warn!(
            "the TLS certificate authorities ({:?}, {:?}) did not load: {}",
            found.cert_file,
            found.cert_dir,
            err.message()
        );
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Reading commit after commit, `evidence --all` holds its memory bound at some cost in
    // speed (a fifth of a single task's time on flipt and NodeBB); one task needs no bound.
    let bound = matches!(cli.command, Command::Evidence { all: true, .. });
    if bound {
        tune_malloc();
    }
    init_logging(cli.verbose);
    if matches!(
        cli.command,
        Command::Evidence { .. }
            | Command::Grep { .. }
            | Command::Show { .. }
            | Command::Precedent { .. }
    ) {
        start_git_offline(bound);
    }
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("verity: {}", error_sentence(&err));
            ExitCode::from(2)
        }
    }
}

/// Whether the output's reader went away (`verity cases | head`): then the command stops
/// quietly, as Unix tools do. serde_json reports a failed write as its own error, whose
/// source skips the I/O error itself, so it is asked for the error's kind.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| {
                e.downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            })
            == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes as one sentence. Library messages already end with their source's
/// message (the desktop app shows them alone), so a cause is added only when the text so far
/// does not hold it; anyhow's `{:#}` would print the OS error twice.
fn error_sentence(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let message = cause.to_string();
        if text.contains(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
    }
    text
}

fn init_logging(verbose: u8) {
    let level = match verbose {
        0 => return,
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    // Colour codes only on a terminal: a redirected log is read as text.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(tracing_subscriber::EnvFilter::new(format!(
            "annotations={level},verity={level}"
        )))
        .init();
}

fn project_path(cli_path: Option<&Path>) -> Result<&Path> {
    cli_path.context("no project given: pass --project FILE or set VERITY_PROJECT")
}

/// The project a command works on and who it acts as: `--as RATER`, or else the coordinator
/// (a rater's package acts for its rater).
struct Session<'a> {
    path: Option<&'a Path>,
    actor: Option<ops::Actor>,
    include_models: bool,
}

impl Session<'_> {
    fn open(&self) -> Result<Project> {
        let mut project = ops::open_project(project_path(self.path)?)?;
        if let Some(actor) = &self.actor {
            project.act_as(actor.clone())?;
        }
        project.include_models(self.include_models);
        Ok(project)
    }
}

/// One conflict as `conflicts list` prints it: who, which task, what each answer says.
fn write_conflict(out: &mut dyn Write, c: &ops::ConflictView) -> Result<()> {
    writeln!(
        out,
        "conflict {}: {} on {}, {} revision {} saved {} in {} ({})",
        c.id,
        c.rater,
        c.instance_id,
        c.kind.as_str(),
        c.answer_revision,
        c.at,
        c.origin,
        c.resolution.as_deref().unwrap_or("open")
    )?;
    let show = |values: &serde_json::Map<String, serde_json::Value>| {
        values
            .iter()
            .filter(|(_, v)| !v.is_string())
            .map(|(q, v)| format!("{q}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    writeln!(out, "  its answer:     {}", show(&c.values))?;
    match (&c.current_revision, &c.current_values) {
        (Some(n), Some(values)) => writeln!(out, "  revision {n} held: {}", show(values))?,
        _ => writeln!(out, "  the project holds no submitted answer")?,
    }
    Ok(())
}

fn print_json<T: Serialize>(value: &T) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode> {
    let now = OffsetDateTime::now_utc();
    let project = Session {
        path: cli.project.as_deref(),
        actor: cli.as_rater.map(|name| ops::Actor::Rater { name }),
        include_models: cli.include_models,
    };
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Init { questionnaire } => {
            let path = project_path(project.path)?;
            let choice = if questionnaire.ends_with(".toml") || Path::new(&questionnaire).is_file()
            {
                QuestionnaireChoice::File(PathBuf::from(&questionnaire))
            } else {
                QuestionnaireChoice::Builtin(questionnaire)
            };
            let p = ops::init_project(path, &choice, now)?;
            let q = p.questionnaire();
            writeln!(
                out,
                "created {} (questionnaire {} {})",
                path.display(),
                q.id,
                q.version
            )?;
        }
        Command::Import { paths, json } => {
            let mut p = project.open()?;
            let cancel = AtomicBool::new(false);
            let bar = progress_bar(paths.len() as u64, "{bar:30} {pos}/{len} paths, {msg}");
            let mut progress = |step: &ops::ImportProgress| {
                if let Some(bar) = &bar {
                    bar.set_position(step.paths_done as u64);
                    bar.set_message(format!("{} records", step.records));
                }
            };
            let report = ops::import_paths(&mut p, &paths, now, &mut progress, &cancel)?;
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            if json {
                print_json(&report)?;
            } else {
                for path in &report.paths {
                    writeln!(
                        out,
                        "{}: {} ({} records)",
                        path.path, path.format, path.records
                    )?;
                    if !path.kept_fields.is_empty() {
                        writeln!(
                            out,
                            "  kept but not shown to raters: {}",
                            path.kept_fields.join(", ")
                        )?;
                    }
                }
                writeln!(
                    out,
                    "added {}, updated {}, unchanged {}",
                    report.added, report.updated, report.unchanged
                )?;
            }
        }
        Command::Fetch {
            dataset,
            split,
            revision,
            json,
        } => {
            let mut p = project.open()?;
            let cancel = cancel_on_ctrl_c();
            let bar = progress_bar(0, "{msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec}");
            let mut progress = |step: &ops::FetchProgress| {
                let Some(bar) = &bar else { return };
                match step {
                    ops::FetchProgress::Download(d) => {
                        bar.set_length(d.bytes_total);
                        bar.set_position(d.bytes_done);
                        let file = d.file.as_deref().unwrap_or("listing files");
                        bar.set_message(match &d.waiting {
                            Some(why) => format!("{file}: {why}"),
                            None => format!("{}/{} {file}", d.files_done, d.files_total),
                        });
                    }
                    ops::FetchProgress::Import(i) => {
                        bar.set_message(format!("importing: {} records", i.records));
                    }
                }
            };
            let request = ops::FetchRequest {
                dataset,
                split: Some(split),
                revision: Some(revision),
            };
            let settings = annotations::hub::HubSettings::from_env();
            let report =
                ops::fetch_dataset(&mut p, &request, &settings, now, &mut progress, &cancel)?;
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            if json {
                print_json(&report)?;
            } else {
                let fetched = &report.fetched;
                let bytes: u64 = fetched.files.iter().map(|f| f.bytes).sum();
                writeln!(
                    out,
                    "{} {} at {} ({}): {} files, {} bytes, {}",
                    fetched.dataset,
                    fetched.split,
                    fetched.revision,
                    fetched.commit,
                    fetched.files.len(),
                    bytes,
                    if report.from_cache {
                        format!(
                            "served from the cache {}, nothing downloaded",
                            fetched.cache
                        )
                    } else {
                        format!("downloaded into the cache {}", fetched.cache)
                    }
                )?;
                for file in &fetched.files {
                    writeln!(out, "{}\tsha256 {}", file.path, file.sha256)?;
                }
                writeln!(
                    out,
                    "added {}, updated {}, unchanged {}",
                    report.import.added, report.import.updated, report.import.unchanged
                )?;
            }
        }
        Command::Queue { json } => {
            let p = project.open()?;
            let Some(ops::Actor::Rater { name }) = p.actor().cloned() else {
                bail!(
                    "`verity queue` lists a rater's own tasks: pass --as RATER, or open the project over a rater's login or package; `verity cases` lists every task"
                );
            };
            let queue = ops::rater_queue(&p, &name)?;
            if json {
                print_json(&queue)?;
            } else {
                for item in &queue {
                    writeln!(
                        out,
                        "{}\t{}\t{}\t{}",
                        item.instance_id,
                        status_word(item.status),
                        item.repo,
                        item.title
                    )?;
                }
                writeln!(out, "{} tasks for {name}", queue.len())?;
            }
        }
        Command::Cases {
            rater,
            status,
            repo,
            sort,
            json,
        } => {
            let p = project.open()?;
            let filter = ops::CaseFilter {
                rater,
                status: status.map(|s| match s {
                    StatusArg::ToDo => ops::AnswerStatus::ToDo,
                    StatusArg::InProgress => ops::AnswerStatus::InProgress,
                    StatusArg::Submitted => ops::AnswerStatus::Submitted,
                }),
                repo,
                order: match sort {
                    SortArg::Id => ops::CaseOrder::Id,
                    SortArg::Risk => ops::CaseOrder::Risk,
                },
            };
            let cases = ops::list_cases(&p, &filter)?;
            if json {
                print_json(&cases)?;
            } else {
                for case in &cases {
                    let status: Vec<String> = case
                        .assignments
                        .iter()
                        .map(|a| format!("{}:{}", a.rater, status_word(a.status)))
                        .collect();
                    let risk = case
                        .risk
                        .map_or_else(|| "risk -".to_string(), |r| format!("risk {r:.2}"));
                    writeln!(
                        out,
                        "{}\t{}\trev {}{}\t{risk}\t{}\t{}",
                        case.instance_id,
                        case.repo,
                        case.revision,
                        if case.has_materials {
                            ""
                        } else {
                            " (no materials)"
                        },
                        status.join(" "),
                        case.title
                    )?;
                }
                writeln!(out, "{} cases", cases.len())?;
            }
        }
        Command::Case {
            action: CaseAction::Show { id, json },
        } => {
            let p = project.open()?;
            let case = ops::show_case(&p, &id)?;
            let answers = ops::answer_history(&p, &case.instance_id)?;
            if json {
                #[derive(Serialize)]
                struct Shown<'a> {
                    #[serde(flatten)]
                    case: &'a ops::CaseDetail,
                    answers: &'a [ops::RaterAnswerHistory],
                }
                print_json(&Shown {
                    case: &case,
                    answers: &answers,
                })?;
            } else {
                let order: Vec<&str> = p
                    .questionnaire()
                    .questions()
                    .map(|q| q.id.as_str())
                    .collect();
                case_text::write_case(&mut out, &case, &answers, &order)?;
            }
        }
        Command::Raters { action } => match action {
            RaterAction::Add { name } => {
                let mut p = project.open()?;
                let rater = ops::add_rater(&mut p, &name, now)?;
                writeln!(out, "added rater {}", rater.name)?;
            }
            RaterAction::Deactivate { name } => {
                let mut p = project.open()?;
                let change = ops::deactivate_rater(&mut p, &name, now)?;
                writeln!(
                    out,
                    "deactivated {}: {} submitted answers kept, {} unfinished cases released (give them to others with `verity assign --per-case K`)",
                    change.name, change.submitted, change.released
                )?;
            }
            RaterAction::Activate { name } => {
                let mut p = project.open()?;
                let rater = ops::reactivate_rater(&mut p, &name, now)?;
                writeln!(out, "reactivated {}", rater.name)?;
            }
            RaterAction::Remove { name } => {
                let mut p = project.open()?;
                let change = ops::remove_rater(&mut p, &name)?;
                writeln!(
                    out,
                    "removed rater {} and {} assignments",
                    change.name, change.released
                )?;
            }
            RaterAction::Quality {
                question,
                reference,
                bootstrap,
                seed,
                json,
            } => {
                let p = project.open()?;
                let report = ops::rater_quality(
                    &p,
                    &ops::QualityRequest {
                        question,
                        reference,
                        bootstrap: Some(bootstrap),
                        seed,
                    },
                )?;
                if json {
                    print_json(&report.raters)?;
                } else {
                    write!(out, "{}", quality_text(&report))?;
                }
            }
            RaterAction::List { json } => {
                let p = project.open()?;
                let raters = ops::list_raters(&p)?;
                if json {
                    print_json(&raters)?;
                } else {
                    for r in &raters {
                        writeln!(
                            out,
                            "{}\t{} assigned\t{} submitted{}",
                            r.name,
                            r.assigned,
                            r.submitted,
                            if r.active { "" } else { "\tdeactivated" }
                        )?;
                    }
                }
            }
        },
        Command::Calibration { action } => {
            let mut p = project.open()?;
            let (view, json) = match action {
                CalibrationAction::Add { ids, all } => {
                    (ops::mark_calibration(&mut p, &ids, all, now)?, false)
                }
                CalibrationAction::Remove { ids } => {
                    (ops::unmark_calibration(&mut p, &ids, now)?, false)
                }
                CalibrationAction::Rate { rate } => {
                    (ops::set_calibration_rate(&mut p, rate)?, false)
                }
                CalibrationAction::List { json } => (ops::calibration(&p)?, json),
            };
            if json {
                print_json(&view)?;
            } else {
                writeln!(
                    out,
                    "{} calibration tasks (of {} with reference labels{}); rate {}",
                    view.tasks.len(),
                    view.with_reference,
                    if view.without_materials > 0 {
                        format!(
                            "; {} of them lack materials and cannot be, until their instances are imported",
                            view.without_materials
                        )
                    } else {
                        String::new()
                    },
                    view.rate.map_or_else(
                        || "not set: `assign` mixes none in".to_string(),
                        |r| format!("{r} of each queue")
                    )
                )?;
            }
        }
        Command::Assign {
            per_case,
            rater,
            case_ids,
            cases_file,
            repo,
            seed,
            json,
        } => {
            let mut p = project.open()?;
            let selection = if let Some(file) = cases_file {
                ops::CaseSelection::Ids(read_case_list(&file)?)
            } else if let Some(repo) = repo {
                ops::CaseSelection::Repo(repo)
            } else if !case_ids.is_empty() {
                ops::CaseSelection::Ids(case_ids)
            } else {
                ops::CaseSelection::All
            };
            let report = match per_case {
                Some(k) => ops::assign(&mut p, k, seed, &selection, now)?,
                None => ops::assign_to(&mut p, &rater, &selection, now)?,
            };
            if json {
                print_json(&report)?;
            } else {
                writeln!(
                    out,
                    "{} new assignments over {} cases{}{}",
                    report.added,
                    report.cases,
                    if report.calibration_assignments > 0 {
                        format!(
                            ", {} of them of {} calibration tasks",
                            report.calibration_assignments,
                            report.calibration.len()
                        )
                    } else {
                        String::new()
                    },
                    if report.without_materials > 0 {
                        format!(
                            " ({} tasks without materials left out: import their instances first)",
                            report.without_materials
                        )
                    } else {
                        String::new()
                    }
                )?;
                if let Some(why) = &report.why_none {
                    writeln!(out, "nothing assigned: {why}")?;
                }
                for (name, load) in &report.load {
                    writeln!(out, "{name}\t{load}")?;
                }
            }
        }
        Command::Answer {
            rater,
            case_id,
            file,
            submit,
            reason,
            json,
        } => {
            let mut p = project.open()?;
            // `--rater` says who answers; the coordinator acts as that rater for this command.
            if p.actor() == Some(&ops::Actor::Coordinator) {
                p.act_as(ops::Actor::Rater {
                    name: rater.clone(),
                })?;
            }
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let values: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "{}, line {}: not valid JSON ({e})",
                    file.display(),
                    e.line()
                )
            })?;
            let serde_json::Value::Object(values) = values else {
                bail!(
                    "{}: expected a JSON object of question ids to answers",
                    file.display()
                );
            };
            let req = AnswerRequest {
                rater,
                case: case_id,
                values,
                case_revision: None,
                reason: reason.clone(),
            };
            let view = match (submit, reason.is_some()) {
                (false, true) => bail!("--reason is for revising a submitted answer: add --submit"),
                (false, false) => ops::save_draft(&mut p, &req, now)?,
                (true, false) => ops::submit_answer(&mut p, &req, now)?,
                (true, true) => ops::revise_answer(&mut p, &req, now)?,
            };
            if json {
                print_json(&view)?;
            } else if view.unchanged {
                writeln!(
                    out,
                    "{}'s submitted answer on {} is already this; nothing was saved (answer revision {})",
                    view.rater, view.case, view.answer_revision
                )?;
            } else {
                writeln!(
                    out,
                    "{} {} on {} (answer revision {}, {})",
                    view.rater,
                    match view.status {
                        ops::AnswerStatus::Submitted if view.answer_revision > 1 => "revised",
                        ops::AnswerStatus::Submitted => "submitted",
                        _ => "saved a draft",
                    },
                    view.case,
                    view.answer_revision,
                    view.questionnaire
                )?;
            }
        }
        Command::Repo { action } => match action {
            RepoAction::Add { name, path } => {
                let mut p = project.open()?;
                let status = ops::add_repository(&mut p, &name, &path, now)?;
                writeln!(
                    out,
                    "registered {} at {} ({} of {} base commits held)",
                    status.name, status.path, status.held, status.base_commits
                )?;
                let missing = status.base_commits - status.held;
                if missing > 0 {
                    writeln!(
                        out,
                        "{missing} base commits are missing: their tasks get no evidence until `verity repo fetch-missing {}` fetches them",
                        status.name
                    )?;
                }
            }
            RepoAction::Remove { name } => {
                let mut p = project.open()?;
                ops::remove_repository(&mut p, &name)?;
                writeln!(
                    out,
                    "forgot the clone of {name}; the clone itself is untouched"
                )?;
            }
            RepoAction::List { json } => {
                let p = project.open()?;
                let repos = ops::list_repositories(&p)?;
                if json {
                    print_json(&repos)?;
                } else {
                    for r in &repos {
                        writeln!(
                            out,
                            "{}\t{}\t{} of {} base commits held{}",
                            r.name,
                            r.path,
                            r.held,
                            r.base_commits,
                            r.problem
                                .as_deref()
                                .map(|p| format!(" ({p})"))
                                .unwrap_or_default()
                        )?;
                    }
                }
            }
            RepoAction::Clone {
                name,
                url,
                into,
                json,
            } => {
                let mut p = project.open()?;
                let cache = ops::default_repository_cache().context(
                    "no folder to clone into: set VERITY_REPO_CACHE or HOME, or pass --into DIR",
                )?;
                let request = ops::CloneRequest { name, url, into };
                let report = with_transfer_bar(|progress, cancel| {
                    ops::clone_repository(&mut p, &request, &cache, now, progress, cancel)
                })?;
                if json {
                    print_json(&report)?;
                } else {
                    let how = if report.reused {
                        "reused the clone".to_string()
                    } else {
                        format!(
                            "{} {} from {} ({}, {:.1} s)",
                            if report.resumed {
                                "resumed and finished the clone of"
                            } else {
                                "cloned"
                            },
                            report.name,
                            report.url,
                            bytes(report.received_bytes),
                            report.elapsed_ms as f64 / 1000.0
                        )
                    };
                    writeln!(out, "{how} at {}, registered", report.path)?;
                    write_commits(&mut out, &report.commits)?;
                }
            }
            RepoAction::FetchMissing { name, url, json } => {
                let mut p = project.open()?;
                let report = with_transfer_bar(|progress, cancel| {
                    ops::fetch_missing_commits(&mut p, &name, url.as_deref(), progress, cancel)
                })?;
                if json {
                    print_json(&report)?;
                } else {
                    write_commits(&mut out, &report)?;
                }
            }
        },
        Command::Evidence {
            case_id,
            all,
            refresh,
            cache_mb,
            fetch_missing,
            json,
        } => {
            let mut p = project.open()?;
            let engine = Engine::builder().cache_bytes(cache_mb << 20).build();
            if all {
                let bar = progress_bar(0, "{bar:30} {pos}/{len} cases {msg}");
                let mut progress = |step: &ops::EvidenceProgress| {
                    if let Some(bar) = &bar {
                        bar.set_length(step.total as u64);
                        bar.set_position(step.done as u64);
                        bar.set_message(step.case.clone());
                    }
                };
                let report = ops::evidence_all(
                    &mut p,
                    &engine,
                    now,
                    &mut progress,
                    &AtomicBool::new(false),
                )?;
                if let Some(bar) = bar {
                    bar.finish_and_clear();
                }
                if json {
                    print_json(&report)?;
                } else {
                    writeln!(
                        out,
                        "computed {}, already cached {}, skipped {}",
                        report.computed,
                        report.cached,
                        report.skipped.len()
                    )?;
                    // Hundreds of tasks share a handful of reasons: one line unless asked.
                    if let Some(summary) = report.skipped_summary() {
                        writeln!(out, "{summary}")?;
                    }
                    if cli.verbose > 0 {
                        for s in &report.skipped {
                            writeln!(out, "skipped {}: {}", s.case, s.reason)?;
                        }
                        let stats = engine.cache_stats();
                        writeln!(
                            out,
                            "cache: {} of {} MiB ({} MiB of contents, {} MiB of listings), {} blobs, {} listings, {} hits, {} misses, {} evictions",
                            stats.bytes >> 20,
                            stats.bound >> 20,
                            stats.content_bytes >> 20,
                            stats.listing_bytes >> 20,
                            stats.blobs,
                            stats.listings,
                            stats.hits,
                            stats.misses,
                            stats.evictions
                        )?;
                    }
                }
            } else {
                let case_id = case_id.context("name a case or pass --all")?;
                let view = match ops::case_evidence(&mut p, &engine, &case_id, refresh, now) {
                    Err(err) if err.missing_base_commit().is_some() => {
                        let repo = err.missing_base_commit().unwrap_or_default().to_string();
                        if !(fetch_missing || ask_to_fetch(&err)?) {
                            bail!(
                                "{} (run `verity repo fetch-missing {repo}`, or pass --fetch-missing)",
                                err.to_string().trim_end_matches('.')
                            );
                        }
                        load_trust_store();
                        with_transfer_bar(|progress, cancel| {
                            ops::fetch_missing_commits(&mut p, &repo, None, progress, cancel)
                        })?;
                        ops::case_evidence(&mut p, &engine, &case_id, refresh, now)?
                    }
                    other => other?,
                };
                if json {
                    print_json(&view.report)?;
                } else {
                    write!(out, "{}", ops::render_evidence_text(&view.report))?;
                }
            }
        }
        Command::Grep {
            case_id,
            pattern,
            regex,
            ignore_case,
            context,
            live,
            json,
        } => {
            let p = project.open()?;
            let query = ops::GrepQuery {
                pattern,
                fixed_strings: !regex,
                case_insensitive: ignore_case,
                context_lines: context,
                live_only: live,
                ..Default::default()
            };
            let report = ops::grep_case(&p, &Engine::default(), &case_id, &query)?;
            if json {
                print_json(&report)?;
            } else {
                for file in &report.files {
                    writeln!(out, "{}", file.path)?;
                    let mut last = 0;
                    for line in &file.lines {
                        if last != 0 && line.line > last + 1 {
                            writeln!(out, "--")?;
                        }
                        let mark = if line.is_match { ':' } else { '-' };
                        writeln!(out, "{}{mark}{}", line.line, line.text)?;
                        last = line.line;
                    }
                }
                writeln!(
                    out,
                    "{} matching lines in {} files{}\nreceipt: {}",
                    report.matches,
                    report.files.len(),
                    if report.truncated { " (cut short)" } else { "" },
                    report.receipt
                )?;
                write_not_searched(&mut out, &report.missing_objects)?;
                if report.matches == 0 {
                    return Ok(ExitCode::from(1));
                }
            }
        }
        Command::Show { case_id, path } => {
            let p = project.open()?;
            let file = ops::show_file(&p, &Engine::default(), &case_id, &path)?;
            write!(out, "{}", file.text)?;
        }
        Command::Precedent {
            case_id,
            snippets,
            json,
        } => {
            let p = project.open()?;
            let snippets: Vec<ops::Snippet> = snippets
                .into_iter()
                .map(|snippet| ops::Snippet {
                    snippet,
                    ..Default::default()
                })
                .collect();
            let check = ops::check_precedents(&p, &Engine::default(), &case_id, &snippets)?;
            if json {
                print_json(&check)?;
            } else {
                let findings = &check.findings;
                for f in findings {
                    let first = f.snippet.lines().next().unwrap_or_default();
                    if f.found {
                        let places: Vec<String> = f
                            .locations
                            .iter()
                            .map(|l| format!("{}:{}", l.path, l.line))
                            .collect();
                        writeln!(
                            out,
                            "found in live code: {first}\n  at {}",
                            places.join(", ")
                        )?;
                    } else {
                        writeln!(out, "not found in live code: {first}")?;
                    }
                    if !f.non_live_paths.is_empty() {
                        writeln!(
                            out,
                            "  also in non-live paths: {}",
                            f.non_live_paths.join(", ")
                        )?;
                    }
                    writeln!(out, "  receipt: {}", f.receipt)?;
                }
                write_not_searched(&mut out, &check.missing_objects)?;
                if findings.iter().any(|f| !f.found) {
                    return Ok(ExitCode::from(1));
                }
            }
        }
        Command::Demo { empty, dir } => {
            let dir = match dir {
                Some(dir) => dir,
                None => ops::default_demo_dir()
                    .context("no home folder is set (HOME): pass --dir DIR for the demo project")?,
            };
            let p = if empty {
                ops::open_empty_demo_project(&dir, now)?
            } else {
                ops::open_demo_project(&dir)?
            };
            writeln!(out, "{}", p.path().display())?;
        }
        Command::Export {
            format,
            out: path,
            force,
            history,
            rule,
            reference,
        } => {
            let p = project.open()?;
            let format = match format {
                ExportFormat::Jsonl => ops::ExportFormat::Jsonl,
                ExportFormat::AnswersJsonl => ops::ExportFormat::AnswersJsonl,
                ExportFormat::Csv => ops::ExportFormat::Csv,
                ExportFormat::OpenaiAnnotations => ops::ExportFormat::OpenaiAnnotations,
                ExportFormat::OpenaiEnsembled => ops::ExportFormat::OpenaiEnsembled,
                ExportFormat::Underdetermined => ops::ExportFormat::Underdetermined,
            };
            let options = ops::ExportOptions {
                rule,
                reference,
                history,
            };
            let summary = ops::export_to_file(&p, format, &options, &path, overwrite(force))?;
            writeln!(
                out,
                "wrote {} rows to {}{}",
                summary.rows,
                summary.path,
                if summary.replaced {
                    " (replaced the file that was there)"
                } else {
                    ""
                }
            )?;
        }
        Command::Package {
            rater,
            out: path,
            force,
            json,
        } => {
            let p = project.open()?;
            let report = ops::package_for_rater(&p, &rater, &path, overwrite(force), now)?;
            if json {
                print_json(&report)?;
            } else {
                writeln!(
                    out,
                    "wrote {}'s package to {}: {} tasks, {} of their answer events, {} evidence reports{}",
                    report.rater,
                    report.file,
                    report.tasks,
                    report.events,
                    report.evidence,
                    if report.replaced {
                        " (replaced the file that was there)"
                    } else {
                        ""
                    }
                )?;
            }
        }
        Command::Merge { files, json } => {
            let mut p = project.open()?;
            let report = ops::merge_packages(&mut p, &files, now)?;
            if json {
                print_json(&report)?;
            } else {
                for merged in &report.packages {
                    writeln!(
                        out,
                        "{} ({}): {} events, {} added, {} already merged",
                        merged.file, merged.rater, merged.events, merged.added, merged.already
                    )?;
                }
                for c in &report.conflicts {
                    writeln!(
                        out,
                        "conflict{}: event {} from {} ({} on {}, {} revision {} at {}){}: {}",
                        c.conflict.map(|n| format!(" {n}")).unwrap_or_default(),
                        c.uid,
                        c.file,
                        c.incoming.rater,
                        c.incoming.instance_id,
                        c.incoming.kind.as_str(),
                        c.incoming.answer_revision,
                        c.incoming.at,
                        c.stored
                            .as_ref()
                            .map(|s| format!(
                                " against the stored {} revision {} at {}",
                                s.kind.as_str(),
                                s.answer_revision,
                                s.at
                            ))
                            .unwrap_or_default(),
                        c.why
                    )?;
                }
            }
        }
        Command::Migrate { to, json } => {
            let p = project.open()?;
            let report = ops::migrate_project(&p, &to)?;
            if json {
                print_json(&report)?;
            } else {
                let rows: usize = report.tables.iter().map(|(_, n)| n).sum();
                writeln!(
                    out,
                    "copied {} to {}: {rows} rows in {} tables",
                    report.from,
                    report.to,
                    report.tables.len()
                )?;
            }
        }
        Command::Agreement {
            ratings,
            level,
            categories,
            question,
            bootstrap,
            seed,
            json,
        } => coordinator::agreement(
            &project,
            coordinator::AgreementArgs {
                ratings,
                level,
                categories,
                question,
                bootstrap,
                seed,
                json,
            },
            &mut out,
        )?,
        Command::Results { action } => match action {
            ResultsAction::Import {
                files,
                system,
                json,
            } => scores::import(&mut project.open()?, files, system, json, now, &mut out)?,
            ResultsAction::List { json } => scores::list(&project.open()?, json, &mut out)?,
            ResultsAction::Remove { name } => {
                ops::remove_results(&mut project.open()?, &name)?;
                writeln!(out, "removed the results of {name}")?;
            }
        },
        Command::Models { action } => models::run(&mut project.open()?, action, now, &mut out)?,
        Command::Scores {
            bootstrap,
            seed,
            json,
        } => scores::scores(
            &project.open()?,
            ScoresOptions { bootstrap, seed },
            json,
            &mut out,
        )?,
        Command::Ensemble { rule, json } => {
            coordinator::ensemble(&project.open()?, rule.as_deref(), json, &mut out)?
        }
        Command::Disagreements { question, json } => {
            coordinator::disagreements(&project.open()?, question.as_deref(), json, &mut out)?
        }
        Command::Questions { json } => {
            let p = project.open()?;
            let questions = ops::list_questions(&p);
            if json {
                print_json(&questions)?;
            } else {
                for q in &questions {
                    let scale: Vec<String> = q
                        .scale
                        .iter()
                        .map(|v| match v {
                            serde_json::Value::String(s) => s.clone(),
                            other => other.to_string(),
                        })
                        .collect();
                    writeln!(
                        out,
                        "{}\t{}\t{}\t{}\t{}{}",
                        q.number,
                        q.id,
                        serde_json::to_value(q.kind)?.as_str().unwrap_or_default(),
                        serde_json::to_value(q.level)?.as_str().unwrap_or_default(),
                        if scale.is_empty() {
                            "-".to_string()
                        } else {
                            scale.join(" | ")
                        },
                        if q.required { "" } else { "\toptional" }
                    )?;
                }
            }
        }
        Command::Adjudicate {
            case_id,
            question,
            value,
            rationale,
            by,
            json,
        } => {
            let mut p = project.open()?;
            // A number when the text is one (scale values), otherwise the text (buckets).
            let value = serde_json::from_str::<serde_json::Value>(&value)
                .ok()
                .filter(|v| v.is_number())
                .unwrap_or(serde_json::Value::String(value));
            let req = ops::AdjudicationRequest {
                case: case_id,
                question,
                value,
                rationale,
                by,
            };
            let view = ops::adjudicate(&mut p, &req, now)?;
            if json {
                print_json(&view)?;
            } else {
                writeln!(
                    out,
                    "{} decided {} = {} on {}",
                    view.by, view.question, view.value, view.case
                )?;
            }
        }
        Command::Panel { action } => match action {
            PanelAction::Grant { name, json } => {
                let mut p = project.open()?;
                let login = ops::panel_grant(&mut p, &name, now)?;
                if json {
                    print_json(&login)?;
                } else {
                    writeln!(
                        out,
                        "{} connects as role {} with the password {} (shown once; give it to them privately)",
                        login.rater, login.role, login.password
                    )?;
                }
            }
            PanelAction::Revoke { name } => {
                let mut p = project.open()?;
                let role = ops::panel_revoke(&mut p, &name)?;
                writeln!(
                    out,
                    "removed the login {role} of {name}; their answers stay"
                )?;
            }
            PanelAction::List { json } => {
                let mut p = project.open()?;
                let members = ops::panel_members(&mut p)?;
                if json {
                    print_json(&members)?;
                } else {
                    for m in members {
                        writeln!(out, "{}\t{}", m.rater, m.role)?;
                    }
                }
            }
        },
        Command::Conflicts { action } => match action {
            ConflictAction::List { all, json } => {
                let p = project.open()?;
                let conflicts = ops::list_conflicts(&p, all)?;
                if json {
                    print_json(&conflicts)?;
                } else {
                    for c in &conflicts {
                        write_conflict(&mut out, c)?;
                    }
                    writeln!(
                        out,
                        "{} {}conflicts",
                        conflicts.len(),
                        if all { "" } else { "open " }
                    )?;
                }
            }
            ConflictAction::Resolve {
                id,
                keep,
                note,
                json,
            } => {
                let mut p = project.open()?;
                let keep = if keep == "incoming" {
                    ops::Keep::Incoming
                } else {
                    ops::Keep::Stored
                };
                let settled = ops::resolve_conflict(&mut p, id, keep, note.as_deref(), now)?;
                if json {
                    print_json(&settled)?;
                } else {
                    writeln!(
                        out,
                        "conflict {id} settled: {}",
                        settled.resolution.as_deref().unwrap_or_default()
                    )?;
                }
            }
        },
        Command::Adjudicators { action } => match action {
            AdjudicatorAction::Add { name } => {
                let mut p = project.open()?;
                ops::add_adjudicator(&mut p, &name, now)?;
                writeln!(out, "{} may adjudicate", name.trim())?;
            }
            AdjudicatorAction::Remove { name } => {
                let mut p = project.open()?;
                ops::remove_adjudicator(&mut p, &name)?;
                writeln!(out, "{name} may no longer adjudicate; their decisions stay")?;
            }
            AdjudicatorAction::List => {
                let p = project.open()?;
                writeln!(out, "{} (always)", ops::COORDINATOR)?;
                for name in ops::list_adjudicators(&p)? {
                    writeln!(out, "{name}")?;
                }
            }
        },
        Command::Report {
            out: dir,
            force,
            bootstrap,
            seed,
        } => {
            let p = project.open()?;
            let summary = ops::write_report(&p, &dir, bootstrap, seed, overwrite(force))?;
            writeln!(
                out,
                "wrote {} and {} charts ({} cases kept, {} filtered out)",
                summary.markdown,
                summary.charts.len(),
                summary.kept,
                summary.filtered_out
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What `--force` asks of an output file that exists.
fn overwrite(force: bool) -> ops::Overwrite {
    if force {
        ops::Overwrite::Replace
    } else {
        ops::Overwrite::Refuse
    }
}

/// The case ids in a file, one per line; blank lines and `#` comments are skipped.
fn read_case_list(file: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read the case list {}", file.display()))?;
    let ids: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    if ids.is_empty() {
        bail!("{} lists no case id (one per line)", file.display());
    }
    Ok(ids)
}

/// Sets the returned flag on the first Ctrl-C, so that a long job stops cleanly; a second
/// Ctrl-C ends the process at once.
fn cancel_on_ctrl_c() -> std::sync::Arc<AtomicBool> {
    let cancel = std::sync::Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    match runtime {
        Ok(runtime) => {
            std::thread::spawn(move || {
                runtime.block_on(async {
                    while tokio::signal::ctrl_c().await.is_ok() {
                        if flag.swap(true, std::sync::atomic::Ordering::Relaxed) {
                            std::process::exit(130);
                        }
                        eprintln!("verity: stopping; Ctrl-C again to quit at once");
                    }
                });
            });
        }
        Err(err) => tracing::warn!("Ctrl-C will end the process without cleaning up: {err}"),
    }
    cancel
}

/// Runs a clone or a fetch of commits with a bar of objects, bytes and speed, stopped cleanly
/// by Ctrl-C.
fn with_transfer_bar<T>(
    run: impl FnOnce(&mut dyn FnMut(&ops::CloneProgress), &AtomicBool) -> ops::Result<T>,
) -> ops::Result<T> {
    let cancel = cancel_on_ctrl_c();
    let bar = progress_bar(0, "{prefix} {bar:30} {pos}/{len} objects, {msg}");
    let result = run(&mut |step| show_transfer(bar.as_ref(), step), &cancel);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}

fn show_transfer(bar: Option<&indicatif::ProgressBar>, step: &ops::CloneProgress) {
    let Some(bar) = bar else { return };
    bar.set_prefix(match (step.stage, &step.commit) {
        (ops::CloneStage::DefaultBranch, _) => "default branch".to_string(),
        (ops::CloneStage::Branches, _) => "branches and tags".to_string(),
        (ops::CloneStage::Commit, Some(c)) => format!("commit {}", &c[..c.len().min(12)]),
        (ops::CloneStage::Commit, None) => "commit".to_string(),
    });
    bar.set_length(step.total_objects as u64);
    bar.set_position(step.received_objects as u64);
    bar.set_message(format!(
        "{}, {}/s, {}/{} deltas",
        bytes(step.received_bytes),
        bytes(step.bytes_per_second),
        step.indexed_deltas,
        step.total_deltas
    ));
}

fn bytes(n: usize) -> String {
    indicatif::HumanBytes(n as u64).to_string()
}

fn write_commits(out: &mut impl Write, commits: &ops::CommitsReport) -> Result<()> {
    writeln!(
        out,
        "{} of {} base commits held{}",
        commits.held,
        commits.base_commits,
        if commits.fetched.is_empty() {
            String::new()
        } else {
            format!(
                " ({} fetched by id, {})",
                commits.fetched.len(),
                bytes(commits.received_bytes)
            )
        }
    )?;
    for m in &commits.missing {
        writeln!(out, "missing {}: {}", m.commit, m.reason)?;
    }
    Ok(())
}

/// The files and folders an incomplete clone lacks at the commit searched, when it lacks any.
fn write_not_searched(
    out: &mut impl Write,
    missing: &[annotations::evidence::MissingObject],
) -> std::io::Result<()> {
    if missing.is_empty() {
        return Ok(());
    }
    let noun = if missing.len() == 1 {
        "file or folder"
    } else {
        "files or folders"
    };
    writeln!(
        out,
        "not searched: the clone lacks {} {noun} (a partial clone):",
        missing.len()
    )?;
    for object in missing {
        writeln!(out, "  {} ({})", object.path, object.id)?;
    }
    Ok(())
}

/// On a terminal, asks whether to fetch the missing base commit the error names.
fn ask_to_fetch(err: &ops::Error) -> Result<bool> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Ok(false);
    }
    eprint!("verity: {} Fetch it now? [y/N] ", err);
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

/// A progress bar on stderr, only when stderr is a terminal (never in pipes or logs).
fn progress_bar(len: u64, template: &str) -> Option<indicatif::ProgressBar> {
    std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(len);
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    })
}

fn status_word(status: ops::AnswerStatus) -> &'static str {
    match status {
        ops::AnswerStatus::ToDo => "to do",
        ops::AnswerStatus::InProgress => "in progress",
        ops::AnswerStatus::Submitted => "submitted",
    }
}

/// The quality report as a table per question: one line per rater.
fn quality_text(report: &ops::QualityReport) -> String {
    let num = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
    let mut text = format!(
        "reference: {}{}; panel median {} s per task\n",
        report.reference.as_deref().unwrap_or("none"),
        if report.calibration_marked {
            " on the calibration tasks"
        } else {
            " on every task it labels"
        },
        num(report.panel_median_active_seconds)
    );
    text.push_str("rater\ttasks\tcalibration\tmedian s\tfast\n");
    for r in &report.raters {
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\n",
            r.rater,
            r.tasks,
            r.calibration_tasks,
            num(r.median_active_seconds),
            if r.fast_submissions.is_empty() {
                "-".to_string()
            } else {
                r.fast_submissions.join(" ")
            }
        ));
    }
    for q in &report.questions {
        text.push_str(&format!(
            "\n{q}\nrater\taccuracy\tkappa_w\tbias [95%]\tkappa vs others\talpha without\n"
        ));
        for r in &report.raters {
            let detail = r.questions.get(q);
            let bias = r.bias.get(q);
            text.push_str(&format!(
                "{}\t{}\t{}\t{}{}\t{}\t{}\n",
                r.rater,
                num(r.accuracy.get(q).copied().flatten()),
                num(r.weighted_kappa.get(q).copied().flatten()),
                num(bias.and_then(|b| b.mean)),
                bias.and_then(|b| b.ci95)
                    .map(|[l, h]| format!(" [{l:.2}, {h:.2}]"))
                    .unwrap_or_default(),
                num(detail.and_then(|d| d.kappa_vs_consensus)),
                num(detail.and_then(|d| d.alpha_without)),
            ));
        }
    }
    text
}
