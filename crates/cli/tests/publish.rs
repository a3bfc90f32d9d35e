//! `verity export --format hub` and `verity publish` against a Hub the test starts on
//! 127.0.0.1: the dataset folder (Parquet shards, the card, pseudonyms), the upload as one
//! commit (regular and LFS files, a new repository, private, a branch), what fails (a refused
//! token, a 429, a branch that moved, an interruption, which the next run resumes), and the
//! round trip: a published dataset fetched into a new project gives back the same tasks.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use annotations::hub::HubSettings;
use annotations::ops::{self, FileAction, PublishRequest, UploadMode};
use hub_server::{Fault, HubServer};
use serde_json::Value;

use crate::hub::cases;
use verity_testkit::project::{self, T0};
use verity_testkit::{fixture, hub_server, parquet_file};

const REPO: &str = "acme/panel";
const TOKEN: &str = "hf_test_write_token_3f9a";

/// The embedded demo project (three raters' answers on twelve tasks, an adjudication) in `dir`.
fn demo(dir: &Path) -> PathBuf {
    ops::open_demo_project(&dir.join("demo")).unwrap();
    dir.join("demo").join(ops::DEMO_PROJECT_FILE)
}

fn verity(project: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_verity"));
    command
        .arg("--project")
        .arg(project)
        .args(args)
        .env_remove("HF_TOKEN")
        .env_remove("HUGGING_FACE_HUB_TOKEN")
        .env_remove("HF_ENDPOINT");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn export(project: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "export",
        "--format",
        "hub",
        "--out",
        out.to_str().unwrap(),
        "--license",
        "cc-by-4.0",
    ];
    args.extend_from_slice(extra);
    ok(&verity(project, &args, &[]))
}

/// Every row of a config's shards.
fn rows(folder: &Path, config: &str) -> Vec<serde_json::Map<String, Value>> {
    let mut shards: Vec<PathBuf> = std::fs::read_dir(folder.join(config))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    shards.sort();
    shards
        .iter()
        .flat_map(|p| parquet_file::read_rows(p).0)
        .collect()
}

/// Settings pointing at the test's server with a token and short waits.
fn settings(server: &HubServer, home: &Path, token: Option<&str>) -> HubSettings {
    let mut vars: HashMap<&str, String> = HashMap::from([
        ("HF_ENDPOINT", server.endpoint()),
        ("HF_HOME", home.display().to_string()),
    ]);
    if let Some(token) = token {
        vars.insert("HF_TOKEN", token.to_string());
    }
    let mut s = HubSettings::from_vars(|k| vars.get(k).cloned());
    s.backoff = Duration::from_millis(20);
    s
}

fn request(folder: &Path) -> PublishRequest {
    PublishRequest {
        repo: REPO.into(),
        folder: folder.display().to_string(),
        private: false,
        revision: None,
        message: Some("the panel's first round".into()),
        dry_run: false,
    }
}

fn publish(settings: &HubSettings, request: &PublishRequest) -> ops::Result<ops::PublishReport> {
    ops::publish_dataset(request, settings, &mut |_| {}, &AtomicBool::new(false))
}

#[test]
fn a_dataset_folder_holds_the_tasks_with_labels_each_raters_annotations_and_a_card() {
    let dir = tempfile::tempdir().unwrap();
    let project = demo(dir.path());
    let raters: Vec<String> = ok(&verity(&project, &["raters", "list", "--json"], &[]))
        .parse::<Value>()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    let all = dir.path().join("all");
    let said = export(&project, &all, &["--subset", "all"]);
    assert!(
        said.starts_with("wrote a dataset of 12 tasks and 36 annotations"),
        "{said}"
    );

    let card = std::fs::read_to_string(all.join("README.md")).unwrap();
    let yaml = card.split("---\n").nth(1).unwrap();
    for line in [
        "license: \"cc-by-4.0\"",
        "annotations_creators:\n- expert-generated\ntask_categories",
        "size_categories:\n- n<1K",
        "- config_name: \"default\"\n  default: true\n  data_files:\n  - split: \"test\"\n    path: \"data/test-*.parquet\"",
        "- config_name: \"annotations\"",
        "pretty_name: ",
        "language:\n- en",
    ] {
        assert!(
            yaml.contains(line),
            "the card's YAML lacks {line:?}:\n{yaml}"
        );
    }
    for said in [
        "`swe-bench-verified` version 1.0.0",
        "| 4 | 8 | 0 | 0 |",
        "Krippendorff's alpha",
        "load_dataset(\"OWNER/NAME\", \"annotations\", split=\"test\")",
        "1 label was adjudicated",
        "named by pseudonyms",
    ] {
        assert!(card.contains(said), "the card lacks {said:?}");
    }

    let tasks = rows(&all, "data");
    assert_eq!(tasks.len(), 12);
    let kept = tasks.iter().filter(|t| t["panel_kept"] == true).count();
    assert_eq!(kept, 4);
    for task in &tasks {
        assert!(task["FAIL_TO_PASS"].as_str().unwrap().starts_with('['));
        assert_eq!(task["panel_raters"], 3);
        let because = task["panel_filtered_because"].as_array().unwrap();
        assert_eq!(task["panel_kept"] == false, !because.is_empty(), "{task:?}");
    }
    let adjudicated: Vec<_> = tasks
        .iter()
        .flat_map(|t| t.iter())
        .filter(|(k, v)| k.ends_with("_rule") && *v == "adjudicated")
        .collect();
    assert_eq!(adjudicated.len(), 1);
    let (_, footer) = parquet_file::read_rows(&all.join("data/test-00000-of-00001.parquet"));
    let footer: Value = serde_json::from_str(&footer[0].1).unwrap();
    assert!(
        footer["labels"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l.as_str().unwrap().starts_with("panel_"))
    );

    let notes = rows(&all, "annotations");
    assert_eq!(notes.len(), 36);
    let names: std::collections::BTreeSet<&str> =
        notes.iter().map(|n| n["rater"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 3);
    assert!(names.iter().all(|n| n.starts_with("rater-")), "{names:?}");
    assert!(notes.iter().all(|n| n["rater_kind"] == "human"));
    let bytes: Vec<u8> = ["data", "annotations"]
        .iter()
        .flat_map(|c| std::fs::read_dir(all.join(c)).unwrap())
        .flat_map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .chain(card.bytes())
        .collect();
    let text = String::from_utf8_lossy(&bytes);
    for rater in &raters {
        assert!(
            !text.contains(rater.as_str()),
            "{rater} appears in the dataset"
        );
    }

    // The pseudonyms are the same in the next export; with --rater-names, the names are used.
    let again = dir.path().join("again");
    export(&project, &again, &["--subset", "all"]);
    let renamed: std::collections::BTreeSet<String> = rows(&again, "annotations")
        .iter()
        .map(|n| n["rater"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(renamed, names.iter().map(|n| n.to_string()).collect());
    let named = dir.path().join("named");
    export(&project, &named, &["--rater-names"]);
    let named_rows = rows(&named, "annotations");
    assert!(
        named_rows
            .iter()
            .all(|n| raters.contains(&n["rater"].as_str().unwrap().to_string()))
    );

    // The default subset is the tasks the filter keeps, with their annotations.
    let kept_dir = dir.path().join("kept");
    export(&project, &kept_dir, &[]);
    assert_eq!(rows(&kept_dir, "data").len(), 4);
    assert_eq!(rows(&kept_dir, "annotations").len(), 12);
    assert!(
        std::fs::read_to_string(kept_dir.join("README.md"))
            .unwrap()
            .contains("Only the tasks the questionnaire's filter keeps are here.")
    );
}

#[test]
fn a_hub_export_refuses_what_it_cannot_write_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let project = demo(dir.path());
    let out = dir.path().join("ds");
    let fails = |args: &[&str]| {
        let run = verity(&project, args, &[]);
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(run.stderr).unwrap();
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        err
    };
    let o = out.to_str().unwrap();
    let err = fails(&["export", "--format", "hub", "--out", o]);
    assert!(err.contains("--license is required"), "{err}");
    let err = fails(&[
        "export",
        "--format",
        "hub",
        "--out",
        o,
        "--license",
        "MIT License",
    ]);
    assert!(err.contains("is not a licence id"), "{err}");
    let err = fails(&[
        "export",
        "--format",
        "hub",
        "--out",
        o,
        "--license",
        "mit",
        "--split",
        "a b",
    ]);
    assert!(err.contains("is not a split name"), "{err}");
    let csv = dir.path().join("x.csv");
    let err = fails(&[
        "export",
        "--format",
        "csv",
        "--out",
        csv.to_str().unwrap(),
        "--license",
        "mit",
    ]);
    assert!(err.contains("only --format hub writes"), "{err}");
    assert!(!out.exists() && !csv.exists());
    export(&project, &out, &[]);
    let err = fails(&["export", "--format", "hub", "--out", o, "--license", "mit"]);
    assert!(err.contains("--force"), "{err}");
    export(&project, &out, &["--force", "--subset", "all"]);
    assert_eq!(rows(&out, "data").len(), 12);
}

#[test]
fn a_large_split_is_sharded_with_the_count_in_each_name() {
    let dir = tempfile::tempdir().unwrap();
    let p = ops::open_demo_project(&dir.path().join("demo")).unwrap();
    let options = ops::ExportOptions {
        license: Some("mit".into()),
        subset: Some(ops::DatasetSubset::All),
        shard_bytes: Some(20_000),
        ..ops::ExportOptions::default()
    };
    let out = dir.path().join("ds");
    let summary = ops::export_dataset(&p, &options, &out, ops::Overwrite::Refuse, T0).unwrap();
    let shards: Vec<&str> = summary
        .files
        .iter()
        .filter(|f| f.path.starts_with("data/"))
        .map(|f| f.path.as_str())
        .collect();
    assert!(shards.len() > 1, "{shards:?}");
    let n = shards.len();
    for (i, shard) in shards.iter().enumerate() {
        assert_eq!(*shard, format!("data/test-{i:05}-of-{n:05}.parquet"));
    }
    assert_eq!(rows(&out, "data").len(), 12);
    assert!(!summary.card.is_empty());
}

#[test]
fn tasks_stored_before_their_shapes_export_as_tasks_stored_with_them() {
    // A revision stored by an older Verity has no shape, and the export reads the task itself:
    // a project of both kinds gives the folder a project of shaped tasks gives, byte for byte.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    let mut p = project::init(&path, "swe-bench-verified");
    let sources = [
        fixture("swebench.jsonl").into(),
        fixture("pro.jsonl").into(),
    ];
    ops::import_paths(&mut p, &sources, T0, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let options = ops::ExportOptions {
        license: Some("mit".into()),
        subset: Some(ops::DatasetSubset::All),
        ..ops::ExportOptions::default()
    };
    let export = |p: &ops::Project, name: &str| {
        let out = dir.path().join(name);
        let summary = ops::export_dataset(p, &options, &out, ops::Overwrite::Refuse, T0).unwrap();
        let files: Vec<(String, Vec<u8>)> = summary
            .files
            .iter()
            .map(|f| (f.path.clone(), std::fs::read(out.join(&f.path)).unwrap()))
            .collect();
        (summary.tasks, files)
    };
    let (tasks, shaped) = export(&p, "shaped");
    let columns = rows(&dir.path().join("shaped"), "data")[0].len();
    assert!(
        tasks > 2 && columns > 30,
        "{tasks} tasks, {columns} columns"
    );
    let cleared = rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE case_revisions SET shape = NULL WHERE id % 2 = 0",
            [],
        )
        .unwrap();
    assert!(cleared > 0 && cleared < tasks, "{cleared} of {tasks}");
    assert!(export(&p, "mixed") == (tasks, shaped.clone()));
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE case_revisions SET shape = NULL", [])
        .unwrap();
    assert!(export(&p, "unshaped") == (tasks, shaped));
}

#[test]
fn a_server_project_exports_the_rows_a_project_file_exports() {
    // A project file reads the tasks ahead on a second connection; a server project reads them
    // on its one thread: the same tasks give the same rows, in the same order.
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let import = |p: &mut ops::Project| {
        let sources = [
            fixture("swebench.jsonl").into(),
            fixture("pro.jsonl").into(),
        ];
        ops::import_paths(p, &sources, T0, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    };
    let mut file = project::init(&dir.path().join("a.verity"), "swe-bench-verified");
    import(&mut file);
    let (_, mut server) = db.coordinator_project("secret", "swe-bench-verified");
    import(&mut server);
    let options = ops::ExportOptions {
        license: Some("mit".into()),
        subset: Some(ops::DatasetSubset::All),
        ..ops::ExportOptions::default()
    };
    let exported = |p: &ops::Project, name: &str| {
        let out = dir.path().join(name);
        ops::export_dataset(p, &options, &out, ops::Overwrite::Refuse, T0).unwrap();
        rows(&out, "data")
    };
    let from_file = exported(&file, "file");
    assert!(from_file.len() > 1, "{}", from_file.len());
    assert_eq!(exported(&server, "server"), from_file);
}

#[test]
fn a_published_dataset_fetches_back_as_the_same_tasks_and_reads_as_exported() {
    let dir = tempfile::tempdir().unwrap();
    let server = HubServer::start();
    let s = settings(&server, &dir.path().join("home"), Some(TOKEN));
    let mut first = project::init(&dir.path().join("a.verity"), "swe-bench-verified");
    ops::import_paths(
        &mut first,
        &[
            fixture("swebench.jsonl").into(),
            fixture("pro.jsonl").into(),
        ],
        T0,
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let options = ops::ExportOptions {
        license: Some("mit".into()),
        subset: Some(ops::DatasetSubset::All),
        ..ops::ExportOptions::default()
    };
    let folder = dir.path().join("ds");
    ops::export_dataset(&first, &options, &folder, ops::Overwrite::Refuse, T0).unwrap();

    let report = publish(&s, &request(&folder)).unwrap();
    assert!(report.created);
    let commit = report.commit.clone().unwrap();
    assert_eq!(server.head(REPO, "main").as_deref(), Some(commit.as_str()));
    let modes: Vec<(&str, UploadMode)> = report
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.mode))
        .collect();
    assert_eq!(
        modes,
        [
            ("README.md", UploadMode::Regular),
            ("annotations/test-00000-of-00001.parquet", UploadMode::Lfs),
            ("data/test-00000-of-00001.parquet", UploadMode::Lfs),
        ]
    );
    let stored = server.files(REPO, "main");
    for file in &stored {
        let local = std::fs::read(folder.join(&file.path)).unwrap_or_default();
        match file.path.as_str() {
            ".gitattributes" => {}
            "README.md" => {
                let text = String::from_utf8(file.bytes.clone()).unwrap();
                assert!(
                    text.contains(&format!("load_dataset(\"{REPO}\", split=\"test\")")),
                    "{text}"
                );
                assert!(!file.lfs);
            }
            _ => {
                assert_eq!(file.bytes, local, "{}", file.path);
                assert!(file.lfs, "{}", file.path);
            }
        }
    }
    assert_eq!(stored.len(), 4);
    assert_eq!(server.history(REPO, "main")[0].1, "the panel's first round");

    let cache = dir.path().join("cache");
    let mut vars: HashMap<&str, String> = HashMap::from([
        ("HF_ENDPOINT", server.endpoint()),
        ("HF_HUB_CACHE", cache.display().to_string()),
        ("HF_HOME", dir.path().join("home").display().to_string()),
        ("HF_TOKEN", TOKEN.to_string()),
    ]);
    vars.insert("HF_HUB_DISABLE_TELEMETRY", "1".into());
    let fetch_settings = HubSettings::from_vars(|k| vars.get(k).cloned());
    let mut second = project::init(&dir.path().join("b.verity"), "swe-bench-verified");
    let fetched = ops::fetch_dataset(
        &mut second,
        &ops::FetchRequest {
            dataset: REPO.into(),
            split: None,
            revision: None,
        },
        &fetch_settings,
        T0,
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(
        fetched
            .fetched
            .files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["data/test-00000-of-00001.parquet"],
        "the tasks' config, not the annotations'"
    );
    assert_eq!(cases(&second), cases(&first));
}

#[test]
fn publishing_again_sends_nothing_twice_and_an_interrupted_upload_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let server = HubServer::start();
    let s = settings(&server, &dir.path().join("home"), Some(TOKEN));
    let project = demo(dir.path());
    let folder = dir.path().join("ds");
    export(&project, &folder, &["--subset", "all"]);

    // The commit fails after both LFS files went up: nothing is committed.
    server.fault(
        "POST /api/datasets/acme/panel/commit/",
        Fault::Status(400, None),
    );
    let err = publish(&s, &request(&folder)).unwrap_err();
    assert!(err.to_string().contains("400"), "{err}");
    assert_eq!(server.lfs_objects(), 2);
    assert_eq!(
        server.history(REPO, "main").len(),
        1,
        "only the repository's first commit"
    );
    server.clear_log();

    let report = publish(&s, &request(&folder)).unwrap();
    let actions: Vec<FileAction> = report.files.iter().map(|f| f.action).collect();
    assert_eq!(
        actions,
        [
            FileAction::Upload,
            FileAction::AlreadyUploaded,
            FileAction::AlreadyUploaded
        ]
    );
    assert_eq!(report.uploaded_bytes, 0);
    assert!(
        server.log().iter().all(|r| r.method != "PUT"),
        "no LFS object is sent twice"
    );
    assert_eq!(server.history(REPO, "main").len(), 2);

    // Once everything is there, nothing is committed.
    let again = publish(&s, &request(&folder)).unwrap();
    assert!(again.commit.is_none());
    assert!(
        again
            .files
            .iter()
            .all(|f| f.action == FileAction::Unchanged)
    );
    assert_eq!(server.history(REPO, "main").len(), 2);
}

#[test]
fn a_dry_run_lists_the_files_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = HubServer::start();
    let project = demo(dir.path());
    let folder = dir.path().join("ds");
    export(&project, &folder, &[]);
    let env = [
        ("HF_ENDPOINT", server.endpoint()),
        ("HF_TOKEN", TOKEN.to_string()),
        ("HF_HOME", dir.path().join("home").display().to_string()),
    ];
    let said = ok(&verity(
        &project,
        &[
            "publish",
            REPO,
            "--folder",
            folder.to_str().unwrap(),
            "--dry-run",
            "--private",
        ],
        &env,
    ));
    assert!(
        said.contains("would create the private dataset repository acme/panel"),
        "{said}"
    );
    assert!(
        said.contains("data/test-00000-of-00001.parquet\tlfs\t"),
        "{said}"
    );
    assert!(said.contains("README.md\tregular\t"), "{said}");
    assert!(said.contains("dry run: nothing was uploaded"), "{said}");
    assert!(server.head(REPO, "main").is_none());
    assert!(
        server.log().iter().all(|r| r.method == "GET"),
        "a dry run only asks"
    );

    let said = ok(&verity(
        &project,
        &[
            "publish",
            REPO,
            "--folder",
            folder.to_str().unwrap(),
            "--private",
            "--revision",
            "round-1",
        ],
        &env,
    ));
    assert!(
        said.contains("did create the private dataset repository"),
        "{said}"
    );
    assert!(
        said.contains("did create the branch round-1 from main"),
        "{said}"
    );
    assert_eq!(server.private(REPO), Some(true));
    assert_eq!(
        server.history(REPO, "main").len(),
        1,
        "main keeps only its first commit"
    );
    assert_eq!(server.history(REPO, "round-1").len(), 2);
    let json: Value = serde_json::from_str(&ok(&verity(
        &project,
        &[
            "publish",
            REPO,
            "--folder",
            folder.to_str().unwrap(),
            "--revision",
            "round-1",
            "--dry-run",
            "--json",
        ],
        &env,
    )))
    .unwrap();
    assert!(
        json["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["action"] == "unchanged"),
        "{json}"
    );
    assert_eq!(json["private"], true);
}

#[test]
fn a_refused_token_a_429_and_a_branch_that_moved_are_each_said_in_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let server = HubServer::start();
    server.accept_tokens(&[TOKEN]);
    let project = demo(dir.path());
    let folder = dir.path().join("ds");
    export(&project, &folder, &[]);
    let home = dir.path().join("home");
    let run = |token: Option<&str>| {
        let mut env = vec![
            ("HF_ENDPOINT", server.endpoint()),
            ("HF_HOME", home.display().to_string()),
        ];
        if let Some(token) = token {
            env.push(("HF_TOKEN", token.to_string()));
        }
        verity(
            &project,
            &["-vv", "publish", REPO, "--folder", folder.to_str().unwrap()],
            &env,
        )
    };
    let refused = run(Some("hf_not_accepted_secret_77"));
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("the Hub refused the token from HF_TOKEN"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("hf_not_accepted_secret_77"),
        "the token is never printed"
    );
    let none = run(None);
    let stderr = String::from_utf8_lossy(&none.stderr);
    assert!(stderr.contains("publishing needs a token"), "{stderr}");
    assert!(server.head(REPO, "main").is_none());

    // A token from huggingface_hub's token file does as well; a 429 is waited out.
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("token"), format!("{TOKEN}\n")).unwrap();
    server.fault(
        "POST /api/datasets/acme/panel/preupload/",
        Fault::Status(429, Some("1".into())),
    );
    let published = run(None);
    let stderr = String::from_utf8_lossy(&published.stderr);
    assert!(published.status.success(), "{stderr}");
    assert!(!stderr.contains(TOKEN) && !String::from_utf8_lossy(&published.stdout).contains(TOKEN));
    let preuploads = server
        .log()
        .iter()
        .filter(|r| r.path.contains("/preupload/"))
        .count();
    assert_eq!(preuploads, 2, "the 429 was tried again");

    // Someone commits while Verity uploads: its commit is refused, nothing is overwritten.
    std::fs::write(folder.join("notes.txt"), "a change").unwrap();
    let s = settings(&server, &home, Some(TOKEN));
    server.clear_log();
    server.fault(
        "POST /api/datasets/acme/panel/preupload/",
        Fault::Delay(Duration::from_millis(300)),
    );
    let publisher = {
        let s = s.clone();
        let request = request(&folder);
        std::thread::spawn(move || publish(&s, &request))
    };
    while !server.log().iter().any(|r| r.path.contains("/preupload/")) {
        std::thread::sleep(Duration::from_millis(5));
    }
    server.push_behind(REPO, "main", "other.txt", b"someone else");
    let err = publisher.join().unwrap().unwrap_err();
    assert!(
        err.to_string().contains("moved while Verity was uploading"),
        "{err}"
    );
    assert!(
        server
            .files(REPO, "main")
            .iter()
            .all(|f| f.path != "notes.txt")
    );
    assert_eq!(server.history(REPO, "main")[0].1, "Update other.txt");
}
