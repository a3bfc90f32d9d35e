#![allow(clippy::unwrap_used)]
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
