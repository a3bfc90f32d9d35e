//! Verity's core: the use cases ([`ops`]) over the layers below it (`verity-task`'s cases and
//! questionnaires, `verity-stats`, `verity-evidence`, `verity-store`, `verity-endpoint`), with
//! the formats it reads and writes (imports, exports, the Hugging Face Hub) and the demo
//! project.
//!
//! The command line (`verity-cli`) and the desktop app call [`ops`] only; the other modules are
//! the parts `ops` composes.
// Unsafe code only in `ops::process`: the process-wide setup a front end runs before any
// thread starts (the allocator, libgit2's globals, the environment).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod demo;
pub mod export;
pub mod hub;
pub mod import;
pub mod markdown;
pub mod ops;
