//! `ops` called directly, as the desktop app calls it.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::atomic::AtomicBool;

use annotations::ops::{self, AnswerRequest, AnswerStatus};
use serde_json::json;

use verity_testkit::fixture_path;
use verity_testkit::project::{self, T0};

fn empty_project(dir: &Path) -> ops::Project {
    project::init(&dir.join("p.verity"), "swe-bench-verified")
}

/// A project with the SWE-bench fixture's tasks, each assigned to both ana and bo.
fn ana_and_bo_on_every_case(dir: &Path) -> ops::Project {
    let mut p = empty_project(dir);
    project::import(&mut p, &[fixture_path("swebench.jsonl")]);
    ops::add_rater(&mut p, "ana", T0).unwrap();
    ops::add_rater(&mut p, "bo", T0).unwrap();
    ops::assign(&mut p, 2, 1, &ops::CaseSelection::All, T0).unwrap();
    p
}

#[test]
fn a_cancelled_import_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = empty_project(dir.path());
    let cancel = AtomicBool::new(true);
    let err = ops::import_paths(
        &mut p,
        &[fixture_path("swebench.jsonl")],
        T0,
        &mut |_| {},
        &cancel,
    )
    .unwrap_err();
    assert_eq!(err.code(), ops::ErrorCode::Cancelled);
    assert!(
        ops::list_cases(&p, &ops::CaseFilter::default())
            .unwrap()
            .is_empty()
    );
}

/// `rows` copies of the fixture's first task, each with an id of its own, as JSON lines.
fn many_tasks(rows: usize) -> Vec<String> {
    let first = std::fs::read_to_string(fixture_path("swebench.jsonl")).unwrap();
    let first = first.lines().next().unwrap();
    let mut task: serde_json::Value = serde_json::from_str(first).unwrap();
    (0..rows)
        .map(|i| {
            task["instance_id"] = json!(format!("acme__calc-{}", 1000 + i));
            task.to_string()
        })
        .collect()
}

#[test]
fn a_bad_row_after_many_good_ones_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = empty_project(dir.path());
    let mut lines = many_tasks(300);
    let truncated = lines[249].len() / 2;
    lines[249].truncate(truncated);
    let file = dir.path().join("tasks.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let err =
        ops::import_paths(&mut p, &[file], T0, &mut |_| {}, &AtomicBool::new(false)).unwrap_err();
    assert!(err.to_string().contains("line 250"), "{err}");
    assert!(
        ops::list_cases(&p, &ops::CaseFilter::default())
            .unwrap()
            .is_empty(),
        "the 249 rows before it are not kept"
    );
}

#[test]
fn an_import_cancelled_midway_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = empty_project(dir.path());
    let file = dir.path().join("tasks.jsonl");
    std::fs::write(&file, many_tasks(300).join("\n") + "\n").unwrap();
    let cancel = AtomicBool::new(false);
    let mut seen = 0;
    let err = ops::import_paths(
        &mut p,
        &[file],
        T0,
        &mut |progress| {
            seen = progress.records;
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        },
        &cancel,
    )
    .unwrap_err();
    assert_eq!(err.code(), ops::ErrorCode::Cancelled);
    assert_eq!(seen, 64, "cancelled after the first progress report");
    assert!(
        ops::list_cases(&p, &ops::CaseFilter::default())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn progress_is_reported_per_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = empty_project(dir.path());
    let mut steps = Vec::new();
    ops::import_paths(
        &mut p,
        &[fixture_path("swebench.jsonl"), fixture_path("pro.jsonl")],
        T0,
        &mut |step| steps.push((step.paths_done, step.paths_total)),
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(steps, [(1, 2), (2, 2)]);
}

#[test]
fn a_raters_queue_and_case_view_never_carry_other_raters_answers() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = ana_and_bo_on_every_case(dir.path());
    let now = T0;
    let secret = "a very distinctive justification that only ana wrote";
    let req = AnswerRequest {
        rater: "ana".into(),
        case: "acme__calc-101".into(),
        values: json!({"underspecified": 2, "underspecified_notes": secret})
            .as_object()
            .unwrap()
            .clone(),
        case_revision: None,
        reason: None,
    };
    p.act_as(ops::Actor::Rater { name: "ana".into() }).unwrap();
    let saved = ops::save_draft(&mut p, &req, now).unwrap();
    assert_eq!(saved.status, AnswerStatus::InProgress);
    p.act_as(ops::Actor::Rater { name: "bo".into() }).unwrap();
    let queue = serde_json::to_string(&ops::rater_queue(&p, "bo").unwrap()).unwrap();
    let case = serde_json::to_string(&ops::show_case(&p, "acme__calc-101").unwrap()).unwrap();
    let theirs = ops::current_answer(&p, "bo", "acme__calc-101").unwrap();
    for text in [queue, case, serde_json::to_string(&theirs).unwrap()] {
        assert!(!text.contains(secret), "blind: {text}");
    }
    assert_eq!(theirs.status, AnswerStatus::ToDo);
}

/// Titles are what a coordinator scans the case list by: a template word such as "Title" or
/// an empty title says nothing about the task.
#[test]
fn every_swe_bench_pro_and_verified_task_gets_a_real_title() {
    let Some(data) = verity_testkit::shared_data() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut p = empty_project(dir.path());
    ops::import_paths(
        &mut p,
        &[
            data.join("swebench-pro/instances.jsonl"),
            data.join("swebench-verified/instances_complete.jsonl"),
        ],
        T0,
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let cases = ops::list_cases(&p, &ops::CaseFilter::default()).unwrap();
    assert_eq!(cases.len(), 731 + 130);
    let templates = [
        "title",
        "issue title",
        "description",
        "bug report",
        "bug description",
        "feature request",
        "summary",
        "problem",
        "problem statement",
    ];
    for case in &cases {
        let title = &case.title;
        let id = &case.instance_id;
        assert!(!title.is_empty(), "{id} has no title");
        let lower = title.trim_end_matches(':').to_lowercase();
        assert!(
            !templates.contains(&lower.as_str()),
            "{id}: {title:?} is a template word"
        );
        assert!(
            !lower.starts_with("title"),
            "{id}: {title:?} keeps its label"
        );
        for markup in ["**", "##", "<!--", "[ ]", "`"] {
            assert!(
                !title.contains(markup),
                "{id}: {title:?} keeps markup {markup}"
            );
        }
        assert!(title.chars().count() <= 101, "{id}: {title:?} is too long");
    }
}

/// The panel is read in two ways: agreement on each rater's first submission, ensembles and
/// exports on the latest. A revision must reach the second and never the first, whether the
/// answers are read whole (exports) or as their rated values only (agreement, ensemble).
#[test]
fn a_revision_counts_in_the_ensemble_and_exports_and_agreement_keeps_the_first_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = ana_and_bo_on_every_case(dir.path());
    let now = T0;
    let notes = "x".repeat(120);
    let request = |rater: &str, underspecified: i64, reason: Option<&str>| AnswerRequest {
        rater: rater.into(),
        case: "acme__calc-101".into(),
        values: json!({
            "underspecified": underspecified, "underspecified_notes": notes,
            "false_negative": 0, "false_negative_notes": notes,
            "difficulty": "15 min - 1 hour", "difficulty_notes": "small change",
            "other_major_issues": 0, "annotator_confidence": 4
        })
        .as_object()
        .unwrap()
        .clone(),
        case_revision: None,
        reason: reason.map(str::to_owned),
    };
    for rater in ["ana", "bo"] {
        p.act_as(ops::Actor::Rater { name: rater.into() }).unwrap();
        ops::submit_answer(&mut p, &request(rater, 0, None), now).unwrap();
    }
    p.act_as(ops::Actor::Rater { name: "ana".into() }).unwrap();
    ops::revise_answer(
        &mut p,
        &request("ana", 3, Some("read the tests again")),
        now,
    )
    .unwrap();
    p.act_as(ops::Actor::Coordinator).unwrap();

    let agreement = ops::project_agreement(&p, &ops::AgreementRequest::default()).unwrap();
    let under = &agreement.questions[0];
    assert_eq!(under.question, "underspecified");
    assert_eq!(
        under.report.percent_agreement,
        Some(1.0),
        "agreement is on the first submissions, both 0"
    );
    let labels = ops::ensemble_labels(&p, Some("max-severity")).unwrap();
    let label = labels.cases[0]
        .labels
        .iter()
        .find(|l| l.question == "underspecified")
        .unwrap();
    assert_eq!(
        label.value,
        Some(json!(3)),
        "the ensemble takes the revision"
    );

    let mut out = Vec::new();
    ops::export_project(
        &p,
        ops::ExportFormat::Jsonl,
        &ops::ExportOptions::default(),
        &mut out,
        Path::new("out.jsonl"),
    )
    .unwrap();
    let line: serde_json::Value =
        serde_json::from_str(String::from_utf8(out).unwrap().trim()).unwrap();
    assert_eq!(line["answers"]["ana"]["underspecified"], 3);
    assert_eq!(
        line["answers"]["ana"]["underspecified_notes"],
        notes.as_str()
    );
    assert_eq!(line["answers"]["bo"]["underspecified"], 0);
    assert_eq!(line["agreement"]["underspecified"], 0.0);
}
