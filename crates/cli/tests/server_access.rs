//! On a server project the database itself, not only Verity, holds each rater to their own
//! rows: connected as a rater's login, every forbidden SELECT sees zero rows and every forbidden
//! INSERT, UPDATE and DELETE is refused, through Verity and in plain SQL; a `pg_dump` taken as a
//! rater holds no other rater's answer. Runs whenever `VERITY_TEST_POSTGRES_URL` is set.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use annotations::ops::{self, Actor, AdjudicationRequest, ErrorCode, PanelLogin, Project};
use serde_json::json;

use verity_testkit::fixture_path;
use verity_testkit::project::{self, T0, answer};

const ONE: &str = "acme__calc-101";
const TWO: &str = "acme__calc-102";
const COORDINATOR_PASSWORD: &str = "coordinator-secret";

/// A panel on a fresh database whose owner, a role with CREATEROLE, is the coordinator: two
/// tasks, ana on the first and bo on the second, bo's submitted answer, an adjudication, a
/// named adjudicator, a reference label set; ana and bo each granted a login.
struct Panel {
    db: verity_testkit::server::Database,
    coordinator: String,
    ana: PanelLogin,
    bo: PanelLogin,
}

impl Panel {
    fn new() -> Option<Panel> {
        let db = verity_testkit::server::Database::fresh()?;
        let (coordinator, mut p) =
            db.coordinator_project(COORDINATOR_PASSWORD, "swe-bench-verified");
        project::import(&mut p, &[fixture_path("swebench.jsonl")]);
        project::import(&mut p, &[fixture_path("openai/ensembled_sample.csv")]);
        for name in ["ana", "bo"] {
            ops::add_rater(&mut p, name, T0).unwrap();
        }
        // Every task a calibration task: a rater's login must not be able to tell.
        db.sql("INSERT INTO verity.calibration_tasks SELECT id, 't' FROM verity.cases");
        project::assign_tasks(&mut p, &["ana"], &[ONE]);
        project::assign_tasks(&mut p, &["bo"], &[TWO]);
        project::submit_as(&mut p, &answer("bo", TWO, 3), T0);
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
        let ana = ops::panel_grant(&mut p, "ana", false, T0).unwrap();
        let bo = ops::panel_grant(&mut p, "bo", false, T0).unwrap();
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
    // bo's task is not ana's, whether or not her login can tell it exists: the same refusal
    // as `--as ana` on a project file gives.
    let err = ops::submit_answer(&mut ana, &answer("ana", TWO, 1), T0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAssigned, "{err}");
    let err = ops::case_view(&ana, TWO).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAssigned, "{err}");
    assert!(
        err.to_string()
            .starts_with(&format!("task {TWO} is not assigned to ana")),
        "{err}"
    );

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
        // Time on task and evidence go through the checked path, or nowhere.
        "UPDATE verity.assignments SET active_ms = active_ms + 5".into(),
        "INSERT INTO verity.evidence_cache(case_revision_id, base_commit, engine_version, report, computed_at)
         SELECT id, 'x', 'x', '{}', 't' FROM verity.case_revisions".into(),
        "UPDATE verity.evidence_cache SET risk_permille = 0".into(),
        // Her own answer, in her own name, on her own task: still only through save_my_answer.
        insert_event("verity.current_rater()", ONE),
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
    // Her time on her own assignment is hers to add, through add_my_time, and never more than
    // the wall clock ran: a claimed hour is cut to the moments since the assignment.
    let case_one = id(&format!(
        "SELECT id FROM verity.cases WHERE instance_id = '{ONE}'"
    ));
    let case_two = id(&format!(
        "SELECT id FROM verity.cases WHERE instance_id = '{TWO}'"
    ));
    let added = panel
        .sql_as(
            ana,
            &format!("SELECT verity.add_my_time({case_one}, 3600000)"),
        )
        .unwrap();
    assert_eq!(added[0][0].as_deref(), Some("t"));
    let not_hers = panel
        .sql_as(ana, &format!("SELECT verity.add_my_time({case_two}, 5)"))
        .unwrap();
    assert_eq!(
        not_hers[0][0].as_deref(),
        Some("f"),
        "bo's task is not hers"
    );
    let after = panel
        .db
        .try_sql(None, "SELECT COUNT(*) FROM verity.answer_events")
        .unwrap();
    assert_eq!(before, after);
    let times: Vec<i64> = panel
        .db
        .try_sql(
            None,
            "SELECT active_ms FROM verity.assignments ORDER BY rater_id",
        )
        .unwrap()
        .iter()
        .map(|r| r[0].as_deref().unwrap().parse().unwrap())
        .collect();
    assert!(
        times[0] > 0 && times[0] < 600_000,
        "ana's claimed hour was capped by the wall clock: {times:?}"
    );
    assert_eq!(times[1], 0, "bo's time is untouched");

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
            // The task texts hold the audit's verdict: a rater reads them through case_text.
            "--exclude-table=verity.case_revisions",
            "--exclude-table=verity.case_sources",
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
    // A rater with a login is refused a second one, saying how to reset it and what it does.
    let err = ops::panel_grant(&mut p, "ana", false, T0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::AlreadyExists);
    assert!(
        err.to_string().contains("ana has a login already")
            && err.to_string().contains("--reset")
            && err.to_string().contains("the old one stops working"),
        "{err}"
    );
    // A reset is a new password for the same rater, and the old one opens nothing.
    let again = ops::panel_grant(&mut p, "ana", true, T0).unwrap();
    assert!(again.reset);
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
    let mut p = project::init(&dir.path().join("p.verity"), "swe-bench-verified");
    ops::add_rater(&mut p, "ana", T0).unwrap();
    let err = ops::panel_grant(&mut p, "ana", false, T0).unwrap_err();
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
    verity_testkit::assert_success(&out);
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
    assert!(queue.ends_with("1 task for cy\n"), "{queue}");
    let out = verity(role, password, &["case", "show", ONE]);
    verity_testkit::assert_success(&out);
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
    // A second grant is refused, naming --reset; with it the old password stops working.
    let out = verity(
        &panel.coordinator,
        COORDINATOR_PASSWORD,
        &["panel", "grant", "cy"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cy has a login already") && err.contains("verity panel grant cy --reset"),
        "{err}"
    );
    verity_testkit::assert_success(&verity(role, password, &["queue"]));
    let out = verity(
        &panel.coordinator,
        COORDINATOR_PASSWORD,
        &["panel", "grant", "cy", "--reset"],
    );
    verity_testkit::assert_success(&out);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("the old password no longer works"), "{said}");
    let out = verity(role, password, &["queue"]);
    assert_eq!(out.status.code(), Some(2), "the old password still works");
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
    let file = project::init(&dir.path().join("p.verity"), "swe-bench-verified");
    assert!(file.answer_feed().unwrap().is_none());
}

/// The panel as a Verity of server schema 4 left it: no risk column, none of schema 6's
/// checked path, and the raters' group granted the direct writes it had then.
fn make_old(panel: &Panel) {
    let group = format!("verity_{}_raters", panel.db.name);
    let exists = "EXISTS (SELECT 1 FROM verity.case_revisions r WHERE r.id = case_revision_id)";
    panel.db.sql(&format!(
        "DROP FUNCTION verity.case_text(BIGINT);
         DROP FUNCTION verity.add_my_time(BIGINT, BIGINT);
         DROP FUNCTION verity.save_my_answer(TEXT, BIGINT, BIGINT, BIGINT, TEXT, TEXT, TEXT);
         DROP FUNCTION verity.answer_violation(JSONB, JSONB, BOOLEAN);
         DROP FUNCTION verity.lock_answer_history(BIGINT, BIGINT);
         DROP TABLE verity.questionnaire_rules;
         DROP TABLE verity.answer_conflicts;
         DROP INDEX verity.answer_events_one_revision;
         ALTER TABLE verity.assignments DROP COLUMN time_at;
         DROP POLICY everyone_reads ON verity.meta;
         CREATE POLICY everyone_reads ON verity.meta FOR SELECT USING (true);
         CREATE POLICY own_time ON verity.assignments FOR UPDATE
             USING (rater_id = verity.current_rater()) WITH CHECK (rater_id = verity.current_rater());
         CREATE POLICY own_name_own_task ON verity.answer_events FOR INSERT
             WITH CHECK (rater_id = verity.current_rater() AND verity.assigned_to_me(case_id));
         CREATE POLICY assigned_write ON verity.evidence_cache FOR INSERT WITH CHECK ({exists});
         CREATE POLICY assigned_refresh ON verity.evidence_cache FOR UPDATE
             USING ({exists}) WITH CHECK ({exists});
         ALTER TABLE verity.evidence_cache DROP COLUMN risk_permille;
         GRANT SELECT ON ALL TABLES IN SCHEMA verity TO {group};
         GRANT INSERT ON verity.answer_events, verity.evidence_cache TO {group};
         GRANT UPDATE (active_ms) ON verity.assignments TO {group};
         GRANT UPDATE (report, computed_at) ON verity.evidence_cache TO {group};
         UPDATE verity.schema_version SET version = 4;"
    ));
}

#[test]
fn a_panel_made_by_an_older_verity_is_upgraded_and_its_raters_lose_direct_writes() {
    let Some(panel) = Panel::new() else { return };
    make_old(&panel);
    // What the old grants let ana's login do: two submissions of one revision, written
    // straight into the table (as two racing saves of an older Verity did).
    let insert = |uid: &str, value: i64| {
        format!(
            "INSERT INTO verity.answer_events(uid, case_id, case_revision_id, rater_id,
               questionnaire_id, kind, answer_revision, answer, at)
             SELECT '{uid}', r.case_id, r.id, verity.current_rater(), 1, 'submit', 1,
               '{{\"underspecified\": {value}}}', 't'
             FROM verity.case_revisions r JOIN verity.cases c ON c.id = r.case_id
             WHERE c.instance_id = '{ONE}'"
        )
    };
    for (uid, value) in [
        ("00000000-0000-7000-8000-000000000001", 1),
        ("00000000-0000-7000-8000-000000000002", 2),
    ] {
        panel.sql_as(&panel.ana, &insert(uid, value)).unwrap();
    }
    // The coordinator's Verity migrates the panel when it opens it.
    let coordinator = panel.coordinator();
    let conflicts = ops::list_conflicts(&coordinator, false).unwrap();
    assert_eq!(conflicts.len(), 1, "{conflicts:#?}");
    assert_eq!(conflicts[0].rater, "ana");
    assert_eq!(conflicts[0].values["underspecified"], json!(2));
    assert!(conflicts[0].origin.contains("before server schema 6"));
    let history = ops::answer_history(&coordinator, ONE).unwrap();
    assert_eq!(history[0].events.len(), 1, "the earliest submission stays");

    for sql in [
        insert("00000000-0000-7000-8000-000000000003", 3),
        "UPDATE verity.assignments SET active_ms = active_ms + 5".into(),
        "INSERT INTO verity.evidence_cache(case_revision_id, base_commit, engine_version, report, computed_at)
         SELECT id, 'x', 'x', '{}', 't' FROM verity.case_revisions"
            .into(),
        "UPDATE verity.evidence_cache SET report = '{}'".into(),
    ] {
        let why = panel
            .sql_as(&panel.ana, &sql)
            .expect_err(&format!("ana's login still may: {sql}"));
        assert!(why.contains("permission denied"), "{sql}: {why}");
    }
    // Ana's app goes on working through the checked path: the migration wrote the rules.
    let mut ana = panel.open_as(&panel.ana);
    let mut revision = answer("ana", ONE, 3);
    revision.reason = Some("read the tests again".into());
    let view = ops::revise_answer(&mut ana, &revision, T0).unwrap();
    assert_eq!(view.answer_revision, 2);
    assert_ne!(
        view.saved_at.as_deref(),
        Some("1970-01-01T00:00:00Z"),
        "the server's clock dates it"
    );
}

/// The table of `docs/rater-logins.md` that says, per table, what a rater's login may do.
fn documented_access() -> Vec<(String, String, [String; 3])> {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rater-logins.md"),
    )
    .unwrap();
    doc.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect::<Vec<String>>()
        })
        // The table of tables has five columns; the table of functions above it, two.
        .filter(|cells| cells.len() == 5)
        .map(|cells| {
            (
                cells[0].trim_matches('`').to_string(),
                cells[1].clone(),
                [cells[2].clone(), cells[3].clone(), cells[4].clone()],
            )
        })
        .collect()
}

#[test]
fn a_raters_login_may_do_exactly_what_the_documentation_says_on_every_table() {
    let Some(panel) = Panel::new() else { return };
    let ana = &panel.ana;
    let mut p = panel.open_as(ana);
    ops::submit_answer(&mut p, &answer("ana", ONE, 1), T0).unwrap();
    drop(p);
    let documented = documented_access();
    let mut tables: Vec<String> = panel
        .db
        .try_sql(
            None,
            "SELECT tablename FROM pg_tables WHERE schemaname = 'verity' ORDER BY tablename",
        )
        .unwrap()
        .into_iter()
        .map(|r| r[0].clone().unwrap())
        .collect();
    let mut named: Vec<String> = documented.iter().map(|d| d.0.clone()).collect();
    tables.sort();
    named.sort();
    assert_eq!(
        named, tables,
        "docs/rater-logins.md names every table, once"
    );
    let columns = |table: &str| -> Vec<String> {
        panel
            .db
            .try_sql(
                None,
                &format!(
                    "SELECT column_name FROM information_schema.columns
                     WHERE table_schema = 'verity' AND table_name = '{table}' ORDER BY ordinal_position"
                ),
            )
            .unwrap()
            .into_iter()
            .map(|r| r[0].clone().unwrap())
            .collect()
    };
    for (table, select, writes) in &documented {
        let all = columns(table);
        let whole = panel.sql_as(ana, &format!("SELECT * FROM verity.{table}"));
        if let Some(list) = select.strip_prefix("columns ") {
            // Only the columns named, which leave out the task's text.
            assert!(whole.is_err(), "{table}: ana reads whole rows");
            let granted: Vec<&str> = list
                .split(',')
                .map(|c| c.trim().trim_matches('`'))
                .collect();
            for column in &all {
                let read = panel.sql_as(ana, &format!("SELECT {column} FROM verity.{table}"));
                assert_eq!(
                    read.is_ok(),
                    granted.contains(&column.as_str()),
                    "{table}.{column}: {read:?}"
                );
            }
        } else {
            let rows = whole.unwrap_or_else(|e| panic!("{table}: ana cannot read it: {e}"));
            match select.as_str() {
                "no rows" => assert!(rows.is_empty(), "{table}: ana reads {rows:?}"),
                s if s.starts_with("own rows") || s.starts_with("all rows") => {}
                other => panic!("{table}: the documentation says {other:?}"),
            }
        }
        let first = &all[0];
        for (verb, sql, allowed) in [
            (
                "INSERT",
                format!("INSERT INTO verity.{table} DEFAULT VALUES"),
                &writes[0],
            ),
            (
                "UPDATE",
                format!("UPDATE verity.{table} SET {first} = {first}"),
                &writes[1],
            ),
            ("DELETE", format!("DELETE FROM verity.{table}"), &writes[2]),
        ] {
            assert_eq!(
                allowed, "no",
                "{table} {verb}: a rater's login writes no table"
            );
            let why = panel
                .sql_as(ana, &sql)
                .expect_err(&format!("ana's login may {verb} {table}"));
            assert!(why.contains("permission denied"), "{table} {verb}: {why}");
        }
    }
}

#[test]
fn the_checked_path_sets_the_revision_and_time_and_checks_the_answer() {
    let Some(panel) = Panel::new() else { return };
    let ana = &panel.ana;
    let id = |sql: &str| panel.db.try_sql(None, sql).unwrap()[0][0].clone().unwrap();
    let (case, revision) = (
        id(&format!(
            "SELECT id FROM verity.cases WHERE instance_id = '{ONE}'"
        )),
        id(&format!(
            "SELECT r.id FROM verity.case_revisions r JOIN verity.cases c ON c.id = r.case_id
             WHERE c.instance_id = '{ONE}'"
        )),
    );
    let two = id(&format!(
        "SELECT id FROM verity.cases WHERE instance_id = '{TWO}'"
    ));
    let questionnaire = id("SELECT value FROM verity.meta WHERE key = 'questionnaire'");
    let valid = serde_json::to_string(&answer("ana", ONE, 1).values).unwrap();
    let save = |uid: &str, case: &str, kind: &str, answer: &str, reason: &str| {
        panel.sql_as(
            ana,
            &format!(
                "SELECT verity.save_my_answer('{uid}', {case}, {revision}, {questionnaire},
                   '{kind}', '{answer}', {reason})"
            ),
        )
    };
    let uid = |n: u32| format!("019a0000-0000-7000-8000-{n:012}");
    for (sql, why) in [
        (
            save(&uid(1), &case, "draft", r#"{"underspecified": 9}"#, "NULL"),
            "not an option",
        ),
        (
            save(&uid(1), &case, "submit", r#"{"underspecified": 1}"#, "NULL"),
            "must be answered",
        ),
        (
            save(&uid(1), &case, "submit", r#"{"mood": 1}"#, "NULL"),
            "not a question",
        ),
        (
            save(&uid(1), &two, "submit", &valid, "NULL"),
            "not assigned",
        ),
        (
            save("forged-id", &case, "submit", &valid, "NULL"),
            "UUID v7",
        ),
        (
            save(&uid(1), &case, "revise", &valid, "'why'"),
            "nothing to revise",
        ),
    ] {
        let err = sql.expect_err(why);
        assert!(err.contains(why), "expected {why:?}: {err}");
    }
    save(&uid(2), &case, "submit", &valid, "NULL").unwrap();
    // The same save again (a retry after a lost connection) is the same event.
    save(&uid(2), &case, "submit", &valid, "NULL").unwrap();
    let err = save(&uid(3), &case, "submit", &valid, "NULL").unwrap_err();
    assert!(err.contains("submitted already"), "{err}");
    let err = save(&uid(4), &case, "draft", &valid, "NULL").unwrap_err();
    assert!(err.contains("never overwritten"), "{err}");
    let err = save(&uid(1), &case, "revise", &valid, "'older'").unwrap_err();
    assert!(err.contains("before the rater's latest"), "{err}");
    save(&uid(5), &case, "revise", &valid, "'read it again'").unwrap();
    let stored = panel
        .db
        .try_sql(
            None,
            "SELECT e.kind, answer_revision, at FROM verity.answer_events e
             JOIN verity.raters r ON r.id = e.rater_id WHERE r.name = 'ana' ORDER BY uid",
        )
        .unwrap();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0][..2], [Some("submit".into()), Some("1".into())]);
    assert_eq!(stored[1][..2], [Some("revise".into()), Some("2".into())]);
    let at = stored[1][2].as_deref().unwrap();
    let year: i32 = at[..4].parse().unwrap();
    assert!(year >= 2025, "the server's clock dated it: {at}");
}

#[test]
fn a_raters_login_reads_no_verdict_and_no_calibration() {
    let Some(panel) = Panel::new() else { return };
    let mut coordinator = panel.coordinator();
    project::import(&mut coordinator, &[fixture_path("audit/cases")]);
    let task = "instance_acme__widgets-1111aaaa00000000000000000000000000000000-vnan";
    project::assign_tasks(&mut coordinator, &["ana", "bo"], &[task]);
    ops::set_calibration_rate(&mut coordinator, 0.5).unwrap();
    let shown = ops::show_case(&coordinator, task).unwrap();
    assert_eq!(shown.audit_status.as_deref(), Some("proven"));
    drop(coordinator);

    let ana = panel.open_as(&panel.ana);
    let shown = ops::show_case(&ana, task).unwrap();
    assert_eq!((shown.audit_status, shown.audit_class), (None, None));
    assert!(shown.sources.is_empty());
    let raters: Vec<&str> = shown.assignments.iter().map(|a| a.rater.as_str()).collect();
    assert_eq!(raters, ["ana"], "ana sees nobody else's progress");
    assert!(ops::case_view(&ana, task).is_ok());
    for sql in [
        "SELECT content FROM verity.case_revisions",
        "SELECT content FROM verity.case_sources",
        "SELECT content_hash FROM verity.case_revisions",
    ] {
        let why = panel.sql_as(&panel.ana, sql).expect_err(sql);
        assert!(why.contains("permission denied"), "{sql}: {why}");
    }
    let texts = panel
        .sql_as(
            &panel.ana,
            "SELECT verity.case_text(id) FROM verity.case_revisions",
        )
        .unwrap();
    assert_eq!(texts.len(), 2, "her two tasks");
    let texts = format!("{texts:?}");
    assert!(texts.contains("1111aaaa"), "{texts}");
    for secret in ["airtight", "Ambiguity witness", "proven"] {
        assert!(!texts.contains(secret), "{secret} reached ana: {texts}");
    }
    assert!(
        panel
            .sql_as(
                &panel.ana,
                "SELECT value FROM verity.meta WHERE key = 'calibration_rate'"
            )
            .unwrap()
            .is_empty()
    );
    assert_eq!(panel.count_as(&panel.ana, "calibration_tasks"), 0);
    assert_eq!(panel.count_as(&panel.ana, "reference_labels"), 0);
}

#[test]
fn a_raters_login_reads_a_sweep_of_their_own_task_only_while_sweeps_are_shown() {
    let Some(panel) = Panel::new() else { return };
    let sweep = |case: &str| {
        json!([{"iid": case, "choice": "c", "snippets": [], "n_verified": 0,
            "ways_verified": 0, "tier": "unsettled", "rests_on": "nothing verified",
            "judged": [], "graded_value": null, "base_commit": "a", "missing_objects": []}])
        .to_string()
        .replace('\'', "''")
    };
    for case in [ONE, TWO] {
        panel.db.sql(&format!(
            "INSERT INTO verity.sweeps SELECT id, 'a', '{}', 't' FROM verity.cases
             WHERE instance_id = '{case}'",
            sweep(case)
        ));
    }
    let coordinator = panel.coordinator();
    assert_eq!(
        ops::show_case(&coordinator, ONE).unwrap().sweep.unwrap()[0]
            .result
            .iid,
        ONE
    );
    drop(coordinator);
    assert_eq!(panel.count_as(&panel.ana, "sweeps"), 0, "hidden by default");
    let ana = panel.open_as(&panel.ana);
    assert!(ops::show_case(&ana, ONE).unwrap().sweep.is_none());
    drop(ana);

    let mut coordinator = panel.coordinator();
    ops::set_sweep_for_raters(&mut coordinator, true).unwrap();
    drop(coordinator);
    let rows = panel
        .sql_as(&panel.ana, "SELECT results FROM verity.sweeps")
        .unwrap();
    assert_eq!(rows.len(), 1, "her own task's only");
    assert!(rows[0][0].as_deref().unwrap().contains(ONE));
    let ana = panel.open_as(&panel.ana);
    assert_eq!(
        ops::show_case(&ana, ONE).unwrap().sweep.unwrap()[0]
            .result
            .iid,
        ONE
    );
    drop(ana);

    let mut coordinator = panel.coordinator();
    ops::set_sweep_for_raters(&mut coordinator, false).unwrap();
    drop(coordinator);
    assert_eq!(panel.count_as(&panel.ana, "sweeps"), 0, "hidden again");
    let why = panel
        .sql_as(
            &panel.ana,
            "UPDATE verity.meta SET value = 'on' WHERE key = 'sweep_for_raters'",
        )
        .expect_err("a rater turns sweeps on");
    assert!(why.contains("permission denied"), "{why}");
}

#[test]
fn server_tests_fail_under_ci_without_a_server_and_say_they_skipped_outside_it() {
    let me = std::env::current_exe().unwrap();
    let run = |ci: Option<&str>| {
        let mut cmd = Command::new(&me);
        cmd.args([
            "--exact",
            "server_access::a_revoked_login_cannot_connect_and_its_answers_stay",
            "--nocapture",
        ])
        .env_remove("VERITY_TEST_POSTGRES_URL");
        match ci {
            Some(value) => cmd.env("CI", value),
            None => cmd.env_remove("CI"),
        };
        let out = cmd.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    };
    let (passed, text) = run(Some("true"));
    assert!(
        !passed,
        "a server test passed under CI without a server:\n{text}"
    );
    assert!(
        text.contains("CI=true but VERITY_TEST_POSTGRES_URL is unset"),
        "{text}"
    );
    let (passed, text) = run(None);
    assert!(passed, "{text}");
    assert!(text.contains("skipped the PostgreSQL part"), "{text}");
}
