//! An open project: its store, its questionnaire and who it acts for; creating one (a file, or
//! the schema in a server database) and opening one.

use std::path::{Path, PathBuf};

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use verity_store::{AnswersChanged, ProjectStore};
use verity_task::questionnaire::{Questionnaire, QuestionnaireError};

use super::access::Actor;
use super::error::{Error, ErrorCode, Result};
use super::listing;
use super::seal::Sealing;

/// Formats a time as stored in the project (RFC 3339, UTC).
pub fn stamp(now: OffsetDateTime) -> String {
    now.to_offset(time::UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_else(|_| now.unix_timestamp().to_string())
}

/// An open project: its store, its questionnaire, and who it acts for.
#[derive(Debug)]
pub struct Project {
    pub(super) store: Box<dyn ProjectStore>,
    pub(super) questionnaire: Questionnaire,
    pub(super) questionnaire_row: i64,
    /// Who the use cases act for (see [`super::access`]); the coordinator when opened, or the one
    /// rater the project is bound to.
    pub(super) actor: Option<Actor>,
    /// The one rater this project acts for: a rater's package, or a rater's login.
    pub(super) bound: Option<String>,
    /// The case list and a rater's progress, kept between pages of a list.
    pub(super) listing: listing::ListingCache,
    /// Whether the coordinator's readings of the panel (agreement, ensembles, disagreements,
    /// the report, exports) take model raters' answers too; humans only by default.
    pub(super) include_models: bool,
    /// Whether the answers saved here are sealed: in a rater's package, with its secret.
    pub(super) sealing: Sealing,
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
        sealing: Sealing::NotPackage,
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
    let sealing = Sealing::of(|key| store.meta(key))?;
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
        sealing,
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
