//! The core's integration tests: the use cases (`ops`) on both stores, the demo project, what
//! the desktop app calls, hostile text, and the workspace's structure (no circle between a
//! crate's modules, no source file past 700 lines). The harnesses are `verity-testkit`'s.

mod access;
mod agreement;
mod answer_writes;
mod circles;
mod demo;
mod desktop_ops;
mod front_ends;
mod hostile_text;
mod long_files;
mod migrate;
mod ops;
mod packages;
mod store_suite;
