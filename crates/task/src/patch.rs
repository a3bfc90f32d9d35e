//! Unified diffs (a task's gold patch and test patch) parsed for display: files, hunks, lines
//! with their old and new line numbers, and word-level highlights on changed line pairs.
//!
//! Patches in benchmarks are `git diff` output, sometimes thousands of lines long, so the
//! parser is a single pass over the lines and word diffs are bounded per line pair.
//!
//! ```
//! use verity_task::patch::{parse_patch, LineKind};
//!
//! let diff = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n keep\n-value = compute(1)\n+value = compute(2)\n";
//! let patch = parse_patch(diff).expect("a valid diff");
//! let hunk = &patch.files[0].hunks[0];
//! assert_eq!(hunk.lines[1].kind, LineKind::Removed);
//! assert_eq!(hunk.lines[2].new_line, Some(2));
//! assert_eq!(hunk.lines[2].highlights, vec![verity_task::patch::Span { start: 16, end: 17 }]);
//! ```

use serde::Serialize;
use ts_rs::TS;

mod locate;
mod parse;
mod words;

pub use locate::{TestLocation, locate_test};
pub use parse::parse_patch;
pub use parse::{AddedLine, PatchLine, added_lines, changed_files, patch_lines};

/// A parsed unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
pub struct Span {
    /// Start offset (inclusive).
    pub start: u32,
    /// End offset (exclusive).
    pub end: u32,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
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

#[cfg(test)]
mod tests;
