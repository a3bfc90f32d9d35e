//! The coordinator's commands end to end: agreement, ensembles, disagreements, adjudication,
//! OpenAI's annotation files, exports and the report, over fixtures written for the project and
//! over `../shared/data` when it is present.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::util::Harness;
use verity_testkit::{fixture, shared_data};

/// CSV text parsed into header-keyed rows (notes hold newlines: never split by lines).
fn csv_rows(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn with_annotations() -> Harness {
    let h = Harness::new();
    h.ok(&["import", &fixture("openai/annotations_sample.csv")]);
    h
}

#[test]
fn agreement_on_a_ratings_file_has_the_documented_json_keys() {
    let h = Harness::new();
    let file = h.write(
        "r.csv",
        "unit,rater,value\nu1,ann,yes\nu1,bob,yes\nu2,ann,no\nu2,bob,no\nu3,ann,yes\nu3,bob,no\nu4,ann,yes\n",
    );
    let report = h.json(&[
        "agreement",
        "--ratings",
        &file,
        "--categories",
        "no,yes",
        "--json",
    ]);
    verity_testkit::assert_keys(&report, &verity_testkit::AGREEMENT_KEYS, "the report");
    assert_eq!(report["units"], 4);
    assert_eq!(report["raters"], json!(["ann", "bob"]));
    let kappa = report["cohen_kappa"]["ann|bob"]["unweighted"]
        .as_f64()
        .unwrap();
    assert!((kappa - 0.4).abs() < 1e-12, "{kappa}");
    assert!(report.get("ci95").is_none());
    let boot = h.json(&[
        "agreement",
        "--ratings",
        &file,
        "--bootstrap",
        "50",
        "--seed",
        "3",
        "--json",
    ]);
    assert!(boot["ci95"]["percent_agreement"].is_array());
    let again = h.json(&[
        "agreement",
        "--ratings",
        &file,
        "--bootstrap",
        "50",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(
        boot["ci95"], again["ci95"],
        "a seeded bootstrap is reproducible"
    );
    let text = h.ok(&["agreement", "--ratings", &file]);
    assert!(text.contains("Krippendorff's alpha, nominal"), "{text}");
}

#[test]
fn bad_ratings_files_fail_with_one_sentence_naming_the_line() {
    let h = Harness::new();
    let dup = h.write("dup.csv", "unit,rater,value\nu1,a,1\nu1,b,2\nu1,a,2\n");
    assert!(
        h.fails(&["agreement", "--ratings", &dup])
            .contains("line 4")
    );
    let outside = h.write("out.csv", "unit,rater,value\nu1,a,1\nu1,b,7\n");
    let err = h.fails(&["agreement", "--ratings", &outside, "--categories", "1,2"]);
    assert!(err.contains("line 3") && err.contains("'7'"), "{err}");
    let empty = h.write("empty.csv", "");
    assert!(
        h.fails(&["agreement", "--ratings", &empty])
            .contains("empty")
    );
    let words = h.write("w.csv", "unit,rater,value\nu1,a,1\nu1,b,high\n");
    let err = h.fails(&["agreement", "--ratings", &words, "--level", "interval"]);
    assert!(
        err.contains("line 3") && err.contains("not a number"),
        "{err}"
    );
}

#[test]
fn the_per_annotator_file_round_trips_and_reproduces_published_ensembled_rows() {
    let h = with_annotations();
    let cases = h.json(&["cases", "--json"]);
    assert_eq!(cases.as_array().unwrap().len(), 4);
    assert!(
        cases
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["has_materials"] == false),
        "tasks known only by id are stubs lacking materials"
    );
    let raters = h.json(&["raters", "list", "--json"]);
    assert_eq!(
        raters.as_array().unwrap().len(),
        11,
        "one rater per user_id"
    );

    let exported = h.export("openai-annotations", &[]);
    let original = std::fs::read_to_string(fixture("openai/annotations_sample.csv")).unwrap();
    assert_eq!(csv_rows(&exported), csv_rows(&original));
    assert_eq!(
        exported, original,
        "the same bytes, `1.0` and empty ratings kept"
    );

    // Three annotators per task whose maximum and majority give the published rows.
    let ensembled = h.export("openai-ensembled", &[]);
    let published = std::fs::read_to_string(fixture("openai/ensembled_sample.csv")).unwrap();
    assert_eq!(csv_rows(&ensembled), csv_rows(&published));

    let again = h.json(&[
        "import",
        "--json",
        &fixture("openai/annotations_sample.csv"),
    ]);
    assert_eq!(
        (again["added"].clone(), again["updated"].clone()),
        (json!(0), json!(0)),
        "{again}"
    );
    assert_eq!(
        h.export("openai-annotations", &[]),
        original,
        "nothing doubled"
    );
}

#[test]
fn importing_the_tasks_later_fills_in_the_stubs_and_keeps_the_answers() {
    let h = with_annotations();
    let task = json!({
        "instance_id": "astropy__astropy-12825",
        "repo": "astropy/astropy",
        "base_commit": "43ee5806e9c6f7d58c12c1cb9287b3c61abe489d",
        "problem_statement": "Table.read masks columns\n\nThe reader should not mask.",
        "hints_text": "",
        "patch": "diff --git a/a.py b/a.py\n",
        "test_patch": "diff --git a/t.py b/t.py\n",
        "FAIL_TO_PASS": "[\"t.py::test_x\"]",
        "PASS_TO_PASS": "[]"
    });
    let file = h.write("tasks.jsonl", format!("{task}\n"));
    let report = h.json(&["import", "--json", &file]);
    assert_eq!(report["updated"], 1, "{report}");
    let case = h.json(&["case", "show", "astropy__astropy-12825", "--json"]);
    assert_eq!(case["has_materials"], true);
    assert_eq!(case["revision"], 2);
    let lines = h.export("answers-jsonl", &[]);
    let on_case: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["instance_id"] == "astropy__astropy-12825")
        .collect();
    assert_eq!(on_case.len(), 3);
    assert!(
        on_case.iter().all(|l| l["case_revision"] == 1),
        "imported answers keep pointing at the revision they were given on"
    );
}

#[test]
fn a_bad_annotation_row_is_named_by_line_and_stores_nothing() {
    let h = Harness::new();
    let original = std::fs::read_to_string(fixture("openai/annotations_sample.csv")).unwrap();
    let mut rows = csv_rows(&original);
    rows[4].insert("underspecified".into(), "7.0".into());
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(rows[0].keys()).unwrap();
    for row in &rows {
        writer.write_record(row.values()).unwrap();
    }
    // Columns in another order are still read by name.
    let bad = h.write("bad.csv", writer.into_inner().unwrap());
    let first_lines: usize = {
        let mut reader = csv::Reader::from_path(&bad).unwrap();
        let mut records = reader.records();
        let record = records.nth(4).unwrap().unwrap();
        record.position().unwrap().line() as usize
    };
    let err = h.fails(&["import", &bad]);
    assert!(
        err.contains(&format!("line {first_lines}")) && err.contains("underspecified"),
        "{err}"
    );
    assert_eq!(h.json(&["cases", "--json"]), json!([]), "all or nothing");

    let mut rows = csv_rows(&original);
    rows.push(rows[1].clone());
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(rows[0].keys()).unwrap();
    for row in &rows {
        writer.write_record(row.values()).unwrap();
    }
    let dup = h.write("dup.csv", writer.into_inner().unwrap());
    let lines: Vec<u64> = csv::Reader::from_path(&dup)
        .unwrap()
        .records()
        .map(|r| r.unwrap().position().unwrap().line())
        .collect();
    let err = h.fails(&["import", &dup]);
    assert!(
        err.contains(&format!("line {}", lines[12]))
            && err.contains(&format!("already rated on line {}", lines[1])),
        "{err}"
    );
}

#[test]
fn project_agreement_covers_each_rated_question_with_pairs_and_confusion() {
    let h = with_annotations();
    let result = h.json(&["agreement", "--json"]);
    let questions: Vec<&str> = result["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["question"].as_str().unwrap())
        .collect();
    assert_eq!(
        questions,
        [
            "underspecified",
            "false_negative",
            "difficulty",
            "other_major_issues",
            "annotator_confidence"
        ]
    );
    assert!(
        result["skipped"]
            .as_array()
            .unwrap()
            .contains(&json!("underspecified_notes"))
    );
    let difficulty = &result["questions"][2];
    assert_eq!(
        difficulty["categories"],
        json!(["<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours"])
    );
    assert_eq!(difficulty["report"]["level"], "ordinal");
    assert_eq!(
        difficulty["pair_matrix"]["raters"]
            .as_array()
            .unwrap()
            .len(),
        11
    );
    // 4 cases x 3 co-rating pairs, each sharing one case: counted, not measured.
    assert_eq!(result["min_shared_cases"], 10);
    assert_eq!(difficulty["confusion"], json!([]));
    assert_eq!(difficulty["report"]["cohen_kappa"], json!({}));
    let few = &difficulty["report"]["few_shared_pairs"];
    assert_eq!(few["min_units"], 10);
    assert_eq!(few["pairs"], 55, "every pair of 11 raters: {few}");
    assert_eq!(few["by_shared_units"][1], 12, "{few}");
    assert_eq!(few["by_shared_units"][0], 43, "{few}");
    let shared: u64 = difficulty["pair_matrix"]["units"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|row| row.as_array().unwrap())
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(
        shared, 24,
        "the pair matrix keeps every pair's count, both ways"
    );

    // The same numbers as the ratings-file path on the same first submissions.
    let mut long = String::from("unit,rater,value\n");
    for row in csv_rows(&std::fs::read_to_string(fixture("openai/annotations_sample.csv")).unwrap())
    {
        long.push_str(&format!(
            "{},{},{}\n",
            row["instance_id"], row["user_id"], row["difficulty"]
        ));
    }
    let file = h.write("difficulty.csv", long);
    let direct = h.json(&[
        "agreement",
        "--ratings",
        &file,
        "--level",
        "ordinal",
        "--categories",
        "<15 min fix,15 min - 1 hour,1-4 hours,>4 hours",
        "--json",
    ]);
    assert_eq!(
        difficulty["report"]["krippendorff_alpha"],
        direct["krippendorff_alpha"]
    );
    assert_eq!(
        difficulty["report"]["percent_agreement"],
        direct["percent_agreement"]
    );

    let one = h.json(&["agreement", "--question", "other_major_issues", "--json"]);
    assert_eq!(one["questions"].as_array().unwrap().len(), 1);
    assert!(
        h.fails(&["agreement", "--question", "difficulty_notes"])
            .contains("free text")
    );
}

#[test]
fn disagreements_come_worst_first_and_an_adjudication_overrides_the_ensemble() {
    let h = with_annotations();
    let list = h.json(&["disagreements", "--json"]);
    let first = &list[0];
    assert_eq!(
        (
            first["instance_id"].clone(),
            first["question"].clone(),
            first["spread"].clone()
        ),
        (
            json!("astropy__astropy-12825"),
            json!("difficulty"),
            json!(3)
        ),
        "all three difficulty buckets differ by three steps: the worst"
    );
    let spreads: Vec<u64> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["spread"].as_u64().unwrap())
        .collect();
    assert!(spreads.windows(2).all(|w| w[0] >= w[1]), "{spreads:?}");

    let err = h.fails(&[
        "adjudicate",
        "--case",
        "astropy__astropy-12825",
        "--question",
        "difficulty",
        "--value",
        "a week",
        "--rationale",
        "x",
        "--by",
        "lead",
    ]);
    assert!(err.contains("not an option"), "{err}");
    let decide = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut args = vec![
            "adjudicate",
            "--case",
            "astropy__astropy-12825",
            "--question",
            "difficulty",
            "--value",
            ">4 hours",
            "--rationale",
            "The fix spans the reader and the masking layer.",
            "--by",
            "lead",
        ];
        args.extend_from_slice(extra);
        args
    };
    let err = h.fails(&decide(&[]));
    assert!(
        err.contains("\"lead\" may not adjudicate") && err.contains("adjudicators add"),
        "only the coordinator or a named adjudicator decides: {err}"
    );
    h.ok(&["adjudicators", "add", "lead"]);
    let view = h.json(&decide(&["--json"]));
    assert_eq!(view["value"], ">4 hours");
    let report = h.json(&["ensemble", "--json"]);
    let case = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["instance_id"] == "astropy__astropy-12825")
        .unwrap();
    let label = case["labels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["question"] == "difficulty")
        .unwrap();
    assert_eq!(
        (
            label["value"].clone(),
            label["procedure"].clone(),
            label["decided_by"].clone()
        ),
        (json!(">4 hours"), json!("adjudicated"), json!(["lead"]))
    );
    let rows = csv_rows(&h.export("openai-ensembled", &[]));
    let row = rows
        .iter()
        .find(|r| r["instance_id"] == "astropy__astropy-12825")
        .unwrap();
    assert_eq!(row["difficulty_decided_by"], "[\"lead\"]");
    assert_eq!(row["difficulty_ensemble_decision_procedure"], "adjudicated");
    let list = h.json(&["disagreements", "--json"]);
    assert_eq!(list[0]["adjudication"]["by"], "lead");
    // A scale value is a number.
    h.ok(&[
        "adjudicate",
        "--case",
        "astropy__astropy-11693",
        "--question",
        "false_negative",
        "--value",
        "2",
        "--rationale",
        "The test checks the documented behaviour only.",
        "--by",
        "lead",
    ]);
    let rows = csv_rows(&h.export("openai-ensembled", &[]));
    let row = rows
        .iter()
        .find(|r| r["instance_id"] == "astropy__astropy-11693")
        .unwrap();
    assert_eq!(row["false_negative"], "2.0");
    assert_eq!(
        row["false_negative_notes"],
        "The test checks the documented behaviour only."
    );
}

#[test]
fn majority_and_median_rules_and_the_kept_count() {
    let h = with_annotations();
    let report = h.json(&["ensemble", "--json"]);
    assert_eq!(report["rule"], "max-severity");
    assert_eq!(
        (report["kept"].clone(), report["filtered_out"].clone()),
        (json!(0), json!(4))
    );
    let majority = h.json(&["ensemble", "--rule", "majority", "--json"]);
    let case = &majority["cases"][2];
    assert_eq!(case["instance_id"], "astropy__astropy-12825");
    let difficulty = case["labels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["question"] == "difficulty")
        .unwrap();
    assert_eq!(difficulty["value"], Value::Null);
    assert!(
        difficulty["reason"]
            .as_str()
            .unwrap()
            .contains("no majority")
    );
    let median = h.json(&["ensemble", "--rule", "median", "--json"]);
    assert_eq!(median["rule"], "median");
    assert!(
        h.fails(&["ensemble", "--rule", "mode"])
            .contains("not an ensemble rule")
    );
}

#[test]
fn case_exports_have_one_row_per_case_with_labels_answers_and_agreement() {
    let h = with_annotations();
    let rows = csv_rows(&h.export("csv", &[]));
    assert_eq!(rows.len(), 4);
    let row = &rows[0];
    assert_eq!(row["instance_id"], "astropy__astropy-11693");
    assert_eq!(row["raters"], "17;72;69");
    assert_eq!(row["false_negative"], "3");
    assert_eq!(row["false_negative_decided_by"], "72");
    assert_eq!(row["difficulty_agreement"], "1.0000");
    assert_eq!(row["rater_2"], "72");
    assert_eq!(row["rater_2_false_negative"], "3");
    assert_eq!(row["filter_out"], "true");

    let lines: Vec<Value> = h
        .export("jsonl", &[])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[0]["ensemble"]["false_negative"]["decided_by"],
        json!(["72"])
    );
    assert_eq!(lines[0]["answers"]["69"]["false_negative"], 1);
    let agreement = lines[0]["agreement"]["underspecified"].as_f64().unwrap();
    assert!((agreement - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn the_report_writes_markdown_and_svg_charts() {
    let h = with_annotations();
    let dir = h.path("report");
    let out = h.ok(&[
        "report",
        "--out",
        dir.to_str().unwrap(),
        "--bootstrap",
        "100",
    ]);
    assert!(out.contains("0 cases kept, 4 filtered out"), "{out}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("| 0 | 4 | 0 |"), "kept count: {md}");
    assert!(md.contains("100 resamples, seed 0"));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(&path).unwrap();
            assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
            assert!(!svg.contains("NaN"), "{}", path.display());
            let name = path.file_name().unwrap().to_str().unwrap();
            assert!(md.contains(&format!("]({name})")), "{name} is referenced");
        }
    }
    assert!(dir.join("difficulty-pairs.svg").is_file());
}

#[test]
fn the_released_ensembled_file_round_trips_and_its_filter_is_our_rule() {
    let Some(data) = shared_data() else {
        return;
    };
    let file = data.join("openai-verified/ensembled_annotations_public.csv");
    let h = Harness::new();
    let report = h.json(&["import", "--json", file.to_str().unwrap()]);
    assert_eq!(report["paths"][0]["records"], 1699);
    let exported = h.export("openai-ensembled", &["--reference"]);
    let original = std::fs::read_to_string(&file).unwrap();
    let (ours, theirs) = (csv_rows(&exported), csv_rows(&original));
    assert_eq!(ours.len(), 1699);
    assert_eq!(ours, theirs, "every row, `1.0` and `True` as published");
    assert_eq!(exported, original, "byte for byte");
    let number = |row: &BTreeMap<String, String>, column: &str| -> u8 {
        row[column].parse::<f64>().unwrap() as u8
    };
    let mut counts = (0, 0);
    for row in &theirs {
        let ours = verity_stats::ensemble::filter_out(
            number(row, "underspecified"),
            number(row, "false_negative"),
            number(row, "other_major_issues"),
        );
        assert_eq!(ours, row["filter_out"] == "True", "{}", row["instance_id"]);
        if ours {
            counts.0 += 1;
        } else {
            counts.1 += 1;
        }
    }
    assert_eq!(counts, (1160, 539));
    // The reference set is compared with the panel once the panel has labels.
    let result = h.json(&["agreement", "--json"]);
    assert_eq!(result["cases"], 0);
}
