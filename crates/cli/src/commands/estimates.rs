//! Prediction-powered estimates: `verity estimate`.

use std::io::Write;

use annotations::ops::{self, Estimate, EstimateRequest};
use anyhow::Result;

use crate::output::print_json;
use crate::schema::estimates::EstimateArgs;
use crate::session::Session;

/// `verity estimate --label L --predictor P [--alpha A] [--lambda X] [--target-halfwidth H]
/// [--finite] [--json]`.
pub fn estimate(s: &Session, args: EstimateArgs, out: &mut dyn Write) -> Result<()> {
    let request = EstimateRequest {
        label: args.label,
        predictor: args.predictor,
        alpha: args.alpha,
        lambda: args.lambda,
        target_halfwidth: args.target_halfwidth,
        finite: args.finite,
    };
    let e = ops::estimate(&s.open()?, &request)?;
    if args.json {
        return print_json(out, &e);
    }
    write_text(&e, out)
}

/// A value as the label reads: a share in percent, a mean as it is.
fn value(e: &Estimate, v: f64) -> String {
    if e.share {
        format!("{:.1}%", 100.0 * v)
    } else {
        format!("{v:.3}")
    }
}

fn interval(e: &Estimate, [lo, hi]: [f64; 2]) -> String {
    if e.share {
        format!("[{:.1}, {:.1}]", 100.0 * lo, 100.0 * hi)
    } else {
        format!("[{lo:.3}, {hi:.3}]")
    }
}

fn halfwidth(e: &Estimate, h: f64) -> String {
    if e.share {
        format!("±{:.1} points", 100.0 * h)
    } else {
        format!("±{h:.3}")
    }
}

fn write_text(e: &Estimate, out: &mut dyn Write) -> Result<()> {
    let level = format!("{}%", 100.0 * (1.0 - e.alpha));
    writeln!(
        out,
        "{} by {}: {} {} ({} interval, {}λ = {:.3}{})",
        e.label,
        e.predictor,
        value(e, e.estimate),
        interval(e, e.ci),
        level,
        if e.lambda == 0.0 || e.lambda == 1.0 {
            ""
        } else {
            "PPI++, "
        },
        e.lambda,
        if e.finite { ", finite population" } else { "" }
    )?;
    writeln!(
        out,
        "  humans alone: {} {}, {} across",
        value(e, e.classical_estimate),
        interval(e, e.classical_ci),
        halfwidth(e, (e.classical_ci[1] - e.classical_ci[0]) / 2.0)
    )?;
    writeln!(
        out,
        "  prediction-powered: {} across; worth {:.0} labelled tasks (the humans alone have {})",
        halfwidth(e, (e.ci[1] - e.ci[0]) / 2.0),
        e.effective_n,
        e.n_labeled
    )?;
    let draws: Vec<String> = e.draws.iter().map(|d| d.describe()).collect();
    writeln!(
        out,
        "  sample ({}): {} of {} tasks drawn ({}); {} labelled, {} not yet; {} unlabelled in all",
        match e.sampling {
            ops::Sampling::Uniform => "uniform",
            ops::Sampling::Weighted => "weighted",
        },
        e.sampled,
        e.population,
        draws.join(", then "),
        e.n_labeled,
        e.incomplete + e.undecided,
        e.n_unlabeled
    )?;
    if let Some(t) = &e.target {
        let more = |m: Option<usize>| {
            m.map_or_else(
                || "no number short of every task reaches it".to_string(),
                |m| format!("rate {m} more tasks"),
            )
        };
        writeln!(
            out,
            "  to reach {}: {} (humans alone: {})",
            halfwidth(e, t.halfwidth),
            more(t.more_tasks),
            more(t.more_tasks_classical)
        )?;
    }
    writeln!(out, "assumes:")?;
    for a in &e.assumes {
        writeln!(out, "  - {a}")?;
    }
    for w in &e.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}
