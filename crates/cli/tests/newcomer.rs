//! What a new user met following the README on real data: answers typed as text, answers on
//! unassigned cases, exports that overwrite or mean nothing, raters and repositories that
//! could not be removed, and the smaller things of the command line. Each test fails on the
//! Verity before these fixes.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::util::Harness;
use verity_testkit::{answer_args, fixture};

/// Tasks `tinylib-1` … `tinylib-N` of repository `tiny/lib`, plus `acme/calc`'s two.
fn with_tasks(h: &Harness, n: usize) {
    let template: Value = serde_json::from_str(
        std::fs::read_to_string(fixture("swebench.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let mut lines = Vec::new();
    for i in 1..=n {
        let mut row = template.clone();
        row["instance_id"] = json!(format!("tinylib-{i}"));
        row["repo"] = json!("tiny/lib");
        row["problem_statement"] = json!(format!("Task number {i}\n\nSomething is wrong."));
        lines.push(row.to_string());
    }
    let file = h.write("tiny.jsonl", lines.join("\n"));
    h.ok(&["import", &file, &fixture("swebench.jsonl")]);
}

fn answer(underspecified: Value, false_negative: i64) -> Value {
    let notes = "The issue says what to change but not which message the test expects; a reader of the issue alone cannot tell.";
    json!({
        "underspecified": underspecified,
        "underspecified_notes": notes,
        "false_negative": false_negative,
        "false_negative_notes": notes,
        "difficulty": "<15 min fix",
        "difficulty_notes": "One guard clause.",
        "other_major_issues": 0,
        "annotator_confidence": 4
    })
}

fn submit(h: &Harness, rater: &str, case: &str, values: &Value) -> String {
    let file = h.write(&format!("{rater}-{case}.json"), values.to_string());
    h.ok(&[
        "answer", "--rater", rater, "--case", case, "--file", &file, "--submit",
    ])
}

fn three_raters_on_every_case(h: &Harness) {
    for r in ["alice", "bob", "carol"] {
        h.ok(&["raters", "add", r]);
    }
    h.ok(&["assign", "--per-case", "3"]);
}

#[test]
fn a_scale_answer_given_as_text_is_stored_as_its_number_and_read_as_it_everywhere() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    three_raters_on_every_case(&h);
    submit(&h, "alice", "acme__calc-101", &answer(json!(0), 0));
    submit(&h, "bob", "acme__calc-101", &answer(json!("2"), 0));
    submit(&h, "carol", "acme__calc-101", &answer(json!(0), 0));
    for r in ["alice", "bob", "carol"] {
        submit(&h, r, "acme__calc-102", &answer(json!(1), 1));
    }
    // Stored as the number, not the text.
    let lines = h.export("answers-jsonl", &[]);
    let bob: Value = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["rater"] == "bob" && l["instance_id"] == "acme__calc-101")
        .unwrap();
    assert_eq!(bob["answers"]["underspecified"], json!(2));
    // The ensemble takes bob's 2 as the maximum.
    let ensemble = h.json(&["ensemble", "--json"]);
    let label = ensemble["cases"][0]["labels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["question"] == "underspecified")
        .unwrap()
        .clone();
    assert_eq!(label["value"], json!(2), "{label}");
    // Agreement counts every rating of 1.1, as many as of 2.1.
    let agreement = h.json(&["agreement", "--json"]);
    let ratings = |id: &str| {
        agreement["questions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["question"] == id)
            .unwrap()["report"]["ratings"]
            .clone()
    };
    assert_eq!(ratings("underspecified"), json!(6));
    assert_eq!(ratings("underspecified"), ratings("false_negative"));
    // The disagreement puts bob's 2 against 0: the widest spread, first.
    let list = h.json(&["disagreements", "--json"]);
    assert_eq!(
        (list[0]["question"].clone(), list[0]["spread"].clone()),
        (json!("underspecified"), json!(2))
    );
    // The exports write the number as the others.
    let csv = h.export("openai-annotations", &[]);
    let bob_row = csv
        .lines()
        .find(|l| l.starts_with("acme__calc-101,bob,"))
        .unwrap();
    assert!(bob_row.starts_with("acme__calc-101,bob,2.0,"), "{bob_row}");
}

#[test]
fn a_rater_answers_only_assigned_cases_unless_the_coordinator_assigns_one() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    for r in ["alice", "bob", "carol"] {
        h.ok(&["raters", "add", r]);
    }
    h.ok(&[
        "assign",
        "--case",
        "acme__calc-101",
        "--rater",
        "alice",
        "--rater",
        "carol",
    ]);
    let file = h.write("a.json", answer(json!(1), 1).to_string());
    let bob_answers = answer_args("bob", "acme__calc-101", &file, &[]);
    let before = h.json(&["cases", "--json"]);
    let err = h.fails(&bob_answers);
    assert!(
        err.contains("not assigned to bob") && err.contains("verity assign --case"),
        "{err}"
    );
    assert_eq!(h.json(&["cases", "--json"]), before, "nothing was added");
    h.ok(&["assign", "--case", "acme__calc-101", "--rater", "bob"]);
    h.ok(&bob_answers);
}

#[test]
fn openai_exports_of_a_questionnaire_without_its_questions_are_refused() {
    let h = Harness::new();
    std::fs::remove_file(h.project()).unwrap();
    h.ok(&["init", "--questionnaire", "determinacy"]);
    for format in ["openai-ensembled", "openai-annotations"] {
        let out = h.path(format);
        let err = h.fails(&["export", "--format", format, "--out", out.to_str().unwrap()]);
        assert!(
            err.contains("lacks underspecified") && err.contains("determinacy"),
            "{err}"
        );
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn an_export_refuses_an_existing_file_unless_forced_and_then_replaces_it_whole() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    let out = h.write("labels.csv", "precious");
    let err = h.fails(&["export", "--format", "csv", "--out", &out]);
    assert!(
        err.contains("already exists") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    let said = h.ok(&["export", "--format", "csv", "--out", &out, "--force"]);
    assert!(said.contains("replaced"), "{said}");
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("instance_id")
    );
    let leftovers: Vec<_> = std::fs::read_dir(h.path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let report = h.path("report");
    let report = report.to_str().unwrap();
    h.ok(&["report", "--out", report, "--bootstrap", "0"]);
    let err = h.fails(&["report", "--out", report, "--bootstrap", "0"]);
    assert!(
        err.contains("already holds a report") && err.contains("--force"),
        "{err}"
    );
    h.ok(&["report", "--out", report, "--bootstrap", "0", "--force"]);
}

#[test]
fn a_deactivated_rater_keeps_answers_leaves_queues_and_their_cases_go_to_others_evenly() {
    let h = Harness::new();
    with_tasks(&h, 10);
    for r in ["ana", "bo", "cy", "dee"] {
        h.ok(&["raters", "add", r]);
    }
    h.ok(&["assign", "--per-case", "2", "--seed", "3"]);
    let mine = h.json(&["cases", "--rater", "dee", "--json"]);
    let mine: Vec<String> = mine
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["instance_id"].as_str().unwrap().to_string())
        .collect();
    assert!(mine.len() >= 3, "{mine:?}");
    submit(&h, "dee", &mine[0], &answer(json!(1), 0));
    let draft = h.write("draft.json", json!({"underspecified": 2}).to_string());
    h.ok(&[
        "answer", "--rater", "dee", "--case", &mine[1], "--file", &draft,
    ]);

    let err = h.fails(&["raters", "remove", "dee"]);
    assert!(err.contains("deactivate"), "{err}");
    let said = h.ok(&["raters", "deactivate", "dee"]);
    let released = mine.len() - 1;
    assert!(
        said.contains(&format!("{released} unfinished cases released")),
        "{said}"
    );
    let err = h.fails(&[
        "answer", "--rater", "dee", "--case", &mine[2], "--file", &draft,
    ]);
    assert!(err.contains("deactivated"), "{err}");
    let left = h.json(&["cases", "--rater", "dee", "--json"]);
    assert_eq!(
        left.as_array().unwrap().len(),
        1,
        "only the submitted case: {left}"
    );
    assert!(
        h.ok(&["raters", "list"])
            .contains("dee\t1 assigned\t1 submitted\tdeactivated")
    );

    let report = h.json(&["assign", "--per-case", "2", "--json"]);
    assert_eq!(report["added"], json!(released));
    assert_eq!(
        verity_testkit::even_loads(&report).len(),
        3,
        "only active raters: {report}"
    );
    // Every case has two raters, the departed rater's submission counting as one.
    for case in h.json(&["cases", "--json"]).as_array().unwrap() {
        assert_eq!(case["assignments"].as_array().unwrap().len(), 2, "{case}");
    }

    h.ok(&["raters", "add", "eve"]);
    h.ok(&["raters", "remove", "eve"]);
    assert!(!h.ok(&["raters", "list"]).contains("eve"));
}

#[test]
fn rater_names_that_differ_only_in_case_are_refused() {
    let h = Harness::new();
    h.ok(&["raters", "add", "alice"]);
    let err = h.fails(&["raters", "add", "Alice"]);
    assert!(err.contains("likely duplicate"), "{err}");
    h.fails(&["raters", "add", "alice"]);
}

#[test]
fn repo_add_checks_its_arguments_and_repo_remove_forgets_a_clone() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    let clone = h.path("calc");
    let status = Command::new("git")
        .args(["init", "-q"])
        .arg(&clone)
        .status()
        .unwrap();
    assert!(status.success());
    let clone = clone.to_str().unwrap();
    let err = h.fails(&["repo", "add", "acme", clone]);
    assert!(err.contains("OWNER/NAME"), "{err}");
    let err = h.fails(&["repo", "add", "ACME/Calc", clone]);
    assert!(err.contains("spell this repository acme/calc"), "{err}");
    let err = h.fails(&["repo", "add", "nodebb/nodebb", clone]);
    assert!(err.contains("acme/calc"), "{err}");
    h.fails(&[
        "repo",
        "add",
        "acme/calc",
        h.path("nothere").to_str().unwrap(),
    ]);
    let plain = h.path("plain");
    std::fs::create_dir(&plain).unwrap();
    h.fails(&["repo", "add", "acme/calc", plain.to_str().unwrap()]);
    assert_eq!(h.ok(&["repo", "list"]), "");

    // A clone holding none of the tasks' base commits is refused; one holding a task's is not.
    let err = h.fails(&["repo", "add", "acme/calc", clone]);
    assert!(err.contains("holds none of the 2 base commits"), "{err}");
    verity_testkit::git(
        Path::new(clone),
        &["commit", "-q", "--allow-empty", "-m", "base"],
    );
    let head = verity_testkit::git(Path::new(clone), &["rev-parse", "HEAD"]);
    let task = h.write(
        "held.jsonl",
        std::fs::read_to_string(fixture("swebench.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .replace(&"a".repeat(40), head.trim())
            .replace("acme__calc-101", "acme__calc-900"),
    );
    h.ok(&["import", &task]);
    h.ok(&["repo", "add", "acme/calc", clone]);
    assert!(h.ok(&["repo", "list"]).starts_with("acme/calc\t"));
    h.ok(&["repo", "remove", "acme/calc"]);
    assert_eq!(h.ok(&["repo", "list"]), "");
    let err = h.fails(&["repo", "remove", "acme/calc"]);
    assert!(err.contains("no clone is registered"), "{err}");
}

#[test]
fn case_show_gives_texts_patches_tests_and_each_raters_revisions_to_who_may_see_them() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl"), &fixture("pro.jsonl")]);
    three_raters_on_every_case(&h);
    submit(&h, "alice", "acme__calc-101", &answer(json!(1), 0));
    let file = h.write("revised.json", answer(json!(2), 0).to_string());
    h.ok(&answer_args(
        "alice",
        "acme__calc-101",
        &file,
        &["--submit", "--reason", "Read the test again"],
    ));
    let draft = h.write("draft.json", json!({"underspecified": 3}).to_string());
    h.ok(&answer_args("bob", "acme__calc-101", &draft, &[]));

    let text = h.ok(&["case", "show", "acme__calc-101"]);
    for needle in [
        "== Gold patch: 1 file, +2 -0",
        "  src/calc.py  +2 -0",
        "== Test patch: 1 file, +3 -0",
        "FAIL_TO_PASS (1):\n  tests/test_calc.py::test_div",
        "alice (submitted):",
        "submitted (revision 1)",
        "revised (revision 2), on case revision 1: Read the test again",
        "bob (in progress):",
        "    underspecified: 3",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    let as_bob = h.ok(&["case", "show", "acme__calc-101", "--as", "bob"]);
    assert!(
        as_bob.contains("bob (in progress):") && !as_bob.contains("alice ("),
        "{as_bob}"
    );

    // A SWE-bench Pro task, named by a unique prefix of its long id.
    assert_eq!(
        h.json(&["cases", "--repo", "acme/widgets", "--json"])
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let text = h.ok(&["case", "show", "instance_acme__widgets-1111"]);
    assert!(
        text.starts_with("instance_acme__widgets-1111aaaa")
            && text.contains("== Requirements")
            && text.contains("== Interface"),
        "{text}"
    );

    let history = h.export("answers-jsonl", &["--history"]);
    let events: Vec<Value> = history
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|e| (e["rater"].as_str().unwrap(), e["event"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [("alice", "submit"), ("alice", "revise"), ("bob", "draft")]
    );
    assert_eq!(events[1]["revision_reason"], "Read the test again");
    let latest = h.export("answers-jsonl", &[]);
    assert_eq!(latest.lines().count(), 1);
}

#[test]
fn agreement_takes_question_numbers_and_says_when_nothing_is_submitted() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    three_raters_on_every_case(&h);
    let said = h.ok(&["agreement"]);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.contains("no rater has submitted"), "{said}");
    for r in ["alice", "bob"] {
        submit(&h, r, "acme__calc-101", &answer(json!(1), 0));
    }
    let by_number = h.json(&["agreement", "--question", "1.1", "--json"]);
    assert_eq!(by_number["questions"][0]["question"], "underspecified");
    let err = h.fails(&["agreement", "--question", "9.9"]);
    assert!(
        err.contains("underspecified (1.1)") && err.contains("false_negative (2.1)"),
        "{err}"
    );
}

#[test]
fn cases_sort_naturally_filter_and_take_unique_prefixes_and_assign_takes_batches() {
    let h = Harness::new();
    with_tasks(&h, 12);
    let listed = h.ok(&["cases"]);
    let tiny: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.split('\t').next())
        .filter(|id| id.starts_with("tinylib"))
        .collect();
    assert_eq!(&tiny[..3], ["tinylib-1", "tinylib-2", "tinylib-3"]);
    assert_eq!(tiny.last(), Some(&"tinylib-12"));

    for r in ["ana", "bo"] {
        h.ok(&["raters", "add", r]);
    }
    let list = h.write(
        "batch.txt",
        "# the first batch\ntinylib-1\ntinylib-10\n\ntinylib-2\n",
    );
    let report = h.json(&["assign", "--per-case", "1", "--cases", &list, "--json"]);
    assert_eq!(
        (report["added"].clone(), report["cases"].clone()),
        (json!(3), json!(3))
    );
    let report = h.json(&["assign", "--per-case", "2", "--repo", "acme/calc", "--json"]);
    assert_eq!(report["added"], json!(4));
    let err = h.fails(&["assign", "--per-case", "1", "--repo", "acme/nothing"]);
    assert!(err.contains("acme/nothing"), "{err}");

    let ana = h.ok(&["cases", "--rater", "ana", "--status", "to-do"]);
    assert!(
        ana.lines()
            .all(|l| l.contains("ana:to do") || l.ends_with(" cases")),
        "{ana}"
    );
    let calc = h.ok(&["cases", "--repo", "acme/calc"]);
    assert!(calc.ends_with("2 cases\n"), "{calc}");

    let shown = h.ok(&["case", "show", "acme__calc-101"]);
    assert!(shown.starts_with("acme__calc-101 "), "{shown}");
    let shown = h.ok(&["case", "show", "tinylib-11"]);
    assert!(shown.starts_with("tinylib-11 "), "{shown}");
    let err = h.fails(&["case", "show", "acme__calc-10"]);
    assert!(err.contains("acme__calc-101, acme__calc-102"), "{err}");
    let shown = h.ok(&["case", "show", "tinylib-1"]);
    assert!(
        shown.starts_with("tinylib-1 "),
        "an exact id is never a prefix: {shown}"
    );
    let err = h.fails(&["case", "show", "tinylib"]);
    assert!(err.contains("more than one case id"), "{err}");
}

#[test]
fn adjudication_needs_a_rated_case_and_an_adjudicator() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    three_raters_on_every_case(&h);
    let adjudicate = |case: &str, by: Option<&str>| {
        let mut args = vec![
            "adjudicate",
            "--case",
            case,
            "--question",
            "underspecified",
            "--value",
            "2",
            "--rationale",
            "The message is pinned by the test.",
        ];
        if let Some(by) = by {
            args.extend(["--by", by]);
        }
        h.run(&args)
    };
    let out = adjudicate("acme__calc-101", None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nobody has submitted"));
    submit(&h, "alice", "acme__calc-101", &answer(json!(1), 0));
    let out = adjudicate("acme__calc-101", Some("mallory"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("may not adjudicate"));
    assert!(
        adjudicate("acme__calc-101", None).status.success(),
        "the coordinator decides"
    );
    h.ok(&["adjudicators", "add", "lead"]);
    assert!(adjudicate("acme__calc-101", Some("lead")).status.success());
}

#[test]
fn agreement_in_text_says_how_many_rater_pairs_it_left_out_and_why() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    three_raters_on_every_case(&h);
    for r in ["alice", "bob", "carol"] {
        submit(&h, r, "acme__calc-101", &answer(json!(1), 0));
    }
    let said = h.ok(&["agreement", "--question", "1.1"]);
    assert!(
        said.contains(
            "Cohen's kappa leaves out 3 rater pairs that share fewer than 10 units, too few for a kappa"
        ),
        "{said}"
    );
    let json = h.json(&["agreement", "--question", "1.1", "--json"]);
    assert_eq!(
        json["questions"][0]["report"]["few_shared_pairs"]["pairs"],
        3
    );
}

#[test]
fn an_empty_project_says_there_is_nothing_yet_and_a_folder_is_no_project() {
    let h = Harness::new();
    assert_eq!(
        h.ok(&["raters", "list"]),
        "no raters yet: add one with `verity raters add NAME`\n"
    );
    assert!(
        h.ok(&["raters", "quality"]).starts_with("no raters yet"),
        "quality of no raters"
    );
    h.ok(&["raters", "add", "ana"]);
    assert!(
        h.ok(&["raters", "quality"])
            .starts_with("no rater has submitted an answer yet"),
        "quality of no answers"
    );
    std::fs::create_dir(h.path("panel")).unwrap();
    let folder = h.path("panel").display().to_string();
    for args in [vec!["cases"], vec!["init"]] {
        let mut all = vec!["--project", folder.as_str()];
        all.extend(args);
        let err = h.fails(&all);
        assert!(
            err.contains("is a folder, and a project is a file") && err.contains("panel.verity"),
            "{err}"
        );
    }
}

#[test]
fn a_reactivated_rater_is_told_their_released_cases_are_not_given_back_and_counts_agree() {
    let h = Harness::new();
    h.ok(&["import", &fixture("swebench.jsonl")]);
    h.ok(&["raters", "add", "ana"]);
    h.ok(&["assign", "--per-case", "1"]);
    submit(&h, "ana", "acme__calc-101", &answer(json!(1), 0));
    let left = h.ok(&["raters", "deactivate", "ana"]);
    assert!(
        left.contains("1 submitted answer kept, 1 unfinished case released"),
        "{left}"
    );
    let back = h.ok(&["raters", "activate", "ana"]);
    assert!(
        back.contains("the cases released when they left are not given back")
            && back.contains("verity assign --per-case K")
            && back.contains("verity assign --rater ana --case ID"),
        "{back}"
    );
    assert_eq!(
        h.ok(&["cases", "--rater", "ana"]).lines().last(),
        Some("1 case")
    );
}

#[test]
fn a_csv_that_is_no_openai_file_is_told_which_headers_are_understood() {
    let h = Harness::new();
    let file = h.write("ratings.csv", "task,annotator,score\nx,a,1\n");
    let err = h.fails(&["import", &file]);
    assert!(
        err.contains("a CSV that is none of OpenAI's annotation files")
            && err.contains("instance_id, user_id, underspecified")
            && err.contains("filter_out")
            && err.contains("this file's header is task, annotator, score"),
        "{err}"
    );
    assert_eq!(h.ok(&["cases"]), "0 cases\n");
}
