//! Linking a test to the hunk and line of a test patch that defines it.

use serde::Serialize;
use ts_rs::TS;

use super::{LineKind, PatchView};

/// Where a test can be found in a test patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
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
