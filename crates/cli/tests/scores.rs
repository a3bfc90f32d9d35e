//! Systems' results and determinacy-aware scores: every results format gives the same scores,
//! a bad file stores nothing, the audit's verdicts decide which tasks count (checked against
//! the real audit's `COVERAGE.md` when `../shared/data` is there), on a project file and on a
//! server, where a rater's login cannot read any result.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use annotations::ops::{self, Actor, ErrorCode, Project, ResultsSource, ScoresOptions};
use serde_json::{Value, json};
use verity_stats::rates;

use crate::util::Harness;
use verity_testkit::project::{self, T0};

/// Six audit case folders with a `COVERAGE.md`: two ENTAILED, one DETERMINED-codebase (its
/// hypothesis of class `determined-codebase`), one proven airtight, one rater-pending
/// hypothesis, and one the coverage does not list (unlabelled).
fn audit_folder(root: &Path) -> Vec<String> {
    let cases = root.join("cases");
    let mut coverage = String::from(
        "# Coverage\n\n| case | verdict | cov | GAP | witness class | attribution |\n|---|---|---|---|---|---|\n",
    );
    let tasks = [
        ("acme_0001", Some("ENTAILED"), None),
        ("acme_0002", Some("ENTAILED"), None),
        (
            "acme_0003",
            Some("DETERMINED-codebase"),
            Some((
                "AMBIGUITY_HYPOTHESIS.md",
                "determined-codebase** (NOT claimed -- prose silent, one codebase way, gold matches)",
            )),
        ),
        (
            "acme_0004",
            Some("AMBIGUOUS"),
            Some((
                "AMBIGUITY_WITNESS.md",
                "airtight** (PROVEN -- mechanical spine)",
            )),
        ),
        (
            "acme_0005",
            Some("AMBIGUOUS"),
            Some((
                "AMBIGUITY_HYPOTHESIS.md",
                "prose-affirmative** (disciplined hypothesis)",
            )),
        ),
        ("acme_0006", None, None),
    ];
    let mut ids = Vec::new();
    for (slug, verdict, doc) in tasks {
        let dir = cases.join(slug);
        std::fs::create_dir_all(&dir).unwrap();
        let id = format!("instance_acme__calc-{slug}");
        std::fs::write(dir.join("instance_id.txt"), &id).unwrap();
        std::fs::write(
            dir.join("spec.md"),
            "## PROBLEM\nDivide safely.\n\n## REQUIREMENTS\n- r\n\n## INTERFACE\nNone.\n",
        )
        .unwrap();
        std::fs::write(dir.join("gold.diff"), "diff --git a/x b/x\n").unwrap();
        std::fs::write(dir.join("hidden_test.diff"), "diff --git a/t b/t\n").unwrap();
        if let Some((file, class)) = doc {
            std::fs::write(
                dir.join(file),
                format!("# Ambiguity\n\n- instance_id: `{id}`\n- class: **{class}\n"),
            )
            .unwrap();
        }
        if let Some(verdict) = verdict {
            coverage.push_str(&format!("| {slug} | {verdict} | 1/1 | 0 |  | [t](x) |\n"));
        }
        ids.push(id);
    }
    std::fs::write(root.join("COVERAGE.md"), coverage).unwrap();
    ids
}

/// The outcomes every results file below states: (task, resolved), with one task the project
/// does not hold, and the last audit task left unmentioned.
fn outcomes(ids: &[String]) -> Vec<(String, bool)> {
    vec![
        (ids[0].clone(), true),
        (ids[1].clone(), false),
        (ids[2].clone(), true),
        (ids[3].clone(), true),
        (ids[4].clone(), false),
        ("instance_acme__calc-elsewhere".into(), true),
    ]
}

/// The same outcomes in each format.
fn write_formats(dir: &Path, outcomes: &[(String, bool)]) -> Vec<PathBuf> {
    let ids = |resolved: bool| -> Vec<&str> {
        outcomes
            .iter()
            .filter(|(_, r)| *r == resolved)
            .map(|(i, _)| i.as_str())
            .collect()
    };
    let all: Vec<&str> = outcomes.iter().map(|(i, _)| i.as_str()).collect();
    let mut files = Vec::new();
    let mut put = |name: &str, text: String| {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, text).unwrap();
        files.push(path);
    };
    put(
        "summary.json",
        json!({"schema_version": 2, "submitted_ids": all, "resolved_ids": ids(true),
               "unresolved_ids": ids(false), "error_ids": [], "empty_patch_ids": [],
               "total_instances": 500})
        .to_string(),
    );
    put(
        "summary-infra.json",
        json!({"schema_version": 2, "submitted_ids": all, "resolved_ids": ids(true),
               "unresolved_ids": [], "error_ids": [], "empty_patch_ids": [],
               "infra_failure_ids": ids(false)})
        .to_string(),
    );
    let reports: serde_json::Map<String, Value> = outcomes
        .iter()
        .map(|(i, r)| (i.clone(), json!({"resolved": r, "tests_status": {}})))
        .collect();
    put("reports.json", Value::Object(reports).to_string());
    put(
        "experiments.json",
        json!({"no_generation": ids(false), "no_logs": [], "resolved": ids(true)}).to_string(),
    );
    let pro: serde_json::Map<String, Value> = outcomes
        .iter()
        .map(|(i, r)| (i.clone(), json!(r)))
        .collect();
    put("pro.eval_results.json", Value::Object(pro).to_string());
    put(
        "outcomes.csv",
        std::iter::once("instance_id,resolved,model".to_string())
            .chain(
                outcomes
                    .iter()
                    .map(|(i, r)| format!("{i},{},m", if *r { "True" } else { "0" })),
            )
            .collect::<Vec<_>>()
            .join("\n"),
    );
    put(
        "outcomes.jsonl",
        outcomes
            .iter()
            .map(|(i, r)| json!({"instance_id": i, "resolved": r}).to_string() + "\n")
            .collect(),
    );
    for (i, r) in outcomes {
        put(
            &format!("folder/{i}/report.json"),
            json!({ i: {"resolved": r} }).to_string(),
        );
    }
    files.truncate(7);
    files.push(dir.join("folder"));
    files
}

fn project_at(location: &Path, audit: &Path) -> Project {
    let mut p = project::init(location, "determinacy");
    project::import(&mut p, &[audit.to_path_buf()]);
    p
}

/// Every format of the same outcomes gives the same scores; the figures are the statistics'
/// own on the counts.
fn formats_score_alike(p: &mut Project, dir: &Path, ids: &[String]) {
    let files = write_formats(dir, &outcomes(ids));
    let sources: Vec<ResultsSource> = files
        .iter()
        .enumerate()
        .map(|(i, path)| ResultsSource {
            path: path.clone(),
            system: Some(format!("system-{i}")),
        })
        .collect();
    let imported = ops::import_results(p, &sources, T0).unwrap();
    let formats: Vec<&str> = imported.iter().map(|r| r.format.as_str()).collect();
    assert_eq!(
        formats,
        [
            "swe-bench-run-summary",
            "swe-bench-run-summary",
            "swe-bench-reports",
            "experiments-results",
            "swe-bench-pro-eval-results",
            "csv",
            "jsonl",
            "swe-bench-reports"
        ]
    );
    for r in &imported {
        assert_eq!(
            (r.tasks, r.submitted, r.resolved, r.unknown_ids),
            (6, 5, 3, 1)
        );
        assert!(
            r.warnings[0].contains("1 of its 6 task ids is not in the project and was left out"),
            "{}",
            r.warnings[0]
        );
    }
    let report = ops::scores(p, &ScoresOptions::default()).unwrap();
    let c = &report.coverage;
    assert_eq!(
        (
            c.tasks,
            c.determinate,
            c.underdetermined,
            c.pending,
            c.unlabelled
        ),
        (6, 3, 1, 1, 1)
    );
    assert_eq!(c.sources.len(), 1);
    assert_eq!(
        (c.sources[0].source.name(), c.sources[0].tasks),
        ("audit", 5)
    );
    assert_eq!(report.systems.len(), 8);
    let (lo, hi) = rates::wilson_interval(3, 6).unwrap();
    let (dlo, dhi) = rates::wilson_interval(2, 3).unwrap();
    for s in &report.systems {
        assert_eq!(
            (
                s.n,
                s.submitted,
                s.resolved,
                s.determinate_n,
                s.determinate_resolved
            ),
            (6, 5, 3, 3, 2)
        );
        assert_eq!(s.rate, Some(0.5));
        assert_eq!(s.rate_ci, Some([lo, hi]));
        assert_eq!(s.determinate_rate_ci, Some([dlo, dhi]));
        assert_eq!((s.underdetermined_n, s.underdetermined_resolved), (1, 1));
        assert_eq!(s.underdetermined_rate, Some(1.0));
        assert_eq!((s.pending_n, s.pending_resolved), (1, 0));
        assert_eq!((s.rank_raw, s.rank_determinate), (Some(4.5), Some(4.5)));
    }
    assert_eq!(report.kendall_tau, None, "every system ties");
    assert_eq!(report.pairs.len(), 8 * 7);
    for pair in &report.pairs {
        assert_eq!(pair.p_value, Some(1.0));
        assert_eq!(pair.difference, Some(0.0));
        assert_eq!(pair.difference_ci, Some([0.0, 0.0]));
    }

    // A second system that resolves the determinate tasks only ranks first there.
    let better = dir.join("better.csv");
    std::fs::write(
        &better,
        format!(
            "instance_id,resolved\n{},1\n{},1\n{},1\n",
            ids[0], ids[1], ids[2]
        ),
    )
    .unwrap();
    ops::import_results(
        p,
        &[ResultsSource {
            path: better,
            system: None,
        }],
        T0,
    )
    .unwrap();
    let report = ops::scores(p, &ScoresOptions::default()).unwrap();
    let best = report
        .systems
        .iter()
        .find(|s| s.system == "better")
        .unwrap();
    assert_eq!(best.submitted, 3);
    // Nine systems resolve three tasks each: they share the raw order's mean rank.
    assert_eq!(
        (best.rank_raw, best.rank_determinate),
        (Some(5.0), Some(1.0))
    );
    let pair = report
        .pairs
        .iter()
        .find(|x| x.a == "better" && x.b == "system-0" && x.denominator == "determinate")
        .unwrap();
    assert_eq!((pair.n, pair.a_only, pair.b_only), (3, 1, 0));
    assert_eq!(pair.p_value, Some(rates::mcnemar_exact(1, 0)));
    let listed = ops::list_results(p).unwrap();
    assert_eq!(listed.len(), 9);
    ops::remove_results(p, "better").unwrap();
    assert_eq!(
        ops::remove_results(p, "better").unwrap_err().code(),
        ErrorCode::NotFound
    );

    // A rater may not read results or scores.
    ops::add_rater(p, "ana", T0).unwrap();
    p.act_as(Actor::Rater { name: "ana".into() }).unwrap();
    assert!(ops::scores(p, &ScoresOptions::default()).is_err());
    assert!(ops::list_results(p).is_err());
    p.act_as(Actor::Coordinator).unwrap();
}

#[test]
fn every_format_scores_alike_on_a_project_file() {
    let dir = tempfile::tempdir().unwrap();
    let ids = audit_folder(&dir.path().join("audit"));
    let mut p = project_at(&dir.path().join("p.verity"), &dir.path().join("audit"));
    formats_score_alike(&mut p, dir.path(), &ids);
}

#[test]
fn every_format_scores_alike_on_a_server_and_a_raters_login_reads_no_result() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ids = audit_folder(&dir.path().join("audit"));
    let (_, mut p) = db.coordinator_project("secret", "determinacy");
    project::import(&mut p, &[dir.path().join("audit")]);
    formats_score_alike(&mut p, dir.path(), &ids);
    let login = ops::panel_grant(&mut p, "ana", false, T0).unwrap();
    let as_ana = Some((login.role.as_str(), login.password.as_str()));
    let stored = db
        .try_sql(None, "SELECT COUNT(*) FROM verity.system_results")
        .unwrap();
    assert_ne!(stored[0][0].as_deref(), Some("0"), "systems were imported");
    let seen = db
        .try_sql(as_ana, "SELECT COUNT(*) FROM verity.system_results")
        .unwrap();
    assert_eq!(
        seen[0][0].as_deref(),
        Some("0"),
        "a rater reads no system's results"
    );
    let denied = db
        .try_sql(as_ana, "DELETE FROM verity.system_results")
        .unwrap_err();
    assert!(denied.contains("permission denied"), "{denied}");
}

#[test]
fn a_bad_results_file_is_refused_whole_with_one_sentence() {
    let h = Harness::new();
    let dir = tempfile::tempdir().unwrap();
    let ids = audit_folder(dir.path());
    h.ok(&["import", dir.path().to_str().unwrap()]);
    let (a, b) = (&ids[0], &ids[1]);
    for (name, text, says) in [
        (
            "twice.csv",
            format!("instance_id,resolved\n{a},1\n{b},0\n{a},1\n"),
            "named again on line 4",
        ),
        (
            "both.json",
            json!({"submitted_ids": [a], "resolved_ids": [a], "error_ids": [a]}).to_string(),
            "contradict",
        ),
        (
            "bad.jsonl",
            format!("{{\"instance_id\": \"{a}\", \"resolved\": \"yes\"}}\n"),
            "line 1",
        ),
        ("cut.json", format!("{{\"{a}\": true,"), "not valid JSON"),
        (
            "none.csv",
            "instance_id,resolved\nnobody,1\n".to_string(),
            "its one task is not in the project",
        ),
    ] {
        let path = h.write(name, text);
        let err = h.fails(&["results", "import", &path]);
        assert!(err.contains(says), "{name}: {err}");
    }
    assert_eq!(h.json(&["results", "list", "--json"]), json!([]));

    // Two files that would be one system store neither.
    let one = h.write("x.csv", format!("instance_id,resolved\n{a},1\n"));
    std::fs::create_dir_all(h.path("y")).unwrap();
    let two = h.path("y/x.csv");
    std::fs::write(&two, format!("instance_id,resolved\n{b},1\n")).unwrap();
    let err = h.fails(&["results", "import", &one, two.to_str().unwrap()]);
    assert!(err.contains("would both be system \"x\""), "{err}");
    assert_eq!(h.json(&["results", "list", "--json"]), json!([]));

    // A good one is stored, says what it did, and the ids left out on stderr.
    let good = h.write(
        "run.eval_results.json",
        json!({ a: true, b: false, "instance_other": true }).to_string(),
    );
    let out = h.run(&["results", "import", &good, "--json"]);
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["system"], "run");
    assert_eq!(report["submitted"], 2);
    assert_eq!(report["unknown_ids"], 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "1 of its 3 task ids is not in the project and was left out: instance_other\n"
        ),
        "{stderr}"
    );
    let scores = h.json(&["scores", "--json"]);
    let system = &scores["systems"][0];
    for key in [
        "system",
        "n",
        "submitted",
        "resolved",
        "rate",
        "rate_ci",
        "determinate_n",
        "determinate_resolved",
        "determinate_rate",
        "determinate_rate_ci",
        "underdetermined_rate",
        "rank_raw",
        "rank_determinate",
    ] {
        assert!(system.get(key).is_some(), "scores --json lacks {key}");
    }
    assert!(scores.get("kendall_tau").is_some());
    h.ok(&["results", "remove", "run"]);
    h.fails(&["results", "remove", "run"]);
}

#[test]
fn a_partial_runs_harness_summary_is_imported_and_its_tasks_without_a_prediction_are_not_resolved()
{
    let h = Harness::new();
    let dir = tempfile::tempdir().unwrap();
    let ids = audit_folder(dir.path());
    h.ok(&["import", dir.path().to_str().unwrap()]);
    // The harness's summary of a run that predicted four of the six tasks, and five tasks of
    // another dataset: the tasks without a prediction are in incomplete_ids alone.
    let outside: Vec<String> = (1..=5).map(|i| format!("other__task-{i}")).collect();
    let submitted: Vec<&str> = ids[..4]
        .iter()
        .chain(&outside)
        .map(String::as_str)
        .collect();
    let summary = json!({
        "total_instances": 6, "submitted_instances": 9, "completed_instances": 3,
        "resolved_instances": 1, "unresolved_instances": 1, "empty_patch_instances": 1,
        "error_instances": 1, "completed_ids": [ids[0], ids[1], ids[2]],
        "incomplete_ids": [ids[4], ids[5]], "empty_patch_ids": [ids[3]],
        "submitted_ids": submitted, "resolved_ids": [ids[0]], "unresolved_ids": [ids[1]],
        "infra_failure_ids": [], "ambiguous_failure_ids": [ids[1]],
        "failure_reasons": {ids[1].as_str(): "a timeout"}, "error_ids": [ids[2]],
        "schema_version": 2,
    });
    let file = h.write("model.run.json", summary.to_string());
    let out = h.run(&["results", "import", &file]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "4 of the project's 6 tasks submitted, 1 resolved; the other 2 count as not resolved"
        ),
        "{stdout}"
    );
    // Five ids the project lacks: the first three named.
    assert!(
        stderr.contains(
            "5 of its 9 task ids are not in the project and were left out: other__task-1, other__task-2, other__task-3, …"
        ),
        "{stderr}"
    );
    let scores = h.json(&["scores", "--json"]);
    let system = &scores["systems"][0];
    assert_eq!(
        (&system["n"], &system["submitted"], &system["resolved"]),
        (&json!(6), &json!(4), &json!(1))
    );
}

/// A project file of the determinacy questionnaire (the default one has no audit tiers) with
/// the six audit folders imported by the command line: its path and the folders' task ids.
fn determinacy_project(h: &Harness) -> (String, Vec<String>) {
    let folder = h.path("audit");
    std::fs::create_dir(&folder).unwrap();
    let ids = audit_folder(&folder);
    let project = h.path("determinacy.verity").to_str().unwrap().to_string();
    h.ok(&[
        "--project",
        &project,
        "init",
        "--questionnaire",
        "determinacy",
    ]);
    h.ok(&["--project", &project, "import", folder.to_str().unwrap()]);
    (project, ids)
}

/// `verity export --format underdetermined` of `project`, as text.
fn left_out_csv(h: &Harness, project: &str) -> String {
    let out = h.path("left-out.csv");
    h.ok(&[
        "--project",
        project,
        "export",
        "--format",
        "underdetermined",
        "--out",
        out.to_str().unwrap(),
    ]);
    std::fs::read_to_string(&out).unwrap()
}

#[test]
fn the_underdetermined_export_lists_each_task_left_out_and_why() {
    let h = Harness::new();
    let (p, ids) = determinacy_project(&h);
    let text = left_out_csv(&h, &p);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "instance_id,determinacy,source,why".to_string(),
            format!(
                "{},underdetermined,audit,the audit: proven (airtight)",
                ids[3]
            ),
            format!(
                "{},pending,audit,the audit: rater-pending (prose-affirmative)",
                ids[4]
            ),
            format!(
                "{},unlabelled,,no panel label and no imported verdict",
                ids[5]
            ),
        ]
    );
}

#[test]
fn imported_verdicts_the_questionnaire_does_not_read_are_named_with_what_to_run() {
    // The README's order: the default questionnaire, then the tasks with the audit, then
    // results. The audit's verdicts are not the default questionnaire's to read.
    let h = Harness::new();
    let dir = tempfile::tempdir().unwrap();
    let ids = audit_folder(dir.path());
    h.ok(&["import", dir.path().to_str().unwrap()]);
    let results = h.write(
        "run.csv",
        std::iter::once("instance_id,resolved".to_string())
            .chain(ids.iter().map(|i| format!("{i},1")))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    h.ok(&["results", "import", &results]);
    let text = h.ok(&["scores"]);
    let notes: Vec<&str> = text.lines().filter(|l| l.contains("note:")).collect();
    assert_eq!(
        notes,
        [
            "  note: the audit's verdicts on 5 tasks are not read: questionnaire swe-bench-verified 1.0.0 decides which tasks are determinate by the panel's labels and reference label sets alone; to score by them, make a project with `verity init --questionnaire determinacy` and import the tasks, the audit's folders and the results into it"
        ],
        "{text}"
    );
    let json = h.json(&["scores", "--json"]);
    let unread = &json["coverage"]["unread"];
    assert_eq!(
        (&unread[0]["source"], &unread[0]["tasks"], &unread[0]["set"]),
        (&json!("audit"), &json!(5), &Value::Null),
        "{unread}"
    );
    // The export says so too: on stderr, and for each task in its row.
    let out = h.path("left-out.csv");
    let run = h.run(&[
        "export",
        "--format",
        "underdetermined",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.starts_with("note: the audit's verdicts on 5 tasks are not read"),
        "{stderr}"
    );
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(
        csv.contains(&format!(
            "{},unlabelled,,no panel label; the audit's verdict (entailed) is not read by questionnaire swe-bench-verified 1.0.0 (`verity scores` says what to run)",
            ids[0]
        )),
        "{csv}"
    );
    assert!(
        csv.contains(&format!(
            "{},unlabelled,,no panel label and no imported verdict",
            ids[5]
        )),
        "{csv}"
    );

    // The determinacy questionnaire reads them, and no note is given.
    let (p, _) = determinacy_project(&h);
    let json = h.json(&["--project", &p, "scores", "--json"]);
    assert_eq!(json["coverage"]["unread"], json!([]));
}

/// A Wilson interval in the report's words: percent with one decimal.
fn wilson_text(resolved: u64, n: u64) -> String {
    let (lo, hi) = rates::wilson_interval(resolved, n).unwrap();
    format!("[{:.1}, {:.1}]", 100.0 * lo, 100.0 * hi)
}

#[test]
fn the_report_shows_the_scores_with_a_chart_and_the_tasks_left_out() {
    let h = Harness::new();
    let (project, ids) = determinacy_project(&h);
    let p = project.as_str();
    let before = h.path("before");
    h.ok(&["--project", p, "report", "--out", before.to_str().unwrap()]);
    let text = std::fs::read_to_string(before.join("report.md")).unwrap();
    assert!(!text.contains("## Scores"), "no results, no scores: {text}");
    assert!(!before.join("scores.svg").exists());

    for (system, resolved) in [("alpha", &[0, 2, 3][..]), ("beta", &[0][..])] {
        let mut csv = "instance_id,resolved\n".to_string();
        for (i, id) in ids.iter().enumerate().take(5) {
            csv.push_str(&format!("{id},{}\n", resolved.contains(&i)));
        }
        let file = h.path(&format!("{system}.csv"));
        std::fs::write(&file, csv).unwrap();
        h.ok(&[
            "--project",
            p,
            "results",
            "import",
            file.to_str().unwrap(),
            "--system",
            system,
        ]);
    }
    let out = h.path("report");
    h.ok(&["--project", p, "report", "--out", out.to_str().unwrap()]);
    let text = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(text.contains("\n## Scores\n"), "{text}");
    assert!(text.contains(
        "6 tasks: 3 determinate, 1 underdetermined, 1 pending raters, 1 unlabelled; decided: 5 by audit."
    ));
    // alpha resolves 3 of the 6 tasks, 2 of the 3 determinate ones and the underdetermined one;
    // beta one task, a determinate one. The higher rate ranks 1 under both denominators.
    let alpha = format!(
        "| alpha | 5 | 50.0% {} (1) | 66.7% {} (1) | 100.0% {} | 0.0% |",
        wilson_text(3, 6),
        wilson_text(2, 3),
        wilson_text(1, 1)
    );
    let beta = format!(
        "| beta | 5 | 16.7% {} (2) | 33.3% {} (2) | 0.0% {} | 0.0% |",
        wilson_text(1, 6),
        wilson_text(1, 3),
        wilson_text(0, 1)
    );
    let alpha_at = text
        .find(&alpha)
        .unwrap_or_else(|| panic!("{alpha}\n{text}"));
    let beta_at = text.find(&beta).unwrap_or_else(|| panic!("{beta}\n{text}"));
    assert!(alpha_at < beta_at, "rows in the raw order");
    assert!(text.contains("Kendall's τ-b between the two orders: 1.000."));
    assert!(text.contains("| alpha | beta | all (6) |"), "{text}");
    assert!(
        text.contains("| alpha | beta | determinate (3) |"),
        "{text}"
    );
    let chart = std::fs::read_to_string(out.join("scores.svg")).unwrap();
    for label in [
        "alpha raw (rank 1)",
        "alpha determinate-only (rank 1)",
        "beta raw (rank 2)",
        "beta determinate-only (rank 2)",
    ] {
        assert!(chart.contains(label), "{label} in {chart}");
    }
    // The list beside the report is the export's, byte for byte.
    assert_eq!(
        std::fs::read_to_string(out.join("underdetermined.csv")).unwrap(),
        left_out_csv(&h, p)
    );
    assert!(text.contains("[underdetermined.csv](underdetermined.csv)"));
}

#[test]
fn a_coverage_verdict_the_folder_contradicts_refuses_the_import() {
    let h = Harness::new();
    let dir = tempfile::tempdir().unwrap();
    audit_folder(dir.path());
    let coverage = dir.path().join("COVERAGE.md");
    let text = std::fs::read_to_string(&coverage)
        .unwrap()
        .replace("| acme_0004 | AMBIGUOUS |", "| acme_0004 | ENTAILED |");
    std::fs::write(&coverage, text).unwrap();
    let err = h.fails(&["import", dir.path().to_str().unwrap()]);
    assert!(
        err.contains("COVERAGE.md") && err.contains("acme_0004") && err.contains("proven"),
        "{err}"
    );
}

/// Every DETERMINED-codebase task of the real audit reads as determined from its folder
/// alone, and with `COVERAGE.md` every task gets the tier the coverage gives it.
#[test]
fn the_real_audits_folders_agree_with_its_coverage() {
    let Some(data) = verity_testkit::shared_data() else {
        return;
    };
    let root = data.join("determinacy-audit");
    let coverage = std::fs::read_to_string(root.join("COVERAGE.md")).unwrap();
    let mut determined = 0;
    for line in coverage.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() > 3 && cells[2] == "DETERMINED-codebase" {
            let record =
                annotations::import::audit_folder::read_folder(&root.join("cases").join(cells[1]))
                    .unwrap();
            let note = record.record.value.audit.unwrap();
            assert_eq!(note.status.as_deref(), Some("determined"), "{}", cells[1]);
            determined += 1;
        }
    }
    assert_eq!(determined, 78);
    let dir = tempfile::tempdir().unwrap();
    let p = project_at(&dir.path().join("p.verity"), &root);
    let (left_out, unread) = ops::left_out_tasks(&p).unwrap();
    assert!(unread.is_empty());
    let count = |d: &str| {
        left_out
            .iter()
            .filter(|t| t.determinacy.name() == d)
            .count()
    };
    assert_eq!(count("underdetermined"), 109);
    assert_eq!(count("pending"), 63);
    assert_eq!(count("unlabelled"), 3);
    let report = ops::scores(&p, &ScoresOptions::default()).unwrap();
    assert_eq!(report.coverage.determinate, 478 + 78);
}
