//! Precedents: code snippets that show how the codebase already makes a choice, verified
//! verbatim at the base commit in live paths (test, vendor, generated and docs paths do not
//! count).
//!
//! A snippet matches as one exact byte string, so a multi-line snippet must occur across
//! consecutive lines with the file's own whitespace (tabs stay tabs). Snippets come from a
//! rater or from an audit's `codebase_ambiguity.json` ([`parse_codebase_ambiguity`]).

use super::error::EvidenceError;
use super::paths::FileEntry;
use super::receipt::line_receipt;
use super::report::{PrecedentFinding, PrecedentLocation};
use super::sweep::PatternResult;

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

/// Builds findings from the sweep's results for the snippets (same order).
pub(crate) fn findings_from(
    snippets: &[Snippet],
    results: &[PatternResult],
    files: &[FileEntry],
    commit: &str,
) -> Vec<PrecedentFinding> {
    snippets
        .iter()
        .zip(results)
        .map(|(snippet, result)| {
            let mut locations = Vec::new();
            let mut non_live_paths = Vec::new();
            for (&index, &line) in result.files.iter().zip(&result.first_lines) {
                let entry = &files[index];
                if entry.class.is_live() {
                    locations.push(PrecedentLocation {
                        path: String::from(&*entry.path),
                        line,
                    });
                } else {
                    non_live_paths.push(String::from(&*entry.path));
                }
            }
            let first_line = snippet
                .snippet
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("");
            let receipt = line_receipt(
                first_line,
                commit,
                locations.first().map(|l| l.path.as_str()),
            );
            PrecedentFinding {
                snippet: snippet.snippet.clone(),
                claimed_path: snippet.claimed_path.clone(),
                way: snippet.way.clone(),
                found: !locations.is_empty(),
                locations,
                non_live_paths,
                receipt,
            }
        })
        .collect()
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
}
