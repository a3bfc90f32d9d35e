//! Unified diffs (a task's gold patch and test patch) parsed for display: files, hunks, lines
//! with their old and new line numbers, and word-level highlights on changed line pairs.
//!
//! Patches in benchmarks are `git diff` output, sometimes thousands of lines long, so the
//! parser is a single pass over the lines and word diffs are bounded per line pair.
//!
//! ```
//! use annotations::patch::{parse_patch, LineKind};
//!
//! let diff = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n keep\n-value = compute(1)\n+value = compute(2)\n";
//! let patch = parse_patch(diff).expect("a valid diff");
//! let hunk = &patch.files[0].hunks[0];
//! assert_eq!(hunk.lines[1].kind, LineKind::Removed);
//! assert_eq!(hunk.lines[2].new_line, Some(2));
//! assert_eq!(hunk.lines[2].highlights, vec![annotations::patch::Span { start: 16, end: 17 }]);
//! ```

use serde::Serialize;
use similar::{Algorithm, DiffOp};
use ts_rs::TS;

/// Lines longer than this (in bytes) are not word-diffed: minified files and data blobs make
/// the diff slow and the highlight useless.
const MAX_WORD_DIFF_LINE: usize = 2_000;

/// A parsed unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct PatchView {
    /// The files the diff touches, in the diff's order.
    pub files: Vec<FileDiff>,
    /// Lines added over all files.
    pub added: u32,
    /// Lines removed over all files.
    pub removed: u32,
}

/// How a file changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum FileStatus {
    /// The file exists before and after.
    Modified,
    /// The file is new.
    Added,
    /// The file is removed.
    Deleted,
    /// The file moves (possibly with changes).
    Renamed,
}

/// One file's part of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct FileDiff {
    /// The path before the change (`None` for an added file).
    pub old_path: Option<String>,
    /// The path after the change (`None` for a deleted file).
    pub new_path: Option<String>,
    /// How the file changes.
    pub status: FileStatus,
    /// Whether git reported the file as binary (then there are no hunks).
    pub binary: bool,
    /// The file's hunks.
    pub hunks: Vec<Hunk>,
    /// Lines added in this file.
    pub added: u32,
    /// Lines removed in this file.
    pub removed: u32,
}

impl FileDiff {
    /// The path to show: the new path, or the old one for a deleted file.
    pub fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .unwrap_or_default()
    }
}

/// One `@@ -a,b +c,d @@` block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct Hunk {
    /// First line in the old file.
    pub old_start: u32,
    /// Number of old lines.
    pub old_count: u32,
    /// First line in the new file.
    pub new_start: u32,
    /// Number of new lines.
    pub new_count: u32,
    /// The text after the closing `@@` (git puts the enclosing function there).
    pub section: String,
    /// The hunk's lines.
    pub lines: Vec<DiffLine>,
}

/// What a diff line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum LineKind {
    /// Unchanged line shown for context.
    Context,
    /// A line only in the new file.
    Added,
    /// A line only in the old file.
    Removed,
    /// `\ No newline at end of file`, about the line before it.
    NoNewline,
}

/// A range of a line's text, in UTF-16 code units so the front end can slice a JavaScript
/// string with it directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct Span {
    /// Start offset (inclusive).
    pub start: u32,
    /// End offset (exclusive).
    pub end: u32,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct DiffLine {
    /// What the line does.
    pub kind: LineKind,
    /// Line number in the old file (context and removed lines).
    pub old_line: Option<u32>,
    /// Line number in the new file (context and added lines).
    pub new_line: Option<u32>,
    /// The line without its `+`/`-`/` ` marker and without the line break.
    pub text: String,
    /// The words that differ from the paired line on the other side (changed pairs only).
    pub highlights: Vec<Span>,
}

/// Why a diff could not be parsed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PatchError {
    /// A `@@` line is not of the form `@@ -a[,b] +c[,d] @@`.
    #[error("line {line} of the patch is not a valid hunk header: {text:?}")]
    BadHunkHeader {
        /// 1-based line number in the patch text.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// A hunk line appears before any file header.
    #[error(
        "line {line} of the patch is a hunk line outside any file (no `diff --git` or `---`/`+++` header before it)"
    )]
    HunkOutsideFile {
        /// 1-based line number in the patch text.
        line: usize,
    },
    /// A hunk ends before it has as many lines as its header promised.
    #[error(
        "the hunk starting at line {line} of the patch promises {expected_old} old and {expected_new} new lines but has {found_old} and {found_new}"
    )]
    ShortHunk {
        /// 1-based line number of the hunk header.
        line: usize,
        /// Old lines the header promised.
        expected_old: u32,
        /// New lines the header promised.
        expected_new: u32,
        /// Old lines found.
        found_old: u32,
        /// New lines found.
        found_new: u32,
    },
}

/// Parses a unified diff (as produced by `git diff`) into files, hunks and numbered lines, and
/// computes word-level highlights for each removed/added line pair.
///
/// Text outside hunks that git writes (`index`, mode lines, `similarity index`) is read for the
/// file status and otherwise skipped. An empty text is an empty patch.
pub fn parse_patch(text: &str) -> Result<PatchView, PatchError> {
    let mut files: Vec<FileDiff> = Vec::new();
    for scanned in DiffScanner::new(text) {
        let line = match scanned {
            Scanned::Line {
                number,
                kind,
                text,
                old_line,
                new_line,
            } => {
                let hunk =
                    current_hunk(&mut files).ok_or(PatchError::HunkOutsideFile { line: number })?;
                hunk.lines.push(DiffLine {
                    kind,
                    old_line,
                    new_line,
                    text: text.to_string(),
                    highlights: Vec::new(),
                });
                continue;
            }
            Scanned::Cut {
                header_line,
                old_left,
                new_left,
            } => {
                let hunk = current_hunk(&mut files)
                    .ok_or(PatchError::HunkOutsideFile { line: header_line })?;
                return Err(PatchError::ShortHunk {
                    line: header_line,
                    expected_old: hunk.old_count,
                    expected_new: hunk.new_count,
                    found_old: hunk.old_count - old_left.min(hunk.old_count),
                    found_new: hunk.new_count - new_left.min(hunk.new_count),
                });
            }
            Scanned::BadHunkHeader { number, line } => {
                return Err(PatchError::BadHunkHeader {
                    line: number,
                    text: line.to_string(),
                });
            }
            Scanned::HunkStart { number, hunk } => {
                files
                    .last_mut()
                    .ok_or(PatchError::HunkOutsideFile { line: number })?
                    .hunks
                    .push(hunk);
                continue;
            }
            Scanned::Header { line, .. } => line,
        };
        if line.starts_with("\\ ") {
            // "\ No newline at end of file" right after a hunk that has just been filled.
            if let Some(hunk) = current_hunk(&mut files) {
                hunk.lines.push(DiffLine {
                    kind: LineKind::NoNewline,
                    old_line: None,
                    new_line: None,
                    text: line.to_string(),
                    highlights: Vec::new(),
                });
            }
        } else {
            read_header(&mut files, line);
        }
    }

    let mut view = PatchView {
        files,
        added: 0,
        removed: 0,
    };
    for file in &mut view.files {
        for hunk in &mut file.hunks {
            for line in &hunk.lines {
                match line.kind {
                    LineKind::Added => file.added += 1,
                    LineKind::Removed => file.removed += 1,
                    _ => {}
                }
            }
            highlight_changed_pairs(&mut hunk.lines);
        }
        view.added += file.added;
        view.removed += file.removed;
    }
    Ok(view)
}

/// Reads a line outside hunks into the file list: a `diff --git` line starts a file; `---`,
/// `+++`, mode, rename and binary lines give its paths and status.
fn read_header(files: &mut Vec<FileDiff>, line: &str) {
    if let Some(rest) = line.strip_prefix("diff --git ") {
        let (old_path, new_path) = split_git_paths(rest);
        files.push(FileDiff {
            old_path: Some(old_path),
            new_path: Some(new_path),
            status: FileStatus::Modified,
            binary: false,
            hunks: Vec::new(),
            added: 0,
            removed: 0,
        });
    } else if let Some(rest) = line.strip_prefix("--- ") {
        let file = file_for_header(files);
        let path = header_path(rest, "a/");
        if path.is_none() {
            file.status = FileStatus::Added;
        }
        file.old_path = path;
    } else if let Some(rest) = line.strip_prefix("+++ ") {
        let file = file_for_header(files);
        let path = header_path(rest, "b/");
        if path.is_none() {
            file.status = FileStatus::Deleted;
        }
        file.new_path = path;
    } else if line.starts_with("new file mode") {
        if let Some(file) = files.last_mut() {
            file.status = FileStatus::Added;
            file.old_path = None;
        }
    } else if line.starts_with("deleted file mode") {
        if let Some(file) = files.last_mut() {
            file.status = FileStatus::Deleted;
            file.new_path = None;
        }
    } else if let Some(path) = line.strip_prefix("rename from ") {
        if let Some(file) = files.last_mut() {
            file.status = FileStatus::Renamed;
            file.old_path = Some(path.to_string());
        }
    } else if let Some(path) = line.strip_prefix("rename to ") {
        if let Some(file) = files.last_mut() {
            file.status = FileStatus::Renamed;
            file.new_path = Some(path.to_string());
        }
    } else if (line.starts_with("Binary files ") || line == "GIT binary patch")
        && let Some(file) = files.last_mut()
    {
        file.binary = true;
    }
}

/// The files a unified diff changes, with their paths and status but without their lines (a
/// file's hunks carry only their headers). Lighter than [`parse_patch`], which also numbers
/// every line and computes word highlights; a malformed hunk is skipped, not refused.
pub(crate) fn changed_files(text: &str) -> Vec<FileDiff> {
    let mut files: Vec<FileDiff> = Vec::new();
    for scanned in DiffScanner::new(text) {
        match scanned {
            Scanned::Header { line, .. } => read_header(&mut files, line),
            Scanned::HunkStart { hunk, .. } => {
                if let Some(file) = files.last_mut() {
                    file.hunks.push(hunk);
                }
            }
            Scanned::Line { .. } | Scanned::Cut { .. } | Scanned::BadHunkHeader { .. } => {}
        }
    }
    files
}

fn current_hunk(files: &mut [FileDiff]) -> Option<&mut Hunk> {
    files.last_mut().and_then(|file| file.hunks.last_mut())
}

/// A `---` line starts a new file when the diff has no `diff --git` lines (plain `diff -u`),
/// or when the previous file already has hunks.
fn file_for_header(files: &mut Vec<FileDiff>) -> &mut FileDiff {
    let needs_new = files
        .last()
        .is_none_or(|file| !file.hunks.is_empty() || file.binary);
    if needs_new {
        files.push(FileDiff {
            old_path: None,
            new_path: None,
            status: FileStatus::Modified,
            binary: false,
            hunks: Vec::new(),
            added: 0,
            removed: 0,
        });
    }
    let last = files.len() - 1;
    &mut files[last]
}

/// One line of a unified diff, as [`DiffScanner`] classifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scanned<'a> {
    /// A line outside any hunk: a file header or git's metadata.
    Header {
        /// 1-based line number in the patch text.
        number: usize,
        /// The line.
        line: &'a str,
    },
    /// A valid `@@` line: the hunk it opens, with no lines yet.
    HunkStart {
        /// 1-based line number in the patch text.
        number: usize,
        /// The hunk.
        hunk: Hunk,
    },
    /// An `@@` line that is not a valid hunk header.
    BadHunkHeader {
        /// 1-based line number in the patch text.
        number: usize,
        /// The line.
        line: &'a str,
    },
    /// A line of the open hunk.
    Line {
        /// 1-based line number in the patch text.
        number: usize,
        /// What the line does.
        kind: LineKind,
        /// The line without its marker.
        text: &'a str,
        /// Its number in the old file.
        old_line: Option<u32>,
        /// Its number in the new file.
        new_line: Option<u32>,
    },
    /// The open hunk ends (at a line that cannot be a hunk line, or at the end of the text)
    /// before it has the lines its header promised. A line that cut it is scanned next.
    Cut {
        /// 1-based line number of the hunk's header.
        header_line: usize,
        /// Old lines still expected.
        old_left: u32,
        /// New lines still expected.
        new_left: u32,
    },
}

/// Reads a unified diff line by line, following each hunk's line counts, so that an added line
/// that itself begins with `++` or `--` is never taken for a header. The one reader of diffs:
/// [`parse_patch`] builds the diff view from it, and [`added_lines`] gives the evidence engine
/// what a patch adds.
struct DiffScanner<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    open: Option<OpenHunk>,
    /// A line that cut a hunk short, to scan as a header next.
    pending: Option<(usize, &'a str)>,
}

/// The hunk being filled: how many old/new lines it still expects and the next line numbers.
struct OpenHunk {
    header_line: usize,
    old_left: u32,
    new_left: u32,
    old_next: u32,
    new_next: u32,
}

impl OpenHunk {
    fn is_full(&self) -> bool {
        self.old_left == 0 && self.new_left == 0
    }

    /// Counts one line of `kind` and returns its old and new line numbers.
    fn advance(&mut self, kind: LineKind) -> (Option<u32>, Option<u32>) {
        let (old, new) = match kind {
            LineKind::Context => (Some(self.old_next), Some(self.new_next)),
            LineKind::Removed => (Some(self.old_next), None),
            LineKind::Added => (None, Some(self.new_next)),
            LineKind::NoNewline => (None, None),
        };
        if old.is_some() {
            self.old_next += 1;
            self.old_left = self.old_left.saturating_sub(1);
        }
        if new.is_some() {
            self.new_next += 1;
            self.new_left = self.new_left.saturating_sub(1);
        }
        (old, new)
    }

    fn cut(&self) -> Scanned<'static> {
        Scanned::Cut {
            header_line: self.header_line,
            old_left: self.old_left,
            new_left: self.new_left,
        }
    }
}

impl<'a> DiffScanner<'a> {
    /// `lines` drops the final line break and any `\r`, so a trailing newline is not read as an
    /// empty context line.
    fn new(text: &'a str) -> DiffScanner<'a> {
        DiffScanner {
            lines: text.lines().enumerate(),
            open: None,
            pending: None,
        }
    }

    fn outside(&mut self, number: usize, line: &'a str) -> Scanned<'a> {
        if !line.starts_with("@@") {
            return Scanned::Header { number, line };
        }
        match parse_hunk_header(line) {
            Some(hunk) => {
                self.open = Some(OpenHunk {
                    header_line: number,
                    old_left: hunk.old_count,
                    new_left: hunk.new_count,
                    old_next: hunk.old_start,
                    new_next: hunk.new_start,
                });
                Scanned::HunkStart { number, hunk }
            }
            None => Scanned::BadHunkHeader { number, line },
        }
    }
}

impl<'a> Iterator for DiffScanner<'a> {
    type Item = Scanned<'a>;

    fn next(&mut self) -> Option<Scanned<'a>> {
        if let Some((number, line)) = self.pending.take() {
            return Some(self.outside(number, line));
        }
        let Some((index, line)) = self.lines.next() else {
            let open = self.open.take()?;
            return (!open.is_full()).then(|| open.cut());
        };
        let number = index + 1;
        if let Some(state) = self.open.as_mut()
            && !state.is_full()
        {
            let (kind, rest) = match line.as_bytes().first() {
                Some(b'+') => (LineKind::Added, &line[1..]),
                Some(b'-') => (LineKind::Removed, &line[1..]),
                Some(b' ') => (LineKind::Context, &line[1..]),
                Some(b'\\') => (LineKind::NoNewline, line),
                // Some tools strip the space of empty context lines.
                None => (LineKind::Context, ""),
                Some(_) => {
                    let cut = state.cut();
                    self.open = None;
                    self.pending = Some((number, line));
                    return Some(cut);
                }
            };
            let (old_line, new_line) = state.advance(kind);
            return Some(Scanned::Line {
                number,
                kind,
                text: rest,
                old_line,
                new_line,
            });
        }
        self.open = None;
        Some(self.outside(number, line))
    }
}

/// An added line of a unified diff, with its file and line numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AddedLine<'a> {
    /// The file the line is added to.
    pub(crate) file: &'a str,
    /// 1-based line number within the patch text.
    pub(crate) patch_line: usize,
    /// 1-based line number within the patched file.
    pub(crate) file_line: usize,
    /// The line without its `+`.
    pub(crate) text: &'a str,
}

/// The added lines of a unified diff, read as leniently as a diff from the internet needs: a
/// malformed hunk ends where it stops making sense, and reading goes on.
pub(crate) fn added_lines(patch: &str) -> Vec<AddedLine<'_>> {
    patch_lines(patch)
        .into_iter()
        .filter(|line| line.kind == LineKind::Added)
        .map(|line| AddedLine {
            file: line.file,
            patch_line: line.patch_line,
            file_line: line.new_line.map_or(0, |n| n as usize),
            text: line.text,
        })
        .collect()
}

/// One context, added or removed line of a unified diff, with the file it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PatchLine<'a> {
    /// The file's path after the change.
    pub(crate) file: &'a str,
    /// 1-based line number within the patch text.
    pub(crate) patch_line: usize,
    /// Context, added or removed.
    pub(crate) kind: LineKind,
    /// 1-based line number in the file before the change (context and removed lines).
    pub(crate) old_line: Option<u32>,
    /// 1-based line number in the file after the change (context and added lines).
    pub(crate) new_line: Option<u32>,
    /// The line without its marker.
    pub(crate) text: &'a str,
}

/// Every hunk line of a unified diff (context, added and removed), read as leniently as
/// [`added_lines`]; files that are deleted have no lines here.
pub(crate) fn patch_lines(patch: &str) -> Vec<PatchLine<'_>> {
    let mut out = Vec::new();
    let mut file: Option<&str> = None;
    for scanned in DiffScanner::new(patch) {
        match scanned {
            Scanned::Line {
                number,
                kind: kind @ (LineKind::Added | LineKind::Context | LineKind::Removed),
                text,
                old_line,
                new_line,
            } => {
                if let Some(path) = file {
                    out.push(PatchLine {
                        file: path,
                        patch_line: number,
                        kind,
                        old_line,
                        new_line,
                        text,
                    });
                }
            }
            Scanned::Header { line, .. } => {
                if let Some(rest) = line.strip_prefix("diff --git ") {
                    file = rest.rfind(" b/").map(|at| &rest[at + 3..]);
                } else if let Some(rest) = line.strip_prefix("+++ ") {
                    let rest = rest.split('\t').next().unwrap_or(rest).trim_end();
                    file = (rest != "/dev/null").then(|| rest.strip_prefix("b/").unwrap_or(rest));
                }
            }
            _ => {}
        }
    }
    out
}

/// `@@ -a[,b] +c[,d] @@ section` to an empty hunk.
fn parse_hunk_header(line: &str) -> Option<Hunk> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, section) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let (old_start, old_count) = parse_range(old)?;
    let (new_start, new_count) = parse_range(new)?;
    Some(Hunk {
        old_start,
        old_count,
        new_start,
        new_count,
        section: section.trim().to_string(),
        lines: Vec::new(),
    })
}

fn parse_range(range: &str) -> Option<(u32, u32)> {
    match range.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((range.parse().ok()?, 1)),
    }
}

/// `a/x b/y` from a `diff --git` line. Paths with spaces are ambiguous there; the `---`/`+++`
/// lines that follow, when present, overwrite this guess.
fn split_git_paths(rest: &str) -> (String, String) {
    if let Some(stripped) = rest.strip_prefix("a/")
        && let Some(pos) = stripped.find(" b/")
    {
        return (stripped[..pos].to_string(), stripped[pos + 3..].to_string());
    }
    match rest.split_once(' ') {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => (rest.to_string(), rest.to_string()),
    }
}

/// The path of a `---`/`+++` header line, without git's `a/`/`b/` prefix and without a
/// trailing timestamp; `None` for `/dev/null`.
fn header_path(rest: &str, prefix: &str) -> Option<String> {
    let path = rest.split('\t').next().unwrap_or(rest).trim_end();
    if path == "/dev/null" {
        return None;
    }
    Some(path.strip_prefix(prefix).unwrap_or(path).to_string())
}

/// Pairs each run of removed lines with the run of added lines right after it, line by line,
/// and marks the words that differ.
fn highlight_changed_pairs(lines: &mut [DiffLine]) {
    let mut i = 0;
    while i < lines.len() {
        if lines[i].kind != LineKind::Removed {
            i += 1;
            continue;
        }
        let removed_start = i;
        while i < lines.len() && lines[i].kind == LineKind::Removed {
            i += 1;
        }
        let added_start = i;
        while i < lines.len() && lines[i].kind == LineKind::Added {
            i += 1;
        }
        let pairs = (added_start - removed_start).min(i - added_start);
        for k in 0..pairs {
            let (left, right) = lines.split_at_mut(added_start + k);
            let old = &mut left[removed_start + k];
            let new = &mut right[0];
            if let Some((old_spans, new_spans)) = word_diff(&old.text, &new.text) {
                old.highlights = old_spans;
                new.highlights = new_spans;
            }
        }
    }
}

/// The changed words of two lines as UTF-16 spans, or `None` when the lines are too long or
/// share too little for a word highlight to help (then the whole line is the change).
fn word_diff(old: &str, new: &str) -> Option<(Vec<Span>, Vec<Span>)> {
    if old.len() > MAX_WORD_DIFF_LINE || new.len() > MAX_WORD_DIFF_LINE {
        return None;
    }
    let old_tokens = tokenize(old);
    let new_tokens = tokenize(new);
    let old_words: Vec<&str> = old_tokens.iter().map(|t| t.text).collect();
    let new_words: Vec<&str> = new_tokens.iter().map(|t| t.text).collect();
    let ops = similar::capture_diff_slices(Algorithm::Myers, &old_words, &new_words);

    let mut old_spans = Vec::new();
    let mut new_spans = Vec::new();
    let mut equal_units = 0u32;
    for op in ops {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                equal_units += old_tokens[old_index..old_index + len]
                    .iter()
                    .filter(|t| !t.text.trim().is_empty())
                    .map(|t| t.end - t.start)
                    .sum::<u32>();
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => push_span(&mut old_spans, &old_tokens[old_index..old_index + old_len]),
            DiffOp::Insert {
                new_index, new_len, ..
            } => push_span(&mut new_spans, &new_tokens[new_index..new_index + new_len]),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                push_span(&mut old_spans, &old_tokens[old_index..old_index + old_len]);
                push_span(&mut new_spans, &new_tokens[new_index..new_index + new_len]);
            }
        }
    }
    let longest = old_tokens
        .last()
        .map_or(0, |t| t.end)
        .max(new_tokens.last().map_or(0, |t| t.end));
    // Below a third in common the highlight would cover nearly everything: show none.
    if longest == 0 || equal_units * 3 < longest {
        return None;
    }
    Some((old_spans, new_spans))
}

/// Appends the span covering `tokens`, merging with the previous span when they touch.
fn push_span(spans: &mut Vec<Span>, tokens: &[Token<'_>]) {
    let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
        return;
    };
    match spans.last_mut() {
        Some(prev) if prev.end == first.start => prev.end = last.end,
        _ => spans.push(Span {
            start: first.start,
            end: last.end,
        }),
    }
}

/// A word, a run of whitespace, or one punctuation character, with its UTF-16 range.
struct Token<'a> {
    text: &'a str,
    start: u32,
    end: u32,
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum CharClass {
    Word,
    Space,
    Punct,
}

fn classify(c: char) -> CharClass {
    if c.is_alphanumeric() || c == '_' {
        CharClass::Word
    } else if c.is_whitespace() {
        CharClass::Space
    } else {
        CharClass::Punct
    }
}

fn tokenize(line: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut start_byte = 0;
    let mut start_unit = 0u32;
    let mut unit = 0u32;
    let mut class: Option<CharClass> = None;
    for (byte, c) in line.char_indices() {
        let this = classify(c);
        let continues = class == Some(this) && this != CharClass::Punct;
        if !continues && byte > 0 {
            tokens.push(Token {
                text: &line[start_byte..byte],
                start: start_unit,
                end: unit,
            });
            start_byte = byte;
            start_unit = unit;
        }
        class = Some(this);
        unit += c.len_utf16() as u32;
    }
    if !line.is_empty() {
        tokens.push(Token {
            text: &line[start_byte..],
            start: start_unit,
            end: unit,
        });
    }
    tokens
}

/// Where a test can be found in a test patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct TestLocation {
    /// Index into [`PatchView::files`].
    pub file: u32,
    /// Index into that file's hunks.
    pub hunk: u32,
    /// Index into that hunk's lines of the line naming the test, when one does.
    pub line: Option<u32>,
}

/// Finds the file and hunk of a test patch where the test `test_id` (an entry of FAIL_TO_PASS
/// or PASS_TO_PASS) is defined or changed.
///
/// Understands pytest ids (`tests/test_x.py::TestY::test_z[param]`), Django/unittest ids
/// (`test_z (app.tests.TestY)`), and plain names (Go `TestZ`, JavaScript test titles). Prefers a
/// line that defines the name; falls back to a hunk whose section header names it, then to
/// the first hunk of the file the id names. `None` when the patch never mentions the test (it
/// may exist unchanged in the repository).
pub fn locate_test(patch: &PatchView, test_id: &str) -> Option<TestLocation> {
    let target = TestTarget::from_id(test_id);
    let mut file_order: Vec<usize> = (0..patch.files.len()).collect();
    // Files the id names come first, so a common name finds its own file's definition.
    file_order.sort_by_key(|&i| !target.matches_path(patch.files[i].path()));

    let mut section_hit = None;
    for &fi in &file_order {
        let file = &patch.files[fi];
        for (hi, hunk) in file.hunks.iter().enumerate() {
            for (li, line) in hunk.lines.iter().enumerate() {
                if line.kind != LineKind::Removed && defines(&line.text, &target.name) {
                    return Some(location(fi, hi, Some(li)));
                }
            }
            if section_hit.is_none() && contains_word(&hunk.section, &target.name) {
                section_hit = Some(location(fi, hi, None));
            }
        }
    }
    if section_hit.is_some() {
        return section_hit;
    }
    // A looser pass: the name anywhere in the file's added or context lines (JS titles,
    // parametrized cases listed in a table).
    for &fi in &file_order {
        for (hi, hunk) in patch.files[fi].hunks.iter().enumerate() {
            for (li, line) in hunk.lines.iter().enumerate() {
                if line.kind != LineKind::Removed && line.text.contains(target.name.as_str()) {
                    return Some(location(fi, hi, Some(li)));
                }
            }
        }
    }
    file_order
        .first()
        .filter(|&&fi| target.matches_path(patch.files[fi].path()))
        .filter(|&&fi| !patch.files[fi].hunks.is_empty())
        .map(|&fi| location(fi, 0, None))
}

fn location(file: usize, hunk: usize, line: Option<usize>) -> TestLocation {
    TestLocation {
        file: file as u32,
        hunk: hunk as u32,
        line: line.map(|l| l as u32),
    }
}

/// The parts of a test id that can be searched for.
struct TestTarget {
    /// The test's own name (function, method or title).
    name: String,
    /// A path or dotted module the id names, as path fragments.
    path_hint: Option<String>,
}

impl TestTarget {
    fn from_id(id: &str) -> TestTarget {
        let id = id.trim();
        // pytest: path::Class::name[params]
        if id.contains("::") {
            let mut parts = id.split("::");
            let path = parts.next().map(str::to_string);
            let last = id.rsplit("::").next().unwrap_or(id);
            let name = last.split('[').next().unwrap_or(last).trim().to_string();
            return TestTarget {
                name,
                path_hint: path,
            };
        }
        // Django/unittest: name (dotted.module.Class)
        if let Some((name, rest)) = id.split_once(" (")
            && let Some(module) = rest.strip_suffix(')')
        {
            let module_path = module
                .rsplit_once('.')
                .map_or(module, |(m, _class)| m)
                .replace('.', "/");
            return TestTarget {
                name: name.trim().to_string(),
                path_hint: Some(module_path),
            };
        }
        // Go subtests `TestX/case`, JS titles `suite > case`, or a plain name.
        let name = id
            .split('/')
            .next()
            .unwrap_or(id)
            .rsplit(" > ")
            .next()
            .unwrap_or(id)
            .trim()
            .to_string();
        TestTarget {
            name,
            path_hint: None,
        }
    }

    fn matches_path(&self, path: &str) -> bool {
        match &self.path_hint {
            Some(hint) if !hint.is_empty() => {
                path == hint || path.ends_with(hint.as_str()) || path.contains(hint.as_str())
            }
            _ => false,
        }
    }
}

/// Whether `line` defines `name` as a test: `def name(`, `func name(`, `function name(`,
/// `it("name"`, `test("name"`, or `name(` at the start of a method.
fn defines(line: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    let trimmed = line.trim_start();
    for keyword in ["def ", "async def ", "func ", "function ", "fn "] {
        if let Some(rest) = trimmed.strip_prefix(keyword)
            && let Some(after) = rest.strip_prefix(name)
            && (after.starts_with('(') || after.starts_with('['))
        {
            return true;
        }
    }
    for call in ["it(", "test(", "it.only(", "describe("] {
        if let Some(rest) = trimmed.strip_prefix(call) {
            let rest = rest.trim_start_matches(['\'', '"', '`']);
            if rest.starts_with(name) {
                return true;
            }
        }
    }
    false
}

/// Whether `name` occurs in `text` as a whole identifier.
fn contains_word(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(pos, _)| {
        let before = text[..pos].chars().next_back();
        let after = text[pos + name.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn added_lines_follow_hunk_counts_and_file_lines() {
        let patch = "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,3 @@\n ctx\n+++x = 1\n-old\n+new\n";
        let lines = added_lines(patch);
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0].text, "++x = 1",
            "an added line starting with ++ is content"
        );
        assert_eq!((lines[0].patch_line, lines[0].file_line), (6, 2));
        assert_eq!((lines[1].patch_line, lines[1].file_line), (8, 3));
    }

    #[test]
    fn added_lines_read_on_past_a_hunk_cut_short() {
        // The first hunk promises three lines and has one; the second file is still read.
        let patch = "diff --git a/a.py b/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n+x\ndiff --git a/b.py b/b.py\n+++ b/b.py\n@@ -0,0 +1,1 @@\n+y\n";
        let lines: Vec<(&str, &str)> = added_lines(patch)
            .iter()
            .map(|l| (l.file, l.text))
            .collect();
        assert_eq!(lines, [("a.py", "x"), ("b.py", "y")]);
        assert!(
            parse_patch(patch).is_err(),
            "the diff view refuses the same text"
        );
    }

    const TWO_FILES: &str = "diff --git a/src/calc.py b/src/calc.py
index 1111111..2222222 100644
--- a/src/calc.py
+++ b/src/calc.py
@@ -10,4 +10,5 @@ def add(a, b):
 def add(a, b):
-    return a - b
+    return a + b
+
 
 def sub(a, b):
diff --git a/tests/test_calc.py b/tests/test_calc.py
new file mode 100644
--- /dev/null
+++ b/tests/test_calc.py
@@ -0,0 +1,6 @@
+from src.calc import add
+
+
+class TestAdd:
+    def test_adds_two_numbers(self):
+        assert add(1, 2) == 3
";

    #[test]
    fn parses_files_hunks_and_line_numbers() {
        let patch = parse_patch(TWO_FILES).unwrap();
        assert_eq!(patch.files.len(), 2);
        let calc = &patch.files[0];
        assert_eq!(calc.path(), "src/calc.py");
        assert_eq!(calc.status, FileStatus::Modified);
        assert_eq!(calc.hunks[0].section, "def add(a, b):");
        let numbers: Vec<(Option<u32>, Option<u32>)> = calc.hunks[0]
            .lines
            .iter()
            .map(|l| (l.old_line, l.new_line))
            .collect();
        assert_eq!(
            numbers,
            vec![
                (Some(10), Some(10)),
                (Some(11), None),
                (None, Some(11)),
                (None, Some(12)),
                (Some(12), Some(13)),
                (Some(13), Some(14)),
            ]
        );
        assert_eq!((calc.added, calc.removed), (2, 1));
        let test = &patch.files[1];
        assert_eq!(test.status, FileStatus::Added);
        assert_eq!(test.old_path, None);
        assert_eq!(test.hunks[0].lines.len(), 6);
        assert_eq!(test.hunks[0].lines[5].new_line, Some(6));
        assert_eq!((patch.added, patch.removed), (8, 1));
    }

    #[test]
    fn changed_line_pairs_get_word_highlights() {
        let patch = parse_patch(TWO_FILES).unwrap();
        let lines = &patch.files[0].hunks[0].lines;
        // "    return a - b" -> "    return a + b": only the operator differs.
        assert_eq!(lines[1].highlights, vec![Span { start: 13, end: 14 }]);
        assert_eq!(lines[2].highlights, vec![Span { start: 13, end: 14 }]);
        assert!(
            lines[3].highlights.is_empty(),
            "an unpaired added line has no highlight"
        );
    }

    #[test]
    fn highlights_are_utf16_offsets() {
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-é😀 naïve value\n+é😀 naive value\n";
        let patch = parse_patch(diff).unwrap();
        let old = &patch.files[0].hunks[0].lines[0];
        // "é" is 1 unit, the emoji 2, the space 1: "naïve" starts at unit 4.
        assert_eq!(old.highlights, vec![Span { start: 4, end: 9 }]);
    }

    #[test]
    fn unrelated_lines_get_no_highlight() {
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-completely different words here\n+nothing alike at all in this one\n";
        let patch = parse_patch(diff).unwrap();
        assert!(patch.files[0].hunks[0].lines[0].highlights.is_empty());
    }

    #[test]
    fn no_newline_marker_is_kept_without_numbers() {
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n";
        let patch = parse_patch(diff).unwrap();
        let kinds: Vec<LineKind> = patch.files[0].hunks[0]
            .lines
            .iter()
            .map(|l| l.kind)
            .collect();
        assert_eq!(
            kinds,
            vec![
                LineKind::Removed,
                LineKind::NoNewline,
                LineKind::Added,
                LineKind::NoNewline
            ]
        );
        assert_eq!(patch.files[0].hunks[0].lines[2].new_line, Some(1));
    }

    #[test]
    fn deleted_renamed_and_binary_files() {
        let diff = "diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/a.py b/b.py
similarity index 90%
rename from a.py
rename to b.py
diff --git a/logo.png b/logo.png
Binary files a/logo.png and b/logo.png differ
";
        let patch = parse_patch(diff).unwrap();
        assert_eq!(patch.files.len(), 3);
        assert_eq!(patch.files[0].status, FileStatus::Deleted);
        assert_eq!(patch.files[0].path(), "old.txt");
        assert_eq!(patch.files[1].status, FileStatus::Renamed);
        assert_eq!(patch.files[1].old_path.as_deref(), Some("a.py"));
        assert_eq!(patch.files[1].new_path.as_deref(), Some("b.py"));
        assert!(patch.files[2].binary);
    }

    #[test]
    fn empty_text_is_an_empty_patch() {
        let patch = parse_patch("").unwrap();
        assert!(patch.files.is_empty());
    }

    #[test]
    fn bad_hunk_header_names_the_line() {
        let err = parse_patch("--- a/x\n+++ b/x\n@@ -1,x +1 @@\n").unwrap_err();
        assert_eq!(
            err,
            PatchError::BadHunkHeader {
                line: 3,
                text: "@@ -1,x +1 @@".to_string()
            }
        );
        assert!(err.to_string().contains("line 3"));
    }

    #[test]
    fn truncated_hunk_is_an_error() {
        let err = parse_patch("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n").unwrap_err();
        assert_eq!(
            err,
            PatchError::ShortHunk {
                line: 3,
                expected_old: 3,
                expected_new: 3,
                found_old: 2,
                found_new: 1
            }
        );
    }

    #[test]
    fn hunk_before_any_file_is_an_error() {
        let err = parse_patch("@@ -1 +1 @@\n-a\n+b\n").unwrap_err();
        assert_eq!(err, PatchError::HunkOutsideFile { line: 1 });
    }

    #[test]
    fn locates_pytest_ids() {
        let patch = parse_patch(TWO_FILES).unwrap();
        let found = locate_test(&patch, "tests/test_calc.py::TestAdd::test_adds_two_numbers");
        assert_eq!(
            found,
            Some(TestLocation {
                file: 1,
                hunk: 0,
                line: Some(4)
            })
        );
        let param = locate_test(
            &patch,
            "tests/test_calc.py::TestAdd::test_adds_two_numbers[1-2]",
        );
        assert_eq!(param, found, "pytest parameters are ignored");
    }

    #[test]
    fn locates_django_ids_and_falls_back_to_the_named_file() {
        let diff = "diff --git a/tests/forms/tests.py b/tests/forms/tests.py
--- a/tests/forms/tests.py
+++ b/tests/forms/tests.py
@@ -5,3 +5,6 @@ class FormTests(SimpleTestCase):
     def test_old(self):
         pass
+
+    def test_new_widget(self):
+        self.assertTrue(True)
 
";
        let patch = parse_patch(diff).unwrap();
        let found = locate_test(&patch, "test_new_widget (forms.tests.FormTests)");
        assert_eq!(
            found.map(|l| (l.file, l.hunk, l.line)),
            Some((0, 0, Some(3)))
        );
        let unchanged = locate_test(&patch, "test_unrelated (forms.tests.FormTests)");
        assert_eq!(
            unchanged.map(|l| (l.file, l.hunk, l.line)),
            Some((0, 0, None)),
            "a test of a changed file that the patch does not show links to the file"
        );
        assert_eq!(locate_test(&patch, "test_elsewhere (other.tests.X)"), None);
    }

    #[test]
    fn locates_go_and_js_names() {
        let diff = "--- a/x_test.go\n+++ b/x_test.go\n@@ -1,0 +1,2 @@\n+func TestParse(t *testing.T) {\n+}\n--- a/x.test.js\n+++ b/x.test.js\n@@ -1,0 +1,1 @@\n+  it('parses empty input', () => {})\n";
        let patch = parse_patch(diff).unwrap();
        assert_eq!(
            locate_test(&patch, "TestParse/empty").map(|l| l.file),
            Some(0)
        );
        assert_eq!(
            locate_test(&patch, "parser > parses empty input").map(|l| l.file),
            Some(1)
        );
    }

    #[test]
    fn large_patch_parses() {
        let mut diff = String::from("diff --git a/big.py b/big.py\n--- a/big.py\n+++ b/big.py\n");
        for hunk in 0..500 {
            let start = hunk * 20 + 1;
            diff.push_str(&format!("@@ -{start},6 +{start},6 @@ def f{hunk}():\n"));
            for k in 0..3 {
                diff.push_str(&format!(" context line {k}\n"));
            }
            for k in 0..3 {
                diff.push_str(&format!("-    value_{k} = compute({hunk}, {k})\n"));
            }
            for k in 0..3 {
                diff.push_str(&format!(
                    "+    value_{k} = compute({hunk}, {k}, strict=True)\n"
                ));
            }
        }
        let patch = parse_patch(&diff).unwrap();
        assert_eq!(patch.files[0].hunks.len(), 500);
        assert_eq!(patch.added, 1500);
        let last = patch.files[0].hunks[499].lines.last().unwrap();
        assert_eq!(last.new_line, Some(499 * 20 + 6));
        assert!(!last.highlights.is_empty());
    }
}
