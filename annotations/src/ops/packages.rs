//! Raters who work offline: a package is a project file cut from the panel's project for one
//! rater (their assigned tasks with materials, the questionnaire, the evidence cache, and their
//! own answers, nobody else's). The rater opens it like any project and answers; the coordinator
//! merges it back.
//!
//! Merging relies on answer events' global ids: an event the project already holds is skipped,
//! so merging twice changes nothing and packages merge in any order; every event keeps its
//! original time; two different events claiming one id are listed as conflicts, and the stored
//! one stays. An event that does not follow the rater's history in the project (a package's
//! revision 2 beside the project's own revision 2, from another copy of the package or from
//! the rater's work on the server meanwhile) is a divergence: it is listed as a conflict and
//! kept whole in the project's conflicts with the package it came from, never dropped and
//! never taken silently; the coordinator settles it (`verity conflicts`, [`super::conflicts`]).
//! A package from another project, one holding another rater's events, or a damaged file is
//! refused whole before anything is merged.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::lookup::{find_rater, refuse_model_rater};
use super::{Error, ErrorCode, Overwrite, Project, Result, stamp, write_project_file};
use verity_store::prelude::*;
use verity_store::transfer::{Cell, Table, copy_rows, table};
use verity_store::{EventKind, NewAnswerEvent, Store, StoreError};
use verity_task::case::AuditNote;

pub use verity_store::PACKAGE_RATER;
/// The project setting holding the project's id, which a package shares with its project.
pub const PROJECT_ID: &str = "project_id";

/// What `package` wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PackageReport {
    /// The package file.
    pub file: String,
    /// The rater it is for.
    pub rater: String,
    /// Tasks in it.
    pub tasks: usize,
    /// The rater's own answer events in it.
    pub events: usize,
    /// Cached evidence reports in it.
    pub evidence: usize,
    /// True when it replaced an existing file.
    pub replaced: bool,
}

/// Writes the package of `rater`: a new project file at `out` holding the rater's assigned
/// tasks, the questionnaire, the evidence cached for those tasks and the rater's own answer
/// events. Written whole or not at all.
pub fn package_for_rater(
    project: &Project,
    rater: &str,
    out: &Path,
    overwrite: Overwrite,
    now: OffsetDateTime,
) -> Result<PackageReport> {
    project.require_coordinator("writes a rater's package")?;
    let rater = find_rater(project, rater)?;
    refuse_model_rater(project, &rater, "a package")?;
    let cases: HashSet<i64> = project
        .store
        .list_assignments()?
        .into_iter()
        .filter(|a| a.rater_id == rater.id)
        .map(|a| a.case_id)
        .collect();
    let written = write_project_file(out, overwrite, |partial| {
        let mut package = Store::create(partial)?;
        let counts = cut(project.store.as_ref(), &mut package, rater.id, &cases)?;
        package.set_meta(PACKAGE_RATER, &rater.name)?;
        package.set_meta("packaged_at", &stamp(now))?;
        Ok(counts)
    })?;
    let counts = written.value;
    let count = |name: &str| {
        counts
            .iter()
            .find(|(t, _)| *t == name)
            .map_or(0, |(_, n)| *n)
    };
    Ok(PackageReport {
        file: out.display().to_string(),
        rater: rater.name,
        tasks: count("cases"),
        events: count("answer_events"),
        evidence: count("evidence_cache"),
        replaced: written.replaced,
    })
}

/// Copies what the package of rater `rater_id` holds; returns the rows copied per table.
fn cut(
    from: &dyn ProjectStore,
    to: &mut dyn TransferStore,
    rater_id: i64,
    cases: &HashSet<i64>,
) -> Result<Vec<(&'static str, usize)>> {
    let mut revisions: HashSet<i64> = HashSet::new();
    let mut events: HashSet<i64> = HashSet::new();
    let int = |table: &Table, row: &[Cell], column: &str| {
        table
            .column(column)
            .and_then(|i| row.get(i))
            .and_then(Cell::as_int)
    };
    let sweeps_shown = from.meta(super::sweep_access::SWEEP_FOR_RATERS)?.as_deref() == Some("on");
    let in_cases = |table: &Table, row: &[Cell]| {
        int(table, row, "case_id").is_some_and(|c| cases.contains(&c))
    };
    Ok(copy_rows(from, to, &mut |table, row| {
        Ok(match table.name {
            // The calibration rate stays with the coordinator, as the calibration tasks do.
            "meta" => table
                .column("key")
                .and_then(|i| row.get(i))
                .is_none_or(|key| *key != Cell::Text(super::calibration::CALIBRATION_RATE.into())),
            "questionnaires" => true,
            "cases" => int(table, row, "id").is_some_and(|c| cases.contains(&c)),
            "case_sources" => in_cases(table, row) && without_verdict(table, row)?,
            "case_revisions" => {
                let keep = in_cases(table, row);
                if let (true, Some(id)) = (keep, int(table, row, "id")) {
                    revisions.insert(id);
                }
                keep && without_verdict(table, row)?
            }
            "raters" => int(table, row, "id") == Some(rater_id),
            "assignments" => in_cases(table, row) && int(table, row, "rater_id") == Some(rater_id),
            "answer_events" => {
                let keep = in_cases(table, row) && int(table, row, "rater_id") == Some(rater_id);
                if let (true, Some(id)) = (keep, int(table, row, "id")) {
                    events.insert(id);
                }
                keep
            }
            "answer_event_fields" => {
                int(table, row, "answer_event_id").is_some_and(|e| events.contains(&e))
            }
            "evidence_cache" => {
                int(table, row, "case_revision_id").is_some_and(|r| revisions.contains(&r))
            }
            // Sweeps are close to a verdict: a package carries its tasks' only while the
            // project shows them to raters.
            "sweeps" => sweeps_shown && in_cases(table, row),
            // Adjudications, reference labels, adjudicators, answer conflicts and the
            // coordinator's clones stay with the coordinator.
            _ => false,
        })
    })?)
}

/// Takes the audit's verdict out of a task's text (a revision's or a source's `content`): a
/// package goes to a rater. True, so a filter can keep the row.
fn without_verdict(table: &Table, row: &mut [Cell]) -> std::result::Result<bool, StoreError> {
    let Some(cell) = table.column("content").and_then(|i| row.get_mut(i)) else {
        return Ok(true);
    };
    let Cell::Text(content) = cell else {
        return Ok(true);
    };
    let mut record: Value = serde_json::from_str(content)
        .map_err(|e| StoreError::Rule(format!("a task text in {} is not JSON: {e}", table.name)))?;
    AuditNote::strip_verdict(&mut record);
    *content = record.to_string();
    Ok(true)
}

/// One answer event as a merge compares it: what it says, in terms both projects share.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergedEvent {
    /// The task's id.
    pub instance_id: String,
    /// The rater's name.
    pub rater: String,
    /// The task revision the rater saw.
    pub revision: i64,
    /// `draft`, `submit` or `revise`.
    pub kind: EventKind,
    /// The answer's revision number.
    pub answer_revision: i64,
    /// The answers.
    pub answer: Map<String, Value>,
    /// Why a submitted answer was revised.
    pub reason: Option<String>,
    /// When it was saved, as recorded.
    pub at: String,
}

/// A package's event that the project could not take as it is: two different events claiming
/// one global id (the stored one stays), or an event that diverges from the rater's history in
/// the project (kept as an open conflict for the coordinator to settle).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergeConflict {
    /// The package event's global id.
    pub uid: String,
    /// The conflict's number for `verity conflicts resolve` when the event is kept as a
    /// divergence; `None` for a clash of global ids, which is not kept.
    pub conflict: Option<i64>,
    /// What is wrong, in a sentence.
    pub why: String,
    /// The event the project holds that this one clashes with: the one with the same id, or
    /// the submitted revision it diverges from; `None` when there is none.
    pub stored: Option<MergedEvent>,
    /// The package's event, not added to the answer's history.
    pub incoming: MergedEvent,
    /// The package it came from.
    pub file: String,
}

/// What merging one package did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PackageMerge {
    /// The package file.
    pub file: String,
    /// Its rater.
    pub rater: String,
    /// Answer events in it.
    pub events: usize,
    /// Events added to the project.
    pub added: usize,
    /// Events the project held already.
    pub already: usize,
}

/// What `merge` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergeReport {
    /// Package by package, in the order given.
    pub packages: Vec<PackageMerge>,
    /// Events that claim a stored event's id with different content.
    pub conflicts: Vec<MergeConflict>,
}

/// A package, read and checked.
struct Package {
    file: String,
    rater: String,
    /// Where its events come from, as a kept conflict records it.
    origin: String,
    /// Each event's global id, what it says, and its questionnaire's id, version and source.
    events: Vec<(String, MergedEvent, Questionnaire)>,
}

/// A stored questionnaire: its id, version and source.
type Questionnaire = (String, String, String);

/// Reads `path` as a package of `project_id` and checks it: the file is whole, it is a package
/// of this project, and every event in it is its rater's.
fn read_package(path: &Path, project_id: &str) -> Result<Package> {
    let file = path.display().to_string();
    let bad = |why: String| Error::refused(ErrorCode::BadPackage, format!("{file} {why}"));
    if !path.is_file() {
        return Err(bad("does not exist".into()));
    }
    let store = Store::open(path).map_err(|e| {
        bad(format!(
            "cannot be read as a package ({e}); nothing was merged"
        ))
    })?;
    store
        .check_integrity()
        .map_err(|e| bad(format!("is damaged or truncated ({e}); nothing was merged")))?;
    let rater = store.meta(PACKAGE_RATER)?.ok_or_else(|| {
        bad(
            "is a project, not a rater's package (`verity package` writes one); nothing was merged"
                .into(),
        )
    })?;
    let origin = format!(
        "{rater}'s package {file} (written {})",
        store
            .meta("packaged_at")?
            .unwrap_or_else(|| "at an unknown time".into())
    );
    let theirs = store.meta(PROJECT_ID)?.unwrap_or_default();
    if theirs != project_id {
        return Err(bad(format!(
            "is a package of another project (id {theirs}), not of this one (id {project_id}); nothing was merged"
        )));
    }
    let raters: HashMap<i64, String> = rows(&store, "raters")?
        .into_iter()
        .filter_map(|r| Some((r.first()?.as_int()?, r.get(1)?.as_text()?.to_string())))
        .collect();
    let cases: HashMap<i64, String> = rows(&store, "cases")?
        .into_iter()
        .filter_map(|r| Some((r.first()?.as_int()?, r.get(1)?.as_text()?.to_string())))
        .collect();
    let revisions: HashMap<i64, i64> = rows(&store, "case_revisions")?
        .into_iter()
        .filter_map(|r| Some((r.first()?.as_int()?, r.get(2)?.as_int()?)))
        .collect();
    let mut questionnaires: HashMap<i64, Questionnaire> = HashMap::new();
    let mut events = Vec::new();
    for event in store.all_answer_events()? {
        let name = raters.get(&event.rater_id).cloned().unwrap_or_default();
        if name != rater {
            return Err(bad(format!(
                "is {rater}'s package but holds an answer event of {}; nothing was merged",
                if name.is_empty() {
                    format!("rater row {}", event.rater_id)
                } else {
                    format!("{name:?}")
                }
            )));
        }
        let (Some(instance_id), Some(revision)) = (
            cases.get(&event.case_id),
            revisions.get(&event.case_revision_id),
        ) else {
            return Err(bad(format!(
                "holds answer event {} on a task it does not hold; nothing was merged",
                event.uid
            )));
        };
        let questionnaire = match questionnaires.get(&event.questionnaire_id) {
            Some(q) => q.clone(),
            None => {
                let q = store.questionnaire_source(event.questionnaire_id)?;
                questionnaires.insert(event.questionnaire_id, q.clone());
                q
            }
        };
        events.push((
            event.uid,
            MergedEvent {
                instance_id: instance_id.clone(),
                rater: name,
                revision: *revision,
                kind: event.kind,
                answer_revision: event.answer_revision,
                answer: event.answer,
                reason: event.reason,
                at: event.at,
            },
            questionnaire,
        ));
    }
    Ok(Package {
        file,
        rater,
        origin,
        events,
    })
}

fn rows(store: &Store, name: &str) -> Result<Vec<Vec<Cell>>> {
    let table = table(name).ok_or_else(|| {
        Error::refused(
            ErrorCode::Internal,
            format!("the schema has no table {name}"),
        )
    })?;
    let mut out = Vec::new();
    store.read_rows(table, &mut |row| {
        out.push(row);
        Ok(())
    })?;
    Ok(out)
}

/// An event in this project's ids, as merged or as stored.
#[derive(Debug, Clone, PartialEq)]
struct Pending {
    uid: String,
    case_id: i64,
    rater_id: i64,
    revision_id: i64,
    questionnaire_id: i64,
    event: MergedEvent,
}

impl Pending {
    fn new_event(&self) -> NewAnswerEvent<'_> {
        NewAnswerEvent {
            uid: &self.uid,
            case_id: self.case_id,
            rater_id: self.rater_id,
            case_revision_id: self.revision_id,
            questionnaire_id: self.questionnaire_id,
            kind: self.event.kind,
            answer_revision: self.event.answer_revision,
            answer: &self.event.answer,
            reason: self.event.reason.as_deref(),
            at: &self.event.at,
        }
    }
}

/// Merges rater packages into the project. Every package is read and checked, and every event
/// placed, before the first is added: a package refused refuses the whole merge.
pub fn merge_packages(
    project: &mut Project,
    files: &[PathBuf],
    now: OffsetDateTime,
) -> Result<MergeReport> {
    project.require_coordinator("merges raters' packages")?;
    let project_id = project.store.meta(PROJECT_ID)?.ok_or_else(|| {
        Error::refused(
            ErrorCode::Store,
            format!("{} has no project id", project.path().display()),
        )
    })?;
    let packages = files
        .iter()
        .map(|f| read_package(f, &project_id))
        .collect::<Result<Vec<_>>>()?;
    let mut cases: HashMap<String, i64> = HashMap::new();
    let mut revisions: HashMap<(i64, i64), i64> = HashMap::new();
    let mut raters: HashMap<String, i64> = HashMap::new();
    // Events to add, by global id, with the package each came from: added in id order, which
    // is the order they were made.
    let mut seen: BTreeMap<String, (Pending, usize)> = BTreeMap::new();
    let mut origins: Vec<(String, String)> = Vec::new();
    let mut report = MergeReport {
        packages: Vec::new(),
        conflicts: Vec::new(),
    };
    for package in packages {
        let refuse = |why: String| {
            Error::refused(
                ErrorCode::BadPackage,
                format!("{} {why}; nothing was merged", package.file),
            )
        };
        let rater_id = match raters.get(&package.rater) {
            Some(id) => *id,
            None => {
                let id = project
                    .store
                    .rater_by_name(&package.rater)?
                    .ok_or_else(|| {
                        refuse(format!(
                            "is for rater {:?}, whom this project does not have",
                            package.rater
                        ))
                    })?
                    .id;
                raters.insert(package.rater.clone(), id);
                id
            }
        };
        origins.push((package.file.clone(), package.origin.clone()));
        let mut merge = PackageMerge {
            file: package.file.clone(),
            rater: package.rater.clone(),
            events: package.events.len(),
            added: 0,
            already: 0,
        };
        for (uid, event, questionnaire) in package.events {
            let case_id = match cases.get(&event.instance_id) {
                Some(id) => *id,
                None => {
                    let id = project
                        .store
                        .case_by_instance(&event.instance_id)?
                        .ok_or_else(|| {
                            refuse(format!(
                                "holds task {}, which this project does not have",
                                event.instance_id
                            ))
                        })?
                        .case_id;
                    cases.insert(event.instance_id.clone(), id);
                    id
                }
            };
            let revision_id = match revisions.get(&(case_id, event.revision)) {
                Some(id) => *id,
                None => {
                    let id = project
                        .store
                        .case_revisions(case_id)?
                        .into_iter()
                        .find(|(_, n)| *n == event.revision)
                        .map(|(id, _)| id)
                        .ok_or_else(|| {
                            refuse(format!(
                                "holds revision {} of task {}, which this project does not have",
                                event.revision, event.instance_id
                            ))
                        })?;
                    revisions.insert((case_id, event.revision), id);
                    id
                }
            };
            let questionnaire_id = project.store.put_questionnaire(
                &questionnaire.0,
                &questionnaire.1,
                &questionnaire.2,
            )?;
            let incoming = Pending {
                uid,
                case_id,
                rater_id,
                revision_id,
                questionnaire_id,
                event,
            };
            let stored = match seen.get(&incoming.uid) {
                Some((earlier, _)) => Some(earlier.clone()),
                None => project
                    .store
                    .answer_event_by_uid(&incoming.uid)?
                    .map(|e| Pending {
                        uid: e.uid,
                        case_id: e.case_id,
                        rater_id: e.rater_id,
                        revision_id: e.case_revision_id,
                        questionnaire_id: e.questionnaire_id,
                        event: MergedEvent {
                            answer: e.answer,
                            reason: e.reason,
                            at: e.at,
                            kind: e.kind,
                            answer_revision: e.answer_revision,
                            ..incoming.event.clone()
                        },
                    }),
            };
            match stored {
                Some(stored) if stored == incoming => merge.already += 1,
                Some(stored) => report.conflicts.push(MergeConflict {
                    uid: incoming.uid,
                    conflict: None,
                    why: "another event holds this global id with different content; the stored one stays".into(),
                    stored: Some(stored_view(project, &stored)?),
                    incoming: incoming.event,
                    file: package.file.clone(),
                }),
                None => {
                    seen.insert(incoming.uid.clone(), (incoming, origins.len() - 1));
                    merge.added += 1;
                }
            }
        }
        report.packages.push(merge);
    }
    let found_at = stamp(now);
    for (p, from) in seen.values() {
        let (file, origin) = &origins[*from];
        match project.store.append_answer_event(&p.new_event()) {
            Ok(_) => {}
            Err(StoreError::HistoryMoved(why)) => {
                let conflict =
                    match project
                        .store
                        .record_conflict(&p.new_event(), origin, &found_at)?
                    {
                        Some(id) => id,
                        // Kept by an earlier merge of the same package.
                        None => project
                            .store
                            .answer_conflicts()?
                            .into_iter()
                            .find(|c| c.event.uid == p.uid)
                            .map_or(0, |c| c.event.id),
                    };
                if let Some(m) = report.packages.iter_mut().find(|m| &m.file == file) {
                    m.added -= 1;
                }
                report.conflicts.push(MergeConflict {
                    uid: p.uid.clone(),
                    conflict: Some(conflict),
                    why: format!("{why}; kept as conflict {conflict} for the coordinator to settle (verity conflicts)"),
                    stored: diverged_from(project, p)?,
                    incoming: p.event.clone(),
                    file: file.clone(),
                });
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(report)
}

/// The stored event a diverging one clashes with: the rater's submitted event of the same
/// revision, else their latest submitted one.
fn diverged_from(project: &Project, p: &Pending) -> Result<Option<MergedEvent>> {
    let events = project.store.answer_events(p.case_id, p.rater_id)?;
    let submitted = || events.iter().filter(|e| e.kind != EventKind::Draft);
    let Some(event) = submitted()
        .find(|e| e.answer_revision == p.event.answer_revision)
        .or_else(|| submitted().next_back())
    else {
        return Ok(None);
    };
    let stored = Pending {
        uid: event.uid.clone(),
        case_id: event.case_id,
        rater_id: event.rater_id,
        revision_id: event.case_revision_id,
        questionnaire_id: event.questionnaire_id,
        event: MergedEvent {
            kind: event.kind,
            answer_revision: event.answer_revision,
            answer: event.answer.clone(),
            reason: event.reason.clone(),
            at: event.at.clone(),
            ..p.event.clone()
        },
    };
    Ok(Some(stored_view(project, &stored)?))
}

/// A stored event in the terms a package uses.
fn stored_view(project: &Project, stored: &Pending) -> Result<MergedEvent> {
    let case = project.store.case_revision(stored.revision_id)?;
    let rater = project
        .store
        .list_raters()?
        .into_iter()
        .find(|r| r.id == stored.rater_id)
        .map(|r| r.name)
        .unwrap_or_default();
    Ok(MergedEvent {
        instance_id: case.case.instance_id,
        rater,
        revision: case.revision,
        ..stored.event.clone()
    })
}
