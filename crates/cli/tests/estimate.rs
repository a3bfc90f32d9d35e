//! Few humans, valid numbers, through the command line: `assign --sample` draws and records a
//! random sample, `estimate` stands on it (and refuses anything else: no sample, humans'
//! work outside it, too few complete), its figures keep the humans' labels apart from the
//! model's, and `scores --predictor` adds the determinate-only rates the same way.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};

use serde_json::Value;

use crate::util::Harness;
use verity_testkit::chat_server::ChatServer;
use verity_testkit::fixture;

const KEY_VAR: &str = "VERITY_TEST_PPI_KEY";
const TASKS: usize = 60;

fn task(i: usize) -> String {
    format!("acme__calc-{}", 3000 + i)
}

/// The humans' verdict on task `i`: about three tasks in ten are underspecified.
fn underspecified(i: usize) -> bool {
    (i * 7) % 10 < 3
}

/// The fixture's full answer with `underspecified` set, and tests that take every reasonable
/// solution (so the filter keeps a task unless it is underspecified).
fn answer(value: i64) -> Value {
    let mut a = verity_testkit::full_answer();
    a["underspecified"] = Value::from(value);
    a["false_negative"] = Value::from(0);
    a
}

/// Which task a request asks about, from the prompt's text.
fn asked(request: &Value) -> usize {
    let user: String = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    let at = user.find("acme__calc-").unwrap() + "acme__calc-".len();
    user[at..at + 4].parse::<usize>().unwrap() - 3000
}

fn with_key(h: &Harness, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_verity"))
        .args(args)
        .env("VERITY_PROJECT", h.project())
        .env(KEY_VAR, "sk-test")
        .current_dir(h.path(""))
        .output()
        .unwrap()
}

/// A model rater `name` served by `server`, rating every task.
fn rate_with(h: &Harness, server: &ChatServer, name: &str) {
    let endpoint = server.endpoint();
    h.ok(&[
        "models",
        "add",
        name,
        "--endpoint",
        &endpoint,
        "--model",
        "m",
        "--api-key-env",
        KEY_VAR,
    ]);
    let out = with_key(h, &["models", "rate", name, "--all"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// TASKS tasks, raters ana and ben, and a model rater `gpt` right on every task but every
/// ninth (and, with `second`, a model `claude` wrong on every fourth).
fn panel(second: bool) -> (Harness, Vec<ChatServer>) {
    let h = Harness::new();
    let text = std::fs::read_to_string(fixture("swebench.jsonl")).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let mut lines = String::new();
    for i in 0..TASKS {
        let mut t = first.clone();
        t["instance_id"] = Value::String(task(i));
        lines.push_str(&format!("{t}\n"));
    }
    let file = h.write("tasks.jsonl", lines);
    h.ok(&["import", &file]);
    for r in ["ana", "ben"] {
        h.ok(&["raters", "add", r]);
    }
    let mut servers = Vec::new();
    for (name, every) in [("gpt", 9), ("claude", 4)]
        .into_iter()
        .take(1 + usize::from(second))
    {
        let server = ChatServer::start();
        server.answer_with(move |request| {
            let i = asked(request);
            let right = underspecified(i) != i.is_multiple_of(every);
            answer(if right { 2 } else { 0 })
        });
        rate_with(&h, &server, name);
        servers.push(server);
    }
    (h, servers)
}

/// Each rater answers every task of their queue with the humans' verdict.
fn rate_queues(h: &Harness) -> usize {
    let mut answered = 0;
    for rater in ["ana", "ben"] {
        let queue = h.json(&["queue", "--as", rater, "--json"]);
        for item in queue.as_array().unwrap() {
            let id = item["instance_id"].as_str().unwrap();
            let i: usize = id
                .trim_start_matches("acme__calc-")
                .parse::<usize>()
                .unwrap()
                - 3000;
            let file = h.write(
                "answer.json",
                answer(if underspecified(i) { 2 } else { 0 }).to_string(),
            );
            h.ok(&[
                "answer", "--rater", rater, "--case", id, "--file", &file, "--submit",
            ]);
            answered += 1;
        }
    }
    answered
}

fn estimate(h: &Harness, extra: &[&str]) -> Value {
    let mut args = vec![
        "estimate",
        "--label",
        "underspecified>=2",
        "--predictor",
        "model:gpt",
        "--json",
    ];
    args.extend_from_slice(extra);
    h.json(&args)
}

fn close(a: &Value, b: f64) -> bool {
    (a.as_f64().unwrap() - b).abs() < 1e-12
}

#[test]
fn an_estimate_stands_on_the_recorded_random_sample_and_nothing_else() {
    let (h, _servers) = panel(false);
    let refused = h.fails(&["estimate", "--label", "kept", "--predictor", "models"]);
    assert!(
        refused.contains("not a recorded random sample"),
        "{refused}"
    );

    let draw = h.json(&[
        "assign",
        "--sample",
        "24",
        "--seed",
        "5",
        "--per-case",
        "2",
        "--json",
    ]);
    assert_eq!(draw["number"], 1);
    assert_eq!(draw["offered"], TASKS);
    assert_eq!(draw["drawn"].as_array().unwrap().len(), 24);
    assert_eq!(
        draw["assign"]["added"], 48,
        "two raters for each drawn task, none for the model"
    );
    assert!(close(&draw["probability_range"][0], 24.0 / 60.0));
    assert!(close(&draw["probability_range"][1], 24.0 / 60.0));
    // The same seed on a copy of the project draws the same tasks.
    let refused = h.fails(&["estimate", "--label", "kept", "--predictor", "models"]);
    assert!(
        refused.contains("0 of the 24 sampled tasks are complete"),
        "{refused}"
    );

    assert_eq!(rate_queues(&h), 48);
    let drawn: Vec<usize> = draw["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap()[11..].parse::<usize>().unwrap() - 3000)
        .collect();
    let e = estimate(&h, &[]);
    for key in [
        "label",
        "predictor",
        "n_labeled",
        "n_unlabeled",
        "lambda",
        "estimate",
        "ci",
        "classical_estimate",
        "classical_ci",
        "effective_n",
        "sampling",
    ] {
        assert!(e.get(key).is_some(), "the JSON has no {key}: {e:#}");
    }
    assert_eq!(
        (e["n_labeled"].clone(), e["n_unlabeled"].clone()),
        (24.into(), 36.into())
    );
    assert_eq!(e["sampling"], "uniform");
    // The humans alone: their own share, whatever the model says.
    let share = drawn.iter().filter(|i| underspecified(**i)).count() as f64 / 24.0;
    assert!(close(&e["classical_estimate"], share), "{e:#}");
    let lambda = e["lambda"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&lambda));
    let width = |v: &Value, key: &str| v[key][1].as_f64().unwrap() - v[key][0].as_f64().unwrap();
    assert!(
        width(&e, "ci") < width(&e, "classical_ci"),
        "a good model narrows it: {e:#}"
    );
    assert!(e["effective_n"].as_f64().unwrap() > 24.0);

    // λ = 0 is the humans alone; λ = 1 is the model's share over the others plus its error on
    // the labelled tasks.
    let zero = estimate(&h, &["--lambda", "0"]);
    assert!(close(&zero["estimate"], share));
    assert_eq!(zero["ci"], zero["classical_ci"]);
    let model = |i: usize| {
        if underspecified(i) != i.is_multiple_of(9) {
            1.0
        } else {
            0.0
        }
    };
    let others: Vec<usize> = (0..TASKS).filter(|i| !drawn.contains(i)).collect();
    let plain = others.iter().map(|i| model(*i)).sum::<f64>() / 36.0
        + drawn
            .iter()
            .map(|i| f64::from(u8::from(underspecified(*i))) - model(*i))
            .sum::<f64>()
            / 24.0;
    assert!(close(&estimate(&h, &["--lambda", "1"])["estimate"], plain));

    // The finite population: the same tasks' own share, a narrower interval.
    let finite = estimate(&h, &["--finite"]);
    assert_eq!(finite["finite"], true);
    assert!(width(&finite, "ci") < width(&e, "ci"));
    // How many more tasks reach ±5 points.
    let target = estimate(&h, &["--target-halfwidth", "0.05", "--finite"]);
    let more = target["target"]["more_tasks"].as_u64().unwrap();
    let humans = target["target"]["more_tasks_classical"].as_u64().unwrap();
    assert!(more <= humans && humans <= 36, "{target:#}");
    let text = h.ok(&[
        "estimate",
        "--label",
        "underspecified>=2",
        "--predictor",
        "model:gpt",
        "--target-halfwidth",
        "0.05",
        "--finite",
    ]);
    assert!(
        text.contains(&format!("to reach ±5.0 points: rate {more} more tasks")),
        "{text}"
    );
    assert!(text.contains("humans alone:"), "{text}");

    // Scores from the sample.
    let results: String = (0..TASKS)
        .map(|i| format!("{},{}\n", task(i), u8::from(i % 3 == 0)))
        .collect();
    let alpha = h.write("alpha.csv", format!("instance_id,resolved\n{results}"));
    let beta = h.write(
        "beta.csv",
        format!(
            "instance_id,resolved\n{}",
            (0..TASKS)
                .map(|i| format!("{},{}\n", task(i), u8::from(i % 4 == 1)))
                .collect::<String>()
        ),
    );
    h.ok(&["results", "import", &alpha, &beta]);
    let scores = h.json(&[
        "scores",
        "--predictor",
        "model:gpt",
        "--bootstrap",
        "0",
        "--json",
    ]);
    for s in scores["systems"].as_array().unwrap() {
        let rate = s["determinate_rate_ppi"].as_f64().unwrap();
        let ci = &s["determinate_rate_ppi_ci"];
        assert!(
            ci[0].as_f64().unwrap() < rate && rate < ci[1].as_f64().unwrap(),
            "{s:#}"
        );
        assert!(s["determinate_rate_labeled"].is_number());
    }
    let pair = scores["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["denominator"] == "determinate")
        .unwrap();
    assert!(pair["difference_ppi"].is_number() && pair["difference_ppi_ci"].is_array());
    assert_eq!(scores["ppi"]["n_labeled"], 24);
    // Without --predictor, the scores are as before: no prediction-powered figure.
    let plain = h.json(&["scores", "--bootstrap", "0", "--json"]);
    assert!(plain["ppi"].is_null() && plain["systems"][0]["determinate_rate_ppi"].is_null());

    // A second draw extends the sample uniformly over the rest, and stays a simple random
    // sample of all the tasks.
    let more = h.json(&[
        "assign",
        "--sample",
        "12",
        "--seed",
        "9",
        "--per-case",
        "2",
        "--json",
    ]);
    assert_eq!(
        (more["number"].clone(), more["sampled"].clone()),
        (2.into(), 36.into())
    );
    assert!(close(&more["probability_range"][0], 12.0 / 36.0));
    rate_queues(&h);
    let e = estimate(&h, &[]);
    assert_eq!(
        (e["n_labeled"].clone(), e["sampling"].clone()),
        (36.into(), "uniform".into())
    );

    // The report: the share from the sample beside the humans alone, and the rates.
    h.ok(&["report", "--out", "report", "--bootstrap", "0"]);
    let report = std::fs::read_to_string(h.path("report/report.md")).unwrap();
    assert!(report.contains("## Few humans"), "{report}");
    assert!(report.contains("| prediction-powered |") && report.contains("| humans alone |"));
    assert!(
        report.contains("From few humans: each determinate-only rate"),
        "{report}"
    );
    assert!(
        h.path("report/few-humans.svg").exists() && h.path("report/scores-few-humans.svg").exists()
    );

    // A task given to a human by hand, outside the sample: no estimate while it is.
    let outside = (0..TASKS)
        .map(task)
        .find(|id| {
            !draw["drawn"].as_array().unwrap().iter().any(|d| d == id)
                && !more["drawn"].as_array().unwrap().iter().any(|d| d == id)
        })
        .unwrap();
    h.ok(&["assign", "--case", &outside, "--rater", "ana"]);
    let refused = h.fails(&["estimate", "--label", "kept", "--predictor", "models"]);
    assert!(
        refused.contains("outside the recorded random sample"),
        "{refused}"
    );
    assert!(refused.contains(&outside), "{refused}");
    h.ok(&["report", "--out", "report", "--bootstrap", "0", "--force"]);
    let report = std::fs::read_to_string(h.path("report/report.md")).unwrap();
    assert!(
        report.contains(
            "no prediction-powered estimate stands: humans rate or adjudicate 1 task outside"
        ),
        "{report}"
    );
    assert!(
        !report.contains("From few humans"),
        "the scores stand on no sample either"
    );
}

#[test]
fn bad_labels_predictors_and_draws_are_refused_in_one_sentence() {
    let (h, _servers) = panel(false);
    let refusals = [
        (vec!["assign", "--sample", "0"], "at least 1 task"),
        (
            vec!["assign", "--sample", "61"],
            "only 60 tasks with materials are left to draw",
        ),
        (
            vec!["assign", "--sample", "5", "--by", "uncertainty"],
            "needs --predictor",
        ),
        (
            vec!["assign", "--sample", "5", "--by", "sideways"],
            "uniform or by uncertainty",
        ),
        (
            vec![
                "assign",
                "--sample",
                "5",
                "--by",
                "uncertainty",
                "--predictor",
                "model:gpt",
            ],
            "says nothing of its uncertainty",
        ),
        (
            vec![
                "assign",
                "--sample",
                "5",
                "--by",
                "uncertainty",
                "--predictor",
                "models",
                "--floor",
                "0",
            ],
            "--floor 0",
        ),
    ];
    for (args, expected) in refusals {
        let err = h.fails(&args);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    assert!(
        h.json(&["raters", "list", "--json"])
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["assigned"] == 0 || r["kind"] == "model"),
        "a refused draw assigns nothing"
    );
    h.ok(&["assign", "--sample", "20", "--per-case", "2"]);
    rate_queues(&h);
    let refusals = [
        (
            vec!["--label", "difficulty", "--predictor", "models"],
            "no numeric scale",
        ),
        (
            vec!["--label", "underspecified>=x", "--predictor", "models"],
            "is not a number",
        ),
        (vec!["--label", "kept", "--predictor", "gpt"], "model:NAME"),
        (
            vec!["--label", "kept", "--predictor", "model:nobody"],
            "no model rater named \"nobody\"",
        ),
        (
            vec!["--label", "underspecified>=2", "--predictor", "risk"],
            "--predictor risk",
        ),
        (
            vec!["--label", "kept", "--predictor", "models", "--alpha", "1.5"],
            "--alpha 1.5",
        ),
        (
            vec!["--label", "kept", "--predictor", "models", "--lambda", "2"],
            "--lambda 2",
        ),
        (
            vec![
                "--label",
                "kept",
                "--predictor",
                "models",
                "--target-halfwidth",
                "0",
            ],
            "--target-halfwidth 0",
        ),
        (
            vec!["--label", "kept", "--predictor", "risk"],
            "compute their evidence first",
        ),
    ];
    for (extra, expected) in refusals {
        let mut args = vec!["estimate"];
        args.extend(extra.iter().copied());
        let err = h.fails(&args);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

#[test]
fn a_draw_by_uncertainty_records_each_probability_and_the_estimate_weighs_by_it() {
    let (h, _servers) = panel(true);
    let draw = h.json(&[
        "assign",
        "--sample",
        "20",
        "--seed",
        "3",
        "--per-case",
        "2",
        "--by",
        "uncertainty",
        "--predictor",
        "models",
        "--label",
        "underspecified>=2",
        "--json",
    ]);
    let [low, high] = [
        draw["probability_range"][0].as_f64().unwrap(),
        draw["probability_range"][1].as_f64().unwrap(),
    ];
    assert!(
        low < high,
        "the models disagree on some tasks, which are likelier: {draw:#}"
    );
    assert!(low >= 0.5 * 20.0 / 60.0 - 1e-12, "the floor holds: {low}");
    assert_eq!(draw["draw"]["method"], "uncertainty");
    assert_eq!(draw["draw"]["predictor"], "models");
    rate_queues(&h);
    let e = h.json(&[
        "estimate",
        "--label",
        "underspecified>=2",
        "--predictor",
        "models",
        "--json",
    ]);
    assert_eq!(e["sampling"], "weighted");
    assert_eq!(e["draws"][0]["method"], "uncertainty");
    assert!(
        e["assumes"][0]
            .as_str()
            .unwrap()
            .contains("unequal probabilities"),
        "{e:#}"
    );
    let text = h.ok(&[
        "estimate",
        "--label",
        "underspecified>=2",
        "--predictor",
        "models",
    ]);
    assert!(text.contains("sample (weighted)"), "{text}");
}
