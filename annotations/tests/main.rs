//! The core's integration tests: the use cases (`ops`) on both stores, the demo project, what
//! the desktop app calls, what a rater gets on the real audit data, hostile text, and the workspace's structure (no circle between a
//! crate's modules, no source file past 700 lines). The harnesses are `verity-testkit`'s.

mod access;
mod agreement;
mod answer_writes;
mod blind;
mod circles;
mod demo;
mod desktop_ops;
mod front_ends;
mod hostile_text;
mod long_files;
mod migrate;
mod ops;
mod packages;
mod save_rules;
mod store_suite;
