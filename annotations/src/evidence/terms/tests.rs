use super::*;

fn no_base(_: &str) -> Option<String> {
    None
}

fn terms(patch: &str) -> Vec<Term> {
    extract_terms(patch, "", "", &no_base)
}

fn kinds(patch: &str) -> Vec<(String, TermKind)> {
    terms(patch).into_iter().map(|t| (t.term, t.kind)).collect()
}

fn s(text: &str) -> (String, TermKind) {
    (text.to_string(), TermKind::String)
}
fn id(text: &str) -> (String, TermKind) {
    (text.to_string(), TermKind::Identifier)
}
fn n(text: &str) -> (String, TermKind) {
    (text.to_string(), TermKind::Number)
}

#[test]
fn python_terms_skip_comments_keywords_and_docstrings() {
    let patch = "diff --git a/test/test_x.py b/test/test_x.py\n--- /dev/null\n+++ b/test/test_x.py\n@@ -0,0 +1,9 @@\n+from ansible.modules.network.eric_eccli import eric_eccli_command\n+# a comment with 'quoted words'\n+def test_it(self):\n+    \"\"\"Docstring\n+    continues 'here'\"\"\"\n+    result = self.execute_module(retries=10)\n+    self.assertEqual(result['warnings'], ['only non-config commands are supported'])\n+    x = obj.parse_output(\"it's\", 7)\n+    print(len(x))\n";
    assert_eq!(
        kinds(patch),
        vec![
            id("ansible"),
            id("modules"),
            id("network"),
            id("eric_eccli"),
            id("eric_eccli_command"),
            id("execute_module"),
            n("10"),
            s("warnings"),
            s("only non-config commands are supported"),
            id("parse_output"),
            s("it's"),
        ]
    );
}

/// `(term, role, source)` of every term.
fn roles(terms: &[Term]) -> Vec<(&str, TermRole, TermSource)> {
    terms
        .iter()
        .map(|t| (t.term.as_str(), t.role, t.source))
        .collect()
}

use TermRole::{Asserted, FixturePath, Import, Other, TestName};
use TermSource::{DataValue, GoldDefined, Literal, PatternRun};

fn patch(file: &str, hunk: &str, lines: &[&str]) -> String {
    let mut text = format!("diff --git a/{file} b/{file}\n--- a/{file}\n+++ b/{file}\n{hunk}\n");
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[test]
fn python_roles() {
    let terms = terms(
        "diff --git a/test/test_x.py b/test/test_x.py\n--- /dev/null\n+++ b/test/test_x.py\n@@ -0,0 +1,5 @@\n+from ansible.modules import eric_eccli\n+def test_it(self):\n+    self.assertEqual(result['warnings'], ['only non-config commands are supported'])\n+    x = obj.parse_output(\"it's\")\n+    assert x == 'parsed ok'\n",
    );
    assert_eq!(
        roles(&terms),
        vec![
            ("ansible", Import, Literal),
            ("modules", Import, Literal),
            ("eric_eccli", Import, Literal),
            ("warnings", Asserted, Literal),
            ("only non-config commands are supported", Asserted, Literal),
            ("parse_output", Other, Literal),
            ("it's", Other, Literal),
            ("parsed ok", Asserted, Literal),
        ]
    );
}

#[test]
fn go_and_typescript_terms() {
    let go = "diff --git a/pkg/a_test.go b/pkg/a_test.go\n--- a/pkg/a_test.go\n+++ b/pkg/a_test.go\n@@ -1,0 +1,5 @@\n+func TestCSRF(t *testing.T) {\n+\tgot := config.Default().Authentication.Session.CSRF\n+\trequire.Equal(t, \"csrf-key\", got) // trailing \"comment\"\n+\tr := 'x'\n+}\n";
    assert_eq!(
        kinds(go),
        vec![
            id("Default"),
            id("Authentication"),
            id("Session"),
            id("CSRF"),
            s("csrf-key"),
        ]
    );
    assert_eq!(terms(go)[4].role, Asserted);
    let ts = "diff --git a/src/a.test.ts b/src/a.test.ts\n--- a/src/a.test.ts\n+++ b/src/a.test.ts\n@@ -1,0 +1,3 @@\n+import { renderRoom, RoomView } from '../src/RoomView';\n+expect(screen.getByText(`Invite to ${room}`)).toBeInTheDocument();\n+/* block 'comment' */ const n = 0x1F;\n";
    assert_eq!(
        roles(&terms(ts)),
        vec![
            ("renderRoom", Import, Literal),
            ("RoomView", Import, Literal),
            ("../src/RoomView", Import, Literal),
            ("getByText", Asserted, Literal),
            ("Invite to ${room}", Asserted, Literal),
            ("0x1F", Other, Literal),
        ]
    );
}

#[test]
fn rust_and_c_terms() {
    let rust = "diff --git a/tests/a.rs b/tests/a.rs\n--- a/tests/a.rs\n+++ b/tests/a.rs\n@@ -1,0 +1,2 @@\n+use crate::evidence::extract_terms;\n+let v: &'static str = format_error!(\"bad thing\", 'c');\n";
    assert_eq!(
        roles(&terms(rust)),
        vec![
            ("evidence", Import, Literal),
            ("extract_terms", Import, Literal),
            ("format_error", Other, Literal),
            ("bad thing", Other, Literal),
        ]
    );
    let c = "diff --git a/t/x_test.c b/t/x_test.c\n--- a/t/x_test.c\n+++ b/t/x_test.c\n@@ -1,0 +1,2 @@\n+#include \"buffer.h\"\n+ptr->grow_buffer(buf, 4096); /* multi\n";
    assert_eq!(kinds(c), vec![s("buffer.h"), id("grow_buffer"), n("4096")]);
    assert_eq!(terms(c)[0].role, Import);
}

#[test]
fn data_lines_and_repeats() {
    let patch = "diff --git a/t/fixtures/out.txt b/t/fixtures/out.txt\n--- /dev/null\n+++ b/t/fixtures/out.txt\n@@ -0,0 +1 @@\n+call_me(\"ignored\")\ndiff --git a/t/test_a.py b/t/test_a.py\n--- a/t/test_a.py\n+++ b/t/test_a.py\n@@ -1,0 +1,2 @@\n+run_task('deploy now')\n+run_task('deploy now')\n";
    let terms = terms(patch);
    assert_eq!(
        roles(&terms),
        vec![
            ("call_me(\"ignored\")", Other, DataValue),
            ("run_task", Other, Literal),
            ("deploy now", Other, Literal),
        ],
        "a data file's line is one term, not its words"
    );
    assert_eq!(terms[1].occurrences, 2);
    assert_eq!(terms[2].origin.file, "t/test_a.py");
    assert_eq!(terms[2].origin.patch_line, 10);
    assert_eq!(terms[2].origin.file_line, 1);
}

/// flipt-io_866ba43d: a table test of positional struct literals whose first field is `name`
/// and whose `namespaces` field the test compares.
#[test]
fn go_positional_table_cases() {
    let patch = patch(
        "internal/server/authz/engine/bundle/engine_test.go",
        "@@ -1,0 +1,17 @@",
        &[
            "+func TestViewableNamespaces(t *testing.T) {",
            "+\ttt := []struct {",
            "+\t\tname       string",
            "+\t\troles      []string",
            "+\t\tnamespaces []string",
            "+\t}{",
            "+\t\t{\"empty\", []string{}, []string{}},",
            "+\t\t{\"devsops\", []string{\"devs\", \"ops\"}, []string{\"local\", \"production\"}},",
            "+\t}",
            "+\tfor _, tt := range tt {",
            "+\t\tt.Run(tt.name, func(t *testing.T) {",
            "+\t\t\tnamespaces, err := engine.Namespaces(ctx, map[string]any{\"roles\": tt.roles})",
            "+\t\t\trequire.NoError(t, err)",
            "+\t\t\trequire.Equal(t, tt.namespaces, namespaces)",
            "+\t\t})",
            "+\t}",
            "+}",
        ],
    );
    assert_eq!(
        roles(&terms(&patch)),
        vec![
            ("empty", TestName, Literal),
            ("devsops", TestName, Literal),
            ("devs", Other, Literal),
            ("ops", Other, Literal),
            ("local", Asserted, Literal),
            ("production", Asserted, Literal),
            ("name", TestName, Literal),
            ("Namespaces", Other, Literal),
            ("roles", Other, Literal),
            ("namespaces", Asserted, Literal),
        ]
    );
}
