//! The single pass over a diff's lines: files, their status and paths, hunks and numbered
//! lines; the added lines and all lines of a patch for the evidence engine.

use super::words::highlight_changed_pairs;
use super::{DiffLine, FileDiff, FileStatus, Hunk, LineKind, PatchError, PatchView};

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
pub fn changed_files(text: &str) -> Vec<FileDiff> {
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
pub struct AddedLine<'a> {
    /// The file the line is added to.
    pub file: &'a str,
    /// 1-based line number within the patch text.
    pub(crate) patch_line: usize,
    /// 1-based line number within the patched file.
    pub file_line: usize,
    /// The line without its `+`.
    pub text: &'a str,
}

/// The added lines of a unified diff, read as leniently as a diff from the internet needs: a
/// malformed hunk ends where it stops making sense, and reading goes on.
pub fn added_lines(patch: &str) -> Vec<AddedLine<'_>> {
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
pub struct PatchLine<'a> {
    /// The file's path after the change.
    pub file: &'a str,
    /// 1-based line number within the patch text.
    pub patch_line: usize,
    /// Context, added or removed.
    pub kind: LineKind,
    /// 1-based line number in the file before the change (context and removed lines).
    pub old_line: Option<u32>,
    /// 1-based line number in the file after the change (context and added lines).
    pub new_line: Option<u32>,
    /// The line without its marker.
    pub text: &'a str,
}

/// Every hunk line of a unified diff (context, added and removed), read as leniently as
/// [`added_lines`]; files that are deleted have no lines here.
pub fn patch_lines(patch: &str) -> Vec<PatchLine<'_>> {
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
