//! Bad input and bad moments: tasks without materials, texts a rater must read, clones that
//! hold none of the tasks' commits, interrupted migrations, read-only projects, full disks,
//! and one vocabulary across the commands' outputs.
#![allow(clippy::unwrap_used)]

use crate::util::Harness;
use verity_testkit::{answer_args, fixture};

#[test]
fn tasks_an_annotation_file_made_are_never_calibration_tasks_nor_assigned() {
    let h = Harness::new();
    h.ok(&["import", &fixture("openai/ensembled_sample.csv")]);
    h.ok(&["raters", "add", "ana"]);
    let err = h.fails(&["calibration", "add", "--all"]);
    assert!(
        err.contains("4 tasks lack a problem statement") && err.contains("import their instances"),
        "{err}"
    );
    let err = h.fails(&["calibration", "add", "astropy__astropy-11693"]);
    assert!(err.contains("lacks a problem statement"), "{err}");
    let err = h.fails(&["assign", "--per-case", "1"]);
    assert!(
        err.contains("nothing to assign: 4 tasks lack a problem statement")
            && err.contains("import their instances first"),
        "{err}"
    );
    let listed = h.ok(&["cases"]);
    assert_eq!(listed.matches("(no materials)").count(), 4, "{listed}");
    let shown = h.ok(&["case", "show", "astropy__astropy-11693"]);
    assert!(shown.contains("materials: none"), "{shown}");

    // With tasks that have materials, those are assigned and the others counted out.
    h.ok(&["import", &fixture("swebench.jsonl")]);
    let said = h.ok(&["assign", "--per-case", "1"]);
    assert!(
        said.contains("(4 tasks without materials left out"),
        "{said}"
    );
    let report = h.json(&["assign", "--per-case", "1", "--json"]);
    assert_eq!(report["added"], 0);
    assert_eq!(report["without_materials"], 4);
    assert!(
        report["why_none"]
            .as_str()
            .unwrap()
            .contains("already has 1 rater,"),
        "{report}"
    );
    let said = h.ok(&["assign", "--per-case", "1"]);
    assert!(said.contains("nothing assigned: each of the"), "{said}");
    let queue = h.json(&["--as", "ana", "queue", "--json"]);
    for item in queue.as_array().unwrap() {
        assert!(!item["instance_id"].as_str().unwrap().starts_with("astropy"));
    }
}

#[test]
fn requirements_and_interface_reach_raters_whatever_shape_the_file_is_detected_as() {
    let h = Harness::new();
    let demo =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo/tasks.jsonl");
    let said = h.ok(&["import", demo.to_str().unwrap()]);
    assert!(said.contains(": swe-bench (12 records)"), "{said}");
    assert!(
        said.contains(
            "kept but not shown to raters: created_at, environment_setup_commit, version"
        ),
        "{said}"
    );
    for id in ["demo__tinylib-7", "demo__tinylib-11"] {
        let case = h.json(&["case", "show", id, "--json"]);
        assert!(
            case["requirements"].as_str().is_some_and(|t| !t.is_empty()),
            "{id}: {case}"
        );
        assert!(
            case["interface"].as_str().is_some_and(|t| !t.is_empty()),
            "{id}: {case}"
        );
        assert!(case["extra"].get("requirements").is_none(), "{case}");
        let text = h.ok(&["case", "show", id]);
        assert!(text.contains("== Requirements") && text.contains("== Interface"));
    }
    let report = h.json(&["import", demo.to_str().unwrap(), "--json"]);
    assert_eq!(
        report["paths"][0]["kept_fields"],
        serde_json::json!(["created_at", "environment_setup_commit", "version"])
    );
}

/// A task of acme/calc at `commit`, shaped as the fixture's first row.
fn calc_task(id: &str, commit: &str) -> String {
    let first = std::fs::read_to_string(fixture("swebench.jsonl")).unwrap();
    let mut row: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(first.lines().next().unwrap()).unwrap();
    row.insert("instance_id".into(), id.into());
    row.insert("base_commit".into(), commit.into());
    format!("{}\n", serde_json::Value::Object(row))
}

#[test]
fn a_clone_holding_none_of_the_tasks_commits_is_refused_and_one_holding_some_is_counted() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    let clone = h.path("calc");
    std::fs::create_dir(&clone).unwrap();
    verity_testkit::git(&clone, &["init", "-q"]);
    verity_testkit::git(&clone, &["commit", "-q", "--allow-empty", "-m", "base"]);
    let head = verity_testkit::git(&clone, &["rev-parse", "HEAD"])
        .trim()
        .to_string();
    let err = h.fails(&["repo", "add", "acme/calc", clone.to_str().unwrap()]);
    assert!(
        err.contains("holds none of the 2 base commits of acme/calc's tasks")
            && err.contains(&format!("commit {} is missing", "a".repeat(40)))
            && err.contains("Nothing was registered"),
        "{err}"
    );
    assert_eq!(h.ok(&["repo", "list"]), "");

    let more = h.write("more.jsonl", calc_task("acme__calc-900", &head));
    h.ok(&["import", &more]);
    let said = h.ok(&["repo", "add", "acme/calc", clone.to_str().unwrap()]);
    assert!(said.contains("(1 of 3 base commits held)"), "{said}");
    assert!(
        said.contains("2 base commits are missing")
            && said.contains("verity repo fetch-missing acme/calc"),
        "{said}"
    );
}

/// `n` tasks of acme/calc, one JSON line each.
fn many_tasks(n: usize) -> String {
    (0..n)
        .map(|i| calc_task(&format!("acme__calc-{}", 10_000 + i), &"a".repeat(40)))
        .collect()
}

#[test]
fn a_migrate_killed_midway_leaves_no_project_and_the_rerun_copies_it() {
    let h = Harness::new();
    let tasks = h.write("tasks.jsonl", many_tasks(4000));
    h.ok(&["import", &tasks]);
    let target = h.path("copy.verity");
    let partial = h.path(".copy.verity.migrating");
    let log = h.path(".copy.verity.migrating-wal");
    // Kill the copy once its rows are being written; a copy that finished first is tried again.
    let mut caught = false;
    for _ in 0..20 {
        let _ = std::fs::remove_file(&target);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_verity"))
            .args(["migrate", "--to", target.to_str().unwrap()])
            .env("VERITY_PROJECT", h.project())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let copying = || std::fs::metadata(&log).is_ok_and(|m| m.len() > 256 << 10);
        while child.try_wait().unwrap().is_none() && !copying() {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        // SIGKILL, as `kill -9` sends.
        let _ = child.kill();
        child.wait().unwrap();
        if partial.exists() && !target.exists() {
            caught = true;
            break;
        }
    }
    assert!(caught, "the copy always finished before it could be killed");
    let err = h.fails(&["--project", partial.to_str().unwrap(), "cases"]);
    assert!(err.contains("is an unfinished copy of a project"), "{err}");

    let said = h.ok(&["migrate", "--to", target.to_str().unwrap()]);
    assert!(said.contains("copied"), "{said}");
    assert!(
        !partial.exists(),
        "the rerun leaves nothing beside the copy"
    );
    let listed = h.ok(&["--project", target.to_str().unwrap(), "cases"]);
    assert!(
        listed.ends_with("\n4000 cases\n"),
        "{}",
        &listed[listed.len() - 40..]
    );
    let err = h.fails(&["migrate", "--to", target.to_str().unwrap()]);
    assert!(err.contains("already exists"), "{err}");
}

/// A project with two raters' submitted answers on both fixture tasks, differing on 1.1.
fn answered() -> Harness {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    for rater in ["ana", "bo"] {
        h.ok(&["raters", "add", rater]);
    }
    h.ok(&["assign", "--per-case", "2"]);
    // The raters differ on 1.1 (1 against 3) and agree on every other question.
    let mut other = verity_testkit::full_answer();
    other["underspecified"] = 3.into();
    let answers = [
        (
            "ana",
            h.write("ana.json", verity_testkit::full_answer().to_string()),
        ),
        ("bo", h.write("bo.json", other.to_string())),
    ];
    for (rater, answer) in &answers {
        for case in ["acme__calc-101", "acme__calc-102"] {
            h.ok(&[
                "answer", "--rater", rater, "--case", case, "--file", answer, "--submit",
            ]);
        }
    }
    h
}

/// Runs `verity` as a user who may read the project but not write it: as root (which may
/// write anything), as the unprivileged user `nobody`; otherwise as ourselves, once the
/// folder and file are made read-only.
#[cfg(unix)]
fn run_as_reader(h: &Harness, args: &[&str]) -> std::process::Output {
    use std::os::unix::fs::MetadataExt;
    let root = std::fs::metadata(h.project()).unwrap().uid() == 0;
    let mut command = if root {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_verity"));
        c
    } else {
        std::process::Command::new(env!("CARGO_BIN_EXE_verity"))
    };
    command
        .args(args)
        .env("VERITY_PROJECT", h.project())
        .current_dir("/")
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_read_only_project_is_read_by_every_reading_command_and_writes_say_so() {
    use std::os::unix::fs::PermissionsExt;
    let set_mode = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let h = answered();
    let out = tempfile::tempdir().unwrap();
    set_mode(out.path(), 0o777);
    let folder = h.project().parent().unwrap().to_path_buf();
    // A folder the reader cannot write, then one they can write holding a file they cannot
    // (another user's file): neither may gain a -shm or -wal file.
    for folder_mode in [0o555, 0o777] {
        set_mode(&folder, folder_mode);
        set_mode(&h.project(), 0o444);
        let report = out.path().join(format!("report-{folder_mode:o}"));
        let export = out.path().join(format!("export-{folder_mode:o}.jsonl"));
        for args in [
            vec!["cases"],
            vec!["case", "show", "acme__calc-101"],
            vec!["--as", "ana", "queue"],
            vec!["agreement"],
            vec!["ensemble"],
            vec!["disagreements"],
            vec![
                "report",
                "--out",
                report.to_str().unwrap(),
                "--bootstrap",
                "10",
            ],
            vec![
                "export",
                "--format",
                "jsonl",
                "--out",
                export.to_str().unwrap(),
            ],
        ] {
            let run = run_as_reader(&h, &args);
            assert!(
                run.status.success(),
                "verity {args:?} on a read-only project: {}",
                String::from_utf8_lossy(&run.stderr)
            );
        }
        assert!(report.join("report.md").exists() && export.exists());
        let run = run_as_reader(&h, &["raters", "add", "cy"]);
        assert_eq!(run.status.code(), Some(2));
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(
            err.contains("is read-only") && err.contains("nothing was saved"),
            "{err}"
        );
        for suffix in ["-shm", "-wal"] {
            let beside = folder.join(format!("project.verity{suffix}"));
            assert!(!beside.exists(), "{} left behind", beside.display());
        }
    }
    set_mode(&folder, 0o755);
    set_mode(&h.project(), 0o644);
}

#[test]
fn questions_are_named_alike_everywhere_and_listed() {
    let h = answered();
    let questions = h.json(&["questions", "--json"]);
    let first = &questions[0];
    assert_eq!(
        (
            &first["number"],
            &first["id"],
            &first["kind"],
            &first["scale"]
        ),
        (
            &serde_json::json!("1.1"),
            &serde_json::json!("underspecified"),
            &serde_json::json!("scale"),
            &serde_json::json!([0, 1, 2, 3])
        )
    );
    let help = h.ok(&["-h"]);
    assert!(help.contains("postgres://USER@HOST:PORT/DB"), "{help}");
    let text = h.ok(&["questions"]);
    assert!(
        text.starts_with("1.1\tunderspecified\tscale\tordinal\t0 | 1 | 2 | 3\trequired\n"),
        "{text}"
    );
    // Every rule a submission must meet is listed: a note's length, an answer another one
    // requires.
    assert!(
        text.contains("1.2\tunderspecified_notes\ttext\tnominal\t-\trequired; at least 100 characters; at most 20,000 characters\n")
            && text.contains("3.4\tother_notes\ttext\tnominal\t-\trequired when 3.3 (other_major_issues) is 1 (Yes), else optional; at most 20,000 characters\n"),
        "{text}"
    );
    let notes = &questions[7];
    assert_eq!(
        (
            &notes["min_chars"],
            &notes["max_chars"],
            &notes["required_if"]
        ),
        (
            &serde_json::Value::Null,
            &serde_json::json!(20_000),
            &serde_json::json!({"question": "other_major_issues", "number": "3.3", "values": [1]})
        )
    );
    assert_eq!(questions[1]["min_chars"], 100);

    let on_11 = h.json(&["disagreements", "--question", "1.1", "--json"]);
    assert_eq!(on_11.as_array().unwrap().len(), 2, "{on_11}");
    assert_eq!(on_11[0]["instance_id"], "acme__calc-101");
    assert_eq!(on_11[0]["question"], "underspecified");
    let by_id = h.json(&["disagreements", "--question", "underspecified", "--json"]);
    assert_eq!(by_id, on_11);
    assert_eq!(
        h.json(&["disagreements", "--question", "2.1", "--json"]),
        serde_json::json!([])
    );
    let err = h.fails(&["disagreements", "--question", "1.2"]);
    assert!(err.contains("takes free text"), "{err}");
    let err = h.fails(&["disagreements", "--question", "9.9"]);
    assert!(
        err.contains("no question \"9.9\"") && err.contains("1.1 (underspecified)"),
        "{err}"
    );

    // adjudicate takes the number as the other commands do, and stores the question's id.
    let view = h.json(&[
        "adjudicate",
        "--case",
        "acme__calc-101",
        "--question",
        "1.1",
        "--value",
        "3",
        "--rationale",
        "The message is not in the issue.",
        "--json",
    ]);
    assert_eq!(view["question"], "underspecified");
    assert_eq!(view["instance_id"], "acme__calc-101");
    let listed = h.json(&["disagreements", "--question", "1.1", "--json"]);
    assert_eq!(listed[0]["adjudication"]["value"], 3, "{listed}");
}

#[test]
fn json_outputs_name_the_task_instance_id() {
    let h = answered();
    let answer = h.write("draft.json", r#"{"underspecified": 2}"#);
    h.ok(&["raters", "add", "cy"]);
    h.ok(&["assign", "--case", "acme__calc-101", "--rater", "cy"]);
    let view = h.json(&answer_args("cy", "acme__calc-101", &answer, &["--json"]));
    assert_eq!(view["instance_id"], "acme__calc-101");
    assert!(view.get("case").is_none(), "{view}");
    let all = h.json(&["disagreements", "--json"]);
    assert!(all[0].get("instance_id").is_some() && all[0].get("case").is_none());
    let evidence = h.json(&["evidence", "--all", "--json"]);
    assert_eq!(
        evidence["skipped"][0]["instance_id"], "acme__calc-101",
        "{evidence}"
    );
}

#[test]
fn agreement_orders_raters_and_names_pairs_in_natural_order() {
    let h = Harness::new();
    let ratings = h.write(
        "r.csv",
        "unit,rater,value\nu1,13,a\nu1,7,a\nu2,13,b\nu2,7,b\nu3,13,a\nu3,7,b\n",
    );
    let report = h.json(&["agreement", "--ratings", &ratings, "--json"]);
    assert_eq!(report["raters"], serde_json::json!(["7", "13"]), "{report}");
    assert!(report["cohen_kappa"].get("7|13").is_some(), "{report}");
    let text = h.ok(&["agreement", "--ratings", &ratings]);
    assert!(
        text.contains("raters: 7, 13") && text.contains("7|13"),
        "{text}"
    );
}

#[test]
fn names_that_break_lines_and_notes_past_the_cap_are_refused() {
    let h = answered();
    for (name, what) in [
        ("ana\nbo", "a line break"),
        ("ana\tbo", "a tab"),
        ("a|b", "'|'"),
    ] {
        let err = h.fails(&["raters", "add", name]);
        assert!(err.contains(what), "{err}");
        let err = h.fails(&["adjudicators", "add", name]);
        assert!(err.contains(what), "{err}");
    }
    let mut long = verity_testkit::full_answer();
    long["other_notes"] = "x".repeat(20_001).into();
    let file = h.write("long.json", long.to_string());
    h.ok(&["raters", "add", "cy"]);
    h.ok(&["assign", "--case", "acme__calc-101", "--rater", "cy"]);
    let err = h.fails(&answer_args("cy", "acme__calc-101", &file, &[]));
    assert!(
        err.contains("(other_notes) holds 20001 characters; a note may hold at most 20000"),
        "{err}"
    );
    long["other_notes"] = "x".repeat(20_000).into();
    let file = h.write("long.json", long.to_string());
    h.ok(&answer_args("cy", "acme__calc-101", &file, &[]));
}

#[test]
fn export_refuses_a_reference_its_format_cannot_hold() {
    let h = answered();
    let out = h.path("x.jsonl");
    let err = h.fails(&[
        "export",
        "--format",
        "jsonl",
        "--reference",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(err.contains("only --format openai-ensembled"), "{err}");
    assert!(!out.exists());
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly_and_logs_carry_no_colour() {
    use std::io::Read;
    let h = Harness::new();
    let tasks = h.write("tasks.jsonl", many_tasks(2000));
    let said = h.run(&["-v", "import", &tasks]);
    let log = String::from_utf8(said.stderr).unwrap();
    assert!(log.contains("read import path"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a redirected log: {log:?}"
    );
    for args in [&["cases", "--json"][..], &["cases"][..]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_verity"))
            .args(args)
            .env("VERITY_PROJECT", h.project())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut head = [0u8; 100];
        child.stdout.take().unwrap().read_exact(&mut head).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "verity {args:?} | head"
        );
        assert!(out.status.success());
    }
}

#[test]
fn a_server_that_goes_away_during_an_import_stores_nothing_and_says_so() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks, many_tasks(4000)).unwrap();
    let url = db.url();
    let verity = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_verity"))
            .arg("--project")
            .arg(&url)
            .args(args)
            .output()
            .unwrap()
    };
    assert!(verity(&["init"]).status.success());
    // The server ends the import's session midway, as a server shutting down does (57P01):
    // the session whose transaction has written (reads on other sessions are tried again).
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_verity"))
        .arg("--project")
        .arg(&url)
        .arg("import")
        .arg(&tasks)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut ended = false;
    while !ended && child.try_wait().unwrap().is_none() {
        let rows = db
            .try_sql(
                None,
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE datname = current_database() AND pid <> pg_backend_pid()
                   AND backend_xid IS NOT NULL AND backend_type = 'client backend'",
            )
            .unwrap();
        ended = !rows.is_empty();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        ended,
        "the import finished before its session could be ended"
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("went away during the import") && err.contains("nothing was stored"),
        "{err}"
    );
    let listed = verity(&["cases"]);
    assert_eq!(String::from_utf8(listed.stdout).unwrap(), "0 cases\n");
}

#[test]
fn a_failed_clone_names_where_it_cloned_from() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    let source = h.path("calc.git");
    std::fs::create_dir(&source).unwrap();
    verity_testkit::git(&source, &["init", "-q", "--bare"]);
    // A HEAD naming no valid branch: git fails once the clone has begun.
    std::fs::write(source.join("HEAD"), "ref: refs/heads/../../x\n").unwrap();
    let into = h.path("clone.git");
    let err = h.fails(&[
        "repo",
        "clone",
        "acme/calc",
        "--url",
        source.to_str().unwrap(),
        "--into",
        into.to_str().unwrap(),
    ]);
    assert!(
        err.contains(&format!("cloning from {}", source.display()))
            && err.contains(&into.display().to_string()),
        "{err}"
    );
}
