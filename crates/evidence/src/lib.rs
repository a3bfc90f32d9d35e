//! Evidence from a task's repository at its base commit.
//!
//! Everything here is mechanical and re-runnable: every finding carries the `git grep` command
//! that reproduces it. The engine reads the repository's object database directly with git2,
//! never a checkout, and opens a user's clone read-only: no working tree, index or ref changes.
//!
//! What a report holds, for one task:
//! 1. **Terms** taken from the added lines of the test patch ([`extract_terms`]): string
//!    literals, numeric constants and identifiers used in calls, attributes and imports, the
//!    values of data and golden files, the literal runs of regular expressions, and names the
//!    gold patch defines that the prose never gives; each with the role it plays in the test
//!    ([`TermRole`]: asserted, test name, import, fixture path, other) and its source
//!    ([`TermSource`]).
//! 2. **Where each term occurs**: the prose, the gold patch's added lines, and every text file of
//!    the base commit, split into live code and non-live paths ([`classify_path`]).
//! 3. **A class per term** ([`TermClass`]), and how near its nearest live file is to the code
//!    the gold patch changes ([`HitGrade`]); a term only far away or in tooling files is weak.
//! 4. **Candidates**: asserted values (and names only the gold patch defines) that neither the
//!    prose nor live code near the change has, strongest first, each with its strength and
//!    reason and the nearest live strings with a word-level diff; the strong ones absent from
//!    every live file are airtight.
//! 5. **Precedents**: code snippets verified at the base commit in live paths.
//! 6. **Summary** counts and the task's **risk score**, with the candidates that drive it.
//!
//! Besides reports, the [`Engine`] answers interactive searches ([`Engine::grep`]) and shows a
//! file at a commit ([`Engine::show_file`]).
//!
//! # Partial clones
//! A clone may lack some of a commit's objects (a partial clone made with
//! `--filter=blob:limit=…`, a snapshot without its largest files). A report then lists them in
//! `missing_objects` (a file's path and blob id, or a folder's path and tree id), computes the
//! rest, and marks itself incomplete: `summary.incomplete`, and no airtight candidate is
//! airtight, since a missing file could hold its term. A search lists the files it could not
//! read; showing a missing file is an error.
//!
//! # Binary files
//! A file is binary when its first 8,000 bytes hold a NUL byte, the rule `git grep -I` applies
//! (Git's `buffer_is_binary`). Binary files are never searched; the report lists them apart in
//! `binary_paths`. `.gitattributes` is not consulted. Symbolic links and submodules are skipped,
//! as `git grep <commit>` skips them.
//!
//! # Example
//! ```no_run
//! use verity_evidence::{CaseContext, Engine, EvidenceRequest, render_text};
//! let engine = Engine::builder().threads(2).cache_bytes(64 << 20).build();
//! let context = CaseContext::new("ansible_07e7b69c", "ansible/ansible");
//! let request = EvidenceRequest {
//!     base_commit: "07e7b69c0411e0e1a8c1e8e2a1b5b1c7c4d5e6f7".into(),
//!     prose: "Missing Ericsson ECCLI platform support ...".into(),
//!     gold_patch: String::new(),
//!     test_patch: String::new(),
//!     precedents: Vec::new(),
//! };
//! let report = engine.compute_evidence("/repos/ansible".as_ref(), &context, &request)?;
//! println!("{}", render_text(&report));
//! # Ok::<(), verity_evidence::EvidenceError>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod blob_scan;
mod blobs;
mod candidates;
mod classify;
pub mod clone;
mod engine;
mod error;
mod grade;
mod grep;
mod noise;
mod paths;
mod pipeline;
mod precedents;
mod receipt;
mod report;
mod repository;
mod risk;
pub use risk::{SweepEffect, with_sweep};
mod sweep;
mod terms;
mod text;

pub use blobs::CacheStats;
pub use classify::classify_term;
pub use engine::{ENGINE_VERSION, Engine, EngineBuilder};
pub use error::{CaseContext, EvidenceError};
pub use grade::HitGrade;
pub use grep::{GrepFile, GrepLine, GrepQuery, GrepReport, ShownFile};
pub use paths::{PathClass, classify_path};
pub use pipeline::EvidenceRequest;
pub use precedents::{AmbiguityPrecedent, CodebaseAmbiguity, Snippet, parse_codebase_ambiguity};
pub use receipt::shell_quote;
pub use report::{
    AirtightCandidate, ChangeOp, EvidenceReport, Hit, MissingObject, NearString, PrecedentCheck,
    PrecedentFinding, PrecedentLocation, RiskDriver, Summary, TermClass, TermEvidence, WordChange,
    render_text,
};
pub use repository::{has_commit, held_commits, prepare};
pub use sweep::{
    GoldLine, GradedValue, JudgedStep, Proposal, ProposedSnippet, Receipt, SweepResult, SweepTask,
    SweptSnippet, Tier, parse_proposals,
};
pub use terms::{Term, TermKind, TermOrigin, TermRole, TermSource, extract_terms};
