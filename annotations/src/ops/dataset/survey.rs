//! A dataset's first pass over the tasks: which have their SWE-bench fields, and what their
//! other fields hold (the tasks' table's columns). Each revision's shape is stored beside it
//! (`Case::shape`), so this reads a few bytes a task; a revision stored before shapes were is
//! read whole, over two halves of those tasks at once when the store gives a second connection.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;

use super::rows::{PANEL, PRO_FIELDS, Seen, TASK_FIELDS};
use crate::ops::Result;
use verity_store::{CaseStore, ProjectStore};
use verity_task::case::{CaseShape, SourceKind};

/// What a task's shape is made from when it is read whole: the rest of its JSON is skipped,
/// not decoded.
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

impl Survey {
    /// The shape `Case::shape` gives the same task.
    fn shape(&self) -> CaseShape {
        let pro = self.requirements.is_some() || self.interface.is_some();
        CaseShape::of(&self.sources, pro, &self.extra)
    }
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
    /// Counts the task `case_id` of this shape.
    fn add(&mut self, case_id: i64, shape: &CaseShape) {
        if !shape.dataset {
            self.without_fields += 1;
            return;
        }
        self.exportable.insert(case_id);
        self.pro |= shape.pro;
        for (name, kind) in &shape.extra {
            let name = name.as_str();
            let reserved = TASK_FIELDS.contains(&name) || PRO_FIELDS.contains(&name);
            if !reserved && !name.starts_with(PANEL) {
                self.seen.entry(name.to_string()).or_default().add(*kind);
            }
        }
    }

    /// The shapes of `cases` (row id, instance id), read from the tasks themselves.
    fn read(store: &(impl CaseStore + ?Sized), cases: &[(i64, String)]) -> Result<Surveyed> {
        let mut found = Surveyed::default();
        for (case_id, instance_id) in cases {
            let Some(json) = store.case_json(instance_id)? else {
                continue;
            };
            let case: Survey = serde_json::from_str(&json)
                .map_err(|e| super::read::unreadable(instance_id, &e))?;
            found.add(*case_id, &case.shape());
        }
        Ok(found)
    }

    /// What both found.
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

/// The first pass over every task: the stored shapes, and the tasks stored without one read
/// whole.
pub(super) fn survey(store: &dyn ProjectStore) -> Result<Surveyed> {
    let mut found = Surveyed::default();
    let mut unshaped = Vec::new();
    for (case_id, instance_id, shape) in store.case_shapes()? {
        match shape {
            Some(shape) => found.add(case_id, &shape),
            None => unshaped.push((case_id, instance_id)),
        }
    }
    if unshaped.is_empty() {
        return Ok(found);
    }
    tracing::debug!(
        tasks = unshaped.len(),
        "dataset: tasks without a stored shape read"
    );
    Ok(found.merge(read_shapes(store, &unshaped)?))
}

/// The shapes of `cases`, read from the tasks: the second half on a thread of its own, with its
/// own connection, when the store gives one; a failure in the first half is told before one in
/// the second.
fn read_shapes(store: &dyn ProjectStore, cases: &[(i64, String)]) -> Result<Surveyed> {
    let Some(own) = store.case_reader()? else {
        return Surveyed::read(store, cases);
    };
    let (first, second) = cases.split_at(cases.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(move || Surveyed::read(own.as_ref(), second));
        let mine = Surveyed::read(store, first);
        let theirs = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok(mine?.merge(theirs?))
    })
}
