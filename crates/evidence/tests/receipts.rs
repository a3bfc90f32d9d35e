//! Every receipt an evidence report, a search or a precedent check prints is run with `sh -c`
//! in the repository it was computed from, and what it prints is compared with the claim it
//! backs: the files listed, the lines shown, the places a snippet was found.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::Path;

use verity_evidence::{CaseContext, Engine, EvidenceRequest, GrepQuery, PrecedentFinding, Snippet};

use verity_testkit::{commit_all, git, run_receipt as run, write_file as write};

const ODD: &str = "app/it's \"odd\" dir/we ird.py";
const ODD_TEST: &str = "tests/it's \"data\"/case one.py";

/// A repository with live and test files, some with spaces and quotes in their paths, and
/// the code of one snippet at three indentations. Returns (temp dir, commit, paths).
fn build_repo() -> (tempfile::TempDir, String, Vec<&'static str>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main", "."]);
    let files: Vec<(&str, &str)> = vec![
        (
            "app/core.py",
            "def export(rows):\n    name = 'shared_token'\n    if rows:   \n        write(rows)\n\n        return True\n",
        ),
        (
            ODD,
            "class A:\n\tdef go(self, req):\n\t\tif (req.body.noscript === 'true') {\n\t\t\treturn SHARED_TOKEN\n\t\t}\n",
        ),
        (
            "tests/test_csv.py",
            "OUT = 'out.csv'\nTOKEN = 'shared_token'\n",
        ),
        (
            ODD_TEST,
            "path = \"out.csv\"\nif rows:\n  write(rows)\n\n  return True\n",
        ),
        ("docs/guide.md", "Writes out.csv.\n"),
    ];
    for (path, content) in &files {
        write(root, path, content);
    }
    let commit = commit_all(root, "base");
    (dir, commit, files.into_iter().map(|(p, _)| p).collect())
}

fn test_patch() -> String {
    "diff --git a/tests/test_export.py b/tests/test_export.py
new file mode 100644
--- /dev/null
+++ b/tests/test_export.py
@@ -0,0 +1,3 @@
+def test_export():
+    assert dump() == 'out.csv'
+    assert name == 'shared_token'
"
    .to_string()
}

fn context() -> CaseContext {
    CaseContext::new("receipts_1", "demo/receipts")
}

/// A path as git prints it with `core.quotePath` on: in double quotes with C escapes when it
/// holds a quote, a backslash, a control character or a non-ASCII byte.
fn displayed(path: &str) -> String {
    if !path
        .bytes()
        .any(|b| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b))
    {
        return path.to_string();
    }
    let mut out = String::from("\"");
    for b in path.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..0x80 => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// One line of `git grep` output at `commit`: the path (one of `paths`), the separator after
/// it (`:` for a match or a listing, `-` for context) and the rest.
fn parse<'a>(line: &'a str, commit: &str, paths: &[&str]) -> (String, char, &'a str) {
    let rest = line
        .strip_prefix(&format!("{commit}:"))
        .unwrap_or_else(|| panic!("{line:?} names the commit"));
    let mut known: Vec<&str> = paths.to_vec();
    known.sort_by_key(|p| std::cmp::Reverse(displayed(p).len()));
    for path in known {
        let shown = displayed(path);
        if let Some(after) = rest.strip_prefix(&shown) {
            let mut chars = after.chars();
            let separator = chars.next().unwrap_or(':');
            return (path.to_string(), separator, chars.as_str());
        }
    }
    panic!("{line:?} names no file of the repository");
}

/// The files a `git grep -l` receipt lists.
fn listed(root: &Path, receipt: &str, commit: &str, paths: &[&str]) -> Vec<String> {
    run(root, receipt)
        .lines()
        .map(|line| parse(line, commit, paths).0)
        .collect()
}

/// The (path, line, is match) triples a `git grep -n` receipt prints.
fn grep_lines(
    root: &Path,
    receipt: &str,
    commit: &str,
    paths: &[&str],
) -> BTreeSet<(String, usize, bool)> {
    run(root, receipt)
        .lines()
        .filter(|line| *line != "--")
        .map(|line| {
            let (path, separator, rest) = parse(line, commit, paths);
            let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
            (path, number.parse().unwrap(), separator == ':')
        })
        .collect()
}

/// The (path, line) places a precedent's receipt prints: `git grep -n -m 1` lines for a
/// one-line snippet, `PATH:LINE` lines for a longer one.
fn precedent_places(
    root: &Path,
    finding: &PrecedentFinding,
    commit: &str,
    paths: &[&str],
) -> Vec<(String, usize)> {
    run(root, &finding.receipt)
        .lines()
        .map(|line| {
            if line.starts_with(commit) {
                let (path, _, rest) = parse(line, commit, paths);
                let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
                (path, number.parse().unwrap())
            } else {
                let (path, number) = line.rsplit_once(':').unwrap();
                (path.to_string(), number.parse().unwrap())
            }
        })
        .collect()
}

#[test]
fn every_receipt_prints_exactly_what_it_claims() {
    let (dir, commit, paths) = build_repo();
    let root = dir.path();
    let engine = Engine::default();
    let snippets = vec![
        // One line, indented one tab more than the file has it.
        Snippet {
            snippet: "\t\t\tif (req.body.noscript === 'true') {".into(),
            ..Snippet::default()
        },
        // Several lines at another indentation, trailing spaces aside, a blank line inside;
        // the test copy (indented by two) is no precedent and the receipt must not print it.
        Snippet {
            snippet: "if rows:\n    write(rows)\n   \n    return True\n".into(),
            ..Snippet::default()
        },
        // Every line is there, but the blank line between two of them is not in the snippet.
        Snippet {
            snippet: "if rows:\n    write(rows)\n    return True".into(),
            ..Snippet::default()
        },
    ];
    let request = EvidenceRequest {
        base_commit: commit.clone(),
        prose: "Export the rows.".into(),
        gold_patch: String::new(),
        test_patch: test_patch(),
        precedents: snippets.clone(),
    };
    let report = engine.compute_evidence(root, &context(), &request).unwrap();

    let out_csv = report.terms.iter().find(|t| t.term == "out.csv").unwrap();
    assert!(out_csv.live_paths.is_empty());
    assert_eq!(
        out_csv.test_paths,
        vec![
            "docs/guide.md".to_string(),
            ODD_TEST.into(),
            "tests/test_csv.py".into()
        ]
    );
    let shared = report
        .terms
        .iter()
        .find(|t| t.term == "shared_token")
        .unwrap();
    assert_eq!(shared.live_paths, vec!["app/core.py".to_string()]);
    assert_eq!(shared.test_paths, vec!["tests/test_csv.py".to_string()]);
    for term in &report.terms {
        assert_eq!(
            listed(root, &term.live_receipt, &commit, &paths),
            term.live_paths,
            "{}",
            term.live_receipt
        );
        let mut all = term.live_paths.clone();
        all.extend(term.test_paths.iter().cloned());
        let mut from_git = listed(root, &term.receipt, &commit, &paths);
        from_git.sort();
        all.sort();
        assert_eq!(from_git, all, "{}", term.receipt);
    }
    assert!(
        report.candidates.iter().any(|c| c.term == "out.csv"),
        "{:?}",
        report.candidates
    );
    for candidate in &report.candidates {
        assert_eq!(
            run(root, &candidate.receipt),
            "",
            "absent from live code: {}",
            candidate.receipt
        );
    }

    // Searches: live only, ignoring case with context, a regular expression.
    let queries = [
        GrepQuery {
            pattern: "shared_token".into(),
            context_lines: 0,
            live_only: true,
            ..GrepQuery::default()
        },
        GrepQuery {
            pattern: "SHARED_token".into(),
            case_insensitive: true,
            context_lines: 1,
            ..GrepQuery::default()
        },
        GrepQuery {
            pattern: r"\bw\w+\(rows\)".into(),
            fixed_strings: false,
            context_lines: 0,
            live_only: true,
            ..GrepQuery::default()
        },
        GrepQuery {
            pattern: r"shared_\w+'".into(),
            fixed_strings: false,
            context_lines: 2,
            ..GrepQuery::default()
        },
    ];
    for query in &queries {
        let found = engine.grep(root, &context(), &commit, query).unwrap();
        assert!(found.matches > 0, "{query:?}");
        let shown: BTreeSet<(String, usize, bool)> = found
            .files
            .iter()
            .flat_map(|f| f.lines.iter().map(|l| (f.path.clone(), l.line, l.is_match)))
            .collect();
        assert_eq!(
            grep_lines(root, &found.receipt, &commit, &paths),
            shown,
            "{}",
            found.receipt
        );
    }
    // A live search cut short still excludes every non-live file that matches, those after
    // the cut included.
    let cut = GrepQuery {
        pattern: "rows".into(),
        context_lines: 0,
        live_only: true,
        max_matches: 1,
        ..GrepQuery::default()
    };
    let found = engine.grep(root, &context(), &commit, &cut).unwrap();
    assert!(found.truncated);
    let printed = grep_lines(root, &found.receipt, &commit, &paths);
    assert!(
        !printed.is_empty() && printed.iter().all(|(path, ..)| !path.starts_with("tests/")),
        "{printed:?} from {}",
        found.receipt
    );
    let everywhere = GrepQuery {
        live_only: false,
        ..queries[0].clone()
    };
    let all = engine.grep(root, &context(), &commit, &everywhere).unwrap();
    let live = engine.grep(root, &context(), &commit, &queries[0]).unwrap();
    assert_ne!(all.receipt, live.receipt);
    assert_eq!((all.matches, live.matches), (2, 1));

    // Precedents, in the report and checked alone.
    let findings = engine
        .verify_precedents(root, &context(), &commit, &snippets)
        .unwrap()
        .findings;
    assert_eq!(report.precedents, findings);
    let places: Vec<Vec<(String, usize)>> = findings
        .iter()
        .map(|f| {
            f.locations
                .iter()
                .map(|l| (l.path.clone(), l.line))
                .collect()
        })
        .collect();
    assert_eq!(
        places,
        vec![
            vec![(ODD.to_string(), 3)],
            vec![("app/core.py".to_string(), 3)],
            vec![],
        ]
    );
    assert_eq!(findings[1].non_live_paths, vec![ODD_TEST.to_string()]);
    for finding in &findings {
        assert_eq!(
            precedent_places(root, finding, &commit, &paths),
            places[findings.iter().position(|f| f == finding).unwrap()],
            "{}",
            finding.receipt
        );
    }
}

/// Deletes an object's loose file, as a partial clone or a trimmed snapshot would lack it.
fn drop_object(root: &Path, spec: &str) -> String {
    let id = git(root, &["rev-parse", spec]).trim().to_string();
    std::fs::remove_file(root.join(".git/objects").join(&id[..2]).join(&id[2..])).unwrap();
    id
}

#[test]
fn a_clone_lacking_objects_gives_an_incomplete_report_of_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main", "."]);
    write(root, "app/core.py", "NAME = 'present_value'\n");
    write(root, "app/big.py", "HIDDEN = 'hidden_value'\n");
    write(root, "lib/sub/deep.py", "DEEP = 'deep_value'\n");
    write(root, "tests/test_x.py", "X = 'hidden_value'\n");
    let commit = commit_all(root, "base");
    let patch = "diff --git a/tests/test_y.py b/tests/test_y.py
new file mode 100644
--- /dev/null
+++ b/tests/test_y.py
@@ -0,0 +1,4 @@
+def test_y():
+    assert f() == 'present_value'
+    assert h() == 'hidden_value'
+    assert g() == 'nowhere_value'
";
    let gold = "diff --git a/app/core.py b/app/core.py
--- a/app/core.py
+++ b/app/core.py
@@ -1 +1,2 @@
 NAME = 'present_value'
+NOWHERE = 'nowhere_value'
";
    let request = EvidenceRequest {
        base_commit: commit.clone(),
        prose: "Nothing.".into(),
        gold_patch: gold.into(),
        test_patch: patch.into(),
        precedents: vec![],
    };
    let complete = Engine::default()
        .compute_evidence(root, &context(), &request)
        .unwrap();
    assert!(!complete.summary.incomplete);
    assert!(complete.missing_objects.is_empty());
    let candidate = |report: &verity_evidence::EvidenceReport, term: &str| {
        report.candidates.iter().find(|c| c.term == term).cloned()
    };
    assert!(
        candidate(&complete, "nowhere_value").is_some_and(|c| c.airtight),
        "{:?}",
        complete.candidates
    );
    assert!(
        candidate(&complete, "hidden_value").is_none(),
        "app/big.py has it"
    );

    let blob = drop_object(root, &format!("{commit}:app/big.py"));
    let tree = drop_object(root, &format!("{commit}:lib/sub"));
    // A fresh engine: nothing cached from the complete clone.
    let engine = Engine::default();
    let report = engine.compute_evidence(root, &context(), &request).unwrap();
    assert!(report.summary.incomplete);
    let missing: Vec<(&str, &str)> = report
        .missing_objects
        .iter()
        .map(|m| (m.path.as_str(), m.id.as_str()))
        .collect();
    assert_eq!(
        missing,
        vec![("app/big.py", blob.as_str()), ("lib/sub", tree.as_str())]
    );
    assert_eq!(report.files, 3, "files listed, with or without content");
    let present = report
        .terms
        .iter()
        .find(|t| t.term == "present_value")
        .unwrap();
    assert_eq!(present.live_paths, vec!["app/core.py".to_string()]);
    // The file that has it is missing: a candidate, but not an airtight one.
    for term in ["hidden_value", "nowhere_value"] {
        let found = candidate(&report, term).unwrap();
        assert!(!found.airtight);
        assert!(
            found.receipt.ends_with("# not airtight: 2 objects missing"),
            "{}",
            found.receipt
        );
    }
    let text = verity_evidence::render_text(&report);
    assert!(
        text.contains("INCOMPLETE: the clone lacks 2 objects"),
        "{text}"
    );
    assert!(text.contains(&format!("  app/big.py ({blob})")), "{text}");
    assert!(text.contains("not airtight: 2 objects missing"), "{text}");

    let query = GrepQuery {
        pattern: "_value".into(),
        ..GrepQuery::default()
    };
    let found = engine.grep(root, &context(), &commit, &query).unwrap();
    assert_eq!(found.missing_objects, report.missing_objects);
    assert_eq!(found.files.len(), 2, "app/core.py and tests/test_x.py");
    let snippets = [Snippet {
        snippet: "HIDDEN = 'hidden_value'".into(),
        ..Snippet::default()
    }];
    let checked = engine
        .verify_precedents(root, &context(), &commit, &snippets)
        .unwrap();
    assert!(!checked.findings[0].found, "its file is missing");
    assert_eq!(checked.missing_objects, report.missing_objects);
    let err = engine
        .show_file(root, &context(), &commit, "app/big.py")
        .unwrap_err();
    assert!(err.to_string().contains("lacks the content"), "{err}");
    let err = engine
        .show_file(root, &context(), &commit, "lib/sub/deep.py")
        .unwrap_err();
    assert!(err.to_string().contains(&tree), "{err}");
}

#[test]
fn a_partial_clone_lists_the_blobs_it_was_cloned_without() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    std::fs::create_dir(&source).unwrap();
    git(&source, &["init", "-q", "-b", "main", "."]);
    write(&source, "small.py", "SMALL = 'kept_value'\n");
    write(
        &source,
        "data/large.py",
        "LARGE = 'large_value'\n".repeat(200),
    );
    let commit = commit_all(&source, "base");
    git(&source, &["config", "uploadpack.allowFilter", "true"]);
    let large = git(&source, &["rev-parse", "HEAD:data/large.py"])
        .trim()
        .to_string();
    let url = format!("file://{}", source.display());
    let clone = dir.path().join("partial.git");
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            "--bare",
            "--filter=blob:limit=1k",
            &url,
            clone.to_str().unwrap(),
        ],
    );
    let query = GrepQuery {
        pattern: "_value".into(),
        ..GrepQuery::default()
    };
    let found = Engine::default()
        .grep(&clone, &context(), &commit, &query)
        .unwrap();
    assert_eq!(found.files.len(), 1);
    let missing: Vec<(&str, &str)> = found
        .missing_objects
        .iter()
        .map(|m| (m.path.as_str(), m.id.as_str()))
        .collect();
    assert_eq!(missing, vec![("data/large.py", large.as_str())]);
}
