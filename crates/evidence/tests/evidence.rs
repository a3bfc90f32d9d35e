//! Integration tests of `verity_evidence` against real git repositories built in
//! temporary folders and against `git grep` itself.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use verity_evidence::{
    CaseContext, ChangeOp, Engine, EvidenceError, EvidenceRequest, GrepQuery, HitGrade, Snippet,
    TermClass, TermKind, TermRole, extract_terms, has_commit, held_commits,
    parse_codebase_ambiguity,
};

use verity_testkit::{self, commit_all, git, write_file as write};

const SHOW_WARNING: &str = "'Only show commands are supported when using check mode, not '";

/// A repository shaped like a SWE-bench task's: live modules with a shared warning, tests in
/// nested folders, a vendor folder, docs, binaries, a symlink, odd encodings, three commits.
/// Returns (temp dir, base commit, later commit).
fn build_repo() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main", "."]);
    for module in ["ios", "eos", "nxos"] {
        write(
            root,
            &format!("lib/net/{module}/{module}_command.py"),
            format!(
                "def main():\n    retries = dict(default=10, type='int')\n    if module.check_mode:\n        warnings.append(\n            {SHOW_WARNING}\n            'executing `%s`' % item['command'])\n    conn = get_connection(module)\n"
            )
            .as_bytes(),
        );
    }
    write(
        root,
        "lib/net/util.py",
        b"def get_connection(module):\n\tif hasattr(module, '_conn'):\n\t\treturn module._conn\n\treturn Connection(module._socket_path)\n",
    );
    write(
        root,
        "README.md",
        b"Call get_connection() to talk to a device.\n",
    );
    write(root, "first.txt", b"placeholder\n");
    let first = commit_all(root, "first");

    write(
        root,
        "test/units/net/test_util.py",
        b"from lib.net.util import get_connection\nHELPER = 'fixture_only_value'\n",
    );
    write(
        root,
        "lib/net/tests/nested/deep/conftest.py",
        b"value = 'fixture_only_value'\nwarn('Only show commands are supported when using check mode, not ')\n",
    );
    write(
        root,
        "vendor/six/six.py",
        b"def get_connection(): pass\nSIXTY = 60\n",
    );
    write(root, "docs/guide.rst", b"Use get_connection.\n");
    write(
        root,
        "lib/net/locale/fr/LC_MESSAGES/net.po",
        b"msgid \"Only show commands are supported when using check mode, not \"\nmsgstr \"Seules les commandes show sont prises en charge en mode check\"\n",
    );
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0".to_vec();
    png.extend_from_slice(b"get_connection fixture_only_value");
    write(root, "assets/logo.png", &png);
    // A NUL after the first 8,000 bytes: git still calls this text.
    let mut late_nul = vec![b'a'; 8100];
    late_nul.extend_from_slice(b"\n\0get_connection\n");
    write(root, "lib/net/late_nul.dat", &late_nul);
    write(
        root,
        "lib/net/latin1.py",
        b"# caf\xe9\nx = get_connection\r\n",
    );
    write(root, "scripts/run.sh", b"#!/bin/sh\necho get_connection\n");
    let mut perms = std::fs::metadata(root.join("scripts/run.sh"))
        .unwrap()
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(root.join("scripts/run.sh"), perms).unwrap();
    std::os::unix::fs::symlink("lib/net/util.py", root.join("util_link")).unwrap();
    std::os::unix::fs::symlink("get_connection", root.join("named_link")).unwrap();
    std::fs::remove_file(root.join("first.txt")).unwrap();
    let base = commit_all(root, "second");
    assert_ne!(first, base);

    write(
        root,
        "lib/net/util.py",
        b"def get_connection(module):\n    return None\ndef later_only():\n    pass\n",
    );
    let later = commit_all(root, "third");
    // An uncommitted change: evidence must come from the commit, not the working tree.
    write(
        root,
        "lib/net/dirty.py",
        b"def later_only(): get_connection()\n",
    );
    (dir, base, later)
}

fn test_patch() -> String {
    "diff --git a/test/units/net/test_eccli.py b/test/units/net/test_eccli.py
new file mode 100644
--- /dev/null
+++ b/test/units/net/test_eccli.py
@@ -0,0 +1,9 @@
+from lib.net.eccli import eccli_command
+from lib.net.util import get_connection
+
+def test_check_mode(self):
+    result = self.execute_module(retries=10)
+    self.assertEqual(result['warnings'],
+        ['only non-config commands are supported when using check mode, not executing configure terminal'])
+    self.assertEqual(HELPER, 'fixture_only_value')
+    conn = eccli_command.connection_for('brand new thing')
"
    .to_string()
}

fn gold_patch() -> String {
    "diff --git a/lib/net/eccli.py b/lib/net/eccli.py
new file mode 100644
--- /dev/null
+++ b/lib/net/eccli.py
@@ -0,0 +1,3 @@
+def connection_for(name):
+    return 'only non-config commands are supported when using check mode, not '
+eccli_command = None
"
    .to_string()
}

fn request(base: &str) -> EvidenceRequest {
    EvidenceRequest {
        base_commit: base.to_string(),
        prose: "The eccli module must retry and warn in check mode. Use get_connection.".into(),
        gold_patch: gold_patch(),
        test_patch: test_patch(),
        precedents: vec![],
    }
}

fn context() -> CaseContext {
    CaseContext::new("demo_0001", "demo/net")
}

/// `git grep -F -l [-I] -e TERM COMMIT` as a set of paths.
fn git_grep_paths(root: &Path, term: &str, commit: &str, skip_binary: bool) -> BTreeSet<String> {
    let mut args = vec!["grep", "-F", "-l"];
    if skip_binary {
        args.push("-I");
    }
    args.extend(["-e", term, commit]);
    git(root, &args)
        .lines()
        .map(|l| l.strip_prefix(&format!("{commit}:")).unwrap().to_string())
        .collect()
}

#[test]
fn paths_for_every_term_equal_git_grep_at_the_base_commit() {
    let (dir, base, _) = build_repo();
    let engine = Engine::builder().threads(2).build();
    let report = engine
        .compute_evidence(dir.path(), &context(), &request(&base))
        .unwrap();
    assert!(report.terms.len() >= 8, "terms: {:?}", report.terms);
    let binaries: BTreeSet<String> = report.binary_paths.iter().cloned().collect();
    assert_eq!(binaries, BTreeSet::from(["assets/logo.png".to_string()]));
    for term in &report.terms {
        let ours: BTreeSet<String> = term
            .live_paths
            .iter()
            .chain(&term.test_paths)
            .cloned()
            .collect();
        let theirs = git_grep_paths(dir.path(), &term.term, &base, true);
        assert_eq!(
            ours, theirs,
            "paths holding {:?} differ from git grep -F -l -I",
            term.term
        );
        let with_binaries = git_grep_paths(dir.path(), &term.term, &base, false);
        assert!(
            with_binaries
                .difference(&theirs)
                .all(|p| binaries.contains(p)),
            "every file git grep adds without -I is a reported binary"
        );
        // The receipt, run by a shell, prints the same paths.
        let out = Command::new("sh")
            .arg("-c")
            .arg(&term.receipt)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let listed: BTreeSet<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split_once(':').unwrap().1.to_string())
            .collect();
        assert_eq!(
            listed, theirs,
            "the receipt of {:?} reproduces the paths",
            term.term
        );
    }
    let connection = report
        .terms
        .iter()
        .find(|t| t.term == "get_connection")
        .unwrap();
    assert!(
        connection
            .live_paths
            .contains(&"lib/net/late_nul.dat".to_string())
    );
    assert!(
        connection
            .live_paths
            .contains(&"lib/net/latin1.py".to_string())
    );
    assert!(
        connection
            .test_paths
            .contains(&"vendor/six/six.py".to_string())
    );
    assert!(
        connection
            .test_paths
            .contains(&"docs/guide.rst".to_string())
    );
    assert!(
        !connection.live_paths.iter().any(|p| p.contains("link")),
        "symbolic links are not searched"
    );
    assert!(
        !connection
            .live_paths
            .contains(&"lib/net/dirty.py".to_string()),
        "the working tree is never read"
    );
    let hit = connection.hits.first().unwrap();
    assert_eq!(
        hit.path_class,
        verity_evidence::PathClass::Live,
        "live hits come first"
    );
}

#[test]
fn terms_are_classified_by_precedence() {
    let (dir, base, _) = build_repo();
    let engine = Engine::default();
    let report = engine
        .compute_evidence(dir.path(), &context(), &request(&base))
        .unwrap();
    let class = |term: &str| {
        report
            .terms
            .iter()
            .find(|t| t.term == term)
            .unwrap_or_else(|| panic!("term {term} extracted"))
            .class
    };
    assert_eq!(class("get_connection"), TermClass::Stated);
    assert_eq!(class("10"), TermClass::Codebase);
    assert_eq!(class("connection_for"), TermClass::GoldIntroduced);
    assert_eq!(class("eccli_command"), TermClass::GoldIntroduced);
    assert_eq!(class("fixture_only_value"), TermClass::TestOnly);
    assert_eq!(class("brand new thing"), TermClass::TestOnly);
    let ten = report.terms.iter().find(|t| t.term == "10").unwrap();
    assert_eq!(ten.kind, TermKind::Number);
    assert_eq!(ten.count, 3, "three modules declare retries 10");
    assert_eq!(ten.hits.len(), 3);
    assert_eq!(ten.hits[0].line, 2);
    let grade = |term: &str| {
        let t = report.terms.iter().find(|t| t.term == term).unwrap();
        (t.nearest_grade, t.weak)
    };
    assert_eq!(
        grade("get_connection"),
        (Some(HitGrade::Touched), false),
        "the nearest of lib/net/util.py (touched) and scripts/run.sh (far)"
    );
    assert_eq!(grade("fixture_only_value"), (None, false), "no live file");
    assert_eq!(report.summary.terms, report.terms.len());
    assert_eq!(
        report.summary.stated,
        report
            .terms
            .iter()
            .filter(|t| t.class == TermClass::Stated)
            .count()
    );
    let text = verity_evidence::render_text(&report);
    assert!(
        text.contains("candidates,") && text.contains("airtight"),
        "{text}"
    );
    assert!(
        text.contains(&format!("git grep -F -l -I -e get_connection {base}")),
        "{text}"
    );
}

/// A name the tests use bare that only the gold patch defines, and that the prose never gives,
/// is a term of the report even though nothing calls it; the test file is read at the base
/// commit and the added lines parsed in place.
#[test]
fn names_the_gold_patch_defines_are_terms() {
    let (dir, base, _) = build_repo();
    let test_patch = "diff --git a/test/units/net/test_util.py b/test/units/net/test_util.py
--- a/test/units/net/test_util.py
+++ b/test/units/net/test_util.py
@@ -2,0 +3,2 @@ HELPER = 'fixture_only_value'
+def test_default_retries():
+    assert default_retries() == RETRY_LIMIT
"
    .to_string();
    let gold_patch = "diff --git a/lib/net/util.py b/lib/net/util.py
--- a/lib/net/util.py
+++ b/lib/net/util.py
@@ -4,0 +5,3 @@ def get_connection(module):
+RETRY_LIMIT = 10
+def default_retries():
+    return RETRY_LIMIT
"
    .to_string();
    let mut request = EvidenceRequest {
        test_patch,
        gold_patch,
        ..request(&base)
    };
    let terms = |request: &EvidenceRequest| -> Vec<(String, TermClass)> {
        Engine::default()
            .compute_evidence(dir.path(), &context(), request)
            .unwrap()
            .terms
            .into_iter()
            .map(|t| (t.term, t.class))
            .collect()
    };
    assert_eq!(
        terms(&request),
        [
            ("default_retries".to_string(), TermClass::GoldIntroduced),
            ("RETRY_LIMIT".to_string(), TermClass::GoldIntroduced),
        ]
    );
    request.prose.push_str(" Retries stop at RETRY_LIMIT.");
    assert_eq!(
        terms(&request),
        [("default_retries".to_string(), TermClass::GoldIntroduced)],
        "a name the prose gives is not one the solver must guess"
    );
}

#[test]
fn a_fixture_only_the_gold_patch_brings_is_a_candidate_ranked_as_an_input() {
    let (dir, base, _) = build_repo();
    let test_patch = "diff --git a/test/units/net/test_util.py b/test/units/net/test_util.py
--- a/test/units/net/test_util.py
+++ b/test/units/net/test_util.py
@@ -2,0 +3,4 @@ HELPER = 'fixture_only_value'
+def test_limits_from_file():
+    limits = load_limits('fixtures/retry_limits.yml')
+    other = load_limits('fixtures/backoff.yml')
+    assert limits.retries == 'at most ten'
"
    .to_string();
    let gold_patch = "diff --git a/test/units/net/fixtures/retry_limits.yml b/test/units/net/fixtures/retry_limits.yml
new file mode 100644
--- /dev/null
+++ b/test/units/net/fixtures/retry_limits.yml
@@ -0,0 +1 @@
+retries: 10
"
    .to_string();
    let request = EvidenceRequest {
        test_patch,
        gold_patch,
        ..request(&base)
    };
    let report = Engine::default()
        .compute_evidence(dir.path(), &context(), &request)
        .unwrap();
    let term = |text: &str| report.terms.iter().find(|t| t.term == text).unwrap();
    let created = term("fixtures/retry_limits.yml");
    assert_eq!(created.role, TermRole::FixturePath);
    assert!(created.in_gold, "the gold patch creates the file");
    assert_eq!(created.class, TermClass::GoldIntroduced);
    assert!(!term("fixtures/backoff.yml").in_gold);
    let names: Vec<&str> = report.candidates.iter().map(|c| c.term.as_str()).collect();
    assert_eq!(
        names,
        ["at most ten", "fixtures/retry_limits.yml"],
        "the asserted value first; a fixture the gold patch does not bring is no candidate"
    );
    let fixture = &report.candidates[1];
    assert!(!fixture.airtight);
    assert!(
        fixture
            .reason
            .contains("a file path the tests hand to the code"),
        "{}",
        fixture.reason
    );
}

#[test]
fn a_candidate_shows_the_live_convention_it_departs_from() {
    let (dir, base, _) = build_repo();
    let engine = Engine::default();
    let report = engine
        .compute_evidence(dir.path(), &context(), &request(&base))
        .unwrap();
    let asserted = "only non-config commands are supported when using check mode, not executing configure terminal";
    let candidate = report
        .candidates
        .iter()
        .find(|c| c.term == asserted)
        .expect("the asserted warning is a candidate");
    assert!(
        !report.candidates.iter().any(|c| c.term == "warnings"),
        "a string live code has is no candidate"
    );
    let nearest = &candidate.nearest[0];
    assert_eq!(
        nearest.text,
        "Only show commands are supported when using check mode, not "
    );
    assert_eq!(
        nearest.paths, 3,
        "three live modules word it this way; the test folder and the translation catalog do not count"
    );
    assert_eq!(
        (nearest.path.as_str(), nearest.line),
        ("lib/net/eos/eos_command.py", 5)
    );
    assert!(nearest.similarity > 0.5 && nearest.similarity < 1.0);
    assert!(
        nearest
            .diff
            .iter()
            .any(|c| c.op == ChangeOp::Delete && c.text.contains("show"))
    );
    assert!(
        nearest
            .diff
            .iter()
            .any(|c| c.op == ChangeOp::Insert && c.text.contains("non-config"))
    );
    assert!(git_grep_paths(dir.path(), asserted, &base, true).is_empty());
    let names: Vec<&str> = report.candidates.iter().map(|c| c.term.as_str()).collect();
    assert_eq!(
        names,
        [
            "eccli_command",
            "connection_for",
            asserted,
            "fixture_only_value"
        ],
        "the gold patch's names first; the base's fixture value last"
    );
    assert_eq!(
        (
            report.summary.candidates,
            report.summary.airtight_candidates
        ),
        (4, 0)
    );
    assert!(
        report
            .candidates
            .windows(2)
            .all(|w| w[0].strength >= w[1].strength),
        "strongest first"
    );
    assert!(!candidate.airtight, "0.5 is below the airtight strength");
    assert_eq!(candidate.strength, 0.5);
    assert_eq!(
        candidate.reason,
        "an asserted string; only the test patch has it; no live file has it"
    );
}

#[test]
fn precedents_match_across_lines_whatever_the_indentation_in_live_paths_only() {
    let (dir, base, _) = build_repo();
    let engine = Engine::default();
    let snippets = vec![
        Snippet {
            snippet: "def get_connection(module):\n\tif hasattr(module, '_conn'):".into(),
            claimed_path: Some("lib/net/util.py".into()),
            way: Some("cached connection".into()),
        },
        Snippet {
            snippet: "def get_connection(module):\n    if hasattr(module, '_conn'):".into(),
            claimed_path: None,
            way: None,
        },
        Snippet {
            snippet: "value = 'fixture_only_value'".into(),
            claimed_path: None,
            way: None,
        },
    ];
    let checked = engine
        .verify_precedents(dir.path(), &context(), &base, &snippets)
        .unwrap();
    assert!(checked.missing_objects.is_empty());
    let findings = checked.findings;
    assert!(findings[0].found);
    assert_eq!(findings[0].locations[0].path, "lib/net/util.py");
    assert_eq!(findings[0].locations[0].line, 1);
    assert_eq!(
        findings[1].locations, findings[0].locations,
        "spaces where the file has tabs match"
    );
    assert!(!findings[2].found, "a test path is no precedent");
    assert_eq!(
        findings[2].non_live_paths,
        vec!["lib/net/tests/nested/deep/conftest.py"]
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&findings[0].receipt)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        String::from_utf8(out.stdout).unwrap() == "lib/net/util.py:1\n",
        "the receipt finds the whole snippet: {}",
        findings[0].receipt
    );
    let mut with_precedents = request(&base);
    with_precedents.precedents = snippets;
    let report = engine
        .compute_evidence(dir.path(), &context(), &with_precedents)
        .unwrap();
    assert_eq!(report.precedents, findings);
    assert_eq!(
        (
            report.summary.precedents_found,
            report.summary.precedents_missing
        ),
        (2, 1)
    );
}

#[test]
fn grep_and_show_read_the_commit_with_context() {
    let (dir, base, later) = build_repo();
    let engine = Engine::default();
    let query = GrepQuery {
        pattern: "get_connection".into(),
        context_lines: 1,
        ..GrepQuery::default()
    };
    let found = engine.grep(dir.path(), &context(), &base, &query).unwrap();
    let ours: BTreeSet<String> = found.files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(
        ours,
        git_grep_paths(dir.path(), "get_connection", &base, true)
    );
    let util = found
        .files
        .iter()
        .find(|f| f.path == "lib/net/util.py")
        .unwrap();
    assert_eq!(util.lines[0].line, 1);
    assert!(util.lines[0].is_match);
    assert!(!util.lines[1].is_match, "a context line follows the match");
    let regex = GrepQuery {
        pattern: r"def \w+_connection\(".into(),
        fixed_strings: false,
        context_lines: 0,
        live_only: true,
        ..GrepQuery::default()
    };
    let found = engine.grep(dir.path(), &context(), &base, &regex).unwrap();
    assert_eq!(
        found.files.len(),
        1,
        "vendor's def is excluded with live_only"
    );
    let bad = GrepQuery {
        pattern: "(".into(),
        fixed_strings: false,
        ..GrepQuery::default()
    };
    assert!(matches!(
        engine.grep(dir.path(), &context(), &base, &bad),
        Err(EvidenceError::InvalidPattern { .. })
    ));

    let shown = engine
        .show_file(dir.path(), &context(), &later, "lib/net/util.py")
        .unwrap();
    assert_eq!(
        shown.text,
        git(dir.path(), &["show", &format!("{later}:lib/net/util.py")])
    );
    let err = engine
        .show_file(dir.path(), &context(), &base, "assets/logo.png")
        .unwrap_err();
    assert!(err.to_string().contains("binary file"), "{err}");
    let err = engine
        .show_file(dir.path(), &context(), &base, "nope.py")
        .unwrap_err();
    assert!(err.to_string().contains("has no file 'nope.py'"), "{err}");
}

/// Hashes every file under `root` (working tree, index, refs, HEAD, objects) with its mode.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(entry.path()).unwrap();
                out.insert(
                    entry.path(),
                    (target.into_os_string().into_encoded_bytes(), 0),
                );
            } else {
                let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions());
                out.insert(entry.path(), (std::fs::read(entry.path()).unwrap(), mode));
            }
        }
    }
    out
}

#[test]
fn the_clone_is_left_exactly_as_it_was() {
    let (dir, base, later) = build_repo();
    let before = snapshot(dir.path());
    let status_before = git(dir.path(), &["status", "--porcelain"]);
    let engine = Engine::default();
    engine
        .compute_evidence(dir.path(), &context(), &request(&base))
        .unwrap();
    engine
        .compute_evidence(dir.path(), &context(), &request(&later))
        .unwrap();
    engine
        .grep(
            dir.path(),
            &context(),
            &base,
            &GrepQuery {
                pattern: "x".into(),
                ..GrepQuery::default()
            },
        )
        .unwrap();
    engine
        .show_file(dir.path(), &context(), &base, "lib/net/util.py")
        .unwrap();
    has_commit(dir.path(), &context(), &base).unwrap();
    assert_eq!(snapshot(dir.path()), before, "no file of the clone changed");
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), status_before);
}

#[test]
fn errors_name_the_case_the_repository_and_the_commit() {
    let (dir, base, _) = build_repo();
    let engine = Engine::default();
    let ctx = context();
    let short = &base[..12];
    let err = engine
        .compute_evidence(dir.path(), &ctx, &request(short))
        .unwrap_err();
    assert!(matches!(err, EvidenceError::CommitNotFullId { .. }));
    let message = err.to_string();
    assert!(
        message.contains("demo_0001") && message.contains("demo/net") && message.contains(short),
        "{message}"
    );

    let absent = "0123456789abcdef0123456789abcdef01234567";
    let err = engine
        .compute_evidence(dir.path(), &ctx, &request(absent))
        .unwrap_err();
    assert!(matches!(err, EvidenceError::CommitMissing { .. }), "{err}");
    assert!(err.to_string().contains(absent));

    let err = engine
        .compute_evidence(&dir.path().join("missing"), &ctx, &request(&base))
        .unwrap_err();
    assert!(
        matches!(err, EvidenceError::RepositoryMissing { .. }),
        "{err}"
    );
    let plain = tempfile::tempdir().unwrap();
    let err = engine
        .compute_evidence(plain.path(), &ctx, &request(&base))
        .unwrap_err();
    assert!(
        matches!(err, EvidenceError::RepositoryUnreadable { .. }),
        "{err}"
    );

    let tree = git(dir.path(), &["rev-parse", &format!("{base}^{{tree}}")]);
    let err = engine
        .compute_evidence(dir.path(), &ctx, &request(tree.trim()))
        .unwrap_err();
    assert!(matches!(err, EvidenceError::NotACommit { .. }), "{err}");

    // Damage one loose blob: the blob scan must stop with a clear error, not skip the file.
    let blob = git(
        dir.path(),
        &["rev-parse", &format!("{base}:lib/net/util.py")],
    );
    let blob = blob.trim();
    let object = dir
        .path()
        .join(".git/objects")
        .join(&blob[..2])
        .join(&blob[2..]);
    std::fs::set_permissions(&object, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    std::fs::write(&object, b"not zlib at all").unwrap();
    let fresh = Engine::default();
    let err = fresh
        .compute_evidence(dir.path(), &ctx, &request(&base))
        .unwrap_err();
    assert!(matches!(err, EvidenceError::CorruptObject { .. }), "{err}");
    assert!(
        err.to_string().contains(blob) && err.to_string().contains(&base),
        "{err}"
    );
}

#[test]
fn held_commits_counts_what_a_clone_has() {
    let (dir, base, later) = build_repo();
    let ctx = CaseContext::repository("demo/net");
    let absent = "0123456789abcdef0123456789abcdef01234567";
    assert_eq!(
        held_commits(dir.path(), &ctx, &[base.as_str(), later.as_str(), absent]).unwrap(),
        vec![true, true, false]
    );
    assert!(has_commit(dir.path(), &ctx, &base).unwrap());
    assert!(
        has_commit(dir.path(), &ctx, "abc123").is_err(),
        "an abbreviated id is an error"
    );
}

#[test]
fn cached_and_nearby_commit_reports_equal_fresh_ones() {
    let (dir, base, later) = build_repo();
    let warm = Engine::builder().cache_bytes(1 << 20).build();
    let first = warm
        .compute_evidence(dir.path(), &context(), &request(&base))
        .unwrap();
    let again = warm
        .compute_evidence(dir.path(), &context(), &request(&base))
        .unwrap();
    assert_eq!(first, again, "a cached run gives the same report");
    let nearby = warm
        .compute_evidence(dir.path(), &context(), &request(&later))
        .unwrap();
    let fresh = Engine::builder()
        .cache_bytes(0)
        .build()
        .compute_evidence(dir.path(), &context(), &request(&later))
        .unwrap();
    assert_eq!(
        nearby, fresh,
        "the cache never leaks one commit's content into another's report"
    );
    let stats = warm.cache_stats();
    assert!(stats.hits > 0 && stats.bytes <= stats.bound, "{stats:?}");
    // A bare clone is read the same way.
    let bare = tempfile::tempdir().unwrap();
    git(
        bare.path(),
        &["clone", "-q", "--bare", dir.path().to_str().unwrap(), "."],
    );
    let from_bare = Engine::default()
        .compute_evidence(bare.path(), &context(), &request(&base))
        .unwrap();
    assert_eq!(from_bare.terms, first.terms);
}

/// A second task over the same repository: some terms shared with [`test_patch`], some new.
fn other_test_patch() -> String {
    "diff --git a/test/units/net/test_later.py b/test/units/net/test_later.py
new file mode 100644
--- /dev/null
+++ b/test/units/net/test_later.py
@@ -0,0 +1,5 @@
+from lib.net.util import get_connection, later_only
+def test_later(self):
+    self.assertEqual(later_only(), SIXTY)
+    self.assertEqual(HELPER, 'fixture_only_value')
+    warn('Only show commands are supported in check mode')
"
    .to_string()
}

#[test]
fn warm_and_tightly_bounded_engines_give_what_fresh_engines_give() {
    let (dir, base, later) = build_repo();
    let other = |commit: &str| EvidenceRequest {
        test_patch: other_test_patch(),
        precedents: vec![Snippet {
            snippet: "def get_connection(module):".into(),
            claimed_path: None,
            way: None,
        }],
        ..request(commit)
    };
    let tasks = [
        request(&base),
        other(&later),
        request(&later),
        other(&base),
        request(&base),
        other(&later),
    ];
    // 0 keeps nothing; 2 KiB evicts contents and scan results mid-scan; 1 MiB keeps all.
    let engines = [2 << 10, 1 << 20].map(|bytes| Engine::builder().cache_bytes(bytes).build());
    for task in &tasks {
        let fresh = Engine::builder()
            .cache_bytes(0)
            .build()
            .compute_evidence(dir.path(), &context(), task)
            .unwrap();
        for engine in &engines {
            let report = engine
                .compute_evidence(dir.path(), &context(), task)
                .unwrap();
            assert_eq!(
                report,
                fresh,
                "a cache never changes a report (bound {} bytes, commit {})",
                engine.cache_stats().bound,
                task.base_commit
            );
            for term in &report.terms {
                let ours: BTreeSet<String> = term
                    .live_paths
                    .iter()
                    .chain(&term.test_paths)
                    .cloned()
                    .collect();
                assert_eq!(
                    ours,
                    git_grep_paths(dir.path(), &term.term, &task.base_commit, true),
                    "term {:?}",
                    term.term
                );
            }
        }
    }
    for engine in &engines {
        let stats = engine.cache_stats();
        assert!(stats.bytes <= stats.bound, "{stats:?}");
    }
    let tight = engines[0].cache_stats();
    assert!(tight.evictions > 0, "the small bound did evict: {tight:?}");
}

#[test]
fn report_json_has_the_documented_shape() {
    let (dir, base, _) = build_repo();
    let report = Engine::default()
        .compute_evidence(dir.path(), &context(), &request(&base))
        .unwrap();
    let json = serde_json::to_value(&report).unwrap();
    verity_testkit::assert_keys(&json, &verity_testkit::REPORT_KEYS, "report");
    verity_testkit::assert_keys(&json, &["binary_paths", "base_commit"], "report");
    let term = &json["terms"][0];
    verity_testkit::assert_keys(term, &verity_testkit::TERM_KEYS, "term");
    verity_testkit::assert_keys(term, &["count", "hits", "receipt"], "term");
    assert!(
        json["terms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["class"] == "gold-introduced")
    );
    let back: verity_evidence::EvidenceReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, report, "the report survives a JSON round trip");
}

#[test]
fn every_audit_codebase_ambiguity_file_parses() {
    let Some(data) = verity_testkit::shared_data() else {
        return;
    };
    let entries = std::fs::read_dir(data.join("determinacy-audit/cases")).unwrap();
    let mut parsed = 0;
    for entry in entries {
        let file = entry.unwrap().path().join("codebase_ambiguity.json");
        if let Ok(text) = std::fs::read_to_string(&file) {
            let doc = parse_codebase_ambiguity(&text, &file.display().to_string()).unwrap();
            assert!(!doc.snippets().is_empty() || doc.verified.is_empty());
            parsed += 1;
        }
    }
    assert!(parsed > 0, "the audit ships codebase_ambiguity.json files");
}

#[test]
fn audit_test_patches_yield_terms() {
    let Some(data) = verity_testkit::shared_data() else {
        return;
    };
    let case = data.join("determinacy-audit/cases/ansible_07e7b69c");
    let patch = std::fs::read_to_string(case.join("hidden_test.diff")).unwrap();
    let terms = extract_terms(&patch, "", "", &|_| None);
    let asserted = terms
        .iter()
        .find(|t| t.term.starts_with("only non-config commands are supported"))
        .expect("the pinned warning is a term");
    assert_eq!(asserted.kind, TermKind::String);
    assert_eq!(
        asserted.origin.patch_line, 248,
        "the audit's witness cites hidden_test.diff#L248"
    );
}

/// Over a real SWE-bench Pro clone: `VERITY_TEST_REPO=/path/to/ansible
/// VERITY_TEST_INSTANCES=.../instances.jsonl`. Compares every term's paths with git grep.
#[test]
fn real_repository_matches_git_grep_when_available() {
    let (Ok(repo), Ok(instances)) = (
        std::env::var("VERITY_TEST_REPO"),
        std::env::var("VERITY_TEST_INSTANCES"),
    ) else {
        eprintln!(
            "skipped: set VERITY_TEST_REPO and VERITY_TEST_INSTANCES to run over a real clone"
        );
        return;
    };
    let repo = PathBuf::from(repo);
    let engine = Engine::default();
    let text = std::fs::read_to_string(&instances).expect("instances file is readable");
    let mut checked = 0;
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).expect("instances are JSON lines");
        let field = |name: &str| -> String {
            let raw = row[name].as_str().unwrap_or_default();
            // Some fields are stored JSON-encoded (a quoted string with escapes).
            if raw.starts_with('"') {
                serde_json::from_str(raw).unwrap_or_else(|_| raw.to_string())
            } else {
                raw.to_string()
            }
        };
        let base = field("base_commit");
        let ctx = CaseContext::new(field("instance_id"), field("repo"));
        if !has_commit(&repo, &ctx, &base).unwrap_or(false) {
            continue;
        }
        let request = EvidenceRequest {
            base_commit: base.clone(),
            prose: format!(
                "{}\n{}\n{}",
                field("problem_statement"),
                field("requirements"),
                field("interface")
            ),
            gold_patch: field("patch"),
            test_patch: field("test_patch"),
            precedents: vec![],
        };
        let report = engine.compute_evidence(&repo, &ctx, &request).unwrap();
        for term in report.terms.iter().take(40) {
            let ours: BTreeSet<String> = term
                .live_paths
                .iter()
                .chain(&term.test_paths)
                .cloned()
                .collect();
            assert_eq!(
                ours,
                git_grep_paths(&repo, &term.term, &base, true),
                "term {:?} at {base}",
                term.term
            );
        }
        checked += 1;
        if checked == 3 {
            break;
        }
    }
    eprintln!("checked {checked} instances against git grep");
}

#[test]
fn the_engine_can_be_shared_across_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Engine>();
    let (dir, base, later) = build_repo();
    let engine = Engine::default();
    let reports: Vec<_> = std::thread::scope(|scope| {
        [base.clone(), later.clone()]
            .map(|commit| {
                let (engine, dir) = (&engine, dir.path());
                scope.spawn(move || {
                    engine
                        .compute_evidence(dir, &context(), &request(&commit))
                        .unwrap()
                })
            })
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect()
    });
    assert_eq!(reports[0].base_commit, base);
    assert_eq!(reports[1].base_commit, later);
}
