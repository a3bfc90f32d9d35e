//! Serves the tests' Chat Completions endpoint on 127.0.0.1 for scripts: `bench/chat_check.py`
//! checks it with OpenAI's own Python package, and the model benches rate against it.
//!
//! Usage: chat_serve DIR [--latency-ms N] [--key KEY] [--partial] [--answers FILE]  ->  writes
//! DIR/port, then serves until killed. Faults are asked for per request with an `x-test-fault`
//! header. `--answers` names a JSON object of replies by key: a request whose user message holds
//! a key (the longest, when several) is answered with its reply, any other with `{}` (which no
//! schema takes); the sweep's bench serves the audit's proposals by instance id so.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!(
            "usage: chat_serve DIR [--latency-ms N] [--key KEY] [--partial] [--answers FILE]"
        );
        std::process::exit(2);
    };
    let server = verity_testkit::chat_server::ChatServer::start();
    let mut rest = args[1..].iter();
    while let Some(flag) = rest.next() {
        match flag.as_str() {
            "--latency-ms" => {
                let ms: u64 = rest.next().and_then(|v| v.parse().ok()).unwrap_or(0);
                server.latency(Duration::from_millis(ms));
            }
            "--key" => server.require_key(rest.next().map(String::as_str).unwrap_or_default()),
            "--partial" => server.partial(),
            "--answers" => {
                let file = rest.next().map(String::as_str).unwrap_or_default();
                let text = std::fs::read_to_string(file).unwrap();
                let answers: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(&text).unwrap();
                server.answer_with(move |request| answer_for(&answers, request));
            }
            other => {
                eprintln!("chat_serve: unknown flag {other}");
                std::process::exit(2);
            }
        }
    }
    std::fs::write(dir.join("port"), server.port.to_string()).unwrap();
    eprintln!("chat_serve: {}", server.endpoint());
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// The reply whose key the request's user message holds (the longest, when several), else `{}`.
/// The message's words (runs of letters, digits and `_-./`) are looked up first, so that a file
/// of 50,000 task ids answers each request without reading every key; a key that is no whole
/// word is found by searching the message for each.
fn answer_for(
    answers: &serde_json::Map<String, serde_json::Value>,
    request: &serde_json::Value,
) -> serde_json::Value {
    let user = request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect::<String>();
    let word = user
        .split(|c: char| !(c.is_alphanumeric() || "_-./".contains(c)))
        .filter(|w| answers.contains_key(*w))
        .max_by_key(|w| w.len());
    let found = match word {
        Some(w) => answers.get_key_value(w),
        None => answers
            .iter()
            .filter(|(key, _)| user.contains(key.as_str()))
            .max_by_key(|(key, _)| key.len()),
    };
    found.map_or_else(|| serde_json::json!({}), |(_, reply)| reply.clone())
}
