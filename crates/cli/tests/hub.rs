//! `verity fetch` against a Hub the test starts on 127.0.0.1: Parquet files the test writes,
//! imported exactly as the same rows in JSON lines, from the cache the second time, and every
//! failure of the network and the data said in one sentence with nothing imported.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use annotations::hub::{HubSettings, HubStage};
use annotations::ops::{self, FetchProgress, FetchRequest};
use hub_server::{Dataset, Fault, HubServer, sha256_hex};
use serde_json::Value;

use crate::util::Harness;
use verity_testkit::project::{self, T0};
use verity_testkit::{fixture, hub_server, parquet_file};

const COMMIT: &str = "c0ffee0000000000000000000000000000000001";
const DATASET: &str = "acme/swe-tasks";

fn project_named(dir: &Path, name: &str) -> ops::Project {
    project::init(&dir.join(name), "swe-bench-verified")
}

/// Settings pointing at the test's server and cache, with short waits.
fn settings(endpoint: &str, cache: &Path) -> HubSettings {
    let vars: HashMap<&str, String> = HashMap::from([
        ("HF_ENDPOINT", endpoint.to_string()),
        ("HF_HUB_CACHE", cache.display().to_string()),
        ("HF_HOME", cache.join("home").display().to_string()),
    ]);
    let mut s = HubSettings::from_vars(|k| vars.get(k).cloned());
    s.backoff = Duration::from_millis(20);
    s
}

/// The fixture's rows as the Hub serves them: two Parquet files of the test split, a dev
/// split, in row groups of one row.
fn dataset_of(jsonl: &str) -> Dataset {
    let rows = parquet_file::jsonl_rows(Path::new(&fixture(jsonl)));
    let (first, rest) = rows.split_at(1);
    Dataset {
        commit: COMMIT.into(),
        files: BTreeMap::from([
            (
                "data/test-00000-of-00002.parquet".to_string(),
                parquet_file::parquet_bytes(first, 1),
            ),
            (
                "data/test-00001-of-00002.parquet".to_string(),
                parquet_file::parquet_bytes(rest, 1),
            ),
            (
                "data/dev-00000-of-00001.parquet".to_string(),
                parquet_file::parquet_bytes(first, 1),
            ),
        ]),
        refuse: None,
    }
}

fn request() -> FetchRequest {
    FetchRequest {
        dataset: DATASET.into(),
        split: None,
        revision: None,
    }
}

fn fetch(
    p: &mut ops::Project,
    settings: &HubSettings,
    request: &FetchRequest,
) -> (ops::Result<ops::FetchReport>, Vec<FetchProgress>) {
    let mut steps = Vec::new();
    let result = ops::fetch_dataset(
        p,
        request,
        settings,
        T0,
        &mut |s| steps.push(s.clone()),
        &AtomicBool::new(false),
    );
    (result, steps)
}

/// Every case as `verity show` gives it, times left out.
pub fn cases(p: &ops::Project) -> BTreeMap<String, Value> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.retain(|k, _| !k.ends_with("_at"));
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    ops::list_cases(p, &ops::CaseFilter::default())
        .unwrap()
        .into_iter()
        .map(|c| {
            let mut v = serde_json::to_value(ops::show_case(p, &c.instance_id).unwrap()).unwrap();
            strip(&mut v);
            (c.instance_id, v)
        })
        .collect()
}

fn case_count(p: &ops::Project) -> usize {
    ops::list_cases(p, &ops::CaseFilter::default())
        .unwrap()
        .len()
}

#[test]
fn a_fetched_split_imports_as_its_rows_in_json_lines_and_comes_from_the_cache_the_second_time() {
    for jsonl in ["swebench.jsonl", "pro.jsonl"] {
        let server = HubServer::start();
        server.add(DATASET, dataset_of(jsonl));
        let dir = tempfile::tempdir().unwrap();
        let s = settings(&server.endpoint(), &dir.path().join("cache"));
        let mut from_jsonl = project_named(dir.path(), "a.verity");
        ops::import_paths(
            &mut from_jsonl,
            &[fixture(jsonl).into()],
            T0,
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .unwrap();
        let mut fetched = project_named(dir.path(), "b.verity");
        let (report, steps) = fetch(&mut fetched, &s, &request());
        let report = report.unwrap();
        assert!(!report.from_cache);
        assert_eq!(report.fetched.commit, COMMIT);
        assert_eq!(
            report
                .fetched
                .files
                .iter()
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>(),
            [
                "data/test-00000-of-00002.parquet",
                "data/test-00001-of-00002.parquet"
            ],
            "only the test split's files, in order"
        );
        let served = dataset_of(jsonl);
        for file in &report.fetched.files {
            assert_eq!(file.sha256, sha256_hex(&served.files[&file.path]));
        }
        assert!(
            steps
                .iter()
                .any(|s| matches!(s, FetchProgress::Download(d) if d.stage == HubStage::Downloading && d.bytes_total > 0))
        );
        assert!(steps.iter().any(|s| matches!(s, FetchProgress::Import(_))));
        assert_eq!(report.import.added, case_count(&from_jsonl));
        assert_eq!(cases(&fetched), cases(&from_jsonl), "{jsonl}");

        // The cache has huggingface_hub's layout: a ref, a snapshot linking into blobs.
        let repo = dir.path().join("cache/datasets--acme--swe-tasks");
        assert_eq!(
            std::fs::read_to_string(repo.join("refs/main")).unwrap(),
            COMMIT
        );
        let link = repo.join(format!(
            "snapshots/{COMMIT}/data/test-00000-of-00002.parquet"
        ));
        assert!(
            std::fs::read_link(&link)
                .unwrap()
                .starts_with("../../../blobs")
        );

        // Unchanged: one request to list the revision, nothing downloaded.
        server.clear_log();
        let mut again = project_named(dir.path(), "c.verity");
        let report = fetch(&mut again, &s, &request()).0.unwrap();
        assert!(report.from_cache);
        assert!(report.fetched.files.iter().all(|f| f.cached));
        let log = server.log();
        assert_eq!(log.len(), 1, "{log:?}");
        assert!(
            log[0]
                .path
                .starts_with("/api/datasets/acme/swe-tasks/revision/main")
        );
        assert_eq!(cases(&again), cases(&from_jsonl));

        // Offline, the cache alone serves it: no request at all.
        server.clear_log();
        let mut offline = s.clone();
        offline.offline = true;
        let mut third = project_named(dir.path(), "d.verity");
        assert!(
            fetch(&mut third, &offline, &request())
                .0
                .unwrap()
                .from_cache
        );
        assert!(server.log().is_empty());
    }
}

#[test]
fn an_interrupted_download_resumes_where_its_whole_chunks_end() {
    let server = HubServer::start();
    let mut dataset = dataset_of("pro.jsonl");
    // One file large enough for several chunks: the rows again and again in one file.
    let rows = parquet_file::jsonl_rows(Path::new(&fixture("pro.jsonl")));
    let mut many = Vec::new();
    for i in 0..60 {
        for row in &rows {
            let mut row = row.clone();
            let id = format!("{}-{i}", row["instance_id"].as_str().unwrap());
            row.insert("instance_id".into(), Value::String(id));
            many.push(row);
        }
    }
    let big = parquet_file::parquet_bytes(&many, 16);
    let size = big.len();
    dataset.files = BTreeMap::from([("data/test-00000-of-00001.parquet".to_string(), big)]);
    server.add(DATASET, dataset);
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.endpoint(), &dir.path().join("cache"));
    let chunk = size / 4 + 1;
    s.chunk_size = chunk;
    // The third chunk's body breaks off after one byte: the first two stay in the partial file.
    server.fault(&format!("bytes={}-", 2 * chunk), Fault::Truncate(1));
    let mut p = project_named(dir.path(), "p.verity");
    let (report, _) = fetch(&mut p, &s, &request());
    assert_eq!(report.unwrap().import.added, many.len());
    let ranges: Vec<String> = server
        .log()
        .into_iter()
        .filter(|l| l.path.contains("/resolve/"))
        .filter_map(|l| l.range)
        .collect();
    let asked = |start: usize| {
        ranges
            .iter()
            .filter(|r| r.starts_with(&format!("bytes={start}-")) && *r != "bytes=0-0")
            .count()
    };
    assert_eq!(
        asked(0),
        1,
        "the first chunk is not downloaded again: {ranges:?}"
    );
    assert_eq!(asked(chunk), 1, "{ranges:?}");
    assert_eq!(
        asked(2 * chunk),
        2,
        "the broken chunk is asked again: {ranges:?}"
    );
}

#[test]
fn a_cancelled_download_resumes_on_the_next_fetch() {
    let server = HubServer::start();
    let rows = parquet_file::jsonl_rows(Path::new(&fixture("pro.jsonl")));
    let many: Vec<_> = (0..200)
        .map(|i| {
            let mut row = rows[0].clone();
            row.insert("instance_id".into(), Value::String(format!("task-{i}")));
            row
        })
        .collect();
    let big = parquet_file::parquet_bytes(&many, 16);
    let size = big.len();
    let chunk = size / 4 + 1;
    server.add(
        DATASET,
        Dataset {
            commit: COMMIT.into(),
            files: BTreeMap::from([("data/test-00000-of-00001.parquet".to_string(), big)]),
            refuse: None,
        },
    );
    // The third chunk hangs until the user gives up waiting.
    server.fault(
        &format!("bytes={}-", 2 * chunk),
        Fault::Delay(Duration::from_secs(3)),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.endpoint(), &dir.path().join("cache"));
    s.chunk_size = chunk;
    let mut p = project_named(dir.path(), "p.verity");
    let cancel = AtomicBool::new(false);
    let err = ops::fetch_dataset(
        &mut p,
        &request(),
        &s,
        T0,
        &mut |step| {
            if let FetchProgress::Download(d) = step
                && d.bytes_done >= 2 * chunk as u64
            {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        },
        &cancel,
    )
    .unwrap_err();
    assert_eq!(err.code(), ops::ErrorCode::Cancelled);
    assert_eq!(
        err.to_string(),
        "the fetch was cancelled; a partly downloaded file resumes on the next fetch"
    );
    assert_eq!(case_count(&p), 0);
    server.clear_log();
    server.clear_faults();
    assert_eq!(fetch(&mut p, &s, &request()).0.unwrap().import.added, 200);
    let ranges: Vec<String> = server
        .log()
        .into_iter()
        .filter_map(|l| l.range)
        .filter(|r| r != "bytes=0-0")
        .collect();
    assert_eq!(
        ranges,
        // hf-hub asks for the last chunk up to the file's length, one past its last byte.
        [
            format!("bytes={}-{}", 2 * chunk, 3 * chunk - 1),
            format!("bytes={}-{size}", 3 * chunk)
        ],
        "only the chunks not yet in are asked for"
    );
}

#[test]
fn the_hub_is_tried_again_after_429_and_5xx_honouring_retry_after() {
    let server = HubServer::start();
    server.add(DATASET, dataset_of("swebench.jsonl"));
    server.fault("/api/datasets", Fault::Status(429, Some("1".into())));
    server.fault("/api/datasets", Fault::Status(500, None));
    server.fault("/resolve/", Fault::Status(503, Some("0".into())));
    let dir = tempfile::tempdir().unwrap();
    let s = settings(&server.endpoint(), &dir.path().join("cache"));
    let mut p = project_named(dir.path(), "p.verity");
    let (report, steps) = fetch(&mut p, &s, &request());
    assert_eq!(report.unwrap().import.added, 2);
    let waits: Vec<String> = steps
        .iter()
        .filter_map(|s| match s {
            FetchProgress::Download(d) if d.stage == HubStage::Waiting => d.waiting.clone(),
            _ => None,
        })
        .collect();
    assert!(
        waits
            .iter()
            .any(|w| w.starts_with("429 Too Many Requests; trying again in 1 s")),
        "{waits:?}"
    );
    assert!(
        waits
            .iter()
            .any(|w| w.starts_with("500 Internal Server Error"))
    );
    let listed = server
        .log()
        .iter()
        .filter(|l| l.path.starts_with("/api/"))
        .count();
    assert_eq!(listed, 3, "429, 500, then the answer");

    // A wait longer than Verity takes is reported, not slept through.
    server.fault("/api/datasets", Fault::Status(429, Some("3600".into())));
    let err = fetch(&mut p, &s, &request()).0.unwrap_err();
    assert!(
        err.to_string()
            .ends_with("answered 429 Too Many Requests and asks to wait 3600 s, longer than Verity waits (60 s): try again later"),
        "{err}"
    );
}

#[test]
fn a_corrupted_download_is_refused_and_removed_and_nothing_is_imported() {
    let server = HubServer::start();
    server.add(DATASET, dataset_of("swebench.jsonl"));
    let dir = tempfile::tempdir().unwrap();
    // Corrupted once: the copy is thrown away and downloaded again.
    for _ in 0..3 {
        server.fault("test-00001", Fault::Corrupt);
    }
    let once = settings(&server.endpoint(), &dir.path().join("once"));
    let mut p = project_named(dir.path(), "once.verity");
    assert_eq!(fetch(&mut p, &once, &request()).0.unwrap().import.added, 2);
    // Corrupted on every try.
    for _ in 0..30 {
        server.fault("test-00001", Fault::Corrupt);
    }
    let s = settings(&server.endpoint(), &dir.path().join("cache"));
    let mut p = project_named(dir.path(), "p.verity");
    let err = fetch(&mut p, &s, &request()).0.unwrap_err();
    assert_eq!(err.code(), ops::ErrorCode::Hub);
    let text = err.to_string();
    assert!(
        text.starts_with(
            "data/test-00001-of-00002.parquet arrived truncated or corrupted: its SHA-256 is"
        ),
        "{text}"
    );
    assert_eq!(
        case_count(&p),
        0,
        "the first file's rows are not imported alone"
    );
    let snapshot = dir.path().join(format!(
        "cache/datasets--acme--swe-tasks/snapshots/{COMMIT}/data"
    ));
    assert!(!snapshot.join("test-00001-of-00002.parquet").exists());
    // The next fetch downloads it again, whole.
    server.clear_faults();
    assert_eq!(fetch(&mut p, &s, &request()).0.unwrap().import.added, 2);
}

#[test]
fn a_corrupt_parquet_file_is_refused_with_its_name_and_nothing_is_imported() {
    let server = HubServer::start();
    let mut dataset = dataset_of("swebench.jsonl");
    let bad = dataset
        .files
        .get_mut("data/test-00001-of-00002.parquet")
        .unwrap();
    let keep = bad.len() / 2;
    bad.truncate(keep);
    server.add(DATASET, dataset);
    let dir = tempfile::tempdir().unwrap();
    let s = settings(&server.endpoint(), &dir.path().join("cache"));
    let mut p = project_named(dir.path(), "p.verity");
    let err = fetch(&mut p, &s, &request()).0.unwrap_err();
    assert_eq!(err.code(), ops::ErrorCode::BadInput);
    let text = err.to_string();
    assert!(text.contains("test-00001-of-00002.parquet"), "{text}");
    assert!(text.contains("not a readable Parquet file"), "{text}");
    assert_eq!(case_count(&p), 0);
}

#[test]
fn missing_datasets_revisions_and_splits_gated_and_private_datasets_are_named() {
    let server = HubServer::start();
    server.add(DATASET, dataset_of("swebench.jsonl"));
    let mut gated = dataset_of("swebench.jsonl");
    gated.refuse = Some((401, "GatedRepo"));
    server.add("acme/gated", gated);
    let dir = tempfile::tempdir().unwrap();
    let s = settings(&server.endpoint(), &dir.path().join("cache"));
    let mut p = project_named(dir.path(), "p.verity");
    let endpoint = server.endpoint();
    let cases: Vec<(FetchRequest, String)> = vec![
        (
            FetchRequest {
                dataset: "acme/nothing".into(),
                ..request()
            },
            format!(
                "{endpoint} has no dataset acme/nothing (or it is private or gated, and no token was given: set HF_TOKEN)"
            ),
        ),
        (
            FetchRequest {
                revision: Some("v9".into()),
                ..request()
            },
            "the dataset acme/swe-tasks has no revision \"v9\"".into(),
        ),
        (
            FetchRequest {
                split: Some("train".into()),
                ..request()
            },
            format!(
                "the dataset acme/swe-tasks at {COMMIT} has no Parquet files for split \"train\"; its splits: dev, test"
            ),
        ),
        (
            FetchRequest {
                dataset: "acme/gated".into(),
                ..request()
            },
            "the dataset acme/gated is gated: accept its conditions on its page on the Hub, and no token was given: set HF_TOKEN or log in with `huggingface-cli login`".into(),
        ),
        (
            FetchRequest {
                dataset: "not a dataset".into(),
                ..request()
            },
            "\"not a dataset\" is not a dataset id: give OWNER/NAME as the Hub names it, for example princeton-nlp/SWE-bench_Verified".into(),
        ),
    ];
    for (req, expected) in cases {
        let err = fetch(&mut p, &s, &req).0.unwrap_err();
        assert_eq!(err.to_string(), expected);
    }
    // A token is sent, and a token the Hub refuses is named as the problem.
    let token_file = dir.path().join("cache/home/token");
    std::fs::create_dir_all(token_file.parent().unwrap()).unwrap();
    std::fs::write(&token_file, "hf_test_token\n").unwrap();
    let with_token = settings(&server.endpoint(), &dir.path().join("cache"));
    assert_eq!(with_token.token.as_deref(), Some("hf_test_token"));
    server.clear_log();
    let err = fetch(
        &mut p,
        &with_token,
        &FetchRequest {
            dataset: "acme/gated".into(),
            ..request()
        },
    )
    .0
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the dataset acme/gated is gated: accept its conditions on its page on the Hub, and the token from {} does not open it",
            token_file.display()
        )
    );
    assert_eq!(
        server.log()[0].authorization.as_deref(),
        Some("Bearer hf_test_token")
    );
    // Offline with nothing cached.
    let mut offline = s.clone();
    offline.offline = true;
    let err = fetch(&mut p, &offline, &request()).0.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "HF_HUB_OFFLINE is set and the cache {} holds no copy of acme/swe-tasks at revision \"main\"",
            dir.path().join("cache").display()
        )
    );
    assert_eq!(case_count(&p), 0);
}

#[test]
fn no_network_a_name_that_does_not_resolve_and_a_tls_failure_are_said_in_one_sentence() {
    let server = HubServer::start();
    server.add(DATASET, dataset_of("swebench.jsonl"));
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_named(dir.path(), "p.verity");
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let refused = settings(&format!("http://127.0.0.1:{closed}"), dir.path());
    let err = fetch(&mut p, &refused, &request()).0.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot reach http://127.0.0.1:{closed}: the connection was refused")
    );
    let dns = settings("http://hub.verity-test.invalid", dir.path());
    let err = fetch(&mut p, &dns, &request()).0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot reach http://hub.verity-test.invalid: the name hub.verity-test.invalid does not resolve (no network, or no such host)"
    );
    // The test server speaks plain HTTP: a TLS client's handshake with it fails.
    let tls = settings(&format!("https://127.0.0.1:{}", server.port), dir.path());
    let err = fetch(&mut p, &tls, &request()).0.unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "cannot reach https://127.0.0.1:{}: the TLS handshake with 127.0.0.1 failed",
            server.port
        )),
        "{err}"
    );
    assert_eq!(case_count(&p), 0);
}

#[test]
fn the_cli_fetches_through_a_proxy_and_names_a_proxy_it_cannot_reach() {
    // The server answers absolute-form requests as a proxy forwarding them to the Hub would:
    // the endpoint's name resolves nowhere, so only the proxy can answer.
    let server = HubServer::start();
    server.add(DATASET, dataset_of("swebench.jsonl"));
    let h = Harness::new();
    let cache = h.path("cache");
    let run = |extra: &[(&str, String)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_verity"));
        cmd.args(["fetch", DATASET, "--json"])
            .env("VERITY_PROJECT", h.project())
            .env("HF_HUB_CACHE", &cache)
            .env("HF_HOME", h.path("home"))
            .env_remove("HF_TOKEN")
            .env_remove("NO_PROXY")
            .env_remove("no_proxy");
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    let out = run(&[
        ("HF_ENDPOINT", "http://hub.verity-test.invalid".into()),
        ("HTTP_PROXY", server.endpoint()),
    ]);
    verity_testkit::assert_success(&out);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["import"]["added"], 2);
    assert_eq!(report["from_cache"], false);
    assert_eq!(report["fetched"]["commit"], COMMIT);
    assert!(server.log().iter().all(|l| l.absolute));
    // An export says where each task came from: the dataset, its commit, the file and its hash.
    h.submit_full_answer("ana", "acme__calc-101");
    let exported = h.export("jsonl", &[]);
    let line: Value = serde_json::from_str(exported.lines().next().unwrap()).unwrap();
    let file = &report["fetched"]["files"][0];
    assert_eq!(
        line["source"],
        format!(
            "hf://datasets/{DATASET}@{COMMIT}/{}#sha256={}:row 1",
            file["path"].as_str().unwrap(),
            file["sha256"].as_str().unwrap()
        )
    );

    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out = run(&[
        ("HF_ENDPOINT", "https://hub.verity-test.invalid".into()),
        ("HTTPS_PROXY", format!("http://127.0.0.1:{closed}")),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "cannot reach https://hub.verity-test.invalid through the proxy http://127.0.0.1:{closed} (HTTPS_PROXY):"
        )),
        "{stderr}"
    );
}

#[test]
fn a_parquet_file_imports_from_disk_as_its_json_lines_do() {
    let h = Harness::new();
    let rows = parquet_file::jsonl_rows(Path::new(&fixture("pro.jsonl")));
    let parquet = h.path("pro.parquet");
    std::fs::write(&parquet, parquet_file::parquet_bytes(&rows, 2)).unwrap();
    let out = h.ok(&["import", parquet.to_str().unwrap()]);
    assert!(out.contains("swe-bench-pro"), "{out}");
    let other = Harness::new();
    other.ok(&["import", &fixture("pro.jsonl")]);
    assert_eq!(h.ok(&["cases", "--json"]), other.ok(&["cases", "--json"]));
}

#[test]
fn the_shared_datasets_fetch_as_their_json_lines_import() {
    let Some(data) = verity_testkit::shared_data() else {
        return;
    };
    for jsonl in [
        data.join("swebench-verified/instances_complete.jsonl"),
        data.join("swebench-pro/instances.jsonl"),
    ] {
        let rows = parquet_file::jsonl_rows(&jsonl);
        let server = HubServer::start();
        server.add(
            DATASET,
            Dataset {
                commit: COMMIT.into(),
                files: BTreeMap::from([(
                    "data/test-00000-of-00001.parquet".to_string(),
                    parquet_file::parquet_bytes(&rows, 100),
                )]),
                refuse: None,
            },
        );
        let dir = tempfile::tempdir().unwrap();
        let s = settings(&server.endpoint(), &dir.path().join("cache"));
        let mut from_jsonl = project_named(dir.path(), "a.verity");
        ops::import_paths(
            &mut from_jsonl,
            std::slice::from_ref(&jsonl),
            T0,
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .unwrap();
        let mut fetched = project_named(dir.path(), "b.verity");
        let report = fetch(&mut fetched, &s, &request()).0.unwrap();
        assert_eq!(report.import.added, rows.len(), "{}", jsonl.display());
        assert_eq!(cases(&fetched), cases(&from_jsonl), "{}", jsonl.display());
    }
}
