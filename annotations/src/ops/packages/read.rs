//! Reading a rater's package for a merge: the file whole, a package of this project, every
//! event its rater's; each event in the terms the package and the project share, with its
//! questionnaire and its seal.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use super::super::seal::PACKAGE_ID;
use super::{PACKAGE_RATER, PROJECT_ID};
use crate::ops::{Error, ErrorCode, Result};
use verity_store::prelude::*;
use verity_store::transfer::{Cell, table};
use verity_store::{EventKind, Store};

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

impl MergedEvent {
    /// The event in a refusal: who, on which task, what and when.
    pub(super) fn describe(&self, uid: &str) -> String {
        format!(
            "event {uid} ({} on {}, {} revision {} at {})",
            self.rater,
            self.instance_id,
            self.kind.as_str(),
            self.answer_revision,
            self.at
        )
    }
}

/// One event of a package as read: its global id, what it says, its questionnaire's id,
/// version and source, and its seal.
pub(super) struct PackageEvent {
    pub(super) uid: String,
    pub(super) event: MergedEvent,
    pub(super) questionnaire: (String, String, String),
    pub(super) seal: Option<String>,
}

/// A package, read and checked on its own.
pub(super) struct Package {
    pub(super) file: String,
    /// The rater it names.
    pub(super) rater: String,
    /// Where its events come from, as a kept conflict records it.
    pub(super) origin: String,
    /// Its id, which the project's record of it shares; `None` for a package made before
    /// packages were sealed.
    pub(super) package_id: Option<String>,
    /// Its events in global-id order: the order they were made.
    pub(super) events: Vec<PackageEvent>,
}

/// Reads `path` as a package of `project_id` and checks it: the file is whole, it is a package
/// of this project, and every event in it is its rater's.
pub(super) fn read_package(path: &Path, project_id: &str) -> Result<Package> {
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
    let pairs = |name: &str, value: usize| -> Result<HashMap<i64, Cell>> {
        Ok(rows(&store, name)?
            .into_iter()
            .filter_map(|r| Some((r.first()?.as_int()?, r.get(value)?.clone())))
            .collect())
    };
    let text = |cell: Option<&Cell>| cell.and_then(Cell::as_text).map(str::to_string);
    let raters = pairs("raters", 1)?;
    let cases = pairs("cases", 1)?;
    let revisions = pairs("case_revisions", 2)?;
    let seals: HashMap<String, String> = rows(&store, "answer_seals")?
        .into_iter()
        .filter_map(|r| Some((text(r.first())?, text(r.get(1))?)))
        .collect();
    let mut questionnaires: HashMap<i64, (String, String, String)> = HashMap::new();
    let mut events = Vec::new();
    for event in store.all_answer_events()? {
        let name = text(raters.get(&event.rater_id)).unwrap_or_default();
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
            text(cases.get(&event.case_id)),
            revisions
                .get(&event.case_revision_id)
                .and_then(Cell::as_int),
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
        events.push(PackageEvent {
            seal: seals.get(&event.uid).cloned(),
            uid: event.uid,
            event: MergedEvent {
                instance_id,
                rater: name,
                revision,
                kind: event.kind,
                answer_revision: event.answer_revision,
                answer: event.answer,
                reason: event.reason,
                at: event.at,
            },
            questionnaire,
        });
    }
    Ok(Package {
        package_id: store.meta(PACKAGE_ID)?,
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
