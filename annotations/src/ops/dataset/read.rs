//! The tasks a dataset's rows are made of, read ahead: on a thread of its own, with its own
//! connection to the project, while the export builds the rows of the tasks before them (a
//! task's reading, decompressing and decoding is most of an export's work).

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

use verity_store::{CaseStore, ProjectStore, StoreError};
use verity_task::case::Case;

use crate::ops::Result;

/// Tasks read ahead of the one being written: enough to keep the reader busy, few enough that
/// their texts stay a small part of an export's memory.
const AHEAD: usize = 32;

/// The tasks asked for, in the order they were asked for.
pub(super) enum Reader<'s> {
    /// Read on another thread.
    Ahead {
        asked: Sender<Vec<String>>,
        cases: Receiver<std::result::Result<Option<Case>, StoreError>>,
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
            Ok(_) => Reader::Ahead { asked, cases },
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
    pub(super) fn take(&mut self) -> Result<Option<Case>> {
        match self {
            Reader::Ahead { cases, .. } => match cases.recv() {
                Ok(case) => Ok(case?),
                Err(_) => Err(StoreError::Rule(
                    "the thread reading the tasks stopped before the last one".into(),
                )
                .into()),
            },
            Reader::Here { store, asked } => match asked.pop_front() {
                Some(id) => Ok(store.case_by_instance(&id)?.map(|s| s.case)),
                None => Ok(None),
            },
        }
    }
}

/// Reads each task asked for, in order, until no more are asked for or none are taken.
fn read_all(
    store: &dyn CaseStore,
    wanted: &Receiver<Vec<String>>,
    read: &SyncSender<std::result::Result<Option<Case>, StoreError>>,
) {
    for ids in wanted {
        for id in ids {
            let case = store.case_by_instance(&id).map(|s| s.map(|s| s.case));
            let failed = case.is_err();
            if read.send(case).is_err() || failed {
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
