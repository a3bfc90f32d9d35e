use super::design::{
    MAX_PROBABILITY, combined_probability, systematic_draw, uncertainty_probabilities,
    uncertainty_probabilities_beside, uniform_draw,
};
use super::*;

const Y: [f64; 12] = [1., 0., 0., 1., 1., 0., 0., 0., 1., 0., 1., 0.];
const YHAT: [f64; 12] = [0.8, 0.3, 0.1, 0.6, 0.9, 0.2, 0.4, 0.1, 0.7, 0.5, 0.3, 0.2];
const YU: [f64; 15] = [
    0.9, 0.2, 0.3, 0.75, 0.1, 0.05, 0.6, 0.4, 0.35, 0.8, 0.15, 0.5, 0.45, 0.7, 0.25,
];
const W: [f64; 12] = [1., 2., 1., 1., 3., 1., 1., 2., 1., 1., 1., 2.];
const WU: [f64; 15] = [
    1.0, 1.5, 1., 1., 1., 2., 1., 1., 1., 1., 1.2, 1., 1., 1., 1.,
];

fn sample(weighted: bool) -> Sample<'static> {
    Sample {
        labels: &Y,
        predictions: &YHAT,
        unlabeled: &YU,
        design: Design::Superpopulation {
            weights: weighted.then_some(&W[..]),
            unlabeled_weights: weighted.then_some(&WU[..]),
        },
    }
}

fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() < 1e-12,
        "{what}: {got} where ppi-python gives {want}"
    );
}

/// ppi-python 0.2.3 on the same data: `ppi_mean_pointestimate` and `ppi_mean_ci(alpha=0.05)`
/// at λ estimated, 1, 0.5 and 0, unweighted and weighted. With weights the interval is
/// `ppi_mean_ci` of the inputs centred at their weighted means (labels less the rectifier's
/// weighted mean, unlabelled predictions less theirs), shifted back: the centred variance.
#[test]
fn estimates_and_intervals_are_ppi_pythons() {
    let expected = [
        (
            false,
            None,
            0.42310268985741734,
            0.19343648842676672,
            0.6527688912880679,
        ),
        (
            false,
            Some(1.0),
            0.42500000000000004,
            0.19203231073604338,
            0.6579676892639568,
        ),
        (
            false,
            Some(0.5),
            0.42083333333333334,
            0.18365963781518113,
            0.6580070288514855,
        ),
        (
            false,
            Some(0.0),
            0.4166666666666667,
            0.1377270214911676,
            0.6956063118421658,
        ),
        (
            true,
            None,
            0.37322521284271404,
            0.16243611812317896,
            0.5840143075622488,
        ),
        (
            true,
            Some(1.0),
            0.3705882352941177,
            0.15882506554927284,
            0.5823514050389624,
        ),
        (
            true,
            Some(0.5),
            0.39117647058823535,
            0.1566421920637157,
            0.6257107491127549,
        ),
        (
            true,
            Some(0.0),
            0.411764705882353,
            0.10216602216572146,
            0.7213633895989845,
        ),
    ];
    for (weighted, lambda, est, lo, hi) in expected {
        let what = format!("weighted {weighted}, λ {lambda:?}");
        let lambda = lambda.map_or(Lambda::Estimated, Lambda::Fixed);
        let got = sample(weighted).mean(lambda, 0.05).expect("valid");
        close(got.estimate, est, &what);
        close(got.ci.0, lo, &what);
        close(got.ci.1, hi, &what);
    }
    // `_calc_lam_glm(..., clip=True)` at the λ = 1 estimate.
    close(
        sample(false)
            .mean(Lambda::Estimated, 0.05)
            .expect("valid")
            .lambda,
        0.7723227828900796,
        "λ",
    );
    close(
        sample(true)
            .mean(Lambda::Estimated, 0.05)
            .expect("valid")
            .lambda,
        0.9359591166769471,
        "weighted λ",
    );
    // `classical_mean_ci` is λ = 0 (with weights, of the labels centred at their weighted mean).
    let c = sample(false).classical(0.05).expect("valid");
    close(c.ci.0, 0.1377270214911676, "classical");
    close(c.ci.1, 0.6956063118421658, "classical");
    let c = sample(true).classical(0.05).expect("valid");
    close(c.ci.0, 0.1021660221657214, "weighted classical");
    close(c.ci.1, 0.7213633895989844, "weighted classical");
}

#[test]
fn a_finite_population_narrows_by_its_correction() {
    let superpopulation = sample(false);
    let finite = Sample {
        design: Design::Finite { inclusion: None },
        ..superpopulation
    };
    let (n, total) = (Y.len() as f64, (Y.len() + YU.len()) as f64);
    // λ = 0: the labels' mean, with (1 − n/T) s² / n, s² the sample variance.
    let c = finite.classical(0.05).expect("valid");
    let mean = Y.iter().sum::<f64>() / n;
    let s2 = Y.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / (n - 1.0);
    close(c.estimate, mean, "finite classical estimate");
    close(
        c.se,
        ((1.0 - n / total) * s2 / n).sqrt(),
        "finite classical se",
    );
    // PPI at λ = 1: the predictions' mean over every task plus the labelled residuals' mean.
    let p = finite.mean(Lambda::Fixed(1.0), 0.05).expect("valid");
    let all: f64 = YHAT.iter().chain(&YU).sum::<f64>() / total;
    let r: Vec<f64> = Y.iter().zip(&YHAT).map(|(y, f)| y - f).collect();
    let rm = r.iter().sum::<f64>() / n;
    close(p.estimate, all + rm, "finite PPI estimate");
    let s2r = r.iter().map(|v| (v - rm).powi(2)).sum::<f64>() / (n - 1.0);
    close(p.se, ((1.0 - n / total) * s2r / n).sqrt(), "finite PPI se");
    // Every task labelled: no uncertainty left.
    let census = Sample {
        unlabeled: &[],
        design: Design::Finite { inclusion: None },
        ..superpopulation
    };
    let e = census.mean(Lambda::Estimated, 0.05).expect("valid");
    assert_eq!((e.lambda, e.se), (0.0, 0.0));
    close(e.estimate, mean, "census");
}

#[test]
fn equal_inclusion_probabilities_are_a_simple_random_sample() {
    let pi = vec![Y.len() as f64 / (Y.len() + YU.len()) as f64; Y.len()];
    let given = Sample {
        design: Design::Finite {
            inclusion: Some(&pi),
        },
        ..sample(false)
    };
    let plain = Sample {
        design: Design::Finite { inclusion: None },
        ..sample(false)
    };
    for lambda in [Lambda::Estimated, Lambda::Fixed(1.0), Lambda::Fixed(0.3)] {
        let (a, b) = (
            given.mean(lambda, 0.05).expect("valid"),
            plain.mean(lambda, 0.05).expect("valid"),
        );
        close(a.estimate, b.estimate, "estimate");
        close(a.se, b.se, "se");
    }
}

#[test]
fn bad_input_is_refused_with_a_sentence() {
    let short = Sample {
        predictions: &YHAT[..5],
        ..sample(false)
    };
    assert_eq!(
        short.mean(Lambda::Estimated, 0.05).expect_err("refused").0,
        "12 labels but 5 predictions on the labelled tasks"
    );
    let nan = [f64::NAN; 12];
    let bad = Sample {
        labels: &nan,
        ..sample(false)
    };
    assert!(
        bad.mean(Lambda::Estimated, 0.05)
            .expect_err("refused")
            .0
            .starts_with("labels[0] is NaN")
    );
    assert!(sample(false).mean(Lambda::Estimated, 1.0).is_err());
    let negative = [-1.0; 12];
    let weighted = Sample {
        design: Design::Superpopulation {
            weights: Some(&negative),
            unlabeled_weights: None,
        },
        ..sample(false)
    };
    assert!(
        weighted
            .mean(Lambda::Estimated, 0.05)
            .expect_err("refused")
            .0
            .contains("positive")
    );
}

#[test]
fn a_useless_predictor_gets_lambda_zero_and_a_good_one_narrows() {
    // Predictions that ignore the label: λ is clipped to 0 and the interval is the humans'.
    let flat = [0.5; 12];
    let useless = Sample {
        predictions: &flat,
        unlabeled: &[0.5; 15],
        ..sample(false)
    };
    let e = useless.mean(Lambda::Estimated, 0.05).expect("valid");
    assert_eq!(e.lambda, 0.0);
    let c = useless.classical(0.05).expect("valid");
    close(e.ci.0, c.ci.0, "useless predictor");
    // Predictions equal to the labels: a far narrower interval.
    let perfect = Sample {
        predictions: &Y,
        ..sample(false)
    };
    let p = perfect.mean(Lambda::Estimated, 0.05).expect("valid");
    assert!(p.se < 0.7 * c.se, "{} against {}", p.se, c.se);
}

#[test]
fn a_ratio_is_the_interval_of_its_linearised_mean() {
    // a = determinate and resolved, b = determinate.
    let b_y = [1., 1., 0., 1., 1., 0., 1., 1., 1., 0., 1., 1.];
    let a_y = [1., 0., 0., 1., 1., 0., 0., 1., 0., 0., 1., 0.];
    let b_f = [0.9, 0.8, 0.2, 0.7, 0.9, 0.3, 0.6, 0.8, 0.9, 0.4, 0.7, 0.8];
    let a_f = [0.9, 0.0, 0.0, 0.7, 0.9, 0.0, 0.0, 0.8, 0.0, 0.0, 0.7, 0.0];
    let b_u = [0.9, 0.1, 0.8, 0.7, 0.6, 0.9, 0.2, 0.8];
    let a_u = [0.9, 0.0, 0.8, 0.0, 0.6, 0.0, 0.0, 0.8];
    let design = Design::Superpopulation {
        weights: None,
        unlabeled_weights: None,
    };
    let ratio = RatioSample {
        numerator: Columns {
            labels: &a_y,
            predictions: &a_f,
            unlabeled: &a_u,
        },
        denominator: Columns {
            labels: &b_y,
            predictions: &b_f,
            unlabeled: &b_u,
        },
        design,
    };
    // λ = 0: the labelled tasks' own ratio.
    let humans = ratio
        .ratio(Lambda::Fixed(0.0), 0.05)
        .expect("valid")
        .expect("defined");
    close(humans.estimate, 5.0 / 9.0, "labelled ratio");
    for lambda in [Lambda::Fixed(1.0), Lambda::Estimated] {
        let r = ratio.ratio(lambda, 0.05).expect("valid").expect("defined");
        let theta = r.estimate;
        let z = |a: &[f64], b: &[f64]| -> Vec<f64> {
            a.iter().zip(b).map(|(a, b)| a - theta * b).collect()
        };
        let (zy, zf, zu) = (z(&a_y, &b_y), z(&a_f, &b_f), z(&a_u, &b_u));
        let linear = Sample {
            labels: &zy,
            predictions: &zf,
            unlabeled: &zu,
            design,
        }
        .mean(Lambda::Fixed(r.lambda), 0.05)
        .expect("valid");
        assert!(linear.estimate.abs() < 1e-12);
        close(r.se, linear.se / r.denominator, "ratio standard error");
        // Student's t with 11 degrees of freedom: ppi-python has no ratio to follow.
        let t = crate::student::two_sided_critical(0.05, 11.0);
        close(r.ci.0, theta - t * r.se, "ratio interval");
        close(r.ci.1, theta + t * r.se, "ratio interval");
    }
    // No determinate task anywhere: undefined, not NaN.
    let zeros = [0.0; 12];
    let none = RatioSample {
        denominator: Columns {
            labels: &zeros,
            predictions: &zeros,
            unlabeled: &[0.0; 8],
        },
        ..ratio
    };
    assert_eq!(none.ratio(Lambda::Estimated, 0.05).expect("valid"), None);
}

#[test]
fn the_tasks_needed_for_a_halfwidth_follow_the_variance() {
    let finite = Sample {
        design: Design::Finite { inclusion: None },
        ..sample(false)
    };
    let now = finite.mean(Lambda::Fixed(1.0), 0.05).expect("valid");
    let half = (now.ci.1 - now.ci.0) / 2.0;
    // The current width needs no more; a census reaches any width.
    assert_eq!(
        finite.labels_for_halfwidth(1.0, 0.05, half * 1.0001),
        Ok(Some(12))
    );
    assert_eq!(finite.labels_for_halfwidth(1.0, 0.05, 1e-9), Ok(Some(27)));
    let narrower = finite
        .labels_for_halfwidth(1.0, 0.05, half / 2.0)
        .expect("valid")
        .expect("reachable");
    assert!(narrower > 12 && narrower < 27);
    // In the superpopulation design one task stays unlabelled, and a tiny width is out of reach.
    assert_eq!(
        sample(false).labels_for_halfwidth(1.0, 0.05, 1e-9),
        Ok(None)
    );
    assert!(sample(false).labels_for_halfwidth(1.0, 0.05, 0.0).is_err());
}

#[test]
fn uniform_draws_are_reproducible_and_distinct() {
    let a = uniform_draw(731, 100, 7).expect("drawable");
    assert_eq!(a, uniform_draw(731, 100, 7).expect("drawable"));
    assert_ne!(a, uniform_draw(731, 100, 8).expect("drawable"));
    assert_eq!(a.len(), 100);
    assert!(a.windows(2).all(|w| w[0] < w[1]) && a[99] < 731);
    assert!(uniform_draw(5, 6, 0).is_err());
    // Every position is equally likely: over many seeds each is drawn near size/population.
    let mut counts = [0usize; 10];
    for seed in 0..20_000 {
        for i in uniform_draw(10, 3, seed).expect("drawable") {
            counts[i] += 1;
        }
    }
    for c in counts {
        assert!((c as f64 / 20_000.0 - 0.3).abs() < 0.015, "{counts:?}");
    }
}

#[test]
fn uncertainty_probabilities_keep_their_floor_cap_and_total() {
    let u: Vec<f64> = (0..200)
        .map(|i| if i < 20 { 0.5 } else { 0.01 * (i % 7) as f64 })
        .collect();
    let pi = uncertainty_probabilities(&u, 40, 0.2).expect("valid");
    assert!((pi.iter().sum::<f64>() - 40.0).abs() < 1e-9);
    let uniform = 40.0 / 200.0;
    assert!(
        pi.iter()
            .all(|p| *p >= 0.2 * uniform - 1e-12 && *p <= MAX_PROBABILITY + 1e-12)
    );
    assert!(pi[0] > pi[199], "the uncertain tasks are likelier");
    // The cap binds here and the rest is spread over the others.
    let crowded = uncertainty_probabilities(&u, 100, 0.1).expect("valid");
    assert!((crowded.iter().sum::<f64>() - 100.0).abs() < 1e-9);
    assert!(crowded.iter().all(|p| *p <= MAX_PROBABILITY + 1e-12));
    // No uncertainty anywhere: uniform.
    let flat = uncertainty_probabilities(&[0.0; 10], 4, 0.2).expect("valid");
    assert!(flat.iter().all(|p| (p - 0.4).abs() < 1e-12));
    assert!(uncertainty_probabilities(&u, 190, 0.2).is_err());
    // A task not offered gets what its uncertainty would have given it among the offered.
    let (offered, beside) =
        uncertainty_probabilities_beside(&u[1..], &[u[0], u[199]], 40, 0.2).expect("valid");
    assert!((offered.iter().sum::<f64>() - 40.0).abs() < 1e-9);
    let like_first = offered[0];
    assert!(
        (beside[0] - like_first).abs() < 1e-12,
        "{beside:?} against {like_first}"
    );
    assert!((beside[1] - offered[198]).abs() < 1e-12);
    assert!(uncertainty_probabilities(&u, 10, 0.0).is_err());
    assert!(uncertainty_probabilities(&[f64::NAN], 1, 0.5).is_err());
}

#[test]
fn systematic_draws_take_each_task_with_its_probability() {
    let u: Vec<f64> = (0..30).map(|i| (i % 5) as f64).collect();
    let pi = uncertainty_probabilities(&u, 6, 0.25).expect("valid");
    let mut counts = vec![0usize; 30];
    let runs = 40_000;
    for seed in 0..runs {
        let drawn = systematic_draw(&pi, seed).expect("valid");
        assert_eq!(drawn.len(), 6);
        for i in drawn {
            counts[i] += 1;
        }
    }
    for (i, c) in counts.iter().enumerate() {
        let share = *c as f64 / runs as f64;
        assert!(
            (share - pi[i]).abs() < 0.01,
            "task {i}: {share} against {}",
            pi[i]
        );
    }
    assert!(systematic_draw(&[0.5, 0.2], 0).is_err());
    assert!(systematic_draw(&[1.5, 0.5], 0).is_err());
}

#[test]
fn steps_of_a_draw_combine_as_independent_chances() {
    // 20 of 100, then 30 of the 80 left: 50 of 100 in all.
    let p = combined_probability([0.2, 30.0 / 80.0]);
    assert!((p - 0.5).abs() < 1e-15);
    assert_eq!(combined_probability([]), 0.0);
}
