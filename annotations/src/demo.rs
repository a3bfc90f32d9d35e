//! The embedded demo project: a small Python library, `verity-demo/tinylib`, with a short
//! history, and twelve SWE-bench-style tasks set at its commits.
//!
//! The README's first command opens the desktop app on this project, so a new user sees real
//! issue texts, gold and test patches, and evidence computed from a real repository. Every file
//! is compiled into the binary: the tasks from `assets/demo/tasks.jsonl`, and the repository as
//! plain-file snapshots under `assets/demo/repo/<n>/`, where folder `n` holds the files that
//! commit `n` adds or changes (the history never deletes a file).
//!
//! The demo project opens on a finished round ([`DEMO_ROUND_TOML`], [`demo_round`]): every
//! demo rater's submitted answers on every task with their active time, one adjudication, and
//! reference labels for six tasks in OpenAI's ensembled format ([`DEMO_REFERENCE_CSV`]).
//!
//! [`write_demo_repository`] turns the snapshots into a bare git repository. Author,
//! committer, e-mail and timestamps are pinned, so the commit ids are the same on every
//! machine and equal the `base_commit` values of the tasks. The evidence crate only *reads*
//! repositories (and its `clone` module fetches them); this module is the core's one place that
//! *writes* one, because the demo must exist before any evidence can be computed.
//!
//! ```no_run
//! let dir = std::path::Path::new("/tmp/verity-demo");
//! let git_dir = annotations::demo::write_demo_repository(dir)?;
//! assert!(git_dir.ends_with("tinylib.git"));
//! assert_eq!(annotations::demo::DEMO_TASKS_JSONL.lines().count(), 12);
//! # Ok::<(), annotations::demo::DemoError>(())
//! ```

use std::path::{Path, PathBuf};

use git2::{FileMode, Oid, Repository, RepositoryInitOptions, Signature, Time};

/// The demo tasks, one JSON object a line, in the SWE-bench Hugging Face format
/// (`FAIL_TO_PASS` and `PASS_TO_PASS` are JSON-encoded strings). Two tasks also carry
/// SWE-bench Pro's `requirements` and `interface` fields.
pub const DEMO_TASKS_JSONL: &str = include_str!("../../assets/demo/tasks.jsonl");

/// The finished round the demo project opens with (see [`demo_round`]).
pub const DEMO_ROUND_TOML: &str = include_str!("../../assets/demo/round.toml");

/// Reference labels for six demo tasks, in the format of OpenAI's ensembled annotation file;
/// the demo imports it as the reference set named after the file, [`DEMO_REFERENCE_SET`].
pub const DEMO_REFERENCE_CSV: &str = include_str!("../../assets/demo/demo-reference.csv");

/// The name of the demo's reference set, and the stem of the file it is imported from.
pub const DEMO_REFERENCE_SET: &str = "demo-reference";

/// The demo's finished round, as written in `assets/demo/round.toml`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoRound {
    /// When the coordinator set the round up, RFC 3339.
    pub started_at: String,
    /// Every rater's submitted answer, in no particular order.
    pub answers: Vec<DemoAnswer>,
    /// The coordinator's decisions.
    pub adjudications: Vec<DemoAdjudication>,
}

/// One rater's submitted answer on one task.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct DemoAnswer {
    /// The task's instance id.
    pub task: String,
    /// The rater, one of [`DEMO_RATERS`].
    pub rater: String,
    /// When it was submitted, RFC 3339.
    pub submitted_at: String,
    /// The active time the rater spent on the task.
    pub active_seconds: i64,
    /// Question id to answer: every other key of the entry.
    #[serde(flatten)]
    pub values: serde_json::Map<String, serde_json::Value>,
}

/// One adjudication of the round.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoAdjudication {
    /// The task's instance id.
    pub task: String,
    /// The question's id.
    pub question: String,
    /// The decided value.
    pub value: serde_json::Value,
    /// Why.
    pub rationale: String,
    /// Who decided.
    pub by: String,
    /// When, RFC 3339.
    pub at: String,
}

/// Reads the embedded finished round.
///
/// # Errors
/// The TOML parser's error when `assets/demo/round.toml` does not have the expected shape (a
/// test reads it, so a release never does).
pub fn demo_round() -> Result<DemoRound, toml::de::Error> {
    toml::from_str(DEMO_ROUND_TOML)
}

/// The `repo` field (owner/name) of every demo task.
pub const DEMO_REPO: &str = "verity-demo/tinylib";

/// The three raters the demo project is set up with.
pub const DEMO_RATERS: &[&str] = &["Amara Nwosu", "Tomas Ibarra", "Lena Vogt"];

/// The branch that points at the newest demo commit.
pub const DEMO_BRANCH: &str = "main";

/// Name of the bare repository folder that [`write_demo_repository`] creates.
pub const DEMO_REPOSITORY_DIR: &str = "tinylib.git";

/// Author and committer of every demo commit.
const DEMO_AUTHOR_NAME: &str = "Mira Okafor";
const DEMO_AUTHOR_EMAIL: &str = "mira@tinylib.example";

/// One file of a demo commit: its path in the repository and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct DemoFile {
    /// Path inside the repository, `/`-separated.
    pub path: &'static str,
    /// The file's contents as committed.
    pub contents: &'static [u8],
}

/// One commit of the demo history.
#[derive(Debug, Clone, Copy)]
pub struct DemoCommit {
    /// The commit id this snapshot must produce; the tasks' `base_commit` values refer to it.
    pub id: &'static str,
    /// Author and committer time, seconds since the Unix epoch, UTC.
    pub time: i64,
    /// The full commit message, ending with a newline as `git commit -m` writes it.
    pub message: &'static str,
    /// The files this commit adds or changes relative to its parent.
    pub files: &'static [DemoFile],
}

// Lists a snapshot folder's files and embeds each one. The listing is checked against the
// folder by a test, so a file added to the folder but not here is caught.
macro_rules! demo_files {
    ($dir:literal; $($path:literal),* $(,)?) => {
        &[$(DemoFile {
            path: $path,
            contents: include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"), "/../assets/demo/repo/", $dir, "/", $path
            )),
        }),*]
    };
}

/// The demo history, oldest commit first; commit `n` (1-based) is the folder
/// `assets/demo/repo/<n>/`.
pub const DEMO_HISTORY: &[DemoCommit] = &[
    DemoCommit {
        id: "8e6d617fdcd56193208636a91faea85600d102e2",
        time: 1709546400,
        message: "Initial import of tinylib 0.1.0\n",
        files: demo_files!("1";
            ".gitignore",
            "LICENSE",
            "README.md",
            "docs/index.md",
            "docs/logo.png",
            "pyproject.toml",
            "tests/conftest.py",
            "tests/data/people.csv",
            "tests/test_csv.py",
            "tests/test_durations.py",
            "tests/test_formatting.py",
            "tests/test_sizes.py",
            "tinylib/__init__.py",
            "tinylib/_version.py",
            "tinylib/constants.py",
            "tinylib/durations.py",
            "tinylib/errors.py",
            "tinylib/formatting.py",
            "tinylib/readers/__init__.py",
            "tinylib/readers/csv.py",
            "tinylib/sizes.py",
            "tinylib/vendor/README.md",
            "tinylib/vendor/__init__.py",
            "tinylib/vendor/backoff.py",
            "tinylib/writers/__init__.py",
            "tinylib/writers/csv.py",
        ),
    },
    DemoCommit {
        id: "52c4a99d49f5d6d05471d999c57979400d1db9fe",
        time: 1713175200,
        message: "Add TTLCache and the retry decorator\n",
        files: demo_files!("2";
            "docs/changelog.md",
            "docs/usage.md",
            "tests/test_cache.py",
            "tests/test_retry.py",
            "tinylib/__init__.py",
            "tinylib/_version.py",
            "tinylib/cache.py",
            "tinylib/errors.py",
            "tinylib/retry.py",
        ),
    },
    DemoCommit {
        id: "9b571b812a8e001b62146164104edc6f37f48937",
        time: 1717322400,
        message: "Add JSON Lines reader and writer and the config loader\n",
        files: demo_files!("3";
            "docs/changelog.md",
            "tests/data/events.jsonl",
            "tests/data/settings.ini",
            "tests/test_config.py",
            "tests/test_jsonl.py",
            "tinylib/__init__.py",
            "tinylib/_version.py",
            "tinylib/config.py",
            "tinylib/readers/jsonl.py",
            "tinylib/writers/jsonl.py",
        ),
    },
    DemoCommit {
        id: "b0e9876bd195bf7faf2295780d13023a4f7a203b",
        time: 1724061600,
        message: "Add the Table class and the tinylib command\n",
        files: demo_files!("4";
            "docs/changelog.md",
            "docs/cli.md",
            "pyproject.toml",
            "tests/test_cli.py",
            "tests/test_table.py",
            "tinylib/__init__.py",
            "tinylib/__main__.py",
            "tinylib/_version.py",
            "tinylib/cli.py",
            "tinylib/table.py",
        ),
    },
];

/// Errors while writing the demo repository.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The target folder exists but is not a git repository git2 can open.
    #[error(
        "The demo repository folder {path} exists but could not be opened as a git repository: {source}."
    )]
    Open {
        /// The repository folder.
        path: PathBuf,
        /// What git2 reported.
        source: git2::Error,
    },
    /// A new bare repository could not be created.
    #[error("Could not create the demo repository at {path}: {source}.")]
    Init {
        /// The repository folder.
        path: PathBuf,
        /// What git2 reported.
        source: git2::Error,
    },
    /// Writing a blob, tree, commit or the branch failed.
    #[error("Writing commit {commit} ({file}) of the demo repository at {path} failed: {source}.")]
    Write {
        /// The repository folder.
        path: PathBuf,
        /// The 1-based number of the commit being written.
        commit: usize,
        /// The file being written, or the object kind when no single file is involved.
        file: String,
        /// What git2 reported.
        source: git2::Error,
    },
    /// A commit came out with an id other than the pinned one, so the tasks' base commits
    /// would not exist in the repository.
    #[error(
        "Commit {commit} of the demo repository at {path} has id {actual}, but the demo tasks expect {expected}."
    )]
    CommitMismatch {
        /// The repository folder.
        path: PathBuf,
        /// The 1-based number of the commit.
        commit: usize,
        /// The pinned id.
        expected: String,
        /// The id git2 produced.
        actual: String,
    },
}

/// Writes the demo repository as a bare repository at `dir/tinylib.git` and returns that path.
///
/// Creates `dir` if needed. When the repository already holds every demo commit and its
/// `main` branch points at the newest one, it is reused untouched; otherwise the missing
/// objects are written (git objects are content-addressed, so rewriting is harmless) and
/// `main` is set to the newest commit.
///
/// # Errors
/// [`DemoError`] when the folder cannot be opened or created, an object cannot be written,
/// or a commit does not come out with its pinned id.
pub fn write_demo_repository(dir: &Path) -> Result<PathBuf, DemoError> {
    let path = dir.join(DEMO_REPOSITORY_DIR);
    let repo = open_or_init(&path)?;
    if holds_demo_history(&repo) {
        return Ok(path);
    }
    let mut parent: Option<git2::Commit<'_>> = None;
    for (index, snapshot) in DEMO_HISTORY.iter().enumerate() {
        let number = index + 1;
        let write_error = |file: &str| {
            let path = path.clone();
            let file = file.to_owned();
            move |source| DemoError::Write {
                path,
                commit: number,
                file,
                source,
            }
        };
        let baseline = match &parent {
            Some(commit) => commit.tree().map_err(write_error("parent tree"))?,
            None => {
                let empty = repo
                    .treebuilder(None)
                    .and_then(|builder| builder.write())
                    .map_err(write_error("empty tree"))?;
                repo.find_tree(empty).map_err(write_error("empty tree"))?
            }
        };
        let mut update = git2::build::TreeUpdateBuilder::new();
        for file in snapshot.files {
            let blob = repo.blob(file.contents).map_err(write_error(file.path))?;
            update.upsert(file.path, blob, FileMode::Blob);
        }
        let tree_id = update
            .create_updated(&repo, &baseline)
            .map_err(write_error("tree"))?;
        let tree = repo.find_tree(tree_id).map_err(write_error("tree"))?;
        let signature = Signature::new(
            DEMO_AUTHOR_NAME,
            DEMO_AUTHOR_EMAIL,
            &Time::new(snapshot.time, 0),
        )
        .map_err(write_error("signature"))?;
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        let id = repo
            .commit(
                None,
                &signature,
                &signature,
                snapshot.message,
                &tree,
                &parents,
            )
            .map_err(write_error("commit"))?;
        if id.to_string() != snapshot.id {
            return Err(DemoError::CommitMismatch {
                path: path.clone(),
                commit: number,
                expected: snapshot.id.to_owned(),
                actual: id.to_string(),
            });
        }
        parent = Some(repo.find_commit(id).map_err(write_error("commit"))?);
    }
    if let Some(head) = &parent {
        let number = DEMO_HISTORY.len();
        repo.reference(
            &format!("refs/heads/{DEMO_BRANCH}"),
            head.id(),
            true,
            "verity: write the demo repository",
        )
        .map_err(|source| DemoError::Write {
            path: path.clone(),
            commit: number,
            file: format!("refs/heads/{DEMO_BRANCH}"),
            source,
        })?;
    }
    Ok(path)
}

fn open_or_init(path: &Path) -> Result<Repository, DemoError> {
    if path.exists() {
        return Repository::open_bare(path).map_err(|source| DemoError::Open {
            path: path.to_path_buf(),
            source,
        });
    }
    let mut options = RepositoryInitOptions::new();
    options.bare(true).initial_head(DEMO_BRANCH).mkpath(true);
    Repository::init_opts(path, &options).map_err(|source| DemoError::Init {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether every demo commit is present and `main` points at the newest one.
fn holds_demo_history(repo: &Repository) -> bool {
    let all_present = DEMO_HISTORY.iter().all(|snapshot| {
        Oid::from_str(snapshot.id)
            .and_then(|id| repo.find_commit(id))
            .is_ok()
    });
    let head_matches = repo
        .find_reference(&format!("refs/heads/{DEMO_BRANCH}"))
        .ok()
        .and_then(|reference| reference.target())
        .zip(DEMO_HISTORY.last())
        .is_some_and(|(target, newest)| target.to_string() == newest.id);
    all_present && head_matches
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks() -> Vec<serde_json::Value> {
        DEMO_TASKS_JSONL
            .lines()
            .map(|line| serde_json::from_str(line).expect("every line of tasks.jsonl is JSON"))
            .collect()
    }

    #[test]
    fn twelve_tasks_with_unique_ids_in_the_demo_repo() {
        let tasks = tasks();
        assert_eq!(tasks.len(), 12);
        let mut ids: Vec<&str> = tasks
            .iter()
            .map(|task| {
                task["instance_id"]
                    .as_str()
                    .expect("instance_id is a string")
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 12, "instance ids are unique");
        assert!(tasks.iter().all(|task| task["repo"] == DEMO_REPO));
    }

    #[test]
    fn every_task_has_the_swebench_fields() {
        for task in tasks() {
            let id = task["instance_id"].as_str().unwrap_or("?").to_owned();
            for field in [
                "problem_statement",
                "hints_text",
                "patch",
                "test_patch",
                "version",
                "created_at",
                "environment_setup_commit",
            ] {
                assert!(task[field].is_string(), "{id}: {field} is a string");
            }
            for field in ["FAIL_TO_PASS", "PASS_TO_PASS"] {
                let encoded = task[field]
                    .as_str()
                    .expect("test lists are JSON-encoded strings");
                let list: Vec<String> =
                    serde_json::from_str(encoded).expect("test lists decode to lists of strings");
                if field == "FAIL_TO_PASS" {
                    assert!(!list.is_empty(), "{id}: FAIL_TO_PASS is not empty");
                }
            }
        }
    }

    #[test]
    fn every_base_commit_is_a_pinned_demo_commit() {
        for task in tasks() {
            let base = task["base_commit"]
                .as_str()
                .expect("base_commit is a string");
            assert!(
                DEMO_HISTORY.iter().any(|commit| commit.id == base),
                "{base} is one of the demo commits"
            );
        }
    }

    #[test]
    fn two_tasks_carry_pro_fields() {
        let with_pro = tasks()
            .iter()
            .filter(|task| task["requirements"].is_string() && task["interface"].is_string())
            .count();
        assert_eq!(with_pro, 2);
    }

    #[test]
    fn the_round_has_every_rater_once_on_every_task() {
        let round = demo_round().expect("round.toml reads");
        let tasks = tasks();
        let mut pairs: Vec<(&str, &str)> = round
            .answers
            .iter()
            .map(|a| (a.task.as_str(), a.rater.as_str()))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        assert_eq!(
            pairs.len(),
            round.answers.len(),
            "no rater answers a task twice"
        );
        assert_eq!(round.answers.len(), tasks.len() * DEMO_RATERS.len());
        for answer in &round.answers {
            assert!(
                DEMO_RATERS.contains(&answer.rater.as_str()),
                "{} is a demo rater",
                answer.rater
            );
            assert!(
                tasks
                    .iter()
                    .any(|t| t["instance_id"] == answer.task.as_str()),
                "{} is a demo task",
                answer.task
            );
        }
        assert_eq!(round.adjudications.len(), 1);
    }

    #[test]
    fn three_raters_with_distinct_names() {
        let mut names = DEMO_RATERS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 3);
    }
}
