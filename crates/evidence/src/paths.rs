//! Path rules: which files of a commit count as live code.
//!
//! The determinacy audit's receipts count a precedent only in live code, so test, vendored,
//! generated and documentation files are set apart. Rules, checked in this order (the first
//! that applies wins), on the `/`-separated path from the repository root:
//!
//! 1. **Vendor**: a folder named `vendor`, `vendored`, `_vendor`, `node_modules`,
//!    `bower_components`, `third_party` or `third-party`.
//! 2. **Generated**: a file named `*.min.js`, `*.min.css`, `*.map`, `*.pb.go`, `*_pb2.py`,
//!    `*_pb2_grpc.py`, `*.pb.cc`, `*.pb.h`, `*.generated.*`, `*_generated.*`, `*.snap`, or a lock
//!    file (`package-lock.json`, `yarn.lock`, `pnpm-lock.yaml`, `Cargo.lock`, `go.sum`,
//!    `poetry.lock`, `Pipfile.lock`); or a folder named `generated`, `__generated__`, `dist`.
//! 3. **Test**: a folder named `test`, `tests`, `testing`, `testdata`, `test_data`,
//!    `__tests__`, `__mocks__`, `__snapshots__`, `spec`, `specs`, `fixtures`, `e2e`,
//!    `cypress`, `playwright`; or a file named `test_*.py`, `*_test.py`, `tests.py`,
//!    `conftest.py`, `*_test.go`, `*.test.*`, `*.spec.*`, `*Test.java`, `*Tests.java`,
//!    `*_test.rs`, `*_test.c`, `*_test.cc`, `*_test.cpp`, `*_unittest.*`.
//! 4. **Docs**: a folder named `docs`, `doc`, `docsite`, `changelogs`, `examples`,
//!    `changelog.d`; or a file ending in `.md`, `.rst`, `.adoc`, `.txt` (case-insensitive), or
//!    named `CHANGELOG*`, `NEWS*`, `README*`.
//! 5. **Live**: everything else.
//!
//! Folder names compare case-sensitively, as they do on a case-sensitive file system. A
//! library's own test framework (such as `django/test/`) is classed as test code by rule 3: the
//! audit's receipts do the same, and it errs toward calling fewer terms "codebase".

use std::sync::Arc;

use git2::Oid;

/// What a path of the base commit is, for evidence purposes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    ts_rs::TS,
)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum PathClass {
    /// Live code: what a solver would model a change on.
    Live,
    /// Tests, fixtures and test data.
    Test,
    /// Vendored third-party code.
    Vendor,
    /// Generated files and lock files.
    Generated,
    /// Documentation, changelogs, examples.
    Docs,
}

impl PathClass {
    /// True for live code.
    pub fn is_live(self) -> bool {
        self == PathClass::Live
    }

    /// The class's name as it appears in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            PathClass::Live => "live",
            PathClass::Test => "test",
            PathClass::Vendor => "vendor",
            PathClass::Generated => "generated",
            PathClass::Docs => "docs",
        }
    }
}

const VENDOR_DIRS: &[&str] = &[
    "vendor",
    "vendored",
    "_vendor",
    "node_modules",
    "bower_components",
    "third_party",
    "third-party",
];
const GENERATED_DIRS: &[&str] = &["generated", "__generated__", "dist"];
const GENERATED_SUFFIXES: &[&str] = &[
    ".min.js",
    ".min.css",
    ".map",
    ".pb.go",
    "_pb2.py",
    "_pb2_grpc.py",
    ".pb.cc",
    ".pb.h",
    ".snap",
];
const LOCK_FILES: &[&str] = &[
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "Cargo.lock",
    "go.sum",
    "poetry.lock",
    "Pipfile.lock",
];
const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "testdata",
    "test_data",
    "__tests__",
    "__mocks__",
    "__snapshots__",
    "spec",
    "specs",
    "fixtures",
    "e2e",
    "cypress",
    "playwright",
];
const TEST_SUFFIXES: &[&str] = &[
    "_test.py",
    "_test.go",
    "Test.java",
    "Tests.java",
    "_test.rs",
    "_test.c",
    "_test.cc",
    "_test.cpp",
];
const DOCS_DIRS: &[&str] = &[
    "docs",
    "doc",
    "docsite",
    "changelogs",
    "changelog.d",
    "examples",
];
const DOCS_SUFFIXES: &[&str] = &[".md", ".rst", ".adoc", ".txt"];
const DOCS_PREFIXES: &[&str] = &["CHANGELOG", "NEWS", "README"];

/// Classifies a path of a commit by the rules in this module's documentation.
pub fn classify_path(path: &str) -> PathClass {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or("");
    let dirs = parts;
    let in_dir = |names: &[&str]| dirs.iter().any(|d| names.contains(d));

    if in_dir(VENDOR_DIRS) {
        return PathClass::Vendor;
    }
    if in_dir(GENERATED_DIRS)
        || LOCK_FILES.contains(&file)
        || GENERATED_SUFFIXES.iter().any(|s| file.ends_with(s))
        || file.contains(".generated.")
        || file.contains("_generated.")
    {
        return PathClass::Generated;
    }
    if in_dir(TEST_DIRS)
        || (file.starts_with("test_") && file.ends_with(".py"))
        || file == "tests.py"
        || file == "conftest.py"
        || TEST_SUFFIXES.iter().any(|s| file.ends_with(s))
        || file.contains(".test.")
        || file.contains(".spec.")
        || file.contains("_unittest.")
    {
        return PathClass::Test;
    }
    let lower = file.to_ascii_lowercase();
    if in_dir(DOCS_DIRS)
        || DOCS_SUFFIXES.iter().any(|s| lower.ends_with(s))
        || DOCS_PREFIXES.iter().any(|p| file.starts_with(p))
    {
        return PathClass::Docs;
    }
    PathClass::Live
}

/// A regular file of a commit's tree.
#[derive(Debug, Clone)]
pub(crate) struct FileEntry {
    /// Path from the repository root, `/`-separated (shared by every commit whose listing
    /// holds the file).
    pub(crate) path: Arc<str>,
    /// The blob's id.
    pub(crate) blob: Oid,
    /// Live or non-live.
    pub(crate) class: PathClass,
}

/// An entry of one tree as the engine keeps it: a regular file, or a folder with its tree and
/// the path prefix of its entries (`dir/`).
#[derive(Debug, Clone)]
pub(crate) enum TreeEntry {
    File(FileEntry),
    Folder(Oid, Arc<str>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_rules_follow_the_documented_list() {
        let cases = [
            (
                "lib/ansible/modules/network/ios/ios_command.py",
                PathClass::Live,
            ),
            (
                "test/units/modules/network/ios/test_ios_command.py",
                PathClass::Test,
            ),
            ("lib/foo/tests/helpers.py", PathClass::Test),
            ("pkg/server/server_test.go", PathClass::Test),
            ("src/components/__tests__/Button.tsx", PathClass::Test),
            ("src/app.spec.ts", PathClass::Test),
            ("web/spec/models/user.js", PathClass::Test),
            ("vendor/github.com/x/y.go", PathClass::Vendor),
            ("ui/node_modules/react/index.js", PathClass::Vendor),
            ("third_party/zlib/zlib.h", PathClass::Vendor),
            ("vendor/x/tests/test_a.py", PathClass::Vendor),
            ("static/app.min.js", PathClass::Generated),
            ("api/v1/types.pb.go", PathClass::Generated),
            ("package-lock.json", PathClass::Generated),
            ("docs/docsite/rst/index.rst", PathClass::Docs),
            ("README.md", PathClass::Docs),
            ("requirements.txt", PathClass::Docs),
            ("changelogs/fragments/x.yml", PathClass::Docs),
            ("setup.py", PathClass::Live),
            ("latest/contest.py", PathClass::Live),
        ];
        for (path, class) in cases {
            assert_eq!(classify_path(path), class, "class of {path}");
        }
    }
}
