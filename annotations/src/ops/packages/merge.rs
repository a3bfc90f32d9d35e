//! Merging rater packages back into their project. Every event of every package is read and
//! checked before the first is stored, and a package that breaks any rule refuses the whole
//! merge with one sentence naming the event and the rule: nothing is stored.
//!
//! - **Whose it is.** The project's record of the package (its id, kept when it was made)
//!   names its rater; a package naming another is refused. Each event the project does not
//!   hold yet must carry the seal its package's secret gives it ([`super::super::seal`]).
//! - **As a live save.** Each new event is checked as a save of its rater would be: the rater
//!   active and a person, the task assigned to them, the project's questionnaire and its rules
//!   (notes and reasons within their size) at the event's stage, values in their stored form,
//!   a reason on a revision and only there, a global id that is a UUID v7, a time between the
//!   package's making and the merge (a day's leeway either side for the rater's clock), and
//!   the package's own history on the task in order (drafts before the submission, then each
//!   revision after the last).
//! - **By global ids.** An event the project holds already is skipped, so merging twice changes
//!   nothing (and says so) and packages merge in any order; every event keeps its original
//!   time. An event whose id the project holds with other content was changed after it was
//!   merged, and refuses the package. An event that does not follow the rater's history in the
//!   project (a package's revision 2 beside the project's own revision 2, from another copy of
//!   the package or from the rater's work on the server meanwhile) is a divergence: it is kept
//!   whole in the project's conflicts with the package it came from, never dropped and never
//!   taken silently, until the coordinator settles it (`verity conflicts`); merged again, it is
//!   reported as kept before, open or settled, and a settled one stays settled.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use serde::Serialize;
use time::OffsetDateTime;

use super::super::lookup::model_rater_ids;
use super::PROJECT_ID;
use super::checks::{check_new, check_rater, follows_in_package};
use super::read::{MergedEvent, Package, read_package};
use crate::ops::{Error, ErrorCode, Project, Result, stamp};
use verity_store::{AnswerConflict, EventKind, NewAnswerEvent, StoreError};

/// A package's event that diverges from the rater's history in the project, kept as an open
/// conflict for the coordinator to settle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergeConflict {
    /// The package event's global id.
    pub uid: String,
    /// The conflict's number for `verity conflicts resolve`.
    pub conflict: i64,
    /// What is wrong, in a sentence.
    pub why: String,
    /// The rater's submitted event in the project it diverges from; `None` when there is none.
    pub stored: Option<MergedEvent>,
    /// The package's event, not added to the answer's history.
    pub incoming: MergedEvent,
    /// The package it came from.
    pub file: String,
}

/// A package's event that an earlier merge kept as a conflict: merged again, it changes
/// nothing, and a settled conflict stays settled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettledBefore {
    /// The event's global id.
    pub uid: String,
    /// The conflict's number.
    pub conflict: i64,
    /// When the coordinator settled it; `None` while it is open.
    pub resolved_at: Option<String>,
    /// How it was settled.
    pub resolution: Option<String>,
    /// The package it came from this time.
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
    /// Events an earlier merge kept as conflicts.
    pub kept_before: usize,
    /// Events kept as new conflicts by this merge.
    pub conflicts: usize,
}

/// What `merge` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergeReport {
    /// Package by package, in the order given.
    pub packages: Vec<PackageMerge>,
    /// Events kept as new conflicts.
    pub conflicts: Vec<MergeConflict>,
    /// Events an earlier merge kept as conflicts, with how each stands.
    pub kept_before: Vec<SettledBefore>,
}

impl MergeReport {
    /// True when the merge stored nothing: every event was in the project already, or kept
    /// before as a conflict.
    pub fn changed_nothing(&self) -> bool {
        self.packages
            .iter()
            .all(|p| p.added == 0 && p.conflicts == 0)
    }
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

    /// Whether `conflict` keeps this very event.
    fn is_kept_in(&self, conflict: &AnswerConflict) -> bool {
        let e = &conflict.event;
        (
            e.case_id,
            e.rater_id,
            e.case_revision_id,
            e.questionnaire_id,
            e.kind,
            e.answer_revision,
            &e.answer,
            e.reason.as_deref(),
            e.at.as_str(),
        ) == (
            self.case_id,
            self.rater_id,
            self.revision_id,
            self.questionnaire_id,
            self.event.kind,
            self.event.answer_revision,
            &self.event.answer,
            self.event.reason.as_deref(),
            self.event.at.as_str(),
        )
    }
}

/// What the merge reads of the project once, whatever the number of packages.
struct Known {
    /// Task ids to row ids.
    cases: HashMap<String, i64>,
    /// (task row, revision number) to revision row ids.
    revisions: HashMap<(i64, i64), i64>,
    /// The project's questionnaire: its row, id, version and source.
    questionnaire: (i64, (String, String, String)),
    /// Conflicts kept by earlier merges, by the event's global id.
    kept: HashMap<String, AnswerConflict>,
    /// The model raters' row ids.
    models: HashSet<i64>,
    /// When the merge runs.
    now: OffsetDateTime,
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
    let mut known = Known {
        cases: HashMap::new(),
        revisions: HashMap::new(),
        questionnaire: (
            project.questionnaire_row,
            project
                .store
                .questionnaire_source(project.questionnaire_row)?,
        ),
        kept: project
            .store
            .answer_conflicts()?
            .into_iter()
            .map(|c| (c.event.uid.clone(), c))
            .collect(),
        models: model_rater_ids(project)?,
        now,
    };
    // Events to add, by global id, with the package each came from: added in id order, which
    // is the order they were made.
    let mut seen: BTreeMap<String, (Pending, usize)> = BTreeMap::new();
    let mut report = MergeReport {
        packages: Vec::new(),
        conflicts: Vec::new(),
        kept_before: Vec::new(),
    };
    let mut origins: Vec<(String, String)> = Vec::new();
    for package in &packages {
        origins.push((package.file.clone(), package.origin.clone()));
        let merge = place(project, &mut known, package, origins.len() - 1, &mut seen)?;
        report.kept_before.extend(merge.1);
        report.packages.push(merge.0);
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
                        // Kept meanwhile by another session's merge of the same package.
                        None => project
                            .store
                            .answer_conflicts()?
                            .into_iter()
                            .find(|c| c.event.uid == p.uid)
                            .map_or(0, |c| c.event.id),
                    };
                if let Some(m) = report.packages.get_mut(*from) {
                    m.added -= 1;
                    m.conflicts += 1;
                }
                report.conflicts.push(MergeConflict {
                    uid: p.uid.clone(),
                    conflict,
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

/// Checks one package and places each of its events: held already, kept before as a conflict,
/// or to be added (into `seen`, with the package's number `from`). Refuses the package at its
/// first event that breaks a rule.
fn place(
    project: &Project,
    known: &mut Known,
    package: &Package,
    from: usize,
    seen: &mut BTreeMap<String, (Pending, usize)>,
) -> Result<(PackageMerge, Vec<SettledBefore>)> {
    let refuse = |why: String| {
        Error::refused(
            ErrorCode::BadPackage,
            format!("{} {why}; nothing was merged", package.file),
        )
    };
    // Whose package it is: the project's record of it says, not the package.
    let key = match &package.package_id {
        Some(id) => Some(project.store.package_key(id)?.ok_or_else(|| {
            refuse(format!(
                "names package {id}, which this project did not make (or no longer records)"
            ))
        })?),
        None => None,
    };
    let rater = match &key {
        Some(key) => project
            .store
            .list_raters()?
            .into_iter()
            .find(|r| r.id == key.rater_id),
        None => project.store.rater_by_name(&package.rater)?,
    }
    .ok_or_else(|| {
        refuse(format!(
            "is for rater {:?}, whom this project does not have",
            package.rater
        ))
    })?;
    if let Some(key) = &key
        && rater.name != package.rater
    {
        return Err(refuse(format!(
            "is {}'s package (made {}) but names {:?} as its rater",
            rater.name, key.made_at, package.rater
        )));
    }
    let mut merge = PackageMerge {
        file: package.file.clone(),
        rater: rater.name.clone(),
        events: package.events.len(),
        added: 0,
        already: 0,
        kept_before: 0,
        conflicts: 0,
    };
    let mut kept_before = Vec::new();
    let mut assigned: Option<HashSet<i64>> = None;
    // Each task's answer as the package's own history has it so far: its last submitted
    // revision.
    let mut history: HashMap<i64, Option<i64>> = HashMap::new();
    for e in &package.events {
        let case_id = case_id(project, known, &e.event.instance_id, &refuse)?;
        let revision_id = revision_id(project, known, case_id, &e.event, &refuse)?;
        if e.questionnaire != known.questionnaire.1 {
            let (id, version, _) = &known.questionnaire.1;
            return Err(refuse(format!(
                "holds {}, answered under questionnaire {} {} where the project's is {id} {version}",
                e.event.describe(&e.uid),
                e.questionnaire.0,
                e.questionnaire.1
            )));
        }
        let incoming = Pending {
            uid: e.uid.clone(),
            case_id,
            rater_id: rater.id,
            revision_id,
            questionnaire_id: known.questionnaire.0,
            event: e.event.clone(),
        };
        let last = history.entry(case_id).or_insert(None);
        let follows = follows_in_package(&e.event, *last);
        if e.event.kind != EventKind::Draft {
            *last = Some(e.event.answer_revision);
        }
        let stored = match seen.get(&incoming.uid) {
            Some((earlier, _)) => Some(earlier.clone()),
            None => stored(project, &incoming)?,
        };
        match stored {
            Some(stored) if stored == incoming => {
                merge.already += 1;
                continue;
            }
            Some(_) => {
                return Err(refuse(format!(
                    "holds {}, whose global id the project holds for an event that says something else: an event merged before was changed",
                    e.event.describe(&e.uid)
                )));
            }
            None => {}
        }
        if let Some(conflict) = known.kept.get(&e.uid) {
            if !incoming.is_kept_in(conflict) {
                return Err(refuse(format!(
                    "holds {}, which differs from conflict {} kept from it before: it was changed since",
                    e.event.describe(&e.uid),
                    conflict.event.id
                )));
            }
            merge.kept_before += 1;
            kept_before.push(SettledBefore {
                uid: e.uid.clone(),
                conflict: conflict.event.id,
                resolved_at: conflict.resolved_at.clone(),
                resolution: conflict.resolution.clone(),
                file: package.file.clone(),
            });
            continue;
        }
        // A new event: checked as a live save of its rater would be.
        let assigned = match &mut assigned {
            Some(cases) => cases,
            None => assigned.insert(check_rater(project, &known.models, &rater, &refuse)?),
        };
        let broken = check_new(
            project,
            known.now,
            key.as_ref(),
            e,
            assigned.contains(&case_id),
        )
        .err()
        .or_else(|| follows.err());
        if let Some(rule) = broken {
            return Err(refuse(format!(
                "holds {}, which {rule}",
                e.event.describe(&e.uid)
            )));
        }
        seen.insert(incoming.uid.clone(), (incoming, from));
        merge.added += 1;
    }
    Ok((merge, kept_before))
}

/// The row id of the task `instance_id`, read once per merge.
fn case_id(
    project: &Project,
    known: &mut Known,
    instance_id: &str,
    refuse: &dyn Fn(String) -> Error,
) -> Result<i64> {
    if let Some(id) = known.cases.get(instance_id) {
        return Ok(*id);
    }
    let id = project
        .store
        .case_by_instance(instance_id)?
        .ok_or_else(|| {
            refuse(format!(
                "holds task {instance_id}, which this project does not have"
            ))
        })?
        .case_id;
    known.cases.insert(instance_id.to_string(), id);
    Ok(id)
}

/// The row id of the task revision an event was given on, read once per merge.
fn revision_id(
    project: &Project,
    known: &mut Known,
    case_id: i64,
    event: &MergedEvent,
    refuse: &dyn Fn(String) -> Error,
) -> Result<i64> {
    if let Some(id) = known.revisions.get(&(case_id, event.revision)) {
        return Ok(*id);
    }
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
    known.revisions.insert((case_id, event.revision), id);
    Ok(id)
}

/// The event the project holds under the incoming one's global id, in the terms a package uses.
fn stored(project: &Project, incoming: &Pending) -> Result<Option<Pending>> {
    Ok(project
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
        }))
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
    let case = project.store.case_revision(event.case_revision_id)?;
    Ok(Some(MergedEvent {
        instance_id: case.case.instance_id,
        revision: case.revision,
        kind: event.kind,
        answer_revision: event.answer_revision,
        answer: event.answer.clone(),
        reason: event.reason.clone(),
        at: event.at.clone(),
        rater: p.event.rater.clone(),
    }))
}
