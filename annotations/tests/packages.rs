//! Offline raters: a package holds one rater's tasks and answers and nobody else's, and a secret
//! of its own; merged back, every event lands once, with its original time, whatever the order;
//! divergences are kept as conflicts, and merged again they stay as they were settled; a package
//! that is not whole, not this project's, not its rater's alone, or whose events a live save
//! would refuse (even sealed again with the package's own secret, as its rater can) is refused
//! whole, on a file and on a server.
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
    fill(&mut p);
    p
}

/// The panel of [`panel`] in `p`.
fn fill(p: &mut Project) {
    project::import(p, &[fixture_path("swebench.jsonl")]);
    for name in ["ana", "bo"] {
        ops::add_rater(p, name, T0).unwrap();
    }
    ops::assign_to(p, &["ana".into()], &CaseSelection::All, T0).unwrap();
    project::assign_tasks(p, &["bo"], &[TWO]);
    project::submit_as(p, &answer("bo", TWO, 2), at(1));
    ops::adjudicate(
        p,
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
    let report = ops::package_for_rater(&mut p, "bo", &out, Overwrite::Refuse, at(3)).unwrap();
    assert_eq!((report.tasks, report.events), (1, 1));
    let again = ops::package_for_rater(&mut p, "bo", &out, Overwrite::Refuse, at(3)).unwrap_err();
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
        &mut p,
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
        &mut p,
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
        let mut p = panel(&dir.path().join("p.verity"));
        let first = dir.path().join("ana-1.verity");
        ops::package_for_rater(&mut p, "ana", &first, Overwrite::Refuse, at(3)).unwrap();
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
fn an_event_changed_after_it_was_merged_refuses_the_package() {
    let offline = Offline::new();
    let project = offline.fresh_project("changed.verity");
    let mut p = ops::open_project(&project).unwrap();
    ops::merge_packages(&mut p, std::slice::from_ref(&offline.first), T0).unwrap();
    let stored = portable(&events(&project));

    // The second package's copy of the first submission now says something else, sealed
    // again with the package's own secret, as its rater could.
    forge(
        &offline.second,
        "UPDATE answer_events SET answer = json_set(answer, '$.underspecified', 0)
           WHERE kind = 'submit' AND at = '1970-01-01T00:00:11Z';",
    );
    let err = ops::merge_packages(&mut p, std::slice::from_ref(&offline.second), T0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::BadPackage, "{err}");
    let message = err.to_string();
    assert!(
        message.contains("whose global id the project holds for an event that says something else"),
        "{message}"
    );
    assert!(message.ends_with("nothing was merged"), "{message}");
    // Nothing of the package merged, the stored event as it was.
    assert_eq!(portable(&events(&project)), stored);
}

#[test]
fn a_bad_package_is_refused_whole_with_one_sentence() {
    let offline = Offline::new();
    let project = offline.fresh_project("refusals.verity");
    let before = portable(&events(&project));
    let mut p = ops::open_project(&project).unwrap();

    // A package of another project.
    let elsewhere = tempfile::tempdir().unwrap();
    let mut other = panel(&elsewhere.path().join("other.verity"));
    let foreign = elsewhere.path().join("foreign.verity");
    ops::package_for_rater(&mut other, "ana", &foreign, Overwrite::Refuse, at(3)).unwrap();
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

/// Changes a package with `sql` as its rater could with `sqlite3` (the triggers that keep
/// answer events append-only dropped first), then seals every event again with the package's
/// own secret, which its rater holds: what a merge must still refuse when an event breaks a rule.
pub(crate) fn forge(package: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(package).unwrap();
    conn.execute_batch(
        "DROP TRIGGER IF EXISTS answer_events_no_update;
         DROP TRIGGER IF EXISTS answer_events_no_delete;
         DROP TRIGGER IF EXISTS answer_events_need_uid;",
    )
    .unwrap();
    conn.execute_batch(sql).unwrap();
    drop(conn);
    seal_again(package);
}

/// Seals every answer event of `package` with its own secret, as `docs/packages.md` says a seal
/// is made (HMAC-SHA-256 over the event's canonical encoding), written here apart from Verity's
/// own code so that the documented format is what is tested.
fn seal_again(package: &Path) {
    use hmac::{Hmac, KeyInit, Mac};
    let conn = rusqlite::Connection::open(package).unwrap();
    let meta = |key: &str| -> String {
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .unwrap()
    };
    let (id, secret) = (meta("package_id"), meta("package_secret"));
    let mut stmt = conn
        .prepare(
            "SELECT e.uid, r.name, c.instance_id, v.revision, q.qid, q.version, e.kind,
                    e.answer_revision, e.answer, e.reason, e.at
             FROM answer_events e JOIN raters r ON r.id = e.rater_id
             JOIN cases c ON c.id = e.case_id JOIN case_revisions v ON v.id = e.case_revision_id
             JOIN questionnaires q ON q.id = e.questionnaire_id",
        )
        .unwrap();
    let rows: Vec<(String, Vec<u8>)> = stmt
        .query_map([], |r| {
            let answer: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&r.get::<_, String>(8)?).unwrap();
            let mut pairs: Vec<(String, serde_json::Value)> = answer.into_iter().collect();
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            let pairs: Vec<serde_json::Value> =
                pairs.into_iter().map(|(k, v)| json!([k, v])).collect();
            let canonical = json!([
                "verity answer event seal 1",
                id,
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, i64>(7)?,
                pairs,
                r.get::<_, Option<String>>(9)?,
                r.get::<_, String>(10)?,
            ]);
            Ok((r.get(0)?, canonical.to_string().into_bytes()))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    drop(stmt);
    for (uid, canonical) in rows {
        let mut mac = <Hmac<sha256::Sha256> as KeyInit>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(&canonical);
        let seal: String = mac
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        conn.execute(
            "INSERT OR REPLACE INTO answer_seals(event_uid, seal) VALUES (?1, ?2)",
            [&uid, &seal],
        )
        .unwrap();
    }
}

/// bo's package of the panel in `p`, with one revision bo made offline in it (the package's
/// newest event): its path.
fn bos_offline_revision(p: &mut Project, dir: &Path) -> PathBuf {
    let package = dir.join("bo.verity");
    ops::package_for_rater(p, "bo", &package, Overwrite::Refuse, at(3)).unwrap();
    let mut work = ops::open_project(&package).unwrap();
    let mut revision = answer("bo", TWO, 3);
    revision.reason = Some("read the test again".into());
    ops::revise_answer(&mut work, &revision, at(10)).unwrap();
    package
}

/// The package's newest event, whose global id a refusal names.
const NEWEST: &str = "(SELECT MAX(id) FROM answer_events)";

/// Every way bo, holding his own package, could change it (each sealed again with its secret
/// where that is what he could do), and the rule a merge names in refusing it.
fn forgeries() -> Vec<(&'static str, String, &'static str)> {
    let set = |path: &str, value: &str| {
        format!(
            "UPDATE answer_events SET answer = json_set(answer, '$.{path}', {value}) WHERE id = {NEWEST};"
        )
    };
    vec![
        (
            "renamed to another rater",
            "UPDATE raters SET name = 'ana'; UPDATE meta SET value = 'ana' WHERE key = 'package_rater';".into(),
            "is bo's package (made 1970-01-01T00:00:03Z) but names \"ana\" as its rater",
        ),
        (
            "an answer on a task not assigned to him",
            format!(
                "INSERT INTO cases(id, instance_id, created_at) VALUES (99, '{ONE}', 't');
                 INSERT INTO case_revisions(id, case_id, revision, content, content_hash, repo,
                   base_commit, title, has_materials, created_at)
                 SELECT 99, 99, 1, content, content_hash, repo, base_commit, title, has_materials,
                   created_at FROM case_revisions LIMIT 1;
                 UPDATE answer_events SET case_id = 99, case_revision_id = 99, kind = 'submit',
                   answer_revision = 1, reason = NULL WHERE id = {NEWEST};"
            ),
            "is on a task not assigned to bo",
        ),
        (
            "a value off the scale",
            set("underspecified", "9"),
            "Question 1.1 (underspecified) must be one of 0, 1, 2, 3; 9 is not",
        ),
        (
            "an unknown key holding a script",
            set("evil", "'<script>alert(1)</script>'"),
            "\"evil\" is not a question of swe-bench-verified",
        ),
        (
            "a note too long",
            set("other_notes", "printf('%.20001c', 'x')"),
            "holds 20001 characters; a note may hold at most 20000",
        ),
        (
            "a reason too long",
            format!("UPDATE answer_events SET reason = printf('%.20001c', 'x') WHERE id = {NEWEST};"),
            "The reason holds 20001 characters",
        ),
        (
            "dated 2020, after the merge",
            format!("UPDATE answer_events SET at = '2020-01-01T00:00:00Z' WHERE id = {NEWEST};"),
            "is dated after this merge",
        ),
        (
            "dated before the package was made",
            format!("UPDATE answer_events SET at = '1960-01-01T00:00:00Z' WHERE id = {NEWEST};"),
            "is dated before its package was made",
        ),
        (
            "a revision without its reason",
            format!("UPDATE answer_events SET reason = NULL WHERE id = {NEWEST};"),
            "is a revision without its reason",
        ),
        (
            "a draft after the submission",
            format!(
                "UPDATE answer_events SET kind = 'draft', answer_revision = 0, reason = NULL WHERE id = {NEWEST};"
            ),
            "breaks the order of the package's own answer on the task: it follows submitted revision 1",
        ),
        (
            "an id that is not a UUID v7",
            format!(
                "UPDATE answer_events SET uid = 'ffffffff-0000-4000-8000-000000000001' WHERE id = {NEWEST};"
            ),
            "has a global id that is not a UUID v7",
        ),
    ]
}

/// The forgeries merged into the panel at `location` (a file or a server), each refused whole
/// naming its event and rule, nothing stored; then the package as bo made it merges.
fn forged_packages_are_refused(location: &Path, dir: &Path) {
    let mut p = project::init(location, "swe-bench-verified");
    fill(&mut p);
    let package = bos_offline_revision(&mut p, dir);
    let uid: String = rusqlite::Connection::open(&package)
        .unwrap()
        .query_row(
            &format!("SELECT uid FROM answer_events WHERE id = {NEWEST}"),
            [],
            |r| r.get(0),
        )
        .unwrap();
    let stored = || {
        let store = verity_store::open(location, None).unwrap();
        portable(&store.all_answer_events().unwrap())
    };
    let before = stored();
    let refuse = |p: &mut Project, file: &Path, says: &str, names_event: bool| {
        let err = ops::merge_packages(p, &[file.to_path_buf()], T0).unwrap_err();
        assert_eq!(err.code(), ErrorCode::BadPackage, "{err}");
        let message = err.to_string();
        assert!(message.contains(says), "{says:?} not in: {message}");
        assert!(
            message.starts_with(&file.display().to_string()),
            "{message}"
        );
        assert!(message.ends_with("nothing was merged"), "{message}");
        if names_event {
            assert!(message.contains(&uid) || says.contains("UUID"), "{message}");
        }
        assert_eq!(message.lines().count(), 1);
        assert_eq!(stored(), before, "{says}: nothing is stored");
    };
    for (i, (what, sql, says)) in forgeries().into_iter().enumerate() {
        let copy = dir.join(format!("forged-{i}.verity"));
        std::fs::copy(&package, &copy).unwrap();
        forge(&copy, &sql);
        eprintln!("forged: {what}");
        refuse(&mut p, &copy, says, !what.starts_with("renamed"));
    }
    // Without its seal, with a seal another package gave it, or naming a package this project
    // never made: refused too.
    let unsealed = dir.join("unsealed.verity");
    std::fs::copy(&package, &unsealed).unwrap();
    rusqlite::Connection::open(&unsealed)
        .unwrap()
        .execute_batch("DELETE FROM answer_seals;")
        .unwrap();
    refuse(&mut p, &unsealed, "carries no seal", true);
    let edited = dir.join("edited.verity");
    std::fs::copy(&package, &edited).unwrap();
    let conn = rusqlite::Connection::open(&edited).unwrap();
    conn.execute_batch(&format!(
        "DROP TRIGGER answer_events_no_update;
         UPDATE answer_events SET answer = json_set(answer, '$.underspecified', 0) WHERE id = {NEWEST};"
    ))
    .unwrap();
    drop(conn);
    refuse(
        &mut p,
        &edited,
        "is not sealed with its package's secret",
        true,
    );
    let ana = dir.join("ana.verity");
    ops::package_for_rater(&mut p, "ana", &ana, Overwrite::Refuse, at(3)).unwrap();
    let borrowed = dir.join("borrowed.verity");
    std::fs::copy(&package, &borrowed).unwrap();
    let conn = rusqlite::Connection::open(&borrowed).unwrap();
    let anas = rusqlite::Connection::open(&ana).unwrap();
    let secret: String = anas
        .query_row(
            "SELECT value FROM meta WHERE key = 'package_secret'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'package_secret'",
        [&secret],
    )
    .unwrap();
    drop(conn);
    seal_again(&borrowed);
    refuse(
        &mut p,
        &borrowed,
        "is not sealed with its package's secret",
        true,
    );
    let stranger = dir.join("stranger.verity");
    std::fs::copy(&package, &stranger).unwrap();
    rusqlite::Connection::open(&stranger)
        .unwrap()
        .execute(
            "UPDATE meta SET value = '01900000-0000-7000-8000-000000000009' WHERE key = 'package_id'",
            [],
        )
        .unwrap();
    refuse(
        &mut p,
        &stranger,
        "names package 01900000-0000-7000-8000-000000000009, which this project did not make",
        false,
    );

    // The package as bo made it merges: his revision, once.
    let report = ops::merge_packages(&mut p, &[package], T0).unwrap();
    assert_eq!(
        (report.packages[0].added, report.packages[0].already),
        (1, 1)
    );
    assert_eq!(stored().len(), before.len() + 1);
}

#[test]
fn a_package_its_rater_forged_is_refused_whole_naming_the_event_and_rule_in_a_project_file() {
    let dir = tempfile::tempdir().unwrap();
    forged_packages_are_refused(&dir.path().join("p.verity"), dir.path());
}

#[test]
fn a_package_its_rater_forged_is_refused_whole_naming_the_event_and_rule_on_a_server() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    forged_packages_are_refused(Path::new(&db.url()), dir.path());
}

/// ana's revision offline beside the project's own, kept as a conflict, settled, and the
/// package merged again: nothing changes, and the report says the conflict stays settled.
fn a_settled_conflict_stays_settled(location: &Path, dir: &Path) {
    let mut p = project::init(location, "swe-bench-verified");
    fill(&mut p);
    project::submit_as(&mut p, &answer("ana", ONE, 1), at(2));
    let package = dir.join("ana.verity");
    ops::package_for_rater(&mut p, "ana", &package, Overwrite::Refuse, at(3)).unwrap();
    let mut offline = answer("ana", ONE, 2);
    offline.reason = Some("offline second look".into());
    ops::revise_answer(&mut ops::open_project(&package).unwrap(), &offline, at(10)).unwrap();
    let mut online = answer("ana", ONE, 3);
    online.reason = Some("online second look".into());
    p.act_as(rater("ana")).unwrap();
    ops::revise_answer(&mut p, &online, at(11)).unwrap();
    p.act_as(Actor::Coordinator).unwrap();

    let first = ops::merge_packages(&mut p, std::slice::from_ref(&package), T0).unwrap();
    assert_eq!(first.conflicts.len(), 1, "{first:#?}");
    assert!(!first.changed_nothing());
    let number = first.conflicts[0].conflict;
    ops::resolve_conflict(&mut p, number, ops::Keep::Stored, None, T0).unwrap();
    let store_rows = || {
        let store = verity_store::open(location, None).unwrap();
        (
            portable(&store.all_answer_events().unwrap()),
            store.answer_conflicts().unwrap(),
        )
    };
    let settled = store_rows();
    for _ in 0..2 {
        let again = ops::merge_packages(&mut p, std::slice::from_ref(&package), T0).unwrap();
        assert!(again.conflicts.is_empty(), "no new conflict: {again:#?}");
        assert!(again.changed_nothing());
        assert_eq!(
            (again.packages[0].added, again.packages[0].kept_before),
            (0, 1)
        );
        let kept = &again.kept_before[0];
        assert_eq!(kept.conflict, number);
        assert_eq!(
            kept.resolution.as_deref(),
            Some("kept the answer the project holds")
        );
        assert_eq!(store_rows(), settled, "merging again changes nothing");
    }
    assert!(ops::list_conflicts(&p, false).unwrap().is_empty());
}

#[test]
fn a_settled_conflict_stays_settled_when_its_package_is_merged_again_in_a_project_file() {
    let dir = tempfile::tempdir().unwrap();
    a_settled_conflict_stays_settled(&dir.path().join("p.verity"), dir.path());
}

#[test]
fn a_settled_conflict_stays_settled_when_its_package_is_merged_again_on_a_server() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    a_settled_conflict_stays_settled(Path::new(&db.url()), dir.path());
}

#[test]
fn a_package_holds_its_own_secret_which_the_project_keeps_and_no_other_package_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    let mut p = panel(&path);
    let (ana, bo) = (dir.path().join("ana.verity"), dir.path().join("bo.verity"));
    ops::package_for_rater(&mut p, "ana", &ana, Overwrite::Refuse, at(3)).unwrap();
    ops::package_for_rater(&mut p, "bo", &bo, Overwrite::Refuse, at(3)).unwrap();
    drop(p);
    let meta = |file: &Path, key: &str| Store::open(file).unwrap().meta(key).unwrap();
    let (ana_secret, bo_secret) = (
        meta(&ana, "package_secret").unwrap(),
        meta(&bo, "package_secret").unwrap(),
    );
    assert_ne!(ana_secret, bo_secret);
    assert_eq!(ana_secret.len(), 64, "32 bytes as hex");
    // The project keeps both, under each package's id; it holds no secret as a setting, and
    // no package holds the project's record of packages.
    let project = Store::open(&path).unwrap();
    for (file, secret) in [(&ana, &ana_secret), (&bo, &bo_secret)] {
        let id = meta(file, "package_id").unwrap();
        assert_eq!(&project.package_key(&id).unwrap().unwrap().secret, secret);
        let bytes = std::fs::read(file).unwrap();
        let other = if secret == &ana_secret {
            &bo_secret
        } else {
            &ana_secret
        };
        assert!(
            !bytes.windows(other.len()).any(|w| w == other.as_bytes()),
            "another package's secret is never in {}",
            file.display()
        );
        let mut keys = 0;
        Store::open(file)
            .unwrap()
            .read_rows(
                verity_store::transfer::table("package_keys").unwrap(),
                &mut |_| {
                    keys += 1;
                    Ok(())
                },
            )
            .unwrap();
        assert_eq!(keys, 0, "a package holds no record of packages");
    }
    assert_eq!(project.meta("package_secret").unwrap(), None);

    // Every answer saved in a package is sealed.
    let mut work = ops::open_project(&bo).unwrap();
    let mut revision = answer("bo", TWO, 3);
    revision.reason = Some("read the test again".into());
    let view = ops::revise_answer(&mut work, &revision, at(10)).unwrap();
    drop(work);
    let seals = rusqlite::Connection::open(&bo)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM answer_seals", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap();
    assert_eq!((view.answer_revision, seals), (2, 1));
}

#[test]
fn a_package_made_before_packages_were_sealed_saves_nothing_and_its_new_events_do_not_merge() {
    let offline = Offline::new();
    let old = offline.dir.path().join("old.verity");
    std::fs::copy(&offline.first, &old).unwrap();
    rusqlite::Connection::open(&old)
        .unwrap()
        .execute_batch(
            "DELETE FROM meta WHERE key IN ('package_id', 'package_secret'); DELETE FROM answer_seals;",
        )
        .unwrap();
    let mut work = ops::open_project(&old).unwrap();
    let err = ops::save_draft(&mut work, &answer("ana", TWO, 1), at(30)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::BadPackage, "{err}");
    assert!(
        err.to_string()
            .contains("ask the coordinator for a new package")
            || err
                .to_string()
                .contains("Ask the coordinator for a new package"),
        "{err}"
    );
    drop(work);
    let project = offline.fresh_project("old-project.verity");
    let before = portable(&events(&project));
    let mut p = ops::open_project(&project).unwrap();
    let err = ops::merge_packages(&mut p, &[old], T0).unwrap_err();
    assert!(err.to_string().contains("did not seal packages"), "{err}");
    assert_eq!(portable(&events(&project)), before);
}
