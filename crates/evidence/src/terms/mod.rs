//! Terms: what the hidden tests name, taken from the test patch's added lines, each with the
//! role it plays in the test and where it came from.
//!
//! [`extract_terms`] reads a task's test patch file by file:
//! - **Python, Go, JavaScript, TypeScript/TSX** are parsed with tree-sitter ([`syntax`]). The
//!   parsed text is the file's new side: the patch's hunks applied to the base commit's file
//!   when that file is readable and the hunks fit it, else the hunks' context and added lines
//!   on their own. Only nodes that start on an added line give terms: string literals (their
//!   source text between the quotes, escapes as written; strings spanning lines are skipped),
//!   numeric constants of two characters or more, and identifiers that are called, read as
//!   attributes or imported. Each gets a [`TermRole`] from the syntax around it.
//! - **Java/Kotlin, Rust, C/C++** go through a small lexer ([`lexer`]) with role
//!   [`TermRole::Other`], imports excepted.
//! - **Shell scripts and data files** (YAML, JSON, CUE, TOML, golden and expected-output files,
//!   and other files under test-data folders) give quoted strings and words, or whole scalar
//!   values, list elements and lines ([`data`]).
//!
//! Besides the terms as written ([`TermSource::Literal`]), a regular expression or glob gives
//! its literal runs ([`TermSource::PatternRun`], see [`pattern`]), and an identifier the tests
//! use that the gold patch defines and the prose never names becomes a term of its own
//! ([`TermSource::GoldDefined`]).
//!
//! Noise is dropped: identifiers shorter than 3 characters, language keywords and common
//! builtins, test-framework names (`assert*`, `expect`, `toBe*`...), strings shorter than 3
//! characters, strings without a letter or digit, and strings that are one common word.
//! A term that occurs several times keeps its first origin, kind and source (a gold-defined
//! identifier excepted), counts its occurrences and keeps its strongest role
//! ([`TermRole::strength`]).

mod clues;
mod data;
mod lexer;
mod newside;
mod pattern;
mod roles;
mod syntax;
mod tree;

use std::collections::HashMap;

use super::noise;
use super::text::contains_word;
use verity_task::patch::{LineKind, PatchLine, patch_lines};

/// What kind of token a term is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum TermKind {
    /// A string literal's content.
    String,
    /// A numeric constant.
    Number,
    /// A called, attribute or imported name.
    Identifier,
}

/// What a term does in the test that names it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum TermRole {
    /// An assertion's argument or an expected value: what the code under test must produce.
    Asserted,
    /// A test's or test case's name (`t.Run`, `name:` of a table case, `describe`/`it` titles).
    TestName,
    /// An import path or imported name.
    Import,
    /// A path to a fixture or test-data file.
    FixturePath,
    /// Anything else: mostly setup inputs.
    Other,
}

impl TermRole {
    /// How much the role says about the code under test: a term seen in several roles keeps
    /// the strongest. Asserted > Other > FixturePath > TestName > Import.
    pub fn strength(self) -> u8 {
        match self {
            TermRole::Asserted => 4,
            TermRole::Other => 3,
            TermRole::FixturePath => 2,
            TermRole::TestName => 1,
            TermRole::Import => 0,
        }
    }

    /// The role's name as it appears in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            TermRole::Asserted => "asserted",
            TermRole::TestName => "test-name",
            TermRole::Import => "import",
            TermRole::FixturePath => "fixture-path",
            TermRole::Other => "other",
        }
    }
}

/// How a term was taken from the patch.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum TermSource {
    /// A literal or a name as written in code.
    Literal,
    /// A literal run out of a regular expression or glob.
    PatternRun,
    /// A value, list element or line of a data or golden file.
    DataValue,
    /// A name the tests use that the gold patch defines and the prose never mentions.
    GoldDefined,
}

/// Where a term was first seen in the test patch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct TermOrigin {
    /// The file the patch adds the line to.
    pub file: String,
    /// 1-based line number within the test patch text.
    pub patch_line: usize,
    /// 1-based line number within the patched file.
    pub file_line: usize,
}

/// One term extracted from a test patch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Term {
    /// The term's text.
    pub term: String,
    /// String, number or identifier.
    pub kind: TermKind,
    /// The strongest role it plays over its occurrences.
    pub role: TermRole,
    /// How it was taken from the patch.
    pub source: TermSource,
    /// Its first occurrence.
    pub origin: TermOrigin,
    /// How many times the added lines contain it as a term.
    pub occurrences: usize,
    /// A value (string or number) the tests also use without asserting it, as a setup value
    /// passed to the code: where it is asserted too, the tests hand the code what they check.
    pub fed: bool,
}

/// Extracts the terms of a test patch's added lines, in order of first occurrence.
///
/// `gold_patch` is read for the names it defines on its added lines, `prose` (issue,
/// requirements, interface) for whether it names them, and `base_file` gives a file's content
/// at the base commit (`None` when the file is new or unreadable), to parse each test file
/// whole.
pub fn extract_terms(
    test_patch: &str,
    gold_patch: &str,
    prose: &str,
    base_file: &dyn Fn(&str) -> Option<String>,
) -> Vec<Term> {
    let lines = patch_lines(test_patch);
    let files: Vec<(&str, &[PatchLine<'_>], Option<FileKind>)> = by_file(&lines)
        .into_iter()
        .map(|(file, file_lines)| {
            let kind = file_kind(file)
                .or_else(|| data::is_shell_script(file, file_lines).then_some(FileKind::Shell));
            (file, file_lines, kind)
        })
        .collect();
    let code_text = code_text(&files);
    let mut parsers = syntax::Parsers::default();
    let mut sink = Sink::default();
    for &(file, file_lines, kind) in &files {
        if !file_lines.iter().any(|l| l.kind == LineKind::Added) {
            continue;
        }
        match kind {
            Some(FileKind::Syntax(grammar)) => {
                let side = newside::NewSide::build(file_lines, base_file(file).as_deref());
                syntax::file_terms(&mut parsers, grammar, &side, file, &mut sink);
            }
            Some(FileKind::Lexer(lang)) => lexer::file_terms(lang, file, file_lines, &mut sink),
            Some(FileKind::Shell) => data::shell_terms(file, file_lines, &mut sink),
            Some(FileKind::Data(format)) => {
                // A path names the file only if it ends with the file's name.
                let read = code_text.contains(file_name(file));
                data::data_terms(format, read, file, file_lines, &mut sink);
            }
            None => {}
        }
    }
    let defined = syntax::gold_definitions(&mut parsers, gold_patch);
    sink.finish(&defined, prose)
}

/// How a file of the test patch is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Syntax(tree::Grammar),
    Lexer(lexer::Lang),
    Shell,
    Data(data::DataFormat),
}

fn file_kind(path: &str) -> Option<FileKind> {
    if let Some(grammar) = tree::grammar_of(path) {
        return Some(FileKind::Syntax(grammar));
    }
    if let Some(lang) = lexer::lang_of(path) {
        return Some(FileKind::Lexer(lang));
    }
    if data::is_shell(path) {
        return Some(FileKind::Shell);
    }
    data::data_format(path).map(FileKind::Data)
}

/// The last part of a patch path.
pub(super) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// What follows the last `.` of the file's name, if it has one.
pub(super) fn extension(path: &str) -> Option<&str> {
    file_name(path).rsplit_once('.').map(|(_, ext)| ext)
}

/// The patch's lines grouped by file, files in patch order.
pub(super) fn by_file<'a>(lines: &'a [PatchLine<'a>]) -> Vec<(&'a str, &'a [PatchLine<'a>])> {
    let mut out: Vec<(&str, &[PatchLine<'_>])> = Vec::new();
    let mut start = 0;
    for at in 1..=lines.len() {
        if at == lines.len() || lines[at].file != lines[start].file {
            out.push((lines[start].file, &lines[start..at]));
            start = at;
        }
    }
    out
}

/// The added lines of the patch's code and shell files: what tells whether the tests read a
/// data file.
fn code_text(files: &[(&str, &[PatchLine<'_>], Option<FileKind>)]) -> String {
    let mut text = String::new();
    for (_, lines, kind) in files {
        if matches!(kind, Some(FileKind::Data(_)) | None) {
            continue;
        }
        for line in lines.iter().filter(|l| l.kind == LineKind::Added) {
            text.push_str(line.text);
            text.push('\n');
        }
    }
    text
}

pub(super) fn is_noise_identifier(word: &str, keywords: &[&str]) -> bool {
    word.chars().count() < 3
        || keywords.contains(&word)
        || noise::TEST_NOISE.contains(&word)
        || word.starts_with("assert")
        || word.starts_with("Assert")
        || word.starts_with("expect")
        || (word.starts_with("to") && word[2..].starts_with(|c: char| c.is_ascii_uppercase()))
        || word.bytes().all(|b| b == b'_')
}

pub(super) fn is_noise_string(text: &str) -> bool {
    let trimmed = text.trim();
    trimmed.chars().count() < 3
        || !trimmed.chars().any(char::is_alphanumeric)
        || noise::COMMON_STRINGS.contains(&trimmed.to_ascii_lowercase().as_str())
}

pub(super) fn is_noise_number(text: &str) -> bool {
    text.len() < 2
}

/// Where on the patch a term was seen: the file and the added line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Place<'a> {
    file: &'a str,
    patch_line: usize,
    file_line: usize,
}

impl<'a> Place<'a> {
    pub(super) fn of(file: &'a str, line: &PatchLine<'_>) -> Place<'a> {
        Place {
            file,
            patch_line: line.patch_line,
            file_line: line.new_line.map_or(0, |n| n as usize),
        }
    }

    fn origin(self) -> TermOrigin {
        TermOrigin {
            file: self.file.to_string(),
            patch_line: self.patch_line,
            file_line: self.file_line,
        }
    }
}

/// Whether a string is read as a regular expression or glob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pattern {
    /// Not known to be one: split only when it is asserted and looks like a regex.
    No,
    /// A regular expression.
    Regex,
    /// A glob.
    Glob,
}

/// An identifier the test code uses: its first place, how often, and whether it is ever used
/// as a member (`x.name`, a struct literal's or object's key).
#[derive(Debug)]
struct Used {
    name: String,
    origin: TermOrigin,
    count: usize,
    member: bool,
}

/// Whether an occurrence feeds the code a value rather than checking one.
fn fed(kind: TermKind, role: TermRole) -> bool {
    kind != TermKind::Identifier && role == TermRole::Other
}

/// Terms as they are found, merged by text.
#[derive(Debug, Default)]
pub(super) struct Sink {
    terms: Vec<Term>,
    index: HashMap<String, usize>,
    /// Identifiers the test code uses, for gold-defined names.
    used: Vec<Used>,
    used_index: HashMap<String, usize>,
}

impl Sink {
    pub(super) fn add(
        &mut self,
        text: &str,
        kind: TermKind,
        role: TermRole,
        source: TermSource,
        place: Place<'_>,
    ) {
        match self.index.get(text) {
            Some(&at) => {
                let term = &mut self.terms[at];
                term.occurrences += 1;
                term.fed |= fed(kind, role);
                if role.strength() > term.role.strength() {
                    term.role = role;
                }
            }
            None => {
                self.index.insert(text.to_string(), self.terms.len());
                self.terms.push(Term {
                    term: text.to_string(),
                    kind,
                    role,
                    source,
                    origin: place.origin(),
                    occurrences: 1,
                    fed: fed(kind, role),
                });
            }
        }
    }

    /// A string literal: the literal itself, and its literal runs when it is a pattern (or
    /// looks like a regular expression where it is asserted). `raw` says the language's
    /// escapes are not to be undone first (raw strings, regex literals, shell words).
    pub(super) fn add_string(
        &mut self,
        text: &str,
        role: TermRole,
        pattern: Pattern,
        raw: bool,
        place: Place<'_>,
    ) {
        if is_noise_string(text) {
            return;
        }
        self.add(text, TermKind::String, role, TermSource::Literal, place);
        let glob = match pattern {
            Pattern::Glob => true,
            Pattern::Regex => false,
            Pattern::No if role == TermRole::Asserted && pattern::looks_like_regex(text) => false,
            Pattern::No => return,
        };
        for run in pattern::literal_runs(text, glob, raw) {
            if run != text && !is_noise_string(&run) {
                self.add(&run, TermKind::String, role, TermSource::PatternRun, place);
            }
        }
    }

    /// An identifier the test code uses (whether or not it is a term); `member` when it
    /// names a field, method or key of something (`x.name`, `{name: ...}`).
    pub(super) fn use_identifier(&mut self, name: &str, member: bool, place: Place<'_>) {
        match self.used_index.get(name) {
            Some(&at) => {
                self.used[at].count += 1;
                self.used[at].member |= member;
            }
            None => {
                self.used_index.insert(name.to_string(), self.used.len());
                self.used.push(Used {
                    name: name.to_string(),
                    origin: place.origin(),
                    count: 1,
                    member,
                });
            }
        }
    }

    /// The terms, with the used identifiers that the gold patch defines and the prose does
    /// not name marked (or added) as gold-defined and asserted. `defined` maps each name the
    /// gold patch defines to whether it can be used bare (a function, type, variable) rather
    /// than only as a member (a field or method), which a test names as `x.name`.
    fn finish(mut self, defined: &HashMap<String, bool>, prose: &str) -> Vec<Term> {
        for used in std::mem::take(&mut self.used) {
            let Used {
                name,
                origin,
                count,
                member,
            } = used;
            let fits = defined.get(&name).is_some_and(|&bare| bare || member);
            if name.chars().count() < 4 || !fits || contains_word(prose, &name) {
                continue;
            }
            match self.index.get(&name) {
                Some(&at) => {
                    let term = &mut self.terms[at];
                    term.source = TermSource::GoldDefined;
                    term.role = TermRole::Asserted;
                }
                None => {
                    self.index.insert(name.clone(), self.terms.len());
                    self.terms.push(Term {
                        term: name,
                        kind: TermKind::Identifier,
                        role: TermRole::Asserted,
                        source: TermSource::GoldDefined,
                        origin,
                        occurrences: count,
                        fed: false,
                    });
                }
            }
        }
        self.terms
    }
}

#[cfg(test)]
mod tests;
