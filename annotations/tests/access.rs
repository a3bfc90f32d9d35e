//! Who may do what, refused by `ops` itself whichever front end asks: every use case under
//! every actor that may not run it.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::atomic::AtomicBool;

use annotations::ops::{
    self, Actor, AnswerRequest, CaseFilter, CaseSelection, Engine, ErrorCode, ExportFormat,
    ExportOptions, GrepQuery, Overwrite, Project, Result, Snippet,
};
use serde_json::json;

use verity_testkit::fixture_path;
use verity_testkit::project::{self, T0, rater};

const CASE: &str = "acme__calc-101";

/// A project with two tasks, raters ana and bo on both, and ana's submitted answer.
fn panel(dir: &Path) -> Project {
    let mut p = project::init(&dir.join("p.verity"), "swe-bench-verified");
    project::import(&mut p, &[fixture_path("swebench.jsonl")]);
    for name in ["ana", "bo"] {
        ops::add_rater(&mut p, name, T0).unwrap();
    }
    ops::assign(&mut p, 2, 0, &CaseSelection::All, T0).unwrap();
    p.act_as(rater("ana")).unwrap();
    ops::submit_answer(&mut p, &answer("ana"), T0).unwrap();
    p.act_as(Actor::Coordinator).unwrap();
    p
}

/// `rater`'s answer on `CASE`, given a reason.
fn answer(rater: &str) -> AnswerRequest {
    AnswerRequest {
        values: project::answer_values(1, 2),
        reason: Some("Read the test again".into()),
        ..project::answer(rater, CASE, 1)
    }
}

type Case = (&'static str, fn(&mut Project, &Path) -> Result<()>);

/// The use cases only the coordinator may run.
fn coordinator_only() -> Vec<Case> {
    vec![
        ("import_paths", |p, _| {
            let flag = AtomicBool::new(false);
            let files = [fixture_path("swebench.json")];
            ops::import_paths(p, &files, T0, &mut |_| {}, &flag).map(drop)
        }),
        ("add_rater", |p, _| ops::add_rater(p, "cy", T0).map(drop)),
        ("deactivate_rater", |p, _| {
            ops::deactivate_rater(p, "bo", T0).map(drop)
        }),
        ("reactivate_rater", |p, _| {
            ops::reactivate_rater(p, "bo", T0).map(drop)
        }),
        ("remove_rater", |p, _| ops::remove_rater(p, "bo").map(drop)),
        ("assign", |p, _| {
            ops::assign(p, 1, 0, &CaseSelection::All, T0).map(drop)
        }),
        ("assign_to", |p, _| {
            ops::assign_to(p, &["bo".into()], &CaseSelection::All, T0).map(drop)
        }),
        ("list_cases", |p, _| {
            ops::list_cases(p, &CaseFilter::default()).map(drop)
        }),
        ("project_agreement", |p, _| {
            ops::project_agreement(p, &ops::AgreementRequest::default()).map(drop)
        }),
        ("ensemble_labels", |p, _| {
            ops::ensemble_labels(p, None).map(drop)
        }),
        ("list_disagreements", |p, _| {
            ops::list_disagreements(p).map(drop)
        }),
        ("adjudicate", |p, _| {
            let req = ops::AdjudicationRequest {
                case: CASE.into(),
                question: "underspecified".into(),
                value: json!(2),
                rationale: "The message is pinned.".into(),
                by: ops::COORDINATOR.into(),
            };
            ops::adjudicate(p, &req, T0).map(drop)
        }),
        ("add_adjudicator", |p, _| {
            ops::add_adjudicator(p, "lead", T0)
        }),
        ("remove_adjudicator", |p, _| {
            ops::remove_adjudicator(p, "lead")
        }),
        ("list_adjudicators", |p, _| {
            ops::list_adjudicators(p).map(drop)
        }),
        ("export_to_file", |p, dir| {
            let out = dir.join("answers.jsonl");
            ops::export_to_file(
                p,
                ExportFormat::AnswersJsonl,
                &ExportOptions::default(),
                &out,
                Overwrite::Replace,
            )
            .map(drop)
        }),
        ("export_project", |p, dir| {
            let out = dir.join("labels.csv");
            let mut sink = Vec::new();
            ops::export_project(
                p,
                ExportFormat::Csv,
                &ExportOptions::default(),
                &mut sink,
                &out,
            )
            .map(drop)
        }),
        ("write_report", |p, dir| {
            ops::write_report(p, &dir.join("report"), 0, 0, Overwrite::Replace).map(drop)
        }),
        ("list_repositories", |p, _| {
            ops::list_repositories(p).map(drop)
        }),
        ("add_repository", |p, dir| {
            ops::add_repository(p, "acme/calc", dir, T0).map(drop)
        }),
        ("remove_repository", |p, _| {
            ops::remove_repository(p, "acme/calc")
        }),
        ("evidence_all", |p, _| {
            let flag = AtomicBool::new(false);
            ops::evidence_all(p, &Engine::default(), false, T0, &mut |_| {}, &flag).map(drop)
        }),
        ("sweep_proposals", |p, _| {
            let proposals = ops::read_proposals(
                r#"{"iid": "acme__calc-101", "choice": "c", "proposed": [{"path": "a", "snippet": "x", "way": "w"}]}"#,
                "proposals.json",
            )?;
            ops::sweep_proposals(p, &Engine::default(), &proposals, "proposals.json", T0).map(drop)
        }),
        ("set_sweep_for_raters", |p, _| {
            ops::set_sweep_for_raters(p, true)
        }),
    ]
}

/// The use cases only a rater may run, on bo's answers.
fn bos_answers() -> Vec<Case> {
    vec![
        ("current_answer", |p, _| {
            ops::current_answer(p, "bo", CASE).map(drop)
        }),
        ("save_draft", |p, _| {
            ops::save_draft(p, &answer("bo"), T0).map(drop)
        }),
        ("submit_answer", |p, _| {
            ops::submit_answer(p, &answer("bo"), T0).map(drop)
        }),
        ("revise_answer", |p, _| {
            ops::revise_answer(p, &answer("bo"), T0).map(drop)
        }),
        ("record_time", |p, _| ops::record_time(p, "bo", CASE, 1000)),
        ("rater_queue", |p, _| ops::rater_queue(p, "bo").map(drop)),
    ]
}

/// The use cases anyone who has said who they are may run.
fn anyone_signed_in() -> Vec<Case> {
    vec![
        ("show_case", |p, _| ops::show_case(p, CASE).map(drop)),
        ("case_view", |p, _| ops::case_view(p, CASE).map(drop)),
        ("answer_history", |p, _| {
            ops::answer_history(p, CASE).map(drop)
        }),
        ("case_evidence", |p, _| {
            ops::case_evidence(p, &Engine::default(), CASE, false, T0).map(drop)
        }),
        ("grep_case", |p, _| {
            ops::grep_case(p, &Engine::default(), CASE, &GrepQuery::default()).map(drop)
        }),
        ("show_file", |p, _| {
            ops::show_file(p, &Engine::default(), CASE, "README.md").map(drop)
        }),
        ("check_precedents", |p, _| {
            let snippets = [Snippet::default()];
            ops::check_precedents(p, &Engine::default(), CASE, &snippets).map(drop)
        }),
    ]
}

fn refused_with(cases: Vec<Case>, actor: Option<Actor>, code: ErrorCode) {
    for (name, run) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut p = panel(dir.path());
        match &actor {
            Some(actor) => p.act_as(actor.clone()).unwrap(),
            None => p.sign_out(),
        }
        let err = run(&mut p, dir.path()).expect_err(name);
        assert_eq!(err.code(), code, "{name} as {actor:?}: {err}");
    }
}

#[test]
fn a_rater_runs_none_of_the_coordinators_use_cases() {
    refused_with(
        coordinator_only(),
        Some(rater("ana")),
        ErrorCode::CoordinatorOnly,
    );
}

#[test]
fn a_rater_reads_and_writes_no_other_raters_answers() {
    refused_with(bos_answers(), Some(rater("ana")), ErrorCode::NotYourAnswers);
}

#[test]
fn the_coordinator_does_not_answer_for_a_rater() {
    refused_with(
        bos_answers(),
        Some(Actor::Coordinator),
        ErrorCode::RaterOnly,
    );
}

#[test]
fn nobody_signed_in_runs_anything() {
    let mut all = coordinator_only();
    all.extend(bos_answers());
    all.extend(anyone_signed_in());
    refused_with(all, None, ErrorCode::NoRole);
}

#[test]
fn each_actor_runs_what_it_may() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = panel(dir.path());
    ops::list_cases(&p, &CaseFilter::default()).unwrap();
    ops::list_disagreements(&p).unwrap();
    p.act_as(rater("bo")).unwrap();
    ops::save_draft(&mut p, &answer("bo"), T0).unwrap();
    assert_eq!(ops::rater_queue(&p, "bo").unwrap().len(), 2);
    ops::show_case(&p, CASE).unwrap();
    let history = ops::answer_history(&p, CASE).unwrap();
    let raters: Vec<&str> = history.iter().map(|h| h.rater.as_str()).collect();
    assert_eq!(
        raters,
        ["bo"],
        "a rater's history holds only their own answers"
    );
    p.act_as(Actor::Coordinator).unwrap();
    let history = ops::answer_history(&p, CASE).unwrap();
    assert_eq!(history.len(), 2, "the coordinator sees both raters");
}

#[test]
fn only_a_known_active_rater_can_be_acted_as() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = panel(dir.path());
    let err = p.act_as(rater("nobody")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    ops::deactivate_rater(&mut p, "bo", T0).unwrap();
    let err = p.act_as(rater("bo")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::RaterInactive);
    assert_eq!(
        p.actor(),
        Some(&Actor::Coordinator),
        "a refused change keeps the actor"
    );
}

#[test]
fn actors_cross_ipc_tagged_by_kind() {
    let actor: Actor = serde_json::from_str(r#"{"kind":"rater","name":"ana"}"#).unwrap();
    assert_eq!(actor, rater("ana"));
    let actor: Actor = serde_json::from_str(r#"{"kind":"coordinator"}"#).unwrap();
    assert_eq!(actor, Actor::Coordinator);
}
