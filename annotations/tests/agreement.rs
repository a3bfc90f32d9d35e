//! Agreement statistics against the reference libraries and the published examples, their
//! invariants, the ratings CSV reader and the ensemble rules on the released Verified data.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use annotations::import::ratings_csv::{RatingsError, read_ratings};
use serde_json::Value;
use verity_stats::agreement::{
    self, AgreementError, BootstrapOptions, Category, Coefficient, Level, Method, RatingTable,
    ReportOptions, Weights,
};
use verity_stats::ensemble::{self, Procedure};

const TOLERANCE: f64 = 1e-9;

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agreement")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn table_of(ds: &Value) -> RatingTable {
    let level: Level = ds["level"].as_str().unwrap().parse().unwrap();
    let labels = verity_testkit::strings(&ds["categories"]);
    let categories: Vec<Category> = match ds["values"].as_array() {
        Some(values) => labels
            .iter()
            .zip(values)
            .map(|(l, v)| Category::labelled_number(l.clone(), v.as_f64().unwrap()))
            .collect(),
        None => labels.iter().map(|l| Category::label(l.clone())).collect(),
    };
    let raters = verity_testkit::strings(&ds["raters"]);
    let matrix = ds["matrix"].as_array().unwrap();
    let units: Vec<String> = (0..matrix.len()).map(|u| format!("u{u}")).collect();
    let cells: Vec<Option<u32>> = matrix
        .iter()
        .flat_map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().map(|x| x as u32))
        })
        .collect();
    RatingTable::new(units, raters, categories, level, cells).unwrap()
}

/// Checks one coefficient: equal to the library's value within 1e-9, or undefined with a
/// reason where the library gave NaN or refused the data.
fn check(
    dataset: &str,
    key: &str,
    got: &Coefficient,
    expected: &Value,
    failures: &mut Vec<String>,
) {
    match (expected.as_f64(), got.value()) {
        (None, None) => {
            if got.reason().is_none_or(str::is_empty) {
                failures.push(format!("{dataset} {key}: undefined without a reason"));
            }
        }
        (Some(e), Some(g)) if (e - g).abs() <= TOLERANCE => {}
        (e, _) => failures.push(format!(
            "{dataset} {key}: expected {e:?}, got {:?} ({:?})",
            got.value(),
            got.reason()
        )),
    }
}

fn check_dataset(ds: &Value, failures: &mut Vec<String>) -> usize {
    let name = ds["name"].as_str().unwrap();
    let t = table_of(ds);
    let e = &ds["expected"];
    let mut checked = 0;
    let mut run = |key: &str, got: Coefficient, expected: &Value| {
        check(name, key, &got, expected, failures);
        checked += 1;
    };
    run(
        "percent_agreement",
        agreement::percent_agreement(&t),
        &e["percent_agreement"],
    );
    run(
        "fleiss_kappa",
        agreement::fleiss_kappa(&t),
        &e["fleiss_kappa"],
    );
    run(
        "fleiss_kappa_all_units",
        agreement::fleiss_kappa_all_units(&t),
        &e["fleiss_kappa_all_units"],
    );
    run("gwet_ac1", agreement::gwet_ac1(&t), &e["gwet_ac1"]);
    run(
        "gwet_ac2.linear",
        agreement::gwet_ac2(&t, Weights::Linear),
        &e["gwet_ac2"]["linear"],
    );
    run(
        "gwet_ac2.quadratic",
        agreement::gwet_ac2(&t, Weights::Quadratic),
        &e["gwet_ac2"]["quadratic"],
    );
    for (metric, expected) in e["krippendorff_alpha"].as_object().unwrap() {
        let level: Level = metric.parse().unwrap();
        run(
            &format!("krippendorff_alpha.{metric}"),
            agreement::krippendorff_alpha(&t, level),
            expected,
        );
    }
    let r = t.raters().len();
    for a in 0..r {
        for b in (a + 1)..r {
            let key = format!("{}|{}", t.raters()[a], t.raters()[b]);
            for w in [Weights::Unweighted, Weights::Linear, Weights::Quadratic] {
                let got = agreement::cohen_kappa(&t, a, b, w).unwrap();
                run(
                    &format!("cohen_kappa.{key}.{}", w.name()),
                    got,
                    &e["cohen_kappa"][&key][w.name()],
                );
            }
        }
    }
    checked
}

#[test]
fn every_coefficient_matches_the_reference_libraries_on_random_and_degenerate_data() {
    let doc = fixture("reference.json");
    let mut failures = Vec::new();
    let mut checked = 0;
    for ds in doc["datasets"].as_array().unwrap() {
        checked += check_dataset(ds, &mut failures);
    }
    assert!(
        checked > 300,
        "the fixture holds hundreds of values, found {checked}"
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} values differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn published_examples_give_the_published_values() {
    let doc = fixture("published.json");
    let mut failures = Vec::new();
    for ds in doc["datasets"].as_array().unwrap() {
        check_dataset(ds, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    let find = |name: &str| {
        let ds = doc["datasets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == name)
            .unwrap();
        table_of(ds)
    };
    let round3 = |x: Option<f64>| (x.unwrap() * 1000.0).round() / 1000.0;
    // Krippendorff (2011), 4 observers × 12 units with missing values.
    let k = find("krippendorff-2011");
    for (level, published) in [
        (Level::Nominal, 0.743),
        (Level::Ordinal, 0.815),
        (Level::Interval, 0.849),
        (Level::Ratio, 0.797),
    ] {
        assert_eq!(
            round3(agreement::krippendorff_alpha(&k, level).value()),
            published,
            "{level} alpha"
        );
    }
    assert_eq!(
        agreement::krippendorff_alpha(&k, Level::Nominal).units,
        11,
        "unit 12 has one value"
    );
    // Fleiss (1971): 30 patients, 6 psychiatrists.
    assert_eq!(
        round3(agreement::fleiss_kappa(&find("fleiss-1971")).value()),
        0.430
    );
    // Wikipedia's Fleiss example: 10 subjects, 14 raters.
    assert_eq!(
        round3(agreement::fleiss_kappa(&find("wikipedia-fleiss")).value()),
        0.210
    );
    // Wikipedia's Cohen example: 50 proposals.
    let c = agreement::cohen_kappa(&find("wikipedia-cohen"), 0, 1, Weights::Unweighted).unwrap();
    assert_eq!((round3(c.value()), c.units), (0.4, 50));
}

fn small_table(level: Level, cells: Vec<Option<u32>>, raters: usize) -> RatingTable {
    let units = cells.len() / raters;
    RatingTable::new(
        (0..units).map(|u| format!("u{u}")).collect(),
        (0..raters).map(|r| format!("r{r}")).collect(),
        (0..4).map(|v| Category::number(v as f64)).collect(),
        level,
        cells,
    )
    .unwrap()
}

#[test]
fn perfect_agreement_is_one_wherever_the_coefficient_is_defined() {
    let cells = vec![
        Some(0),
        Some(0),
        Some(0),
        Some(3),
        Some(3),
        None,
        Some(1),
        Some(1),
        Some(1),
        Some(2),
        None,
        Some(2),
    ];
    let t = small_table(Level::Ratio, cells, 3);
    let report = agreement::compute_report(&t, &ReportOptions::default()).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    let mut values = Vec::new();
    collect_numbers(&json, "", &mut values);
    let coefficients: Vec<_> = values
        .iter()
        .filter(|(k, _)| !k.ends_with(".units") && !matches!(k.as_str(), ".units" | ".ratings"))
        .collect();
    assert!(coefficients.len() >= 15, "{coefficients:?}");
    for (key, v) in coefficients {
        assert!(
            (v - 1.0).abs() < 1e-12,
            "{key} is {v}, but perfect agreement must give 1"
        );
    }
}

fn collect_numbers(v: &Value, path: &str, out: &mut Vec<(String, f64)>) {
    match v {
        Value::Number(n) => out.push((path.to_owned(), n.as_f64().unwrap())),
        Value::Object(m) => m
            .iter()
            .for_each(|(k, v)| collect_numbers(v, &format!("{path}.{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, v)| collect_numbers(v, &format!("{path}[{i}]"), out)),
        _ => {}
    }
}

#[test]
fn swapping_raters_changes_nothing() {
    let doc = fixture("reference.json");
    for ds in doc["datasets"].as_array().unwrap() {
        let t = table_of(ds);
        let r = t.raters().len();
        // Reverse the rater columns; names travel with their ratings.
        let cells: Vec<Option<u32>> = (0..t.units().len())
            .flat_map(|u| (0..r).rev().map(move |j| (u, j)))
            .map(|(u, j)| t.rating(u, j))
            .collect();
        let reversed = RatingTable::new(
            t.units().to_vec(),
            t.raters().iter().rev().cloned().collect(),
            t.categories().to_vec(),
            t.level(),
            cells,
        )
        .unwrap();
        let options = ReportOptions {
            bootstrap: Some(BootstrapOptions {
                resamples: 50,
                seed: 3,
                confidence: 0.95,
            }),
        };
        let a = serde_json::to_value(agreement::compute_report(&t, &options).unwrap()).unwrap();
        let b =
            serde_json::to_value(agreement::compute_report(&reversed, &options).unwrap()).unwrap();
        let (mut xa, mut xb) = (Vec::new(), Vec::new());
        collect_numbers(&a, "", &mut xa);
        collect_numbers(&b, "", &mut xb);
        assert_eq!(xa.len(), xb.len(), "{}", ds["name"]);
        for ((ka, va), (kb, vb)) in xa.iter().zip(&xb) {
            assert_eq!(ka, kb);
            assert!(
                (va - vb).abs() < 1e-12,
                "{}: {ka} is {va} before and {vb} after swapping raters",
                ds["name"]
            );
        }
        assert_eq!(a["reasons"], b["reasons"], "{}", ds["name"]);
    }
}

#[test]
fn the_report_has_the_cli_json_shape() {
    let ds = &fixture("reference.json")["datasets"][2];
    let t = table_of(ds);
    let options = ReportOptions {
        bootstrap: Some(BootstrapOptions {
            resamples: 200,
            seed: 42,
            confidence: 0.95,
        }),
    };
    let report = agreement::compute_report(&t, &options).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    verity_testkit::assert_keys(&json, &verity_testkit::AGREEMENT_KEYS, "the report");
    verity_testkit::assert_keys(&json, &["ci95"], "the report");
    assert_eq!(json["level"], "interval");
    assert_eq!(json["raters"], serde_json::json!(["r0", "r1", "r2", "r3"]));
    assert_eq!(
        verity_testkit::keys(&json["krippendorff_alpha"]),
        ["interval", "nominal", "ordinal"],
        "interval data gets the metrics that apply"
    );
    let text = serde_json::to_string(&report).unwrap();
    let at = |k: &str| text.find(&format!("\"{k}\":")).unwrap();
    assert!(
        at("nominal") < at("ordinal") && at("ordinal") < at("interval"),
        "alpha keys follow the level order"
    );
    assert!(json["cohen_kappa"]["r0|r3"]["quadratic"].is_number());
    assert!(json["fleiss_kappa"]["value"].is_number() && json["fleiss_kappa"]["units"].is_number());
    assert!(json["gwet_ac2"]["linear"].is_number());
    let ci = &json["ci95"];
    let [lo, hi] = [
        ci["krippendorff_alpha"]["interval"][0].as_f64().unwrap(),
        ci["krippendorff_alpha"]["interval"][1].as_f64().unwrap(),
    ];
    let point = json["krippendorff_alpha"]["interval"].as_f64().unwrap();
    assert!(
        lo < point && point < hi,
        "the interval [{lo}, {hi}] holds the estimate {point}"
    );
    assert!(ci["cohen_kappa"]["r1|r2"]["linear"].is_array());
    // The same seed reproduces the intervals.
    let again = serde_json::to_value(agreement::compute_report(&t, &options).unwrap()).unwrap();
    assert_eq!(json, again);
    let rendered = agreement::render_text(&report);
    assert!(
        rendered.contains("Krippendorff's alpha, interval"),
        "{rendered}"
    );

    // Nominal data: nominal alpha only; weighted coefficients null with a reason.
    let nominal = table_of(&fixture("published.json")["datasets"][1]);
    let json = serde_json::to_value(
        agreement::compute_report(&nominal, &ReportOptions::default()).unwrap(),
    )
    .unwrap();
    assert_eq!(
        verity_testkit::keys(&json["krippendorff_alpha"]),
        ["nominal"]
    );
    assert!(json["gwet_ac2"]["linear"].is_null());
    assert!(
        json["reasons"]["gwet_ac2.linear"]
            .as_str()
            .unwrap()
            .contains("nominal")
    );
    assert!(json["reasons"]["cohen_kappa.r0|r1.quadratic"].is_string());
    assert!(
        json.get("ci95").is_none(),
        "no intervals without bootstrapping"
    );
}

/// The JSON report, with the default options, on the reference dataset named `name`.
fn default_report_on(name: &str) -> Value {
    let reference = fixture("reference.json");
    let dataset = reference["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .unwrap();
    let report = agreement::compute_report(&table_of(dataset), &ReportOptions::default());
    serde_json::to_value(report.unwrap()).unwrap()
}

#[test]
fn undefined_values_are_null_with_a_reason() {
    let json = default_report_on("no-pairable-unit");
    assert!(json["percent_agreement"].is_null());
    for (key, reason) in [
        (
            "percent_agreement",
            "no unit has ratings from two or more raters",
        ),
        (
            "krippendorff_alpha.ordinal",
            "no unit has ratings from two or more raters",
        ),
        ("fleiss_kappa", "no unit was rated by all 2 raters"),
        (
            "cohen_kappa.r0|r1.unweighted",
            "the two raters rated no unit in common",
        ),
    ] {
        assert_eq!(json["reasons"][key], reason, "{key}");
    }
    let json = default_report_on("one-category-used");
    for (key, reason) in [
        (
            "krippendorff_alpha.nominal",
            "every pairable rating has the same value, so the expected disagreement is zero",
        ),
        (
            "fleiss_kappa",
            "every rating on the completely rated units is the same category, so chance agreement is 1",
        ),
        (
            "fleiss_kappa_all_units",
            "every rating is the same category, so chance agreement is 1",
        ),
    ] {
        assert_eq!(json["reasons"][key], reason, "{key}");
    }
    assert!(
        json["reasons"]["cohen_kappa.r0|r1.unweighted"]
            .as_str()
            .unwrap()
            .starts_with("chance disagreement")
    );
}

#[test]
fn the_confusion_matrix_and_pair_matrix_agree_with_kappa() {
    let t = table_of(&fixture("published.json")["datasets"][3]);
    let m = agreement::confusion_matrix(&t, 0, 1).unwrap();
    assert_eq!(m.categories, ["no", "yes"]);
    assert_eq!(m.counts, vec![vec![15, 10], vec![5, 20]]);
    assert_eq!(m.units, 50);
    let pairs = agreement::cohen_kappa_matrix(&t, Weights::Unweighted);
    assert!(pairs.kappa[0][0].is_none());
    let k = pairs.kappa[1][0].as_ref().unwrap().value().unwrap();
    assert!((k - 0.4).abs() < 1e-12);
}

#[test]
fn bootstrap_is_seeded_and_refuses_bad_options() {
    let t = table_of(&fixture("reference.json")["datasets"][9]);
    let opts = BootstrapOptions {
        resamples: 300,
        seed: 9,
        confidence: 0.9,
    };
    let method = Method::KrippendorffAlpha(Level::Ordinal);
    let a = agreement::bootstrap_ci(&t, method, None, &opts)
        .unwrap()
        .unwrap();
    let b = agreement::bootstrap_ci(&t, method, None, &opts)
        .unwrap()
        .unwrap();
    assert_eq!(a, b, "the same seed gives the same interval");
    let c = agreement::bootstrap_ci(&t, method, None, &BootstrapOptions { seed: 10, ..opts })
        .unwrap()
        .unwrap();
    assert_ne!(a, c, "another seed gives another interval");
    assert_eq!(a.defined, 300);
    let point = agreement::krippendorff_alpha(&t, Level::Ordinal)
        .value()
        .unwrap();
    assert!(a.low < point && point < a.high);

    let err = agreement::bootstrap_ci(
        &t,
        method,
        None,
        &BootstrapOptions {
            resamples: 0,
            ..opts
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the bootstrap needs at least one resample, but 0 were asked for"
    );
    let err = agreement::bootstrap_ci(
        &t,
        method,
        None,
        &BootstrapOptions {
            confidence: 1.0,
            ..opts
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the confidence level must lie strictly between 0 and 1, but 1 was given"
    );
    let err =
        agreement::bootstrap_ci(&t, Method::CohenKappa(Weights::Linear), None, &opts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Cohen's kappa is computed for a rater pair, and no pair was given"
    );
    let ci = agreement::bootstrap_ci(&t, Method::CohenKappa(Weights::Linear), Some((0, 4)), &opts)
        .unwrap();
    assert!(ci.is_ok());
}

#[test]
fn pair_statistics_refuse_bad_rater_indices() {
    let t = small_table(Level::Ordinal, vec![Some(0), Some(1)], 2);
    let err = agreement::cohen_kappa(&t, 0, 5, Weights::Unweighted).unwrap_err();
    assert_eq!(
        err.to_string(),
        "rater index 5 is outside the table, which has 2 raters"
    );
    let err = agreement::confusion_matrix(&t, 1, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "rater index 1 was given twice; a rater pair needs two different raters"
    );
    let err = "cardinal".parse::<Level>().unwrap_err();
    assert_eq!(
        err,
        AgreementError::UnknownLevel {
            given: "cardinal".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "'cardinal' is not a level of measurement; use nominal, ordinal, interval or ratio"
    );
}

// ---- ratings CSV ----

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A ratings file's text, the level and the categories it is read with, and the error expected.
type ReadErrorCase = (
    &'static str,
    Option<Level>,
    Option<&'static [&'static str]>,
    &'static str,
);

fn read_err(text: &str, level: Option<Level>, categories: Option<&[&str]>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "r.csv", text);
    let err: RatingsError = read_ratings(
        &path,
        level,
        categories.map(|c| c.iter().map(|s| s.to_string()).collect()),
    )
    .unwrap_err();
    err.to_string().replace(&path.display().to_string(), "FILE")
}

#[test]
fn a_ratings_file_reads_into_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "r.csv",
        "\u{feff}unit,rater,value\nt1,bob,2\nt1,ann,10\nt2,ann,2.0\n\nt2,cy,1\n\"t,3\",bob,1\n",
    );
    let t = read_ratings(&path, None, None).unwrap();
    assert_eq!(
        t.raters(),
        ["ann", "bob", "cy"],
        "raters are sorted by name"
    );
    assert_eq!(t.units(), ["t1", "t2", "t,3"], "units keep file order");
    assert_eq!(t.level(), Level::Ordinal, "numbers default to ordinal");
    let labels: Vec<&str> = t.categories().iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        labels,
        ["1", "2", "10"],
        "numbers are ordered numerically, 2 and 2.0 are one value"
    );
    assert_eq!(t.rating(0, 0), Some(2));
    assert_eq!(t.rating(1, 0), Some(1));
    assert_eq!(t.rating(1, 1), None);
    assert_eq!(t.ratings_count(), 5);

    let path = write(&dir, "s.csv", "unit,rater,value\na,x,yes\na,y,no\nb,x,no\n");
    let t = read_ratings(&path, None, None).unwrap();
    assert_eq!(t.level(), Level::Nominal, "labels default to nominal");
    assert_eq!(
        t.categories()
            .iter()
            .map(|c| c.label.as_str())
            .collect::<Vec<_>>(),
        ["no", "yes"]
    );

    let scale = ["<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours"]
        .map(String::from)
        .to_vec();
    let path = write(
        &dir,
        "d.csv",
        "unit,rater,value\na,x,1-4 hours\na,y,<15 min fix\n",
    );
    let t = read_ratings(&path, None, Some(scale)).unwrap();
    assert_eq!(t.level(), Level::Ordinal);
    assert_eq!(
        (t.rating(0, 0), t.rating(0, 1)),
        (Some(2), Some(0)),
        "categories keep the declared order"
    );

    let path = write(&dir, "n.csv", "unit,rater,value\na,x,1.0\na,y,3\n");
    let t = read_ratings(
        &path,
        Some(Level::Interval),
        Some(vec!["0".into(), "1".into(), "2".into(), "3".into()]),
    )
    .unwrap();
    assert_eq!(
        (t.rating(0, 0), t.rating(0, 1)),
        (Some(1), Some(3)),
        "1.0 matches the declared 1"
    );
}

/// Exports of a wide table write a missing rating as an empty cell; it was refused, and must
/// not become a category "" either. Expected values: the `krippendorff` package 0.9.0 on the
/// same data with NaN for the empty cells (`krippendorff.alpha(reliability_data=[[1, 2, 3, 1,
/// nan], [1, 2, nan, 2, 3], [nan, 3, 3, 1, 3]], level_of_measurement=...)`). By hand, nominal:
/// 12 pairable values, o11 = 3, o22 = 1, o33 = 4, o12 = o21 = o23 = o32 = 1, n = (4, 3, 5), so
/// alpha = 1 - (4/12) / (2 * (12 + 15 + 20) / 132) = 25/47.
#[test]
fn an_empty_value_cell_is_a_missing_rating() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "u1,a,1\nu1,b,1\nu1,c,\nu2,a,2\nu2,b,2\nu2,c,3\nu3,a,3\nu3,b, \nu3,c,3\n\
                u4,a,1\nu4,b,2\nu4,c,1\nu5,a,\nu5,b,3\nu5,c,3\n";
    let path = write(&dir, "r.csv", &format!("unit,rater,value\n{rows}"));
    let t = read_ratings(&path, None, None).unwrap();
    assert_eq!(
        t.ratings_count(),
        12,
        "three empty cells are three missing ratings"
    );
    let labels: Vec<&str> = t.categories().iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["1", "2", "3"], "an empty cell is no category");
    assert_eq!(t.rating(0, 2), None);
    for (level, expected) in [
        (Level::Nominal, 0.5319148936170213),
        (Level::Ordinal, 0.7944775132275133),
        (Level::Interval, 0.794392523364486),
    ] {
        let got = agreement::krippendorff_alpha(&t, level).value().unwrap();
        assert!(
            (got - expected).abs() < 1e-12,
            "{level:?}: {got} vs {expected}"
        );
    }
    assert!(
        (agreement::krippendorff_alpha(&t, Level::Nominal)
            .value()
            .unwrap()
            - 25.0 / 47.0)
            .abs()
            < 1e-12
    );
    let without: String = rows
        .lines()
        .filter(|l| !l.trim_end().ends_with(','))
        .map(|l| format!("{l}\n"))
        .collect();
    let path = write(&dir, "s.csv", &format!("unit,rater,value\n{without}"));
    let absent = read_ratings(&path, None, None).unwrap();
    assert_eq!(
        agreement::krippendorff_alpha(&absent, Level::Ordinal).value(),
        agreement::krippendorff_alpha(&t, Level::Ordinal).value(),
        "an empty cell reads as a row left out"
    );
}

#[test]
fn each_ratings_file_error_names_the_file_and_line() {
    let plain = [
        (
            "",
            "FILE is empty; a ratings file starts with the header `unit,rater,value` and has one row per rating",
        ),
        (
            "task,annotator,score\n",
            "FILE, line 1: the header is `task,annotator,score`, but a ratings file's header must be `unit,rater,value`",
        ),
        ("unit,rater,value\n", "FILE has a header but no ratings"),
        (
            "unit,rater,value\na,x,1\na,y\n",
            "FILE, line 3: expected 3 fields (unit,rater,value), found 2",
        ),
        (
            "unit,rater,value\na,,1\n",
            "FILE, line 2: the rater is empty; every rating names its unit and its rater",
        ),
        (
            "unit,rater,value\n,x,\n",
            "FILE, line 2: the unit is empty; every rating names its unit and its rater",
        ),
        (
            "unit,rater,value\na,x,\n",
            "FILE has a header but no ratings",
        ),
        (
            "unit,rater,value\na,x,1\nb,x,2\na,x,2\n",
            "FILE, line 4: rater 'x' already rated unit 'a' on line 2; a rater gives each unit one rating",
        ),
    ];
    for (text, expected) in plain {
        assert_eq!(read_err(text, None, None), expected, "{text:?}");
    }
    let with_options: [ReadErrorCase; 6] = [
        (
            "unit,rater,value\na,x,low\na,y,huge\n",
            None,
            Some(&["low", "high"]),
            "FILE, line 3: value 'huge' is not one of the declared categories (low, high)",
        ),
        (
            "unit,rater,value\na,x,1\na,y,two\n",
            Some(Level::Interval),
            None,
            "FILE, line 3: value 'two' is not a number, but the interval level needs numbers",
        ),
        (
            "unit,rater,value\na,x,1\na,y,two\n",
            Some(Level::Ordinal),
            None,
            "FILE, line 3: value 'two' is not a number, so the ordinal level needs --categories to give the order of the values",
        ),
        (
            "unit,rater,value\na,x,1\na,y,-2\n",
            Some(Level::Ratio),
            None,
            "FILE, line 3: value '-2' is negative, but the ratio level needs values of zero or more",
        ),
        (
            "unit,rater,value\na,x,1\n",
            Some(Level::Interval),
            Some(&["1", "lots"]),
            "declared category 'lots' is not a number, but the interval level needs numbers (reading FILE)",
        ),
        (
            "unit,rater,value\na,x,1\n",
            None,
            Some(&["1", "1"]),
            "category '1' is declared twice (reading FILE)",
        ),
    ];
    for (text, level, categories, expected) in with_options {
        assert_eq!(read_err(text, level, categories), expected, "{text:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent.csv");
    let err = read_ratings(&missing, None, None).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "could not read ratings file {}: ",
            missing.display()
        )),
        "{err}"
    );
}

#[test]
fn a_non_utf8_field_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    std::fs::write(&path, b"unit,rater,value\na,x\xff,1\n").unwrap();
    let err = read_ratings(&path, None, None).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}, line 2: the rater is not valid UTF-8 text",
            path.display()
        )
    );
}

// ---- ensemble rules on the released SWE-bench Verified annotations ----

#[test]
fn the_filter_rule_reproduces_every_released_verified_row() {
    let Some(data) = verity_testkit::shared_data() else {
        return;
    };
    let path = data.join("openai-verified/ensembled_annotations_public.csv");
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (us, fnc, omi, fo) = (
        col("underspecified"),
        col("false_negative"),
        col("other_major_issues"),
        col("filter_out"),
    );
    let (by, proc_) = (
        col("difficulty_decided_by"),
        col("difficulty_ensemble_decision_procedure"),
    );
    let score = |s: &str| s.parse::<f64>().unwrap() as u8;
    let (mut kept, mut dropped) = (0, 0);
    for (i, row) in reader.records().enumerate() {
        let row = row.unwrap();
        let expected = &row[fo] == "True";
        let got = ensemble::filter_out(score(&row[us]), score(&row[fnc]), score(&row[omi]));
        assert_eq!(got, expected, "row {} ({})", i + 2, &row[0]);
        if got {
            dropped += 1;
        } else {
            kept += 1;
        }
        // The procedure names are ours, and who decided follows our conventions: the median
        // of three different answers is one rater, a majority of three is two or three.
        let deciders: Vec<u64> = serde_json::from_str(&row[by]).unwrap();
        match &row[proc_] {
            p if p == Procedure::Majority.name() => assert!(deciders.len() >= 2, "row {}", i + 2),
            p if p == Procedure::Median.name() => assert_eq!(deciders.len(), 1, "row {}", i + 2),
            other => panic!("row {}: unknown procedure {other}", i + 2),
        }
    }
    assert_eq!((dropped, kept), (1160, 539));
}

/// A defined value within 1e-9 of the reference's, or undefined where the reference is null.
fn same(ours: &Result<f64, agreement::Undefined>, theirs: &Value, what: &str) -> Option<String> {
    match (ours, theirs.as_f64()) {
        (Ok(a), Some(b)) if (a - b).abs() <= TOLERANCE => None,
        (Err(_), None) => None,
        (ours, theirs) => Some(format!("{what}: ours {ours:?}, reference {theirs:?}")),
    }
}

#[test]
fn rater_quality_matches_scikit_learn_numpy_and_krippendorff() {
    use agreement::quality::{against_reference, leave_one_out};
    let doc = fixture("quality_reference.json");
    let mut failures = Vec::new();
    let mut checked = 0;
    for panel in doc["panels"].as_array().unwrap() {
        let name = panel["name"].as_str().unwrap();
        let table = table_of(panel);
        let reference: Vec<u32> = panel["reference"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        let options = BootstrapOptions {
            resamples: 5_000,
            seed: 7,
            confidence: 0.95,
        };
        let loo = leave_one_out(&table).unwrap();
        failures.extend(same(&loo.alpha, &panel["alpha"], &format!("{name}: alpha")));
        for (r, expected) in panel["per_rater"].as_array().unwrap().iter().enumerate() {
            let who = format!("{name}, rater {}", r + 1);
            let pairs: Vec<(u32, u32)> = expected["order"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| {
                    let u = u.as_u64().unwrap() as usize;
                    (table.rating(u, r).unwrap(), reference[u])
                })
                .collect();
            let ours =
                against_reference(&pairs, table.categories(), table.level(), &options).unwrap();
            let blocks = std::iter::once((&ours.overall, &expected["overall"]))
                .chain(ours.drift.iter().zip(expected["drift"].as_array().unwrap()));
            for (i, (figures, theirs)) in blocks.enumerate() {
                let at = format!("{who}, block {i}");
                assert_eq!(
                    figures.units as u64,
                    theirs["units"].as_u64().unwrap(),
                    "{at}"
                );
                failures.extend(same(
                    &figures.accuracy,
                    &theirs["accuracy"],
                    &format!("{at}: accuracy"),
                ));
                failures.extend(same(
                    &figures.weighted_kappa,
                    &theirs["weighted_kappa"],
                    &format!("{at}: kappa"),
                ));
                failures.extend(same(
                    &figures.bias.mean,
                    &theirs["bias_mean"],
                    &format!("{at}: bias"),
                ));
                // numpy's bootstrap draws other resamples: the bounds agree to Monte Carlo
                // error, and a mean of n whole differences moves in steps of 1/n, so a bound
                // may sit one step away.
                let slack = 0.03_f64.max(1.0 / figures.units.max(1) as f64 + TOLERANCE);
                match (&figures.bias.ci95, theirs["bias_ci95"].as_array()) {
                    (Ok([low, high]), Some(b)) => {
                        let (l, h) = (b[0].as_f64().unwrap(), b[1].as_f64().unwrap());
                        if (low - l).abs() > slack || (high - h).abs() > slack {
                            failures.push(format!(
                                "{at}: interval ours [{low}, {high}], numpy [{l}, {h}]"
                            ));
                        }
                    }
                    (Err(_), None) => {}
                    (ours, theirs) => {
                        failures.push(format!("{at}: interval ours {ours:?}, numpy {theirs:?}"))
                    }
                }
                checked += 1;
            }
            assert_eq!(
                ours.drift.len(),
                expected["drift"].as_array().unwrap().len(),
                "{who}"
            );
            let confusion: Vec<Vec<u64>> =
                serde_json::from_value(expected["confusion"].clone()).unwrap();
            assert_eq!(ours.confusion, confusion, "{who}");
            let mine = &loo.raters[r];
            assert_eq!(
                mine.shared_units as u64,
                expected["shared_units"].as_u64().unwrap(),
                "{who}"
            );
            failures.extend(same(
                &mine.alpha_without,
                &expected["alpha_without"],
                &format!("{who}: alpha without"),
            ));
            failures.extend(same(
                &mine.kappa_vs_consensus,
                &expected["kappa_vs_consensus"],
                &format!("{who}: kappa vs consensus"),
            ));
        }
    }
    assert!(checked > 60, "only {checked} blocks checked");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
