//! Graded codebase hits: how near a term's live files are to the code the task changes.
//!
//! A live file that holds a term is, from nearest to farthest:
//! 1. `touched`: in a folder the gold patch changes a file in, or in a folder above or below
//!    one (the same package or module);
//! 2. `live`: other code under the same top-level folder as a touched one;
//! 3. `far`: code under another top-level folder;
//! 4. `non-code`: CI, release, build and packaging files ([`is_tooling_path`]).
//!
//! A term in live code is **weak** when none of its live files is `touched` or `live`: a
//! solver could find it, but only somewhere unrelated to the change (`"production"` in
//! `.goreleaser.darwin.yml` when the task changes a Go package). A weak term counts as absent
//! from the codebase for airtight candidates, and says so.
//!
//! Paths at the repository's root belong to the top-level folder `""`; a gold patch that only
//! changes root files makes every root file `touched` and everything else `live`. Without a
//! gold patch every code file is `live`.

use verity_task::patch::FileStatus;

/// How near a live file holding a term is to the code the gold patch changes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    ts_rs::TS,
)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum HitGrade {
    /// In a folder the gold patch changes, or above or below one.
    Touched,
    /// Code elsewhere under the same top-level folder.
    Live,
    /// Code under another top-level folder.
    Far,
    /// Not code: CI, release, build or packaging files.
    NonCode,
}

impl HitGrade {
    /// The grade's name as it appears in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            HitGrade::Touched => "touched",
            HitGrade::Live => "live",
            HitGrade::Far => "far",
            HitGrade::NonCode => "non-code",
        }
    }

    /// Whether a term whose nearest live file has this grade is weak.
    pub fn is_weak(self) -> bool {
        matches!(self, HitGrade::Far | HitGrade::NonCode)
    }
}

const TOOLING_NAMES: &[&str] = &[
    "Makefile",
    "GNUmakefile",
    "Jenkinsfile",
    "Vagrantfile",
    "Procfile",
    "CODEOWNERS",
    "MANIFEST.in",
    "setup.cfg",
    "tox.ini",
    "go.mod",
    "renovate.json",
];
const TOOLING_PREFIXES: &[&str] = &["Dockerfile", "docker-compose", "LICENSE", "COPYING"];
const TOOLING_DIRS: &[&str] = &["ci", "packaging", "deploy", "release", "build", "hack"];

/// Whether a live path is tooling rather than code or the data code reads: CI and release
/// configuration, build and packaging files. A path is tooling when any of its components is
/// hidden (`.github/`, `.goreleaser.yml`, `.travis.yml`), when its folder is one of `ci`,
/// `packaging`, `deploy`, `release`, `build` or `hack`, or when its name is a build or
/// project file (`Makefile`, `Dockerfile*`, `docker-compose*`, `go.mod`, `setup.cfg`,
/// `tox.ini`, licences...). Data files in source folders (messages, schemas, defaults) are not
/// tooling: code reads them.
pub(crate) fn is_tooling_path(path: &str) -> bool {
    let mut parts = path.split('/').peekable();
    while let Some(part) = parts.next() {
        if part.starts_with('.') {
            return true;
        }
        if parts.peek().is_some() {
            if TOOLING_DIRS.contains(&part) {
                return true;
            }
        } else {
            return TOOLING_NAMES.contains(&part)
                || TOOLING_PREFIXES.iter().any(|p| part.starts_with(p))
                || part.ends_with(".dockerfile");
        }
    }
    false
}

fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn top(dir: &str) -> &str {
    dir.split('/').next().unwrap_or("")
}

fn nested(inner: &str, outer: &str) -> bool {
    !outer.is_empty()
        && inner.len() > outer.len()
        && inner.starts_with(outer)
        && inner.as_bytes()[outer.len()] == b'/'
}

/// The folders a gold patch changes files in, each once, and the files it creates.
#[derive(Debug, Clone, Default)]
pub(crate) struct Touched {
    folders: Vec<String>,
    created: Vec<String>,
}

impl Touched {
    /// The folders of the files a gold patch changes, both sides of a rename counted, and the
    /// files it creates: new files and the new names of renamed ones.
    pub(crate) fn from_patch(gold_patch: &str) -> Touched {
        let mut touched = Touched::default();
        for file in verity_task::patch::changed_files(gold_patch) {
            if matches!(file.status, FileStatus::Added | FileStatus::Renamed)
                && let Some(path) = &file.new_path
            {
                touched.created.push(path.clone());
            }
            for path in [&file.old_path, &file.new_path].into_iter().flatten() {
                let dir = folder(path).to_string();
                if !touched.folders.contains(&dir) {
                    touched.folders.push(dir);
                }
            }
        }
        touched
    }

    /// Whether `reference`, a path as a test names it (`./testdata/auth/negative.yml`), is a
    /// file the gold patch creates: a created path equals it or ends with it, whole folders
    /// matched. A reference without a folder or an extension names no particular file.
    pub(crate) fn creates(&self, reference: &str) -> bool {
        let reference = reference.trim_start_matches("./");
        if !reference.contains('/') && !reference.contains('.') {
            return false;
        }
        self.created.iter().any(|path| {
            path == reference
                || path
                    .strip_suffix(reference)
                    .is_some_and(|head| head.ends_with('/'))
        })
    }

    /// The grade of a live file.
    pub(crate) fn grade(&self, path: &str) -> HitGrade {
        if is_tooling_path(path) {
            return HitGrade::NonCode;
        }
        let dir = folder(path);
        if self.folders.is_empty() {
            // No gold patch to measure from: every code file is as near as any other.
            return HitGrade::Live;
        }
        if self
            .folders
            .iter()
            .any(|t| t == dir || nested(dir, t) || nested(t, dir))
        {
            HitGrade::Touched
        } else if self.folders.iter().all(|t| t.is_empty())
            || self.folders.iter().any(|t| top(t) == top(dir))
        {
            // A change only at the root is as near to every folder as to any other.
            HitGrade::Live
        } else {
            HitGrade::Far
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLD: &str = "diff --git a/internal/server/authz/engine.go b/internal/server/authz/engine.go\n--- a/internal/server/authz/engine.go\n+++ b/internal/server/authz/engine.go\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-a\n+b\n";

    #[test]
    fn a_fixture_the_gold_patch_creates_is_known_by_its_tail() {
        let gold = "diff --git a/internal/config/testdata/auth/negative.yml b/internal/config/testdata/auth/negative.yml\nnew file mode 100644\n--- /dev/null\n+++ b/internal/config/testdata/auth/negative.yml\n@@ -0,0 +1 @@\n+ttl: -1\n";
        let renamed = "diff --git a/data/old.json b/fixtures/renamed.json\nsimilarity index 100%\nrename from data/old.json\nrename to fixtures/renamed.json\n";
        let binary = "diff --git a/img/logo.png b/img/logo.png\nnew file mode 100644\nindex 0000000..e69de29\nBinary files /dev/null and b/img/logo.png differ\n";
        let touched = Touched::from_patch(&format!("{GOLD}{gold}{renamed}{binary}"));
        assert!(
            touched.creates("img/logo.png"),
            "a binary file, without hunks"
        );
        assert_eq!(
            touched.grade("data/loader.py"),
            HitGrade::Touched,
            "a pure rename's old folder counts"
        );
        assert!(touched.creates("./testdata/auth/negative.yml"));
        assert!(
            touched.creates("fixtures/renamed.json"),
            "a rename's new name"
        );
        assert!(!touched.creates("data/old.json"));
        assert!(touched.creates("internal/config/testdata/auth/negative.yml"));
        assert!(!touched.creates("./auth/negative.yml.bak"));
        assert!(!touched.creates("th/negative.yml"), "whole folders only");
        assert!(
            !touched.creates("main.go"),
            "the gold patch changes main.go but does not create it"
        );
        assert_eq!(
            touched.grade("internal/config/config.go"),
            HitGrade::Touched,
            "a created file's folder is touched"
        );
    }

    #[test]
    fn a_change_at_the_root_is_near_every_folder_and_hunk_lines_are_not_headers() {
        let gold = "diff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1,2 +1,2 @@\n--- a/fake/path.go\n+++ b/fake/path.go\n";
        let touched = Touched::from_patch(gold);
        assert_eq!(touched.grade("cmd.go"), HitGrade::Touched);
        assert_eq!(
            touched.grade("internal/config/config.go"),
            HitGrade::Live,
            "a root-only change leaves other folders live, not far"
        );
        assert!(
            !touched.creates("fake/path.go"),
            "removed and added lines that look like headers are not files"
        );
    }

    #[test]
    fn hits_are_graded_by_distance_from_the_changed_folders() {
        let touched = Touched::from_patch(GOLD);
        assert_eq!(
            touched.grade("internal/server/authz/rego.go"),
            HitGrade::Touched
        );
        assert_eq!(
            touched.grade("internal/server/server.go"),
            HitGrade::Touched
        );
        assert_eq!(
            touched.grade("internal/server/authz/rego/source.go"),
            HitGrade::Touched
        );
        assert_eq!(
            touched.grade("cmd.go"),
            HitGrade::Touched,
            "root, as main.go"
        );
        assert_eq!(touched.grade("internal/config/config.go"), HitGrade::Live);
        assert_eq!(touched.grade("ui/src/App.tsx"), HitGrade::Far);
        assert_eq!(touched.grade(".goreleaser.darwin.yml"), HitGrade::NonCode);
        assert_eq!(
            touched.grade(".github/workflows/test.yml"),
            HitGrade::NonCode
        );
        assert_eq!(
            touched.grade("build/testing/integration.go"),
            HitGrade::NonCode
        );
        assert_eq!(touched.grade("Makefile"), HitGrade::NonCode);
        assert_eq!(
            touched.grade("config/flipt.schema.json"),
            HitGrade::Far,
            "data code reads is graded by where it is"
        );
    }

    #[test]
    fn a_term_is_weak_when_its_nearest_live_file_is_far_or_not_code() {
        let touched = Touched::from_patch(GOLD);
        let nearest = |paths: &[&str]| paths.iter().map(|p| touched.grade(p)).min();
        let far = nearest(&[".goreleaser.darwin.yml", "ui/src/x.ts"]);
        assert_eq!(far, Some(HitGrade::Far));
        assert!(far.is_some_and(HitGrade::is_weak));
        let live = nearest(&[".goreleaser.darwin.yml", "internal/info/flipt.go"]);
        assert_eq!(live, Some(HitGrade::Live));
        assert!(!HitGrade::Live.is_weak());
        let none = Touched::from_patch("");
        assert_eq!(
            none.grade("ui/src/x.ts"),
            HitGrade::Live,
            "no gold patch, no distance"
        );
        assert_eq!(none.grade(".github/ci.yml"), HitGrade::NonCode);
    }

    #[test]
    fn tooling_is_told_by_hidden_parts_folders_and_names() {
        assert!(is_tooling_path(".gitlab-ci.yml"));
        assert!(is_tooling_path("deploy/.env"));
        assert!(is_tooling_path("docker-compose.dev.yml"));
        assert!(is_tooling_path("ci/run.sh"));
        assert!(
            !is_tooling_path("src/build.py"),
            "a file named build is code"
        );
        assert!(!is_tooling_path("public/language/en-GB/error.json"));
        assert!(!is_tooling_path("lib/ansible/config/base.yml"));
    }
}
