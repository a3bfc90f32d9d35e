//! Model raters through the real `verity` binary against a Chat Completions server on
//! 127.0.0.1 with faults: answers stored as the model rater's submissions with provenance,
//! each fault ending in an answer or a failed attempt (never an invalid answer), the budget,
//! the reply cache, a `kill -9` mid-run, secrets kept out of the project, its exports and its
//! errors, and model answers kept out of the panel's statistics unless asked for.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::chat_server::{ChatFault, ChatServer};
use crate::util::{Harness, fixture};

const KEY_VAR: &str = "VERITY_TEST_MODEL_KEY";
const KEY: &str = "sk-test-a1b2c3d4e5f6-never-stored";

/// A project holding `n` tasks (`acme__calc-1000` and up), made from the fixture's first.
fn project_with_tasks(n: usize) -> Harness {
    let h = Harness::new();
    let text = std::fs::read_to_string(fixture("swebench.jsonl")).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let mut lines = String::new();
    for i in 0..n {
        let mut task = first.clone();
        task["instance_id"] = Value::String(format!("acme__calc-{}", 1000 + i));
        lines.push_str(&task.to_string());
        lines.push('\n');
    }
    let file = h.write("tasks.jsonl", lines);
    h.ok(&["import", &file]);
    h
}

/// Runs `verity` with the model's key in the environment (or `key`, when given).
fn verity(h: &Harness, args: &[&str], key: Option<&str>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_verity"))
        .args(args)
        .env("VERITY_PROJECT", h.project())
        .env(KEY_VAR, key.unwrap_or(KEY))
        .current_dir(h.path(""))
        .output()
        .unwrap()
}

fn add_model(h: &Harness, server: &ChatServer, name: &str, extra: &[&str]) {
    let endpoint = server.endpoint();
    let mut args = vec![
        "models",
        "add",
        name,
        "--endpoint",
        &endpoint,
        "--model",
        "test-model",
        "--api-key-env",
        KEY_VAR,
        "--temperature",
        "0",
        "--seed",
        "7",
    ];
    args.extend_from_slice(extra);
    h.ok(&args);
}

fn rate(h: &Harness, name: &str, extra: &[&str]) -> Value {
    let mut args = vec!["models", "rate", name, "--json"];
    args.extend_from_slice(extra);
    let out = verity(h, &args, None);
    assert!(
        out.status.success(),
        "verity {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The model rater's submitted events, from the full history export.
fn model_events(h: &Harness, name: &str) -> Vec<Value> {
    h.export("answers-jsonl", &["--history", "--include-models"])
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["rater"] == name)
        .collect()
}

fn served(server: &ChatServer) -> usize {
    server.log().iter().filter(|l| l.status == 200).count()
}

#[test]
fn a_model_rates_every_task_with_provenance_and_stays_out_of_the_panels_numbers() {
    let server = ChatServer::start();
    server.require_key(KEY);
    let h = project_with_tasks(3);
    add_model(
        &h,
        &server,
        "gpt",
        &[
            "--price-in",
            "2",
            "--price-out",
            "8",
            "--max-output-tokens",
            "800",
        ],
    );
    let report = rate(&h, "gpt", &["--all", "--concurrency", "2"]);
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "cost_usd",
            "failed",
            "input_tokens",
            "output_tokens",
            "rated",
            "skipped"
        ]
    );
    assert_eq!(
        (report["rated"].as_u64(), report["failed"].as_u64()),
        (Some(3), Some(0))
    );
    assert!(report["cost_usd"].as_f64().unwrap() > 0.0);
    assert!(report["input_tokens"].as_u64().unwrap() > 0);
    // The request carried what a rater reads, the strict schema, and the key only as a header.
    let log = server.log();
    let body = &log[0].body;
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(body["seed"], 7);
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("Division by zero crashes") && user.contains("## Gold patch"));
    assert_eq!(
        log[0].authorization.as_deref(),
        Some(&*format!("Bearer {KEY}"))
    );

    let raters = h.json(&["raters", "list", "--json"]);
    let gpt = raters
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "gpt")
        .unwrap();
    assert_eq!(gpt["kind"], "model");
    assert_eq!(gpt["submitted"], 3);

    let shown = h.json(&["case", "show", "acme__calc-1000", "--json"]);
    let text = shown.to_string();
    assert!(text.contains("\"provenance\""), "{text}");
    let events = model_events(&h, "gpt");
    assert_eq!(events.len(), 3);
    let p = &events[0]["provenance"];
    for key in [
        "model",
        "endpoint",
        "prompt_sha256",
        "temperature",
        "seed",
        "input_tokens",
        "output_tokens",
        "latency_ms",
        "cost_usd",
        "response_id",
        "dialect",
    ] {
        assert!(p.get(key).is_some(), "provenance lacks {key}: {p}");
    }
    assert_eq!(p["model"], "test-model");
    assert_eq!(p["dialect"], "json_schema");
    assert_eq!(p["prompt_sha256"].as_str().unwrap().len(), 64);

    // Humans only by default: the export and agreement leave the model out.
    let humans_only = h.export("answers-jsonl", &["--history"]);
    assert!(!humans_only.contains("\"gpt\""), "{humans_only}");
    let listed = h.ok(&["models", "list"]);
    assert!(listed.contains("gpt") && listed.contains("$"), "{listed}");

    // A second run pays nothing: every task is submitted already.
    let before = served(&server);
    let again = rate(&h, "gpt", &["--all"]);
    assert_eq!(
        (again["rated"].as_u64(), again["skipped"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(again["input_tokens"], 0);
    assert_eq!(served(&server), before);

    // The key's value is in no file of the project's folder, nor in any export.
    for entry in std::fs::read_dir(h.path("")).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap_or_default();
        assert!(
            !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
            "the API key was written into the project's folder"
        );
    }
}

#[test]
fn an_unknown_price_is_unknown_never_zero() {
    let server = ChatServer::start();
    let h = project_with_tasks(1);
    add_model(&h, &server, "local", &[]);
    let report = rate(&h, "local", &["--all"]);
    assert_eq!(report["rated"], 1);
    assert!(report["cost_usd"].is_null(), "{report}");
    let listed = h.json(&["models", "list", "--json"]);
    assert!(listed[0]["cost_usd"].is_null() && listed[0]["price_in"].is_null());
    assert!(h.ok(&["models", "list"]).contains("unknown"));
    let events = model_events(&h, "local");
    assert!(events[0]["provenance"]["cost_usd"].is_null());
    // A budget cannot be kept without prices: refused before anything is sent.
    let before = server.log().len();
    let out = verity(
        &h,
        &["models", "rate", "local", "--all", "--budget-usd", "1"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--price-in"));
    assert_eq!(server.log().len(), before);
}

#[test]
fn transient_faults_are_retried_and_invalid_replies_never_become_answers() {
    let server = ChatServer::start();
    let h = project_with_tasks(1);
    add_model(&h, &server, "m", &[]);
    server.fault(ChatFault::Status(429, Some("0".into())));
    server.fault(ChatFault::Status(500, None));
    server.fault(ChatFault::Delay(Duration::from_millis(2500)));
    server.fault(ChatFault::OffScale);
    server.fault(ChatFault::CutOff);
    let report = rate(&h, "m", &["--all", "--concurrency", "1", "--timeout", "1"]);
    assert_eq!(
        (report["rated"].as_u64(), report["failed"].as_u64()),
        (Some(1), Some(0))
    );
    let events = model_events(&h, "m");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["answers"]["underspecified"], 0);
    let listed = h.json(&["models", "list", "--json"]);
    assert_eq!(
        (&listed[0]["answers"], &listed[0]["failures"]),
        (&1.into(), &0.into())
    );

    // Three malformed replies in a row: a failed attempt, no answer.
    let h = project_with_tasks(1);
    add_model(&h, &server, "m", &[]);
    for _ in 0..3 {
        server.fault(ChatFault::Malformed);
    }
    let report = rate(&h, "m", &["--all", "--concurrency", "1"]);
    assert_eq!(
        (report["rated"].as_u64(), report["failed"].as_u64()),
        (Some(0), Some(1))
    );
    assert!(model_events(&h, "m").is_empty());
    let raters = h.json(&["raters", "list", "--json"]);
    assert_eq!(raters[0]["submitted"], 0);
    let listed = h.json(&["models", "list", "--json"]);
    assert_eq!(
        (&listed[0]["answers"], &listed[0]["failures"]),
        (&0.into(), &1.into())
    );
}

#[test]
fn a_wrong_key_is_one_sentence_naming_the_variable_and_nothing_is_stored() {
    let server = ChatServer::start();
    server.require_key(KEY);
    let h = project_with_tasks(2);
    add_model(&h, &server, "m", &[]);
    let wrong = "sk-wrong-0123456789abcdef";
    let out = verity(&h, &["models", "rate", "m", "--all"], Some(wrong));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(KEY_VAR), "{err}");
    assert!(!err.contains(wrong) && !err.contains("sk-wro"), "{err}");
    let raters = h.json(&["raters", "list", "--json"]);
    assert_eq!(
        (
            raters[0]["assigned"].as_u64(),
            raters[0]["submitted"].as_u64()
        ),
        (Some(0), Some(0))
    );
    // An unset variable is refused before anything is sent.
    let before = server.log().len();
    let out = Command::new(env!("CARGO_BIN_EXE_verity"))
        .args(["models", "rate", "m", "--all"])
        .env("VERITY_PROJECT", h.project())
        .env_remove(KEY_VAR)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(KEY_VAR));
    assert_eq!(server.log().len(), before);
}

#[test]
fn an_endpoint_that_takes_only_json_object_is_asked_that_way_and_provenance_says_so() {
    let server = ChatServer::start();
    server.partial();
    let h = project_with_tasks(3);
    add_model(&h, &server, "llama", &[]);
    let report = rate(&h, "llama", &["--all", "--concurrency", "2"]);
    assert_eq!(report["rated"], 3);
    let refused = server.log().iter().filter(|l| l.status == 500).count();
    assert_eq!(refused, 1, "json_schema is tried once, then never again");
    let events = model_events(&h, "llama");
    assert!(
        events
            .iter()
            .all(|e| e["provenance"]["dialect"] == "json_object")
    );
    let listed = h.json(&["models", "list", "--json"]);
    assert_eq!(listed[0]["dialect"], "json_object");
}

#[test]
fn the_budget_stops_the_run_before_a_request_that_could_overrun_it() {
    let server = ChatServer::start();
    let h = project_with_tasks(5);
    // Each request's worst case is about 1,000 output tokens at $1,000 per million: $1.
    add_model(
        &h,
        &server,
        "dear",
        &[
            "--price-in",
            "1",
            "--price-out",
            "1000",
            "--max-output-tokens",
            "1000",
        ],
    );
    let report = rate(
        &h,
        "dear",
        &["--all", "--concurrency", "1", "--budget-usd", "1.5"],
    );
    let rated = report["rated"].as_u64().unwrap();
    assert!((1..5).contains(&rated), "{report}");
    assert!(report["cost_usd"].as_f64().unwrap() <= 1.5, "{report}");
    assert_eq!(served(&server) as u64, rated);
    let zero = rate(&h, "dear", &["--all", "--budget-usd", "0"]);
    assert_eq!(zero["rated"], 0);
}

#[test]
fn a_killed_run_then_a_rerun_leaves_no_duplicate_answer_and_pays_no_reply_twice() {
    let server = ChatServer::start();
    server.latency(Duration::from_millis(60));
    let h = project_with_tasks(40);
    add_model(&h, &server, "m", &[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_verity"))
        .args(["models", "rate", "m", "--all", "--concurrency", "4"])
        .env("VERITY_PROJECT", h.project())
        .env(KEY_VAR, KEY)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let waited = Instant::now();
    while served(&server) < 15 && waited.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    let killed_at = Instant::now();
    child.wait().unwrap();
    // Replies surely stored before the kill: written well before it (a reply is stored as soon
    // as the run's main thread hears of it; the margin allows for a loaded machine).
    let first_run = server.log();
    let received: Vec<Value> = first_run
        .iter()
        .filter(|l| {
            l.answered_at
                .is_some_and(|at| at + Duration::from_millis(250) < killed_at)
        })
        .map(|l| l.body.clone())
        .collect();
    assert!(!received.is_empty(), "the run was killed before any reply");
    let report = rate(&h, "m", &["--all", "--concurrency", "4"]);
    let done = report["rated"].as_u64().unwrap() + report["skipped"].as_u64().unwrap();
    assert_eq!(done, 40, "{report}");
    let rerun = &server.log()[first_run.len()..];
    let repeated = rerun.iter().filter(|l| received.contains(&l.body)).count();
    assert_eq!(
        repeated, 0,
        "replies paid for before the kill were asked again"
    );
    let events = model_events(&h, "m");
    let mut cases: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "submit")
        .map(|e| e["instance_id"].as_str().unwrap())
        .collect();
    cases.sort_unstable();
    let all = cases.len();
    cases.dedup();
    assert_eq!((all, cases.len()), (40, 40), "one submission per task");
}

#[test]
fn models_are_listed_and_removed_and_refuse_bad_input_in_one_sentence() {
    let server = ChatServer::start();
    let h = project_with_tasks(1);
    let err = h.fails(&[
        "models",
        "add",
        "x",
        "--endpoint",
        "ftp://h",
        "--model",
        "m",
    ]);
    assert!(err.contains("--endpoint"), "{err}");
    let err = h.fails(&[
        "models",
        "add",
        "x",
        "--endpoint",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--api-key-env",
        "sk-abc-123",
    ]);
    assert!(err.contains("variable"), "{err}");
    add_model(&h, &server, "m", &[]);
    assert!(h.fails(&["raters", "add", "M"]).contains("already"));
    h.ok(&["models", "remove", "m"]);
    assert_eq!(h.json(&["models", "list", "--json"]), serde_json::json!([]));
    // A human is never taken for a model.
    h.ok(&["raters", "add", "ana"]);
    assert!(
        h.fails(&["models", "rate", "ana", "--all"])
            .contains("human")
    );
}

#[test]
fn a_model_rates_on_a_server_project_and_its_tables_copy_with_the_project() {
    let Some(db) = crate::server::Database::fresh() else {
        return;
    };
    let server = ChatServer::start();
    let url = db.url();
    let mut p = annotations::ops::init_project(
        std::path::Path::new(&url),
        &annotations::ops::QuestionnaireChoice::Builtin("swe-bench-verified".into()),
        time::OffsetDateTime::UNIX_EPOCH,
    )
    .unwrap();
    let flag = std::sync::atomic::AtomicBool::new(false);
    annotations::ops::import_paths(
        &mut p,
        &[std::path::PathBuf::from(fixture("swebench.jsonl"))],
        time::OffsetDateTime::UNIX_EPOCH,
        &mut |_| {},
        &flag,
    )
    .unwrap();
    annotations::ops::add_model(
        &mut p,
        &annotations::ops::ModelAddRequest {
            name: "gpt".into(),
            endpoint: server.endpoint(),
            model: "test-model".into(),
            price_in: Some(1.0),
            price_out: Some(2.0),
            ..Default::default()
        },
        time::OffsetDateTime::UNIX_EPOCH,
    )
    .unwrap();
    let request = annotations::ops::RateRequest {
        name: "gpt".into(),
        cases: annotations::ops::CaseSelection::All,
        concurrency: 2,
        budget_usd: None,
        timeout: Duration::from_secs(10),
    };
    let report = annotations::ops::rate_model(
        &mut p,
        &request,
        &time::OffsetDateTime::now_utc,
        &mut |_| {},
        &flag,
    )
    .unwrap();
    assert_eq!((report.rated, report.failed), (2, 0));
    let again = annotations::ops::rate_model(
        &mut p,
        &request,
        &time::OffsetDateTime::now_utc,
        &mut |_| {},
        &flag,
    )
    .unwrap();
    assert_eq!((again.rated, again.skipped), (0, 2));
    let history = annotations::ops::answer_history(&p, "acme__calc-101").unwrap();
    let provenance = history[0].events[0].provenance.as_ref().unwrap();
    assert_eq!(provenance["model"], "test-model");
    assert!(provenance["cost_usd"].as_f64().unwrap() > 0.0);
    assert_eq!(
        db.try_sql(None, "SELECT COUNT(*) FROM verity.model_replies")
            .unwrap()[0][0]
            .as_deref(),
        Some("2")
    );
    // The project copied to a file keeps the model rater, its requests and provenance.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("copy.verity");
    annotations::ops::migrate_project(&p, &file).unwrap();
    let copy = annotations::ops::open_project(&file).unwrap();
    let models = annotations::ops::list_models(&copy).unwrap();
    assert_eq!((models[0].name.as_str(), models[0].requests), ("gpt", 2));
    let history = annotations::ops::answer_history(&copy, "acme__calc-101").unwrap();
    assert!(history[0].events[0].provenance.is_some());
}

/// `n` tasks, each answered alike by two humans with the fixture's full answer, and a model
/// rater `gpt` (whose server answers the same) that rated the first `rated` of them.
fn panel_with_model(server: &ChatServer, n: usize, rated: usize) -> Harness {
    let h = project_with_tasks(n);
    let answer = h.write("answer.json", crate::util::full_answer().to_string());
    for rater in ["ana", "ben"] {
        h.ok(&["raters", "add", rater]);
    }
    h.ok(&["assign", "--per-case", "2"]);
    let cases: Vec<String> = (0..n).map(|i| format!("acme__calc-{}", 1000 + i)).collect();
    for case in &cases {
        for rater in ["ana", "ben"] {
            h.ok(&[
                "answer", "--rater", rater, "--case", case, "--file", &answer, "--submit",
            ]);
        }
    }
    add_model(&h, server, "gpt", &[]);
    let mut args = vec!["--case"];
    args.extend(cases[..rated].iter().map(String::as_str));
    assert_eq!(rate(&h, "gpt", &args)["rated"], rated);
    h
}

#[test]
fn models_compare_runs_the_alternative_annotator_test_and_refuses_a_panel_too_small() {
    let server = ChatServer::start();
    server.require_key(KEY);
    server.answer_with(|_| crate::util::full_answer());
    // 30 tasks rated by the model: each human has exactly the paper's minimum.
    let h = panel_with_model(&server, 31, 30);
    let results = h.json(&["models", "compare", "--json", "--bootstrap", "50"]);
    let results = results.as_array().unwrap();
    assert_eq!(results.len(), 5, "one row per rated question: {results:#?}");
    for r in results {
        // Every label agrees, so every task ties, which is a win for both: each human's null
        // is rejected (the differences are all 0, below ε), and the model passes.
        assert_eq!(r["model"], "gpt");
        assert_eq!(r["epsilon"], 0.2);
        assert_eq!(r["n_cases"], 30, "{r:#}");
        assert_eq!(r["winning_rate"], 1.0, "{r:#}");
        assert_eq!(r["passed"], true, "{r:#}");
        assert_eq!(r["humans"].as_array().unwrap().len(), 2);
    }
    let one = h.json(&[
        "models",
        "compare",
        "--question",
        "underspecified",
        "--epsilon",
        "0.1",
        "--json",
    ]);
    assert_eq!(one.as_array().unwrap().len(), 1);
    assert_eq!(one[0]["question"], "underspecified");
    assert_eq!(one[0]["epsilon"], 0.1);

    // One task fewer: each human falls below the paper's 30 tasks and the test is refused.
    let h = panel_with_model(&server, 29, 29);
    let small = h.json(&[
        "models",
        "compare",
        "--question",
        "underspecified",
        "--json",
    ]);
    assert_eq!(small[0]["passed"], Value::Null);
    let why = small[0]["refused"].as_str().unwrap();
    assert!(why.contains("30"), "{why}");
}
