//! Precedents: code snippets that show how the codebase already makes a choice, verified at
//! the base commit in live paths (test, vendor, generated and docs paths do not count).
//!
//! A snippet matches regardless of indentation and trailing whitespace: its lines are trimmed of
//! spaces, tabs, carriage returns, vertical tabs and form feeds at both ends, and blank lines
//! before the first and after the last are dropped. A one-line snippet then matches any line
//! that contains it. A snippet of lines `L1 … Lk` matches at consecutive lines `i … i+k-1` of a
//! file when line `i` ends with `L1`, each line between is `Lj` (a blank line inside the snippet
//! matches a blank or whitespace-only line), and line `i+k-1` starts with `Lk`, ignoring the same
//! whitespace at every line's ends: the snippet occurs in the file with only the whitespace
//! around its line breaks changed. The reported line is where the first match starts.
//!
//! Files to check are found by the blob scan for the snippet's longest line (every match holds
//! it); each is then read and checked line by line. Snippets come from a rater or from an
//! audit's `codebase_ambiguity.json` ([`parse_codebase_ambiguity`]).

use super::blob_scan::PatternResult;
use super::blobs::BlobText;
use super::engine::Engine;
use super::error::EvidenceError;
use super::paths::FileEntry;
use super::receipt::{LINE_END_SPACE, precedent_receipt};
use super::report::{PrecedentFinding, PrecedentLocation};
use super::repository::{RepoAccess, ResolvedCommit};

/// A code snippet to verify.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Snippet {
    /// The code, verbatim (may span lines).
    pub snippet: String,
    /// The path its source claims it comes from, if any (reported, not trusted).
    pub claimed_path: Option<String>,
    /// What convention it shows, in words.
    pub way: Option<String>,
}

/// One precedent of a `codebase_ambiguity.json` document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AmbiguityPrecedent {
    /// The path the audit's model named.
    pub path: String,
    /// The snippet.
    pub snippet: String,
    /// The way of making the choice it shows.
    pub way: String,
    /// The path where the audit's grep found it (may differ from `path`).
    pub verified_path: Option<String>,
}

/// The fields Verity uses from an audit's `codebase_ambiguity.json`; others are ignored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CodebaseAmbiguity {
    /// The case folder's name.
    pub slug: String,
    /// The instance id.
    pub iid: String,
    /// The choice the precedents bear on.
    pub choice: String,
    /// The verified precedents.
    pub verified: Vec<AmbiguityPrecedent>,
    /// The audit's verdict flag.
    pub ok: Option<bool>,
}

impl CodebaseAmbiguity {
    /// The precedents as snippets to verify; the claimed path is the audit's verified path
    /// when it gives one.
    pub fn snippets(&self) -> Vec<Snippet> {
        self.verified
            .iter()
            .map(|p| Snippet {
                snippet: p.snippet.clone(),
                claimed_path: Some(p.verified_path.clone().unwrap_or_else(|| p.path.clone())),
                way: Some(p.way.clone()),
            })
            .collect()
    }
}

/// Parses a `codebase_ambiguity.json` document; `source_name` (a path or label) names it in
/// errors.
pub fn parse_codebase_ambiguity(
    json: &str,
    source_name: &str,
) -> Result<CodebaseAmbiguity, EvidenceError> {
    let parsed: CodebaseAmbiguity =
        serde_json::from_str(json).map_err(|err| EvidenceError::AmbiguityFormat {
            source_name: source_name.to_string(),
            message: format!("line {}, column {}: {err}", err.line(), err.column()),
        })?;
    if let Some(at) = parsed
        .verified
        .iter()
        .position(|p| p.snippet.trim().is_empty())
    {
        return Err(EvidenceError::AmbiguityFormat {
            source_name: source_name.to_string(),
            message: format!("verified[{at}].snippet is empty"),
        });
    }
    Ok(parsed)
}

/// The snippet's lines trimmed at both ends, without blank lines before the first and after
/// the last; empty for a blank snippet.
pub(crate) fn snippet_lines(snippet: &str) -> Vec<&str> {
    let lines: Vec<&str> = snippet
        .split('\n')
        .map(|line| line.trim_matches(LINE_END_SPACE))
        .collect();
    let first = lines.iter().position(|l| !l.is_empty());
    let last = lines.iter().rposition(|l| !l.is_empty());
    match (first, last) {
        (Some(first), Some(last)) => lines[first..=last].to_vec(),
        _ => Vec::new(),
    }
}

/// The text the blob scan looks for to find the files that may hold the snippet: its longest line.
pub(crate) fn prefilter(snippet: &str) -> String {
    snippet_lines(snippet)
        .into_iter()
        .max_by_key(|line| line.len())
        .unwrap_or_default()
        .to_string()
}

fn is_line_end_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

fn trim_start(mut bytes: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = bytes {
        if !is_line_end_space(*first) {
            break;
        }
        bytes = rest;
    }
    bytes
}

fn trim_end(mut bytes: &[u8]) -> &[u8] {
    while let [rest @ .., last] = bytes {
        if !is_line_end_space(*last) {
            break;
        }
        bytes = rest;
    }
    bytes
}

/// The 1-based line where the snippet of trimmed `lines` first starts in `text`, by the rule
/// of this module's documentation.
pub(crate) fn first_match(text: &[u8], lines: &[&str]) -> Option<usize> {
    let file: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    match lines {
        [] => None,
        [only] => file
            .iter()
            .position(|line| memchr::memmem::find(line, only.as_bytes()).is_some())
            .map(|at| at + 1),
        [first, middle @ .., last] => {
            let span = lines.len();
            (0..(file.len() + 1).saturating_sub(span))
                .find(|&i| {
                    trim_end(file[i]).ends_with(first.as_bytes())
                        && middle
                            .iter()
                            .zip(&file[i + 1..])
                            .all(|(want, line)| trim_end(trim_start(line)) == want.as_bytes())
                        && trim_start(file[i + span - 1]).starts_with(last.as_bytes())
                })
                .map(|at| at + 1)
        }
    }
}

/// Builds findings from the blob scan's results for the snippets' [`prefilter`] lines (same
/// order): each file holding that line is read and checked for the whole snippet.
pub(crate) fn findings_from(
    engine: &Engine,
    repo: &RepoAccess,
    commit: &ResolvedCommit,
    snippets: &[Snippet],
    results: &[PatternResult],
    files: &[FileEntry],
) -> Result<Vec<PrecedentFinding>, EvidenceError> {
    let mut findings = Vec::with_capacity(snippets.len());
    for (snippet, result) in snippets.iter().zip(results) {
        let lines = snippet_lines(&snippet.snippet);
        let mut locations = Vec::new();
        let mut non_live_paths = Vec::new();
        // A blank snippet's empty prefilter is in every file; it matches none.
        let candidates: &[usize] = if lines.is_empty() { &[] } else { &result.files };
        for &index in candidates {
            let entry = &files[index];
            let BlobText::Text(bytes) = repo.blob_text(engine, &commit.id, entry.blob)? else {
                continue;
            };
            let Some(line) = first_match(&bytes, &lines) else {
                continue;
            };
            if entry.class.is_live() {
                locations.push(PrecedentLocation {
                    path: String::from(&*entry.path),
                    line,
                });
            } else {
                non_live_paths.push(String::from(&*entry.path));
            }
        }
        let receipt = if lines.is_empty() {
            String::new()
        } else {
            precedent_receipt(
                &lines,
                &prefilter(&snippet.snippet),
                &commit.id,
                &non_live_paths,
            )
        };
        findings.push(PrecedentFinding {
            snippet: snippet.snippet.clone(),
            claimed_path: snippet.claimed_path.clone(),
            way: snippet.way.clone(),
            found: !locations.is_empty(),
            locations,
            non_live_paths,
            receipt,
        });
    }
    Ok(findings)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_audit_format_and_ignores_other_fields() {
        let json = r#"{"slug":"a_1","iid":"i","choice":"c","n_verified":1,
            "verified":[{"path":"p.py","snippet":"x = 1\n    y","way":"w","verified_path":"q.py"}],
            "ok":true,"two_expert":{"anything":[1,2]}}"#;
        let parsed = parse_codebase_ambiguity(json, "a_1/codebase_ambiguity.json").unwrap();
        assert_eq!(parsed.verified.len(), 1);
        let snippets = parsed.snippets();
        assert_eq!(snippets[0].claimed_path.as_deref(), Some("q.py"));
        assert_eq!(snippets[0].snippet, "x = 1\n    y");
    }

    #[test]
    fn a_malformed_document_is_refused_with_its_name() {
        let err = parse_codebase_ambiguity("{\"slug\": 3}", "bad.json").unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("bad.json is not a valid codebase_ambiguity.json"),
            "{message}"
        );
        let empty = r#"{"slug":"s","iid":"i","choice":"c","verified":[{"path":"p","snippet":"  ","way":"w"}],"ok":false}"#;
        assert!(
            parse_codebase_ambiguity(empty, "e.json")
                .unwrap_err()
                .to_string()
                .contains("verified[0].snippet is empty")
        );
    }

    #[test]
    fn snippets_match_whatever_the_indentation_and_trailing_space() {
        let text = b"x\n\t\tif (a) {\r\n\t\t\tb();  \n\n\t\t}\n";
        let lines = snippet_lines("\n\t\t\tif (a) {\n\t\t\t\tb();\n   \n\t\t\t}\n\n");
        assert_eq!(lines, vec!["if (a) {", "b();", "", "}"]);
        assert_eq!(first_match(text, &lines), Some(2));
        assert_eq!(first_match(text, &["b()"]), Some(3));
        assert_eq!(
            first_match(text, &["(a) {", "b();"]),
            Some(2),
            "a line's end"
        );
        assert_eq!(
            first_match(text, &["b();", "}"]),
            None,
            "the blank line counts"
        );
        assert_eq!(first_match(text, &["if (a)", "b();"]), None);
        assert_eq!(prefilter(" if (a) {\n  b();\n"), "if (a) {");
        assert!(snippet_lines(" \n\t").is_empty());
    }
}
