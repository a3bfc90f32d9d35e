//! Shell scripts and data files.
//!
//! - **Shell** (`.sh`, `.bash`, `.bats`, and scripts without an extension under a `test` or
//!   `tests` folder whose patch shows a shell's `#!` line): per added line, quoted strings and
//!   the words after a command's name (not flags, bare variables or shell keywords). A line
//!   whose command asserts or matches (`assert`, `match`, `expect`, `grep`, `diff`, `[[`, `[`, `test`) gives asserted
//!   terms; a matching line (`match`, `grep`, `=~`) reads its strings as regular expressions.
//! - **Structured data** (`.yml`, `.yaml`, `.json`, `.cue`, `.toml`): the scalar value of each
//!   added `key: value` line, each element of a list (`- item`, `[a, b]`), and a bare line's
//!   value; keys are never terms.
//! - **Golden files** (`.golden`, `.out`, `.expected`, Jest's `.snap`, names with `expected` or
//!   `golden`): each trimmed added line of 3 to 200 characters, asserted.
//! - **Other data** (`.txt`, and files under `testdata`/`fixtures`/`golden` folders): each
//!   trimmed added line of 3 to 200 characters.
//!
//! Data values are asserted when the test code in the same patch names the file (its path or
//! file name), since the tests read it; else they are setup ([`TermRole::Other`]). All data
//! terms have [`TermSource::DataValue`].

use super::{
    Pattern, Place, Sink, TermKind, TermRole, TermSource, extension, file_name, is_noise_number,
};
use verity_task::patch::{LineKind, PatchLine};

/// How a data file's added lines are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DataFormat {
    /// YAML, JSON, CUE, TOML: scalar values and list elements.
    Structured {
        /// `key = value` (TOML) rather than `key: value`.
        equals: bool,
    },
    /// A golden or expected-output file: whole lines, asserted.
    Golden,
    /// Other data: whole lines.
    Lines,
}

/// Folders whose files are test data.
pub(super) const DATA_DIRS: &[&str] = &[
    "testdata",
    "test_data",
    "fixtures",
    "fixture",
    "__fixtures__",
    "golden",
    "goldens",
];

pub(super) fn is_shell(path: &str) -> bool {
    matches!(extension(path), Some("sh" | "bash" | "bats"))
}

/// A script without an extension under a `test` or `tests` folder whose first line, as the
/// patch shows it, is a shell's `#!` line.
pub(super) fn is_shell_script(path: &str, lines: &[PatchLine<'_>]) -> bool {
    let in_tests = path
        .rsplit('/')
        .skip(1)
        .any(|dir| matches!(dir, "test" | "tests"));
    let shebang = lines
        .iter()
        .find(|l| l.new_line == Some(1))
        .is_some_and(|l| {
            l.text.starts_with("#!") && (l.text.contains("sh") || l.text.contains("bats"))
        });
    in_tests && extension(path).is_none() && shebang
}

/// How to read a file that is not code, or `None` to skip it.
pub(super) fn data_format(path: &str) -> Option<DataFormat> {
    let name = file_name(path).to_ascii_lowercase();
    let ext = extension(&name).unwrap_or("");
    if matches!(ext, "golden" | "out" | "expected" | "snap")
        || name.contains("expected")
        || name.contains("golden")
    {
        return Some(DataFormat::Golden);
    }
    match ext {
        "yml" | "yaml" | "json" | "cue" => Some(DataFormat::Structured { equals: false }),
        "toml" => Some(DataFormat::Structured { equals: true }),
        "txt" => Some(DataFormat::Lines),
        _ if path.split('/').any(|dir| DATA_DIRS.contains(&dir)) => Some(DataFormat::Lines),
        _ => None,
    }
}

/// The terms of a data file's added lines; `read` says the patch's test code names the file.
pub(super) fn data_terms(
    format: DataFormat,
    read: bool,
    file: &str,
    lines: &[PatchLine<'_>],
    sink: &mut Sink,
) {
    let role = if read || format == DataFormat::Golden {
        TermRole::Asserted
    } else {
        TermRole::Other
    };
    for line in lines.iter().filter(|l| l.kind == LineKind::Added) {
        let place = Place::of(file, line);
        match format {
            DataFormat::Structured { equals } => {
                for value in structured_values(line.text, equals) {
                    add_value(value, role, place, sink);
                }
            }
            DataFormat::Golden | DataFormat::Lines => {
                let text = line.text.trim();
                if (3..=200).contains(&text.chars().count()) {
                    add_value(text, role, place, sink);
                }
            }
        }
    }
}

fn add_value(value: &str, role: TermRole, place: Place<'_>, sink: &mut Sink) {
    if super::is_noise_string(value) {
        return;
    }
    sink.add(value, TermKind::String, role, TermSource::DataValue, place);
}

/// Scans `text` for `want` outside quotes and brackets; the byte offset of the first one.
fn find_top_level(text: &str, want: impl Fn(&str) -> bool) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' && q == '"' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '[' | '{' => depth += 1,
            ']' | '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 && want(&text[at..]) => return Some(at),
            _ => {}
        }
    }
    None
}

/// The scalar values and list elements of one YAML/JSON/CUE/TOML line.
fn structured_values(line: &str, equals: bool) -> Vec<&str> {
    let mut text = line.trim();
    if text.starts_with('#') || text.starts_with("//") {
        return Vec::new();
    }
    if let Some(at) = find_top_level(text, |rest| {
        rest.starts_with(" #") || rest.starts_with(" //")
    }) {
        text = text[..at].trim_end();
    }
    while let Some(rest) = text.strip_prefix("- ") {
        text = rest.trim_start();
    }
    if text == "-" {
        return Vec::new();
    }
    let separator = find_top_level(text, |rest| {
        if equals {
            rest.starts_with('=')
        } else {
            rest.starts_with(':') && rest[1..].chars().next().is_none_or(char::is_whitespace)
        }
    });
    let value = match separator {
        Some(at) => &text[at + 1..],
        None => text,
    };
    let mut out = Vec::new();
    push_values(value, equals, MAX_NESTING, &mut out);
    out
}

/// How deep flow lists and maps nest before a line's values are left unread.
const MAX_NESTING: usize = 16;

fn push_values<'a>(value: &'a str, equals: bool, depth: usize, out: &mut Vec<&'a str>) {
    let value = value.trim().trim_end_matches(',').trim();
    let (open, close) = match value.chars().next() {
        Some('[') => ('[', ']'),
        Some('{') => ('{', '}'),
        _ => {
            if let Some(scalar) = scalar(value) {
                out.push(scalar);
            }
            return;
        }
    };
    let Some(depth) = depth.checked_sub(1) else {
        return;
    };
    let inner = value[open.len_utf8()..].trim();
    let inner = inner.strip_suffix(close).unwrap_or(inner);
    let mut rest = inner;
    while !rest.trim().is_empty() {
        let end = find_top_level(rest, |r| r.starts_with(',')).unwrap_or(rest.len());
        let item = rest[..end].trim();
        if open == '{' {
            let pair = if equals { "=" } else { ":" };
            if let Some(at) = find_top_level(item, |r| r.starts_with(pair)) {
                push_values(&item[at + 1..], equals, depth, out);
            }
        } else {
            push_values(item, equals, depth, out);
        }
        rest = rest.get(end + 1..).unwrap_or("");
    }
}

/// A scalar's text: unquoted, or `None` for an opener, a block marker or a constant.
fn scalar(value: &str) -> Option<&str> {
    for quote in ['"', '\''] {
        if value.len() >= 2 && value.starts_with(quote) && value.ends_with(quote) {
            return Some(&value[1..value.len() - 1]);
        }
    }
    let constant = matches!(
        value,
        "" | "|" | ">" | "|-" | ">-" | "|+" | ">+" | "null" | "~" | "true" | "false" | "{}" | "[]"
    );
    let syntax = value.starts_with(['&', '*', '!', '{', '[', '}', ']', '"', '\'']);
    (!constant && !syntax).then_some(value)
}

const SHELL_WORDS: &[&str] = &[
    "if", "then", "else", "elif", "for", "while", "until", "done", "case", "esac", "function",
    "return", "local", "export", "readonly", "declare", "echo", "printf", "true", "false", "exit",
    "shift", "set", "unset", "source", "eval", "exec", "cd", "in",
];

/// A word of a shell line: its text and whether it was quoted.
fn shell_words(line: &str) -> Vec<(&str, bool)> {
    let mut words = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b == b'#' {
            break;
        }
        if b == b'"' || b == b'\'' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b {
                j += if bytes[j] == b'\\' && b == b'"' { 2 } else { 1 };
            }
            if j >= bytes.len() {
                break;
            }
            words.push((&line[i + 1..j], true));
            i = j + 1;
            continue;
        }
        let end = line[i..]
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .map_or(line.len(), |at| i + at);
        words.push((&line[i..end], false));
        i = end;
    }
    words
}

/// A word that only expands a variable: `$body`, `${TOKEN}`.
fn is_variable(word: &str) -> bool {
    word.strip_prefix('$').is_some_and(|name| {
        let name = name
            .strip_prefix('{')
            .and_then(|n| n.strip_suffix('}'))
            .unwrap_or(name);
        !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The terms of a shell script's added lines.
pub(super) fn shell_terms(file: &str, lines: &[PatchLine<'_>], sink: &mut Sink) {
    for line in lines.iter().filter(|l| l.kind == LineKind::Added) {
        let place = Place::of(file, line);
        let lower = line.text.to_ascii_lowercase();
        let first = lower.split_whitespace().next().unwrap_or("");
        let matching = lower.contains("match") || lower.contains("grep") || lower.contains("=~");
        let asserting = matching
            || ["assert", "expect", "diff"]
                .iter()
                .any(|word| lower.contains(word))
            || matches!(first, "[[" | "[" | "test" | "if" | "elif");
        let role = if asserting {
            TermRole::Asserted
        } else {
            TermRole::Other
        };
        let pattern = if matching {
            Pattern::Regex
        } else {
            Pattern::No
        };
        let mut command_start = true;
        for (word, quoted) in shell_words(line.text) {
            if is_variable(word) {
                command_start = false;
                continue;
            }
            if quoted {
                sink.add_string(word, role, pattern, true, place);
                command_start = false;
                continue;
            }
            let operator = matches!(word, "|" | "||" | "&&" | ";" | "then" | "do" | "!");
            if operator || command_start {
                command_start = operator || SHELL_WORDS.contains(&word);
                continue;
            }
            let value = word.trim_end_matches(';');
            if value.starts_with(['-', '$', '[', ']', '>', '<', '&', '(', ')', '='])
                || SHELL_WORDS.contains(&value)
            {
                continue;
            }
            if value.bytes().all(|b| b.is_ascii_digit()) {
                if !is_noise_number(value) {
                    sink.add(value, TermKind::Number, role, TermSource::Literal, place);
                }
            } else {
                sink.add_string(value, role, pattern, true, place);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_lines_give_values_and_list_elements() {
        assert_eq!(
            structured_values(
                r#"          ["api", "api/cache", "fs/git", "fs/oci"]"#,
                false
            ),
            ["api", "api/cache", "fs/git", "fs/oci"]
        );
        assert_eq!(
            structured_values("  url: http://localhost:8080 # local", false),
            ["http://localhost:8080"]
        );
        assert_eq!(structured_values("storage:", false), Vec::<&str>::new());
        assert_eq!(structured_values(r#"  "key": "value","#, false), ["value"]);
        assert_eq!(structured_values("  - name: flipt", false), ["flipt"]);
        assert_eq!(structured_values("  - oci", false), ["oci"]);
        assert_eq!(
            structured_values(r#"  "bare element","#, false),
            ["bare element"]
        );
        assert_eq!(
            structured_values(r#"tags = ["a1", "b2"]"#, true),
            ["a1", "b2"]
        );
        assert_eq!(
            structured_values(r#"obj: {a: "x1", b: [y2, "z3"]}"#, false),
            ["x1", "y2", "z3"]
        );
        let deep = format!("{}\"too deep\"{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(structured_values(&deep, false), Vec::<&str>::new());
    }

    #[test]
    fn shell_words_keep_quotes_apart() {
        assert_eq!(
            shell_words(r#"header_matches "Set-Cookie" 'a b' plain # comment"#),
            [
                ("header_matches", false),
                ("Set-Cookie", true),
                ("a b", true),
                ("plain", false)
            ]
        );
    }

    #[test]
    fn data_formats_by_name() {
        assert_eq!(
            data_format(".github/workflows/ci.yml"),
            Some(DataFormat::Structured { equals: false })
        );
        assert_eq!(
            data_format("x/testdata/out.golden"),
            Some(DataFormat::Golden)
        );
        assert_eq!(
            data_format("t/expected_output.txt"),
            Some(DataFormat::Golden)
        );
        assert_eq!(data_format("t/fixtures/page.html"), Some(DataFormat::Lines));
        assert_eq!(data_format("README.md"), None);
        assert!(is_shell("test/api.sh"));
        let script = "diff --git a/test/smoke b/test/smoke\n--- /dev/null\n+++ b/test/smoke\n@@ -0,0 +1,2 @@\n+#!/usr/bin/env bash\n+assert_ok \"flipt up\"\n";
        let lines = verity_task::patch::patch_lines(script);
        assert!(is_shell_script("test/smoke", &lines));
        assert!(!is_shell_script("bin/smoke", &lines));
        assert!(!is_shell_script("test/smoke.py", &lines));
    }
}
