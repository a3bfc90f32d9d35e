//! The embedded demo project: the repository builds reproducibly, every task sits at one of
//! its commits, and every gold and test patch applies there with the git command line.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use annotations::demo::{DEMO_HISTORY, DEMO_TASKS_JSONL, write_demo_repository};

struct Task {
    id: String,
    base_commit: String,
    patch: String,
    test_patch: String,
    fail_to_pass: Vec<String>,
}

fn tasks() -> Vec<Task> {
    DEMO_TASKS_JSONL
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = |field: &str| value[field].as_str().unwrap().to_owned();
            Task {
                id: text("instance_id"),
                base_commit: text("base_commit"),
                patch: text("patch"),
                test_patch: text("test_patch"),
                fail_to_pass: serde_json::from_str(&text("FAIL_TO_PASS")).unwrap(),
            }
        })
        .collect()
}

/// Runs git in `dir` and returns its stdout, failing the test with git's stderr otherwise.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the git command line is installed");
    assert!(
        output.status.success(),
        "git {args:?} in {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn commit_ids(git_dir: &Path) -> Vec<String> {
    git(git_dir, &["rev-list", "--reverse", "main"])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A working clone of the demo repository for applying patches.
fn clone(git_dir: &Path, into: &Path) -> PathBuf {
    let work = into.join("work");
    git(
        into,
        &[
            "clone",
            "--quiet",
            "--no-checkout",
            git_dir.to_str().unwrap(),
            "work",
        ],
    );
    work
}

#[test]
fn repository_builds_with_the_pinned_commit_ids() {
    let temp = tempfile::tempdir().unwrap();
    let git_dir = write_demo_repository(temp.path()).unwrap();
    let expected: Vec<&str> = DEMO_HISTORY.iter().map(|commit| commit.id).collect();
    assert_eq!(commit_ids(&git_dir), expected);
    git(&git_dir, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn building_twice_gives_the_same_commits_and_reuses_an_existing_repository() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    let a = write_demo_repository(first.path()).unwrap();
    let b = write_demo_repository(second.path()).unwrap();
    assert_eq!(commit_ids(&a), commit_ids(&b));
    let again = write_demo_repository(first.path()).unwrap();
    assert_eq!(again, a);
    assert_eq!(commit_ids(&again), commit_ids(&a));
}

#[test]
fn an_existing_repository_with_a_moved_branch_is_restored() {
    let temp = tempfile::tempdir().unwrap();
    let git_dir = write_demo_repository(temp.path()).unwrap();
    let first = DEMO_HISTORY[0].id;
    git(&git_dir, &["update-ref", "refs/heads/main", first]);
    write_demo_repository(temp.path()).unwrap();
    let newest = DEMO_HISTORY.last().unwrap().id;
    assert_eq!(git(&git_dir, &["rev-parse", "main"]).trim(), newest);
}

#[test]
fn a_folder_that_is_not_a_repository_is_an_error_naming_it() {
    let temp = tempfile::tempdir().unwrap();
    let folder = temp.path().join("tinylib.git");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("notes.txt"), "not a repository").unwrap();
    let error = write_demo_repository(temp.path()).unwrap_err();
    assert!(
        error.to_string().contains(&folder.display().to_string()),
        "the message names the folder: {error}"
    );
}

#[test]
fn every_base_commit_exists_and_every_patch_applies_there() {
    let temp = tempfile::tempdir().unwrap();
    let git_dir = write_demo_repository(temp.path()).unwrap();
    let work = clone(&git_dir, temp.path());
    let tasks = tasks();
    assert_eq!(tasks.len(), 12);
    for task in &tasks {
        git(
            &git_dir,
            &[
                "cat-file",
                "-e",
                &format!("{}^{{commit}}", task.base_commit),
            ],
        );
        git(
            &work,
            &["checkout", "--quiet", "--detach", &task.base_commit],
        );
        let gold = temp.path().join(format!("{}.gold.diff", task.id));
        let test = temp.path().join(format!("{}.test.diff", task.id));
        std::fs::write(&gold, &task.patch).unwrap();
        std::fs::write(&test, &task.test_patch).unwrap();
        let (gold, test) = (gold.to_str().unwrap(), test.to_str().unwrap());
        git(&work, &["apply", "--check", gold]);
        git(&work, &["apply", "--check", test]);

        // Both patches together, as the grader applies them, and the F2P tests' files exist.
        git(&work, &["apply", gold]);
        git(&work, &["apply", test]);
        for test_id in &task.fail_to_pass {
            let file = test_id.split("::").next().unwrap();
            assert!(
                work.join(file).is_file(),
                "{}: FAIL_TO_PASS test {test_id} names {file}, which exists after the test patch",
                task.id
            );
        }
        git(&work, &["reset", "--quiet", "--hard"]);
        git(&work, &["clean", "--quiet", "-fd"]);
    }
}

#[test]
fn the_manifest_lists_every_snapshot_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/demo/repo");
    for (index, commit) in DEMO_HISTORY.iter().enumerate() {
        let dir = root.join((index + 1).to_string());
        let mut on_disk = BTreeSet::new();
        collect_files(&dir, &dir, &mut on_disk);
        let listed: BTreeSet<String> = commit.files.iter().map(|f| f.path.to_owned()).collect();
        assert_eq!(
            listed,
            on_disk,
            "the listing of commit {} matches {}",
            index + 1,
            dir.display()
        );
    }
}

fn collect_files(root: &Path, dir: &Path, into: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_files(root, &path, into);
        } else {
            let relative = path.strip_prefix(root).unwrap();
            into.insert(relative.to_str().unwrap().replace('\\', "/"));
        }
    }
}
