use super::*;
use crate::agreement::{Category, Weights};

/// `units` tasks on a 0-3 scale rated by `humans` humans who agree on `truth(u)`, except
/// that human `h` gives `(truth + 1) % 4` where `off(u, h)`.
fn panel(
    units: usize,
    humans: usize,
    level: Level,
    off: impl Fn(usize, usize) -> bool,
) -> RatingTable {
    let truth = |u: usize| (u % 4) as u32;
    RatingTable::new(
        (0..units).map(|u| format!("t{u}")).collect(),
        (0..humans).map(|h| format!("h{h}")).collect(),
        (0..4).map(|c| Category::number(f64::from(c))).collect(),
        level,
        (0..units)
            .flat_map(|u| (0..humans).map(move |h| (u, h)))
            .map(|(u, h)| {
                Some(if off(u, h) {
                    (truth(u) + 1) % 4
                } else {
                    truth(u)
                })
            })
            .collect(),
    )
    .expect("a well-formed table")
}

fn truth_labels(units: usize) -> Vec<Option<u32>> {
    (0..units).map(|u| Some((u % 4) as u32)).collect()
}

fn options() -> AltTestOptions {
    AltTestOptions {
        epsilon: DEFAULT_EPSILON,
        bootstrap: BootstrapOptions {
            resamples: 200,
            seed: 3,
            confidence: 0.95,
        },
    }
}

#[test]
fn a_model_that_gives_the_panels_label_wins_against_humans_who_err() {
    // On every fifth task one human errs, in turn: the model gives the majority's label
    // everywhere, so it is at least as close to the others as the human left out.
    let table = panel(60, 3, Level::Ordinal, |u, h| u % 5 == 0 && (u / 5) % 3 == h);
    let out = alt_test(&table, "model", &truth_labels(60), &options()).expect("valid input");
    assert_eq!(out.n_cases, 60);
    assert_eq!(out.alignment, Alignment::NegativeRmse);
    let verdict = out.verdict.expect("every human rated 60 tasks");
    assert_eq!((verdict.humans_tested, verdict.humans_won), (3, 3));
    assert_eq!(verdict.winning_rate, 1.0);
    assert!(verdict.passed);
    assert_eq!(verdict.advantage_probability, 1.0);
    for h in &out.humans {
        let test = h.test.as_ref().expect("tested");
        assert!(test.rejected && test.model_wins == 1.0, "{h:?}");
    }
}

#[test]
fn a_model_that_is_always_off_by_one_loses_to_every_human() {
    let table = panel(60, 3, Level::Nominal, |_, _| false);
    let labels: Vec<Option<u32>> = (0..60).map(|u| Some(((u + 1) % 4) as u32)).collect();
    let out = alt_test(&table, "model", &labels, &options()).expect("valid input");
    assert_eq!(out.alignment, Alignment::Accuracy);
    let verdict = out.verdict.expect("testable");
    assert_eq!((verdict.winning_rate, verdict.passed), (0.0, false));
    assert_eq!(verdict.advantage_probability, 0.0);
    // Every difference is 1 > ε: a zero-variance test whose p-value is 1.
    assert_eq!(
        out.humans[0].test.as_ref().expect("tested").p_value,
        Ok(1.0)
    );
}

#[test]
fn a_tie_on_every_task_with_no_margin_has_no_p_value_and_is_not_rejected() {
    let table = panel(40, 2, Level::Nominal, |_, _| false);
    let out = alt_test(
        &table,
        "model",
        &truth_labels(40),
        &AltTestOptions {
            epsilon: 0.0,
            ..options()
        },
    )
    .expect("valid input");
    let test = out.humans[0].test.as_ref().expect("tested");
    assert!(test.p_value.is_err() && !test.rejected);
    assert_eq!(out.verdict.expect("testable").winning_rate, 0.0);
}

#[test]
fn humans_with_fewer_than_thirty_usable_tasks_are_left_out_and_say_why() {
    // h2 rates only the first 20 tasks.
    let mut table = panel(50, 3, Level::Ordinal, |_, _| false);
    let cells: Vec<Option<u32>> = table
        .cells()
        .iter()
        .enumerate()
        .map(|(i, c)| if i % 3 == 2 && i / 3 >= 20 { None } else { *c })
        .collect();
    table = RatingTable::new(
        table.units().to_vec(),
        table.raters().to_vec(),
        table.categories().to_vec(),
        table.level(),
        cells,
    )
    .expect("a well-formed table");
    let out = alt_test(&table, "model", &truth_labels(50), &options()).expect("valid input");
    assert_eq!(out.humans[2].tasks, 20);
    assert_eq!(
        out.humans[2].test.as_ref().expect_err("left out").reason,
        "h2 rated 20 of the 50 usable tasks, fewer than the 30 the t-test needs, so this human is left out of the test"
    );
    assert_eq!(out.verdict.expect("two humans tested").humans_tested, 2);
}

#[test]
fn a_panel_too_small_is_refused_with_the_reason() {
    let reason = |table: &RatingTable, labels: &[Option<u32>]| {
        alt_test(table, "model", labels, &options())
            .expect("valid input")
            .verdict
            .expect_err("refused")
            .reason
    };
    assert_eq!(
        reason(
            &panel(40, 1, Level::Ordinal, |_, _| false),
            &truth_labels(40)
        ),
        "the alternative annotator test needs at least 2 human raters, and the panel has 1"
    );
    assert_eq!(
        reason(&panel(40, 3, Level::Ordinal, |_, _| false), &[None; 40]),
        "no task has both the model's label and labels from at least 2 humans"
    );
    assert_eq!(
        reason(
            &panel(25, 3, Level::Ordinal, |_, _| false),
            &truth_labels(25)
        ),
        "no human rated 30 or more of the 25 tasks with the model's label and at least 2 humans' labels (the most is 25, by h0), and the t-test needs 30 per human"
    );
}

#[test]
fn bad_input_is_refused_in_one_sentence() {
    let table = panel(40, 2, Level::Ordinal, |_, _| false);
    let err = |model: &str, labels: &[Option<u32>], epsilon: f64| {
        alt_test(
            &table,
            model,
            labels,
            &AltTestOptions {
                epsilon,
                ..options()
            },
        )
        .expect_err("refused")
        .to_string()
    };
    assert_eq!(
        err("model", &truth_labels(40), 1.5),
        "the margin ε must lie between 0 and 1, but 1.5 was given"
    );
    assert_eq!(
        err("model", &truth_labels(39), 0.2),
        "the model has 39 labels but the humans' table has 40 units; give one label (or none) per unit, in the table's order"
    );
    assert_eq!(
        err("h1", &truth_labels(40), 0.2),
        "rater 'h1' appears twice in the table; rater names must be unique"
    );
    let mut labels = truth_labels(40);
    labels[3] = Some(7);
    assert_eq!(
        err("model", &labels, 0.2),
        "unit 't3', rater 'model' has category index 7, but the scale has only 4 categories"
    );
}

#[test]
fn the_agreement_figures_are_the_modules_coefficients_on_the_model_and_the_panel() {
    let table = panel(60, 3, Level::Ordinal, |u, h| (u + h) % 7 == 0);
    let labels: Vec<Option<u32>> = (0..60)
        .map(|u| (u % 9 != 0).then_some(((u + u / 10) % 4) as u32))
        .collect();
    let out = alt_test(&table, "judge", &labels, &options()).expect("valid input");
    let pooled = with_model(&table, "judge", &labels).expect("valid");
    let a = &out.agreement;
    assert_eq!(
        a.alpha_with_model.estimate,
        krippendorff_alpha(&pooled, Level::Ordinal)
    );
    assert_eq!(
        a.alpha_humans.estimate,
        krippendorff_alpha(&table, Level::Ordinal)
    );
    assert!(a.alpha_with_model.ci.is_ok() && a.alpha_humans.ci.is_ok());
    // With no human erring on two of three, the consensus (lower median) is the truth.
    let units: Vec<usize> = (0..60).filter(|u| labels[*u].is_some()).collect();
    let direct = RatingTable::new(
        units.iter().map(|u| format!("t{u}")).collect(),
        vec!["judge".into(), "truth".into()],
        table.categories().to_vec(),
        Level::Ordinal,
        units
            .iter()
            .flat_map(|&u| [labels[u], Some((u % 4) as u32)])
            .collect(),
    )
    .expect("valid");
    assert_eq!(
        a.kappa_vs_consensus.estimate,
        cohen_kappa(&direct, 0, 1, Weights::Linear).expect("valid")
    );
    let ci = a.kappa_vs_consensus.ci.as_ref().expect("defined");
    let kappa = a.kappa_vs_consensus.estimate.value().expect("defined");
    assert!(ci.low <= kappa && kappa <= ci.high, "{ci:?} around {kappa}");
}

#[test]
fn the_method_sentence_names_the_papers_settings() {
    let table = panel(40, 2, Level::Nominal, |_, _| false);
    let out = alt_test(&table, "model", &truth_labels(40), &options()).expect("valid input");
    let method = out.method();
    for part in [
        "Calderon, Reichart and Dror, 2025",
        "accuracy",
        "ε = 0.2",
        "q = 0.05",
        "at least 2 humans' labels",
        "at least 30 of them",
        "at least 0.5",
    ] {
        assert!(method.contains(part), "{part:?} in {method}");
    }
}
