//! On a server project the database itself, not only Verity, holds each rater to their own
//! rows: connected as a rater's login, every forbidden SELECT sees zero rows and every forbidden
//! INSERT, UPDATE and DELETE is refused, through Verity and in plain SQL; a `pg_dump` taken as a
//! rater holds no other rater's answer. Runs whenever `VERITY_TEST_POSTGRES_URL` is set.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

use annotations::ops::{
    self, Actor, AdjudicationRequest, AnswerRequest, CaseSelection, ErrorCode, PanelLogin, Project,
    QuestionnaireChoice,
};
use serde_json::json;
use time::OffsetDateTime;

use crate::server;

const T0: OffsetDateTime = OffsetDateTime::UNIX_EPOCH;
const ONE: &str = "acme__calc-101";
const TWO: &str = "acme__calc-102";
const COORDINATOR_PASSWORD: &str = "coordinator-secret";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn answer(rater: &str, case: &str, value: i64) -> AnswerRequest {
    let notes = "The issue names the failing call but not the message the test pins; a reader of the issue cannot know it.";
    AnswerRequest {
        rater: rater.into(),
        case: case.into(),
        values: json!({
            "underspecified": value, "underspecified_notes": notes,
            "false_negative": 1, "false_negative_notes": notes,
            "difficulty": "<15 min fix", "difficulty_notes": "One guard.",
            "other_major_issues": 0, "annotator_confidence": 4
        })
        .as_object()
        .unwrap()
        .clone(),
        case_revision: None,
        reason: None,
    }
}

/// A panel on a fresh database whose owner, a role with CREATEROLE, is the coordinator: two
/// tasks, ana on the first and bo on the second, bo's submitted answer, an adjudication, a
/// named adjudicator, a reference label set; ana and bo each granted a login.
struct Panel {
    db: server::Database,
    coordinator: String,
    ana: PanelLogin,
    bo: PanelLogin,
}

impl Panel {
    fn new() -> Option<Panel> {
        let db = server::Database::fresh()?;
        let coordinator = format!("{}_coord", db.name);
        db.sql(&format!(
            "CREATE ROLE {coordinator} LOGIN CREATEROLE PASSWORD '{COORDINATOR_PASSWORD}';
             ALTER DATABASE {} OWNER TO {coordinator};",
            db.name
        ));
        let url = db.url_as(&coordinator);
        let mut p = ops::init_project_with_password(
            Path::new(&url),
            Some(COORDINATOR_PASSWORD),
            &QuestionnaireChoice::Builtin("swe-bench-verified".into()),
            T0,
        )
        .unwrap();
        let flag = AtomicBool::new(false);
        ops::import_paths(&mut p, &[fixture("swebench.jsonl")], T0, &mut |_| {}, &flag).unwrap();
        ops::import_paths(
            &mut p,
            &[fixture("openai/ensembled_sample.csv")],
            T0,
            &mut |_| {},
            &flag,
        )
        .unwrap();
        for name in ["ana", "bo"] {
            ops::add_rater(&mut p, name, T0).unwrap();
        }
        // Every task a calibration task: a rater's login must not be able to tell.
        db.sql("INSERT INTO verity.calibration_tasks SELECT id, 't' FROM verity.cases");
        ops::assign_to(
            &mut p,
            &["ana".into()],
            &CaseSelection::Ids(vec![ONE.into()]),
            T0,
        )
        .unwrap();
        ops::assign_to(
            &mut p,
            &["bo".into()],
            &CaseSelection::Ids(vec![TWO.into()]),
            T0,
        )
        .unwrap();
        p.act_as(Actor::Rater { name: "bo".into() }).unwrap();
        ops::submit_answer(&mut p, &answer("bo", TWO, 3), T0).unwrap();
        p.act_as(Actor::Coordinator).unwrap();
        ops::add_adjudicator(&mut p, "lead", T0).unwrap();
        ops::adjudicate(
            &mut p,
            &AdjudicationRequest {
                case: TWO.into(),
                question: "underspecified".into(),
                value: json!(3),
                rationale: "bo read it right".into(),
                by: "lead".into(),
            },
            T0,
        )
        .unwrap();
        let ana = ops::panel_grant(&mut p, "ana", T0).unwrap();
        let bo = ops::panel_grant(&mut p, "bo", T0).unwrap();
        Some(Panel {
            db,
            coordinator,
            ana,
            bo,
        })
    }

    fn open_as(&self, login: &PanelLogin) -> Project {
        ops::open_project_with_password(
            Path::new(&self.db.url_as(&login.role)),
            Some(&login.password),
        )
        .unwrap()
    }

    fn coordinator(&self) -> Project {
        ops::open_project_with_password(
            Path::new(&self.db.url_as(&self.coordinator)),
            Some(COORDINATOR_PASSWORD),
        )
        .unwrap()
    }

    fn sql_as(&self, login: &PanelLogin, sql: &str) -> Result<Vec<Vec<Option<String>>>, String> {
        self.db
            .try_sql(Some((login.role.as_str(), login.password.as_str())), sql)
    }

    fn count_as(&self, login: &PanelLogin, table: &str) -> i64 {
        self.sql_as(login, &format!("SELECT COUNT(*) FROM verity.{table}"))
            .unwrap()[0][0]
            .as_deref()
            .unwrap()
            .parse()
            .unwrap()
    }
}

#[test]
fn a_raters_login_acts_for_that_rater_alone_through_verity() {
    let Some(panel) = Panel::new() else { return };
    let mut ana = panel.open_as(&panel.ana);
    assert_eq!(ana.bound_rater(), Some("ana"));
    assert_eq!(ana.actor(), Some(&Actor::Rater { name: "ana".into() }));
    for other in [Actor::Coordinator, Actor::Rater { name: "bo".into() }] {
        let err = ana.act_as(other).unwrap_err();
        assert_eq!(err.code(), ErrorCode::IdentityFixed, "{err}");
    }
    let queue = ops::rater_queue(&ana, "ana").unwrap();
    let ids: Vec<&str> = queue.iter().map(|q| q.instance_id.as_str()).collect();
    assert_eq!(ids, [ONE]);
    ops::save_draft(&mut ana, &answer("ana", ONE, 0), T0).unwrap();
    ops::submit_answer(&mut ana, &answer("ana", ONE, 1), T0).unwrap();
    // bo's task does not exist as far as ana's login can tell.
    let err = ops::submit_answer(&mut ana, &answer("ana", TWO, 1), T0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    let err = ops::case_view(&ana, TWO).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");

    // The coordinator sees everyone's answers, ana's saved over her own login included.
    let coordinator = panel.coordinator();
    assert_eq!(coordinator.bound_rater(), None);
    let history = ops::answer_history(&coordinator, ONE).unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].events.len(), 2);
}

#[test]
fn the_database_refuses_a_rater_every_row_that_is_not_theirs() {
    let Some(panel) = Panel::new() else { return };
    let (ana, bo) = (&panel.ana, &panel.bo);
    let mut p = panel.open_as(ana);
    ops::submit_answer(&mut p, &answer("ana", ONE, 1), T0).unwrap();
    drop(p);

    // What ana's login reads: her task, herself, her assignment, her events; nothing else.
    for (table, rows) in [
        ("meta", None),
        ("questionnaires", Some(1)),
        ("cases", Some(1)),
        ("case_sources", Some(1)),
        ("case_revisions", Some(1)),
        ("raters", Some(1)),
        ("assignments", Some(1)),
        ("answer_events", Some(1)),
        ("answer_event_fields", Some(0)),
        ("adjudications", Some(0)),
        ("adjudicators", Some(0)),
        ("reference_labels", Some(0)),
        ("calibration_tasks", Some(0)),
        ("evidence_cache", Some(0)),
        ("panel_logins", Some(1)),
    ] {
        let seen = panel.count_as(ana, table);
        match rows {
            Some(rows) => assert_eq!(seen, rows, "ana's login reads {seen} rows of {table}"),
            None => assert!(seen > 0, "{table}"),
        }
    }
    let other = panel
        .sql_as(
            ana,
            "SELECT COUNT(*) FROM verity.answer_events WHERE rater_id <> verity.current_rater()",
        )
        .unwrap();
    assert_eq!(other[0][0].as_deref(), Some("0"));
    // The coordinator's own login reads everything.
    let all = panel
        .db
        .try_sql(
            Some((panel.coordinator.as_str(), COORDINATOR_PASSWORD)),
            "SELECT COUNT(*) FROM verity.answer_events",
        )
        .unwrap();
    assert_eq!(all[0][0].as_deref(), Some("2"));

    let id = |sql: &str| panel.db.try_sql(None, sql).unwrap()[0][0].clone().unwrap();
    let bo_id = id("SELECT id FROM verity.raters WHERE name = 'bo'");
    let revision = |case: &str| {
        id(&format!(
            "SELECT r.case_id || ', ' || r.id FROM verity.case_revisions r
             JOIN verity.cases c ON c.id = r.case_id WHERE c.instance_id = '{case}'"
        ))
    };
    let insert_event = |rater: &str, case: &str| {
        format!(
            "INSERT INTO verity.answer_events(uid, case_id, case_revision_id, rater_id,
               questionnaire_id, kind, answer_revision, answer, at)
             VALUES ('forged-{case}', {}, {rater}, 1, 'draft', 0, '{{}}', 't')",
            revision(case)
        )
    };
    let forbidden = [
        // In another rater's name, on her own task.
        insert_event(&bo_id, ONE),
        // In her own name, on a task not hers.
        insert_event("verity.current_rater()", TWO),
        "UPDATE verity.answer_events SET answer = '{}'".into(),
        "DELETE FROM verity.answer_events".into(),
        "TRUNCATE verity.answer_events".into(),
        "INSERT INTO verity.adjudications(case_id, question_id, value, rationale, decided_by, rule, at)
         SELECT id, 'underspecified', '0', 'x', 'ana', 'adjudicated', 't' FROM verity.cases".into(),
        "DELETE FROM verity.adjudications".into(),
        "INSERT INTO verity.adjudicators VALUES ('ana', 't')".into(),
        "INSERT INTO verity.reference_labels SELECT 'mine', id, '{}', 'x', 't' FROM verity.cases".into(),
        "INSERT INTO verity.raters(name, created_at) VALUES ('eve', 't')".into(),
        "UPDATE verity.raters SET name = 'someone'".into(),
        "DELETE FROM verity.raters".into(),
        "INSERT INTO verity.assignments(case_id, rater_id, assigned_at) SELECT id, verity.current_rater(), 't' FROM verity.cases".into(),
        "UPDATE verity.assignments SET rater_id = 1".into(),
        "DELETE FROM verity.assignments".into(),
        "INSERT INTO verity.cases(instance_id, created_at) VALUES ('x', 't')".into(),
        "UPDATE verity.case_revisions SET title = 'x'".into(),
        "DELETE FROM verity.cases".into(),
        "UPDATE verity.meta SET value = 'x'".into(),
        "INSERT INTO verity.panel_logins VALUES ('x', 1, 't')".into(),
        "UPDATE verity.questionnaires SET source = ''".into(),
    ];
    let before = panel
        .db
        .try_sql(None, "SELECT COUNT(*) FROM verity.answer_events")
        .unwrap();
    for sql in &forbidden {
        let why = panel
            .sql_as(ana, sql)
            .expect_err(&format!("ana's login was allowed: {sql}"));
        assert!(
            why.contains("permission denied") || why.contains("row-level security policy"),
            "{sql}: refused for another reason: {why}"
        );
    }
    // Her time on her own assignment is hers to add, and only hers.
    panel
        .sql_as(
            ana,
            "UPDATE verity.assignments SET active_ms = active_ms + 5",
        )
        .unwrap();
    let after = panel
        .db
        .try_sql(None, "SELECT COUNT(*) FROM verity.answer_events")
        .unwrap();
    assert_eq!(before, after);
    let times = panel
        .db
        .try_sql(
            None,
            "SELECT active_ms FROM verity.assignments ORDER BY rater_id",
        )
        .unwrap();
    assert_eq!(
        times,
        [vec![Some("5".to_string())], vec![Some("0".to_string())]]
    );

    // bo's login, likewise, never sees ana's answer.
    assert_eq!(panel.count_as(bo, "answer_events"), 1);
    assert_eq!(panel.count_as(bo, "cases"), 1);
}

#[test]
fn a_dump_taken_as_a_rater_holds_no_other_raters_answer() {
    let Some(panel) = Panel::new() else { return };
    let Ok(bin) = std::env::var("PG_BIN") else {
        return;
    };
    let mut p = panel.open_as(&panel.ana);
    ops::submit_answer(&mut p, &answer("ana", ONE, 1), T0).unwrap();
    drop(p);
    let uid = |rater: &str| {
        panel
            .db
            .try_sql(
                None,
                &format!(
                    "SELECT e.uid FROM verity.answer_events e JOIN verity.raters r
                     ON r.id = e.rater_id WHERE r.name = '{rater}'"
                ),
            )
            .unwrap()[0][0]
            .clone()
            .unwrap()
    };
    let (mine, theirs) = (uid("ana"), uid("bo"));
    let url = std::env::var("VERITY_TEST_POSTGRES_URL").unwrap();
    let hostport = url
        .trim_start_matches("postgres://")
        .split('@')
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let (host, port) = hostport.split_once(':').unwrap();
    let out = Command::new(Path::new(&bin).join("pg_dump"))
        .args([
            "--enable-row-security",
            "--data-only",
            "--schema=verity",
            // Systems' results: the raters' group holds no grant on the table at all.
            "--exclude-table=verity.system_results",
            "-h",
            host,
            "-p",
            port,
            "-U",
            &panel.ana.role,
            &panel.db.name,
        ])
        .env("PGPASSWORD", &panel.ana.password)
        .env_remove("PGPASSFILE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pg_dump as ana: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = String::from_utf8(out.stdout).unwrap();
    assert!(dump.contains(&mine), "ana's own answer is in her dump");
    assert!(
        !dump.contains(&theirs),
        "bo's answer leaked into ana's dump"
    );
    assert!(!dump.contains("bo read it right"), "an adjudication leaked");
    assert!(!dump.contains(TWO), "bo's task leaked");
}

#[test]
fn a_revoked_login_cannot_connect_and_its_answers_stay() {
    let Some(panel) = Panel::new() else { return };
    let mut p = panel.coordinator();
    let members = ops::panel_members(&mut p).unwrap();
    assert_eq!(members.len(), 2);
    let role = ops::panel_revoke(&mut p, "bo").unwrap();
    assert_eq!(role, panel.bo.role);
    let err = ops::open_project_with_password(
        Path::new(&panel.db.url_as(&panel.bo.role)),
        Some(&panel.bo.password),
    )
    .unwrap_err();
    assert!(err.to_string().contains(&panel.bo.role), "{err}");
    assert_eq!(
        ops::answer_history(&p, TWO).unwrap()[0].rater,
        "bo",
        "bo's answer stays"
    );
    let err = ops::panel_revoke(&mut p, "bo").unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    // A new grant is a new password for the same rater.
    let again = ops::panel_grant(&mut p, "ana", T0).unwrap();
    assert_eq!(again.role, panel.ana.role);
    assert_ne!(again.password, panel.ana.password);
    let err = ops::open_project_with_password(
        Path::new(&panel.db.url_as(&panel.ana.role)),
        Some(&panel.ana.password),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("password authentication failed"),
        "{err}"
    );
}

#[test]
fn logins_are_for_server_projects() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = ops::init_project(
        &dir.path().join("p.verity"),
        &QuestionnaireChoice::Builtin("swe-bench-verified".into()),
        T0,
    )
    .unwrap();
    ops::add_rater(&mut p, "ana", T0).unwrap();
    let err = ops::panel_grant(&mut p, "ana", T0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAServer);
    assert!(err.to_string().contains("verity package"), "{err}");
}

#[test]
fn the_command_line_grants_a_login_and_a_rater_uses_it_as_a_file() {
    let Some(panel) = Panel::new() else { return };
    let verity = |user: &str, password: &str, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_verity"))
            .arg("--project")
            .arg(panel.db.url_as(user))
            .args(args)
            .env("PGPASSWORD", password)
            .env_remove("PGPASSFILE")
            .output()
            .unwrap()
    };
    let out = verity(
        &panel.coordinator,
        COORDINATOR_PASSWORD,
        &["raters", "add", "cy"],
    );
    assert!(out.status.success());
    verity(
        &panel.coordinator,
        COORDINATOR_PASSWORD,
        &["assign", "--rater", "cy", "--case", ONE],
    );
    let out = verity(
        &panel.coordinator,
        COORDINATOR_PASSWORD,
        &["panel", "grant", "cy", "--json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let login: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&String> = login.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["password", "rater", "role"]);
    let (role, password) = (
        login["role"].as_str().unwrap(),
        login["password"].as_str().unwrap(),
    );
    let out = verity(role, password, &["queue"]);
    let queue = String::from_utf8_lossy(&out.stdout);
    assert!(queue.contains(ONE) && !queue.contains(TWO), "{queue}");
    assert!(queue.ends_with("1 tasks for cy\n"), "{queue}");
    let out = verity(role, password, &["case", "show", ONE]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = verity(role, password, &["case", "show", TWO]);
    assert_eq!(out.status.code(), Some(2), "bo's task is not there for cy");
    let out = verity(role, password, &["--as", "bo", "case", "show", ONE]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("acts for cy only"));
    // The password is on no command line, in no error.
    let out = verity(role, "wrong", &["case", "show", ONE]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("password authentication failed"), "{err}");
    assert!(!err.contains("wrong"), "{err}");
}

#[test]
fn the_coordinator_hears_of_each_raters_answer_as_it_is_saved() {
    let Some(panel) = Panel::new() else { return };
    let coordinator = panel.coordinator();
    // The feed returns once it listens: nothing said after that is missed.
    let feed = coordinator.answer_feed().unwrap().unwrap();
    let mut ana = panel.open_as(&panel.ana);
    ops::save_draft(&mut ana, &answer("ana", ONE, 0), T0).unwrap();
    feed.recv_timeout(std::time::Duration::from_secs(5))
        .expect("the coordinator hears of ana's draft");
    // A project file has nobody else writing to it, and no feed.
    let dir = tempfile::tempdir().unwrap();
    let file = ops::init_project(
        &dir.path().join("p.verity"),
        &QuestionnaireChoice::Builtin("swe-bench-verified".into()),
        T0,
    )
    .unwrap();
    assert!(file.answer_feed().unwrap().is_none());
}

#[test]
fn raters_of_a_panel_made_before_risk_scores_may_store_them_once_migrated() {
    let Some(panel) = Panel::new() else { return };
    // The panel as an older Verity left it: no risk column, schema 4; its raters' group was
    // granted what that schema had.
    panel.db.sql(
        "ALTER TABLE verity.evidence_cache DROP COLUMN risk_permille;
         UPDATE verity.schema_version SET version = 4;",
    );
    drop(panel.coordinator());
    let store_evidence = "INSERT INTO verity.evidence_cache
             (case_revision_id, base_commit, engine_version, report, computed_at, risk_permille)
         SELECT id, base_commit, 'evidence-test', '{}', 't', 500 FROM verity.case_revisions;
         UPDATE verity.evidence_cache SET risk_permille = 600, report = '{\"a\": 1}';
         SELECT risk_permille FROM verity.evidence_cache";
    assert_eq!(
        panel.sql_as(&panel.ana, store_evidence),
        Ok(vec![vec![Some("600".to_string())]]),
        "ana stores and refreshes her task's evidence with its risk"
    );
}
