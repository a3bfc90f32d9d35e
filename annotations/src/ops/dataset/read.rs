//! The tasks a dataset's rows are made of, read ahead: on a thread of its own, with its own
//! connection to the project, while the export builds the rows of the tasks before them (a
//! task's reading, decompressing and decoding is most of an export's work).

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use verity_store::{CaseStore, ProjectStore, StoreError};

use crate::ops::{Error, ErrorCode, Result};

/// What a row takes of a stored task: its fields as a [`verity_task::case::Case`] stores them,
/// the test lists kept as their JSON texts (the column's content: decoding thousands of test
/// names to write them back took a tenth of an export), the rest skipped.
#[derive(Deserialize)]
pub(super) struct Task {
    pub(super) instance_id: String,
    pub(super) repo: String,
    pub(super) base_commit: Option<String>,
    pub(super) problem_statement: String,
    pub(super) hints_text: String,
    pub(super) requirements: Option<String>,
    pub(super) interface: Option<String>,
    pub(super) gold_patch: String,
    pub(super) test_patch: String,
    pub(super) fail_to_pass: Box<RawValue>,
    pub(super) pass_to_pass: Box<RawValue>,
    #[serde(default)]
    pub(super) extra: Map<String, Value>,
}

/// The task `instance_id` of `store`, as a row takes it.
fn read_task(store: &dyn CaseStore, instance_id: &str) -> Result<Option<Task>> {
    let Some(json) = store.case_json(instance_id)? else {
        return Ok(None);
    };
    serde_json::from_str(&json)
        .map(Some)
        .map_err(|e| unreadable(instance_id, &e))
}

/// The refusal of a task whose stored content does not decode.
pub(super) fn unreadable(instance_id: &str, error: &serde_json::Error) -> Error {
    Error::refused(
        ErrorCode::Store,
        format!("the stored content of task {instance_id} does not read: {error}"),
    )
}

/// Tasks handed over at once, for the reason rows are (`BATCH_ROWS` of the dataset writer).
const BATCH: usize = 8;

/// Batches read ahead of the task being written: a slice of the export's second pass, so
/// that the reader reads on while the next slice's answers are read and combined (with 4, it
/// waited for that, and the export took a fifth longer); few enough that their texts stay a
/// small part of an export's memory (500 of SWE-bench Pro's tasks hold about 17 MB).
const AHEAD: usize = super::SLICE / BATCH;

/// What the reading thread hands over: each task asked for, or the error that stopped it.
type Batch = Vec<Result<Option<Task>>>;

/// The tasks asked for, in the order they were asked for.
pub(super) enum Reader<'s> {
    /// Read on another thread.
    Ahead {
        asked: Sender<Vec<String>>,
        cases: Receiver<Batch>,
        /// The rest of the batch last received, in order.
        taken: std::vec::IntoIter<Result<Option<Task>>>,
    },
    /// Read when taken, on this thread: a store that gives no second connection.
    Here {
        store: &'s dyn ProjectStore,
        asked: VecDeque<String>,
    },
}

impl<'s> Reader<'s> {
    /// A reader of `store`'s tasks, on a thread of its own when the store gives a connection
    /// for it and the thread starts.
    pub(super) fn start(store: &'s dyn ProjectStore) -> Result<Reader<'s>> {
        let here = Reader::Here {
            store,
            asked: VecDeque::new(),
        };
        let Some(own) = store.case_reader()? else {
            return Ok(here);
        };
        let (asked, wanted) = channel::<Vec<String>>();
        let (read, cases) = sync_channel(AHEAD);
        let thread = std::thread::Builder::new()
            .name("dataset-reader".into())
            .spawn(move || read_all(own.as_ref(), &wanted, &read));
        Ok(match thread {
            Ok(_) => Reader::Ahead {
                asked,
                cases,
                taken: Vec::new().into_iter(),
            },
            Err(e) => {
                tracing::debug!(error = %e, "dataset: tasks read on this thread");
                here
            }
        })
    }

    /// Asks for these tasks, to be taken after those asked for before.
    pub(super) fn ask(&mut self, ids: Vec<String>) {
        match self {
            // A reader that has stopped sends its error, or nothing, when the next is taken.
            Reader::Ahead { asked, .. } => asked.send(ids).unwrap_or_default(),
            Reader::Here { asked, .. } => asked.extend(ids),
        }
    }

    /// The next task asked for (`None` when the project no longer holds it).
    pub(super) fn take(&mut self) -> Result<Option<Task>> {
        match self {
            Reader::Ahead { cases, taken, .. } => loop {
                if let Some(case) = taken.next() {
                    return case;
                }
                match cases.recv() {
                    Ok(batch) => *taken = batch.into_iter(),
                    Err(_) => {
                        return Err(StoreError::Rule(
                            "the thread reading the tasks stopped before the last one".into(),
                        )
                        .into());
                    }
                }
            },
            Reader::Here { store, asked } => match asked.pop_front() {
                Some(id) => read_task(*store, &id),
                None => Ok(None),
            },
        }
    }
}

/// Reads each task asked for, in order, until no more are asked for, none are taken or one
/// fails; each batch asked for is handed over in batches of [`BATCH`].
fn read_all(store: &dyn CaseStore, wanted: &Receiver<Vec<String>>, read: &SyncSender<Batch>) {
    for ids in wanted {
        for chunk in ids.chunks(BATCH) {
            let mut batch = Vec::with_capacity(chunk.len());
            for id in chunk {
                batch.push(read_task(store, id));
                if batch.last().is_some_and(Result::is_err) {
                    break;
                }
            }
            let failed = batch.last().is_some_and(Result::is_err);
            if read.send(batch).is_err() || failed {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn tasks_come_in_the_order_asked_for_read_ahead_or_here() {
        let dir = tempfile::tempdir().unwrap();
        let project = crate::ops::open_demo_project(dir.path()).unwrap();
        let store = project.store.as_ref();
        let ids: Vec<String> = store
            .case_instance_ids()
            .unwrap()
            .into_iter()
            .map(|(_, id)| id)
            .rev()
            .collect();
        assert!(ids.len() > 5);
        let mut want: Vec<Option<String>> = ids[..5].iter().cloned().map(Some).collect();
        want.push(None);
        want.extend(ids[5..].iter().cloned().map(Some));
        let ahead = Reader::start(store).unwrap();
        assert!(matches!(ahead, Reader::Ahead { .. }));
        let here = Reader::Here {
            store,
            asked: VecDeque::new(),
        };
        for mut reader in [ahead, here] {
            reader.ask(ids[..5].to_vec());
            reader.ask(vec!["no-such-task".into()]);
            reader.ask(ids[5..].to_vec());
            let got: Vec<Option<String>> = (0..want.len())
                .map(|_| reader.take().unwrap().map(|c| c.instance_id))
                .collect();
            assert_eq!(got, want);
        }
    }
}
