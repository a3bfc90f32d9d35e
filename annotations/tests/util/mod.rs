//! The harness the CLI tests share (ripgrep's `tests/util.rs`): a temporary project and the
//! real `verity` binary; `hub_server` and `parquet_file` also serve `examples/hub_serve.rs`.
#![allow(clippy::unwrap_used)]

pub mod chat_server;
pub mod hub_server;
pub mod loopback;
pub mod parquet_file;
pub mod project;
pub mod store;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A temporary folder with a project file in it, and the fixtures' path.
pub struct Harness {
    dir: tempfile::TempDir,
}

impl Harness {
    pub fn new() -> Harness {
        let h = Harness {
            dir: tempfile::tempdir().unwrap(),
        };
        h.ok(&["init"]);
        h
    }

    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project.verity")
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_verity"))
            .args(args)
            .env("VERITY_PROJECT", self.project())
            .current_dir(self.dir.path())
            .output()
            .unwrap()
    }

    /// Runs and asserts exit 0; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "verity {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs and asserts exit 2; returns stderr.
    pub fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "verity {args:?} should fail with 2; stdout: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err.trim().lines().count(),
            1,
            "one sentence on stderr: {err}"
        );
        err
    }

    pub fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.ok(args)).unwrap()
    }

    pub fn write(&self, name: &str, content: impl AsRef<[u8]>) -> String {
        let path = self.path(name);
        std::fs::write(&path, content).unwrap();
        path.display().to_string()
    }

    /// Exports in a format and returns the file's text.
    /// Exports into a file named after the format, replacing an earlier export of it.
    pub fn export(&self, format: &str, extra: &[&str]) -> String {
        let out = self.path(&format!("export.{format}"));
        let mut args = vec![
            "export",
            "--format",
            format,
            "--out",
            out.to_str().unwrap(),
            "--force",
        ];
        args.extend_from_slice(extra);
        self.ok(&args);
        std::fs::read_to_string(out).unwrap()
    }

    /// The project file and its write-ahead log, to compare before and after.
    pub fn project_bytes(&self) -> Vec<u8> {
        let path = self.project();
        let mut bytes = std::fs::read(&path).unwrap();
        if let Ok(wal) = std::fs::read(path.with_extension("verity-wal")) {
            bytes.extend(wal);
        }
        bytes
    }
}

pub fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

pub fn shared_data() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    if path.is_dir() {
        Some(path)
    } else {
        eprintln!("skipped: ../shared/data is not present");
        None
    }
}

/// A complete answer on the swe-bench-verified questionnaire that every rule accepts.
pub fn full_answer() -> Value {
    serde_json::json!({
        "underspecified": 1,
        "underspecified_notes": "The issue names div(1, 0) and asks for a clear error, but never says which exception type or message is expected.",
        "false_negative": 2,
        "false_negative_notes": "The test pins the exact message 'cannot divide by zero', which the issue never states; other wordings would fail it.",
        "difficulty": "<15 min fix",
        "difficulty_notes": "One guard clause.",
        "other_major_issues": 0,
        "annotator_confidence": 4
    })
}

/// Runs git in `dir` with pinned identities and dates, so commit ids are reproducible, and
/// without the machine's git configuration; returns its stdout. A failure fails the test, but
/// for `git grep`, whose "no match" is a failure.
/// Runs a receipt (a shell command) in the repository at `root`: its standard output. A
/// receipt that finds nothing may exit 1, as `git grep` does; any other failure fails the test.
pub fn run_receipt(root: &Path, receipt: &str) -> String {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(receipt)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{receipt} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.org")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.org")
        .env("GIT_AUTHOR_DATE", "2024-01-02T03:04:05Z")
        .env("GIT_COMMITTER_DATE", "2024-01-02T03:04:05Z")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success() || args.first() == Some(&"grep"),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("git output is UTF-8")
}

impl Harness {
    /// Adds `rater`, assigns every case to one rater, and submits [`full_answer`] on `case` as
    /// `rater`.
    pub fn submit_full_answer(&self, rater: &str, case: &str) {
        self.ok(&["raters", "add", rater]);
        self.ok(&["assign", "--per-case", "1"]);
        let answer = self.write("a.json", full_answer().to_string());
        self.ok(&[
            "answer", "--rater", rater, "--case", case, "--file", &answer, "--submit",
        ]);
    }
}

/// The keys every evidence report's JSON has, whichever front end prints it.
pub const REPORT_KEYS: [&str; 4] = ["terms", "candidates", "precedents", "summary"];

/// The keys every term of an evidence report's JSON has.
pub const TERM_KEYS: [&str; 7] = [
    "term",
    "kind",
    "class",
    "in_prose",
    "in_gold",
    "live_paths",
    "test_paths",
];

/// Fails unless `value` has each of `keys`; `what` names it in the message.
pub fn assert_keys(value: &Value, keys: &[&str], what: &str) {
    for key in keys {
        assert!(value.get(key).is_some(), "{what} has {key}: {value}");
    }
}

/// The keys of a JSON object, in its order.
pub fn keys(value: &Value) -> Vec<&str> {
    let object = value.as_object();
    assert!(object.is_some(), "an object: {value}");
    object
        .into_iter()
        .flat_map(|o| o.keys())
        .map(String::as_str)
        .collect()
}

/// The tasks each rater got in an `assign --json` report, failing unless they are at most one
/// apart.
pub fn even_loads(report: &Value) -> Vec<i64> {
    let loads: Vec<i64> = report["load"]
        .as_object()
        .into_iter()
        .flat_map(|o| o.values())
        .map(|v| v.as_i64().unwrap_or(-1))
        .collect();
    let spread = loads
        .iter()
        .max()
        .zip(loads.iter().min())
        .map(|(a, b)| a - b);
    assert!(spread.is_some_and(|s| s <= 1), "even load: {report}");
    loads
}

/// Writes `content` to `path` below `root`, making the folders it needs.
pub fn write_file(root: &Path, path: &str, content: impl AsRef<[u8]>) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, content).unwrap();
}

/// Stages everything in the repository at `root` and commits it: the new commit's id.
pub fn commit_all(root: &Path, message: &str) -> String {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", message]);
    git(root, &["rev-parse", "HEAD"]).trim().to_string()
}

/// The keys of an agreement report's JSON, whatever it was computed on.
pub const AGREEMENT_KEYS: [&str; 12] = [
    "units",
    "raters",
    "ratings",
    "level",
    "percent_agreement",
    "cohen_kappa",
    "fleiss_kappa",
    "fleiss_kappa_all_units",
    "krippendorff_alpha",
    "gwet_ac1",
    "gwet_ac2",
    "reasons",
];

/// `verity answer` as `rater` on `case` with the answer in `file`, then `extra`.
pub fn answer_args<'a>(
    rater: &'a str,
    case: &'a str,
    file: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec!["answer", "--rater", rater, "--case", case, "--file", file];
    args.extend_from_slice(extra);
    args
}

/// Fails unless the process `out` tells of exited with 0, showing its stderr.
pub fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A JSON list of strings, as owned strings.
pub fn strings(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|item| item.as_str().unwrap().to_owned())
        .collect()
}

/// Every Rust source file below `dir`, at any depth.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|err| panic!("cannot list {}: {err}", folder.display()));
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}
