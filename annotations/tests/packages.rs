//! Offline raters: a package holds one rater's tasks and answers and nobody else's; merged back,
//! every event lands once, with its original time, whatever the order; conflicts are listed;
//! a package that is not whole, not this project's, or not its rater's alone is refused whole.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use annotations::ops::{
    self, Actor, AdjudicationRequest, CaseSelection, ErrorCode, Overwrite, Project,
};
use serde_json::json;
use verity_store::prelude::*;
use verity_store::{AnswerEvent, Store};

use verity_testkit::fixture_path;
use verity_testkit::project::{self, T0, answer, at, rater};

const ONE: &str = "acme__calc-101";
const TWO: &str = "acme__calc-102";

/// Two tasks; ana has both, bo only the second; bo submitted on it; one adjudication.
fn panel(path: &Path) -> Project {
    let mut p = project::init(path, "swe-bench-verified");
    project::import(&mut p, &[fixture_path("swebench.jsonl")]);
    for name in ["ana", "bo"] {
        ops::add_rater(&mut p, name, T0).unwrap();
    }
    ops::assign_to(&mut p, &["ana".into()], &CaseSelection::All, T0).unwrap();
    project::assign_tasks(&mut p, &["bo"], &[TWO]);
    project::submit_as(&mut p, &answer("bo", TWO, 2), at(1));
    ops::adjudicate(
        &mut p,
        &AdjudicationRequest {
            case: TWO.into(),
            question: "underspecified".into(),
            value: json!(2),
            rationale: "bo read it right".into(),
            by: "coordinator".into(),
        },
        at(2),
    )
    .unwrap();
    p
}

fn events(path: &Path) -> Vec<AnswerEvent> {
    Store::open(path).unwrap().all_answer_events().unwrap()
}

/// Each event as it reads in any copy of the project: ids local to a file left out.
fn portable(events: &[AnswerEvent]) -> Vec<(String, i64, String, String, String)> {
    events
        .iter()
        .map(|e| {
            (
                e.uid.clone(),
                e.rater_id,
                e.kind.as_str().to_string(),
                serde_json::to_string(&e.answer).unwrap(),
                e.at.clone(),
            )
        })
        .collect()
}

#[test]
fn a_package_holds_its_raters_tasks_and_answers_only_and_acts_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = panel(&dir.path().join("p.verity"));
    // bo's task is a calibration task; his package must not say so.
    ops::set_calibration_rate(&mut p, 0.1).unwrap();
    let case_id = Store::open(&dir.path().join("p.verity"))
        .unwrap()
        .case_by_instance(TWO)
        .unwrap()
        .unwrap()
        .case_id;
    Store::open(&dir.path().join("p.verity"))
        .unwrap()
        .set_calibration(&[case_id], true, "t")
        .unwrap();
    let out = dir.path().join("bo.verity");
    let report = ops::package_for_rater(&p, "bo", &out, Overwrite::Refuse, at(3)).unwrap();
    assert_eq!((report.tasks, report.events), (1, 1));
    let again = ops::package_for_rater(&p, "bo", &out, Overwrite::Refuse, at(3)).unwrap_err();
    assert_eq!(again.code(), ErrorCode::AlreadyExists);

    let store = Store::open(&out).unwrap();
    let cases: Vec<String> = store
        .list_cases()
        .unwrap()
        .into_iter()
        .map(|c| c.instance_id)
        .collect();
    assert_eq!(cases, [TWO]);
    let raters: Vec<String> = store
        .list_raters()
        .unwrap()
        .into_iter()
        .map(|r| r.name)
        .collect();
    assert_eq!(raters, ["bo"]);
    assert!(store.latest_adjudications().unwrap().is_empty());
    assert_eq!(store.list_assignments().unwrap().len(), 1);
    assert!(store.calibration_tasks().unwrap().is_empty());
    assert_eq!(store.meta("calibration_rate").unwrap(), None);
    drop(store);

    // Opened, the package acts for bo, and for nobody else.
    let mut package = ops::open_project(&out).unwrap();
    assert_eq!(package.actor(), Some(&rater("bo")));
    assert_eq!(package.bound_rater(), Some("bo"));
    for other in [Actor::Coordinator, rater("ana")] {
        let err = package.act_as(other).unwrap_err();
        assert_eq!(err.code(), ErrorCode::IdentityFixed, "{err}");
    }
    let queue = ops::rater_queue(&package, "bo").unwrap();
    assert_eq!(queue.len(), 1);

    // A package of a rater with nothing yet is a package of their tasks.
    let ana = ops::package_for_rater(
        &p,
        "ana",
        &dir.path().join("ana.verity"),
        Overwrite::Refuse,
        at(3),
    )
    .unwrap();
    assert_eq!((ana.tasks, ana.events), (2, 0));
    // Nobody but the coordinator writes packages.
    let mut p = p;
    p.act_as(rater("ana")).unwrap();
    let err = ops::package_for_rater(
        &p,
        "ana",
        &dir.path().join("x.verity"),
        Overwrite::Refuse,
        at(3),
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::CoordinatorOnly);
}

/// ana's two packages of offline work, and what the project holds after merging them.
struct Offline {
    dir: tempfile::TempDir,
    first: PathBuf,
    second: PathBuf,
}

impl Offline {
    fn new() -> Offline {
        let dir = tempfile::tempdir().unwrap();
        let p = panel(&dir.path().join("p.verity"));
        let first = dir.path().join("ana-1.verity");
        ops::package_for_rater(&p, "ana", &first, Overwrite::Refuse, at(3)).unwrap();
        drop(p);
        {
            let mut work = ops::open_project(&first).unwrap();
            ops::save_draft(&mut work, &answer("ana", ONE, 0), at(10)).unwrap();
            ops::submit_answer(&mut work, &answer("ana", ONE, 1), at(11)).unwrap();
        }
        // The second package is a copy of the first taken later, after more work.
        let second = dir.path().join("ana-2.verity");
        std::fs::copy(&first, &second).unwrap();
        {
            let mut work = ops::open_project(&second).unwrap();
            let mut revised = answer("ana", ONE, 3);
            revised.reason = Some("Read the test again".into());
            ops::revise_answer(&mut work, &revised, at(20)).unwrap();
            ops::submit_answer(&mut work, &answer("ana", TWO, 2), at(21)).unwrap();
        }
        Offline { dir, first, second }
    }

    fn fresh_project(&self, name: &str) -> PathBuf {
        let copy = self.dir.path().join(name);
        std::fs::copy(self.dir.path().join("p.verity"), &copy).unwrap();
        copy
    }
}

#[test]
fn merging_adds_each_event_once_with_its_time_in_any_order() {
    let offline = Offline::new();
    let forward = offline.fresh_project("forward.verity");
    let backward = offline.fresh_project("backward.verity");
    let before = events(&forward).len();

    let mut p = ops::open_project(&forward).unwrap();
    let report = ops::merge_packages(&mut p, std::slice::from_ref(&offline.first), T0).unwrap();
    assert_eq!(
        (report.packages[0].added, report.packages[0].already),
        (2, 0)
    );
    let report = ops::merge_packages(&mut p, std::slice::from_ref(&offline.second), T0).unwrap();
    assert_eq!(
        (report.packages[0].added, report.packages[0].already),
        (2, 2)
    );
    assert!(report.conflicts.is_empty());
    // Merging again changes nothing.
    let again =
        ops::merge_packages(&mut p, &[offline.first.clone(), offline.second.clone()], T0).unwrap();
    assert_eq!(again.packages.iter().map(|m| m.added).sum::<usize>(), 0);
    let ana = serde_json::to_value(ops::answer_history(&p, ONE).unwrap()).unwrap();
    drop(p);

    let mut q = ops::open_project(&backward).unwrap();
    ops::merge_packages(&mut q, &[offline.second.clone(), offline.first.clone()], T0).unwrap();
    drop(q);

    let merged = events(&forward);
    assert_eq!(merged.len(), before + 4);
    assert_eq!(portable(&merged), portable(&events(&backward)));
    // Every event keeps the time it was saved at, offline.
    let times: Vec<&str> = merged[before..].iter().map(|e| e.at.as_str()).collect();
    assert_eq!(
        times,
        [
            "1970-01-01T00:00:10Z",
            "1970-01-01T00:00:11Z",
            "1970-01-01T00:00:20Z",
            "1970-01-01T00:00:21Z"
        ]
    );
    // The latest answers are the same whichever package came first.
    let q = ops::open_project(&backward).unwrap();
    let history = serde_json::to_value(ops::answer_history(&q, ONE).unwrap()).unwrap();
    assert_eq!(ana, history);
}

#[test]
fn a_conflicting_event_is_listed_and_the_stored_one_stays() {
    let offline = Offline::new();
    let project = offline.fresh_project("conflict.verity");
    let mut p = ops::open_project(&project).unwrap();
    ops::merge_packages(&mut p, std::slice::from_ref(&offline.first), T0).unwrap();
    let stored = events(&project);

    // The second package's copy of the first submission now says something else.
    let conn = rusqlite::Connection::open(&offline.second).unwrap();
    conn.execute_batch(
        "DROP TRIGGER answer_events_no_update;
         UPDATE answer_events SET answer = '{\"underspecified\":0}' WHERE kind = 'submit'
           AND at = '1970-01-01T00:00:11Z';",
    )
    .unwrap();
    drop(conn);
    let report = ops::merge_packages(&mut p, std::slice::from_ref(&offline.second), T0).unwrap();
    assert_eq!(report.conflicts.len(), 1);
    let conflict = &report.conflicts[0];
    assert_eq!(
        conflict.stored.as_ref().unwrap().answer["underspecified"],
        json!(1)
    );
    assert_eq!(conflict.incoming.answer["underspecified"], json!(0));
    assert_eq!(conflict.incoming.instance_id, ONE);
    // The rest of the package merged; the stored event is as it was.
    assert_eq!(report.packages[0].added, 2);
    let after = events(&project);
    assert_eq!(after.len(), stored.len() + 2);
    assert_eq!(portable(&after[..stored.len()]), portable(&stored));
}

#[test]
fn a_bad_package_is_refused_whole_with_one_sentence() {
    let offline = Offline::new();
    let project = offline.fresh_project("refusals.verity");
    let before = portable(&events(&project));
    let mut p = ops::open_project(&project).unwrap();

    // A package of another project.
    let elsewhere = tempfile::tempdir().unwrap();
    let other = panel(&elsewhere.path().join("other.verity"));
    let foreign = elsewhere.path().join("foreign.verity");
    ops::package_for_rater(&other, "ana", &foreign, Overwrite::Refuse, at(3)).unwrap();
    // A package whose events name a rater other than its own.
    let mixed = offline.dir.path().join("mixed.verity");
    std::fs::copy(&offline.second, &mixed).unwrap();
    let conn = rusqlite::Connection::open(&mixed).unwrap();
    conn.execute_batch(
        "INSERT INTO raters(id, name, created_at) VALUES (99, 'bo', 't');
         INSERT INTO answer_events(uid, case_id, rater_id, case_revision_id, questionnaire_id,
           kind, answer_revision, answer, reason, at)
         SELECT '01900000-0000-7000-8000-000000000099', case_id, 99, case_revision_id,
           questionnaire_id, 'draft', 0, '{}', NULL, 't' FROM answer_events LIMIT 1;",
    )
    .unwrap();
    drop(conn);
    // A truncated file.
    let truncated = offline.dir.path().join("truncated.verity");
    let bytes = std::fs::read(&offline.second).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    // A project that is not a package.
    let plain = offline.fresh_project("plain.verity");

    for (file, says) in [
        (&foreign, "is a package of another project"),
        (&mixed, "holds an answer event of \"bo\""),
        (&truncated, "cannot be read as a package"),
        (&plain, "is a project, not a rater's package"),
    ] {
        // Given after a good package: the good one is not merged either.
        let err =
            ops::merge_packages(&mut p, &[offline.first.clone(), file.clone()], T0).unwrap_err();
        assert_eq!(err.code(), ErrorCode::BadPackage, "{err}");
        let message = err.to_string();
        assert!(message.contains(says), "{message}");
        assert!(
            message.starts_with(&file.display().to_string()),
            "{message}"
        );
        assert_eq!(message.lines().count(), 1);
        assert_eq!(portable(&events(&project)), before);
    }
}
