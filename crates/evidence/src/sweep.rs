//! The codebase-determinacy sweep: a proposal names the choice a task's graded behaviour turns
//! on and snippets showing the ways the live codebase makes that choice; the sweep verifies
//! each snippet at the base commit and classifies the proposal into a tier by a fixed rule.
//!
//! **Verified.** A snippet is verified when the whole of it occurs in a live file at the base
//! commit (test, vendored, generated and docs paths do not count: `paths.rs`), by the
//! whitespace-tolerant rule of `precedents.rs` (each line trimmed of spaces, tabs, carriage
//! returns, vertical tabs and form feeds at both ends; the first line may end a file's line and
//! the last may begin one). Only the base commit is read, so a line the gold patch adds cannot
//! verify a snippet: the gold's code is not yet there. The `verified_path` is the proposal's
//! own path when that file holds the snippet whole, else the first live file in tree order
//! that does. Each snippet's receipt is the `precedents.rs` command and what it prints: one
//! `PATH:LINE` per live file holding the whole snippet (a one-line snippet: `git grep -n -m 1`'s
//! `COMMIT:PATH:LINE:TEXT`), nothing when none does.
//!
//! **Tiers** (see docs/sweep.md), from the snippets that verified; `ways_verified` counts the
//! distinct ways (as the proposal words them, trimmed) with at least one verified snippet:
//! 1. two or more: `codebase-plural`.
//! 2. exactly one: `determined-codebase` when gold follows that way, `misdetermined` when it
//!    does not. Whether it does is a judgment, recorded in `judged` with the gold's added lines
//!    beside the precedent: the proposal's own `gold_follows` when it gives one, else whether
//!    the graded value occurs in one of the way's verified snippets; with neither the tier is
//!    `unsettled`.
//! 3. none: `airtight` when the proposal names the graded value and it occurs neither in the
//!    prose nor in any live file (its receipt then prints nothing), else `unsettled`.
//!
//! `rests_on` says in a sentence what the tier rests on.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::blobs::BlobText;
use super::engine::Engine;
use super::error::{CaseContext, EvidenceError};
use super::precedents::{Snippet, findings_from, prefilter};
use super::receipt::live_term_receipt;
use super::report::{MissingObject, PrecedentFinding};
use super::repository::RepoAccess;

/// One snippet of a proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedSnippet {
    /// The path the proposer names.
    pub path: String,
    /// The code, verbatim.
    pub snippet: String,
    /// The way of making the choice it shows.
    pub way: String,
}

/// A proposal: the choice, the snippets, and what the proposer says of the graded value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// The task's instance id.
    pub iid: String,
    /// The discriminating choice, in words.
    pub choice: String,
    /// The value the hidden test grades, when the proposer names it.
    pub graded_value: Option<String>,
    /// The proposer's judgment of whether gold follows the codebase's one way, when it gives one.
    pub gold_follows: Option<bool>,
    /// The snippets.
    pub snippets: Vec<ProposedSnippet>,
}

#[derive(Deserialize)]
struct RawProposal {
    iid: Option<String>,
    #[serde(default)]
    choice: String,
    graded_value: Option<String>,
    gold_follows: Option<bool>,
    verified: Option<Vec<ProposedSnippet>>,
    proposed: Option<Vec<ProposedSnippet>>,
}

/// Reads a proposals document: one proposal or a list, in the audit's `codebase_ambiguity.json`
/// format, its snippets under `verified` (as the audit's files name them) or `proposed`; other
/// fields are ignored. `source_name` names the document in errors.
pub fn parse_proposals(json: &str, source_name: &str) -> Result<Vec<Proposal>, EvidenceError> {
    let bad = |message: String| EvidenceError::ProposalFormat {
        source_name: source_name.to_string(),
        message,
    };
    let value: serde_json::Value = serde_json::from_str(json).map_err(|err| {
        bad(format!(
            "line {}, column {}: {err}",
            err.line(),
            err.column()
        ))
    })?;
    let (items, listed) = match value {
        serde_json::Value::Array(items) => (items, true),
        other => (vec![other], false),
    };
    let mut out = Vec::with_capacity(items.len());
    for (at, item) in items.into_iter().enumerate() {
        let name = if listed {
            format!("proposal {at}")
        } else {
            "the proposal".to_string()
        };
        let raw: RawProposal =
            serde_json::from_value(item).map_err(|err| bad(format!("{name}: {err}")))?;
        let iid = raw
            .iid
            .filter(|iid| !iid.trim().is_empty())
            .ok_or_else(|| bad(format!("{name} has no iid (the task's instance id)")))?;
        let snippets = match (raw.verified, raw.proposed) {
            (Some(_), Some(_)) => {
                return Err(bad(format!(
                    "{name} ({iid}) has both `verified` and `proposed`; give its snippets under one"
                )));
            }
            (Some(s), None) | (None, Some(s)) => s,
            (None, None) => {
                return Err(bad(format!(
                    "{name} ({iid}) has no snippets: give them under `verified` or `proposed`"
                )));
            }
        };
        if let Some(i) = snippets.iter().position(|s| s.snippet.trim().is_empty()) {
            return Err(bad(format!("{name} ({iid}): snippet {i} is empty")));
        }
        out.push(Proposal {
            iid,
            choice: raw.choice,
            graded_value: raw.graded_value.filter(|v| !v.is_empty()),
            gold_follows: raw.gold_follows,
            snippets,
        });
    }
    Ok(out)
}

/// A command a reader reruns in the clone, and what it prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct Receipt {
    /// The command (POSIX shell).
    pub command: String,
    /// What it prints.
    pub prints: String,
}

/// One snippet as the sweep found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SweptSnippet {
    /// The path the proposer named.
    pub path: String,
    /// The way it shows.
    pub way: String,
    /// The snippet, verbatim.
    pub snippet: String,
    /// Whether the whole snippet is in a live file at the base commit.
    pub verified: bool,
    /// A live file that holds it whole: the named path when it does, else the first that does.
    pub verified_path: Option<String>,
    /// The line where it starts in `verified_path`.
    pub line: Option<usize>,
    /// Every live file holding it whole.
    pub live_paths: Vec<String>,
    /// Test, vendored, generated or docs files holding it (not counted).
    pub non_live_paths: Vec<String>,
    /// The command that lists the live places holding it, and what it prints.
    pub receipt: Receipt,
}

/// Where the graded value occurs, when the proposal names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GradedValue {
    /// The value.
    pub value: String,
    /// Whether the prose (issue, requirements, interface) holds it.
    pub in_prose: bool,
    /// Whether a line the gold or the test patch adds holds it: only then is it a value the
    /// task grades, and only then does the tier rest on it (a proposer may name a value the
    /// patches never use).
    #[serde(default)]
    pub in_patches: bool,
    /// Live files holding it at the base commit.
    pub live_paths: Vec<String>,
    /// The command that lists those files, and what it prints.
    pub receipt: Receipt,
}

/// A line the gold patch adds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GoldLine {
    /// The file.
    pub path: String,
    /// Its line in the patched file.
    pub line: usize,
    /// The text.
    pub text: String,
}

/// A step of the classification that is a judgment, with its evidence side by side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct JudgedStep {
    /// The question judged.
    pub step: String,
    /// The one live way.
    pub way: String,
    /// Its precedent: the first verified snippet of the way.
    pub precedent: SweptSnippet,
    /// The gold's added lines to compare it with.
    pub gold_lines: Vec<GoldLine>,
    /// The answer, when one was given or the rule could give one.
    pub judgment: Option<bool>,
    /// Who or what answered.
    pub by: String,
}

/// A proposal's tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    /// The graded value is in neither the prose nor the live code.
    Airtight,
    /// The codebase makes the choice two or more live ways.
    CodebasePlural,
    /// One live way, and gold follows it (judged).
    DeterminedCodebase,
    /// One live way, and gold does not follow it (judged).
    Misdetermined,
    /// What verified does not settle a tier.
    Unsettled,
}

impl Tier {
    /// The tier's name as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Airtight => "airtight",
            Tier::CodebasePlural => "codebase-plural",
            Tier::DeterminedCodebase => "determined-codebase",
            Tier::Misdetermined => "misdetermined",
            Tier::Unsettled => "unsettled",
        }
    }
}

/// One proposal swept: the contract keys first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SweepResult {
    /// The task's instance id.
    pub iid: String,
    /// The choice.
    pub choice: String,
    /// Each snippet, in the proposal's order.
    pub snippets: Vec<SweptSnippet>,
    /// How many snippets verified.
    pub n_verified: usize,
    /// How many distinct ways have a verified snippet.
    pub ways_verified: usize,
    /// The tier.
    pub tier: Tier,
    /// What the tier rests on, in a sentence.
    pub rests_on: String,
    /// The steps that are judgments, with their evidence.
    pub judged: Vec<JudgedStep>,
    /// Where the graded value occurs, when the proposal names it.
    pub graded_value: Option<GradedValue>,
    /// The base commit.
    pub base_commit: String,
    /// What the clone lacks of the commit: a snippet not verified could be there.
    pub missing_objects: Vec<MissingObject>,
}

/// What of a task the sweep reads besides the repository.
#[derive(Debug, Clone, Copy)]
pub struct SweepTask<'a> {
    /// The base commit.
    pub base_commit: &'a str,
    /// Issue text, requirements and interface.
    pub prose: &'a str,
    /// The gold patch.
    pub gold_patch: &'a str,
    /// The test patch.
    pub test_patch: &'a str,
}

/// Gold's added lines shown beside a precedent: those holding the graded value, else those
/// sharing the most identifiers with the precedent.
const GOLD_LINES: usize = 6;

impl Engine {
    /// Verifies a proposal's snippets (and looks for its graded value) at the task's base
    /// commit in the clone at `repo_path`, and classifies it.
    pub fn sweep(
        &self,
        repo_path: &std::path::Path,
        context: &CaseContext,
        task: &SweepTask<'_>,
        proposal: &Proposal,
    ) -> Result<SweepResult, EvidenceError> {
        let repo = RepoAccess::open(repo_path, context)?;
        let commit = repo.resolve_commit(task.base_commit)?;
        let listing = repo.list_files(&commit, self)?;
        let files = &listing.files;
        let snippets: Vec<Snippet> = proposal
            .snippets
            .iter()
            .map(|s| Snippet {
                snippet: s.snippet.clone(),
                claimed_path: Some(s.path.clone()),
                way: Some(s.way.clone()),
            })
            .collect();
        let mut patterns: Vec<String> = snippets.iter().map(|s| prefilter(&s.snippet)).collect();
        patterns.extend(proposal.graded_value.iter().cloned());
        let scan = super::blob_scan::run_patterns(self, &repo, &commit, files, &patterns)?;
        let findings = findings_from(
            self,
            &repo,
            &commit,
            &snippets,
            &scan.patterns[..snippets.len()],
            files,
        )?;
        let mut swept = Vec::with_capacity(findings.len());
        for (proposed, finding) in proposal.snippets.iter().zip(findings) {
            let prints = receipt_prints(self, &repo, &commit.id, files, &finding)?;
            swept.push(swept_snippet(proposed, finding, prints));
        }
        let graded_value = match (&proposal.graded_value, scan.patterns.get(snippets.len())) {
            (Some(value), Some(result)) => {
                let mut live: Vec<&str> = Vec::new();
                let mut excluded: Vec<String> = Vec::new();
                for entry in result.files.iter().map(|&i| &files[i]) {
                    if entry.class.is_live() {
                        live.push(&entry.path);
                    } else {
                        excluded.push(entry.path.to_string());
                    }
                }
                let in_patch = |patch: &str| {
                    verity_task::patch::added_lines(patch)
                        .iter()
                        .any(|l| l.text.contains(value.as_str()))
                };
                Some(GradedValue {
                    value: value.clone(),
                    in_prose: task.prose.contains(value.as_str()),
                    in_patches: in_patch(task.gold_patch) || in_patch(task.test_patch),
                    receipt: Receipt {
                        command: live_term_receipt(value, &commit.id, &excluded),
                        prints: live
                            .iter()
                            .map(|p| format!("{}:{p}\n", commit.id))
                            .collect(),
                    },
                    live_paths: live.iter().map(|p| p.to_string()).collect(),
                })
            }
            _ => None,
        };
        Ok(classify(
            proposal,
            swept,
            graded_value,
            task.gold_patch,
            commit.id.clone(),
            listing.missing,
        ))
    }
}

/// What a finding's receipt prints: its live places in tree order, one line each.
fn receipt_prints(
    engine: &Engine,
    repo: &RepoAccess,
    commit: &str,
    files: &[super::paths::FileEntry],
    finding: &PrecedentFinding,
) -> Result<String, EvidenceError> {
    let one_line = super::precedents::snippet_lines(&finding.snippet).len() == 1;
    let mut out = String::new();
    for location in &finding.locations {
        if !one_line {
            out.push_str(&format!("{}:{}\n", location.path, location.line));
            continue;
        }
        let Some(entry) = files.iter().find(|e| *e.path == *location.path) else {
            continue;
        };
        if let BlobText::Text(bytes) = repo.blob_text(engine, commit, entry.blob)? {
            let text = bytes
                .split(|&b| b == b'\n')
                .nth(location.line - 1)
                .unwrap_or_default();
            out.push_str(&format!(
                "{commit}:{}:{}:{}\n",
                location.path,
                location.line,
                String::from_utf8_lossy(text)
            ));
        }
    }
    Ok(out)
}

fn swept_snippet(
    proposed: &ProposedSnippet,
    finding: PrecedentFinding,
    prints: String,
) -> SweptSnippet {
    let chosen = finding
        .locations
        .iter()
        .find(|l| l.path == proposed.path)
        .or_else(|| finding.locations.first());
    SweptSnippet {
        path: proposed.path.clone(),
        way: proposed.way.clone(),
        snippet: proposed.snippet.clone(),
        verified: finding.found,
        verified_path: chosen.map(|l| l.path.clone()),
        line: chosen.map(|l| l.line),
        live_paths: finding.locations.iter().map(|l| l.path.clone()).collect(),
        non_live_paths: finding.non_live_paths,
        receipt: Receipt {
            command: finding.receipt,
            prints,
        },
    }
}

/// The words made of letters, digits and `_` in a text, of two characters or more.
fn identifiers(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().count() > 1)
        .collect()
}

/// The gold's added lines to show beside `precedent`.
fn gold_lines(gold_patch: &str, precedent: &str, graded: Option<&str>) -> Vec<GoldLine> {
    let added = verity_task::patch::added_lines(gold_patch);
    let line = |l: &verity_task::patch::AddedLine<'_>| GoldLine {
        path: l.file.to_string(),
        line: l.file_line,
        text: l.text.to_string(),
    };
    if let Some(value) = graded {
        let holding: Vec<GoldLine> = added
            .iter()
            .filter(|l| l.text.contains(value))
            .take(GOLD_LINES)
            .map(line)
            .collect();
        if !holding.is_empty() {
            return holding;
        }
    }
    let words = identifiers(precedent);
    let mut scored: Vec<(usize, usize)> = added
        .iter()
        .enumerate()
        .map(|(i, l)| (identifiers(l.text).intersection(&words).count(), i))
        .filter(|(shared, _)| *shared > 0)
        .collect();
    // Most shared words first; ties in the patch's order.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen: Vec<usize> = scored.iter().take(GOLD_LINES).map(|(_, i)| *i).collect();
    chosen.sort_unstable();
    chosen.into_iter().map(|i| line(&added[i])).collect()
}

/// The tier by the rule of this module's documentation.
fn classify(
    proposal: &Proposal,
    snippets: Vec<SweptSnippet>,
    graded_value: Option<GradedValue>,
    gold_patch: &str,
    base_commit: String,
    missing_objects: Vec<MissingObject>,
) -> SweepResult {
    let mut ways: Vec<&str> = Vec::new();
    for s in snippets.iter().filter(|s| s.verified) {
        let way = s.way.trim();
        if !ways.contains(&way) {
            ways.push(way);
        }
    }
    let n_verified = snippets.iter().filter(|s| s.verified).count();
    let mut judged = Vec::new();
    let (tier, rests_on) = match ways.as_slice() {
        [] => match &graded_value {
            Some(g) if !g.in_prose && g.live_paths.is_empty() && !g.in_patches => (
                Tier::Unsettled,
                format!(
                    "no way verified, and the graded value {:?} is in neither the prose nor any live file, but on no line the gold or test patch adds either, so nothing shows the tests grade it",
                    g.value
                ),
            ),
            Some(g) if !g.in_prose && g.live_paths.is_empty() => (
                Tier::Airtight,
                format!(
                    "no way verified, and the graded value {:?} is in neither the prose nor any live file (its receipt prints nothing)",
                    g.value
                ),
            ),
            Some(g) => (
                Tier::Unsettled,
                format!(
                    "no way verified, but the graded value {:?} is {}",
                    g.value,
                    if g.in_prose {
                        "in the prose".to_string()
                    } else {
                        format!("in live code ({})", g.live_paths.join(", "))
                    }
                ),
            ),
            None => (
                Tier::Unsettled,
                "no way verified and the proposal names no graded value: nothing to classify on"
                    .to_string(),
            ),
        },
        [way] => {
            let way = (*way).to_string();
            let of_way: Vec<&SweptSnippet> = snippets
                .iter()
                .filter(|s| s.verified && s.way.trim() == way)
                .collect();
            // The graded value decides only when the patches hold it: one they never use says
            // nothing of what gold does.
            let graded = graded_value
                .as_ref()
                .filter(|g| g.in_patches)
                .map(|g| g.value.as_str());
            let (judgment, by) = match (proposal.gold_follows, graded) {
                (Some(follows), _) => (Some(follows), "the proposal".to_string()),
                (None, Some(value)) => (
                    Some(of_way.iter().any(|s| s.snippet.contains(value))),
                    format!(
                        "the rule: gold follows the way when the graded value {value:?} occurs in one of its verified snippets"
                    ),
                ),
                (None, None) => (
                    None,
                    "nobody: the proposal gives neither gold_follows nor a graded value that a patch adds".to_string(),
                ),
            };
            let precedent = of_way[0].clone();
            judged.push(JudgedStep {
                step: "does gold follow the one live way?".to_string(),
                way: way.clone(),
                gold_lines: gold_lines(gold_patch, &precedent.snippet, graded),
                precedent,
                judgment,
                by: by.clone(),
            });
            match judgment {
                Some(true) => (
                    Tier::DeterminedCodebase,
                    format!("one live way verified ({way}); judged by {by} that gold follows it"),
                ),
                Some(false) => (
                    Tier::Misdetermined,
                    format!(
                        "one live way verified ({way}); judged by {by} that gold does not follow it"
                    ),
                ),
                None => (
                    Tier::Unsettled,
                    format!(
                        "one live way verified ({way}); whether gold follows it is not judged: the proposal gives neither gold_follows nor a graded value that a patch adds"
                    ),
                ),
            }
        }
        many => (
            Tier::CodebasePlural,
            format!(
                "{} live ways verified: {}",
                many.len(),
                many.iter()
                    .map(|w| format!("{w:?}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        ),
    };
    SweepResult {
        iid: proposal.iid.clone(),
        choice: proposal.choice.clone(),
        n_verified,
        ways_verified: ways.len(),
        snippets,
        tier,
        rests_on,
        judged,
        graded_value,
        base_commit,
        missing_objects,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn snippet(way: &str, text: &str, verified: bool) -> SweptSnippet {
        SweptSnippet {
            path: "a.py".into(),
            way: way.into(),
            snippet: text.into(),
            verified,
            verified_path: verified.then(|| "a.py".into()),
            line: verified.then_some(1),
            live_paths: Vec::new(),
            non_live_paths: Vec::new(),
            receipt: Receipt {
                command: String::new(),
                prints: String::new(),
            },
        }
    }

    fn proposal(graded: Option<&str>, follows: Option<bool>) -> Proposal {
        Proposal {
            iid: "i".into(),
            choice: "c".into(),
            graded_value: graded.map(str::to_string),
            gold_follows: follows,
            snippets: Vec::new(),
        }
    }

    /// The graded value as the sweep found it: in the prose or not, in these live files, and
    /// on a line a patch adds or not.
    fn found(value: &str, in_prose: bool, in_patches: bool, live: &[&str]) -> GradedValue {
        GradedValue {
            value: value.into(),
            in_prose,
            in_patches,
            live_paths: live.iter().map(|p| p.to_string()).collect(),
            receipt: Receipt {
                command: String::new(),
                prints: String::new(),
            },
        }
    }

    const GOLD: &str = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,3 @@\n x = 1\n+limit = 'slow'\n+return empty_list(keys)\n";

    #[test]
    fn two_ways_are_plural_and_unverified_snippets_do_not_count() {
        let r = classify(
            &proposal(None, None),
            vec![
                snippet("lenient", "a", true),
                snippet(" lenient ", "b", true),
                snippet("strict", "c", true),
                snippet("third", "d", false),
            ],
            None,
            GOLD,
            "c0".into(),
            Vec::new(),
        );
        assert_eq!(
            (r.tier, r.ways_verified, r.n_verified),
            (Tier::CodebasePlural, 2, 3)
        );
        assert!(r.judged.is_empty(), "no judgment in a plural tier");
    }

    #[test]
    fn one_way_is_judged_with_the_gold_beside_it() {
        let one = || vec![snippet("lenient", "return empty_list(keys)", true)];
        let r = classify(
            &proposal(None, None),
            one(),
            None,
            GOLD,
            "c".into(),
            Vec::new(),
        );
        assert_eq!(r.tier, Tier::Unsettled);
        assert_eq!(r.judged[0].judgment, None);
        assert_eq!(r.judged[0].gold_lines[0].text, "return empty_list(keys)");
        let r = classify(
            &proposal(None, Some(false)),
            one(),
            None,
            GOLD,
            "c".into(),
            Vec::new(),
        );
        assert_eq!(
            (r.tier, r.judged[0].by.as_str()),
            (Tier::Misdetermined, "the proposal")
        );
        let r = classify(
            &proposal(Some("keys"), None),
            one(),
            Some(found("keys", false, true, &["a.py"])),
            GOLD,
            "c".into(),
            Vec::new(),
        );
        assert_eq!(r.tier, Tier::DeterminedCodebase);
        let r = classify(
            &proposal(Some("slow"), None),
            one(),
            Some(found("slow", false, true, &[])),
            GOLD,
            "c".into(),
            Vec::new(),
        );
        assert_eq!(r.tier, Tier::Misdetermined);
        assert_eq!(r.judged[0].gold_lines[0].text, "limit = 'slow'");
        // A value no patch adds judges nothing.
        let r = classify(
            &proposal(Some("slow"), None),
            one(),
            Some(found("slow", false, false, &[])),
            GOLD,
            "c".into(),
            Vec::new(),
        );
        assert_eq!((r.tier, r.judged[0].judgment), (Tier::Unsettled, None));
    }

    #[test]
    fn no_way_is_airtight_only_when_a_graded_value_is_nowhere() {
        let p = proposal(Some("slow"), None);
        let none = || vec![snippet("w", "x", false)];
        let tier = |g| classify(&p, none(), Some(g), GOLD, "c".into(), Vec::new()).tier;
        assert_eq!(tier(found("slow", false, true, &[])), Tier::Airtight);
        assert_eq!(tier(found("slow", true, true, &[])), Tier::Unsettled);
        assert_eq!(
            tier(found("slow", false, true, &["lib/x.py"])),
            Tier::Unsettled
        );
        assert_eq!(tier(found("slow", false, false, &[])), Tier::Unsettled);
        let r = classify(
            &proposal(None, None),
            none(),
            None,
            GOLD,
            "c".into(),
            Vec::new(),
        );
        assert_eq!(r.tier, Tier::Unsettled);
    }

    #[test]
    fn proposals_are_read_one_or_many_with_either_key() {
        let one = r#"{"slug":"s","iid":"i1","choice":"c","n_verified":1,"ok":true,
            "verified":[{"path":"p","snippet":"x","way":"w","verified_path":"q"}]}"#;
        assert_eq!(parse_proposals(one, "f").unwrap()[0].snippets[0].path, "p");
        let many = r#"[{"iid":"a","choice":"c","proposed":[{"path":"p","snippet":"x","way":"w"}],
            "graded_value":"v"},{"iid":"b","choice":"c","verified":[]}]"#;
        let parsed = parse_proposals(many, "f").unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].graded_value.as_deref(), Some("v"));
        for (doc, says) in [
            (
                r#"[{"iid":"a","choice":"c"}]"#,
                "proposal 0 (a) has no snippets",
            ),
            (r#"{"choice":"c","proposed":[]}"#, "the proposal has no iid"),
            (
                r#"{"iid":"a","proposed":[],"verified":[]}"#,
                "has both `verified` and `proposed`",
            ),
            (
                r#"[{"iid":"a","proposed":[{"path":"p","snippet":" ","way":"w"}]}]"#,
                "proposal 0 (a): snippet 0 is empty",
            ),
            (
                r#"{"iid":"a","proposed":[{"path":"p"}]}"#,
                "missing field `snippet`",
            ),
            ("[", "line 1, column 1"),
        ] {
            let message = parse_proposals(doc, "props.json").unwrap_err().to_string();
            assert!(
                message.starts_with("props.json is not a valid proposals document"),
                "{message}"
            );
            assert!(message.contains(says), "{message} lacks {says}");
        }
    }
}
