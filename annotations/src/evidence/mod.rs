//! Evidence from a task's repository at its base commit.
//!
//! Everything here is mechanical and re-runnable: every finding carries the `git grep` command
//! that reproduces it. The engine reads the repository's object database directly with git2,
//! never a checkout, and opens a user's clone read-only: no working tree, index or ref changes.
//!
//! What a report holds, for one task:
//! 1. **Terms** taken from the added lines of the test patch ([`extract_terms`]): string
//!    literals, numeric constants and identifiers used in calls, attributes and imports.
//! 2. **Where each term occurs**: the prose, the gold patch's added lines, and every text file of
//!    the base commit, split into live code and non-live paths ([`classify_path`]).
//! 3. **A class per term** ([`TermClass`]).
//! 4. **Airtight candidates**: asserted string literals found in neither prose nor live code,
//!    with the nearest live strings and a word-level diff.
//! 5. **Precedents**: code snippets verified at the base commit in live paths.
//! 6. **Summary** counts.
//!
//! Besides reports, the [`Engine`] answers interactive searches ([`Engine::grep`]) and shows a
//! file at a commit ([`Engine::show_file`]).
//!
//! # Binary files
//! A file is binary when its first 8,000 bytes hold a NUL byte, the rule `git grep -I` applies
//! (Git's `buffer_is_binary`). Binary files are never searched; the report lists them apart in
//! `binary_paths`. `.gitattributes` is not consulted. Symbolic links and submodules are skipped,
//! as `git grep <commit>` skips them.
//!
//! # Example
//! ```no_run
//! use annotations::evidence::{CaseContext, Engine, EvidenceRequest, render_text};
//! let engine = Engine::builder().threads(2).cache_bytes(256 << 20).build();
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
//! # Ok::<(), annotations::evidence::EvidenceError>(())
//! ```

mod blobs;
mod candidates;
mod classify;
mod grep;
mod noise;
mod paths;
mod pipeline;
mod precedents;
mod receipt;
mod report;
mod repository;
mod sweep;
mod terms;

use std::path::PathBuf;
use std::sync::Mutex;

pub use blobs::CacheStats;
pub use classify::classify_term;
pub use grep::{GrepFile, GrepLine, GrepQuery, GrepReport, ShownFile};
pub use paths::{PathClass, classify_path};
pub use precedents::{AmbiguityPrecedent, CodebaseAmbiguity, Snippet, parse_codebase_ambiguity};
pub use receipt::shell_quote;
pub use report::{
    AirtightCandidate, ChangeOp, EvidenceReport, Hit, NearString, PrecedentFinding,
    PrecedentLocation, Summary, TermClass, TermEvidence, WordChange, render_text,
};
pub use repository::{has_commit, held_commits};
pub use terms::{Term, TermKind, TermOrigin, extract_terms};

/// Version of the evidence engine; the store keys its evidence cache on it, so a change to
/// term extraction, classification, path rules or what the near-string search covers must bump
/// it.
pub const ENGINE_VERSION: &str = "evidence-2";

/// Names a task and its repository so that every error message can say which ones it is about.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CaseContext {
    /// The case's id, or `None` for work not tied to a case (such as `verity repo list`).
    pub case_id: Option<String>,
    /// The repository's name (`owner/name`) as the project knows it.
    pub repo: String,
}

impl CaseContext {
    /// Context for work on one case.
    pub fn new(case_id: impl Into<String>, repo: impl Into<String>) -> CaseContext {
        CaseContext {
            case_id: Some(case_id.into()),
            repo: repo.into(),
        }
    }

    /// Context for work on a repository alone.
    pub fn repository(repo: impl Into<String>) -> CaseContext {
        CaseContext {
            case_id: None,
            repo: repo.into(),
        }
    }
}

impl std::fmt::Display for CaseContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.case_id {
            Some(case) => write!(f, "case {case} (repository {})", self.repo),
            None => write!(f, "repository {}", self.repo),
        }
    }
}

/// Everything that can go wrong while computing evidence, searching or showing a file.
#[derive(Debug, thiserror::Error)]
pub enum EvidenceError {
    /// Nothing exists at the repository path.
    #[error("For {context}: no repository exists at {}.", path.display())]
    RepositoryMissing {
        /// Case and repository.
        context: Box<CaseContext>,
        /// Where the clone was expected.
        path: PathBuf,
    },
    /// Something exists at the path but git cannot open it as a repository.
    #[error("For {context}: {} is not a git repository git2 can open: {message}.", path.display())]
    RepositoryUnreadable {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The path given.
        path: PathBuf,
        /// libgit2's explanation.
        message: String,
    },
    /// The base commit is not a full 40-hex-digit id.
    #[error(
        "For {context}: base commit '{commit}' is not a full 40-hex-digit commit id; abbreviated or symbolic ids are refused because they can be ambiguous."
    )]
    CommitNotFullId {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The id as given.
        commit: String,
    },
    /// The clone does not hold the commit.
    #[error(
        "For {context}: the clone at {} does not hold base commit {commit}; fetch it or point the project at a fuller clone.",
        path.display()
    )]
    CommitMissing {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The clone.
        path: PathBuf,
        /// The missing commit.
        commit: String,
    },
    /// The id names an object that is not a commit (or a tag of one).
    #[error("For {context}: object {commit} in {} is a {kind}, not a commit.", path.display())]
    NotACommit {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The clone.
        path: PathBuf,
        /// The id given.
        commit: String,
        /// The object's type.
        kind: String,
    },
    /// An object could not be read or inflated.
    #[error(
        "For {context}: object {object} reachable from commit {commit} in {} cannot be read ({message}); the clone may be corrupt.",
        path.display()
    )]
    CorruptObject {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The clone.
        path: PathBuf,
        /// The commit being read.
        commit: String,
        /// The unreadable object (commit, tree or blob id).
        object: String,
        /// libgit2's explanation.
        message: String,
    },
    /// A file asked for does not exist at the commit.
    #[error("For {context}: commit {commit} has no file '{file}'.")]
    FileMissing {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The commit.
        commit: String,
        /// The path asked for.
        file: String,
    },
    /// A file asked for is binary and cannot be shown as text.
    #[error(
        "For {context}: '{file}' at commit {commit} is a binary file ({size} bytes, a NUL byte in its first 8,000 bytes) and is not shown as text."
    )]
    BinaryFile {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The commit.
        commit: String,
        /// The path asked for.
        file: String,
        /// Its size in bytes.
        size: usize,
    },
    /// A search pattern is not a valid regular expression.
    #[error(
        "For {context}: the search pattern '{pattern}' is not a valid regular expression: {message}"
    )]
    InvalidPattern {
        /// Case and repository.
        context: Box<CaseContext>,
        /// The pattern given.
        pattern: String,
        /// The regex engine's explanation.
        message: String,
    },
    /// A search pattern is empty.
    #[error("For {context}: the search pattern is empty; type at least one character.")]
    EmptyPattern {
        /// Case and repository.
        context: Box<CaseContext>,
    },
    /// A `codebase_ambiguity.json` document does not have the expected shape.
    #[error("{source_name} is not a valid codebase_ambiguity.json document: {message}.")]
    AmbiguityFormat {
        /// Where the document came from (a path or a label).
        source_name: String,
        /// What is wrong with it.
        message: String,
    },
    /// A search worker thread panicked (a bug in Verity, not in the input).
    #[error("For {context}: a search thread stopped unexpectedly; this is a bug in Verity.")]
    WorkerPanicked {
        /// Case and repository.
        context: Box<CaseContext>,
    },
}

/// What one task's evidence is computed from.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EvidenceRequest {
    /// The base commit: a full 40-hex-digit id.
    pub base_commit: String,
    /// Issue text, requirements and interface, concatenated.
    pub prose: String,
    /// The gold patch (unified diff).
    pub gold_patch: String,
    /// The test patch (unified diff).
    pub test_patch: String,
    /// Code snippets to verify at the base commit.
    pub precedents: Vec<Snippet>,
}

/// Options of an [`Engine`]; build one with [`Engine::builder`].
#[derive(Debug, Clone)]
pub struct EngineBuilder {
    threads: usize,
    cache_bytes: usize,
    max_hits: usize,
    max_nearest: usize,
}

impl Default for EngineBuilder {
    fn default() -> EngineBuilder {
        EngineBuilder {
            threads: 2,
            cache_bytes: 256 << 20,
            max_hits: 5,
            max_nearest: 3,
        }
    }
}

impl EngineBuilder {
    /// Worker threads for a sweep (at least 1; default 2).
    pub fn threads(&mut self, threads: usize) -> &mut EngineBuilder {
        self.threads = threads.max(1);
        self
    }

    /// Memory bound in bytes for everything the engine caches: blob contents, per-blob scan
    /// results, file listings (default 256 MiB; 0 disables the cache). Contents are evicted
    /// first, least recently used first; the process's peak memory is this bound plus what
    /// one sweep holds in flight.
    pub fn cache_bytes(&mut self, bytes: usize) -> &mut EngineBuilder {
        self.cache_bytes = bytes;
        self
    }

    /// How many hits a report keeps per term (default 5).
    pub fn max_hits(&mut self, hits: usize) -> &mut EngineBuilder {
        self.max_hits = hits;
        self
    }

    /// How many nearest live strings an airtight candidate lists (default 3).
    pub fn max_nearest(&mut self, nearest: usize) -> &mut EngineBuilder {
        self.max_nearest = nearest;
        self
    }

    /// The engine, with empty caches.
    pub fn build(&self) -> Engine {
        Engine {
            threads: self.threads,
            max_hits: self.max_hits,
            max_nearest: self.max_nearest,
            cache: Mutex::new(blobs::BlobCache::new(self.cache_bytes)),
        }
    }
}

/// The evidence engine: keep one alive across tasks so that its cache serves nearby commits
/// and tasks sharing terms. It is `Send + Sync`; concurrent calls share the cache.
#[derive(Debug)]
pub struct Engine {
    threads: usize,
    max_hits: usize,
    max_nearest: usize,
    cache: Mutex<blobs::BlobCache>,
}

impl Default for Engine {
    fn default() -> Engine {
        EngineBuilder::default().build()
    }
}

impl Engine {
    /// Options for a new engine.
    pub fn builder() -> EngineBuilder {
        EngineBuilder::default()
    }

    /// Sizes and hit counts of the engine's caches.
    pub fn cache_stats(&self) -> CacheStats {
        self.lock_cache().stats()
    }

    /// Empties the caches (for example after the user deletes a clone).
    pub fn clear_cache(&self) {
        self.lock_cache().clear();
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, blobs::BlobCache> {
        // A panic while holding the lock leaves a cache that is still consistent (entries are
        // inserted whole), so a poisoned lock is safe to reuse.
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
