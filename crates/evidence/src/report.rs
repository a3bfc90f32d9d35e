//! The evidence report: its types (the `verity evidence --json` contract) and its plain-text
//! rendering. The pipeline that fills one is `pipeline.rs`.

use std::fmt::Write as _;

use super::grade::HitGrade;
use super::paths::PathClass;
use super::terms::{TermKind, TermOrigin, TermRole, TermSource};

/// Where a term stands; see [`classify_term`](super::classify_term) for the precedence.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum TermClass {
    /// The prose names it.
    Stated,
    /// Live code at the base commit has it.
    Codebase,
    /// Only the gold patch brings it.
    GoldIntroduced,
    /// Only tests, fixtures or other non-live paths have it.
    TestOnly,
}

impl TermClass {
    /// The class's name as it appears in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            TermClass::Stated => "stated",
            TermClass::Codebase => "codebase",
            TermClass::GoldIntroduced => "gold-introduced",
            TermClass::TestOnly => "test-only",
        }
    }
}

/// One matching line in the repository.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct Hit {
    /// Path at the base commit.
    pub path: String,
    /// 1-based line number.
    pub line: usize,
    /// The line's text (cut to 240 characters).
    pub text: String,
    /// Live or which kind of non-live path.
    pub path_class: PathClass,
}

/// Everything found about one term.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct TermEvidence {
    /// The term's text.
    pub term: String,
    /// String, number or identifier.
    pub kind: TermKind,
    /// What the tests do with it: assert it, name a test, import, open a fixture, other.
    pub role: TermRole,
    /// Where in the test patch it comes from: code, a pattern, a data file, a gold name.
    pub source: TermSource,
    /// Its class.
    pub class: TermClass,
    /// Where the test patch first has it.
    pub origin: TermOrigin,
    /// How often the test patch's added lines have it.
    pub occurrences: usize,
    /// The tests also pass it to the code as a setup value: where they assert it too, they
    /// check what they handed over.
    pub fed: bool,
    /// Whether the prose contains it.
    pub in_prose: bool,
    /// Whether the gold patch's added lines contain it.
    pub in_gold: bool,
    /// Live text files at the base commit that contain it, in tree order.
    pub live_paths: Vec<String>,
    /// Non-live text files (test, vendor, generated, docs) that contain it, in tree order.
    pub test_paths: Vec<String>,
    /// How near its nearest live file is to the code the gold patch changes; `None` when no
    /// live file has it.
    pub nearest_grade: Option<HitGrade>,
    /// Live code has it, but only far from the change or in tooling files: it counts as
    /// absent from the codebase for candidates.
    pub weak: bool,
    /// Matching lines over all those files.
    pub count: usize,
    /// The first matching lines, live paths first.
    pub hits: Vec<Hit>,
    /// The command that lists the same files, live and not: `git grep -F -l -I -e TERM COMMIT`.
    pub receipt: String,
    /// The command that lists exactly `live_paths` (nothing when no live file has the term):
    /// `receipt` with each of `test_paths` excluded.
    pub live_receipt: String,
}

/// Kind of one step of a word-level diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum ChangeOp {
    /// Words both strings share.
    Equal,
    /// Words only the codebase string has.
    Delete,
    /// Words only the tested string has.
    Insert,
}

/// One step of a word-level diff from a codebase string to a tested string.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct WordChange {
    /// Equal, delete or insert.
    pub op: ChangeOp,
    /// The words (with their whitespace).
    pub text: String,
}

/// A live string literal close to an airtight candidate.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct NearString {
    /// The literal's text as written in the source.
    pub text: String,
    /// Word-level similarity to the candidate, 0 to 1 (`similar`'s ratio over words).
    pub similarity: f64,
    /// How many live files hold this literal on a line sharing words with the candidate.
    pub paths: usize,
    /// The first such file.
    pub path: String,
    /// Its line there.
    pub line: usize,
    /// Word-level diff from this literal to the candidate.
    pub diff: Vec<WordChange>,
    /// The same diff inline: `[-removed-]{+added+}`.
    pub diff_text: String,
    /// The command that prints every line holding the literal.
    pub receipt: String,
}

/// An asserted value or a name the solver must guess that neither the prose nor live code
/// near the change has, strongest first.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct AirtightCandidate {
    /// The literal or name.
    pub term: String,
    /// String, number or identifier.
    pub kind: TermKind,
    /// Where in the test patch it comes from.
    pub source: TermSource,
    /// Its class (gold-introduced, test-only, or codebase when only weak live files have it).
    pub class: TermClass,
    /// Where the test patch has it.
    pub origin: TermOrigin,
    /// How strongly it suggests the tests pin what the solver cannot know, 0 to 1.
    pub strength: f64,
    /// Asserted, strong, absent from every live file, and the report complete (a missing
    /// object could hold the term): shown red.
    pub airtight: bool,
    /// Why, in words.
    pub reason: String,
    /// The command listing the live files that have it (non-live paths holding the term are
    /// excluded): none for an absent term, the far or tooling files for a weak one.
    pub receipt: String,
    /// The closest live strings, most similar first.
    pub nearest: Vec<NearString>,
}

/// An object the clone lacks (a partial clone, a snapshot without its largest blobs): a file
/// whose blob or a folder whose tree is missing, so it could not be searched.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct MissingObject {
    /// Path at the commit: a file, or a folder (`.` for the root) whose tree is missing.
    pub path: String,
    /// The missing object's id.
    pub id: String,
}

/// A live place holding a snippet.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct PrecedentLocation {
    /// Path at the base commit.
    pub path: String,
    /// 1-based line where the snippet starts (its first occurrence in the file).
    pub line: usize,
}

/// A code snippet checked at the base commit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct PrecedentFinding {
    /// The snippet, verbatim.
    pub snippet: String,
    /// The path its source claimed, if any.
    pub claimed_path: Option<String>,
    /// What convention it is said to show.
    pub way: Option<String>,
    /// Whether a live path holds it (indentation and trailing whitespace aside).
    pub found: bool,
    /// Every live file that holds it, with the line where it first starts.
    pub locations: Vec<PrecedentLocation>,
    /// Non-live paths that hold it (not counted as precedents).
    pub non_live_paths: Vec<String>,
    /// The command that prints the live places found, one per file, and nothing when none
    /// is (see `receipt.rs`).
    pub receipt: String,
}

/// Snippets checked at a commit outside a report (`verity precedent`), and what the clone lacks
/// of that commit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PrecedentCheck {
    /// One finding per snippet, in the order given.
    pub findings: Vec<PrecedentFinding>,
    /// Files and folders of the commit whose objects the clone lacks: a snippet not found
    /// could be in them.
    pub missing_objects: Vec<MissingObject>,
}

/// A candidate that drives a task's risk score.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RiskDriver {
    /// The candidate's term.
    pub term: String,
    /// Its strength.
    pub strength: f64,
    /// Why, in words.
    pub reason: String,
}

/// The counts a rater reads first.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS,
)]
#[ts(export)]
pub struct Summary {
    /// Terms extracted from the test patch.
    pub terms: usize,
    /// Asserted values: string and number terms the tests assert.
    pub asserted: usize,
    /// Of those, the ones neither the prose states nor live code near the change has.
    pub unexplained: usize,
    /// Terms the prose states.
    pub stated: usize,
    /// Terms live code has.
    pub codebase: usize,
    /// Terms only the gold patch introduces.
    pub gold_introduced: usize,
    /// Terms only tests and other non-live paths have.
    pub test_only: usize,
    /// Candidates, airtight or not.
    pub candidates: usize,
    /// Airtight candidates.
    pub airtight_candidates: usize,
    /// Terms live code has only far from the change or in tooling files.
    pub weak: usize,
    /// How likely the tests pin what the solver cannot know, 0 to 1 ([`RiskDriver`]s).
    pub risk: f64,
    /// Precedents found in live code.
    pub precedents_found: usize,
    /// Precedents not found.
    pub precedents_missing: usize,
    /// True when the clone lacks some of the commit's objects (`missing_objects`): the counts
    /// cover only what could be read.
    pub incomplete: bool,
}

/// One task's evidence at its base commit.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct EvidenceReport {
    /// [`ENGINE_VERSION`](super::ENGINE_VERSION) of the engine that computed it.
    pub engine_version: String,
    /// The task, if any (`instance_id` in JSON, as everywhere; a report cached when the key
    /// was `case_id` reads without it, and the project fills it in).
    #[serde(rename = "instance_id")]
    pub case_id: Option<String>,
    /// The repository's name.
    pub repo: String,
    /// The base commit (full id).
    pub base_commit: String,
    /// Regular files at the base commit.
    pub files: usize,
    /// Per term, in order of first occurrence in the test patch.
    pub terms: Vec<TermEvidence>,
    /// Candidates, strongest first; the airtight ones are marked.
    pub candidates: Vec<AirtightCandidate>,
    /// Precedents checked.
    pub precedents: Vec<PrecedentFinding>,
    /// Counts.
    pub summary: Summary,
    /// The candidates behind the risk score, strongest first.
    pub risk_drivers: Vec<RiskDriver>,
    /// Binary files at the base commit (never searched, as with `git grep -I`).
    pub binary_paths: Vec<String>,
    /// Files and folders whose objects the clone lacks, sorted by path: not searched.
    pub missing_objects: Vec<MissingObject>,
}

impl EvidenceReport {
    /// Takes the precedents out of the report (the summary's counts with them) and gives them
    /// back: what a project caches, and what a rater is shown, is the report without them.
    pub fn take_precedents(&mut self) -> Vec<PrecedentFinding> {
        self.summary.precedents_found = 0;
        self.summary.precedents_missing = 0;
        std::mem::take(&mut self.precedents)
    }

    /// Puts precedents checked at the report's commit into it, counted in the summary.
    pub fn set_precedents(&mut self, precedents: Vec<PrecedentFinding>) {
        self.summary.precedents_found = precedents.iter().filter(|p| p.found).count();
        self.summary.precedents_missing = precedents.len() - self.summary.precedents_found;
        self.precedents = precedents;
    }
}

/// Missing objects `render_text` lists by path.
const MISSING_SHOWN: usize = 10;
/// Non-live paths up to which `render_text` prints a term's live-only receipt beside the
/// all-files one.
const LIVE_RECEIPT_SHOWN: usize = 10;

/// The report as plain text for the terminal: summary first, then candidates, precedents and
/// one line per term, each with its receipt.
pub fn render_text(report: &EvidenceReport) -> String {
    let mut out = String::new();
    let s = &report.summary;
    let case = report.case_id.as_deref().unwrap_or("(no case)");
    let _ = writeln!(
        out,
        "Evidence for {case}: {} @ {}",
        report.repo, report.base_commit
    );
    let _ = writeln!(
        out,
        "{} terms: {} stated in the prose, {} in live code, {} only in the gold patch, {} only in tests.",
        s.terms, s.stated, s.codebase, s.gold_introduced, s.test_only
    );
    let _ = writeln!(
        out,
        "Risk {:.2}. {} candidates, {} airtight; {} weak codebase terms; precedents: {} found, {} not found. {} files, {} binary (not searched).",
        s.risk,
        s.candidates,
        s.airtight_candidates,
        s.weak,
        s.precedents_found,
        s.precedents_missing,
        report.files,
        report.binary_paths.len()
    );
    let _ = writeln!(
        out,
        "  {} of {} asserted values are in neither the prose nor live code near the change.",
        s.unexplained, s.asserted
    );
    for driver in &report.risk_drivers {
        let _ = writeln!(
            out,
            "  driven by {:?} ({:.2}): {}",
            driver.term, driver.strength, driver.reason
        );
    }
    if s.incomplete {
        let _ = writeln!(
            out,
            "INCOMPLETE: the clone lacks {} objects, not searched; no candidate is airtight:",
            report.missing_objects.len()
        );
        for missing in report.missing_objects.iter().take(MISSING_SHOWN) {
            let _ = writeln!(out, "  {} ({})", missing.path, missing.id);
        }
        if report.missing_objects.len() > MISSING_SHOWN {
            let _ = writeln!(
                out,
                "  and {} more",
                report.missing_objects.len() - MISSING_SHOWN
            );
        }
    }
    if !report.candidates.is_empty() {
        let _ = writeln!(
            out,
            "\nCandidates (asserted values and guessed names in neither prose nor live code near the change), strongest first:"
        );
        for candidate in &report.candidates {
            let _ = writeln!(
                out,
                "  {}{:?}  ({}:{}, {}, strength {:.2})",
                if candidate.airtight { "AIRTIGHT " } else { "" },
                candidate.term,
                candidate.origin.file,
                candidate.origin.file_line,
                candidate.class.as_str(),
                candidate.strength
            );
            let _ = writeln!(out, "    {}", candidate.reason);
            let _ = writeln!(out, "    live files: {}", candidate.receipt);
            for near in &candidate.nearest {
                let _ = writeln!(
                    out,
                    "    nearest ({:.2}, {} live files, e.g. {}:{}): {:?}",
                    near.similarity, near.paths, near.path, near.line, near.text
                );
                let _ = writeln!(out, "      diff: {}", near.diff_text);
                let _ = writeln!(out, "      {}", near.receipt);
            }
        }
    }
    if !report.precedents.is_empty() {
        let _ = writeln!(out, "\nPrecedents:");
        for precedent in &report.precedents {
            let first = precedent
                .snippet
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            match precedent.locations.first() {
                Some(at) => {
                    let _ = writeln!(
                        out,
                        "  found at {}:{} ({} places): {}",
                        at.path,
                        at.line,
                        precedent.locations.len(),
                        first.trim()
                    );
                }
                None => {
                    let _ = writeln!(out, "  NOT FOUND in live code: {}", first.trim());
                }
            }
            let _ = writeln!(out, "    {}", precedent.receipt);
        }
    }
    if !report.terms.is_empty() {
        let _ = writeln!(out, "\nTerms:");
        for term in &report.terms {
            let prose = if term.in_prose { " prose" } else { "" };
            let gold = if term.in_gold { " gold" } else { "" };
            let weak = if term.weak { " (weak)" } else { "" };
            let _ = writeln!(
                out,
                "  [{}{weak}] {} {} {:?}: {} live, {} other files, {} lines;{}{}",
                term.class.as_str(),
                term.role.as_str(),
                match term.kind {
                    TermKind::String => "string",
                    TermKind::Number => "number",
                    TermKind::Identifier => "identifier",
                },
                term.term,
                term.live_paths.len(),
                term.test_paths.len(),
                term.count,
                prose,
                gold
            );
            if let Some(hit) = term.hits.first() {
                let _ = writeln!(out, "      {}:{}: {}", hit.path, hit.line, hit.text.trim());
            }
            // The live-only receipt excludes each non-live path holding the term: shown when
            // it backs an absence or stays short, else left to the JSON report.
            if term.test_paths.is_empty() {
                let _ = writeln!(out, "      {}", term.receipt);
            } else if term.live_paths.is_empty() || term.test_paths.len() <= LIVE_RECEIPT_SHOWN {
                let _ = writeln!(out, "      live: {}", term.live_receipt);
                let _ = writeln!(out, "      all:  {}", term.receipt);
            } else {
                let _ = writeln!(out, "      all:  {}", term.receipt);
            }
        }
    }
    out
}
