//! Evidence use cases: registering clones, computing and caching a case's evidence, searching
//! and showing files at a case's base commit.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use time::OffsetDateTime;

use super::lookup::find_case;
use super::sweep_access::visible_sweep;
use super::{Error, ErrorCode, Project, Result, stamp};
use verity_evidence::{
    self, CaseContext, ENGINE_VERSION, Engine, EvidenceError, EvidenceReport, EvidenceRequest,
    GrepQuery, GrepReport, ShownFile, Snippet,
};
use verity_store::{EvidenceKey, StoredCase};

impl From<EvidenceError> for Error {
    fn from(err: EvidenceError) -> Error {
        Error::Evidence(Box::new(err))
    }
}

/// A registered clone and how many of the project's base commits it holds.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
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

/// Checks a repository's name as `repo add` takes it: `OWNER/NAME`, spelled exactly as the
/// project's tasks spell it in their `repo` field.
pub(super) fn check_repository_name(project: &Project, name: &str) -> Result<()> {
    let parts: Vec<&str> = name.split('/').collect();
    let well_formed = parts.len() == 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && !p.chars().any(char::is_whitespace));
    if !well_formed {
        return Err(Error::refused(
            ErrorCode::BadRepositoryName,
            format!(
                "{name:?} is not a repository name: give OWNER/NAME as the tasks' repo field does, for example django/django"
            ),
        ));
    }
    let mut repos: Vec<String> = project
        .store
        .list_cases()?
        .into_iter()
        .map(|c| c.repo)
        .collect();
    repos.sort_unstable();
    repos.dedup();
    if repos.iter().any(|r| r == name) {
        return Ok(());
    }
    if let Some(spelled) = repos.iter().find(|r| r.eq_ignore_ascii_case(name)) {
        return Err(Error::refused(
            ErrorCode::BadRepositoryName,
            format!(
                "the tasks spell this repository {spelled}, not {name}; register it as {spelled}"
            ),
        ));
    }
    Err(Error::NotFound(if repos.is_empty() {
        format!("no task of the project is in repository {name}: import the tasks first")
    } else {
        format!(
            "no task of the project is in repository {name} (the tasks' repositories: {})",
            repos.join(", ")
        )
    }))
}

/// Registers the local clone (bare or not) of a repository that the project's tasks name. The
/// clone is only ever read.
pub fn add_repository(
    project: &mut Project,
    name: &str,
    path: &Path,
    now: OffsetDateTime,
) -> Result<RepositoryStatus> {
    project.require_coordinator("registers repositories")?;
    check_repository_name(project, name)?;
    // Opening the clone first says what is wrong with the path ("no repository exists at"),
    // where a failed canonicalize would only give the system's error.
    let context = CaseContext::repository(name);
    let commits = base_commits(project, name)?;
    let held = verity_evidence::held_commits(path, &context, &commits)?;
    // A clone holding none of the tasks' commits is another repository, or a fork cut before
    // them: registering it would only make every task's evidence fail later.
    if !commits.is_empty() && !held.contains(&true) {
        return Err(Error::refused(
            ErrorCode::BadRepositoryName,
            format!(
                "the clone at {} holds none of the {} base commits of {name}'s tasks (commit {} is missing, for one): is it a clone of {name}? Nothing was registered",
                path.display(),
                commits.len(),
                commits[0]
            ),
        ));
    }
    let path = path
        .canonicalize()
        .map_err(|err| EvidenceError::RepositoryUnreadable {
            context: Box::new(context),
            path: path.to_path_buf(),
            message: err.to_string(),
        })?;
    project
        .store
        .put_repository(name, &path.display().to_string(), &stamp(now))?;
    list_repositories(project)?
        .into_iter()
        .find(|r| r.name == name)
        .ok_or_else(|| Error::NotFound(format!("repository {name} vanished after registering it")))
}

/// Forgets the clone registered for a repository; the clone itself is left as it is, and the
/// evidence already computed stays cached.
pub fn remove_repository(project: &mut Project, name: &str) -> Result<()> {
    project.require_coordinator("registers repositories")?;
    if project.store.remove_repository(name)? {
        return Ok(());
    }
    let known: Vec<String> = project
        .store
        .list_repositories()?
        .into_iter()
        .map(|r| r.name)
        .collect();
    Err(Error::NotFound(if known.is_empty() {
        format!("no clone is registered for {name}; the project has none")
    } else {
        format!(
            "no clone is registered for {name} (registered: {})",
            known.join(", ")
        )
    }))
}

/// The distinct base commits of a repository's tasks, in order.
pub(super) fn base_commits(project: &Project, name: &str) -> Result<Vec<String>> {
    let mut commits: Vec<String> = project
        .store
        .list_cases()?
        .into_iter()
        .filter(|c| c.repo == name)
        .filter_map(|c| c.base_commit)
        .collect();
    commits.sort_unstable();
    commits.dedup();
    Ok(commits)
}

/// Every registered clone with how many of the project's base commits it holds.
pub fn list_repositories(project: &Project) -> Result<Vec<RepositoryStatus>> {
    project.require_coordinator("registers repositories")?;
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
        let held = verity_evidence::held_commits(
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
#[ts(export)]
pub struct EvidenceView {
    /// The report.
    pub report: EvidenceReport,
    /// True when read from the cache.
    pub cached: bool,
    /// When it was computed.
    pub computed_at: String,
    /// The case's sweep, when one is stored and the reader may see it (the coordinator always,
    /// a rater only while the project shows sweeps to raters).
    pub sweep: Option<Vec<super::sweep_access::ProposedSweep>>,
}

/// Where a case's repository and base commit are, or why evidence cannot be computed.
pub(super) struct Target {
    pub(super) stored: StoredCase,
    pub(super) base_commit: String,
    pub(super) repo_path: String,
    pub(super) context: CaseContext,
}

/// Where a case's evidence is cached: its revision, its base commit, this engine.
fn evidence_key(t: &Target) -> EvidenceKey<'_> {
    EvidenceKey {
        case_revision_id: t.stored.revision_id,
        base_commit: &t.base_commit,
        engine_version: ENGINE_VERSION,
    }
}

pub(super) fn target(project: &Project, case: &str) -> Result<Target> {
    let stored = find_case(project, case)?;
    let context = CaseContext::new(case, &stored.case.repo);
    let base_commit = stored.case.base_commit.clone().ok_or_else(|| {
        Error::refused(ErrorCode::NoBaseCommit, format!(
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

/// What a solver reads of a task: its issue text, requirements and interface, one after the
/// other.
pub(super) fn prose(c: &verity_task::case::Case) -> String {
    let mut prose = c.problem_statement.clone();
    for extra in [&c.requirements, &c.interface].into_iter().flatten() {
        prose.push_str("\n\n");
        prose.push_str(extra);
    }
    prose
}

/// The precedents an audit folder gave the case, as snippets to verify: the coordinator's, as
/// everything of the audit is.
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
    Ok(verity_evidence::parse_codebase_ambiguity(&doc.to_string(), &name)?.snippets())
}

/// Whether the actor is the coordinator, who alone sees what an imported audit says.
fn coordinator(project: &Project) -> bool {
    matches!(project.actor(), Some(super::access::Actor::Coordinator))
}

/// A report as the actor is shown it. The project caches a report without precedents: what the
/// repository and the task's own texts say, the same for every task and every reader (a report
/// cached by an older Verity loses the precedents it held here). The coordinator's view adds
/// the audit folder's precedents, checked at the base commit; a rater's has none, so nothing a
/// rater is shown tells an audited task from another.
fn as_shown(
    project: &Project,
    engine: &Engine,
    t: &Target,
    mut report: EvidenceReport,
) -> Result<EvidenceReport> {
    report.take_precedents();
    if coordinator(project) {
        let snippets = audit_precedents(&t.stored)?;
        if !snippets.is_empty() {
            let check = engine.verify_precedents(
                Path::new(&t.repo_path),
                &t.context,
                &t.base_commit,
                &snippets,
            )?;
            report.set_precedents(check.findings);
        }
    }
    Ok(report)
}

/// A case's evidence: from the cache when this revision, base commit and engine version were
/// computed before (unless `refresh`), else computed and cached. A rater reads only the tasks
/// assigned to them, and is shown no precedent of the audit ([`as_shown`]).
pub fn case_evidence(
    project: &mut Project,
    engine: &Engine,
    case: &str,
    refresh: bool,
    now: OffsetDateTime,
) -> Result<EvidenceView> {
    project.require_actor()?;
    let t = target(project, case)?;
    if !refresh
        && let Some(hit) = project.store.cached_evidence(&evidence_key(&t))?
        && let Ok(mut report) = serde_json::from_str::<verity_evidence::EvidenceReport>(&hit.report)
        // An incomplete report is computed again: the clone may hold every object by now.
        && !report.summary.incomplete
    {
        report
            .case_id
            .get_or_insert_with(|| t.stored.case.instance_id.clone());
        return Ok(EvidenceView {
            report: as_shown(project, engine, &t, report)?,
            cached: true,
            computed_at: hit.computed_at,
            sweep: visible_sweep(project, t.stored.case_id)?,
        });
    }
    let c = &t.stored.case;
    let request = EvidenceRequest {
        base_commit: t.base_commit.clone(),
        prose: prose(c),
        gold_patch: c.gold_patch.clone(),
        test_patch: c.test_patch.clone(),
        precedents: if coordinator(project) {
            audit_precedents(&t.stored)?
        } else {
            Vec::new()
        },
    };
    let started = std::time::Instant::now();
    let mut report = engine.compute_evidence(Path::new(&t.repo_path), &t.context, &request)?;
    tracing::info!(
        case,
        elapsed_ms = started.elapsed().as_millis() as u64,
        terms = report.terms.len(),
        "computed evidence"
    );
    let precedents = report.take_precedents();
    let json = serde_json::to_string(&report).map_err(|source| Error::Encode {
        what: "an evidence report",
        source,
    })?;
    report.set_precedents(precedents);
    let at = stamp(now);
    project
        .store
        .put_evidence(&evidence_key(&t), &json, report.summary.risk, &at)?;
    Ok(EvidenceView {
        report,
        cached: false,
        computed_at: at,
        sweep: visible_sweep(project, t.stored.case_id)?,
    })
}

/// A case's cached evidence report as JSON, when one was computed for its current revision
/// and base commit: what a rater opening the task would be shown without waiting (a model
/// rater's prompt holds it), so without precedents.
pub(super) fn cached_evidence_json(project: &Project, case: &str) -> Result<Option<String>> {
    let Ok(t) = target(project, case) else {
        return Ok(None);
    };
    let Some(hit) = project.store.cached_evidence(&evidence_key(&t))? else {
        return Ok(None);
    };
    // A report cached by an older Verity may hold an audit folder's precedents.
    match serde_json::from_str::<EvidenceReport>(&hit.report) {
        Ok(mut report) if !report.precedents.is_empty() => {
            report.take_precedents();
            Ok(Some(serde_json::to_string(&report).map_err(|source| {
                Error::Encode {
                    what: "an evidence report",
                    source,
                }
            })?))
        }
        _ => Ok(Some(hit.report)),
    }
}

/// How far `evidence --all` has got.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct EvidenceProgress {
    /// Cases done (computed, cached or skipped).
    pub done: usize,
    /// Cases in all.
    pub total: usize,
    /// The task just finished (`instance_id` in JSON, as everywhere).
    #[serde(rename = "instance_id")]
    pub case: String,
}

/// A case `evidence --all` could not do, and why.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct SkippedCase {
    /// The task (`instance_id` in JSON, as everywhere).
    #[serde(rename = "instance_id")]
    pub case: String,
    /// Its repository (`owner/name`).
    pub repo: String,
    /// The kind of reason, to group skipped cases by; `reason` names the case and may not.
    pub kind: SkipKind,
    /// Why, in full.
    pub reason: String,
}

/// Why `evidence --all` skipped a case, as a stable kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum SkipKind {
    /// The case has no base commit (only its audit folder was imported).
    NoBaseCommit,
    /// No clone of the case's repository is registered.
    NoClone,
    /// The registered clone is gone or cannot be opened.
    CloneUnreadable,
    /// The registered clone does not hold the case's base commit.
    CommitMissing,
    /// Computing the evidence failed for another reason (a corrupt object, a bad snippet).
    Failed,
}

impl SkipKind {
    fn of(err: &Error) -> SkipKind {
        match err {
            Error::NotFound(_) => SkipKind::NoClone,
            Error::Evidence(e) => match **e {
                EvidenceError::RepositoryMissing { .. }
                | EvidenceError::RepositoryUnreadable { .. } => SkipKind::CloneUnreadable,
                EvidenceError::CommitMissing { .. } => SkipKind::CommitMissing,
                _ => SkipKind::Failed,
            },
            _ => SkipKind::Failed,
        }
    }

    /// What the cases of this kind have in common, after their number.
    fn describe(self) -> &'static str {
        match self {
            SkipKind::NoBaseCommit => "without a base commit from a dataset row",
            SkipKind::NoClone => "without a registered clone of their repository",
            SkipKind::CloneUnreadable => "whose registered clone cannot be opened",
            SkipKind::CommitMissing => "whose clone lacks their base commit",
            SkipKind::Failed => "whose evidence failed",
        }
    }
}

/// What `evidence --all` did.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct EvidenceAllReport {
    /// Reports computed now.
    pub computed: usize,
    /// Reports already cached (a resumed run skips them).
    pub cached: usize,
    /// Cases without a base commit, a clone, or whose clone lacks the commit.
    pub skipped: Vec<SkippedCase>,
}

/// Repositories named in a group of skipped cases before the rest are only counted.
const SUMMARY_REPOS: usize = 5;

impl EvidenceAllReport {
    /// The skipped cases in one line, grouped by kind with the repositories most concerned:
    /// `skipped 687: 650 without a registered clone of their repository (NodeBB/NodeBB 44, ...),
    /// 37 whose clone lacks their base commit (...)`. `None` when nothing was skipped.
    pub fn skipped_summary(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        let mut groups: BTreeMap<SkipKind, BTreeMap<&str, usize>> = BTreeMap::new();
        for s in &self.skipped {
            let repo = if s.repo.is_empty() {
                "no repository"
            } else {
                s.repo.as_str()
            };
            *groups.entry(s.kind).or_default().entry(repo).or_default() += 1;
        }
        let parts: Vec<String> = groups
            .into_iter()
            .map(|(kind, repos)| {
                let total: usize = repos.values().sum();
                let mut repos: Vec<(&str, usize)> = repos.into_iter().collect();
                repos.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                let mut named: Vec<String> = repos
                    .iter()
                    .take(SUMMARY_REPOS)
                    .map(|(repo, n)| format!("{repo} {n}"))
                    .collect();
                if repos.len() > SUMMARY_REPOS {
                    let rest: usize = repos[SUMMARY_REPOS..].iter().map(|(_, n)| n).sum();
                    named.push(format!(
                        "{rest} in {} more repositories",
                        repos.len() - SUMMARY_REPOS
                    ));
                }
                format!("{total} {} ({})", kind.describe(), named.join(", "))
            })
            .collect();
        Some(format!(
            "skipped {}: {}",
            self.skipped.len(),
            parts.join(", ")
        ))
    }
}

/// Computes and caches evidence for every case, resuming where a previous run stopped (cached
/// reports are kept), or, with `refresh`, computing every report again. A case that cannot be
/// done is listed with its reason, not fatal.
pub fn evidence_all(
    project: &mut Project,
    engine: &Engine,
    refresh: bool,
    now: OffsetDateTime,
    progress: &mut dyn FnMut(&EvidenceProgress),
    cancel: &AtomicBool,
) -> Result<EvidenceAllReport> {
    project.require_coordinator("computes evidence for every task")?;
    let cases = project.store.list_cases()?;
    let mut report = EvidenceAllReport::default();
    for (done, row) in cases.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        match case_evidence(project, engine, &row.instance_id, refresh, now) {
            Ok(view) if view.cached => report.cached += 1,
            Ok(_) => report.computed += 1,
            Err(
                err @ (Error::Evidence(_)
                | Error::NotFound(_)
                | Error::Refused {
                    code: ErrorCode::NoBaseCommit,
                    ..
                }),
            ) => report.skipped.push(SkippedCase {
                case: row.instance_id.clone(),
                repo: row.repo.clone(),
                kind: if row.base_commit.is_none() {
                    SkipKind::NoBaseCommit
                } else {
                    SkipKind::of(&err)
                },
                reason: err.to_string(),
            }),
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

/// Verifies code snippets a rater typed at the case's base commit, in live paths, and lists
/// what the clone lacks of that commit.
pub fn check_precedents(
    project: &Project,
    engine: &Engine,
    case: &str,
    snippets: &[Snippet],
) -> Result<verity_evidence::PrecedentCheck> {
    project.require_actor()?;
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
    project.require_actor()?;
    let t = target(project, case)?;
    Ok(engine.grep(Path::new(&t.repo_path), &t.context, &t.base_commit, query)?)
}

/// One file at the case's base commit.
pub fn show_file(project: &Project, engine: &Engine, case: &str, path: &str) -> Result<ShownFile> {
    project.require_actor()?;
    let t = target(project, case)?;
    Ok(engine.show_file(Path::new(&t.repo_path), &t.context, &t.base_commit, path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped(repo: &str, kind: SkipKind) -> SkippedCase {
        SkippedCase {
            case: format!("{repo}-case"),
            repo: repo.into(),
            kind,
            reason: String::new(),
        }
    }

    #[test]
    fn the_summary_names_the_largest_repositories_and_counts_the_rest() {
        let mut report = EvidenceAllReport::default();
        assert_eq!(report.skipped_summary(), None, "nothing skipped, no line");
        for (i, repo) in ["a/a", "b/b", "c/c", "d/d", "e/e", "f/f", "g/g"]
            .iter()
            .enumerate()
        {
            for _ in 0..=i {
                report.skipped.push(skipped(repo, SkipKind::NoClone));
            }
        }
        report.skipped.push(skipped("g/g", SkipKind::CommitMissing));
        assert_eq!(
            report.skipped_summary().as_deref(),
            Some(
                "skipped 29: 28 without a registered clone of their repository (g/g 7, f/f 6, e/e 5, d/d 4, c/c 3, 3 in 2 more repositories), 1 whose clone lacks their base commit (g/g 1)"
            )
        );
    }
}
