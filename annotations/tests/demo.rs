//! The embedded demo project: the repository builds reproducibly, every task sits at one of
//! its commits, and every gold and test patch applies there with the git command line. The
//! demo project opens on a finished round whose figures are all defined; the empty demo holds
//! no answers.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use annotations::demo::{
    DEMO_HISTORY, DEMO_RATERS, DEMO_REFERENCE_SET, DEMO_TASKS_JSONL, demo_round,
    write_demo_repository,
};
use annotations::ops::{self, Actor, AnswerStatus, Project};
use time::macros::datetime;
use verity_task::questionnaire::Stage;

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

/// Every rater's current answer on every task, with when it was saved, in a fixed order.
fn answers_of(project: &mut Project) -> Vec<(String, String, serde_json::Value, Option<String>)> {
    let mut out = Vec::new();
    for rater in DEMO_RATERS {
        project
            .act_as(Actor::Rater {
                name: rater.to_string(),
            })
            .unwrap();
        for item in ops::rater_queue(project, rater).unwrap() {
            let answer = ops::current_answer(project, rater, &item.instance_id).unwrap();
            out.push((
                rater.to_string(),
                item.instance_id,
                serde_json::Value::Object(answer.values),
                answer.saved_at,
            ));
        }
    }
    project.act_as(Actor::Coordinator).unwrap();
    out
}

#[test]
fn every_answer_of_the_round_passes_the_questionnaire() {
    let dir = tempfile::tempdir().unwrap();
    let project = ops::open_demo_project(dir.path()).unwrap();
    let round = demo_round().unwrap();
    for answer in &round.answers {
        let violations = project
            .questionnaire()
            .validate(&answer.values, Stage::Submit);
        assert!(
            violations.is_empty(),
            "{} on {}: {violations:?}",
            answer.rater,
            answer.task
        );
    }
}

#[test]
fn the_demo_opens_on_a_finished_round_with_every_rater_on_every_task() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = ops::open_demo_project(dir.path()).unwrap();
    let answers = answers_of(&mut project);
    assert_eq!(answers.len(), 12 * DEMO_RATERS.len());
    let cases = ops::list_cases(&project, &ops::CaseFilter::default()).unwrap();
    assert_eq!(cases.len(), 12);
    for case in &cases {
        assert_eq!(case.assignments.len(), 3, "{}", case.instance_id);
        assert!(
            case.assignments
                .iter()
                .all(|a| a.status == AnswerStatus::Submitted),
            "every rater submitted {}",
            case.instance_id
        );
    }
}

#[test]
fn on_first_open_agreement_disagreements_and_the_ensemble_have_real_figures() {
    let dir = tempfile::tempdir().unwrap();
    let project = ops::open_demo_project(dir.path()).unwrap();

    let agreement = ops::project_agreement(&project, &ops::AgreementRequest::default()).unwrap();
    assert_eq!(agreement.cases, 12);
    assert_eq!(agreement.raters.len(), 3);
    for question in &agreement.questions {
        let alpha = question
            .coefficients
            .iter()
            .find(|c| c.key.starts_with("krippendorff_alpha"))
            .unwrap();
        assert!(
            alpha.value.is_some(),
            "alpha of {} is defined: {:?}",
            question.question,
            alpha.reason
        );
    }

    let disagreements = ops::list_disagreements(&project).unwrap();
    for question in ["underspecified", "false_negative"] {
        let on = disagreements
            .iter()
            .filter(|d| d.question == question)
            .count();
        assert!(
            (2..=6).contains(&on),
            "a few tasks split on {question}, not none and not most: {on}"
        );
    }
    let adjudicated: Vec<_> = disagreements
        .iter()
        .filter_map(|d| d.adjudication.as_ref().map(|a| &a.decision))
        .collect();
    assert_eq!(adjudicated.len(), 1, "exactly one adjudication");
    assert!(adjudicated[0].rationale.len() > 50);

    let ensemble = ops::ensemble_labels(&project, None).unwrap();
    assert_eq!(ensemble.cases.len(), 12);
    assert_eq!(ensemble.undecided, 0);
    assert!(ensemble.kept > 0 && ensemble.filtered_out > 0);
    let decided = ensemble
        .cases
        .iter()
        .find(|c| c.instance_id == adjudicated[0].case)
        .unwrap()
        .labels
        .iter()
        .find(|l| l.question == adjudicated[0].question)
        .unwrap();
    assert_eq!(decided.value.as_ref(), Some(&adjudicated[0].value));
    assert_eq!(decided.procedure.as_deref(), Some("adjudicated"));
}

#[test]
fn rater_quality_measures_everyone_against_the_reference_and_flags_the_fast_rater() {
    let dir = tempfile::tempdir().unwrap();
    let project = ops::open_demo_project(dir.path()).unwrap();
    let calibration = ops::calibration(&project).unwrap();
    assert_eq!(
        calibration.tasks.len(),
        6,
        "the reference tasks are calibration tasks"
    );
    let quality = ops::rater_quality(
        &project,
        &ops::QualityRequest {
            bootstrap: Some(200),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(quality.reference.as_deref(), Some(DEMO_REFERENCE_SET));
    assert!(quality.calibration_marked);
    assert_eq!(quality.raters.len(), 3);
    for rater in &quality.raters {
        assert_eq!(rater.tasks, 12, "{}", rater.rater);
        assert_eq!(rater.calibration_tasks, 6, "{}", rater.rater);
        for question in ["underspecified", "false_negative", "difficulty"] {
            assert!(
                rater.accuracy[question].is_some(),
                "{}: accuracy on {question} is defined: {:?}",
                rater.rater,
                rater.reasons
            );
            assert!(
                rater.questions[question].kappa_vs_consensus.is_some(),
                "{}: kappa against the others on {question} is defined: {:?}",
                rater.rater,
                rater.reasons
            );
        }
        assert!(rater.bias["false_negative"].mean.is_some());
    }
    let by_name = |name: &str| quality.raters.iter().find(|r| r.rater == name).unwrap();
    let fast = by_name("Lena Vogt");
    let fast_median = fast.median_active_seconds.unwrap();
    for careful in ["Amara Nwosu", "Tomas Ibarra"] {
        let other = by_name(careful);
        assert!(
            fast_median * 3.0 < other.median_active_seconds.unwrap(),
            "Lena Vogt ({fast_median} s) is much faster than {careful}"
        );
        assert!(
            other.fast_submissions.is_empty(),
            "{careful} rushes nothing"
        );
        assert!(
            fast.accuracy["false_negative"].unwrap() < other.accuracy["false_negative"].unwrap(),
            "the fast rater misses test-scoping problems that {careful} catches"
        );
    }
    assert!(
        (1..=2).contains(&fast.fast_submissions.len()),
        "one or two very fast submissions are flagged: {:?}",
        fast.fast_submissions
    );
}

#[test]
fn the_demo_is_the_same_on_every_creation_and_reopening() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    let mut a = ops::open_demo_project(first.path()).unwrap();
    let mut b = ops::open_demo_project(second.path()).unwrap();
    let answers = answers_of(&mut a);
    assert_eq!(answers, answers_of(&mut b));
    assert!(answers.iter().all(|(_, _, _, at)| at.is_some()));
    let disagreements =
        |p: &Project| serde_json::to_value(ops::list_disagreements(p).unwrap()).unwrap();
    assert_eq!(disagreements(&a), disagreements(&b));
    drop(a);
    let mut again = ops::open_demo_project(first.path()).unwrap();
    assert_eq!(answers_of(&mut again), answers, "reopening replays nothing");
}

#[test]
fn the_empty_demo_has_the_same_tasks_and_no_answers() {
    let dir = tempfile::tempdir().unwrap();
    let now = datetime!(2026-01-02 03:04:05 UTC);
    let finished = ops::open_demo_project(dir.path()).unwrap();
    let empty = ops::open_empty_demo_project(dir.path(), now).unwrap();
    assert_ne!(
        finished.path(),
        empty.path(),
        "a second project file beside the demo"
    );
    let cases = ops::list_cases(&empty, &ops::CaseFilter::default()).unwrap();
    assert_eq!(cases.len(), 12);
    assert!(cases.iter().all(|c| {
        c.assignments.len() == 2 && c.assignments.iter().all(|a| a.status == AnswerStatus::ToDo)
    }));
    assert!(ops::list_disagreements(&empty).unwrap().is_empty());
    assert!(ops::ensemble_labels(&empty, None).unwrap().cases.is_empty());
    assert!(ops::calibration(&empty).unwrap().tasks.is_empty());
}
