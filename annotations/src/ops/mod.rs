//! The use cases: the one API the `verity` command line and the desktop app call.
//!
//! Every function takes the open [`Project`], its arguments and, where it writes, the current
//! time as `now`: there are no hidden clocks. Requests and responses are plain serde types with
//! TypeScript bindings generated for the desktop app. Their keys are snake_case on the wire, like
//! the field's files (OpenAI's CSV columns, SWE-bench's fields), in `--json` and over IPC alike.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use ts_rs::TS;

use crate::case::{AuditNote, Case};
use crate::import::{self, Format, ImportError};
pub use crate::natural::natural_cmp;
pub use crate::patch::parse_patch;
use crate::questionnaire::{Questionnaire, QuestionnaireError, Stage, Violation};
pub use crate::store::EventKind;
use crate::store::{AnswerEvent, NewAnswerEvent, Store, StoreError};

mod case_view;
pub use case_view::{CaseView, PatchDisplay, TestLink, case_view};
mod evidence;
pub use evidence::*;
mod history;
pub use history::{Actor, AnswerEventView, RaterAnswerHistory, answer_history};
mod output;
pub use output::{Overwrite, Written, write_file};
mod panel;
pub use panel::*;

/// What went wrong in a use case.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The project file.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An input file.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// A questionnaire file.
    #[error(transparent)]
    Questionnaire(#[from] QuestionnaireError),
    /// A ratings file (`unit,rater,value`).
    #[error(transparent)]
    Ratings(#[from] crate::import::ratings_csv::RatingsError),
    /// Statistics asked for something the data cannot give.
    #[error(transparent)]
    Agreement(#[from] crate::agreement::AgreementError),
    /// Answers could not be combined.
    #[error(transparent)]
    Ensemble(#[from] crate::ensemble::EnsembleError),
    /// Something named does not exist.
    #[error("{0}")]
    NotFound(String),
    /// An answer breaks the questionnaire's rules.
    #[error("{}", violations.iter().map(|v| v.message.as_str()).collect::<Vec<_>>().join(" "))]
    Invalid {
        /// Every broken rule.
        violations: Vec<Violation>,
    },
    /// The request breaks a rule of the data model (a submitted answer is never overwritten).
    #[error("{0}")]
    Rule(String),
    /// An output could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// Where.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Evidence could not be computed (a missing clone or commit, a corrupt object).
    #[error(transparent)]
    Evidence(Box<crate::evidence::EvidenceError>),
    /// A long job was cancelled; nothing was stored.
    #[error("cancelled; nothing was stored")]
    Cancelled,
}

impl Error {
    /// A stable code for the desktop app to branch on.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Store(StoreError::TooNew { .. }) => "project_too_new",
            Error::Store(StoreError::Missing { .. }) => "project_missing",
            Error::Store(StoreError::NotAProject { .. }) => "not_a_project",
            Error::Store(_) => "store",
            Error::Import(_) => "bad_input",
            Error::Questionnaire(_) => "bad_questionnaire",
            Error::Ratings(_) | Error::Agreement(_) => "bad_input",
            Error::Ensemble(_) => "ensemble",
            Error::NotFound(_) => "not_found",
            Error::Invalid { .. } => "invalid_answer",
            Error::Rule(_) => "rule",
            Error::Write { .. } => "write",
            Error::Evidence(_) => "evidence",
            Error::Cancelled => "cancelled",
        }
    }
}

/// Shorthand for this module's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Formats a time as stored in the project (RFC 3339, UTC).
pub fn stamp(now: OffsetDateTime) -> String {
    now.to_offset(time::UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_else(|_| now.unix_timestamp().to_string())
}

/// An open project: its store and its questionnaire.
#[derive(Debug)]
pub struct Project {
    store: Store,
    questionnaire: Questionnaire,
    questionnaire_row: i64,
}

/// Which questionnaire a new project uses.
#[derive(Debug, Clone)]
pub enum QuestionnaireChoice {
    /// One shipped with Verity, by id.
    Builtin(String),
    /// A TOML file.
    File(PathBuf),
}

/// Creates a project file.
pub fn init_project(
    path: &Path,
    choice: &QuestionnaireChoice,
    now: OffsetDateTime,
) -> Result<Project> {
    let (questionnaire, source) = match choice {
        QuestionnaireChoice::Builtin(id) => {
            let q = Questionnaire::builtin(id)?;
            let source = crate::questionnaire::BUILTIN
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
    let mut store = Store::create(path)?;
    let row = store.put_questionnaire(&questionnaire.id, &questionnaire.version, &source)?;
    store.set_meta("questionnaire", &row.to_string())?;
    store.set_meta("created_at", &stamp(now))?;
    Ok(Project {
        store,
        questionnaire,
        questionnaire_row: row,
    })
}

/// Opens a project file.
pub fn open_project(path: &Path) -> Result<Project> {
    let store = Store::open(path)?;
    let row: i64 = store
        .meta("questionnaire")?
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| Error::Rule(format!("{} names no questionnaire", path.display())))?;
    let (id, _, source) = store.questionnaire_source(row)?;
    let questionnaire =
        Questionnaire::parse(&source, Path::new(&format!("{}#{id}", path.display())))?;
    Ok(Project {
        store,
        questionnaire,
        questionnaire_row: row,
    })
}

impl Project {
    /// The questionnaire answers are given under.
    pub fn questionnaire(&self) -> &Questionnaire {
        &self.questionnaire
    }

    /// The project file's path.
    pub fn path(&self) -> &Path {
        self.store.path()
    }
}

// ---------------------------------------------------------------------------------------------
// Import

/// How far an import has got, for a progress bar.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ImportProgress {
    /// The path being read.
    pub path: String,
    /// Paths finished so far.
    pub paths_done: usize,
    /// Paths in all.
    pub paths_total: usize,
    /// Records read so far.
    pub records: usize,
}

/// What one input path held.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ImportedPath {
    /// The path.
    pub path: String,
    /// The format detected.
    pub format: String,
    /// Records read.
    pub records: usize,
}

/// The result of an import.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ImportReport {
    /// Cases that did not exist before.
    pub added: usize,
    /// Cases whose content changed (each got a new revision).
    pub updated: usize,
    /// Cases already there with this content.
    pub unchanged: usize,
    /// Per input path.
    pub paths: Vec<ImportedPath>,
}

/// Imports tasks from files and folders, the format of each detected from its content. All or
/// nothing: any bad record, or a cancel, stores nothing.
pub fn import_paths(
    project: &mut Project,
    paths: &[PathBuf],
    now: OffsetDateTime,
    progress: &mut dyn FnMut(&ImportProgress),
    cancel: &AtomicBool,
) -> Result<ImportReport> {
    let now = stamp(now);
    let mut session = project.store.begin_import(&now)?;
    let mut reports = Vec::new();
    let mut records = 0usize;
    for (done, path) in paths.iter().enumerate() {
        if let Some(file) = import::openai_csv::detect(path)? {
            reports.push(panel::import_openai_file(
                &mut session,
                &project.questionnaire,
                project.questionnaire_row,
                path,
                file,
                &now,
            )?);
            continue;
        }
        let shown = path.display().to_string();
        let mut count = 0usize;
        let mut failure: Option<Error> = None;
        let mut sink = |sourced: import::SourcedRecord| -> Result<(), ImportError> {
            if cancel.load(Ordering::Relaxed) {
                failure = Some(Error::Cancelled);
                return Err(ImportError::Stopped);
            }
            if let Err(e) = session.put_record(sourced.kind, &sourced.origin, &sourced.record) {
                failure = Some(e.into());
                return Err(ImportError::Stopped);
            }
            count += 1;
            records += 1;
            if records.is_multiple_of(64) {
                progress(&ImportProgress {
                    path: shown.clone(),
                    paths_done: done,
                    paths_total: paths.len(),
                    records,
                });
            }
            Ok(())
        };
        let format = import::read_path(path, &mut sink);
        if let Some(err) = failure {
            return Err(err);
        }
        let format = format?;
        tracing::info!(path = %shown, ?format, records = count, "read import path");
        reports.push(ImportedPath {
            path: shown.clone(),
            format: match format {
                Format::SweBench => "swe-bench",
                Format::SweBenchPro => "swe-bench-pro",
                Format::AuditFolder => "audit-folder",
                Format::AuditFolders => "audit-folders",
            }
            .into(),
            records: count,
        });
        progress(&ImportProgress {
            path: shown,
            paths_done: done + 1,
            paths_total: paths.len(),
            records,
        });
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Cancelled);
    }
    let summary = session.finish()?;
    tracing::info!(?summary, "import committed");
    Ok(ImportReport {
        added: summary.added,
        updated: summary.updated,
        unchanged: summary.unchanged,
        paths: reports,
    })
}

// ---------------------------------------------------------------------------------------------
// Cases

/// A rater's progress on a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum AnswerStatus {
    /// Nothing saved yet.
    ToDo,
    /// A draft is saved.
    InProgress,
    /// Submitted (perhaps revised since).
    Submitted,
}

/// A rater's assignment on a case, without the answer (raters stay blind to each other).
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct AssignmentStatus {
    /// The rater.
    pub rater: String,
    /// How far they are.
    pub status: AnswerStatus,
    /// Active time spent, in milliseconds.
    #[ts(type = "number")]
    pub active_ms: i64,
}

/// A line of the case list.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct CaseListItem {
    /// The task's id.
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The first line.
    pub title: String,
    /// The base commit, when known.
    pub base_commit: Option<String>,
    /// The current revision.
    #[ts(type = "number")]
    pub revision: i64,
    /// Whether the issue text and patches are present.
    pub has_materials: bool,
    /// Assignments and their status.
    pub assignments: Vec<AssignmentStatus>,
}

/// Everything about one case a rater reads.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct CaseDetail {
    /// The task's id.
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The base commit, when known.
    pub base_commit: Option<String>,
    /// The current revision.
    #[ts(type = "number")]
    pub revision: i64,
    /// The first line.
    pub title: String,
    /// The issue text, as imported (untrusted).
    pub problem_statement: String,
    /// Hints (comments before the fix).
    pub hints_text: String,
    /// SWE-bench Pro's requirements.
    pub requirements: Option<String>,
    /// SWE-bench Pro's interface.
    pub interface: Option<String>,
    /// The gold patch.
    pub gold_patch: String,
    /// The test patch.
    pub test_patch: String,
    /// FAIL_TO_PASS.
    pub fail_to_pass: Vec<String>,
    /// PASS_TO_PASS.
    pub pass_to_pass: Vec<String>,
    /// The PR's address, when it can be derived.
    pub pr_url: Option<String>,
    /// Whether issue text and patches are present.
    pub has_materials: bool,
    /// The sources that contributed.
    pub sources: Vec<String>,
    /// The audit's verdict, status and class, when an audit folder was imported.
    pub audit_status: Option<String>,
    /// The audit's witness class.
    pub audit_class: Option<String>,
    /// Other fields, as imported.
    #[ts(type = "Record<string, unknown>")]
    pub extra: Map<String, Value>,
    /// Assignments and their status.
    pub assignments: Vec<AssignmentStatus>,
}

fn status_of(events: &[&AnswerEvent]) -> AnswerStatus {
    if events.iter().any(|e| e.kind != EventKind::Draft) {
        AnswerStatus::Submitted
    } else if events.is_empty() {
        AnswerStatus::ToDo
    } else {
        AnswerStatus::InProgress
    }
}

/// Statuses of every assignment, and of every answer saved without one (by an older Verity, or
/// imported), by case. A deactivated rater's unsubmitted work is left out: it is in no queue.
fn assignment_statuses(project: &Project) -> Result<BTreeMap<i64, Vec<AssignmentStatus>>> {
    let all = project.store.list_raters()?;
    let inactive: std::collections::HashSet<i64> =
        all.iter().filter(|r| !r.active).map(|r| r.id).collect();
    let raters: HashMap<i64, String> = all.into_iter().map(|r| (r.id, r.name)).collect();
    let latest = project.store.latest_answer_events()?;
    let submitted: std::collections::HashSet<(i64, i64)> = project
        .store
        .first_submissions()?
        .iter()
        .map(|e| (e.case_id, e.rater_id))
        .collect();
    let mut by_pair: BTreeMap<(i64, i64), (AnswerStatus, i64)> = BTreeMap::new();
    for event in &latest {
        let status = if submitted.contains(&(event.case_id, event.rater_id)) {
            AnswerStatus::Submitted
        } else {
            AnswerStatus::InProgress
        };
        by_pair.insert((event.case_id, event.rater_id), (status, 0));
    }
    for a in project.store.list_assignments()? {
        let entry = by_pair
            .entry((a.case_id, a.rater_id))
            .or_insert((AnswerStatus::ToDo, 0));
        entry.1 = a.active_ms;
    }
    by_pair.retain(|(_, rater_id), (status, _)| {
        *status == AnswerStatus::Submitted || !inactive.contains(rater_id)
    });
    let mut out: BTreeMap<i64, Vec<AssignmentStatus>> = BTreeMap::new();
    for ((case_id, rater_id), (status, active_ms)) in by_pair {
        out.entry(case_id).or_default().push(AssignmentStatus {
            rater: raters.get(&rater_id).cloned().unwrap_or_default(),
            status,
            active_ms,
        });
    }
    for list in out.values_mut() {
        list.sort_by(|a, b| natural_cmp(&a.rater, &b.rater));
    }
    Ok(out)
}

/// Which cases `list_cases` returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaseFilter {
    /// Only cases assigned to this rater (or that they answered).
    pub rater: Option<String>,
    /// Only cases with an assignment in this status (the named rater's, when one is given).
    pub status: Option<AnswerStatus>,
    /// Only cases of this repository (`owner/name`).
    pub repo: Option<String>,
}

/// The cases the filter keeps, with their assignments' status, in natural id order
/// (`tinylib-2` before `tinylib-10`).
pub fn list_cases(project: &Project, filter: &CaseFilter) -> Result<Vec<CaseListItem>> {
    if let Some(rater) = &filter.rater {
        find_rater(project, rater)?;
    }
    let mut statuses = assignment_statuses(project)?;
    let mut cases: Vec<CaseListItem> = project
        .store
        .list_cases()?
        .into_iter()
        .filter(|row| filter.repo.as_ref().is_none_or(|repo| row.repo == *repo))
        .map(|row| CaseListItem {
            assignments: statuses.remove(&row.case_id).unwrap_or_default(),
            instance_id: row.instance_id,
            repo: row.repo,
            title: row.title,
            base_commit: row.base_commit,
            revision: row.revision,
            has_materials: row.has_materials,
        })
        .filter(|case| match (&filter.rater, filter.status) {
            (None, None) => true,
            (rater, status) => case.assignments.iter().any(|a| {
                rater.as_ref().is_none_or(|r| a.rater == *r) && status.is_none_or(|s| a.status == s)
            }),
        })
        .collect();
    cases.sort_by(|a, b| natural_cmp(&a.instance_id, &b.instance_id));
    Ok(cases)
}

/// The full id of the case named by `id`: the id itself, or a prefix that only one case's id
/// starts with.
pub fn resolve_case_id(project: &Project, id: &str) -> Result<String> {
    if project.store.case_by_instance(id)?.is_some() {
        return Ok(id.to_string());
    }
    const SHOWN: usize = 5;
    let matches = if id.is_empty() {
        Vec::new()
    } else {
        project.store.instance_ids_with_prefix(id, SHOWN + 1)?
    };
    match matches.as_slice() {
        [] => Err(Error::NotFound(format!(
            "the project has no case {id:?}, and no case id starts with it"
        ))),
        [only] => Ok(only.clone()),
        many => Err(Error::NotFound(format!(
            "{id:?} is the start of more than one case id ({}{}); give more of it",
            many.iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            if many.len() > SHOWN { ", …" } else { "" }
        ))),
    }
}

fn find_case(project: &Project, id: &str) -> Result<crate::store::StoredCase> {
    let full = resolve_case_id(project, id)?;
    project
        .store
        .case_by_instance(&full)?
        .ok_or_else(|| Error::NotFound(format!("the project has no case {id:?}")))
}

/// One case in full, with its assignments' status (never another rater's answers).
pub fn show_case(project: &Project, instance_id: &str) -> Result<CaseDetail> {
    let stored = find_case(project, instance_id)?;
    let assignments = assignment_statuses(project)?
        .remove(&stored.case_id)
        .unwrap_or_default();
    let case: Case = stored.case;
    let title = case.title();
    let has_materials = case.has_materials();
    let (audit_status, audit_class) = match &case.audit {
        Some(AuditNote {
            status,
            witness_class,
            ..
        }) => (status.clone(), witness_class.clone()),
        None => (None, None),
    };
    Ok(CaseDetail {
        instance_id: case.instance_id,
        repo: case.repo,
        base_commit: case.base_commit,
        revision: stored.revision,
        title,
        problem_statement: case.problem_statement,
        hints_text: case.hints_text,
        requirements: case.requirements,
        interface: case.interface,
        gold_patch: case.gold_patch,
        test_patch: case.test_patch,
        fail_to_pass: case.fail_to_pass,
        pass_to_pass: case.pass_to_pass,
        pr_url: case.pr_url,
        has_materials,
        sources: case
            .sources
            .iter()
            .map(|s| s.as_str().to_string())
            .collect(),
        audit_status,
        audit_class,
        extra: case.extra,
        assignments,
    })
}

// ---------------------------------------------------------------------------------------------
// Raters and assignments

/// A rater as the app shows it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct RaterSummary {
    /// The name.
    pub name: String,
    /// False once deactivated: their answers stay, and they have no queue.
    pub active: bool,
    /// Cases assigned.
    pub assigned: usize,
    /// Cases submitted.
    pub submitted: usize,
}

/// Adds a rater. A name that differs from an existing one only in case is refused.
pub fn add_rater(project: &mut Project, name: &str, now: OffsetDateTime) -> Result<RaterSummary> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::Rule("a rater's name must not be empty".into()));
    }
    project.store.add_rater(name, &stamp(now))?;
    Ok(RaterSummary {
        name: name.to_string(),
        active: true,
        assigned: 0,
        submitted: 0,
    })
}

/// What happened to a rater who left the panel.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct RaterChange {
    /// The rater.
    pub name: String,
    /// Unfinished assignments released for others (`assign` gives them out again).
    pub released: usize,
    /// Submitted answers the rater keeps.
    pub submitted: usize,
}

/// Deactivates a rater: their answers stay (submitted ones count in agreement and ensembles),
/// they leave every queue, and their unfinished assignments are released so that `assign`
/// gives those cases to the active raters, evening out the load.
pub fn deactivate_rater(
    project: &mut Project,
    name: &str,
    now: OffsetDateTime,
) -> Result<RaterChange> {
    let rater = find_rater(project, name)?;
    if !rater.active {
        return Err(Error::Rule(format!(
            "rater {name:?} is already deactivated"
        )));
    }
    let released = project
        .store
        .set_rater_active(rater.id, false, &stamp(now))?;
    let submitted = list_raters(project)?
        .into_iter()
        .find(|r| r.name == rater.name)
        .map_or(0, |r| r.submitted);
    Ok(RaterChange {
        name: rater.name,
        released,
        submitted,
    })
}

/// Brings a deactivated rater back; `assign` gives them cases again.
pub fn reactivate_rater(
    project: &mut Project,
    name: &str,
    now: OffsetDateTime,
) -> Result<RaterSummary> {
    let rater = find_rater(project, name)?;
    if rater.active {
        return Err(Error::Rule(format!("rater {name:?} is active")));
    }
    project
        .store
        .set_rater_active(rater.id, true, &stamp(now))?;
    list_raters(project)?
        .into_iter()
        .find(|r| r.name == rater.name)
        .ok_or_else(|| Error::NotFound(format!("the project has no rater named {name:?}")))
}

/// Removes a rater who never saved an answer, with their assignments. A rater with answers is
/// refused: answers are never deleted, so deactivate them instead.
pub fn remove_rater(project: &mut Project, name: &str) -> Result<RaterChange> {
    let rater = find_rater(project, name)?;
    let events = project.store.rater_event_count(rater.id)?;
    if events > 0 {
        return Err(Error::Rule(format!(
            "rater {name:?} has saved {events} answer event{}, and answers are never deleted; deactivate them instead (`verity raters deactivate {}`)",
            if events == 1 { "" } else { "s" },
            shell_word(name)
        )));
    }
    let released = project
        .store
        .list_assignments()?
        .iter()
        .filter(|a| a.rater_id == rater.id)
        .count();
    project.store.remove_rater(rater.id)?;
    Ok(RaterChange {
        name: rater.name,
        released,
        submitted: 0,
    })
}

/// Every rater with their load, active or not.
pub fn list_raters(project: &Project) -> Result<Vec<RaterSummary>> {
    let mut summaries: BTreeMap<String, RaterSummary> = project
        .store
        .list_raters()?
        .into_iter()
        .map(|r| {
            (
                r.name.clone(),
                RaterSummary {
                    name: r.name,
                    active: r.active,
                    assigned: 0,
                    submitted: 0,
                },
            )
        })
        .collect();
    for statuses in assignment_statuses(project)?.values() {
        for s in statuses {
            if let Some(summary) = summaries.get_mut(&s.rater) {
                summary.assigned += 1;
                if s.status == AnswerStatus::Submitted {
                    summary.submitted += 1;
                }
            }
        }
    }
    let mut list: Vec<RaterSummary> = summaries.into_values().collect();
    list.sort_by(|a, b| natural_cmp(&a.name, &b.name));
    Ok(list)
}

/// What `assign` did.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct AssignReport {
    /// New assignments made.
    pub added: usize,
    /// Cases considered.
    pub cases: usize,
    /// Each active rater's load after assigning.
    pub load: BTreeMap<String, usize>,
}

/// Which cases an assignment covers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CaseSelection {
    /// Every case with materials.
    #[default]
    All,
    /// These cases, by id or unique prefix.
    Ids(Vec<String>),
    /// Every case with materials of one repository (`owner/name`).
    Repo(String),
}

/// The selected cases' rows, each once, in id order. Named cases must exist and have
/// materials; a repository must have cases.
fn selected_cases(
    project: &Project,
    selection: &CaseSelection,
) -> Result<Vec<crate::store::CaseRow>> {
    let cases = project.store.list_cases()?;
    match selection {
        CaseSelection::All => Ok(cases.into_iter().filter(|c| c.has_materials).collect()),
        CaseSelection::Repo(repo) => {
            let chosen: Vec<_> = cases
                .into_iter()
                .filter(|c| c.has_materials && c.repo == *repo)
                .collect();
            if chosen.is_empty() {
                return Err(Error::NotFound(format!(
                    "the project has no case with materials in repository {repo:?}"
                )));
            }
            Ok(chosen)
        }
        CaseSelection::Ids(ids) => {
            let mut wanted = std::collections::BTreeSet::new();
            for id in ids {
                wanted.insert(resolve_case_id(project, id)?);
            }
            let chosen: Vec<_> = cases
                .into_iter()
                .filter(|c| wanted.contains(&c.instance_id))
                .collect();
            if let Some(bare) = chosen.iter().find(|c| !c.has_materials) {
                return Err(Error::Rule(format!(
                    "case {} has no materials (issue text and patches) yet; import its task first",
                    bare.instance_id
                )));
            }
            Ok(chosen)
        }
    }
}

/// Gives every selected case `per_case` distinct active raters, keeping existing assignments
/// and evening out the load. Ties between equally loaded raters are broken by a permutation
/// drawn from `seed`, so the same project and seed always give the same assignment.
/// Submitted assignments of deactivated raters still count towards a case's raters.
pub fn assign(
    project: &mut Project,
    per_case: usize,
    seed: u64,
    selection: &CaseSelection,
    now: OffsetDateTime,
) -> Result<AssignReport> {
    let raters: Vec<_> = project
        .store
        .list_raters()?
        .into_iter()
        .filter(|r| r.active)
        .collect();
    if per_case == 0 {
        return Err(Error::Rule("--per-case must be at least 1".into()));
    }
    if per_case > raters.len() {
        return Err(Error::Rule(format!(
            "cannot give each case {per_case} distinct raters: the project has {} active (add raters with `verity raters add NAME`)",
            raters.len()
        )));
    }
    let cases = selected_cases(project, selection)?;
    let mut existing: HashMap<i64, Vec<i64>> = HashMap::new();
    let mut load: HashMap<i64, usize> = raters.iter().map(|r| (r.id, 0)).collect();
    for a in project.store.list_assignments()? {
        existing.entry(a.case_id).or_default().push(a.rater_id);
        *load.entry(a.rater_id).or_default() += 1;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.shuffle(&mut rng);
    let mut pairs = Vec::new();
    for index in order {
        let case = &cases[index];
        let have = existing.get(&case.case_id).cloned().unwrap_or_default();
        let mut candidates: Vec<i64> = raters
            .iter()
            .map(|r| r.id)
            .filter(|id| !have.contains(id))
            .collect();
        candidates.shuffle(&mut rng);
        // Stable sort keeps the seeded order among equally loaded raters.
        candidates.sort_by_key(|id| load.get(id).copied().unwrap_or(0));
        for rater_id in candidates
            .into_iter()
            .take(per_case.saturating_sub(have.len()))
        {
            pairs.push((case.case_id, rater_id));
            *load.entry(rater_id).or_default() += 1;
        }
    }
    let added = project.store.add_assignments(&pairs, &stamp(now))?;
    Ok(assign_report(&raters, &load, added, cases.len()))
}

fn assign_report(
    raters: &[crate::store::Rater],
    load: &HashMap<i64, usize>,
    added: usize,
    cases: usize,
) -> AssignReport {
    AssignReport {
        added,
        cases,
        load: raters
            .iter()
            .map(|r| (r.name.clone(), load.get(&r.id).copied().unwrap_or(0)))
            .collect(),
    }
}

/// Assigns the selected cases to the named raters explicitly: the coordinator's way to give a
/// rater a case outside the balanced assignment. Existing assignments stay.
pub fn assign_to(
    project: &mut Project,
    raters: &[String],
    selection: &CaseSelection,
    now: OffsetDateTime,
) -> Result<AssignReport> {
    if raters.is_empty() {
        return Err(Error::Rule("name at least one rater to assign".into()));
    }
    let mut chosen = Vec::new();
    for name in raters {
        let rater = find_rater(project, name)?;
        if !rater.active {
            return Err(Error::Rule(format!(
                "rater {name:?} is deactivated; reactivate them first (`verity raters activate {}`)",
                shell_word(name)
            )));
        }
        chosen.push(rater);
    }
    let cases = selected_cases(project, selection)?;
    let pairs: Vec<(i64, i64)> = cases
        .iter()
        .flat_map(|c| chosen.iter().map(move |r| (c.case_id, r.id)))
        .collect();
    let added = project.store.add_assignments(&pairs, &stamp(now))?;
    let mut load: HashMap<i64, usize> = HashMap::new();
    for a in project.store.list_assignments()? {
        *load.entry(a.rater_id).or_default() += 1;
    }
    Ok(assign_report(&chosen, &load, added, cases.len()))
}

/// A line of a rater's queue.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct QueueItem {
    /// The task's id.
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The first line.
    pub title: String,
    /// How far the rater is.
    pub status: AnswerStatus,
    /// Active time spent, in milliseconds.
    #[ts(type = "number")]
    pub active_ms: i64,
}

fn find_rater(project: &Project, name: &str) -> Result<crate::store::Rater> {
    project
        .store
        .rater_by_name(name)?
        .ok_or_else(|| Error::NotFound(format!("the project has no rater named {name:?}")))
}

/// The rater, refused when deactivated: a rater who left the panel answers nothing more.
fn find_active_rater(project: &Project, name: &str) -> Result<crate::store::Rater> {
    let rater = find_rater(project, name)?;
    if !rater.active {
        return Err(Error::Rule(format!(
            "rater {name:?} is deactivated and has no queue; the coordinator can reactivate them"
        )));
    }
    Ok(rater)
}

/// A rater's assigned cases, in id order; empty for a deactivated rater.
pub fn rater_queue(project: &Project, rater: &str) -> Result<Vec<QueueItem>> {
    if !find_rater(project, rater)?.active {
        return Ok(Vec::new());
    }
    Ok(list_cases(project, &CaseFilter::default())?
        .into_iter()
        .filter_map(|case| {
            let mine = case.assignments.iter().find(|a| a.rater == rater)?;
            Some(QueueItem {
                status: mine.status,
                active_ms: mine.active_ms,
                instance_id: case.instance_id,
                repo: case.repo,
                title: case.title,
            })
        })
        .collect())
}

/// Adds active time (the window focused and the rater not idle) to a rater's work on an
/// assigned case.
pub fn record_time(project: &mut Project, rater: &str, case: &str, active_ms: i64) -> Result<()> {
    let rater = find_active_rater(project, rater)?;
    let stored = find_case(project, case)?;
    if !project
        .store
        .add_active_time(stored.case_id, rater.id, active_ms)?
    {
        return Err(not_assigned(&rater.name, &stored.case.instance_id));
    }
    Ok(())
}

fn not_assigned(rater: &str, case: &str) -> Error {
    Error::Rule(format!(
        "case {case} is not assigned to {rater}; raters answer only their assigned cases (the coordinator can assign it: `verity assign --case {} --rater {}`)",
        shell_word(case),
        shell_word(rater)
    ))
}

/// A word as a shell reads it back: quoted when it holds anything but plain characters.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@+=".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

// ---------------------------------------------------------------------------------------------
// Answers

/// A rater's current answer on a case.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct AnswerView {
    /// The task's id.
    pub case: String,
    /// The rater.
    pub rater: String,
    /// How far the rater is.
    pub status: AnswerStatus,
    /// Question id to value.
    #[ts(type = "Record<string, number | string>")]
    pub values: Map<String, Value>,
    /// 0 before the first submission; 1 for it; n+1 after each revision.
    #[ts(type = "number")]
    pub answer_revision: i64,
    /// The case revision the answer was given on.
    #[ts(type = "number | null")]
    pub case_revision: Option<i64>,
    /// When it was last saved.
    pub saved_at: Option<String>,
    /// The questionnaire's id and version it was given under.
    pub questionnaire: String,
    /// Why it was last revised.
    pub reason: Option<String>,
    /// True when a submission or revision repeated the submitted answer, so nothing was saved.
    pub unchanged: bool,
}

/// What a rater saves or submits.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct AnswerRequest {
    /// The rater.
    pub rater: String,
    /// The task's id.
    pub case: String,
    /// Question id to value.
    #[ts(type = "Record<string, number | string>")]
    pub values: Map<String, Value>,
    /// The case revision the rater saw; the current one when absent.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub case_revision: Option<i64>,
    /// Why a submitted answer is revised (revisions only).
    #[serde(default)]
    pub reason: Option<String>,
}

/// A rater's current answer on a case (their own only).
pub fn current_answer(project: &Project, rater: &str, case: &str) -> Result<AnswerView> {
    let r = find_rater(project, rater)?;
    let stored = find_case(project, case)?;
    let events = project.store.answer_events(stored.case_id, r.id)?;
    answer_view(project, &r.name, &stored.case.instance_id, &events, false)
}

fn answer_view(
    project: &Project,
    rater: &str,
    case: &str,
    events: &[AnswerEvent],
    unchanged: bool,
) -> Result<AnswerView> {
    let refs: Vec<&AnswerEvent> = events.iter().collect();
    let status = status_of(&refs);
    let latest = events.last();
    let case_revision = match latest {
        Some(e) => Some(project.store.case_revision(e.case_revision_id)?.revision),
        None => None,
    };
    let questionnaire = match latest {
        Some(e) => {
            let (id, version, _) = project.store.questionnaire_source(e.questionnaire_id)?;
            format!("{id} {version}")
        }
        None => format!(
            "{} {}",
            project.questionnaire.id, project.questionnaire.version
        ),
    };
    Ok(AnswerView {
        case: case.to_string(),
        rater: rater.to_string(),
        status,
        values: latest
            .map(|e| project.questionnaire.decode_answer(&e.answer))
            .unwrap_or_default(),
        answer_revision: latest.map_or(0, |e| e.answer_revision),
        case_revision,
        saved_at: latest.map(|e| e.at.clone()),
        questionnaire,
        reason: latest.and_then(|e| e.reason.clone()),
        unchanged,
    })
}

fn write_answer(
    project: &mut Project,
    req: &AnswerRequest,
    kind: EventKind,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    let rater = find_active_rater(project, &req.rater)?;
    let stored = find_case(project, &req.case)?;
    let case = stored.case.instance_id.clone();
    if !project.store.is_assigned(stored.case_id, rater.id)? {
        return Err(not_assigned(&rater.name, &case));
    }
    let revision_id = match req.case_revision {
        None => stored.revision_id,
        Some(n) if n == stored.revision => stored.revision_id,
        Some(n) => project
            .store
            .case_revisions(stored.case_id)?
            .into_iter()
            .find(|(_, rev)| *rev == n)
            .map(|(id, _)| id)
            .ok_or_else(|| Error::NotFound(format!("case {case:?} has no revision {n}")))?,
    };
    let events = project.store.answer_events(stored.case_id, rater.id)?;
    let submitted = events.iter().rfind(|e| e.kind != EventKind::Draft);
    let stage = if kind == EventKind::Draft {
        Stage::Draft
    } else {
        Stage::Submit
    };
    let values = project
        .questionnaire
        .check_answer(&req.values, stage)
        .map_err(|violations| Error::Invalid { violations })?;
    // Submitting again what is already submitted changes nothing, so a retried submission or
    // a revision that revises nothing makes no new revision.
    if kind != EventKind::Draft
        && let Some(last) = submitted
        && project.questionnaire.decode_answer(&last.answer) == values
    {
        return answer_view(project, &rater.name, &case, &events, true);
    }
    let answer_revision = match (kind, submitted) {
        (EventKind::Draft, Some(_)) => {
            return Err(Error::Rule(format!(
                "{} already submitted case {case}; a submitted answer is never overwritten: revise it with a reason",
                rater.name
            )));
        }
        (EventKind::Draft, None) => 0,
        (EventKind::Submit, Some(_)) => {
            return Err(Error::Rule(format!(
                "{} already submitted case {case}; a change after submission is a revision and needs a reason",
                rater.name
            )));
        }
        (EventKind::Submit, None) => 1,
        (EventKind::Revise, None) => {
            return Err(Error::Rule(format!(
                "{} has not submitted case {case} yet: there is nothing to revise",
                rater.name
            )));
        }
        (EventKind::Revise, Some(last)) => {
            if req.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
                return Err(Error::Rule(
                    "a revision of a submitted answer needs its reason".into(),
                ));
            }
            last.answer_revision + 1
        }
    };
    let at = stamp(now);
    project.store.append_answer_event(&NewAnswerEvent {
        case_id: stored.case_id,
        rater_id: rater.id,
        case_revision_id: revision_id,
        questionnaire_id: project.questionnaire_row,
        kind,
        answer_revision,
        answer: &values,
        reason: req.reason.as_deref().filter(|_| kind == EventKind::Revise),
        at: &at,
    })?;
    let events = project.store.answer_events(stored.case_id, rater.id)?;
    answer_view(project, &rater.name, &case, &events, false)
}

/// Saves a draft (values present must be on their scale; nothing is required yet).
pub fn save_draft(
    project: &mut Project,
    req: &AnswerRequest,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    write_answer(project, req, EventKind::Draft, now)
}

/// Submits an answer, checked against every rule of the questionnaire. Refused when the rater
/// already submitted: use [`revise_answer`].
pub fn submit_answer(
    project: &mut Project,
    req: &AnswerRequest,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    write_answer(project, req, EventKind::Submit, now)
}

/// Records a new revision of a submitted answer, with its reason; the earlier submission stays.
pub fn revise_answer(
    project: &mut Project,
    req: &AnswerRequest,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    write_answer(project, req, EventKind::Revise, now)
}

/// Checks answers without saving them, for the app to show rules as the rater types.
pub fn validate_answer(
    project: &Project,
    values: &Map<String, Value>,
    submit: bool,
) -> Vec<Violation> {
    project
        .questionnaire
        .validate(values, if submit { Stage::Submit } else { Stage::Draft })
}

// ---------------------------------------------------------------------------------------------
// Export

/// One line of the JSON-lines export: a case, a rater and their latest submitted answer (or,
/// with the history, one event).
#[derive(Debug, Clone, Serialize)]
pub struct ExportedAnswer {
    /// The task's id.
    pub instance_id: String,
    /// The rater.
    pub rater: String,
    /// The questionnaire id.
    pub questionnaire: String,
    /// The questionnaire version.
    pub questionnaire_version: String,
    /// The case revision the answer was given on.
    pub case_revision: i64,
    /// 0 for a draft before the first submission, 1 for the first submission, more after
    /// revisions.
    pub answer_revision: i64,
    /// The event: `draft`, `submit` or `revise` (history only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<EventKind>,
    /// When it was saved (history only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_at: Option<String>,
    /// When it was submitted or last revised (latest answers only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submitted_at: Option<String>,
    /// The reason of the revision.
    pub revision_reason: Option<String>,
    /// Every answer, each in its question's canonical type.
    pub answers: Map<String, Value>,
}

/// Writes one JSON line per case and rater with a submitted answer (their latest revision),
/// or with `history` one line per answer event, drafts and revisions included, in the order
/// they were saved; returns the count.
pub fn export_jsonl(
    project: &Project,
    history: bool,
    out: &mut dyn Write,
    out_path: &Path,
) -> Result<usize> {
    let raters: HashMap<i64, String> = project
        .store
        .list_raters()?
        .into_iter()
        .map(|r| (r.id, r.name))
        .collect();
    let mut revisions: HashMap<i64, (String, i64)> = HashMap::new();
    let mut questionnaires: HashMap<i64, (String, String)> = HashMap::new();
    let events = if history {
        project.store.all_answer_events()?
    } else {
        project.store.latest_submissions()?
    };
    let mut rows = Vec::new();
    for event in events {
        if let std::collections::hash_map::Entry::Vacant(e) =
            revisions.entry(event.case_revision_id)
        {
            let revision = project.store.case_revision(event.case_revision_id)?;
            e.insert((revision.case.instance_id, revision.revision));
        }
        if let std::collections::hash_map::Entry::Vacant(e) =
            questionnaires.entry(event.questionnaire_id)
        {
            let (id, version, _) = project.store.questionnaire_source(event.questionnaire_id)?;
            e.insert((id, version));
        }
        let (instance_id, case_revision) = revisions
            .get(&event.case_revision_id)
            .cloned()
            .unwrap_or_default();
        let (qid, qversion) = questionnaires
            .get(&event.questionnaire_id)
            .cloned()
            .unwrap_or_default();
        rows.push(ExportedAnswer {
            instance_id,
            rater: raters.get(&event.rater_id).cloned().unwrap_or_default(),
            questionnaire: qid,
            questionnaire_version: qversion,
            case_revision,
            answer_revision: event.answer_revision,
            event: history.then_some(event.kind),
            saved_at: history.then(|| event.at.clone()),
            submitted_at: (!history).then(|| event.at.clone()),
            revision_reason: event.reason,
            answers: project.questionnaire.decode_answer(&event.answer),
        });
    }
    if !history {
        rows.sort_by(|a, b| {
            natural_cmp(&a.instance_id, &b.instance_id)
                .then_with(|| natural_cmp(&a.rater, &b.rater))
        });
    }
    let write_err = |source| Error::Write {
        path: out_path.to_path_buf(),
        source,
    };
    for row in &rows {
        serde_json::to_writer(&mut *out, row).map_err(|e| write_err(e.into()))?;
        writeln!(out).map_err(write_err)?;
    }
    out.flush().map_err(write_err)?;
    Ok(rows.len())
}

// ---------------------------------------------------------------------------------------------
// The demo project

/// Where the demo project lives inside a data folder.
pub const DEMO_PROJECT_FILE: &str = "demo.verity";

/// The desktop app's identifier (`tauri.conf.json`), which names its data folder.
pub const APP_IDENTIFIER: &str = "dev.verity.desktop";

/// The folder the desktop app keeps its demo project in, so that `verity demo` opens the same
/// one: `$XDG_DATA_HOME/dev.verity.desktop/demo` (`~/.local/share/…` by default) on Linux,
/// `~/Library/Application Support/dev.verity.desktop/demo` on macOS, `%APPDATA%\…` on
/// Windows. `None` when the environment names no home folder.
pub fn default_demo_dir() -> Option<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(target_os = "macos") {
        var("HOME").map(|home| home.join("Library/Application Support"))
    } else if cfg!(windows) {
        var("APPDATA")
    } else {
        var("XDG_DATA_HOME").or_else(|| var("HOME").map(|home| home.join(".local/share")))
    };
    base.map(|b| b.join(APP_IDENTIFIER).join("demo"))
}

/// Opens the embedded demo project in `data_dir`, creating it on first use: the demo git
/// repository, a project with the SWE-bench Verified questionnaire, the twelve demo tasks, the
/// demo raters and two raters per task.
pub fn open_demo_project(data_dir: &Path, now: OffsetDateTime) -> Result<Project> {
    let write = |source| Error::Write {
        path: data_dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(data_dir).map_err(write)?;
    let repository = crate::demo::write_demo_repository(data_dir)
        .map_err(|e| Error::Rule(format!("cannot build the demo repository: {e}")))?;
    let path = data_dir.join(DEMO_PROJECT_FILE);
    if path.exists() {
        return open_project(&path);
    }
    // Build the project under a temporary name and rename it into place, so an interrupted
    // first start never leaves a half-made demo behind.
    let partial = data_dir.join(format!("{DEMO_PROJECT_FILE}.partial"));
    for stale in [
        partial.clone(),
        partial.with_extension("partial-wal"),
        partial.with_extension("partial-shm"),
    ] {
        if stale.exists() {
            std::fs::remove_file(&stale).map_err(write)?;
        }
    }
    let tasks = data_dir.join("demo-tasks.jsonl");
    std::fs::write(&tasks, crate::demo::DEMO_TASKS_JSONL).map_err(write)?;
    {
        let mut project = init_project(
            &partial,
            &QuestionnaireChoice::Builtin("swe-bench-verified".into()),
            now,
        )?;
        project.store.put_repository(
            crate::demo::DEMO_REPO,
            &repository.display().to_string(),
            &stamp(now),
        )?;
        import_paths(
            &mut project,
            &[tasks],
            now,
            &mut |_| {},
            &AtomicBool::new(false),
        )?;
        for name in crate::demo::DEMO_RATERS {
            add_rater(&mut project, name, now)?;
        }
        assign(&mut project, 2, 0, &CaseSelection::All, now)?;
    }
    std::fs::rename(&partial, &path).map_err(write)?;
    open_project(&path)
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn command_hints_quote_words_a_shell_would_split() {
        assert_eq!(shell_word("acme__calc-101"), "acme__calc-101");
        assert_eq!(shell_word("Lena Vogt"), "'Lena Vogt'");
        assert_eq!(shell_word("O'Neil"), "'O'\\''Neil'");
        assert_eq!(shell_word(""), "''");
    }
}
