//! Model raters through the real `verity` binary against a Chat Completions server on
//! 127.0.0.1 with faults: answers stored as the model rater's submissions with provenance,
//! each fault ending in an answer or a failed attempt (never an invalid answer), the budget,
//! the reply cache, a `kill -9` mid-run, secrets kept out of the project, its exports and its
//! errors, and model answers kept out of the panel's statistics unless asked for.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::Harness;
use verity_testkit::chat_server::{ChatFault, ChatServer};
use verity_testkit::fixture;

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
    assert_eq!(
        verity_testkit::keys(&report),
        [
            "cost_usd",
            "failed",
            "failures",
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
    let gpt = item(&raters, "name", "gpt");
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

    // Half a price is no price: the input's known, the output's not, and the cost unknown.
    let h = project_with_tasks(1);
    add_model(&h, &server, "half", &["--price-in", "2"]);
    let report = rate(&h, "half", &["--all"]);
    assert_eq!(report["rated"], 1);
    assert!(report["input_tokens"].as_u64().unwrap() > 0);
    assert!(report["cost_usd"].is_null(), "{report}");
    let listed = h.json(&["models", "list", "--json"]);
    assert_eq!(listed[0]["price_in"], 2.0);
    assert!(listed[0]["price_out"].is_null() && listed[0]["cost_usd"].is_null());
    assert_eq!(listed[0]["requests"], 1);
    let out = verity(&h, &["models", "rate", "half", "--all"], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("unknown") && !text.contains("$0"), "{text}");
    assert!(model_events(&h, "half")[0]["provenance"]["cost_usd"].is_null());
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
fn a_prompt_too_long_for_the_model_fails_that_task_alone() {
    let server = ChatServer::start();
    let h = project_with_tasks(3);
    add_model(&h, &server, "m", &[]);
    server.fault(ChatFault::Status(400, None));
    let report = rate(&h, "m", &["--all", "--concurrency", "1"]);
    assert_eq!(
        (report["rated"].as_u64(), report["failed"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(server.log().len(), 3, "a prompt too long is not retried");
    let failures = report["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{report}");
    assert!(
        failures[0]["reason"]
            .as_str()
            .unwrap()
            .contains("does not fit the model's context"),
        "{report}"
    );
    assert_eq!(model_events(&h, "m").len(), 2);
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

/// `verity models rate NAME ARGS... --json` that its budget stops: its exit status 3, its JSON
/// report and its stderr.
fn rate_over_budget(h: &Harness, name: &str, extra: &[&str]) -> (Value, String) {
    let mut args = vec!["models", "rate", name, "--json"];
    args.extend_from_slice(extra);
    let out = verity(h, &args, None);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

#[test]
fn the_budget_stops_the_run_before_a_request_that_could_overrun_it() {
    let server = ChatServer::start();
    // Each request's worst case is about 1,000 output tokens at $1,000 per million: $1.
    let dear = [
        "--price-in",
        "1",
        "--price-out",
        "1000",
        "--max-output-tokens",
        "1000",
    ];
    let h = project_with_tasks(5);
    add_model(&h, &server, "dear", &dear);
    let (report, stderr) = rate_over_budget(
        &h,
        "dear",
        &["--all", "--concurrency", "1", "--budget-usd", "1.5"],
    );
    let rated = report["rated"].as_u64().unwrap();
    assert!((1..5).contains(&rated), "{report}");
    assert!(report["cost_usd"].as_f64().unwrap() <= 1.5, "{report}");
    assert_eq!(served(&server) as u64, rated);
    // It says what is left of the budget, the next request's worst case from its prompt's
    // tokens and the reply's limit at the model's prices, and how many tasks are left.
    let left = 5 - rated;
    assert!(
        stderr.contains("of the $1.5 budget is left, and the next request could cost $1.0")
            && stderr
                .contains("prompt tokens at $1 and up to 1,000 reply tokens at $1000 per million")
            && stderr.contains(&format!("{left} task"))
            && stderr.contains("left unrated"),
        "{stderr}"
    );
    let (zero, _) = rate_over_budget(&h, "dear", &["--all", "--budget-usd", "0"]);
    assert_eq!(zero["rated"], 0);

    // Requests at once hold their worst cases only while in flight: the run waits for them
    // instead of stopping, and rates as many tasks as one at a time.
    let h = project_with_tasks(5);
    add_model(&h, &server, "dear", &dear);
    let (together, _) = rate_over_budget(
        &h,
        "dear",
        &["--all", "--concurrency", "4", "--budget-usd", "1.5"],
    );
    assert_eq!(together["rated"].as_u64(), Some(rated), "{together}");
}

/// Replies answered by the server so far.
fn answered(server: &ChatServer) -> usize {
    server
        .log()
        .iter()
        .filter(|l| l.answered_at.is_some())
        .count()
}

/// A server answering each request after `latency`, and a project of `tasks` tasks with a
/// model rater `m` asking it.
fn slow_model(latency: Duration, tasks: usize) -> (ChatServer, Harness) {
    let server = ChatServer::start();
    server.latency(latency);
    let h = project_with_tasks(tasks);
    add_model(&h, &server, "m", &[]);
    (server, h)
}

/// `verity models rate m --all --concurrency 4` started in the background.
fn spawn_rate(h: &Harness, extra: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_verity"))
        .args(["models", "rate", "m", "--all", "--concurrency", "4"])
        .args(extra)
        .env("VERITY_PROJECT", h.project())
        .env(KEY_VAR, KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (polling each millisecond, a minute at most) until `ready` holds.
fn wait_until(ready: impl Fn() -> bool) {
    let waited = Instant::now();
    while !ready() {
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "the run never got there"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The request bodies whose replies the project holds (committed): the test server numbers
/// its replies `chatcmpl-testNNNNNN` in the order it logs requests, so a stored reply's id
/// names the request it answered.
fn stored_reply_bodies(h: &Harness, server: &ChatServer) -> Vec<Value> {
    let log = server.log();
    let db = rusqlite::Connection::open(h.project()).unwrap();
    let mut stmt = db.prepare("SELECT reply FROM model_replies").unwrap();
    let replies: Vec<String> = stmt
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    replies
        .iter()
        .map(|raw| {
            let reply: Value = serde_json::from_str(raw).unwrap();
            let id = reply["id"].as_str().unwrap();
            let n: usize = id.trim_start_matches("chatcmpl-test").parse().unwrap();
            log[n - 1].body.clone()
        })
        .collect()
}

/// Requests from `from` on that ask again for a reply in `stored`, and those that ask again for
/// any reply the server answered before `from`.
fn repeats(server: &ChatServer, from: usize, stored: &[Value]) -> (usize, usize) {
    let log = server.log();
    let (before, after) = log.split_at(from);
    let answered: Vec<&Value> = before
        .iter()
        .filter(|l| l.answered_at.is_some())
        .map(|l| &l.body)
        .collect();
    (
        after.iter().filter(|l| stored.contains(&l.body)).count(),
        after.iter().filter(|l| answered.contains(&&l.body)).count(),
    )
}

/// Each task's submissions by the model rater `m`: exactly one each, over `tasks` tasks.
fn assert_one_submission_per_task(h: &Harness, tasks: usize) {
    let events = model_events(h, "m");
    let mut cases: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "submit")
        .map(|e| e["instance_id"].as_str().unwrap())
        .collect();
    cases.sort_unstable();
    let all = cases.len();
    cases.dedup();
    assert_eq!(
        (all, cases.len()),
        (tasks, tasks),
        "one submission per task"
    );
}

#[test]
fn a_run_killed_at_any_moment_then_rerun_repays_no_reply_received_and_stores_no_answer_twice() {
    let (server, h) = slow_model(Duration::from_millis(30), 40);
    // Kills: with requests in flight and no reply yet; the instant the server has written its
    // first reply; and after 4, then 9 more replies, each the instant the last was written.
    let mut kills = 0;
    let mut stored: Vec<Value> = Vec::new();
    for after in [0, 1, 4, 9] {
        let (sent, replied) = (server.log().len(), answered(&server));
        let mut child = spawn_rate(&h, &[]);
        if after == 0 {
            wait_until(|| server.log().len() > sent);
        } else {
            wait_until(|| answered(&server) >= replied + after);
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
        // No request of this run asked for a reply stored before it began.
        assert_eq!(repeats(&server, sent, &stored).0, 0, "kill {kills}");
        stored = stored_reply_bodies(&h, &server);
        assert!(
            stored.len() <= answered(&server),
            "more replies stored than the server gave"
        );
    }
    assert!(!stored.is_empty(), "no reply was stored before the kills");
    let rerun_from = server.log().len();
    let report = rate(&h, "m", &["--all", "--concurrency", "4"]);
    let done = report["rated"].as_u64().unwrap() + report["skipped"].as_u64().unwrap();
    assert_eq!(done, 40, "{report}");
    let (stored_again, answered_again) = repeats(&server, rerun_from, &stored);
    assert_eq!(
        stored_again, 0,
        "replies received before a kill were paid for again"
    );
    // A reply the server gave is asked for again only when the kill came before the run had
    // it: at most the 4 requests in flight at each kill.
    let log = server.log();
    let again = (0..log.len())
        .filter(|&i| log[..i].iter().any(|l| l.body == log[i].body))
        .count();
    assert!(
        again <= 4 * kills && answered_again <= again,
        "{again} requests repeated over {kills} kills"
    );
    assert_one_submission_per_task(&h, 40);
    // Every reply the project holds answered a distinct request.
    let bodies = stored_reply_bodies(&h, &server);
    for (i, body) in bodies.iter().enumerate() {
        assert!(
            !bodies[..i].contains(body),
            "a request's reply is stored twice"
        );
    }
}

#[test]
fn ctrl_c_stops_a_run_cleanly_and_a_rerun_finishes_it_without_paying_twice() {
    let (server, h) = slow_model(Duration::from_millis(80), 30);
    let child = spawn_rate(&h, &["--json"]);
    wait_until(|| answered(&server) >= 6);
    let interrupted = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("stopped") && stderr.contains("left unrated"),
        "{stderr}"
    );
    let first: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rated = first["rated"].as_u64().unwrap();
    assert!((1..30).contains(&rated), "{first}");
    // What it printed is what it stored: whole answers, each with its request recorded.
    let events = model_events(&h, "m");
    assert_eq!(events.len() as u64, rated);
    for e in &events {
        assert_eq!(e["event"], "submit");
        assert!(e["answers"]["underspecified"].is_i64(), "{e}");
        assert!(e["provenance"]["response_id"].is_string(), "{e}");
    }
    let stored = stored_reply_bodies(&h, &server);
    assert!(stored.len() as u64 >= rated);

    let rerun_from = server.log().len();
    let second = rate(&h, "m", &["--all", "--concurrency", "4"]);
    assert_eq!(second["skipped"].as_u64(), Some(rated), "{second}");
    assert_eq!(second["rated"].as_u64(), Some(30 - rated), "{second}");
    assert_eq!(repeats(&server, rerun_from, &stored).0, 0);
    assert_one_submission_per_task(&h, 30);
}

/// A server holding every request from now on, and a project of `tasks` tasks with a priced
/// model rater `m` that rated the first (so its endpoint's dialect is known and no request
/// waits for another's).
fn held_model(tasks: usize) -> (ChatServer, Harness) {
    let server = ChatServer::start();
    let h = project_with_tasks(tasks);
    add_model(
        &h,
        &server,
        "m",
        &[
            "--price-in",
            "2",
            "--price-out",
            "8",
            "--max-output-tokens",
            "500",
        ],
    );
    rate(&h, "m", &["--case", "acme__calc-1000"]);
    server.hold();
    (server, h)
}

/// `verity models rate m --all --concurrency 2 --json` started in the background, and its
/// stderr's lines as they come.
fn spawn_two_at_once(h: &Harness) -> (std::process::Child, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_verity"))
        .args([
            "models",
            "rate",
            "m",
            "--all",
            "--concurrency",
            "2",
            "--json",
        ])
        .env("VERITY_PROJECT", h.project())
        .env(KEY_VAR, KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { return };
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    (child, received)
}

/// Sends the process SIGINT, as Ctrl-C does.
fn interrupt(child: &std::process::Child) {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Waits (a minute at most) for a line of stderr holding `text`; returns the lines up to it.
fn line_with(lines: &mpsc::Receiver<String>, text: &str) -> Vec<String> {
    let mut seen = Vec::new();
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no line with {text:?}: {seen:?}"));
        let found = line.contains(text);
        seen.push(line);
        if found {
            return seen;
        }
    }
}

#[test]
fn the_first_ctrl_c_sends_nothing_new_and_stores_the_replies_of_the_requests_in_flight() {
    let (server, h) = held_model(6);
    let (mut child, lines) = spawn_two_at_once(&h);
    wait_until(|| server.log().len() == 3);
    interrupt(&child);
    line_with(&lines, "stopping: no new request is sent");
    // The two requests in flight are answered after the stop, and the run waits for them.
    server.release();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let rest: Vec<String> = lines.iter().collect();
    assert!(
        rest.iter()
            .any(|l| l.contains("stopped: 3 tasks left unrated")),
        "{rest:?}"
    );
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["rated"], 2, "{report}");
    assert!(report.get("abandoned").is_none(), "{report}");
    // Every request the server served was counted, with its cost, and nothing more was sent.
    let log = server.log();
    assert_eq!(log.len(), 3);
    assert!(log.iter().all(|l| l.answered_at.is_some()));
    let listed = h.json(&["models", "list", "--json"]);
    assert_eq!(listed[0]["requests"], 3);
    assert_eq!(listed[0]["answers"], 3);
    assert_eq!(stored_reply_bodies(&h, &server).len(), 3);
    // The rerun pays for none of them again.
    let stored = stored_reply_bodies(&h, &server);
    let second = rate(&h, "m", &["--all"]);
    assert_eq!(
        (second["rated"].as_u64(), second["skipped"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(repeats(&server, 3, &stored).0, 0);
    assert_one_submission_per_task(&h, 6);
}

#[test]
fn a_second_ctrl_c_abandons_the_requests_in_flight_and_counts_each_with_its_estimated_spend() {
    let (server, h) = held_model(6);
    let before = h.json(&["models", "list", "--json"])[0]["cost_usd"]
        .as_f64()
        .unwrap();
    let (mut child, lines) = spawn_two_at_once(&h);
    wait_until(|| server.log().len() == 3);
    interrupt(&child);
    line_with(&lines, "stopping");
    interrupt(&child);
    let status = child.wait().unwrap();
    server.release();
    assert_eq!(status.code(), Some(130));
    let rest: Vec<String> = lines.iter().collect();
    assert!(
        rest.iter().any(|l| l.contains("abandoning the requests in flight"))
            && rest.iter().any(|l| l.contains(
                "2 requests left in flight are counted with their spend estimated from their prompts"
            )),
        "{rest:?}"
    );
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (report["rated"].as_u64(), report["abandoned"].as_u64()),
        (Some(0), Some(2)),
        "{report}"
    );
    // The prompts' estimated tokens at the input price: more than nothing, and no output.
    let input = report["input_tokens"].as_u64().unwrap();
    assert!(input > 0 && report["output_tokens"] == 0, "{report}");
    let cost = report["cost_usd"].as_f64().unwrap();
    assert!((cost - input as f64 * 2.0 / 1e6).abs() < 2e-6, "{report}");
    // Both requests sent are counted, with that spend; no reply of theirs is stored.
    let listed = h.json(&["models", "list", "--json"]);
    assert_eq!(listed[0]["requests"], 3);
    let total = listed[0]["cost_usd"].as_f64().unwrap();
    assert!((total - before - cost).abs() < 2e-6, "{listed}");
    assert_eq!(stored_reply_bodies(&h, &server).len(), 1);
}

#[test]
fn a_model_added_without_a_variable_reads_openai_api_key_and_says_so() {
    let server = ChatServer::start();
    server.require_key(KEY);
    let h = project_with_tasks(1);
    let endpoint = server.endpoint();
    h.ok(&[
        "models",
        "add",
        "default",
        "--endpoint",
        &endpoint,
        "--model",
        "test-model",
    ]);
    let listed = h.json(&["models", "list", "--json"]);
    assert!(listed[0]["api_key_env"].is_null(), "{listed}");
    assert_eq!(listed[0]["api_key_var"], "OPENAI_API_KEY");
    let text = h.ok(&["models", "list"]);
    assert!(
        text.contains("key from OPENAI_API_KEY (the default)"),
        "{text}"
    );
    let run = |key: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_verity"));
        command
            .args(["models", "rate", "default", "--all"])
            .env("VERITY_PROJECT", h.project())
            .env_remove("OPENAI_API_KEY");
        if let Some(key) = key {
            command.env("OPENAI_API_KEY", key);
        }
        command.output().unwrap()
    };
    // Unset: nothing is sent as a key, and the refusal names the variable to set.
    let out = run(None);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refused the API key (none was given: OPENAI_API_KEY is not set)"),
        "{err}"
    );
    // Set: sent as the bearer token, and never written anywhere.
    let out = run(Some(KEY));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        server.log().last().unwrap().authorization.as_deref(),
        Some(&*format!("Bearer {KEY}"))
    );
    for entry in std::fs::read_dir(h.path("")).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap_or_default();
        assert!(!bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()));
    }
    let out = String::from_utf8_lossy(&out.stdout).to_string() + &text;
    assert!(!out.contains(KEY));
}

#[test]
fn costs_print_without_a_negative_zero_and_their_json_to_the_millionth() {
    let server = ChatServer::start();
    let h = project_with_tasks(3);
    add_model(
        &h,
        &server,
        "cheap",
        &["--price-in", "0.1", "--price-out", "0.3"],
    );
    let text = h.ok(&["models", "list"]);
    assert!(
        text.contains("0 requests, $0.0000 spent") && !text.contains("-0"),
        "{text}"
    );
    assert_eq!(h.json(&["models", "list", "--json"])[0]["cost_usd"], 0.0);
    let report = rate(&h, "cheap", &["--all"]);
    let millionths = |v: &Value| {
        let text = v.to_string();
        text.split_once('.').is_none_or(|(_, d)| d.len() <= 6)
    };
    assert!(millionths(&report["cost_usd"]), "{report}");
    let listed = h.json(&["models", "list", "--json"]);
    assert!(millionths(&listed[0]["cost_usd"]), "{listed}");
    for e in model_events(&h, "cheap") {
        assert!(millionths(&e["provenance"]["cost_usd"]), "{e}");
    }
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

/// A project on the test PostgreSQL server holding the fixture's two tasks, and a model
/// rater `gpt` (with `prices`, when given) asking `server`.
fn server_project_with_model(
    db: &verity_testkit::server::Database,
    server: &ChatServer,
    prices: Option<(f64, f64)>,
) -> annotations::ops::Project {
    let t0 = time::OffsetDateTime::UNIX_EPOCH;
    let url = db.url();
    let mut p = annotations::ops::init_project(
        std::path::Path::new(&url),
        &annotations::ops::QuestionnaireChoice::Builtin("swe-bench-verified".into()),
        t0,
    )
    .unwrap();
    let flag = std::sync::atomic::AtomicBool::new(false);
    annotations::ops::import_paths(
        &mut p,
        &[std::path::PathBuf::from(fixture("swebench.jsonl"))],
        t0,
        &mut |_| {},
        &flag,
    )
    .unwrap();
    annotations::ops::add_model(
        &mut p,
        &annotations::ops::ModelAddRequest {
            name: "gpt".into(),
            settings: annotations::ops::ModelSettings {
                endpoint: server.endpoint(),
                model: "test-model".into(),
                price_in: prices.map(|(i, _)| i),
                price_out: prices.map(|(_, o)| o),
                ..Default::default()
            },
        },
        t0,
    )
    .unwrap();
    p
}

/// `gpt` rates every task of a project through the library, two requests at once.
fn rate_all(p: &mut annotations::ops::Project) -> annotations::ops::RateReport {
    let request = annotations::ops::RateRequest {
        name: "gpt".into(),
        cases: annotations::ops::CaseSelection::All,
        concurrency: 2,
        budget_usd: None,
        timeout: Duration::from_secs(10),
    };
    annotations::ops::rate_model(
        p,
        &request,
        &time::OffsetDateTime::now_utc,
        &mut |_| {},
        &annotations::ops::Halt::new(),
    )
    .unwrap()
}

#[test]
fn a_model_rates_on_a_server_project_and_its_tables_copy_with_the_project() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let server = ChatServer::start();
    let mut p = server_project_with_model(&db, &server, Some((1.0, 2.0)));
    let report = rate_all(&mut p);
    assert_eq!((report.rated, report.failed), (2, 0));
    let again = rate_all(&mut p);
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
    let answer = h.write("answer.json", verity_testkit::full_answer().to_string());
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
    server.answer_with(|_| verity_testkit::full_answer());
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

/// The fixture's full answer with `underspecified` set to `value`.
fn answer_underspecified(value: i64) -> Value {
    let mut answer = verity_testkit::full_answer();
    answer["underspecified"] = Value::from(value);
    answer
}

/// The object of a JSON list whose `key` is `value`.
fn item<'a>(list: &'a Value, key: &str, value: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|o| o[key] == value)
        .unwrap_or_else(|| panic!("no {key} {value:?} in {list:#}"))
}

/// Percent agreement on `underspecified` in an agreement report's question list.
fn percent_on_underspecified(questions: &Value) -> f64 {
    item(questions, "question", "underspecified")["report"]["percent_agreement"]
        .as_f64()
        .unwrap()
}

#[test]
fn agreement_with_models_is_reported_among_humans_among_models_and_pooled() {
    let server = ChatServer::start();
    server.answer_with(|_| verity_testkit::full_answer());
    let h = panel_with_model(&server, 12, 12);

    // Humans only by default: no groups, the model nowhere.
    let humans = h.json(&["agreement", "--json"]);
    assert!(humans.get("groups").is_none(), "{humans:#}");
    assert_eq!(humans["raters"], serde_json::json!(["ana", "ben"]));

    // With one model: among models is absent, and says why.
    let one = h.json(&["agreement", "--json", "--include-models"]);
    let groups = one["groups"].as_array().unwrap();
    let among: Vec<&str> = groups
        .iter()
        .map(|g| g["among"].as_str().unwrap())
        .collect();
    assert_eq!(among, ["humans", "models", "pooled"]);
    assert_eq!(groups[0]["raters"], serde_json::json!(["ana", "ben"]));
    assert!(groups[0]["absent"].is_null());
    assert_eq!(groups[1]["raters"], serde_json::json!(["gpt"]));
    assert!(groups[1]["questions"].as_array().unwrap().is_empty());
    let why = groups[1]["absent"].as_str().unwrap();
    assert!(why.contains("only one") && why.contains("gpt"), "{why}");
    assert_eq!(
        groups[2]["raters"],
        serde_json::json!(["ana", "ben", "gpt"])
    );
    assert_eq!(one["raters"], groups[2]["raters"]);

    // A second model that disagrees with everyone on one question.
    let other = ChatServer::start();
    other.answer_with(|_| answer_underspecified(3));
    add_model(&h, &other, "claude", &[]);
    assert_eq!(rate(&h, "claude", &["--all"])["rated"], 12);
    let three = h.json(&["agreement", "--json", "--include-models"]);
    let groups = three["groups"].as_array().unwrap();
    let (humans, models, pooled) = (&groups[0], &groups[1], &groups[2]);
    assert!(models["absent"].is_null(), "{models:#}");
    assert_eq!(models["raters"], serde_json::json!(["claude", "gpt"]));
    assert_eq!(models["cases"], 12);
    assert_eq!(percent_on_underspecified(&humans["questions"]), 1.0);
    assert_eq!(percent_on_underspecified(&models["questions"]), 0.0);
    // Pooled: of the six pairs on each task, three agree (ana, ben, gpt).
    assert!((percent_on_underspecified(&pooled["questions"]) - 0.5).abs() < 1e-12);
    assert_eq!(
        percent_on_underspecified(&pooled["questions"]),
        percent_on_underspecified(&three["questions"])
    );

    let text = h.ok(&["agreement", "--include-models"]);
    for line in [
        "agreement among humans: 2 raters (ana, ben), 12 cases",
        "agreement among models: 2 raters (claude, gpt), 12 cases",
        "agreement among pooled: 4 raters (ana, ben, claude, gpt), 12 cases",
    ] {
        assert!(text.contains(line), "{line:?} not in:\n{text}");
    }
    let out = h.path("report");
    let out = out.to_str().unwrap();
    h.ok(&[
        "report",
        "--out",
        out,
        "--bootstrap",
        "0",
        "--include-models",
    ]);
    let report = std::fs::read_to_string(h.path("report/report.md")).unwrap();
    assert!(report.contains("## Humans and models"), "{report}");
    assert!(
        report.contains("| 1.1 `underspecified` | models | 12 | 0.000 |"),
        "{report}"
    );
    h.ok(&["report", "--out", out, "--bootstrap", "0", "--force"]);
    let report = std::fs::read_to_string(h.path("report/report.md")).unwrap();
    assert!(!report.contains("Humans and models") && !report.contains("gpt"));
}

/// A note only the model's answers hold, to find anywhere it leaks.
const MODEL_MARK: &str = "MODEL-ONLY-NOTE-7f3a";

fn marked_model_answer() -> Value {
    let mut answer = verity_testkit::full_answer();
    answer["underspecified_notes"] = Value::from(format!(
        "{MODEL_MARK}: the issue names div(1, 0) but never the exception a fix should raise, \
         nor its message."
    ));
    answer
}

fn contains(bytes: &[u8], text: &str) -> bool {
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

#[test]
fn a_model_rater_gets_no_package_and_a_humans_package_holds_no_model_answer() {
    let server = ChatServer::start();
    server.answer_with(|_| marked_model_answer());
    let h = project_with_tasks(3);
    h.ok(&["raters", "add", "ana"]);
    h.ok(&["assign", "--per-case", "1"]);
    let answer = h.write("answer.json", verity_testkit::full_answer().to_string());
    h.ok(&[
        "answer",
        "--rater",
        "ana",
        "--case",
        "acme__calc-1000",
        "--file",
        &answer,
        "--submit",
    ]);
    add_model(&h, &server, "gpt", &[]);
    let report = rate(&h, "gpt", &["--all"]);
    assert_eq!(report["rated"], 3, "{report}");
    assert!(contains(&h.project_bytes(), MODEL_MARK));

    let package = h.path("gpt.verity");
    let err = h.fails(&[
        "package",
        "--rater",
        "gpt",
        "--out",
        package.to_str().unwrap(),
    ]);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("model rater") && err.contains("human"),
        "{err}"
    );
    assert!(!package.exists());

    let package = h.path("ana.verity");
    h.ok(&[
        "package",
        "--rater",
        "ana",
        "--out",
        package.to_str().unwrap(),
    ]);
    let bytes = std::fs::read(&package).unwrap();
    assert!(
        !contains(&bytes, MODEL_MARK),
        "a model answer leaked into ana's package"
    );
    let db = rusqlite::Connection::open(&package).unwrap();
    let count = |sql: &str| db.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT COUNT(*) FROM raters"), 1);
    assert_eq!(count("SELECT COUNT(*) FROM answer_events"), 1);
    for table in [
        "model_configs",
        "model_attempts",
        "model_replies",
        "answer_provenance",
    ] {
        assert_eq!(
            count(&format!("SELECT COUNT(*) FROM {table}")),
            0,
            "{table}"
        );
    }
    // Opened as ana's package, the task shows her own answer only.
    let history = Command::new(env!("CARGO_BIN_EXE_verity"))
        .args(["case", "show", "acme__calc-1000", "--json"])
        .env("VERITY_PROJECT", &package)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&history.stdout);
    assert!(text.contains("\"ana\""), "{text}");
    assert!(
        !text.contains("gpt") && !text.contains(MODEL_MARK),
        "{text}"
    );
}

#[test]
fn a_model_rater_gets_no_login_and_a_raters_login_reads_no_model_answer() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let server = ChatServer::start();
    server.answer_with(|_| marked_model_answer());
    let t0 = time::OffsetDateTime::UNIX_EPOCH;
    let mut p = server_project_with_model(&db, &server, None);
    annotations::ops::add_rater(&mut p, "ana", t0).unwrap();
    annotations::ops::assign_to(
        &mut p,
        &["ana".into()],
        &annotations::ops::CaseSelection::All,
        t0,
    )
    .unwrap();
    let answer = annotations::ops::AnswerRequest {
        rater: "ana".into(),
        case: "acme__calc-101".into(),
        values: verity_testkit::full_answer().as_object().unwrap().clone(),
        case_revision: None,
        reason: None,
    };
    p.act_as(annotations::ops::Actor::Rater { name: "ana".into() })
        .unwrap();
    annotations::ops::submit_answer(&mut p, &answer, t0).unwrap();
    p.act_as(annotations::ops::Actor::Coordinator).unwrap();
    let report = rate_all(&mut p);
    assert_eq!(report.rated, 2);

    let err = annotations::ops::panel_grant(&mut p, "gpt", false, t0).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("model rater") && !message.contains('\n'),
        "{message}"
    );
    assert_eq!(annotations::ops::panel_members(&mut p).unwrap().len(), 0);

    let login = annotations::ops::panel_grant(&mut p, "ana", false, t0).unwrap();
    let as_ana = |sql: &str| {
        db.try_sql(Some((login.role.as_str(), login.password.as_str())), sql)
            .unwrap()
    };
    let count = |table: &str| {
        as_ana(&format!("SELECT COUNT(*) FROM verity.{table}"))[0][0]
            .clone()
            .unwrap()
    };
    assert_eq!(count("answer_events"), "1");
    assert_eq!(count("raters"), "1");
    for table in [
        "model_configs",
        "model_attempts",
        "model_replies",
        "answer_provenance",
    ] {
        assert_eq!(count(table), "0", "ana's login reads {table}");
    }
    let leaked = as_ana(&format!(
        "SELECT COUNT(*) FROM verity.answer_events WHERE answer LIKE '%{MODEL_MARK}%'"
    ));
    assert_eq!(leaked[0][0].as_deref(), Some("0"));
    // The coordinator's login sees the model's answers; ana's, through Verity, her own only.
    assert_eq!(
        db.try_sql(None, "SELECT COUNT(*) FROM verity.answer_events")
            .unwrap()[0][0]
            .as_deref(),
        Some("3")
    );
    let ana = annotations::ops::open_project_with_password(
        std::path::Path::new(&db.url_as(&login.role)),
        Some(&login.password),
    )
    .unwrap();
    for case in ["acme__calc-101", "acme__calc-102"] {
        let history = annotations::ops::answer_history(&ana, case).unwrap_or_default();
        let text = format!("{history:?}");
        assert!(
            !text.contains("gpt") && !text.contains(MODEL_MARK),
            "{text}"
        );
    }
}
