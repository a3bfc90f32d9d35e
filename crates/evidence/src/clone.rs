//! Cloning a task's repository from a remote into a bare repository, and fetching single
//! commits into it, with git2.
//!
//! The rest of this crate only ever reads a clone; this module is the one that writes one, so it is
//! git2's second user. A clone is made in stages so that an interrupted one loses little:
//! 1. the remote's default branch, then
//! 2. every other branch and tag.
//!
//! Each stage ends with a complete pack and its refs. Until the last stage is done the git folder
//! holds a marker file ([`PARTIAL_MARKER`]); opening a marked repository again continues it,
//! and negotiation with the server skips what the finished stages brought. A commit that no
//! branch or tag reaches (a pull request's base, say) is fetched by its id
//! ([`BareClone::fetch_commit`]) into `refs/verity/commits/<id>`, so it stays reachable.
//!
//! # Example
//! ```no_run
//! use verity_evidence::clone::{BareClone, Prior};
//! let (clone, prior) = BareClone::open_or_init(
//!     "/tmp/calc.git".as_ref(),
//!     "https://github.com/acme/calc",
//! )?;
//! if prior != Prior::Complete {
//!     clone.fetch_all(&mut |stage, transfer| {
//!         eprintln!("{stage:?}: {} of {} objects", transfer.received_objects, transfer.total_objects);
//!         true
//!     })?;
//! }
//! # Ok::<(), verity_evidence::clone::CloneError>(())
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use git2::{
    AutotagOption, Direction, ErrorClass, ErrorCode, FetchOptions, Remote, RemoteCallbacks,
    Repository, RepositoryOpenFlags,
};

/// The file in a clone's git folder that marks it unfinished.
pub const PARTIAL_MARKER: &str = "verity-clone-partial";

/// Where a commit fetched by id is kept, so that it stays reachable.
const COMMIT_REFS: &str = "refs/verity/commits/";

/// Which part of the work a transfer belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The remote's default branch.
    DefaultBranch,
    /// Every other branch and tag.
    Rest,
    /// One commit, fetched by its id.
    Commit,
}

/// How far one fetch has got, in git2's counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transfer {
    /// Objects received from the server.
    pub received_objects: usize,
    /// Objects the server is sending.
    pub total_objects: usize,
    /// Objects indexed so far.
    pub indexed_objects: usize,
    /// Deltas resolved so far.
    pub indexed_deltas: usize,
    /// Deltas to resolve.
    pub total_deltas: usize,
    /// Bytes received.
    pub received_bytes: usize,
}

impl Transfer {
    fn of(p: &git2::Progress<'_>) -> Transfer {
        Transfer {
            received_objects: p.received_objects(),
            total_objects: p.total_objects(),
            indexed_objects: p.indexed_objects(),
            indexed_deltas: p.indexed_deltas(),
            total_deltas: p.total_deltas(),
            received_bytes: p.received_bytes(),
        }
    }
}

/// What was at the clone's path before [`BareClone::open_or_init`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prior {
    /// Nothing: a new repository was made.
    New,
    /// A clone interrupted before it finished, to continue.
    Partial,
    /// A finished clone (or any repository that is not marked partial).
    Complete,
}

/// Everything that can go wrong while cloning or fetching.
#[derive(Debug, thiserror::Error)]
pub enum CloneError {
    /// The URL names no protocol git2 can fetch over here.
    #[error(
        "{url} is not a git URL Verity can clone from: give an https://, http://, git:// or file:// URL, or a local path"
    )]
    NotAGitUrl {
        /// The URL given.
        url: String,
    },
    /// The server (or the local path) has no repository there.
    #[error(
        "no git repository exists at {url}: check the owner and the name (a private repository looks the same)"
    )]
    NotFound {
        /// The URL given.
        url: String,
    },
    /// The host could not be resolved or connected to.
    #[error("cannot reach the server of {url}: {message}")]
    Unreachable {
        /// The URL given.
        url: String,
        /// libgit2's explanation (connection refused, name not resolved).
        message: String,
    },
    /// The server's TLS certificate is not vouched for by an authority this machine trusts.
    #[error(
        "the server of {url} presented a TLS certificate this machine does not trust ({message}); if the server is right, name the authority that signed it with SSL_CERT_FILE"
    )]
    Untrusted {
        /// The URL given.
        url: String,
        /// libgit2's explanation.
        message: String,
    },
    /// The transfer broke off after it had started.
    #[error(
        "the transfer from {url} was interrupted ({message}); run the same command again to resume"
    )]
    Interrupted {
        /// The URL given.
        url: String,
        /// libgit2's explanation.
        message: String,
    },
    /// The server would not send a commit asked for by its id.
    #[error("the server at {url} does not give out commit {commit}: {message}")]
    CommitRefused {
        /// The URL given.
        url: String,
        /// The commit asked for.
        commit: String,
        /// The server's or libgit2's explanation.
        message: String,
    },
    /// The caller's progress callback asked to stop.
    #[error(
        "the transfer from {url} was cancelled; run the same command again to resume where it stopped"
    )]
    Cancelled {
        /// The URL given.
        url: String,
    },
    /// The path holds files that are not a repository.
    #[error(
        "{} holds files but no git repository; clone into a new or empty folder",
        path.display()
    )]
    PathTaken {
        /// The clone's path.
        path: PathBuf,
    },
    /// A folder or file could not be made.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// What could not be written.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// Anything else libgit2 reported.
    #[error(
        "git failed on {}{}: {message}",
        path.display(),
        url.as_deref().map(|u| format!(" (cloning from {u})")).unwrap_or_default()
    )]
    Git {
        /// The clone's path.
        path: PathBuf,
        /// Where it was being cloned or fetched from, when it was.
        url: Option<String>,
        /// libgit2's explanation.
        message: String,
    },
}

/// A bare repository being cloned, or cloned, from one URL.
pub struct BareClone {
    repo: Repository,
    path: PathBuf,
    url: String,
}

impl std::fmt::Debug for BareClone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BareClone")
            .field("path", &self.path)
            .field("url", &self.url)
            .finish()
    }
}

/// Whether a failed fetch by id was the server declining to send that object.
fn is_refusal(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("not our ref")
        || lower.contains("unadvertised object")
        || lower.contains("cannot fetch a specific object")
}

/// Refuses what libgit2 could never fetch from, before anything is written.
fn check_url(url: &str) -> Result<(), CloneError> {
    let bad = || CloneError::NotAGitUrl { url: url.into() };
    match url.split_once("://") {
        Some((scheme, rest)) => {
            if !matches!(scheme, "https" | "http" | "git" | "file") || rest.is_empty() {
                return Err(bad());
            }
            if scheme == "file" && !Path::new(rest).exists() {
                return Err(CloneError::NotFound { url: url.into() });
            }
            Ok(())
        }
        // `git@host:path` is ssh, which this build of libgit2 does not speak.
        None if url.contains('@') && url.contains(':') => Err(bad()),
        None if url.trim().is_empty() => Err(bad()),
        None if Path::new(url).exists() => Ok(()),
        None => Err(CloneError::NotFound { url: url.into() }),
    }
}

impl BareClone {
    /// Opens the repository at `path` to fetch into from `url`, or makes a new bare one (with a
    /// remote `origin` at `url`, marked partial until [`BareClone::fetch_all`] finishes).
    pub fn open_or_init(path: &Path, url: &str) -> Result<(BareClone, Prior), CloneError> {
        check_url(url)?;
        let io = |source| CloneError::Io {
            path: path.to_path_buf(),
            source,
        };
        let git = |err: git2::Error| CloneError::Git {
            path: path.to_path_buf(),
            url: Some(url.to_string()),
            message: err.message().to_string(),
        };
        let existing = path.exists();
        if existing {
            if let Ok(repo) =
                Repository::open_ext(path, RepositoryOpenFlags::NO_SEARCH, &[] as &[&Path])
            {
                let prior = if repo.path().join(PARTIAL_MARKER).exists() {
                    Prior::Partial
                } else {
                    Prior::Complete
                };
                let clone = BareClone {
                    repo,
                    path: path.to_path_buf(),
                    url: url.into(),
                };
                return Ok((clone, prior));
            }
            if std::fs::read_dir(path).map_err(io)?.next().is_some() {
                return Err(CloneError::PathTaken {
                    path: path.to_path_buf(),
                });
            }
        }
        std::fs::create_dir_all(path).map_err(io)?;
        let repo = Repository::init_bare(path).map_err(git)?;
        std::fs::write(repo.path().join(PARTIAL_MARKER), url).map_err(io)?;
        repo.remote_with_fetch("origin", url, "+refs/heads/*:refs/heads/*")
            .map_err(git)?;
        let clone = BareClone {
            repo,
            path: path.to_path_buf(),
            url: url.into(),
        };
        Ok((clone, Prior::New))
    }

    /// The repository's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Fetches every branch and tag, the default branch first, and points `HEAD` at the
    /// default branch; then the clone is no longer marked partial. `progress` returning false
    /// cancels. Returns the bytes received.
    pub fn fetch_all(
        &self,
        progress: &mut dyn FnMut(Stage, &Transfer) -> bool,
    ) -> Result<usize, CloneError> {
        let head = self.default_branch()?;
        let mut bytes = 0;
        if let Some(head) = &head {
            bytes += self.fetch(Stage::DefaultBranch, &[format!("+{head}:{head}")], progress)?;
        }
        bytes += self.fetch(
            Stage::Rest,
            &[
                "+refs/heads/*:refs/heads/*".to_string(),
                "+refs/tags/*:refs/tags/*".to_string(),
            ],
            progress,
        )?;
        if let Some(head) = &head
            && self.repo.find_reference(head).is_ok()
        {
            self.repo.set_head(head).map_err(|e| self.git_error(e))?;
        }
        let marker = self.repo.path().join(PARTIAL_MARKER);
        if marker.exists() {
            std::fs::remove_file(&marker).map_err(|source| CloneError::Io {
                path: marker,
                source,
            })?;
        }
        Ok(bytes)
    }

    /// Whether the repository holds `commit` (a full hex id).
    pub fn has_commit(&self, commit: &str) -> bool {
        git2::Oid::from_str(commit)
            .ok()
            .is_some_and(|oid| self.repo.find_commit(oid).is_ok())
    }

    /// Fetches one commit by its id into `refs/verity/commits/<id>` (the server must allow
    /// asking for it: GitHub does, `git daemon` with `uploadpack.allowAnySHA1InWant`). Returns
    /// the bytes received.
    pub fn fetch_commit(
        &self,
        commit: &str,
        progress: &mut dyn FnMut(Stage, &Transfer) -> bool,
    ) -> Result<usize, CloneError> {
        let fetched = self.fetch(
            Stage::Commit,
            &[format!("+{commit}:{COMMIT_REFS}{commit}")],
            progress,
        );
        match fetched {
            Err(CloneError::Interrupted { message, .. } | CloneError::Git { message, .. })
                if is_refusal(&message) =>
            {
                Err(CloneError::CommitRefused {
                    url: self.url.clone(),
                    commit: commit.to_string(),
                    message,
                })
            }
            other => other,
        }
    }

    /// The remote's default branch (`refs/heads/main`), or `None` for an empty repository.
    fn default_branch(&self) -> Result<Option<String>, CloneError> {
        let started = Instant::now();
        let mut remote = self.remote()?;
        remote
            .connect(Direction::Fetch)
            .map_err(|e| self.classify(e, &Transfer::default()))?;
        let head = match remote.default_branch() {
            Ok(buf) => buf.as_str().ok().map(str::to_owned),
            Err(e) if e.code() == ErrorCode::NotFound => None,
            Err(e) => return Err(self.classify(e, &Transfer::default())),
        };
        // A failure to hang up politely changes nothing already read.
        let _ = remote.disconnect();
        tracing::info!(
            url = %self.url,
            head = head.as_deref().unwrap_or("(none)"),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "listed the remote's refs"
        );
        Ok(head)
    }

    fn fetch(
        &self,
        stage: Stage,
        refspecs: &[String],
        progress: &mut dyn FnMut(Stage, &Transfer) -> bool,
    ) -> Result<usize, CloneError> {
        let started = Instant::now();
        let mut last = Transfer::default();
        let mut stopped = false;
        let result = {
            let mut callbacks = RemoteCallbacks::new();
            callbacks.transfer_progress(|p| {
                last = Transfer::of(&p);
                stopped = !progress(stage, &last);
                !stopped
            });
            callbacks.sideband_progress(|line| {
                tracing::debug!(
                    "remote: {}",
                    String::from_utf8_lossy(line).trim_end_matches(['\r', '\n'])
                );
                true
            });
            let mut options = FetchOptions::new();
            options
                .remote_callbacks(callbacks)
                .download_tags(AutotagOption::None)
                .update_fetchhead(false);
            let mut remote = self.remote()?;
            remote.fetch(refspecs, Some(&mut options), None)
        };
        tracing::info!(
            url = %self.url,
            ?stage,
            refspecs = ?refspecs,
            objects = last.received_objects,
            bytes = last.received_bytes,
            elapsed_ms = started.elapsed().as_millis() as u64,
            ok = result.is_ok(),
            "fetched"
        );
        if stopped {
            return Err(CloneError::Cancelled {
                url: self.url.clone(),
            });
        }
        result.map_err(|e| self.classify(e, &last))?;
        Ok(last.received_bytes)
    }

    /// The remote at the clone's URL.
    fn remote(&self) -> Result<Remote<'_>, CloneError> {
        self.repo
            .remote_anonymous(&self.url)
            .map_err(|e| self.classify(e, &Transfer::default()))
    }

    fn git_error(&self, err: git2::Error) -> CloneError {
        CloneError::Git {
            path: self.path.clone(),
            url: Some(self.url.clone()),
            message: err.message().to_string(),
        }
    }

    /// Turns libgit2's error into one that says what went wrong for the user: libgit2 gives the
    /// kind of network failure only in its message, and whether the transfer had started
    /// tells a broken connection from a refused one.
    fn classify(&self, err: git2::Error, so_far: &Transfer) -> CloneError {
        let url = self.url.clone();
        let message = err.message().to_string();
        tracing::debug!(code = ?err.code(), class = ?err.class(), %message, "git2 error");
        let lower = message.to_ascii_lowercase();
        if lower.contains("unsupported url protocol") || lower.contains("invalid url") {
            return CloneError::NotAGitUrl { url };
        }
        if err.code() == ErrorCode::Certificate || lower.contains("certificate") {
            return CloneError::Untrusted { url, message };
        }
        let started = so_far.received_bytes > 0 || so_far.total_objects > 0;
        if !started {
            if err.code() == ErrorCode::Auth
                || lower.contains("status code: 404")
                || lower.contains("repository not found")
                || lower.contains("does not appear to be a git repository")
                || lower.contains("not exported")
                || (err.class() == ErrorClass::Os && lower.contains("failed to resolve path"))
                || lower.contains("could not find repository")
            {
                return CloneError::NotFound { url };
            }
            if lower.contains("failed to connect")
                || lower.contains("failed to resolve address")
                || lower.contains("connection refused")
                || lower.contains("timed out")
                || lower.contains("name or service not known")
                || lower.contains("network is unreachable")
            {
                return CloneError::Unreachable { url, message };
            }
        }
        if matches!(
            err.class(),
            ErrorClass::Net | ErrorClass::Http | ErrorClass::Ssl
        ) || lower.contains("early eof")
            || lower.contains("unexpected eof")
            || lower.contains("connection reset")
        {
            return CloneError::Interrupted { url, message };
        }
        CloneError::Git {
            path: self.path.clone(),
            url: Some(url),
            message,
        }
    }
}

/// The URL of the `origin` remote of the repository at `path`, if it has one.
pub fn origin_url(path: &Path) -> Result<Option<String>, CloneError> {
    let repo = Repository::open_ext(path, RepositoryOpenFlags::NO_SEARCH, &[] as &[&Path])
        .map_err(|err| CloneError::Git {
            path: path.to_path_buf(),
            url: None,
            message: err.message().to_string(),
        })?;
    Ok(repo
        .find_remote("origin")
        .ok()
        .and_then(|r| r.url().ok().map(str::to_owned)))
}
