//! Verity's core library: SWE-bench-style tasks, the annotation questionnaire, the SQLite
//! project store, evidence from the task's repository, inter-rater agreement and exports.
//!
//! The command line (`verity`) and the desktop app call [`ops`] only; the other modules are the
//! parts `ops` composes.
// Unsafe code only in `ops::process`: the process-wide setup a front end runs before any
// thread starts (the allocator, libgit2's globals, the environment).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod agreement;
pub mod case;
pub mod clone;
pub mod demo;
pub mod endpoint;
pub mod ensemble;
pub mod evidence;
pub mod export;
pub mod hub;
pub mod import;
pub mod markdown;
pub mod natural;
pub mod ops;
pub mod patch;
pub mod questionnaire;
pub mod rates;
pub mod store;
