//! The use cases: the one API the `verity` command line and the desktop app call.
//!
//! Every function takes the open [`Project`], its arguments and, where it writes, the current
//! time as `now`: there are no hidden clocks. Requests and responses are plain serde types with
//! TypeScript bindings generated for the desktop app. Their keys are snake_case on the wire, like
//! the field's files (OpenAI's CSV columns, SWE-bench's fields), in `--json` and over IPC alike.
//!
//! Blindness: the coordinator's use cases ([`project_agreement`], [`ensemble_labels`],
//! [`list_disagreements`], the exports and the report) show every rater's answers; a rater's
//! view calls only [`current_answer`] and [`rater_queue`], which never show another rater's.

use std::path::{Path, PathBuf};

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

// What the front ends need of the lower layers, so that they import `ops` alone.
pub use crate::hub::HubSettings;
pub use verity_evidence::{
    Engine, GrepQuery, GrepReport, MissingObject, Proposal, ShownFile, Snippet, SweepResult, Tier,
    render_text as render_evidence_text,
};
pub use verity_stats::agreement::{
    AgreementReport, BootstrapOptions, Level, render_text as render_agreement_text,
};
pub use verity_stats::natural::natural_cmp;
use verity_store::ProjectStore;
pub use verity_store::{AnswersChanged, EventKind, ModelConfig, postgres::is_server_url};
pub use verity_task::patch::parse_patch;
pub use verity_task::questionnaire::Questionnaire;
use verity_task::questionnaire::QuestionnaireError;

// One module per use case; each re-exports its requests, responses and functions here.
pub mod access;
pub use access::Actor;
mod adjudication;
pub use adjudication::*;
mod agreement;
pub use agreement::*;
mod answers;
pub use answers::*;
mod calibration;
pub use calibration::*;
mod case_view;
pub use case_view::{CaseView, PatchDisplay, TestLink, case_view};
mod cases;
pub use cases::*;
mod clone;
pub use clone::*;
mod conflicts;
pub use conflicts::*;
mod demo;
pub use demo::*;
mod ensemble;
pub use ensemble::*;
mod evidence;
pub use evidence::*;
mod error;
pub use error::{Error, ErrorCode};
mod export;
pub use export::*;
mod history;
pub use history::{AnswerEventView, RaterAnswerHistory, answer_history};
mod hub;
pub use hub::*;
mod import;
pub use import::*;
mod listing;
mod lookup;
pub use lookup::*;
mod migrate;
pub use migrate::*;
mod model_prompt;
pub use model_prompt::{
    PromptTemplate, SWEEP_PROMPT, build_prompt, build_sweep_prompt, prompt_sha256,
    proposal_from_reply, proposal_schema,
};
mod models;
pub use models::*;
mod output;
pub use output::{Overwrite, Written, write_file};
mod packages;
pub use packages::*;
mod process;
pub use process::{ProcessSetup, load_trust_store, set_up_process};
mod panel;
pub use panel::*;
mod progress;
pub use progress::*;
mod quality;
pub use quality::*;
mod questions;
pub use questions::*;
mod raters;
pub use raters::*;
mod report;
pub use report::*;
mod scores;
pub use scores::*;
mod status;
pub use status::*;
mod sweep;
mod sweep_access;
pub use sweep::*;
pub use sweep_access::{
    ProposedSweep, Proposer, SWEEP_FOR_RATERS, set_sweep_for_raters, sweep_for_raters,
};
// The coordinator's use cases read submitted answers through it; it has no API of its own.
mod submitted;

/// Shorthand for this module's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Formats a time as stored in the project (RFC 3339, UTC).
pub fn stamp(now: OffsetDateTime) -> String {
    now.to_offset(time::UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_else(|_| now.unix_timestamp().to_string())
}

/// An open project: its store, its questionnaire, and who it acts for.
#[derive(Debug)]
pub struct Project {
    store: Box<dyn ProjectStore>,
    questionnaire: Questionnaire,
    questionnaire_row: i64,
    /// Who the use cases act for (see [`access`]); the coordinator when opened, or the one
    /// rater the project is bound to.
    actor: Option<Actor>,
    /// The one rater this project acts for: a rater's package, or a rater's login.
    bound: Option<String>,
    /// The case list and a rater's progress, kept between pages of a list.
    listing: listing::ListingCache,
    /// Whether the coordinator's readings of the panel (agreement, ensembles, disagreements,
    /// the report, exports) take model raters' answers too; humans only by default.
    include_models: bool,
}

/// Which questionnaire a new project uses.
#[derive(Debug, Clone)]
pub enum QuestionnaireChoice {
    /// One shipped with Verity, by id.
    Builtin(String),
    /// A TOML file.
    File(PathBuf),
}

/// Creates a project: a file, or the schema in an existing database at a `postgres://` URL.
pub fn init_project(
    path: &Path,
    choice: &QuestionnaireChoice,
    now: OffsetDateTime,
) -> Result<Project> {
    init_project_with_password(path, None, choice, now)
}

/// Creates a project, connecting to a server with `password` when given (else libpq's
/// `PGPASSWORD` or `~/.pgpass`).
pub fn init_project_with_password(
    path: &Path,
    password: Option<&str>,
    choice: &QuestionnaireChoice,
    now: OffsetDateTime,
) -> Result<Project> {
    let (questionnaire, source) = match choice {
        QuestionnaireChoice::Builtin(id) => {
            let q = Questionnaire::builtin(id)?;
            let source = verity_task::questionnaire::BUILTIN
                .iter()
                .find(|(name, _)| name == id)
                .map(|(_, s)| s.to_string())
                .unwrap_or_default();
            (q, source)
        }
        QuestionnaireChoice::File(file) => {
            let q = Questionnaire::load(file)?;
            let source =
                std::fs::read_to_string(file).map_err(|source| QuestionnaireError::Read {
                    path: file.clone(),
                    source,
                })?;
            (q, source)
        }
    };
    let mut store = verity_store::create(path, password)?;
    let row = store.put_questionnaire(&questionnaire.id, &questionnaire.version, &source)?;
    store.set_meta("questionnaire", &row.to_string())?;
    store.set_meta("created_at", &stamp(now))?;
    Ok(Project {
        store,
        questionnaire,
        questionnaire_row: row,
        actor: Some(Actor::Coordinator),
        bound: None,
        listing: listing::ListingCache::default(),
        include_models: false,
    })
}

/// Opens a project: a file, or a `postgres://` URL connecting with libpq's settings
/// (`PGPASSWORD`, `~/.pgpass`).
pub fn open_project(path: &Path) -> Result<Project> {
    open_project_with_password(path, None)
}

/// Checks a server project's URL without connecting, as opening it would: a URL holding a
/// password is refused (the password goes in `PGPASSWORD`, `~/.pgpass` or the app's prompt), and
/// so is one with a bad port or parameter, or naming no user where the environment names none.
pub fn check_server_url(url: &str) -> Result<()> {
    let env = verity_store::postgres::Environment::current();
    verity_store::postgres::ServerConfig::parse(url, &env)
        .map(|_| ())
        .map_err(|rule| Error::Store(verity_store::StoreError::Rule(rule)))
}

/// Opens a project, connecting to a server project with `password` (the desktop app asks for
/// it); the password is kept in memory only.
pub fn open_project_with_password(path: &Path, password: Option<&str>) -> Result<Project> {
    let store = verity_store::open(path, password)?;
    let row: i64 = store
        .meta("questionnaire")?
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            Error::refused(
                ErrorCode::Store,
                format!("{} names no questionnaire", path.display()),
            )
        })?;
    let (id, _, source) = store.questionnaire_source(row)?;
    let questionnaire =
        Questionnaire::parse(&source, Path::new(&format!("{}#{id}", path.display())))?;
    let bound = store.bound_rater()?;
    Ok(Project {
        store,
        questionnaire,
        questionnaire_row: row,
        actor: Some(match &bound {
            Some(name) => Actor::Rater { name: name.clone() },
            None => Actor::Coordinator,
        }),
        bound,
        listing: listing::ListingCache::default(),
        include_models: false,
    })
}

impl Project {
    /// The questionnaire answers are given under.
    pub fn questionnaire(&self) -> &Questionnaire {
        &self.questionnaire
    }

    /// Makes agreement, ensembles, disagreements, the report and exports take model raters'
    /// answers beside the humans' (`--include-models`), or leave them out (the default).
    pub fn include_models(&mut self, include: bool) {
        self.include_models = include;
    }

    /// The project file's path.
    pub fn path(&self) -> &Path {
        self.store.path()
    }

    /// Tells when other sessions on a shared server append answer events, so a coordinator's
    /// view refreshes without polling; `None` for a project file.
    pub fn answer_feed(&self) -> Result<Option<std::sync::mpsc::Receiver<AnswersChanged>>> {
        Ok(self.store.answer_feed()?)
    }

    /// Begins counting the statements the project's store runs, from zero: a diagnostic for
    /// the tests that hold an autosave to its number of statements and for the benchmarks.
    pub fn count_statements(&mut self) -> Result<verity_store::StatementCount> {
        Ok(self.store.count_statements()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_url_holding_a_password_is_refused_before_connecting() {
        for url in [
            "postgres://ana:secret@db.example:5432/panel",
            "postgres://ana@db.example:5432/panel?password=secret",
        ] {
            let err = check_server_url(url).expect_err("a password in the URL");
            assert_eq!(err.code(), ErrorCode::Store);
            assert!(err.to_string().contains("holds a password"), "{err}");
            assert!(
                !err.to_string().contains("secret"),
                "the refusal never repeats it"
            );
        }
        check_server_url("postgres://ana@db.example:5432/panel").expect("a URL without one");
    }
}
