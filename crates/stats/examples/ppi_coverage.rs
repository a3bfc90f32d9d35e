//! The coverage of Verity's prediction-powered intervals, by simulation: projects of tasks
//! whose true share of underdetermined tasks is known, a human sample of each, and predictors
//! from useless to near perfect, one miscalibrated and one wrong on purpose. Each 95% interval
//! is checked against the truth it claims: the superpopulation's share for the default
//! intervals (ppi-python's model), the project's own share for `--finite`.
//!
//! Usage: ppi_coverage [--runs R] [--seed S] [--json]
//!   R projects per predictor and setting (default 4,000: 72,000 per predictor, 504,000 in all).
//!
//! Settings: 731 or 5,000 tasks, 100, 200 or 400 sampled, a true share of 0.15, 0.30 or 0.50.
//! Intervals:
//! humans alone, plain PPI (λ = 1), PPI++ (λ estimated), PPI++ with the finite-population
//! correction, PPI++ from a draw weighted by the predictor's uncertainty (floor 0.5; weighted
//! by the inverse probabilities), its finite form, and a system's determinate-only rate, the
//! ratio `scores --predictor` reports (PPI++, uniform sample).
#![allow(clippy::unwrap_used)]

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use verity_stats::normal;
use verity_stats::ppi::design::{
    superpopulation_weights, systematic_draw, uncertainty_probabilities, uniform_draw,
};
use verity_stats::ppi::{Columns, Design, Lambda, RatioSample, Sample};

/// A predictor: how its value on a task comes from the task's label and noise.
#[derive(Clone, Copy)]
struct Predictor {
    name: &'static str,
    /// The latent score's separation between the classes (0: useless).
    separation: f64,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Φ(latent score): calibrated in order, not in level.
    Score,
    /// 0.5 + Φ/2: ranks well, always says more than half.
    Miscalibrated,
    /// 1 − Φ: the good predictor's values the wrong way round.
    Reversed,
}

const PREDICTORS: [Predictor; 7] = [
    Predictor {
        name: "random (useless)",
        separation: 0.0,
        kind: Kind::Score,
    },
    Predictor {
        name: "weak",
        separation: 0.55,
        kind: Kind::Score,
    },
    Predictor {
        name: "fair",
        separation: 1.2,
        kind: Kind::Score,
    },
    Predictor {
        name: "good",
        separation: 1.8,
        kind: Kind::Score,
    },
    Predictor {
        name: "near perfect",
        separation: 3.3,
        kind: Kind::Score,
    },
    Predictor {
        name: "miscalibrated (good order, +0.5)",
        separation: 1.8,
        kind: Kind::Miscalibrated,
    },
    Predictor {
        name: "wrong on purpose (good, reversed)",
        separation: 1.8,
        kind: Kind::Reversed,
    },
];

/// (tasks, sampled, true share): every combination of 731 or 5,000 tasks, 100, 200 or 400
/// sampled, and a share of 0.15, 0.30 or 0.50.
const SETTINGS: [(usize, usize, f64); 18] = {
    let tasks = [731, 5000];
    let sampled = [100, 200, 400];
    let shares = [0.15, 0.30, 0.50];
    let mut out = [(0, 0, 0.0); 18];
    let mut i = 0;
    while i < 18 {
        out[i] = (tasks[i / 9], sampled[(i / 3) % 3], shares[i % 3]);
        i += 1;
    }
    out
};

/// The floor of an uncertainty-weighted draw, as `verity assign --by uncertainty` takes it by
/// default.
const FLOOR: f64 = 0.5;

/// A system's resolve rate on determinate and on underdetermined tasks.
const RESOLVE: (f64, f64) = (0.30, 0.10);

const METHODS: [&str; 7] = [
    "humans alone",
    "PPI (λ=1)",
    "PPI++",
    "PPI++ finite",
    "PPI++ active",
    "PPI++ active finite",
    "rate PPI++",
];

fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Φ(x).
fn phi(x: f64) -> f64 {
    1.0 - normal::upper_tail(x)
}

/// One simulated project's tasks: labels (1 underdetermined), the predictor, each system's
/// outcome.
struct Project {
    y: Vec<f64>,
    f: Vec<f64>,
    resolved: Vec<f64>,
}

fn project(rng: &mut ChaCha8Rng, tasks: usize, share: f64, p: &Predictor) -> Project {
    let mut y = Vec::with_capacity(tasks);
    let mut f = Vec::with_capacity(tasks);
    let mut resolved = Vec::with_capacity(tasks);
    for _ in 0..tasks {
        let label = if unit(rng) < share { 1.0 } else { 0.0 };
        let noise: f64 = StandardNormal.sample(rng);
        let score = phi((label - 0.5) * p.separation + noise);
        f.push(match p.kind {
            Kind::Score => score,
            Kind::Miscalibrated => 0.5 + score / 2.0,
            Kind::Reversed => 1.0 - score,
        });
        let rate = if label == 0.0 { RESOLVE.0 } else { RESOLVE.1 };
        resolved.push(if unit(rng) < rate { 1.0 } else { 0.0 });
        y.push(label);
    }
    Project { y, f, resolved }
}

fn split(values: &[f64], drawn: &[bool]) -> (Vec<f64>, Vec<f64>) {
    let (mut inside, mut outside) = (Vec::new(), Vec::new());
    for (v, d) in values.iter().zip(drawn) {
        if *d {
            inside.push(*v)
        } else {
            outside.push(*v)
        }
    }
    (inside, outside)
}

/// Per method: covered, and the interval's width.
type Outcome = [(bool, f64); 7];

fn run(p: &Predictor, setting: (usize, usize, f64), seed: u64) -> Outcome {
    let (tasks, n, share) = setting;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pr = project(&mut rng, tasks, share, p);
    let realised = pr.y.iter().sum::<f64>() / tasks as f64;
    let covers = |ci: (f64, f64), truth: f64| (ci.0 <= truth && truth <= ci.1, ci.1 - ci.0);
    let mut out = [(false, 0.0); 7];

    let mut drawn = vec![false; tasks];
    for i in uniform_draw(tasks, n, rng.next_u64()).unwrap() {
        drawn[i] = true;
    }
    let (yl, _) = split(&pr.y, &drawn);
    let (fl, fu) = split(&pr.f, &drawn);
    let superpopulation = Design::Superpopulation {
        weights: None,
        unlabeled_weights: None,
    };
    let sample = Sample {
        labels: &yl,
        predictions: &fl,
        unlabeled: &fu,
        design: superpopulation,
    };
    out[0] = covers(sample.classical(0.05).unwrap().ci, share);
    out[1] = covers(sample.mean(Lambda::Fixed(1.0), 0.05).unwrap().ci, share);
    out[2] = covers(sample.mean(Lambda::Estimated, 0.05).unwrap().ci, share);
    let finite = Sample {
        design: Design::Finite { inclusion: None },
        ..sample
    };
    out[3] = covers(finite.mean(Lambda::Estimated, 0.05).unwrap().ci, realised);

    // The determinate-only rate of a system: a = determinate and resolved, b = determinate,
    // the predictor of b being 1 − f.
    let determinate: Vec<f64> = pr.y.iter().map(|y| 1.0 - y).collect();
    let a: Vec<f64> = determinate
        .iter()
        .zip(&pr.resolved)
        .map(|(d, r)| d * r)
        .collect();
    let bf: Vec<f64> = pr.f.iter().map(|f| 1.0 - f).collect();
    let af: Vec<f64> = bf.iter().zip(&pr.resolved).map(|(d, r)| d * r).collect();
    let (al, _) = split(&a, &drawn);
    let (bl, _) = split(&determinate, &drawn);
    let (afl, afu) = split(&af, &drawn);
    let (bfl, bfu) = split(&bf, &drawn);
    let ratio = RatioSample {
        numerator: Columns {
            labels: &al,
            predictions: &afl,
            unlabeled: &afu,
        },
        denominator: Columns {
            labels: &bl,
            predictions: &bfl,
            unlabeled: &bfu,
        },
        design: superpopulation,
    };
    out[6] = covers(
        ratio.ratio(Lambda::Estimated, 0.05).unwrap().unwrap().ci,
        RESOLVE.0,
    );

    // A draw weighted by the predictor's uncertainty, each probability known.
    let uncertainty: Vec<f64> = pr.f.iter().map(|f| (f * (1.0 - f)).sqrt()).collect();
    let pi = uncertainty_probabilities(&uncertainty, n, FLOOR).unwrap();
    let mut drawn = vec![false; tasks];
    for i in systematic_draw(&pi, rng.next_u64()).unwrap() {
        drawn[i] = true;
    }
    let (yl, _) = split(&pr.y, &drawn);
    let (fl, fu) = split(&pr.f, &drawn);
    let (pl, pu) = split(&pi, &drawn);
    let (w, wu) = superpopulation_weights(&pl, &pu);
    let active = Sample {
        labels: &yl,
        predictions: &fl,
        unlabeled: &fu,
        design: Design::Superpopulation {
            weights: Some(&w),
            unlabeled_weights: Some(&wu),
        },
    };
    out[4] = covers(active.mean(Lambda::Estimated, 0.05).unwrap().ci, share);
    let active_finite = Sample {
        design: Design::Finite {
            inclusion: Some(&pl),
        },
        ..active
    };
    out[5] = covers(
        active_finite.mean(Lambda::Estimated, 0.05).unwrap().ci,
        realised,
    );
    out
}

/// Covered counts, summed widths, and the PPI++ over humans-alone width ratios.
#[derive(Default, Clone)]
struct Tally {
    runs: usize,
    covered: [usize; 7],
    width: [f64; 7],
    ratio_sum: f64,
    worst_setting_ratio: f64,
    /// The lowest coverage of PPI++ in any one setting, and the setting.
    lowest: Option<(f64, (usize, usize, f64))>,
}

fn main() {
    let mut runs = 4000usize;
    let mut seed = 0u64;
    let mut json = false;
    let mut by_setting = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => runs = args.next().and_then(|v| v.parse().ok()).unwrap_or(runs),
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).unwrap_or(seed),
            "--json" => json = true,
            "--by-setting" => by_setting = true,
            other => {
                eprintln!("ppi_coverage: unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let mut tallies = vec![Tally::default(); PREDICTORS.len()];
    for (pi, p) in PREDICTORS.iter().enumerate() {
        for (si, setting) in SETTINGS.iter().enumerate() {
            let chunk = runs.div_ceil(threads);
            let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        scope.spawn(move || {
                            (t * chunk..((t + 1) * chunk).min(runs))
                                .map(|r| {
                                    let key = seed
                                        .wrapping_mul(1_000_003)
                                        .wrapping_add((pi * 1000 + si) as u64 * 10_000_000)
                                        .wrapping_add(r as u64);
                                    run(p, *setting, key)
                                })
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap())
                    .collect()
            });
            if by_setting {
                let cover = |m: usize| {
                    100.0 * outcomes.iter().filter(|o| o[m].0).count() as f64
                        / outcomes.len() as f64
                };
                println!(
                    "{} {:?}: {}",
                    p.name,
                    setting,
                    (0..7)
                        .map(|m| format!("{:.1}", cover(m)))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
            let t = &mut tallies[pi];
            let mut setting_ratio = 0.0;
            for o in &outcomes {
                t.runs += 1;
                for (m, (covered, width)) in o.iter().enumerate() {
                    t.covered[m] += usize::from(*covered);
                    t.width[m] += width;
                }
                t.ratio_sum += o[2].1 / o[0].1;
                setting_ratio += o[2].1 / o[0].1;
            }
            t.worst_setting_ratio = t
                .worst_setting_ratio
                .max(setting_ratio / outcomes.len() as f64);
            let cover = outcomes.iter().filter(|o| o[2].0).count() as f64 / outcomes.len() as f64;
            if t.lowest.is_none_or(|(c, _)| cover < c) {
                t.lowest = Some((cover, *setting));
            }
        }
    }
    let total: usize = tallies.iter().map(|t| t.runs).sum();
    if json {
        let rows: Vec<serde_json::Value> = PREDICTORS
            .iter()
            .zip(&tallies)
            .map(|(p, t)| {
                serde_json::json!({
                    "predictor": p.name,
                    "runs": t.runs,
                    "coverage": METHODS.iter().enumerate().map(|(m, name)| (name.to_string(), serde_json::json!(t.covered[m] as f64 / t.runs as f64))).collect::<serde_json::Map<_, _>>(),
                    "mean_width": METHODS.iter().enumerate().map(|(m, name)| (name.to_string(), serde_json::json!(t.width[m] / t.runs as f64))).collect::<serde_json::Map<_, _>>(),
                    "ppi_plus_over_humans": t.ratio_sum / t.runs as f64,
                    "worst_setting_ppi_plus_over_humans": t.worst_setting_ratio,
                    "lowest_ppi_plus_coverage": t.lowest.map(|(c, s)| serde_json::json!({"coverage": c, "tasks": s.0, "sampled": s.1, "share": s.2})),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"projects": total, "rows": rows}))
                .unwrap()
        );
        return;
    }
    println!(
        "{total} simulated projects ({runs} per predictor and setting; settings: 731 or 5,000 tasks, 100, 200 or 400 sampled, a true share of 0.15, 0.30 or 0.50). Coverage of the 95% intervals, %:\n"
    );
    print!("| predictor |");
    for m in METHODS {
        print!(" {m} |");
    }
    println!(" PPI++ lowest (setting) | PPI++ width / humans' (mean; widest setting) |");
    print!("|---|");
    for _ in METHODS {
        print!("---:|");
    }
    println!("---:|---:|");
    for (p, t) in PREDICTORS.iter().zip(&tallies) {
        print!("| {} |", p.name);
        for m in 0..7 {
            print!(" {:.1} |", 100.0 * t.covered[m] as f64 / t.runs as f64);
        }
        match t.lowest {
            Some((c, (tasks, n, share))) => print!(" {:.1} ({n} of {tasks}, {share}) |", 100.0 * c),
            None => print!(" |"),
        }
        println!(
            " {:.3}; {:.3} |",
            t.ratio_sum / t.runs as f64,
            t.worst_setting_ratio
        );
    }
    println!();
    print!("| mean width | ");
    for m in 0..7 {
        let w: f64 = tallies.iter().map(|t| t.width[m]).sum::<f64>() / total as f64;
        print!(" {w:.4} |");
    }
    println!(" | |");
}
