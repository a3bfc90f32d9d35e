//! How an answer is written: the statements an autosave runs, counted by the store on a real
//! project file and on a server, held to their number so that a query added to the hot path
//! fails here; and a model rater's answer, stored with its provenance and assignment or not at
//! all, on both.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use annotations::ops::{self, ErrorCode, Project};
use serde_json::Value;
use verity_store::{EventKind, NewAnswerEvent, new_event_uid};
use verity_testkit::chat_server::ChatServer;
use verity_testkit::project::{self, T0, at};
use verity_testkit::store::all_rows;
use verity_testkit::{fixture_path, full_answer};

const ONE: &str = "acme__calc-101";
const TWO: &str = "acme__calc-102";

/// The SWE-bench fixture's two tasks in `p`, both assigned to ana.
fn ana_on_two_tasks(p: &mut Project) {
    project::import(p, &[fixture_path("swebench.jsonl")]);
    ops::add_rater(p, "ana", T0).unwrap();
    project::assign_tasks(p, &["ana"], &[ONE, TWO]);
}

/// The statements `write` runs on `p`, counted by its store.
fn statements(p: &mut Project, write: impl FnOnce(&mut Project)) -> u64 {
    let count = p.count_statements().unwrap();
    write(p);
    count.get()
}

/// The statements of ana's autosave on `case` after her first (which finds what a session
/// asks once), of her submission after it, and of its revision.
fn autosave_submit_revise(p: &mut Project, case: &str) -> [u64; 3] {
    p.act_as(project::rater("ana")).unwrap();
    ops::save_draft(p, &project::answer("ana", case, 0), at(1)).unwrap();
    let draft = statements(p, |p| {
        ops::save_draft(p, &project::answer("ana", case, 1), at(2)).unwrap();
    });
    let submit = statements(p, |p| {
        ops::submit_answer(p, &project::answer("ana", case, 2), at(3)).unwrap();
    });
    let revise = statements(p, |p| {
        let mut revision = project::answer("ana", case, 3);
        revision.reason = Some("read the test again".into());
        let view = ops::revise_answer(p, &revision, at(4)).unwrap();
        assert_eq!(view.answer_revision, 2);
    });
    [draft, submit, revise]
}

#[test]
fn an_autosave_on_a_project_file_runs_its_statements_and_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project::init(&dir.path().join("p.verity"), "swe-bench-verified");
    ana_on_two_tasks(&mut p);
    assert_eq!(autosave_submit_revise(&mut p, ONE), [6, 6, 6]);
}

#[test]
fn an_autosave_on_a_server_runs_its_statements_and_no_more() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    // The coordinator's login, acting as ana.
    let (_, mut p) = db.coordinator_project("coordinator-pw", "swe-bench-verified");
    ana_on_two_tasks(&mut p);
    let login = ops::panel_grant(&mut p, "ana", false, T0).unwrap();
    let coordinators = autosave_submit_revise(&mut p, ONE);
    // ana's own login, which writes through the server's checked function.
    let mut ana =
        ops::open_project_with_password(Path::new(&db.url_as(&login.role)), Some(&login.password))
            .unwrap();
    let own = autosave_submit_revise(&mut ana, TWO);
    assert_eq!((coordinators, own), ([7, 7, 7], [7, 7, 7]));
}

/// A project at `location` with the fixture's tasks and a model rater `gpt` asking `server`.
fn project_with_model(location: &Path, server: &ChatServer) -> Project {
    let mut p = project::init(location, "swe-bench-verified");
    project::import(&mut p, &[fixture_path("swebench.jsonl")]);
    let model = ops::ModelAddRequest {
        name: "gpt".into(),
        settings: ops::ModelSettings {
            endpoint: server.endpoint(),
            model: "test-model".into(),
            ..Default::default()
        },
    };
    ops::add_model(&mut p, &model, T0).unwrap();
    p
}

/// `gpt` rates the task `ONE`.
fn rate_one(p: &mut Project) -> ops::Result<ops::RateReport> {
    let request = ops::RateRequest {
        name: "gpt".into(),
        cases: ops::CaseSelection::Ids(vec![ONE.into()]),
        concurrency: 1,
        budget_usd: None,
        timeout: Duration::from_secs(10),
    };
    let clock = time::OffsetDateTime::now_utc;
    ops::rate_model(p, &request, &clock, &mut |_| {}, &ops::Halt::new())
}

/// How many rows the project at `location` holds in each of `tables`, read through a
/// connection of its own.
fn counts(location: &Path, tables: &[&str]) -> Vec<usize> {
    let store = verity_store::open(location, None).unwrap();
    let rows = all_rows(&*store);
    tables
        .iter()
        .map(|table| rows.iter().find(|(name, _)| name == table).unwrap().1.len())
        .collect()
}

/// While the model is asked, another writer submits a different answer as `gpt` on `ONE`: the
/// model's reply then finds the task submitted, and its submission is refused after the
/// assignment and the provenance would have been written. Nothing of it stays.
fn a_refused_model_answer_leaves_nothing(location: &Path) {
    let server = ChatServer::start();
    let mut p = project_with_model(location, &server);
    let written = AtomicBool::new(false);
    let place = location.to_path_buf();
    server.answer_with(move |_| {
        if !written.swap(true, Ordering::SeqCst) {
            let mut other = verity_store::open(&place, None).unwrap();
            let case = other.case_by_instance(ONE).unwrap().unwrap();
            let gpt = other.rater_by_name("gpt").unwrap().unwrap();
            let questionnaire = other.meta("questionnaire").unwrap().unwrap();
            other
                .append_answer_event(&NewAnswerEvent {
                    uid: &new_event_uid(),
                    case_id: case.case_id,
                    rater_id: gpt.id,
                    case_revision_id: case.revision_id,
                    questionnaire_id: questionnaire.parse().unwrap(),
                    kind: EventKind::Submit,
                    answer_revision: 1,
                    answer: &project::answer_values(3, 0),
                    reason: None,
                    at: "2026-01-01T00:00:00Z",
                })
                .unwrap();
        }
        full_answer()
    });
    let err = rate_one(&mut p).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NeedsReason, "{err}");
    let tables = ["answer_provenance", "assignments", "answer_events"];
    assert_eq!(counts(location, &tables), [0, 0, 1], "{tables:?}");
}

#[test]
fn a_refused_model_answer_leaves_nothing_in_a_project_file() {
    let dir = tempfile::tempdir().unwrap();
    a_refused_model_answer_leaves_nothing(&dir.path().join("p.verity"));
}

#[test]
fn a_refused_model_answer_leaves_nothing_on_a_server() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    a_refused_model_answer_leaves_nothing(Path::new(&db.url()));
}

/// A reply whose note is longer than a note may be is checked as the answer is, once: refused
/// and asked again, never half-stored.
fn an_overlong_model_note_is_refused_before_anything_is_stored(location: &Path) {
    let server = ChatServer::start();
    server.answer_with(|_| {
        let mut reply = full_answer();
        reply["underspecified_notes"] = Value::String("x".repeat(ops::NOTE_MAX_CHARS + 1));
        reply
    });
    let mut p = project_with_model(location, &server);
    let report = rate_one(&mut p).unwrap();
    assert_eq!((report.rated, report.failed), (0, 1));
    assert!(
        report.failures[0].reason.contains("at most 20000"),
        "{}",
        report.failures[0].reason
    );
    let tables = ["answer_provenance", "assignments", "answer_events"];
    assert_eq!(counts(location, &tables), [0, 0, 0], "{tables:?}");
}

#[test]
fn an_overlong_model_note_is_refused_before_anything_is_stored_in_a_project_file() {
    let dir = tempfile::tempdir().unwrap();
    an_overlong_model_note_is_refused_before_anything_is_stored(&dir.path().join("p.verity"));
}

#[test]
fn an_overlong_model_note_is_refused_before_anything_is_stored_on_a_server() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    an_overlong_model_note_is_refused_before_anything_is_stored(Path::new(&db.url()));
}
