//! Panel integrity: every answer counted once, every rater blind. Real `verity` processes save
//! one rater's answer at the same moment, many rounds, on a project file and on a server: no
//! two events ever share a revision and no draft follows a submission. Two copies of one
//! rater's package, each with its own revision 2, merge into a listed conflict that the
//! coordinator settles. A rater reads no verdict, no source and nobody else's progress.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use annotations::ops::{self, Actor, CaseSelection, ErrorCode, Keep, Overwrite};
use serde_json::json;
use verity_store::prelude::*;
use verity_store::{AnswerEvent, EventKind, Store};

use crate::util;
use verity_testkit::answer_args;
use verity_testkit::fixture_path;
use verity_testkit::project::{self, T0, answer, answer_values, rater};

const TASKS: [&str; 2] = ["acme__calc-101", "acme__calc-102"];
/// Raters, each racing themselves on both tasks: 24 rounds per backend.
const RATERS: usize = 12;

/// The tasks of `swebench.jsonl`, `RATERS` raters each assigned both.
fn panel(p: &mut ops::Project) -> Vec<String> {
    project::import(p, &[fixture_path("swebench.jsonl")]);
    let raters: Vec<String> = (1..=RATERS).map(|i| format!("r{i}")).collect();
    for r in &raters {
        ops::add_rater(p, r, T0).unwrap();
    }
    ops::assign_to(p, &raters, &CaseSelection::All, T0).unwrap();
    raters
}

/// One `verity answer` started in the background against `project`, as `login` (role and
/// password) when given.
fn spawn_answer(
    project: &str,
    login: Option<(&str, &str)>,
    rater: &str,
    case: &str,
    file: &Path,
    submit: bool,
) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_verity"));
    cmd.args([
        "--project",
        project,
        "answer",
        "--rater",
        rater,
        "--case",
        case,
    ])
    .arg("--file")
    .arg(file)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    if submit {
        cmd.arg("--submit");
    }
    if let Some((_, password)) = login {
        cmd.env("PGPASSWORD", password).env_remove("PGPASSFILE");
    }
    cmd.spawn().unwrap()
}

/// Checks one rater's events on one task after a race: one revision 1, no draft after it, and
/// each process either stored its answer or said in a sentence why not.
fn check_round(events: &[AnswerEvent], outputs: &[(&str, Output)], round: &str) {
    let submitted: Vec<&AnswerEvent> = events
        .iter()
        .filter(|e| e.kind != EventKind::Draft)
        .collect();
    assert_eq!(
        submitted.len(),
        1,
        "{round}: {} submitted events where one belongs: {submitted:#?}",
        submitted.len()
    );
    assert_eq!(submitted[0].answer_revision, 1, "{round}");
    let first = &submitted[0].uid;
    assert!(
        events
            .iter()
            .all(|e| e.kind != EventKind::Draft || &e.uid < first),
        "{round}: a draft was stored after the submission: {events:#?}"
    );
    let mut stored = 0;
    for (what, out) in outputs {
        let err = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => stored += usize::from(*what == "submit"),
            Some(2) => assert!(
                err.contains("already submitted"),
                "{round}: {what} refused for another reason: {err}"
            ),
            other => panic!("{round}: {what} exited {other:?}: {err}"),
        }
    }
    assert_eq!(stored, 1, "{round}: exactly one submission is stored");
}

/// One race: the rater, the task, and each racer's kind with what its process said.
type Round = (String, String, Vec<(&'static str, Output)>);

/// The login (role, password) the racer `i` of a rater uses; `None` for the project's default.
type LoginOf<'a> = dyn Fn(&str, usize) -> Option<(String, String)> + 'a;

/// Races two submissions with different answers and a draft of one rater on one task, for
/// every rater and task; `login_of` gives the login each racer of a rater uses (the rater's
/// own, or none for the project's default).
fn race(project: &str, dir: &Path, raters: &[String], login_of: &LoginOf<'_>) -> Vec<Round> {
    let files: Vec<PathBuf> = (1..=3)
        .map(|v| {
            let path = dir.join(format!("answer{v}.json"));
            std::fs::write(&path, serde_json::to_vec(&answer_values(v, 1)).unwrap()).unwrap();
            path
        })
        .collect();
    let mut rounds = Vec::new();
    for rater in raters {
        for case in TASKS {
            let racers: Vec<(&'static str, Child)> = [("submit", 0), ("submit", 1), ("draft", 2)]
                .into_iter()
                .map(|(what, i)| {
                    let login = login_of(rater, i);
                    let login = login.as_ref().map(|(r, p)| (r.as_str(), p.as_str()));
                    let url = match login {
                        Some((role, _)) => project.replace("LOGIN", role),
                        None => project.to_string(),
                    };
                    (
                        what,
                        spawn_answer(&url, login, rater, case, &files[i], what == "submit"),
                    )
                })
                .collect();
            let outputs = racers
                .into_iter()
                .map(|(what, child)| (what, child.wait_with_output().unwrap()))
                .collect();
            rounds.push((rater.clone(), case.to_string(), outputs));
        }
    }
    rounds
}

#[test]
fn answers_saved_at_once_by_processes_take_one_revision_in_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    let mut p = project::init(&path, "swe-bench-verified");
    let raters = panel(&mut p);
    drop(p);
    let rounds = race(path.to_str().unwrap(), dir.path(), &raters, &|_, _| None);
    check_rounds(&Store::open(&path).unwrap(), &rounds);
}

/// [`check_round`] for every round, reading the events from `store`.
fn check_rounds(store: &dyn ProjectStore, rounds: &[Round]) {
    let ids: HashMap<String, i64> = store
        .list_raters()
        .unwrap()
        .into_iter()
        .map(|r| (r.name, r.id))
        .collect();
    for (rater, case, outputs) in rounds {
        let case_id = store.case_by_instance(case).unwrap().unwrap().case_id;
        let events = store.answer_events(case_id, ids[rater]).unwrap();
        check_round(&events, outputs, &format!("{rater} on {case}"));
    }
}

#[test]
fn answers_saved_at_once_by_processes_take_one_revision_on_a_server() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let (coordinator, mut p) = db.coordinator_project("c", "swe-bench-verified");
    let raters = panel(&mut p);
    let logins: HashMap<String, ops::PanelLogin> = raters
        .iter()
        .map(|r| (r.clone(), ops::panel_grant(&mut p, r, false, T0).unwrap()))
        .collect();
    drop(p);
    let dir = tempfile::tempdir().unwrap();
    // The rater's app (their own login, through the server's checked function) races the
    // coordinator's command line answering for them, and a draft from the rater's login.
    let rounds = race(&db.url_as("LOGIN"), dir.path(), &raters, &|rater, i| {
        Some(if i == 1 {
            (coordinator.clone(), "c".to_string())
        } else {
            let login = &logins[rater];
            (login.role.clone(), login.password.clone())
        })
    });
    let store = verity_store::open(Path::new(&db.url_as(&coordinator)), Some("c")).unwrap();
    check_rounds(store.as_ref(), &rounds);
    let duplicates = db
        .try_sql(
            None,
            "SELECT COUNT(*) FROM (SELECT 1 FROM verity.answer_events WHERE kind <> 'draft'
             GROUP BY case_id, rater_id, answer_revision HAVING COUNT(*) > 1) d",
        )
        .unwrap();
    assert_eq!(duplicates[0][0].as_deref(), Some("0"));
}

#[test]
fn diverging_copies_of_a_package_merge_into_a_conflict_the_coordinator_settles_in_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = project::init(&dir.path().join("p.verity"), "swe-bench-verified");
    diverge_and_settle(p, dir.path());
}

#[test]
fn diverging_copies_of_a_package_merge_into_a_conflict_the_coordinator_settles_on_a_server() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let p = project::init(Path::new(&db.url()), "swe-bench-verified");
    diverge_and_settle(p, dir.path());
}

/// The fixture's tasks, all assigned to ana, who submits the first (acting as ana after).
fn ana_submits_first_task(p: &mut ops::Project) {
    project::import(p, &[fixture_path("swebench.jsonl")]);
    ops::add_rater(p, "ana", T0).unwrap();
    ops::assign_to(p, &["ana".into()], &CaseSelection::All, T0).unwrap();
    p.act_as(rater("ana")).unwrap();
    ops::submit_answer(p, &answer("ana", TASKS[0], 1), T0).unwrap();
}

/// Ana's answer revised in two copies of her package, merged into `p`, listed, settled.
fn diverge_and_settle(mut p: ops::Project, dir: &Path) {
    ana_submits_first_task(&mut p);
    p.act_as(Actor::Coordinator).unwrap();
    // One package, copied to two machines; each revises the answer its own way.
    let first = dir.join("ana-laptop.verity");
    ops::package_for_rater(&mut p, "ana", &first, Overwrite::Refuse, T0).unwrap();
    let second = dir.join("ana-desktop.verity");
    std::fs::copy(&first, &second).unwrap();
    for (file, value, why) in [
        (&first, 2, "read the tests again"),
        (&second, 3, "the issue names no message"),
    ] {
        let mut copy = ops::open_project(file).unwrap();
        let mut revision = answer("ana", TASKS[0], value);
        revision.reason = Some(why.into());
        let view = ops::revise_answer(&mut copy, &revision, T0).unwrap();
        assert_eq!(view.answer_revision, 2);
    }

    let report = ops::merge_packages(&mut p, &[first.clone(), second.clone()], T0).unwrap();
    assert_eq!(report.conflicts.len(), 1, "{report:#?}");
    let conflict = &report.conflicts[0];
    let number = conflict.conflict;
    assert_eq!(conflict.incoming.answer_revision, 2);
    assert_eq!(conflict.stored.as_ref().unwrap().answer_revision, 2);
    assert!(conflict.why.contains("revision 2"), "{}", conflict.why);
    // Merged again, nothing changes and the divergence is reported as kept before, under its
    // number, still open.
    let again = ops::merge_packages(&mut p, &[second.clone(), first.clone()], T0).unwrap();
    assert!(
        again.conflicts.is_empty() && again.changed_nothing(),
        "{again:#?}"
    );
    assert_eq!(
        again
            .kept_before
            .iter()
            .map(|c| (c.conflict, c.resolved_at.is_none()))
            .collect::<Vec<_>>(),
        [(number, true)]
    );

    // Both answers are in the history, each with where it came from.
    let history = ops::answer_history(&p, TASKS[0]).unwrap();
    assert_eq!(history[0].events.len(), 2, "revision 1 and one revision 2");
    assert_eq!(history[0].conflicts.len(), 1);
    let kept = &history[0].conflicts[0];
    let other = if kept.origin.contains("ana-laptop") {
        &first
    } else {
        &second
    };
    assert!(
        kept.origin
            .contains(other.file_name().unwrap().to_str().unwrap()),
        "{}",
        kept.origin
    );
    assert!(kept.resolved_at.is_none());
    let open = ops::list_conflicts(&p, false).unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].current_revision, Some(2));
    // A rater never reads conflicts.
    p.act_as(rater("ana")).unwrap();
    let err = ops::list_conflicts(&p, false).unwrap_err();
    assert_eq!(err.code(), ErrorCode::CoordinatorOnly);
    p.act_as(Actor::Coordinator).unwrap();

    // The coordinator takes the set-aside answer: it becomes revision 3, its reason naming
    // the conflict and its package; the earlier revision 2 stays.
    let settled =
        ops::resolve_conflict(&mut p, number, Keep::Incoming, Some("asked ana"), T0).unwrap();
    assert!(settled.resolved_at.is_some());
    let history = ops::answer_history(&p, TASKS[0]).unwrap();
    let last = history[0].events.last().unwrap();
    assert_eq!(last.answer_revision, 3);
    assert_eq!(last.values, kept.values);
    let reason = last.reason.as_deref().unwrap();
    assert!(
        reason.contains(&format!("conflict {number}")) && reason.contains(&kept.origin),
        "{reason}"
    );
    assert!(ops::list_conflicts(&p, false).unwrap().is_empty());
    assert_eq!(ops::list_conflicts(&p, true).unwrap().len(), 1);
    let err = ops::resolve_conflict(&mut p, number, Keep::Stored, None, T0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
}

#[test]
fn the_command_line_lists_and_settles_conflicts() {
    let h = util::Harness::new();
    h.ok(&["import", &verity_testkit::fixture("swebench.jsonl")]);
    h.ok(&["raters", "add", "ana"]);
    h.ok(&["assign", "--rater", "ana", "--case", TASKS[0]]);
    let answer = |v: i64| {
        h.write(
            &format!("a{v}.json"),
            serde_json::to_vec(&answer_values(v, 1)).unwrap(),
        )
    };
    h.ok(&answer_args("ana", TASKS[0], &answer(1), &["--submit"]));
    h.ok(&["package", "--rater", "ana", "--out", "one.verity"]);
    std::fs::copy(h.path("one.verity"), h.path("two.verity")).unwrap();
    for (file, v) in [("one.verity", 2), ("two.verity", 3)] {
        let out = Command::new(env!("CARGO_BIN_EXE_verity"))
            .args([
                "--project",
                file,
                "answer",
                "--rater",
                "ana",
                "--case",
                TASKS[0],
            ])
            .args([
                "--file",
                &answer(v),
                "--submit",
                "--reason",
                "changed my mind",
            ])
            .current_dir(h.path(""))
            .output()
            .unwrap();
        verity_testkit::assert_success(&out);
    }
    let merged = h.json(&["merge", "one.verity", "two.verity", "--json"]);
    let conflicts = merged["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{merged}");
    let number = conflicts[0]["conflict"].as_i64().unwrap();
    let listed = h.ok(&["conflicts", "list"]);
    assert!(
        listed.contains(&format!("conflict {number}: ana on {}", TASKS[0]))
            && listed.ends_with("1 open conflicts\n"),
        "{listed}"
    );
    let shown = h.ok(&["case", "show", TASKS[0]]);
    assert!(
        shown.contains(&format!("conflict {number} (open")),
        "{shown}"
    );
    let settled = h.ok(&[
        "conflicts",
        "resolve",
        &number.to_string(),
        "--keep",
        "stored",
    ]);
    assert!(
        settled.contains("kept the answer the project holds"),
        "{settled}"
    );
    assert!(h.ok(&["conflicts", "list"]).ends_with("0 open conflicts\n"));
    // Merged again, the settled conflict stays settled, and the merge says nothing changed.
    let again = h.ok(&["merge", "two.verity", "one.verity"]);
    assert!(!again.contains("for the coordinator to settle"), "{again}");
    assert!(
        again.contains(&format!("was kept as conflict {number} by an earlier merge: settled at"))
            && again.contains("(kept the answer the project holds)")
            && again.ends_with("nothing changed: every event of these packages was merged, or kept as a conflict, before\n"),
        "{again}"
    );
    assert!(h.ok(&["conflicts", "list"]).ends_with("0 open conflicts\n"));
}

#[test]
fn a_rater_sees_no_verdict_no_source_and_nobody_elses_progress() {
    let h = util::Harness::new();
    h.ok(&["import", &verity_testkit::fixture("audit/cases")]);
    h.ok(&["raters", "add", "ana"]);
    h.ok(&["raters", "add", "bo"]);
    let task = "instance_acme__widgets-1111aaaa00000000000000000000000000000000-vnan";
    h.ok(&["assign", "--rater", "ana", "--rater", "bo", "--case", task]);
    let coordinator = h.ok(&["case", "show", task]);
    assert!(coordinator.contains("audit: proven"), "{coordinator}");
    assert!(coordinator.contains("rater bo"), "{coordinator}");

    for args in [
        vec!["--as", "ana", "case", "show", task],
        vec!["--as", "ana", "case", "show", task, "--json"],
    ] {
        let shown = h.ok(&args);
        for secret in ["proven", "airtight", "audit_folder", "\"bo\"", "rater bo"] {
            assert!(
                !shown.contains(secret),
                "{args:?} shows {secret:?}:\n{shown}"
            );
        }
    }
    let own = h.json(&["--as", "ana", "case", "show", task, "--json"]);
    let assignments = own["assignments"].as_array().unwrap();
    assert_eq!(assignments.len(), 1);
    assert_eq!(assignments[0]["rater"], "ana");

    // The package ana takes holds the task's text without anything of the audit: its verdict,
    // its folder's name, its codebase_ambiguity.json.
    h.ok(&["package", "--rater", "ana", "--out", "ana.verity"]);
    let package = Store::open(&h.path("ana.verity")).unwrap();
    let case = package.case_by_instance(task).unwrap().unwrap();
    assert_eq!(case.case.audit, None);
    let mut text = Vec::new();
    for table in ["case_sources", "case_revisions"] {
        package
            .read_rows(verity_store::transfer::table(table).unwrap(), &mut |row| {
                text.push(format!("{row:?}"));
                Ok(())
            })
            .unwrap();
    }
    let text = text.join("\n");
    for secret in [
        "Ambiguity witness",
        "airtight",
        "acme_1111aaaa",
        "codebase_ambiguity",
    ] {
        assert!(!text.contains(secret), "{secret:?} in {text}");
    }
}

#[test]
fn a_file_holding_one_revision_twice_upgrades_into_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.verity");
    let mut p = project::init(&path, "swe-bench-verified");
    ana_submits_first_task(&mut p);
    drop(p);
    // The file as schema 8 left it after two saves raced: a second revision 1, stored later.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP INDEX answer_events_one_revision;
         DROP TABLE sample_frame;
         DROP TABLE sample_draws;
         DROP TABLE answer_conflicts;
         DROP TABLE sweeps;
         DROP TABLE system_results;
         DROP TABLE answer_provenance;
         DROP TABLE model_replies;
         DROP TABLE model_attempts;
         DROP TABLE model_configs;
         DROP TABLE package_keys;
         DROP TABLE answer_seals;
         ALTER TABLE raters DROP COLUMN kind;
         DROP INDEX case_revisions_shapes;
         ALTER TABLE case_revisions DROP COLUMN shape;
         PRAGMA user_version = 8;
         INSERT INTO answer_events(uid, case_id, rater_id, case_revision_id, questionnaire_id,
           kind, answer_revision, answer, reason, at)
         SELECT 'ffffffff-0000-7000-8000-000000000001', case_id, rater_id, case_revision_id,
           questionnaire_id, kind, answer_revision, '{\"underspecified\": 2}', reason, at
         FROM answer_events WHERE kind = 'submit';",
    )
    .unwrap();
    drop(conn);
    let p = ops::open_project(&path).unwrap();
    let conflicts = ops::list_conflicts(&p, false).unwrap();
    assert_eq!(conflicts.len(), 1, "{conflicts:#?}");
    assert_eq!(conflicts[0].values["underspecified"], json!(2));
    assert!(conflicts[0].origin.contains("before schema 9"));
    let history = ops::answer_history(&p, TASKS[0]).unwrap();
    assert_eq!(history[0].events.len(), 1, "the earliest submission stays");
    assert_eq!(history[0].events[0].values["underspecified"], json!(1));
}
