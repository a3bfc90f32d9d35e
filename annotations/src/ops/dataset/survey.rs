//! A dataset's first pass over the tasks: which have their SWE-bench fields, and what their
//! other fields hold (the tasks' table's columns), over two halves of the tasks at once when
//! the store gives a second connection.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;

use super::rows::{PANEL, PRO_FIELDS, Seen, TASK_FIELDS};
use crate::ops::Result;
use verity_store::{CaseStore, ProjectStore};
use verity_task::case::SourceKind;

/// What the first pass reads of a task: the rest of its JSON is skipped, not decoded.
#[derive(Deserialize)]
struct Survey {
    #[serde(default)]
    sources: Vec<SourceKind>,
    #[serde(default)]
    requirements: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    interface: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    extra: serde_json::Map<String, serde_json::Value>,
}

/// What the first pass found of some tasks.
#[derive(Default)]
pub(super) struct Surveyed {
    /// The other fields, by name, with what their values were.
    pub(super) seen: BTreeMap<String, Seen>,
    /// Whether some task has SWE-bench Pro's texts.
    pub(super) pro: bool,
    /// Tasks without their SWE-bench fields.
    pub(super) without_fields: usize,
    /// The row ids of the tasks with them.
    pub(super) exportable: HashSet<i64>,
}

impl Surveyed {
    /// The first pass over `cases` (row id, instance id).
    fn of(store: &(impl CaseStore + ?Sized), cases: &[(i64, String)]) -> Result<Surveyed> {
        let reserved: HashSet<&str> = TASK_FIELDS.iter().chain(&PRO_FIELDS).copied().collect();
        let mut found = Surveyed::default();
        for (case_id, instance_id) in cases {
            let Some(json) = store.case_json(instance_id)? else {
                continue;
            };
            let case: Survey = serde_json::from_str(&json)
                .map_err(|e| super::read::unreadable(instance_id, &e))?;
            if !case.sources.contains(&SourceKind::Dataset) {
                found.without_fields += 1;
                continue;
            }
            found.exportable.insert(*case_id);
            found.pro |= case.requirements.is_some() || case.interface.is_some();
            for (name, value) in &case.extra {
                if !reserved.contains(name.as_str()) && !name.starts_with(PANEL) {
                    found.seen.entry(name.clone()).or_default().add(value);
                }
            }
        }
        Ok(found)
    }

    /// What both passes found.
    fn merge(mut self, other: Surveyed) -> Surveyed {
        for (name, seen) in other.seen {
            self.seen.entry(name).or_default().merge(seen);
        }
        self.pro |= other.pro;
        self.without_fields += other.without_fields;
        self.exportable.extend(other.exportable);
        self
    }
}

/// The first pass over `cases`: the second half on a thread of its own, with its own
/// connection, when the store gives one; a failure in the first half is told before one in the
/// second.
pub(super) fn survey(store: &dyn ProjectStore, cases: &[(i64, String)]) -> Result<Surveyed> {
    let Some(own) = store.case_reader()? else {
        return Surveyed::of(store, cases);
    };
    let (first, second) = cases.split_at(cases.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(move || Surveyed::of(own.as_ref(), second));
        let mine = Surveyed::of(store, first);
        let theirs = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok(mine?.merge(theirs?))
    })
}
