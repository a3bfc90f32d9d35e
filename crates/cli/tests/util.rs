//! The harness the CLI tests share (ripgrep's `tests/util.rs`): a temporary project and the
//! real `verity` binary. What the tests of other crates share too is `verity-testkit`'s.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
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

impl Harness {
    /// Adds `rater`, assigns every case to one rater, and submits [`full_answer`] on `case` as
    /// `rater`.
    pub fn submit_full_answer(&self, rater: &str, case: &str) {
        self.ok(&["raters", "add", rater]);
        self.ok(&["assign", "--per-case", "1"]);
        let answer = self.write("a.json", verity_testkit::full_answer().to_string());
        self.ok(&[
            "answer", "--rater", rater, "--case", case, "--file", &answer, "--submit",
        ]);
    }
}
