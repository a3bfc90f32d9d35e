//! The project store's interface: every read and write `ops` makes of a project, as traits a
//! second backend implements. Each table group declares its trait beside the SQLite code that
//! implements it (`MetaStore` in `meta.rs`, with its SQLite implementation in `file.rs`, `CaseStore` and `ImportBatch` in `cases.rs`,
//! `RaterStore` in `raters.rs`, `AnswerStore` in `answers.rs`, `LabelStore` and `ImportLabels`
//! in `labels.rs`, `RepoStore` in `repos.rs`, `TransferStore` in `transfer.rs`, `ProgressStore` in
//! `progress.rs`, `ResultStore` in `results.rs`, `ModelStore` in `models.rs`, `SampleStore` in
//! `samples.rs`);
//! [`ProjectStore`] is all of them.
//!
//! The server backend (`postgres/`) implements each trait in the file of the same name as the
//! SQLite code (`postgres/raters.rs` beside `raters.rs`, and so on). The statements whose text is
//! the same in both dialects, and the decoders of the rows they give, are written once in
//! `shared.rs`; what differs stays beside the method of each backend that runs it.
//!
//! Answer events are append-only: the interface has no way to change or delete one, and the
//! SQLite schema refuses both besides (`annotations/tests/store_suite.rs` checks both).

use super::transfer::TransferStore;
use super::{
    AnswerStore, CaseStore, LabelStore, MetaStore, ModelStore, ProgressStore, RaterStore,
    RepoStore, ResultStore, SampleStore,
};

/// Everything `ops` reads and writes in a project.
pub trait ProjectStore:
    MetaStore
    + CaseStore
    + RaterStore
    + AnswerStore
    + LabelStore
    + RepoStore
    + TransferStore
    + ProgressStore
    + ResultStore
    + ModelStore
    + SampleStore
    + Send
    + std::fmt::Debug
{
}

impl<T> ProjectStore for T where
    T: MetaStore
        + CaseStore
        + RaterStore
        + AnswerStore
        + LabelStore
        + RepoStore
        + TransferStore
        + ProgressStore
        + ResultStore
        + ModelStore
        + SampleStore
        + Send
        + std::fmt::Debug
{
}
