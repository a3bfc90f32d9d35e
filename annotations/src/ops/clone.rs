//! Cloning the tasks' repositories: once into a cache folder shared by every project, registered
//! for the project that asked; then fetching the base commits the clone lacks, by id.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use ts_rs::TS;

use super::demo::user_data_dir;
use super::evidence::{base_commits, check_repository_name};
use super::{Error, ErrorCode, Project, Result, stamp};
use verity_evidence::clone::{BareClone, CloneError, Prior, Stage, Transfer};

/// How often a transfer reports progress at most (the last report always goes out).
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// The environment variable that moves the clone cache.
pub const REPOSITORY_CACHE_VAR: &str = "VERITY_REPO_CACHE";

/// The folder repositories are cloned into by default, one bare repository per
/// `OWNER/NAME.git`: `$VERITY_REPO_CACHE`, else `$XDG_DATA_HOME/verity/repositories`
/// (`~/.local/share/…` by default) on Linux, `~/Library/Application Support/verity/repositories`
/// on macOS, `%APPDATA%\verity\repositories` on Windows. `None` when the environment names no
/// home folder.
pub fn default_repository_cache() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(REPOSITORY_CACHE_VAR).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    Some(user_data_dir()?.join("verity").join("repositories"))
}

/// What to clone, and where.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct CloneRequest {
    /// `owner/name`, as the tasks' `repo` field spells it.
    pub name: String,
    /// Where to clone from; `https://github.com/OWNER/NAME` when absent.
    #[serde(default)]
    #[ts(optional)]
    pub url: Option<String>,
    /// Where to put the clone; the registered clone's path, else `OWNER/NAME.git` in the cache
    /// folder, when absent.
    #[serde(default)]
    #[ts(optional, type = "string")]
    pub into: Option<PathBuf>,
}

/// Which part of the work a progress report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum CloneStage {
    /// Receiving the default branch.
    DefaultBranch,
    /// Receiving the other branches and the tags.
    Branches,
    /// Fetching a base commit the clone lacks, by id.
    Commit,
}

/// How far a clone or a fetch has got, for a progress bar.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct CloneProgress {
    /// The repository.
    pub name: String,
    /// What is being received.
    pub stage: CloneStage,
    /// The commit being fetched, in the `commit` stage.
    pub commit: Option<String>,
    /// Objects received in this stage.
    pub received_objects: usize,
    /// Objects the server sends in this stage.
    pub total_objects: usize,
    /// Deltas resolved.
    pub indexed_deltas: usize,
    /// Deltas to resolve.
    pub total_deltas: usize,
    /// Bytes received in this stage.
    pub received_bytes: usize,
    /// Bytes received per second in this stage.
    pub bytes_per_second: usize,
}

/// A base commit the clone still lacks, and why.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct MissingCommit {
    /// The commit id.
    pub commit: String,
    /// Why it could not be fetched.
    pub reason: String,
}

/// The project's base commits in one clone, after fetching the missing ones.
#[derive(Debug, Clone, Default, Serialize, TS)]
#[ts(export)]
pub struct CommitsReport {
    /// Distinct base commits of the project's cases in the repository.
    pub base_commits: usize,
    /// How many of them the clone holds now.
    pub held: usize,
    /// Those fetched by id just now.
    pub fetched: Vec<String>,
    /// Those still missing, with the reason.
    pub missing: Vec<MissingCommit>,
    /// Bytes received fetching them.
    pub received_bytes: usize,
}

/// What `clone_repository` did.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct CloneReport {
    /// The repository, `owner/name`.
    pub name: String,
    /// Where it was cloned from.
    pub url: String,
    /// Where the clone is (now registered for the project).
    pub path: String,
    /// True when an interrupted clone was continued.
    pub resumed: bool,
    /// True when a finished clone was there already and nothing but missing commits was
    /// fetched.
    pub reused: bool,
    /// Bytes received cloning (not counting commits fetched by id).
    pub received_bytes: usize,
    /// Milliseconds the whole job took.
    #[ts(type = "number")]
    pub elapsed_ms: u64,
    /// The project's base commits in it.
    pub commits: CommitsReport,
}

impl From<CloneError> for Error {
    fn from(err: CloneError) -> Error {
        let code = match &err {
            CloneError::NotAGitUrl { .. } => ErrorCode::BadInput,
            CloneError::NotFound { .. } => ErrorCode::NotFound,
            CloneError::Unreachable { .. }
            | CloneError::Untrusted { .. }
            | CloneError::Interrupted { .. }
            | CloneError::CommitRefused { .. }
            | CloneError::Git { .. } => ErrorCode::CloneFailed,
            CloneError::Cancelled { .. } => ErrorCode::Cancelled,
            CloneError::PathTaken { .. } => ErrorCode::AlreadyExists,
            CloneError::Io { .. } => ErrorCode::Write,
        };
        Error::refused(code, err.to_string())
    }
}

/// Turns git2's counts into progress reports, at most one per [`PROGRESS_EVERY`] (and the
/// last), and stops the transfer when `cancel` is set.
struct Reporter<'a> {
    name: &'a str,
    progress: &'a mut dyn FnMut(&CloneProgress),
    cancel: &'a AtomicBool,
    stage: Option<Stage>,
    stage_started: Instant,
    last_sent: Option<Instant>,
    commit: Option<String>,
}

impl<'a> Reporter<'a> {
    fn new(
        name: &'a str,
        progress: &'a mut dyn FnMut(&CloneProgress),
        cancel: &'a AtomicBool,
    ) -> Reporter<'a> {
        Reporter {
            name,
            progress,
            cancel,
            stage: None,
            stage_started: Instant::now(),
            last_sent: None,
            commit: None,
        }
    }

    fn report(&mut self, stage: Stage, t: &Transfer) -> bool {
        if self.cancel.load(Ordering::Relaxed) {
            return false;
        }
        if self.stage != Some(stage) {
            self.stage = Some(stage);
            self.stage_started = Instant::now();
            self.last_sent = None;
        }
        let done = t.total_objects > 0
            && t.received_objects == t.total_objects
            && t.indexed_deltas == t.total_deltas;
        if !done
            && self
                .last_sent
                .is_some_and(|at| at.elapsed() < PROGRESS_EVERY)
        {
            return true;
        }
        self.last_sent = Some(Instant::now());
        let seconds = self.stage_started.elapsed().as_secs_f64();
        (self.progress)(&CloneProgress {
            name: self.name.to_string(),
            stage: match stage {
                Stage::DefaultBranch => CloneStage::DefaultBranch,
                Stage::Rest => CloneStage::Branches,
                Stage::Commit => CloneStage::Commit,
            },
            commit: self.commit.clone(),
            received_objects: t.received_objects,
            total_objects: t.total_objects,
            indexed_deltas: t.indexed_deltas,
            total_deltas: t.total_deltas,
            received_bytes: t.received_bytes,
            bytes_per_second: if seconds > 0.0 {
                (t.received_bytes as f64 / seconds) as usize
            } else {
                0
            },
        });
        true
    }
}

/// Fetches, by id, each of the project's base commits that the clone lacks.
fn fetch_commits(
    project: &Project,
    name: &str,
    clone: &BareClone,
    reporter: &mut Reporter<'_>,
) -> Result<CommitsReport> {
    let commits = base_commits(project, name)?;
    let mut report = CommitsReport {
        base_commits: commits.len(),
        ..CommitsReport::default()
    };
    for commit in commits {
        if clone.has_commit(&commit) {
            report.held += 1;
            continue;
        }
        reporter.commit = Some(commit.clone());
        let fetched = clone.fetch_commit(&commit, &mut |stage, t| reporter.report(stage, t));
        match fetched {
            Ok(bytes) if clone.has_commit(&commit) => {
                report.received_bytes += bytes;
                report.held += 1;
                report.fetched.push(commit);
            }
            Ok(_) => report.missing.push(MissingCommit {
                commit,
                reason: "the server sent something other than a commit".into(),
            }),
            Err(err @ (CloneError::CommitRefused { .. } | CloneError::Git { .. })) => {
                report.missing.push(MissingCommit {
                    commit,
                    reason: err.to_string(),
                })
            }
            Err(err) => return Err(err.into()),
        }
    }
    reporter.commit = None;
    Ok(report)
}

/// Where a repository is cloned from when no URL is given: GitHub, or the mirror git's
/// `url.<base>.insteadOf` names for it.
fn default_url(name: &str) -> String {
    format!("https://github.com/{name}")
}

/// Clones repository `name` (once: an interrupted clone is continued, a finished one reused),
/// registers it for the project, and fetches by id each base commit of the project's cases that
/// it lacks. Coordinator only. `cancel` stops the transfer; what finished stages brought stays
/// for the next run.
pub fn clone_repository(
    project: &mut Project,
    request: &CloneRequest,
    cache: &Path,
    now: OffsetDateTime,
    progress: &mut dyn FnMut(&CloneProgress),
    cancel: &AtomicBool,
) -> Result<CloneReport> {
    project.require_coordinator("clones repositories")?;
    let name = request.name.as_str();
    check_repository_name(project, name)?;
    let started = Instant::now();
    let path = match &request.into {
        Some(dir) => dir.clone(),
        None => match project.store.repository(name)? {
            Some(registered) => PathBuf::from(registered.path),
            None => cache.join(format!("{name}.git")),
        },
    };
    // A clone that is there already fetches from where it came from, unless told otherwise.
    let origin = match &request.url {
        None if path.exists() => verity_evidence::clone::origin_url(&path).ok().flatten(),
        _ => None,
    };
    let url = request
        .url
        .clone()
        .or(origin)
        .unwrap_or_else(|| default_url(name));
    let (clone, prior) = BareClone::open_or_init(&path, &url)?;
    tracing::info!(repository = name, %url, path = %path.display(), ?prior, "cloning");
    let mut reporter = Reporter::new(name, progress, cancel);
    let received_bytes = match prior {
        Prior::Complete => 0,
        Prior::New | Prior::Partial => {
            clone.fetch_all(&mut |stage, t| reporter.report(stage, t))?
        }
    };
    let path = path.canonicalize().map_err(|source| Error::Write {
        path: path.clone(),
        source,
    })?;
    project
        .store
        .put_repository(name, &path.display().to_string(), &stamp(now))?;
    let commits = fetch_commits(project, name, &clone, &mut reporter)?;
    Ok(CloneReport {
        name: name.to_string(),
        url,
        path: path.display().to_string(),
        resumed: prior == Prior::Partial,
        reused: prior == Prior::Complete,
        received_bytes,
        elapsed_ms: started.elapsed().as_millis() as u64,
        commits,
    })
}

/// Fetches by id, from `url` (the clone's `origin` when absent), each base commit of the
/// project's cases that the registered clone of `name` lacks. Coordinator only. It writes
/// objects and refs under `refs/verity/commits/` into the clone, nothing else.
pub fn fetch_missing_commits(
    project: &mut Project,
    name: &str,
    url: Option<&str>,
    progress: &mut dyn FnMut(&CloneProgress),
    cancel: &AtomicBool,
) -> Result<CommitsReport> {
    project.require_coordinator("fetches commits")?;
    check_repository_name(project, name)?;
    let registered = project.store.repository(name)?.ok_or_else(|| {
        Error::NotFound(format!(
            "no clone is registered for {name}; clone it with `verity repo clone {name}`"
        ))
    })?;
    let path = PathBuf::from(&registered.path);
    if !path.exists() {
        return Err(Error::NotFound(format!(
            "the clone registered for {name} at {} is gone; clone it again with `verity repo clone {name}`",
            path.display()
        )));
    }
    let url = match url {
        Some(url) => url.to_string(),
        None => verity_evidence::clone::origin_url(&path)?.unwrap_or_else(|| default_url(name)),
    };
    let (clone, _) = BareClone::open_or_init(&path, &url)?;
    let mut reporter = Reporter::new(name, progress, cancel);
    fetch_commits(project, name, &clone, &mut reporter)
}

/// A repository the project's tasks name, with its registered clone if there is one.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct NeededRepository {
    /// `owner/name`.
    pub name: String,
    /// How many of the project's tasks are in it.
    pub tasks: usize,
    /// Distinct base commits of those tasks.
    pub base_commits: usize,
    /// How many of them the registered clone holds (0 without one).
    pub held: usize,
    /// The registered clone, if any.
    pub path: Option<String>,
    /// Why the registered clone could not be read, when it could not.
    pub problem: Option<String>,
}

/// Every repository the project's tasks name, with its registered clone and how many base
/// commits it holds, by name; a registered clone no task needs any more is listed too.
pub fn list_needed_repositories(project: &Project) -> Result<Vec<NeededRepository>> {
    let registered = super::list_repositories(project)?;
    let mut tasks: BTreeMap<String, (usize, BTreeSet<String>)> = BTreeMap::new();
    for case in project.store.list_cases()? {
        let (count, commits) = tasks.entry(case.repo).or_default();
        *count += 1;
        commits.extend(case.base_commit);
    }
    let mut needed: BTreeMap<String, NeededRepository> = tasks
        .into_iter()
        .map(|(name, (count, commits))| {
            let repo = NeededRepository {
                name: name.clone(),
                tasks: count,
                base_commits: commits.len(),
                held: 0,
                path: None,
                problem: None,
            };
            (name, repo)
        })
        .collect();
    for r in registered {
        let entry = needed
            .entry(r.name.clone())
            .or_insert_with(|| NeededRepository {
                name: r.name.clone(),
                tasks: 0,
                base_commits: r.base_commits,
                held: 0,
                path: None,
                problem: None,
            });
        entry.held = r.held;
        entry.path = Some(r.path);
        entry.problem = r.problem;
    }
    Ok(needed.into_values().collect())
}
