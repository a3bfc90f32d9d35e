//! Interactive search and browsing at a commit: a rater types a fixed string or regex and sees
//! every hit with context lines (grep-searcher over blob contents), or opens one file.

use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder, Sink, SinkContext, SinkMatch};

use super::blobs::BlobText;
use super::engine::Engine;
use super::error::{CaseContext, EvidenceError};
use super::paths::PathClass;
use super::receipt::{exclude_pathspec, shell_quote, show_receipt};
use super::report::MissingObject;
use super::repository::RepoAccess;

/// A search typed by a rater.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GrepQuery {
    /// The text or regular expression (Rust `regex` syntax) to find.
    pub pattern: String,
    /// Take the pattern literally.
    pub fixed_strings: bool,
    /// Ignore case.
    pub case_insensitive: bool,
    /// Lines of context before and after each match.
    pub context_lines: usize,
    /// Stop after this many matching lines (the report says it was cut).
    pub max_matches: usize,
    /// Search live paths only.
    pub live_only: bool,
}

impl Default for GrepQuery {
    fn default() -> GrepQuery {
        GrepQuery {
            pattern: String::new(),
            fixed_strings: true,
            case_insensitive: false,
            context_lines: 2,
            max_matches: 2000,
            live_only: false,
        }
    }
}

/// A matching or context line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GrepLine {
    /// 1-based line number.
    pub line: usize,
    /// The line's text, without its line ending.
    pub text: String,
    /// True for a matching line, false for context.
    pub is_match: bool,
}

/// The hits in one file; a gap in line numbers marks a break between context groups.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GrepFile {
    /// Path at the commit.
    pub path: String,
    /// Live or not.
    pub path_class: PathClass,
    /// Matching and context lines in order.
    pub lines: Vec<GrepLine>,
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GrepReport {
    /// The query.
    pub query: GrepQuery,
    /// The commit searched.
    pub commit: String,
    /// Files with hits, in tree order.
    pub files: Vec<GrepFile>,
    /// Matching lines reported.
    pub matches: usize,
    /// True when `max_matches` cut the search short.
    pub truncated: bool,
    /// Binary files skipped.
    pub binary_files_skipped: usize,
    /// Files and folders the clone lacks (a partial clone): not searched, sorted by path.
    pub missing_objects: Vec<MissingObject>,
    /// The `git grep` command that prints the same lines (with `live_only`, the non-live paths
    /// holding a match are excluded by a pathspec; a truncated search shows fewer).
    pub receipt: String,
}

/// One file at a commit, as text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ShownFile {
    /// Path at the commit.
    pub path: String,
    /// The commit.
    pub commit: String,
    /// The blob's id.
    pub blob: String,
    /// Live or not.
    pub path_class: PathClass,
    /// The content (invalid UTF-8 replaced by U+FFFD).
    pub text: String,
    /// Its number of lines.
    pub lines: usize,
    /// The command that prints it: `git show COMMIT:PATH`.
    pub receipt: String,
}

struct Collector<'a> {
    lines: &'a mut Vec<GrepLine>,
    matches: &'a mut usize,
    limit: usize,
}

fn line_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.trim_end_matches(['\n', '\r']).to_string()
}

impl Sink for Collector<'_> {
    type Error = std::io::Error;

    fn matched(
        &mut self,
        _: &grep_searcher::Searcher,
        found: &SinkMatch<'_>,
    ) -> Result<bool, std::io::Error> {
        self.lines.push(GrepLine {
            line: found.line_number().unwrap_or(0) as usize,
            text: line_text(found.bytes()),
            is_match: true,
        });
        *self.matches += 1;
        Ok(*self.matches < self.limit)
    }

    fn context(
        &mut self,
        _: &grep_searcher::Searcher,
        context: &SinkContext<'_>,
    ) -> Result<bool, std::io::Error> {
        self.lines.push(GrepLine {
            line: context.line_number().unwrap_or(0) as usize,
            text: line_text(context.bytes()),
            is_match: false,
        });
        Ok(true)
    }
}

/// The `git grep` that prints the same lines: `-F` for a fixed string, `-P` (Perl syntax, the
/// closest to Rust's `regex`: `\d`, `\w`, `\b`, `(?i)`, `(?:…)`) for a regular expression.
/// With `live_only`, the non-live paths that hold a match (`excluded`) are left out by a
/// pathspec, so the command prints the live lines shown and no others. Where the two syntaxes
/// differ (look-around and back-references exist only in Perl's), or for case folding beyond
/// ASCII, a rater may see git disagree.
fn grep_receipt(query: &GrepQuery, commit: &str, excluded: &[String]) -> String {
    let mut command = String::from("git grep -n -I");
    command.push_str(if query.fixed_strings { " -F" } else { " -P" });
    if query.case_insensitive {
        command.push_str(" -i");
    }
    if query.context_lines > 0 {
        command.push_str(&format!(" -C {}", query.context_lines));
    }
    command.push_str(&format!(" -e {} {commit}", shell_quote(&query.pattern)));
    command.push_str(&exclude_pathspec(excluded));
    command
}

/// Why a pattern is not a valid regular expression, in the parser's words with where. grep-regex
/// reports the pattern it built around the user's (`(?:(`), so the user's own is parsed again
/// with the same settings; `None` when the problem is not one of syntax.
fn pattern_problem(pattern: &str, case_insensitive: bool) -> Option<String> {
    let err = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern)
        .err()?;
    let (kind, span) = match &err {
        regex_syntax::Error::Parse(e) => (e.kind().to_string(), *e.span()),
        regex_syntax::Error::Translate(e) => (e.kind().to_string(), *e.span()),
        _ => return None,
    };
    Some(format!("{kind} (at character {})", span.start.column))
}

pub(crate) fn search(
    engine: &Engine,
    repo_path: &Path,
    context: &CaseContext,
    commit: &str,
    query: &GrepQuery,
) -> Result<GrepReport, EvidenceError> {
    if query.pattern.is_empty() {
        return Err(EvidenceError::EmptyPattern {
            context: Box::new(context.clone()),
        });
    }
    let matcher = RegexMatcherBuilder::new()
        .fixed_strings(query.fixed_strings)
        .case_insensitive(query.case_insensitive)
        .line_terminator(Some(b'\n'))
        .build(&query.pattern)
        .map_err(|err| EvidenceError::InvalidPattern {
            context: Box::new(context.clone()),
            pattern: query.pattern.clone(),
            message: pattern_problem(&query.pattern, query.case_insensitive)
                .unwrap_or_else(|| err.to_string()),
        })?;
    let repo = RepoAccess::open(repo_path, context)?;
    let resolved = repo.resolve_commit(commit)?;
    let listing = repo.list_files(&resolved, engine)?;
    // Bytes are searched as they are, like git grep: no BOM transcoding, binaries skipped here.
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .before_context(query.context_lines)
        .after_context(query.context_lines)
        .binary_detection(BinaryDetection::none())
        .bom_sniffing(false)
        .build();
    let mut report = GrepReport {
        query: query.clone(),
        commit: resolved.id.clone(),
        files: Vec::new(),
        matches: 0,
        truncated: false,
        binary_files_skipped: 0,
        missing_objects: listing.missing,
        receipt: String::new(),
    };
    // Non-live paths that hold a match, when only live ones are shown: the receipt excludes
    // them.
    let mut excluded = Vec::new();
    let limit = query.max_matches.max(1);
    for entry in listing.files.iter() {
        let shown = entry.class.is_live() || !query.live_only;
        if report.truncated && shown {
            // Cut short: only the non-live files the receipt must exclude are still read.
            continue;
        }
        let bytes = match repo.blob_text(engine, &resolved.id, entry.blob)? {
            BlobText::Binary { .. } => {
                if shown {
                    report.binary_files_skipped += 1;
                }
                continue;
            }
            BlobText::Text(bytes) => bytes,
        };
        if !shown {
            let (mut lines, mut matches) = (Vec::new(), 0);
            let mut sink = Collector {
                lines: &mut lines,
                matches: &mut matches,
                limit: 1,
            };
            let _ = searcher.search_slice(&matcher, &bytes, &mut sink);
            if matches > 0 {
                excluded.push(String::from(&*entry.path));
            }
            continue;
        }
        let mut lines = Vec::new();
        let before = report.matches;
        let mut sink = Collector {
            lines: &mut lines,
            matches: &mut report.matches,
            limit,
        };
        // The sink never fails and a slice has no I/O, so an error cannot happen here.
        let _ = searcher.search_slice(&matcher, &bytes, &mut sink);
        if report.matches > before {
            report.files.push(GrepFile {
                path: String::from(&*entry.path),
                path_class: entry.class,
                lines,
            });
        }
        if report.matches >= limit {
            report.truncated = true;
            if !query.live_only {
                break;
            }
        }
    }
    report.receipt = grep_receipt(query, &resolved.id, &excluded);
    Ok(report)
}

pub(crate) fn show(
    engine: &Engine,
    repo_path: &Path,
    context: &CaseContext,
    commit: &str,
    file: &str,
) -> Result<ShownFile, EvidenceError> {
    let repo = RepoAccess::open(repo_path, context)?;
    let resolved = repo.resolve_commit(commit)?;
    let listing = repo.list_files(&resolved, engine)?;
    let wanted = file.trim_start_matches("./");
    // The file itself, or a folder above it, is missing.
    let lacking = listing
        .missing
        .iter()
        .find(|m| m.path == wanted || m.path == "." || wanted.starts_with(&format!("{}/", m.path)));
    if let Some(missing) = lacking {
        return Err(EvidenceError::FileContentMissing {
            context: Box::new(context.clone()),
            path: repo_path.to_path_buf(),
            commit: resolved.id.clone(),
            file: file.to_string(),
            blob: missing.id.clone(),
        });
    }
    let Some(entry) = listing.files.iter().find(|f| &*f.path == wanted) else {
        return Err(EvidenceError::FileMissing {
            context: Box::new(context.clone()),
            commit: resolved.id.clone(),
            file: file.to_string(),
        });
    };
    match repo.blob_text(engine, &resolved.id, entry.blob)? {
        BlobText::Binary { size } => Err(EvidenceError::BinaryFile {
            context: Box::new(context.clone()),
            commit: resolved.id.clone(),
            file: file.to_string(),
            size,
        }),
        BlobText::Text(bytes) => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            Ok(ShownFile {
                path: String::from(&*entry.path),
                commit: resolved.id.clone(),
                blob: entry.blob.to_string(),
                path_class: entry.class,
                lines: text.lines().count(),
                receipt: show_receipt(&entry.path, &resolved.id),
                text,
            })
        }
    }
}

impl Engine {
    /// Searches every text file at `commit` for a fixed string or regex, with context lines.
    pub fn grep(
        &self,
        repo_path: &Path,
        context: &CaseContext,
        commit: &str,
        query: &GrepQuery,
    ) -> Result<GrepReport, EvidenceError> {
        search(self, repo_path, context, commit, query)
    }

    /// Returns the text of one file at `commit`; refuses binary files.
    pub fn show_file(
        &self,
        repo_path: &Path,
        context: &CaseContext,
        commit: &str,
        file: &str,
    ) -> Result<ShownFile, EvidenceError> {
        show(self, repo_path, context, commit, file)
    }
}
