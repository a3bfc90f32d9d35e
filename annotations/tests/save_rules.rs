//! One set of rules on every path that stores an answer: a rater's save on a project file and
//! over their own login on a server (through Verity), the server's `save_my_answer` called
//! directly by that login, a package's event at a merge (into a file and into a server,
//! sealed again with the package's own secret as its rater could), and a model rater's reply.
//! Each path refuses each rule's violation, and stores nothing.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use annotations::ops::{self, Actor, AnswerRequest, Overwrite, Project};
use serde_json::{Map, Value, json};
use verity_store::new_event_uid;
use verity_testkit::chat_server::ChatServer;
use verity_testkit::project::{self, T0, at, rater};
use verity_testkit::{fixture_path, full_answer};

/// Assigned to ana, not answered yet.
const OPEN: &str = "acme__calc-101";
/// Assigned to ana, submitted by her.
const SUBMITTED: &str = "acme__calc-102";
/// Not assigned to ana.
const NOT_HERS: &str = "instance_acme__widgets-1111aaaa00000000000000000000000000000000-vnan";

/// One violation: what is saved, and what each path says in refusing it (compared without
/// case): Verity's own check (a save on a file or over a login), the server's function, a
/// merge.
struct Violation {
    rule: &'static str,
    kind: &'static str,
    task: &'static str,
    values: Map<String, Value>,
    reason: Option<String>,
    verity: &'static str,
    server: &'static str,
    merge: &'static str,
}

fn values(change: impl FnOnce(&mut Value)) -> Map<String, Value> {
    let mut answer = full_answer();
    change(&mut answer);
    answer.as_object().unwrap().clone()
}

fn violations() -> Vec<Violation> {
    let long = "x".repeat(ops::NOTE_MAX_CHARS + 1);
    let v = |rule, kind, task, values, reason: Option<&str>, says: [&'static str; 3]| Violation {
        rule,
        kind,
        task,
        values,
        reason: reason.map(str::to_string),
        verity: says[0],
        server: says[1],
        merge: says[2],
    };
    vec![
        v(
            "an unknown question",
            "draft",
            OPEN,
            values(|a| a["evil"] = json!("<script>alert(1)</script>")),
            None,
            [
                "\"evil\" is not a question",
                "evil is not a question of the questionnaire",
                "\"evil\" is not a question",
            ],
        ),
        v(
            "a value off the scale",
            "draft",
            OPEN,
            values(|a| a["underspecified"] = json!(9)),
            None,
            [
                "must be one of 0, 1, 2, 3; 9 is not",
                "9 is not an option of question underspecified",
                "must be one of 0, 1, 2, 3; 9 is not",
            ],
        ),
        v(
            "a text question given a number",
            "draft",
            OPEN,
            values(|a| a["underspecified_notes"] = json!(7)),
            None,
            [
                "takes text, not 7",
                "question underspecified_notes takes text",
                "takes text, not 7",
            ],
        ),
        v(
            "a required question left out",
            "submit",
            OPEN,
            values(|a| {
                a.as_object_mut().unwrap().remove("false_negative");
            }),
            None,
            [
                "(false_negative) must be answered",
                "question false_negative must be answered",
                "(false_negative) must be answered",
            ],
        ),
        v(
            "a note too short",
            "submit",
            OPEN,
            // 99 characters and two Unicode spaces, which every path trims as Verity does.
            values(|a| {
                a["underspecified_notes"] = json!(format!("{}\u{a0}\u{3000}", "x".repeat(99)))
            }),
            None,
            [
                "needs at least 100 characters",
                "question underspecified_notes needs at least 100 characters",
                "needs at least 100 characters",
            ],
        ),
        v(
            "a note too long",
            "draft",
            OPEN,
            values(|a| a["other_notes"] = json!(long)),
            None,
            [
                "holds 20001 characters; a note may hold at most 20000",
                "holds 20001 characters; a note may hold at most 20000",
                "holds 20001 characters; a note may hold at most 20000",
            ],
        ),
        v(
            "a reason too long",
            "revise",
            SUBMITTED,
            values(|a| a["underspecified"] = json!(3)),
            Some(&long),
            [
                "the reason holds 20001 characters",
                "the reason holds 20001 characters",
                "the reason holds 20001 characters",
            ],
        ),
        v(
            "a revision without its reason",
            "revise",
            SUBMITTED,
            values(|a| a["underspecified"] = json!(3)),
            Some(" \u{a0}"),
            [
                "needs its reason",
                "needs its reason",
                "a revision without its reason",
            ],
        ),
        v(
            "a task not assigned to the rater",
            "draft",
            NOT_HERS,
            values(|_| {}),
            None,
            [
                "is not assigned to ana",
                "is not assigned to this rater",
                "not assigned to ana",
            ],
        ),
        v(
            "a draft after the submission",
            "draft",
            SUBMITTED,
            values(|_| {}),
            None,
            ["already submitted", "submitted already", "breaks the order"],
        ),
    ]
}

/// The panel at `location`: four tasks; ana has two, and submitted one.
fn panel(location: &Path) -> Project {
    let mut p = project::init(location, "swe-bench-verified");
    project::import(
        &mut p,
        &[fixture_path("swebench.jsonl"), fixture_path("pro.jsonl")],
    );
    ops::add_rater(&mut p, "ana", T0).unwrap();
    project::assign_tasks(&mut p, &["ana"], &[OPEN, SUBMITTED]);
    let answer = AnswerRequest {
        rater: "ana".into(),
        case: SUBMITTED.into(),
        values: values(|_| {}),
        case_revision: None,
        reason: None,
    };
    project::submit_as(&mut p, &answer, at(1));
    p
}

/// Every answer event `location` holds, as (uid, kind, answer).
fn stored(location: &Path) -> Vec<(String, String, String)> {
    let store = verity_store::open(location, None).unwrap();
    store
        .all_answer_events()
        .unwrap()
        .into_iter()
        .map(|e| {
            (
                e.uid,
                e.kind.as_str().to_string(),
                serde_json::to_string(&e.answer).unwrap(),
            )
        })
        .collect()
}

fn says(err: &str, expected: &str, path: &str, rule: &str) {
    assert!(
        err.to_lowercase().contains(&expected.to_lowercase()),
        "{path} refused {rule} without saying {expected:?}: {err}"
    );
}

/// Saves `v` through Verity as ana, acting in `p`.
fn save(p: &mut Project, v: &Violation) -> ops::Result<ops::AnswerView> {
    let req = AnswerRequest {
        rater: "ana".into(),
        case: v.task.into(),
        values: v.values.clone(),
        case_revision: None,
        reason: v.reason.clone(),
    };
    match v.kind {
        "draft" => ops::save_draft(p, &req, at(20)),
        "submit" => ops::submit_answer(p, &req, at(20)),
        _ => ops::revise_answer(p, &req, at(20)),
    }
}

/// Verity's path, on `p` acting as ana (a project file, or her own login): each violation
/// refused, nothing stored; then, deactivated, she saves nothing.
fn verity_refuses_each_rule(p: &mut Project, location: &Path, path: &str) {
    let before = stored(location);
    for v in violations() {
        let err = save(p, &v).unwrap_err().to_string();
        says(&err, v.verity, path, v.rule);
        assert_eq!(
            stored(location),
            before,
            "{path}: {} stored something",
            v.rule
        );
    }
}

#[test]
fn a_save_on_a_project_file_refuses_each_rule() {
    let dir = tempfile::tempdir().unwrap();
    let location = dir.path().join("p.verity");
    let mut p = panel(&location);
    p.act_as(rater("ana")).unwrap();
    verity_refuses_each_rule(&mut p, &location, "a save on a project file");
    p.act_as(Actor::Coordinator).unwrap();
    ops::deactivate_rater(&mut p, "ana", T0).unwrap();
    let err = p.act_as(rater("ana")).unwrap_err().to_string();
    says(
        &err,
        "is deactivated",
        "a save on a project file",
        "a deactivated rater",
    );
}

#[test]
fn a_raters_login_refuses_each_rule_through_verity_and_in_the_servers_own_function() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let location = Path::new(&db.url()).to_path_buf();
    let mut p = panel(&location);
    let login = ops::panel_grant(&mut p, "ana", false, T0).unwrap();
    let mut ana =
        ops::open_project_with_password(Path::new(&db.url_as(&login.role)), Some(&login.password))
            .unwrap();
    verity_refuses_each_rule(&mut ana, &location, "a save over ana's login");

    // The login calls the server's function itself, as any PostgreSQL client can.
    let id = |sql: &str| db.try_sql(None, sql).unwrap()[0][0].clone().unwrap();
    let call = |v: &Violation| {
        let case = id(&format!(
            "SELECT id FROM verity.cases WHERE instance_id = '{}'",
            v.task
        ));
        let revision = id(&format!(
            "SELECT MAX(id) FROM verity.case_revisions WHERE case_id = {case}"
        ));
        let answer = serde_json::to_string(&v.values)
            .unwrap()
            .replace('\'', "''");
        let reason = v.reason.as_ref().map_or("NULL".to_string(), |r| {
            format!("'{}'", r.replace('\'', "''"))
        });
        db.try_sql(
            Some((&login.role, &login.password)),
            &format!(
                "SELECT verity.save_my_answer('{}', {case}, {revision},
                   (SELECT MAX(id) FROM verity.questionnaires), '{}', '{answer}', {reason})",
                new_event_uid(),
                v.kind
            ),
        )
    };
    let before = stored(&location);
    for v in violations() {
        let err = call(&v).unwrap_err();
        says(&err, v.server, "save_my_answer", v.rule);
        assert_eq!(
            stored(&location),
            before,
            "save_my_answer stored {}",
            v.rule
        );
    }
    // The same call with a good answer is taken: the refusals above are the rules'.
    let good = Violation {
        values: values(|a| a["underspecified"] = json!(3)),
        reason: Some("read the test again".into()),
        ..violations().remove(6)
    };
    call(&good).unwrap();
    assert_eq!(stored(&location).len(), before.len() + 1);
    ops::deactivate_rater(&mut p, "ana", T0).unwrap();
    let err = call(&violations().remove(0)).unwrap_err();
    says(&err, "deactivated", "save_my_answer", "a deactivated rater");
    let err = ops::save_draft(
        &mut ana,
        &AnswerRequest {
            rater: "ana".into(),
            case: OPEN.into(),
            values: values(|_| {}),
            case_revision: None,
            reason: None,
        },
        at(30),
    )
    .unwrap_err()
    .to_string();
    says(
        &err,
        "is deactivated",
        "a save over ana's login",
        "a deactivated rater",
    );
}

/// ana's package of the panel at `location`; each violation made in a copy of it, sealed
/// again with its secret, and merged: each refused, nothing stored.
fn a_merge_refuses_each_rule(location: &Path, dir: &Path) {
    let mut p = panel(location);
    let package = dir.join("ana.verity");
    ops::package_for_rater(&mut p, "ana", &package, Overwrite::Refuse, at(3)).unwrap();
    let before = stored(location);
    for (i, v) in violations().into_iter().enumerate() {
        let copy = dir.join(format!("violation-{i}.verity"));
        std::fs::copy(&package, &copy).unwrap();
        let revision = match v.kind {
            "draft" => 0,
            "submit" => 1,
            _ => 2,
        };
        // The package holds no task that is not hers: the rater adds one.
        let task = if v.task == NOT_HERS {
            format!(
                "INSERT INTO cases(id, instance_id, created_at) VALUES (99, '{NOT_HERS}', 't');
                 INSERT INTO case_revisions(id, case_id, revision, content, content_hash, repo,
                   base_commit, title, has_materials, created_at)
                 SELECT 99, 99, 1, content, content_hash, repo, base_commit, title,
                   has_materials, created_at FROM case_revisions LIMIT 1;"
            )
        } else {
            String::new()
        };
        let answer = serde_json::to_string(&v.values)
            .unwrap()
            .replace('\'', "''");
        let reason = v.reason.as_ref().map_or("NULL".to_string(), |r| {
            format!("'{}'", r.replace('\'', "''"))
        });
        crate::packages::forge(
            &copy,
            &format!(
                "{task}
                 INSERT INTO answer_events(uid, case_id, rater_id, case_revision_id,
                   questionnaire_id, kind, answer_revision, answer, reason, at)
                 SELECT '{}', c.id, (SELECT id FROM raters), r.id,
                   (SELECT id FROM questionnaires), '{}', {revision}, '{answer}', {reason},
                   '1970-01-01T00:00:20Z'
                 FROM cases c JOIN case_revisions r ON r.case_id = c.id
                 WHERE c.instance_id = '{}';",
                new_event_uid(),
                v.kind,
                v.task
            ),
        );
        let err = ops::merge_packages(&mut p, &[copy], T0)
            .unwrap_err()
            .to_string();
        says(&err, v.merge, "a merge", v.rule);
        assert_eq!(stored(location), before, "a merge stored {}", v.rule);
    }
    ops::deactivate_rater(&mut p, "ana", T0).unwrap();
    let copy = dir.join("deactivated.verity");
    std::fs::copy(&package, &copy).unwrap();
    ops::save_draft(
        &mut ops::open_project(&copy).unwrap(),
        &AnswerRequest {
            rater: "ana".into(),
            case: OPEN.into(),
            values: values(|_| {}),
            case_revision: None,
            reason: None,
        },
        at(20),
    )
    .unwrap();
    let err = ops::merge_packages(&mut p, &[copy], T0)
        .unwrap_err()
        .to_string();
    says(&err, "deactivated", "a merge", "a deactivated rater");
    assert_eq!(stored(location), before);
}

#[test]
fn a_merge_into_a_project_file_refuses_each_rule() {
    let dir = tempfile::tempdir().unwrap();
    a_merge_refuses_each_rule(&dir.path().join("p.verity"), dir.path());
}

#[test]
fn a_merge_into_a_server_refuses_each_rule() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    a_merge_refuses_each_rule(Path::new(&db.url()), dir.path());
}

/// A model rater whose every reply breaks one rule: each reply refused, nothing stored.
fn a_model_rater_refuses_each_rule(location: &Path) {
    let mut p = panel(location);
    let before = stored(location);
    for v in violations()
        .into_iter()
        .filter(|v| v.kind != "revise" && v.task == OPEN)
    {
        let server = ChatServer::start();
        let reply = Value::Object(v.values.clone());
        server.answer_with(move |_| reply.clone());
        let name = format!("model-{}", v.rule.replace(' ', "-"));
        let model = ops::ModelAddRequest {
            name: name.clone(),
            settings: ops::ModelSettings {
                endpoint: server.endpoint(),
                model: "test-model".into(),
                ..Default::default()
            },
        };
        ops::add_model(&mut p, &model, T0).unwrap();
        let request = ops::RateRequest {
            name,
            cases: ops::CaseSelection::Ids(vec![OPEN.into()]),
            concurrency: 1,
            budget_usd: None,
            timeout: Duration::from_secs(10),
        };
        let clock = time::OffsetDateTime::now_utc;
        let report =
            ops::rate_model(&mut p, &request, &clock, &mut |_| {}, &ops::Halt::new()).unwrap();
        assert_eq!((report.rated, report.failed), (0, 1), "{}", v.rule);
        says(
            &report.failures[0].reason,
            v.verity,
            "a model rater",
            v.rule,
        );
        assert_eq!(stored(location), before, "a model rater stored {}", v.rule);
    }
}

#[test]
fn a_model_rater_refuses_each_rule_in_a_project_file() {
    let dir = tempfile::tempdir().unwrap();
    a_model_rater_refuses_each_rule(&dir.path().join("p.verity"));
}

#[test]
fn a_model_rater_refuses_each_rule_on_a_server() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    a_model_rater_refuses_each_rule(Path::new(&db.url()));
}
