//! The alternative annotator test against the Python implementation of the paper's algorithm
//! (`bench/alt_test_reference.py`): per human the tasks, win shares, p-value and rejection, per
//! panel the tasks used, the winning rate, the advantage probability and the verdict, to 1e-9.
//!
//! The panels and expected values are committed in `annotations/tests/fixtures/agreement/
//! alt_test_reference.json` (regenerate with `python3 scripts/reference/alt_test_reference.py`);
//! `bench/alt_test.sh` points `VERITY_ALT_TEST_PANELS` at a larger generated set instead.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use serde_json::Value;
use verity_stats::agreement::alt_test::{AltTestOptions, alt_test};
use verity_stats::agreement::{BootstrapOptions, Category, Level, RatingTable};

const TOLERANCE: f64 = 1e-9;

fn panels() -> (PathBuf, Value) {
    let path = match std::env::var_os("VERITY_ALT_TEST_PANELS") {
        Some(p) => PathBuf::from(p),
        None => verity_testkit::fixture_path("agreement/alt_test_reference.json"),
    };
    let doc = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path, doc)
}

fn table_of(panel: &Value) -> RatingTable {
    let level: Level = panel["level"].as_str().unwrap().parse().unwrap();
    let labels = panel["categories"].as_array().unwrap();
    let categories: Vec<Category> = match panel["values"].as_array() {
        Some(values) => labels
            .iter()
            .zip(values)
            .map(|(l, v)| Category::labelled_number(l.as_str().unwrap(), v.as_f64().unwrap()))
            .collect(),
        None => labels
            .iter()
            .map(|l| Category::label(l.as_str().unwrap()))
            .collect(),
    };
    let raters = verity_testkit::strings(&panel["raters"]);
    let matrix = panel["matrix"].as_array().unwrap();
    let cells = matrix
        .iter()
        .flat_map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64().map(|c| c as u32))
        })
        .collect();
    RatingTable::new(
        (0..matrix.len()).map(|u| format!("task {u}")).collect(),
        raters,
        categories,
        level,
        cells,
    )
    .unwrap()
}

fn close(ours: f64, theirs: &Value) -> bool {
    theirs
        .as_f64()
        .is_some_and(|t| (ours - t).abs() <= TOLERANCE)
}

#[test]
fn the_alternative_annotator_test_matches_the_papers_algorithm_in_python() {
    let (path, doc) = panels();
    let mut failures = Vec::new();
    let (mut verdicts, mut refused, mut passed, mut left_out, mut p_values, mut undefined_p) =
        (0, 0, 0, 0, 0, 0);
    for panel in doc["panels"].as_array().unwrap() {
        let name = panel["name"].as_str().unwrap();
        let table = table_of(panel);
        let labels: Vec<Option<u32>> = panel["model"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().map(|c| c as u32))
            .collect();
        let options = AltTestOptions {
            epsilon: panel["epsilon"].as_f64().unwrap(),
            // The agreement figures are checked elsewhere; a few resamples keep this fast.
            bootstrap: BootstrapOptions {
                resamples: 10,
                seed: 1,
                confidence: 0.95,
            },
        };
        let ours = alt_test(&table, "model", &labels, &options).unwrap();
        let expected = &panel["expected"];
        if ours.n_cases as u64 != expected["n_cases"].as_u64().unwrap() {
            failures.push(format!("{name}: n_cases {}", ours.n_cases));
        }
        for (human, theirs) in ours
            .humans
            .iter()
            .zip(expected["humans"].as_array().unwrap())
        {
            let who = format!("{name}, {}", human.rater);
            if human.tasks as u64 != theirs["tasks"].as_u64().unwrap() {
                failures.push(format!("{who}: tasks {}", human.tasks));
            }
            match (&human.test, theirs["tested"].as_bool().unwrap()) {
                (Err(_), false) => left_out += 1,
                (Ok(test), true) => {
                    if !close(test.model_wins, &theirs["model_wins"])
                        || !close(test.human_wins, &theirs["human_wins"])
                    {
                        failures.push(format!("{who}: wins {test:?}"));
                    }
                    match (&test.p_value, theirs["p_value"].as_f64()) {
                        (Ok(p), Some(_)) if close(*p, &theirs["p_value"]) => p_values += 1,
                        (Err(_), None) => undefined_p += 1,
                        (p, _) => failures.push(format!("{who}: p-value {p:?}, {theirs}")),
                    }
                    if test.rejected != theirs["rejected"].as_bool().unwrap() {
                        failures.push(format!("{who}: rejected {}", test.rejected));
                    }
                }
                (test, _) => failures.push(format!("{who}: tested? {test:?}, {theirs}")),
            }
        }
        match (&ours.verdict, expected["verdict"].is_null()) {
            (Err(_), true) => refused += 1,
            (Ok(v), false) => {
                let theirs = &expected["verdict"];
                verdicts += 1;
                passed += usize::from(v.passed);
                if !close(v.winning_rate, &theirs["winning_rate"])
                    || !close(v.advantage_probability, &theirs["advantage_probability"])
                    || v.passed != theirs["passed"].as_bool().unwrap()
                    || v.humans_tested as u64 != theirs["humans_tested"].as_u64().unwrap()
                    || v.humans_won as u64 != theirs["humans_won"].as_u64().unwrap()
                {
                    failures.push(format!("{name}: verdict {v:?}, reference {theirs}"));
                }
            }
            (v, _) => failures.push(format!("{name}: verdict {v:?}, reference {expected}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences from {}:\n{}",
        failures.len(),
        path.display(),
        failures.join("\n")
    );
    // The panels exercise every branch: passes and failures, refusals, humans left out, and
    // zero-variance t-tests whose p-value is undefined.
    assert!(
        passed > 0 && passed < verdicts && refused > 0 && left_out > 0 && undefined_p > 0,
        "{verdicts} verdicts ({passed} passed), {refused} refused, {left_out} humans left out, {undefined_p} undefined p-values"
    );
    eprintln!(
        "alt-test: {verdicts} verdicts ({passed} passed), {refused} refused, {p_values} p-values and {undefined_p} undefined equal to the reference, {left_out} humans left out"
    );
}
