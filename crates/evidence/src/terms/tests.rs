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
fn what_the_code_under_test_is_given_is_an_input_even_inside_an_assertion() {
    let terms = terms(
        "diff --git a/test/test_y.py b/test/test_y.py\n--- /dev/null\n+++ b/test/test_y.py\n@@ -0,0 +1,5 @@\n+def test_it(self):\n+    self.assertEqual(render_size('10mb'), '10 MiB')\n+    view = make_view(text='Window title')\n+    assert view.title() == 'Window title'\n+    mock_run.assert_called_once_with('systemctl', dict(unit='nginx.service'))\n",
    );
    let found: Vec<(&str, TermRole, bool)> = terms
        .iter()
        .filter(|t| t.kind != TermKind::Identifier)
        .map(|t| (t.term.as_str(), t.role, t.fed))
        .collect();
    assert_eq!(
        found,
        vec![
            ("10mb", Other, true),
            ("10 MiB", Asserted, false),
            ("Window title", Asserted, true),
            ("systemctl", Asserted, false),
            ("nginx.service", Asserted, false),
        ],
        "inputs to the code are setup values; a value the test hands over and checks is fed"
    );
}

/// The roles of the strings and numbers among `terms`.
fn value_roles(terms: &[Term]) -> Vec<(&str, TermRole)> {
    terms
        .iter()
        .filter(|t| t.kind != TermKind::Identifier)
        .map(|t| (t.term.as_str(), t.role))
        .collect()
}

#[test]
fn what_a_predicate_is_given_inside_an_assertion_is_expected() {
    let python = terms(
        "diff --git a/test/test_y.py b/test/test_y.py\n--- /dev/null\n+++ b/test/test_y.py\n@@ -0,0 +1,4 @@\n+def test_it(capsys):\n+    run_job('job-7', name='nightly build')\n+    assert capsys.readouterr().err.startswith('warning: slow')\n+    assert load('cfg.ini').endswith('[main]')\n",
    );
    let javascript = terms(
        "diff --git a/test/y.test.js b/test/y.test.js\n--- /dev/null\n+++ b/test/y.test.js\n@@ -0,0 +1,3 @@\n+it('runs', () => {\n+  assert.ok(render('page-1').includes('rendered in full'));\n+});\n",
    );
    let mut found = value_roles(&python);
    found.extend(value_roles(&javascript));
    assert_eq!(
        found,
        vec![
            ("job-7", Other),
            ("nightly build", Other),
            ("warning: slow", Asserted),
            ("cfg.ini", FixturePath),
            ("[main]", Asserted),
            ("runs", TestName),
            ("page-1", Other),
            ("rendered in full", Asserted),
        ]
    );
}

#[test]
fn a_python_literal_set_to_a_variable_an_assertion_checks_is_asserted() {
    let terms = terms(
        "diff --git a/tests/test_v.py b/tests/test_v.py\n--- /dev/null\n+++ b/tests/test_v.py\n@@ -0,0 +1,9 @@\n+class T:\n+    def test_it(self):\n+        msg = \"Field 'id' expected a number but got 'abc'.\"\n+        with self.assertRaisesMessage(ValueError, msg):\n+            Model.objects.get(id='abc')\n+        response = self.client.get('/admin/login/')\n+        self.assertContains(response, 'Log in to continue')\n+        warning = 'deprecated: use --new'\n+        assert warning in run_cli('--old')\n",
    );
    let found = value_roles(&terms);
    assert_eq!(
        found,
        vec![
            ("Field 'id' expected a number but got 'abc'.", Asserted),
            ("/admin/login/", Other),
            ("Log in to continue", Asserted),
            ("deprecated: use --new", Asserted),
            ("--old", Other),
        ],
        "the value under test is computed from inputs; only a literal set to the variable is checked"
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
            "+\t\t{\"devsops\", []string{\"devs\", \"ops\"}, /* seen */ []string{\"local\", \"production\"}},",
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

/// flipt-io_9c3cab43: a keyed table case added to a table declared in the base file; the
/// whole file is parsed, so the case's fields are read in their composite literal.
#[test]
fn go_keyed_table_case_over_the_base_file() {
    let base = "package config\n\nfunc TestLoad(t *testing.T) {\n\ttests := []struct {\n\t\tname     string\n\t\tpath     string\n\t\twantErr  error\n\t\texpected func() *Config\n\t}{\n\t\t{\n\t\t\tname: \"defaults\",\n\t\t\tpath: \"./testdata/default.yml\",\n\t\t},\n\t}\n\tfor _, tt := range tests {\n\t\tt.Run(tt.name, func(t *testing.T) {\n\t\t\tcfg, err := Load(tt.path)\n\t\t\tassert.Equal(t, tt.expected(), cfg)\n\t\t})\n\t}\n}\n";
    let patch = patch(
        "internal/config/config_test.go",
        "@@ -13,4 +13,15 @@ func TestLoad(t *testing.T) {",
        &[
            " \t\t},",
            "+\t\t{",
            "+\t\t\tname: \"authentication token with provided bootstrap token\",",
            "+\t\t\tpath: \"./testdata/authentication/token_bootstrap_token.yml\",",
            "+\t\t\texpected: func() *Config {",
            "+\t\t\t\tcfg := defaultConfig()",
            "+\t\t\t\tcfg.Bootstrap = AuthenticationMethodTokenBootstrapConfig{",
            "+\t\t\t\t\tToken: \"s3cr3t!\",",
            "+\t\t\t\t}",
            "+\t\t\t\treturn cfg",
            "+\t\t\t},",
            "+\t\t},",
            " \t}",
            " \tfor _, tt := range tests {",
            " \t\tt.Run(tt.name, func(t *testing.T) {",
        ],
    );
    let base_file =
        |path: &str| (path == "internal/config/config_test.go").then(|| base.to_string());
    let terms = extract_terms(&patch, "", "", &base_file);
    assert_eq!(
        roles(&terms),
        vec![
            (
                "authentication token with provided bootstrap token",
                TestName,
                Literal
            ),
            (
                "./testdata/authentication/token_bootstrap_token.yml",
                FixturePath,
                Literal
            ),
            ("defaultConfig", Asserted, Literal),
            ("Bootstrap", Asserted, Literal),
            ("s3cr3t!", Asserted, Literal),
        ]
    );
    let secret = &terms[4];
    assert_eq!(
        (secret.origin.patch_line, secret.origin.file_line),
        (12, 20),
        "origins stay those of the patch's added lines"
    );
}

/// A keyed case whose hunk shows neither the table's type nor its function: the field names on
/// the lines still tell the roles, and `wantErr` is asserted.
#[test]
fn go_keyed_fields_without_the_base_file() {
    let patch = patch(
        "internal/config/config_test.go",
        "@@ -770,0 +771,5 @@ func TestLoad(t *testing.T) {",
        &[
            "+\t\t{",
            "+\t\t\tname:    \"OCI invalid unexpected scheme\",",
            "+\t\t\tpath:    \"./testdata/storage/oci_invalid_unexpected_scheme.yml\",",
            "+\t\t\twantErr: errors.New(\"validating OCI configuration: unexpected repository scheme\"),",
            "+\t\t},",
        ],
    );
    assert_eq!(
        roles(&terms(&patch)),
        vec![
            ("OCI invalid unexpected scheme", TestName, Literal),
            (
                "./testdata/storage/oci_invalid_unexpected_scheme.yml",
                FixturePath,
                Literal
            ),
            ("New", Asserted, Literal),
            (
                "validating OCI configuration: unexpected repository scheme",
                Asserted,
                Literal
            ),
        ]
    );
}

/// flipt-io_f3421c14: import specs shown without their `import (`, an `if ... { t.Errorf }`
/// check, and a name the gold patch defines that the prose never mentions.
#[test]
fn go_imports_checks_and_gold_defined_names() {
    let test = patch(
        "internal/server/middleware/grpc/middleware_test.go",
        "@@ -5,0 +6,12 @@",
        &[
            "+\t\"github.com/blang/semver/v4\"",
            "+\tsemverlib \"google.golang.org/grpc/metadata\"",
            "+func TestAccept(t *testing.T) {",
            "+\tv := FliptAcceptServerVersionFromContext(ctx)",
            "+\tassert.Equal(t, preFliptAcceptServerVersion, v)",
            "+\tif got := v.String(); got != \"1.18.0\" {",
            "+\t\tt.Errorf(\"unexpected version %s\", got)",
            "+\t}",
            "+\tif md != nil {",
            "+\t\tctx = metadata.NewIncomingContext(ctx, \"setup only\")",
            "+\t}",
            "+}",
        ],
    );
    let gold = patch(
        "internal/server/middleware/grpc/middleware.go",
        "@@ -10,0 +11,7 @@",
        &[
            "+var preFliptAcceptServerVersion = semver.MustParse(\"1.18.0\")",
            "+",
            "+type acceptState struct {",
            "+\tmetadata string",
            "+}",
            "+",
            "+func FliptAcceptServerVersionFromContext(ctx context.Context) semver.Version {",
        ],
    );
    let prose = "Add FliptAcceptServerVersionFromContext, returning the accepted version.";
    let terms = extract_terms(&test, &gold, prose, &no_base);
    assert_eq!(
        roles(&terms),
        vec![
            ("github.com/blang/semver/v4", Import, Literal),
            ("google.golang.org/grpc/metadata", Import, Literal),
            ("FliptAcceptServerVersionFromContext", Other, Literal),
            ("String", Other, Literal),
            ("1.18.0", Asserted, Literal),
            ("unexpected version %s", Other, Literal),
            ("NewIncomingContext", Other, Literal),
            ("setup only", Other, Literal),
            ("preFliptAcceptServerVersion", Asserted, GoldDefined),
        ],
        "a gold struct field used as a bare name and a name the prose gives are not gold-defined"
    );
    let gold_defined = &terms[8];
    assert_eq!(gold_defined.kind, TermKind::Identifier);
    assert_eq!(gold_defined.origin.file_line, 10);
    let prose = format!("{prose} Keep preFliptAcceptServerVersion.");
    let named = extract_terms(&test, &gold, &prose, &no_base);
    assert!(named.iter().all(|t| t.source != GoldDefined));
}

/// flipt-io_1bd9924b: a shell matcher's regular expression gives its literal runs.
#[test]
fn shell_matchers_give_literal_runs() {
    let patch = patch(
        "test/api.sh",
        "@@ -376,2 +376,6 @@ step_10_test_auths()",
        &[
            "         authedShakedown PUT \"/auth/v1/self/expire\"",
            "+        header_matches \"Set-Cookie\" \"flipt_client_token=.*Max-Age=0\"",
            "+        # expired cookies are cleared via 'Set-Cookie'",
            "+        shakedownJSON GET '/auth/v1/self' -H \"Cookie: token=${FLIPT_TOKEN}\"",
            "+        status 401",
            "+        [[ \"$body\" == *\"token expired\"* ]]",
            "         status 200",
        ],
    );
    assert_eq!(
        roles(&terms(&patch)),
        vec![
            ("Set-Cookie", Asserted, Literal),
            ("flipt_client_token=.*Max-Age=0", Asserted, Literal),
            ("flipt_client_token=", Asserted, PatternRun),
            ("Max-Age=0", Asserted, PatternRun),
            ("/auth/v1/self", Other, Literal),
            ("Cookie: token=${FLIPT_TOKEN}", Other, Literal),
            ("401", Other, Literal),
            ("token expired", Asserted, Literal),
        ]
    );
}

/// flipt-io_b22f5f02: a workflow's list of suites; a YAML fixture the test loads; JSON
/// test data; keys are never terms.
#[test]
fn a_data_file_an_extensionless_test_script_names_is_read() {
    let mut text = patch(
        "test/fixtures/flags.json",
        "@@ -0,0 +1,3 @@",
        &["+{", "+  \"namespace\": \"production\"", "+}"],
    );
    text.push_str(&patch(
        "test/check_flags",
        "@@ -0,0 +1,2 @@",
        &["+#!/bin/sh", "+verity-flags --load fixtures/flags.json"],
    ));
    let Some(production) = terms(&text).into_iter().find(|t| t.term == "production") else {
        panic!("the data file's value is a term");
    };
    assert_eq!(
        (production.role, production.source),
        (Asserted, DataValue),
        "the shell script reads the file, so its values are what the test checks"
    );
}

#[test]
fn yaml_and_json_values() {
    let mut text = patch(
        ".github/workflows/integration-test.yml",
        "@@ -50,1 +50,2 @@",
        &[
            "       test:",
            "+          [\"api\", \"api/cache\", \"fs/git\", \"fs/oci\"]",
        ],
    );
    text.push_str(&patch(
        "internal/config/testdata/storage/oci_provided.yml",
        "@@ -0,0 +1,5 @@",
        &[
            "+storage:",
            "+  type: oci",
            "+  oci:",
            "+    repository: some.target/repository/abundle:latest # the bundle",
            "+    poll_interval: 5m",
        ],
    ));
    text.push_str(&patch(
        "internal/config/testdata/flags.json",
        "@@ -0,0 +1,4 @@",
        &[
            "+{",
            "+  \"namespace\": \"production\",",
            "+  \"segments\": [\"beta-users\", \"internal-staff\"]",
            "+}",
        ],
    ));
    text.push_str(&patch(
        "internal/config/config_test.go",
        "@@ -1,0 +1,3 @@",
        &[
            "+func TestOCI(t *testing.T) {",
            "+\tcfg, err := Load(\"./testdata/storage/oci_provided.yml\")",
            "+}",
        ],
    ));
    assert_eq!(
        roles(&terms(&text)),
        vec![
            ("api", Other, DataValue),
            ("api/cache", Other, DataValue),
            ("fs/git", Other, DataValue),
            ("fs/oci", Other, DataValue),
            ("oci", Asserted, DataValue),
            ("some.target/repository/abundle:latest", Asserted, DataValue),
            ("production", Other, DataValue),
            ("beta-users", Other, DataValue),
            ("internal-staff", Other, DataValue),
            ("Load", Other, Literal),
            ("./testdata/storage/oci_provided.yml", FixturePath, Literal),
        ]
    );
}

#[test]
fn golden_lines_are_asserted() {
    let text = patch(
        "cmd/testdata/export.golden",
        "@@ -1,2 +1,4 @@",
        &[
            " version: \"1.2\"",
            "+namespace: default",
            "+  - key: flag_boolean",
            "+ok",
            " flags:",
        ],
    );
    assert_eq!(
        roles(&terms(&text)),
        vec![
            ("namespace: default", Asserted, DataValue),
            ("- key: flag_boolean", Asserted, DataValue),
        ],
        "whole trimmed lines of 3 characters or more"
    );
}

#[test]
fn python_names_patterns_and_fixtures() {
    let text = patch(
        "tests/test_parse.py",
        "@@ -0,0 +1,12 @@",
        &[
            "+@pytest.mark.parametrize('raw,expected', [('a-1', 'A 1'), ('b-2', 'B 2')], ids=['dash case', 'second case'])",
            "+def test_parse(raw):",
            "+    with open('tests/fixtures/input.json') as handle:",
            "+        data = json.load(handle)",
            "+    with pytest.raises(ValueError, match=r'invalid token \\d+ at line'):",
            "+        parse_token(raw)",
            "+    pattern = re.compile(r'^release-(\\d+)\\.x$')",
            "+    expected = {'status': 'merged'}",
            "+    for case in data:",
            "+        with self.subTest('each case'):",
            "+            self.assertIn(case['kind'], ('leaf', 'branch'))",
            "+    assert build(data) == expected",
        ],
    );
    assert_eq!(
        roles(&terms(&text)),
        vec![
            ("raw,expected", Other, Literal),
            ("a-1", Other, Literal),
            ("A 1", Asserted, Literal),
            ("b-2", Other, Literal),
            ("B 2", Asserted, Literal),
            ("dash case", TestName, Literal),
            ("second case", TestName, Literal),
            ("tests/fixtures/input.json", FixturePath, Literal),
            ("load", Other, Literal),
            ("invalid token \\d+ at line", Asserted, Literal),
            ("invalid token ", Asserted, PatternRun),
            (" at line", Asserted, PatternRun),
            ("parse_token", Other, Literal),
            ("compile", Other, Literal),
            ("^release-(\\d+)\\.x$", Other, Literal),
            ("release-", Other, PatternRun),
            ("status", Asserted, Literal),
            ("merged", Asserted, Literal),
            ("subTest", Other, Literal),
            ("each case", TestName, Literal),
            ("kind", Asserted, Literal),
            ("leaf", Asserted, Literal),
            ("branch", Asserted, Literal),
            ("build", Asserted, Literal),
        ]
    );
}

#[test]
fn javascript_and_tsx_roles() {
    let js = patch(
        "test/user.test.js",
        "@@ -0,0 +1,9 @@",
        &[
            "+const request = require('supertest');",
            "+describe('user routes', () => {",
            "+  it('rejects a bad slug', async () => {",
            "+    const body = fs.readFileSync(path.join(__dirname, 'fixtures/user.json'));",
            "+    const res = await request(app).get('/api/user/bad slug');",
            "+    expect(res.body.message).toMatch(/invalid-slug: \\w+ not allowed/);",
            "+    assert.strictEqual(res.status, 404);",
            "+  });",
            "+});",
        ],
    );
    assert_eq!(
        roles(&terms(&js)),
        vec![
            ("supertest", Import, Literal),
            ("user routes", TestName, Literal),
            ("rejects a bad slug", TestName, Literal),
            ("readFileSync", Other, Literal),
            ("fixtures/user.json", FixturePath, Literal),
            ("request", Other, Literal),
            ("get", Other, Literal),
            ("/api/user/bad slug", Other, Literal),
            ("body", Asserted, Literal),
            ("message", Asserted, Literal),
            ("invalid-slug: \\w+ not allowed", Asserted, Literal),
            ("invalid-slug: ", Asserted, PatternRun),
            (" not allowed", Asserted, PatternRun),
            ("strictEqual", Other, Literal),
            ("status", Asserted, Literal),
            ("404", Asserted, Literal),
        ]
    );
    let tsx = patch(
        "src/components/Room.test.tsx",
        "@@ -0,0 +1,4 @@",
        &[
            "+test('shows the topic', () => {",
            "+  render(<RoomHeader topic=\"weekly sync\" />);",
            "+  expect(screen.getByRole('heading')).toHaveTextContent('Weekly sync');",
            "+});",
        ],
    );
    assert_eq!(
        roles(&terms(&tsx)),
        vec![
            ("shows the topic", TestName, Literal),
            ("render", Other, Literal),
            ("weekly sync", Other, Literal),
            ("getByRole", Asserted, Literal),
            ("heading", Asserted, Literal),
            ("Weekly sync", Asserted, Literal),
        ]
    );
}

/// future-architect: a table keyed by case name whose expected values are package variables.
#[test]
fn go_expected_values_declared_apart() {
    let text = patch(
        "contrib/trivy/parser/parser_test.go",
        "@@ -0,0 +1,14 @@",
        &[
            "+package parser",
            "+func TestParse(t *testing.T) {",
            "+\tcases := map[string]struct {",
            "+\t\tvulnJSON []byte",
            "+\t\texpected *models.ScanResult",
            "+\t}{",
            "+\t\t\"jar\": {vulnJSON: jarJSON, expected: jarScanResult},",
            "+\t}",
            "+\t_ = cases",
            "+}",
            "+var jarJSON = []byte(`{\"Target\": \"pom.xml\"}`)",
            "+var jarScanResult = &models.ScanResult{",
            "+\tLibraries: []models.Library{{Name: \"log4j-core\", Version: \"2.14.1\"}},",
            "+}",
        ],
    );
    assert_eq!(
        roles(&terms(&text)),
        vec![
            ("ScanResult", Asserted, Literal),
            ("jar", TestName, Literal),
            ("{\"Target\": \"pom.xml\"}", Other, Literal),
            ("Library", Asserted, Literal),
            ("log4j-core", Asserted, Literal),
            ("2.14.1", Asserted, Literal),
        ]
    );
}

/// NodeBB: a variable named `result` holds what the code returns, so the call's inputs stay
/// setup; what the assertion compares it with is asserted.
#[test]
fn javascript_result_variables_are_not_expected_values() {
    let text = patch(
        "test/posts.js",
        "@@ -1,0 +1,6 @@",
        &[
            "+it('should not queue', async () => {",
            "+  const result = await socketTopics.post({ uid: uid }, { topic: 'topic content' });",
            "+  const expected = { state: 'published' };",
            "+  assert.strictEqual(result.title, 'should not be queued');",
            "+  assert.deepStrictEqual(result.meta, expected);",
            "+});",
        ],
    );
    assert_eq!(
        roles(&terms(&text)),
        vec![
            ("should not queue", TestName, Literal),
            ("post", Other, Literal),
            ("topic content", Other, Literal),
            ("published", Asserted, Literal),
            ("strictEqual", Other, Literal),
            ("title", Asserted, Literal),
            ("should not be queued", Asserted, Literal),
            ("deepStrictEqual", Other, Literal),
            ("meta", Asserted, Literal),
        ]
    );
}

/// NodeBB: a module bound by `require` in the gold patch is not a name the solver must guess;
/// a function it defines and exports is.
#[test]
fn javascript_gold_definitions_skip_module_bindings() {
    let test = patch(
        "test/meta.js",
        "@@ -1,0 +1,3 @@",
        &[
            "+const nconf = require('nconf');",
            "+const value = await meta.configs.getFields(nconf.get('port'));",
            "+assert.deepStrictEqual(Config.parseFlag(value), ['on']);",
        ],
    );
    let gold = patch(
        "src/meta/configs.js",
        "@@ -1,0 +1,4 @@",
        &[
            "+const nconf = require('nconf');",
            "+Configs.getFields = async function (fields) {};",
            "+function parseFlag(value) { return [value]; }",
            "+module.exports = { parseFlag };",
        ],
    );
    let terms = extract_terms(&test, &gold, "", &no_base);
    let gold_defined: Vec<&str> = terms
        .iter()
        .filter(|t| t.source == GoldDefined)
        .map(|t| t.term.as_str())
        .collect();
    assert_eq!(gold_defined, ["parseFlag"]);
}

#[test]
fn base_files_are_read_only_for_code_with_added_lines() {
    let mut text = patch(
        "pkg/old_test.go",
        "@@ -3,2 +3,1 @@",
        &[" func TestOld(t *testing.T) {", "-\tt.Skip(\"gone\")"],
    );
    text.push_str(&patch(
        "pkg/new_test.go",
        "@@ -1,1 +1,2 @@",
        &[" package pkg", "+var fixture = \"./testdata/new.json\""],
    ));
    text.push_str(&patch(
        "pkg/testdata/new.json",
        "@@ -0,0 +1 @@",
        &["+[\"alpha\", \"beta\"]"],
    ));
    let asked = std::cell::RefCell::new(Vec::new());
    let base_file = |path: &str| {
        asked.borrow_mut().push(path.to_string());
        Some("package pkg\n".to_string())
    };
    let terms = extract_terms(&text, "", "", &base_file);
    assert_eq!(*asked.borrow(), ["pkg/new_test.go"]);
    assert_eq!(
        roles(&terms),
        vec![
            ("./testdata/new.json", FixturePath, Literal),
            ("alpha", Asserted, DataValue),
            ("beta", Asserted, DataValue),
        ]
    );
}

/// flipt-io_d26eba77: a hunk that starts inside a table case; the expected config's fields
/// are asserted though the hunk alone does not parse as the table.
#[test]
fn go_expected_struct_in_a_hunk_parsed_alone() {
    let text = patch(
        "config/config_test.go",
        "@@ -59,3 +59,14 @@ func TestLoad(t *testing.T) {",
        &[
            " \t\t\texpected: Default(),",
            " \t\t},",
            " \t\t{",
            "+\t\t\tname: \"database key/value\",",
            "+\t\t\texpected: &Config{",
            "+\t\t\t\tDatabase: DatabaseConfig{",
            "+\t\t\t\t\tHost:     \"localhost\",",
            "+\t\t\t\t\tPassword: \"s3cr3t!\",",
            "+\t\t\t\t},",
            "+\t\t\t},",
            "+\t\t},",
            "+\t\t{",
            "+\t\t\tsetup: []string{\"plain setup value\"},",
            "+\t\t},",
        ],
    );
    assert_eq!(
        roles(&terms(&text)),
        vec![
            ("database key/value", TestName, Literal),
            ("localhost", Asserted, Literal),
            ("s3cr3t!", Asserted, Literal),
            ("plain setup value", Other, Literal),
        ]
    );
}
