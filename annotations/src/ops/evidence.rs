//! Evidence use cases: registering clones, computing and caching a case's evidence, searching
//! and showing files at a case's base commit.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use time::OffsetDateTime;

use super::{Error, Project, Result, find_case, stamp};
use crate::evidence::{
    self, CaseContext, ENGINE_VERSION, Engine, EvidenceError, EvidenceReport, EvidenceRequest,
    GrepQuery, GrepReport, ShownFile, Snippet,
};
use crate::store::StoredCase;

impl From<EvidenceError> for Error {
    fn from(err: EvidenceError) -> Error {
        Error::Evidence(Box::new(err))
    }
}

/// A registered clone and how many of the project's base commits it holds.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct RepositoryStatus {
    /// `owner/name`.
    pub name: String,
    /// Where the clone is.
    pub path: String,
    /// Distinct base commits of the project's cases in this repository.
    pub base_commits: usize,
    /// How many of them the clone holds.
    pub held: usize,
    /// Why the clone could not be read, when it could not.
    pub problem: Option<String>,
}

/// Registers the local clone (bare or not) of a repository. The clone is only ever read.
pub fn add_repository(
    project: &mut Project,
    name: &str,
    path: &Path,
    now: OffsetDateTime,
) -> Result<RepositoryStatus> {
    let path = path.canonicalize().map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })?;
    evidence::held_commits::<&str>(&path, &CaseContext::repository(name), &[])?;
    project
        .store
        .put_repository(name, &path.display().to_string(), &stamp(now))?;
    list_repositories(project)?
        .into_iter()
        .find(|r| r.name == name)
        .ok_or_else(|| Error::NotFound(format!("repository {name} vanished after registering it")))
}

/// Every registered clone with how many of the project's base commits it holds.
pub fn list_repositories(project: &Project) -> Result<Vec<RepositoryStatus>> {
    let cases = project.store.list_cases()?;
    let mut out = Vec::new();
    for repo in project.store.list_repositories()? {
        let mut commits: Vec<&str> = cases
            .iter()
            .filter(|c| c.repo == repo.name)
            .filter_map(|c| c.base_commit.as_deref())
            .collect();
        commits.sort_unstable();
        commits.dedup();
        let held = evidence::held_commits(
            Path::new(&repo.path),
            &CaseContext::repository(&repo.name),
            &commits,
        );
        let (held, problem) = match held {
            Ok(flags) => (flags.iter().filter(|h| **h).count(), None),
            Err(e) => (0, Some(e.to_string())),
        };
        out.push(RepositoryStatus {
            base_commits: commits.len(),
            held,
            problem,
            name: repo.name,
            path: repo.path,
        });
    }
    Ok(out)
}

/// A case's evidence and whether it came from the project's cache.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct EvidenceView {
    /// The report.
    pub report: EvidenceReport,
    /// True when read from the cache.
    pub cached: bool,
    /// When it was computed.
    pub computed_at: String,
}

/// Where a case's repository and base commit are, or why evidence cannot be computed.
struct Target {
    stored: StoredCase,
    base_commit: String,
    repo_path: String,
    context: CaseContext,
}

fn target(project: &Project, case: &str) -> Result<Target> {
    let stored = find_case(project, case)?;
    let context = CaseContext::new(case, &stored.case.repo);
    let base_commit = stored.case.base_commit.clone().ok_or_else(|| {
        Error::Rule(format!(
            "case {case} has no base commit yet: import its dataset row (the audit folder alone gives none)"
        ))
    })?;
    let repo = project.store.repository(&stored.case.repo)?.ok_or_else(|| {
        Error::NotFound(format!(
            "no clone is registered for {} (case {case}); register one with `verity repo add {} PATH`",
            stored.case.repo, stored.case.repo
        ))
    })?;
    Ok(Target {
        stored,
        base_commit,
        repo_path: repo.path,
        context,
    })
}

/// The precedents an audit folder gave the case, as snippets to verify.
fn audit_precedents(stored: &StoredCase) -> Result<Vec<Snippet>> {
    let Some(doc) = stored
        .case
        .audit
        .as_ref()
        .and_then(|a| a.codebase_ambiguity.as_ref())
    else {
        return Ok(Vec::new());
    };
    let name = format!("codebase_ambiguity.json of {}", stored.case.instance_id);
    Ok(evidence::parse_codebase_ambiguity(&doc.to_string(), &name)?.snippets())
}

/// A case's evidence: from the cache when this revision, base commit and engine version were
/// computed before (unless `refresh`), else computed and cached.
pub fn case_evidence(
    project: &mut Project,
    engine: &Engine,
    case: &str,
    refresh: bool,
    now: OffsetDateTime,
) -> Result<EvidenceView> {
    let t = target(project, case)?;
    if !refresh
        && let Some(hit) =
            project
                .store
                .cached_evidence(t.stored.revision_id, &t.base_commit, ENGINE_VERSION)?
        && let Ok(report) = serde_json::from_str(&hit.report)
    {
        return Ok(EvidenceView {
            report,
            cached: true,
            computed_at: hit.computed_at,
        });
    }
    let c = &t.stored.case;
    let mut prose = c.problem_statement.clone();
    for extra in [&c.requirements, &c.interface].into_iter().flatten() {
        prose.push_str("\n\n");
        prose.push_str(extra);
    }
    let request = EvidenceRequest {
        base_commit: t.base_commit.clone(),
        prose,
        gold_patch: c.gold_patch.clone(),
        test_patch: c.test_patch.clone(),
        precedents: audit_precedents(&t.stored)?,
    };
    let started = std::time::Instant::now();
    let report = engine.compute_evidence(Path::new(&t.repo_path), &t.context, &request)?;
    tracing::info!(
        case,
        elapsed_ms = started.elapsed().as_millis() as u64,
        terms = report.terms.len(),
        "computed evidence"
    );
    let json = serde_json::to_string(&report).map_err(|e| Error::Rule(e.to_string()))?;
    let at = stamp(now);
    project.store.put_evidence(
        t.stored.revision_id,
        &t.base_commit,
        ENGINE_VERSION,
        &json,
        &at,
    )?;
    Ok(EvidenceView {
        report,
        cached: false,
        computed_at: at,
    })
}

/// How far `evidence --all` has got.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct EvidenceProgress {
    /// Cases done (computed, cached or skipped).
    pub done: usize,
    /// Cases in all.
    pub total: usize,
    /// The case just finished.
    pub case: String,
}

/// A case `evidence --all` could not do, and why.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct SkippedCase {
    /// The case.
    pub case: String,
    /// Why.
    pub reason: String,
}

/// What `evidence --all` did.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct EvidenceAllReport {
    /// Reports computed now.
    pub computed: usize,
    /// Reports already cached (a resumed run skips them).
    pub cached: usize,
    /// Cases without a base commit, a clone, or whose clone lacks the commit.
    pub skipped: Vec<SkippedCase>,
}

/// Computes and caches evidence for every case, resuming where a previous run stopped (cached
/// reports are kept). A case that cannot be done is listed with its reason, not fatal.
pub fn evidence_all(
    project: &mut Project,
    engine: &Engine,
    now: OffsetDateTime,
    progress: &mut dyn FnMut(&EvidenceProgress),
    cancel: &AtomicBool,
) -> Result<EvidenceAllReport> {
    let cases = project.store.list_cases()?;
    let mut report = EvidenceAllReport::default();
    for (done, row) in cases.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        match case_evidence(project, engine, &row.instance_id, false, now) {
            Ok(view) if view.cached => report.cached += 1,
            Ok(_) => report.computed += 1,
            Err(err @ (Error::Evidence(_) | Error::NotFound(_) | Error::Rule(_))) => {
                report.skipped.push(SkippedCase {
                    case: row.instance_id.clone(),
                    reason: err.to_string(),
                })
            }
            Err(err) => return Err(err),
        }
        progress(&EvidenceProgress {
            done: done + 1,
            total: cases.len(),
            case: row.instance_id.clone(),
        });
    }
    Ok(report)
}

/// Verifies code snippets a rater typed at the case's base commit, in live paths.
pub fn check_precedents(
    project: &Project,
    engine: &Engine,
    case: &str,
    snippets: &[Snippet],
) -> Result<Vec<evidence::PrecedentFinding>> {
    let t = target(project, case)?;
    Ok(engine.verify_precedents(
        Path::new(&t.repo_path),
        &t.context,
        &t.base_commit,
        snippets,
    )?)
}

/// Every hit of a fixed string or regex at the case's base commit, with context lines.
pub fn grep_case(
    project: &Project,
    engine: &Engine,
    case: &str,
    query: &GrepQuery,
) -> Result<GrepReport> {
    let t = target(project, case)?;
    Ok(engine.grep(Path::new(&t.repo_path), &t.context, &t.base_commit, query)?)
}

/// One file at the case's base commit.
pub fn show_file(project: &Project, engine: &Engine, case: &str, path: &str) -> Result<ShownFile> {
    let t = target(project, case)?;
    Ok(engine.show_file(Path::new(&t.repo_path), &t.context, &t.base_commit, path)?)
}
