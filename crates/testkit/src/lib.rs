//! What Verity's test crates share: servers on 127.0.0.1 that speak the protocols Verity is a
//! client of (a Chat Completions endpoint, the Hugging Face Hub, over [`loopback`]), Parquet
//! files for them to serve, git repositories with pinned identities, the fixtures and the real
//! data's place, and JSON checks. With the `core` feature, a project on the core's `ops`
//! ([`project`]), the store's rows ([`store`]) and a fresh PostgreSQL database ([`server`]).
//!
//! The servers name no crate of ours, so a lower crate's tests use them without compiling the
//! core.
#![allow(clippy::unwrap_used)]

pub mod chat_server;
pub mod hub_server;
pub mod loopback;
pub mod parquet_file;
#[cfg(feature = "core")]
pub mod project;
#[cfg(feature = "core")]
pub mod server;
#[cfg(feature = "core")]
pub mod store;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A file under `annotations/tests/fixtures`, the fixtures every test crate shares.
pub fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../annotations/tests/fixtures")
        .join(name)
}

/// [`fixture_path`] as a string, for a command's arguments.
pub fn fixture(name: &str) -> String {
    fixture_path(name).display().to_string()
}

/// Where `../shared/data` would be: beside the repository's folder.
pub fn shared_data_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

/// `../shared/data`, when it is present. A test over the real data runs whenever it is; without
/// it the test says so and passes, but under CI (`CI=true`), which always has it beside the
/// clone, its absence fails the test, so a missing copy never passes as a green run.
pub fn shared_data() -> Option<PathBuf> {
    let path = shared_data_path();
    if path.is_dir() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").map_or(true, |ci| ci != "true"),
        "../shared/data is not present at {}, and CI=true needs it",
        path.display()
    );
    eprintln!("skipped: ../shared/data is not present");
    None
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

/// Runs git in `dir` with pinned identities and dates, so commit ids are reproducible, and
/// without the machine's git configuration; returns its stdout. A failure fails the test, but
/// for `git grep`, whose "no match" is a failure.
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
