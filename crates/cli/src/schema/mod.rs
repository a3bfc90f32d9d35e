//! The command line's schema, as clap reads it: the global flags and one variant per command,
//! listed in the order `verity -h` shows them. Each family of commands keeps its arguments in a
//! module of its own here, beside its functions in `commands/` of the same name; a new family
//! adds a module to each (`schema/models.rs` and `commands/models.rs`) and its variants below.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub mod answers;
pub mod estimates;
pub mod evidence;
pub mod exports;
pub mod models;
pub mod panel;
pub mod repositories;
pub mod results;
pub mod statistics;
pub mod tasks;

#[derive(Parser)]
#[command(
    name = "verity",
    version,
    about = "Rate SWE-bench-style tasks with a panel: import, assign, answer, measure agreement, export"
)]
pub struct Cli {
    /// The project: a file (a SQLite database), or a server project's
    /// postgres://USER@HOST:PORT/DB (the password from PGPASSWORD or ~/.pgpass, never the URL).
    #[arg(long, global = true, env = "VERITY_PROJECT")]
    pub project: Option<PathBuf>,
    /// Log what happens to stderr (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Act as this rater instead of the coordinator: see and change only their own answers.
    #[arg(long = "as", global = true, value_name = "RATER")]
    pub as_rater: Option<String>,
    /// Take model raters' answers into agreement, ensembles, disagreements, the report and
    /// exports (humans only without it).
    #[arg(long, global = true)]
    pub include_models: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Create a new project file.
    Init(tasks::InitArgs),
    /// Import tasks: SWE-bench or SWE-bench Pro JSON/JSONL files, audit case folders.
    Import(tasks::ImportArgs),
    /// Download a dataset's split from the Hugging Face Hub (its Parquet files, into the cache
    /// Python's huggingface_hub shares) and import its rows. Honours HF_TOKEN, HF_ENDPOINT,
    /// HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE and HTTPS_PROXY; an interrupted download resumes.
    Fetch(tasks::FetchArgs),
    /// A rater's own queue: their assigned tasks with how far they are (with --as RATER, or
    /// over a rater's login or package).
    Queue(tasks::QueueArgs),
    /// List the project's cases with their assignments' status and evidence risk, in natural id
    /// order or by risk.
    Cases(tasks::CasesArgs),
    /// One case.
    Case {
        #[command(subcommand)]
        action: tasks::CaseAction,
    },
    /// Manage raters.
    Raters {
        #[command(subcommand)]
        action: panel::RaterAction,
    },
    /// Give each case K distinct active raters, evening out the load (seeded, reproducible),
    /// or with --rater assign cases to named raters explicitly. Every case with materials, or
    /// only those named by --case, --cases or --repo.
    Assign(panel::AssignArgs),
    /// Record a rater's answers from a JSON file (question id to value): a draft, or with
    /// --submit a submission; a change after submission needs --reason.
    Answer(answers::AnswerArgs),
    /// Register or list local clones of the tasks' repositories (read only, never checked out).
    Repo {
        #[command(subcommand)]
        action: repositories::RepoAction,
    },
    /// What the repository at a case's base commit says about it: the test patch's terms and
    /// where each occurs, airtight candidates, precedents; every finding with its git grep.
    Evidence(evidence::EvidenceArgs),
    /// Search every text file at a case's base commit.
    Grep(evidence::GrepArgs),
    /// Print a file as it is at a case's base commit.
    Show(evidence::ShowArgs),
    /// Verify code snippets at a case's base commit, in live code.
    Precedent(evidence::PrecedentArgs),
    /// Verify proposals (the choice a task turns on and snippets of the codebase's ways of
    /// making it), from a file or from a model rater, at their tasks' base commits and classify
    /// each into a tier; or set whether raters see sweeps.
    Sweep(evidence::SweepArgs),
    /// Create (on first use) and open the embedded demo project: twelve tasks on a small
    /// git repository and a finished round (three raters' answers on every task, one
    /// adjudication, reference labels on six tasks). Prints the project file's path.
    Demo(tasks::DemoArgs),
    /// Export answers and labels. The file is written whole or not at all; an existing file is
    /// refused unless --force.
    Export(exports::ExportArgs),
    /// Upload a dataset folder (`export --format hub`) to the Hugging Face Hub as one commit:
    /// the repository made if needed, large files through LFS, an interrupted upload resumed.
    /// The token comes from HF_TOKEN or huggingface_hub's token file and is never printed;
    /// HF_ENDPOINT and HTTPS_PROXY are honoured.
    Publish(exports::PublishArgs),
    /// Write a rater's package: a project file with their assigned tasks, the questionnaire,
    /// the cached evidence and their own answers, to work on offline and merge back.
    Package(exports::PackageArgs),
    /// Merge raters' packages into the project. Events already merged are skipped; two
    /// different events with one id are listed as conflicts and the stored one stays; an answer
    /// that diverges from the rater's history in the project (another revision 2) is listed and
    /// kept as a conflict for `verity conflicts`.
    Merge(exports::MergeArgs),
    /// Copy the whole project into a new one (a file or a server), every row as it is.
    Migrate(exports::MigrateArgs),
    /// Inter-rater agreement: on a ratings CSV (`unit,rater,value`) with --ratings, or per
    /// question of the project's questionnaire over raters' first submissions.
    Agreement(statistics::AgreementArgs),
    /// Combine raters' latest submitted answers into one label per case and question, and
    /// apply the questionnaire's filter.
    Ensemble(statistics::EnsembleArgs),
    /// Cases and questions where raters' current answers differ, worst first.
    Disagreements(statistics::DisagreementsArgs),
    /// The questionnaire's questions: number, id, kind, level and scale. Wherever a command
    /// takes a question, its id or its number will do.
    Questions(answers::QuestionsArgs),
    /// Record an adjudicator's decision on one question of one case.
    Adjudicate(answers::AdjudicateArgs),
    /// Raters' own logins on a server project: the server holds each to their own tasks and
    /// answers.
    Panel {
        #[command(subcommand)]
        action: panel::PanelAction,
    },
    /// Calibration tasks: tasks with reference labels that `assign` mixes into every rater's
    /// queue at a rate; raters cannot tell them from the others.
    Calibration {
        #[command(subcommand)]
        action: tasks::CalibrationAction,
    },
    /// Name who besides the coordinator may adjudicate.
    Adjudicators {
        #[command(subcommand)]
        action: answers::AdjudicatorAction,
    },
    /// Answers that diverged from their rater's history (a merged package's revision beside the
    /// project's own): list them, and settle each by keeping one answer; both stay in the history.
    Conflicts {
        #[command(subcommand)]
        action: answers::ConflictAction,
    },
    /// Systems' per-task outcomes on the benchmark: SWE-bench run summaries, report.json maps,
    /// results.json, SWE-bench Pro eval_results.json, CSV or JSON lines.
    Results {
        #[command(subcommand)]
        action: results::ResultsAction,
    },
    /// Each system's resolve rate over every task beside its rate over the determinate ones,
    /// with 95% Wilson intervals, both orders and Kendall's tau-b between them, and every pair
    /// compared (McNemar's exact test, a bootstrap interval of the difference).
    Scores(results::ScoresArgs),
    /// Estimate a label's share (or a question's mean) over every task from the panel's labels
    /// on a recorded random sample (`assign --sample`) and a predictor on every task
    /// (prediction-powered inference, PPI++), beside the humans alone, each with its interval.
    Estimate(estimates::EstimateArgs),
    /// Model raters: an LLM behind an OpenAI-compatible endpoint rates tasks beside the panel,
    /// within a budget, each answer with its provenance.
    Models {
        #[command(subcommand)]
        action: models::ModelsAction,
    },
    /// Write a Markdown report with SVG charts: agreement per question with intervals, rater
    /// pairs, label distributions, the count the filter keeps. A folder that holds a report is
    /// refused unless --force.
    Report(statistics::ReportArgs),
}
