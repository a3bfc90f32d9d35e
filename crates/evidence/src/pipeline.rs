//! The pipeline that computes one task's evidence report: terms from the test patch, one blob scan
//! of the repository at the base commit for every term and precedent, classification, airtight
//! candidates with their nearest live strings, and the summary.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::blobs::BlobText;
use super::classify::{added_text, classify_term, text_contains};
use super::engine::{ENGINE_VERSION, Engine};
use super::error::{CaseContext, EvidenceError};
use super::grade::{HitGrade, Touched};
use super::paths::FileEntry;
use super::precedents::{Snippet, prefilter};
use super::receipt::{live_term_receipt, term_receipt};
use super::report::{EvidenceReport, PrecedentCheck, RiskDriver, Summary, TermClass, TermEvidence};
use super::repository::{RepoAccess, ResolvedCommit};
use super::risk::{is_asserted_value, is_unexplained};
use super::terms::{TermRole, extract_terms};

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

impl Engine {
    /// Computes one task's evidence report at its base commit in the clone at `repo_path`.
    pub fn compute_evidence(
        &self,
        repo_path: &Path,
        context: &CaseContext,
        request: &EvidenceRequest,
    ) -> Result<EvidenceReport, EvidenceError> {
        compute(self, repo_path, context, request)
    }

    /// Verifies code snippets at `commit` in live paths, and lists what the clone lacks of it.
    pub fn verify_precedents(
        &self,
        repo_path: &Path,
        context: &CaseContext,
        commit: &str,
        snippets: &[Snippet],
    ) -> Result<PrecedentCheck, EvidenceError> {
        let repo = RepoAccess::open(repo_path, context)?;
        let commit = repo.resolve_commit(commit)?;
        let listing = repo.list_files(&commit, self)?;
        let files = &listing.files;
        let patterns: Vec<String> = snippets.iter().map(|s| prefilter(&s.snippet)).collect();
        let blob_scan = super::blob_scan::run_patterns(self, &repo, &commit, files, &patterns)?;
        let findings = super::precedents::findings_from(
            self,
            &repo,
            &commit,
            snippets,
            &blob_scan.patterns,
            files,
        )?;
        Ok(PrecedentCheck {
            findings,
            missing_objects: listing.missing,
        })
    }
}

fn compute(
    engine: &Engine,
    repo_path: &Path,
    context: &CaseContext,
    request: &EvidenceRequest,
) -> Result<EvidenceReport, EvidenceError> {
    // `verity -vv` logs when each phase ends, in milliseconds from the start.
    let clock = std::time::Instant::now();
    let lap = |phase: &str| {
        tracing::debug!(
            phase,
            elapsed_ms = clock.elapsed().as_secs_f64() * 1e3,
            "evidence phase done"
        )
    };
    let repo = RepoAccess::open(repo_path, context)?;
    lap("open");
    let commit = repo.resolve_commit(&request.base_commit)?;
    let listing = repo.list_files(&commit, engine)?;
    let files = &listing.files;
    lap("list");
    // A test file's content at the base commit, through the engine's cache (the blob scan reads it
    // again); a missing or binary blob leaves the file to be parsed from its hunks alone.
    let base_file = |path: &str| -> Option<String> {
        let entry = files.iter().find(|entry| &*entry.path == path)?;
        match repo.blob_text(engine, &commit.id, entry.blob).ok()? {
            BlobText::Text(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            BlobText::Binary { .. } => None,
        }
    };
    // Parsing the test files takes one core; the other reads the blobs the blob scan will read
    // into the cache meanwhile.
    let done = AtomicBool::new(false);
    let terms = std::thread::scope(|scope| {
        if engine.threads > 1 && engine.lock_cache().enabled() {
            let (path, context) = (repo.path.as_path(), &repo.context);
            scope.spawn(|| prefetch(engine, path, context, &commit, files, &done));
        }
        let terms = extract_terms(
            &request.test_patch,
            &request.gold_patch,
            &request.prose,
            &base_file,
        );
        done.store(true, Ordering::Relaxed);
        terms
    });
    lap("terms");
    let gold = added_text(&request.gold_patch);
    let touched = Touched::from_patch(&request.gold_patch);

    let mut patterns: Vec<String> = terms.iter().map(|t| t.term.clone()).collect();
    patterns.extend(request.precedents.iter().map(|s| prefilter(&s.snippet)));
    let blob_scan = super::blob_scan::run_patterns(engine, &repo, &commit, files, &patterns)?;
    lap("blob scan");

    let mut evidence = Vec::with_capacity(terms.len());
    // A file's grade depends on its path alone: each is graded once, however many terms hit it.
    let mut grades: Vec<Option<HitGrade>> = vec![None; files.len()];
    for (term, found) in terms.into_iter().zip(&blob_scan.patterns) {
        let (mut live_paths, mut test_paths) = (Vec::new(), Vec::new());
        let mut nearest_grade: Option<HitGrade> = None;
        for &index in &found.files {
            let entry = &files[index];
            if entry.class.is_live() {
                live_paths.push(String::from(&*entry.path));
                let grade = *grades[index].get_or_insert_with(|| touched.grade(&entry.path));
                nearest_grade = Some(nearest_grade.map_or(grade, |near| near.min(grade)));
            } else {
                test_paths.push(String::from(&*entry.path));
            }
        }
        let in_prose = text_contains(&request.prose, &term.term, term.kind);
        // A fixture the tests read that only the gold patch creates is named by the gold patch
        // too, in its file header.
        let in_gold = text_contains(&gold, &term.term, term.kind)
            || (term.role == TermRole::FixturePath && touched.creates(&term.term));
        let class = classify_term(
            in_prose,
            !live_paths.is_empty(),
            in_gold,
            !test_paths.is_empty(),
        );
        evidence.push(TermEvidence {
            receipt: term_receipt(&term.term, &commit.id),
            live_receipt: live_term_receipt(&term.term, &commit.id, &test_paths),
            term: term.term,
            kind: term.kind,
            role: term.role,
            source: term.source,
            class,
            origin: term.origin,
            occurrences: term.occurrences,
            fed: term.fed,
            in_prose,
            in_gold,
            live_paths,
            test_paths,
            nearest_grade,
            weak: nearest_grade.is_some_and(HitGrade::is_weak),
            count: found.lines,
            hits: found.hits.clone(),
        });
    }

    let incomplete = !listing.missing.is_empty();
    // While the clone lacks a file, that file could hold any candidate's term: none is
    // airtight.
    let candidates = super::candidates::find(
        engine,
        &repo,
        &commit,
        files,
        &evidence,
        listing.missing.len(),
    )?;
    lap("candidates");
    let precedent_results = &blob_scan.patterns[evidence.len()..];
    let precedents = super::precedents::findings_from(
        engine,
        &repo,
        &commit,
        &request.precedents,
        precedent_results,
        files,
    )?;

    let asserted = evidence.iter().filter(|t| is_asserted_value(t)).count();
    let unexplained = evidence.iter().filter(|t| is_unexplained(t)).count();
    let share = if asserted == 0 {
        0.0
    } else {
        unexplained as f64 / asserted as f64
    };
    let (risk, drivers) = super::risk::combine(candidates.iter().map(|c| c.strength), share);
    let mut summary = Summary {
        terms: evidence.len(),
        asserted,
        unexplained,
        candidates: candidates.len(),
        airtight_candidates: candidates.iter().filter(|c| c.airtight).count(),
        weak: evidence.iter().filter(|t| t.weak).count(),
        risk,
        incomplete,
        ..Summary::default()
    };
    let risk_drivers = candidates[..drivers]
        .iter()
        .map(|c| RiskDriver {
            term: c.term.clone(),
            strength: c.strength,
            reason: c.reason.clone(),
        })
        .collect();
    for term in &evidence {
        match term.class {
            TermClass::Stated => summary.stated += 1,
            TermClass::Codebase => summary.codebase += 1,
            TermClass::GoldIntroduced => summary.gold_introduced += 1,
            TermClass::TestOnly => summary.test_only += 1,
        }
    }
    lap("summary");
    summary.precedents_found = precedents.iter().filter(|p| p.found).count();
    summary.precedents_missing = precedents.len() - summary.precedents_found;

    Ok(EvidenceReport {
        engine_version: ENGINE_VERSION.to_string(),
        case_id: context.case_id.clone(),
        repo: context.repo.clone(),
        base_commit: commit.id.clone(),
        files: listing.listed,
        terms: evidence,
        candidates,
        precedents,
        summary,
        risk_drivers,
        binary_paths: blob_scan
            .binary_files
            .iter()
            .map(|&index| String::from(&*files[index].path))
            .collect(),
        missing_objects: listing.missing,
    })
}

/// Reads the commit's blobs into the engine's cache in tree order until `done`, on its own
/// handle of the clone. What it cannot read is left for the blob scan, which reports it.
fn prefetch(
    engine: &Engine,
    path: &Path,
    context: &CaseContext,
    commit: &ResolvedCommit,
    files: &[FileEntry],
    done: &AtomicBool,
) {
    let Ok(reader) = RepoAccess::open(path, context) else {
        return;
    };
    for entry in files {
        if done.load(Ordering::Relaxed) {
            break;
        }
        if engine.lock_cache().content(entry.blob).is_some() {
            continue;
        }
        if let Ok(text) = reader.read_blob(&commit.id, entry.blob) {
            engine.lock_cache().insert(entry.blob, text);
        }
    }
}
