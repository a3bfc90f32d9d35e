//! The `ops` functions the desktop app adds: the demo project and the case view.
#![allow(clippy::unwrap_used)]

use annotations::ops;
use time::macros::datetime;

#[test]
fn a_draft_in_the_empty_demo_project_survives_reopening_it() {
    let dir = tempfile::tempdir().unwrap();
    let now = datetime!(2026-01-02 03:04:05 UTC);
    let mut project = ops::open_empty_demo_project(dir.path(), now).unwrap();
    let rater = annotations::demo::DEMO_RATERS[0];
    let as_rater = ops::Actor::Rater {
        name: rater.to_string(),
    };
    project.act_as(as_rater.clone()).unwrap();
    let case = ops::rater_queue(&project, rater).unwrap()[0]
        .instance_id
        .clone();
    let values = serde_json::json!({"underspecified": 2, "underspecified_notes": "draft"});
    let req = ops::AnswerRequest {
        rater: rater.to_string(),
        case: case.clone(),
        values: values.as_object().unwrap().clone(),
        case_revision: None,
        reason: None,
    };
    ops::save_draft(&mut project, &req, now).unwrap();
    drop(project);
    let mut project = ops::open_empty_demo_project(dir.path(), now).unwrap();
    project.act_as(as_rater).unwrap();
    let answer = ops::current_answer(&project, rater, &case).unwrap();
    assert_eq!(
        answer.values,
        *values.as_object().unwrap(),
        "the app restarts on the same demo project"
    );
}

#[test]
fn case_view_renders_sanitized_issue_parsed_patches_and_linked_tests() {
    let dir = tempfile::tempdir().unwrap();
    let project = ops::open_demo_project(dir.path()).unwrap();
    let mut linked = 0;
    for case in ops::list_cases(&project, &ops::CaseFilter::default()).unwrap() {
        let view = ops::case_view(&project, &case.instance_id).unwrap();
        assert!(
            !view.problem.html.is_empty(),
            "{}: issue text renders",
            case.instance_id
        );
        assert!(!view.problem.html.contains("<script"));
        assert_eq!(
            view.gold_patch.error, None,
            "{}: gold patch parses",
            case.instance_id
        );
        assert_eq!(
            view.test_patch.error, None,
            "{}: test patch parses",
            case.instance_id
        );
        assert!(!view.gold_patch.view.files.is_empty());
        linked += view
            .fail_to_pass
            .iter()
            .filter(|t| t.location.is_some())
            .count();
    }
    assert!(
        linked > 0,
        "FAIL_TO_PASS tests of the demo link to their hunks"
    );
}

#[test]
fn case_view_of_an_unknown_case_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let project = ops::open_demo_project(dir.path()).unwrap();
    let err = ops::case_view(&project, "nope").unwrap_err();
    assert_eq!(err.code(), ops::ErrorCode::NotFound);
}

/// Every page of a rater's queue, `limit` tasks at a time.
fn all_pages(project: &ops::Project, query: &ops::QueueQuery, limit: u32) -> Vec<ops::QueueItem> {
    let mut items = Vec::new();
    loop {
        let page = ops::queue_page(
            project,
            &ops::QueueQuery {
                offset: items.len() as u32,
                limit,
                ..query.clone()
            },
        )
        .unwrap();
        let done = page.items.is_empty();
        items.extend(page.items);
        if done || items.len() as u32 >= page.total {
            return items;
        }
    }
}

#[test]
fn queue_pages_follow_the_queue_and_see_a_saved_draft_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let now = datetime!(2026-01-02 03:04:05 UTC);
    let mut project = ops::open_empty_demo_project(dir.path(), now).unwrap();
    let rater = annotations::demo::DEMO_RATERS[0];
    project
        .act_as(ops::Actor::Rater {
            name: rater.to_string(),
        })
        .unwrap();
    let whole = ops::rater_queue(&project, rater).unwrap();
    assert!(whole.len() > 2, "the demo rater has a queue");
    let query = ops::QueueQuery {
        rater: rater.to_string(),
        offset: 0,
        limit: 2,
        status: None,
        search: String::new(),
    };
    let ids = |items: &[ops::QueueItem]| -> Vec<String> {
        items.iter().map(|i| i.instance_id.clone()).collect()
    };
    assert_eq!(
        ids(&all_pages(&project, &query, 2)),
        ids(&whole),
        "the pages, one after the other, are the queue"
    );
    let first = ops::queue_page(&project, &query).unwrap();
    assert_eq!(first.total as usize, whole.len());
    assert_eq!(first.counts.to_do as usize, whole.len());

    // A search keeps the tasks whose id, repository or title holds it, whatever the case.
    let title_word = whole[1]
        .title
        .split_whitespace()
        .next()
        .unwrap()
        .to_uppercase();
    let found = all_pages(
        &project,
        &ops::QueueQuery {
            search: format!("  {title_word} "),
            ..query.clone()
        },
        50,
    );
    assert!(ids(&found).contains(&whole[1].instance_id));
    assert!(found.iter().all(|i| {
        format!("{} {} {}", i.instance_id, i.repo, i.title)
            .to_uppercase()
            .contains(&title_word)
    }));

    assert_eq!(
        ops::next_task(&project, rater, None).unwrap().as_deref(),
        Some(whole[0].instance_id.as_str()),
        "with nothing started, the first task is next"
    );
    let case = whole[1].instance_id.clone();
    let values = serde_json::json!({"underspecified": 2});
    ops::save_draft(
        &mut project,
        &ops::AnswerRequest {
            rater: rater.to_string(),
            case: case.clone(),
            values: values.as_object().unwrap().clone(),
            case_revision: None,
            reason: None,
        },
        now,
    )
    .unwrap();
    let started = ops::queue_page(
        &project,
        &ops::QueueQuery {
            status: Some(ops::AnswerStatus::InProgress),
            ..query.clone()
        },
    )
    .unwrap();
    assert_eq!(
        ids(&started.items),
        std::slice::from_ref(&case),
        "a saved draft shows at once"
    );
    assert_eq!(started.total, 1);
    assert_eq!(started.counts.in_progress, 1);
    assert_eq!(started.counts.to_do as usize, whole.len() - 1);
    assert_eq!(
        ops::next_task(&project, rater, None).unwrap(),
        Some(case.clone()),
        "a task in progress comes first"
    );
    let last = &whole.last().unwrap().instance_id;
    assert_eq!(
        ops::next_task(&project, rater, Some(last))
            .unwrap()
            .as_deref(),
        Some(whole[0].instance_id.as_str()),
        "after the last task, the queue starts again"
    );
}

#[test]
fn progress_pages_follow_the_case_list() {
    let dir = tempfile::tempdir().unwrap();
    let now = datetime!(2026-01-02 03:04:05 UTC);
    let project = ops::open_empty_demo_project(dir.path(), now).unwrap();
    let all = ops::list_cases(&project, &ops::CaseFilter::default()).unwrap();
    let page = ops::progress_page(
        &project,
        &ops::ProgressQuery {
            offset: 1,
            limit: 2,
            ..ops::ProgressQuery::default()
        },
    )
    .unwrap();
    assert_eq!(page.total as usize, all.len());
    let summary = |items: &[ops::CaseListItem]| -> Vec<(String, Vec<String>)> {
        items
            .iter()
            .map(|c| {
                (
                    c.instance_id.clone(),
                    c.assignments.iter().map(|a| a.rater.clone()).collect(),
                )
            })
            .collect()
    };
    assert_eq!(summary(&page.items), summary(&all[1..3]));
    let rater = annotations::demo::DEMO_RATERS[1];
    let theirs = ops::progress_page(
        &project,
        &ops::ProgressQuery {
            limit: 1000,
            rater: Some(rater.to_string()),
            status: Some(ops::AnswerStatus::ToDo),
            ..ops::ProgressQuery::default()
        },
    )
    .unwrap();
    let expected = ops::list_cases(
        &project,
        &ops::CaseFilter {
            rater: Some(rater.to_string()),
            status: Some(ops::AnswerStatus::ToDo),
            ..ops::CaseFilter::default()
        },
    )
    .unwrap();
    assert!(!expected.is_empty());
    assert_eq!(summary(&theirs.items), summary(&expected));
}

#[test]
fn the_task_list_sorted_by_risk_sees_evidence_computed_in_the_same_session() {
    let dir = tempfile::tempdir().unwrap();
    let now = datetime!(2026-01-02 03:04:05 UTC);
    let mut project = ops::open_empty_demo_project(dir.path(), now).unwrap();
    let by_risk = ops::ProgressQuery {
        limit: 1000,
        order: ops::CaseOrder::Risk,
        ..ops::ProgressQuery::default()
    };
    let before = ops::progress_page(&project, &by_risk).unwrap();
    assert!(before.items.iter().all(|c| c.risk.is_none()));
    let last = before.items.last().unwrap().instance_id.clone();
    let engine = verity_evidence::Engine::default();
    let view = ops::case_evidence(&mut project, &engine, &last, false, now).unwrap();
    let after = ops::progress_page(&project, &by_risk).unwrap();
    assert_eq!(
        after.items[0].instance_id, last,
        "the only task with a risk comes first"
    );
    assert_eq!(after.items[0].risk, Some(view.report.summary.risk));
    assert!(after.items[1..].iter().all(|c| c.risk.is_none()));

    // In id order a page reads only its own tasks' scores.
    let by_id = |offset| ops::ProgressQuery {
        offset,
        limit: 1,
        ..ops::ProgressQuery::default()
    };
    let total = ops::progress_page(&project, &by_id(0)).unwrap().total;
    let risks: Vec<_> = (0..total)
        .map(|offset| {
            let page = ops::progress_page(&project, &by_id(offset)).unwrap();
            (page.items[0].instance_id.clone(), page.items[0].risk)
        })
        .filter(|(_, risk)| risk.is_some())
        .collect();
    assert_eq!(risks, [(last, Some(view.report.summary.risk))]);
}
