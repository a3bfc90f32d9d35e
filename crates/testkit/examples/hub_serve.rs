//! Serves a generated SWE-bench split as the Hugging Face Hub would, for `bench/fetch.sh`:
//! ROWS rows of SWE-bench Verified's size (the shared data's rows again and again, renamed), as
//! one Parquet file of the `test` split of `bench/swe-bench`, on 127.0.0.1; and takes uploads
//! (new repositories, commits, LFS), for `bench/hub_check.sh` and `bench/publish.sh`.
//!
//! Usage: hub_serve ROWS DIR [--token TOKEN]  ->  writes DIR/rows.jsonl (the same rows) and
//! DIR/port, then serves until killed. ROWS of 0 holds no dataset; with --token, only TOKEN
//! is accepted (401 for any other).
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use serde_json::Value;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(rows), Some(dir)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: hub_serve ROWS DIR");
        std::process::exit(2);
    };
    let wanted: usize = rows.parse().unwrap();
    let dir = PathBuf::from(dir);
    let token = match args.get(3).map(String::as_str) {
        Some("--token") => args.get(4).cloned(),
        _ => None,
    };
    let server = verity_testkit::hub_server::HubServer::start();
    if let Some(token) = &token {
        server.accept_tokens(&[token]);
    }
    if wanted == 0 {
        std::fs::write(dir.join("port"), server.port.to_string()).unwrap();
        loop {
            std::thread::park();
        }
    }
    let shared =
        verity_testkit::shared_data_path().join("swebench-verified/instances_complete.jsonl");
    let source = if shared.exists() {
        shared
    } else {
        verity_testkit::fixture_path("swebench.jsonl")
    };
    let base = verity_testkit::parquet_file::jsonl_rows(&source);
    let rows: Vec<_> = (0..wanted)
        .map(|i| {
            let mut row = base[i % base.len()].clone();
            let id = format!("{}-{i}", row["instance_id"].as_str().unwrap());
            row.insert("instance_id".into(), Value::String(id));
            row
        })
        .collect();
    let mut jsonl = std::fs::File::create(dir.join("rows.jsonl")).unwrap();
    for row in &rows {
        serde_json::to_writer(&mut jsonl, row).unwrap();
        jsonl.write_all(b"\n").unwrap();
    }
    let parquet = verity_testkit::parquet_file::parquet_bytes(&rows, 100);
    eprintln!(
        "hub_serve: {} rows, {:.1} MB of Parquet, from {}",
        rows.len(),
        parquet.len() as f64 / 1e6,
        source.display()
    );
    server.add(
        "bench/swe-bench",
        verity_testkit::hub_server::Dataset {
            commit: "be0c4000000000000000000000000000000000b1".into(),
            files: BTreeMap::from([("data/test-00000-of-00001.parquet".to_string(), parquet)]),
            refuse: None,
        },
    );
    std::fs::write(dir.join("port"), server.port.to_string()).unwrap();
    loop {
        std::thread::park();
    }
}
