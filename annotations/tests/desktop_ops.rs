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
