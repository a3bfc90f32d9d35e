//! `verity results` and `verity scores`: systems' per-task outcomes, and their raw and
//! determinate-only rates.

use std::io::Write;
use std::path::PathBuf;

use annotations::ops::{self, Project, ScoresOptions, ScoresReport};
use anyhow::{Result, bail};
use time::OffsetDateTime;

use crate::output::print_json;
use crate::schema::results::{ResultsAction, ScoresArgs};
use crate::session::Session;

/// `verity results import|list|remove`.
pub fn results(s: &Session, action: ResultsAction, out: &mut dyn Write) -> Result<()> {
    match action {
        ResultsAction::Import {
            files,
            system,
            json,
        } => import(&mut s.open()?, files, system, json, s.now, out),
        ResultsAction::List { json } => list(&s.open()?, json, out),
        ResultsAction::Remove { name } => {
            ops::remove_results(&mut s.open()?, &name)?;
            writeln!(out, "removed the results of {name}")?;
            Ok(())
        }
    }
}

/// `verity results import FILE... [--system NAME] [--json]`: warnings go to stderr.
fn import(
    p: &mut Project,
    files: Vec<PathBuf>,
    system: Option<String>,
    json: bool,
    now: OffsetDateTime,
    out: &mut dyn Write,
) -> Result<()> {
    if system.is_some() && files.len() > 1 {
        bail!(
            "--system names one file's system; import several files without it, each named after its file"
        );
    }
    let sources: Vec<ops::ResultsSource> = files
        .into_iter()
        .map(|path| ops::ResultsSource {
            path,
            system: system.clone(),
        })
        .collect();
    let reports = ops::import_results(p, &sources, now)?;
    for r in &reports {
        for w in &r.warnings {
            eprintln!("warning: {w}");
        }
    }
    if json {
        return match reports.as_slice() {
            [one] => print_json(out, one),
            many => print_json(out, &many),
        };
    }
    for r in &reports {
        writeln!(
            out,
            "{}: {} ({}): {} of the project's {} submitted, {} resolved; {}{}",
            r.system,
            r.origin,
            r.format,
            r.submitted,
            ops::counted(r.tasks, "task"),
            r.resolved,
            match r.tasks - r.submitted {
                0 => "every task was submitted".to_string(),
                1 => "the other 1 counts as not resolved".to_string(),
                n => format!("the other {n} count as not resolved"),
            },
            if r.replaced {
                " (replaced the results stored under this name)"
            } else {
                ""
            }
        )?;
    }
    Ok(())
}

/// `verity results list [--json]`.
fn list(p: &Project, json: bool, out: &mut dyn Write) -> Result<()> {
    let systems = ops::list_results(p)?;
    if json {
        return print_json(out, &systems);
    }
    if systems.is_empty() {
        writeln!(out, "no results yet: `verity results import FILE`")?;
    }
    for s in &systems {
        writeln!(
            out,
            "{}\t{} submitted\t{} resolved\t{}\t{}\t{}",
            s.system, s.submitted, s.resolved, s.format, s.origin, s.imported_at
        )?;
    }
    Ok(())
}

fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "-".to_string(), |r| format!("{:.1}%", 100.0 * r))
}

fn interval(ci: Option<[f64; 2]>) -> String {
    ci.map_or_else(String::new, |[lo, hi]| {
        format!(" [{:.1}, {:.1}]", 100.0 * lo, 100.0 * hi)
    })
}

fn rank(rank: Option<f64>) -> String {
    rank.map_or_else(|| "-".to_string(), |r| format!("{r}"))
}

/// `verity scores [--bootstrap N] [--seed S] [--json]`.
pub fn scores(s: &Session, args: ScoresArgs, out: &mut dyn Write) -> Result<()> {
    let options = ScoresOptions {
        bootstrap: args.bootstrap,
        seed: args.seed,
        predictor: args.predictor,
    };
    let report = ops::scores(&s.open()?, &options)?;
    if args.json {
        return print_json(out, &report);
    }
    write_text(&report, out)
}

fn write_text(report: &ScoresReport, out: &mut dyn Write) -> Result<()> {
    let c = &report.coverage;
    writeln!(
        out,
        "{}: {} determinate, {} underdetermined, {} pending raters, {} unlabelled",
        ops::counted(c.tasks, "task"),
        c.determinate,
        c.underdetermined,
        c.pending,
        c.unlabelled
    )?;
    for s in &c.sources {
        writeln!(
            out,
            "  decided by {}: {} ({} determinate, {} underdetermined, {} pending)",
            s.source.name(),
            ops::counted(s.tasks, "task"),
            s.determinate,
            s.underdetermined,
            s.pending
        )?;
    }
    for unread in &c.unread {
        writeln!(out, "  note: {}", unread.note)?;
    }
    if report.systems.is_empty() {
        writeln!(out, "no results yet: `verity results import FILE`")?;
        return Ok(());
    }
    writeln!(
        out,
        "\nsystem\tsubmitted\traw (95% CI)\trank\tdeterminate-only (95% CI)\trank\tunderdetermined\tpending"
    )?;
    // In rank order, as the report's table: by the raw rate, best first.
    let mut ranked: Vec<&ops::SystemScore> = report.systems.iter().collect();
    ranked.sort_by(|a, b| {
        a.rank_raw
            .unwrap_or(f64::INFINITY)
            .total_cmp(&b.rank_raw.unwrap_or(f64::INFINITY))
            .then_with(|| a.system.cmp(&b.system))
    });
    for s in ranked {
        writeln!(
            out,
            "{}\t{}/{}\t{}{}\t{}\t{}{}\t{}\t{}\t{}",
            s.system,
            s.submitted,
            s.n,
            percent(s.rate),
            interval(s.rate_ci),
            rank(s.rank_raw),
            percent(s.determinate_rate),
            interval(s.determinate_rate_ci),
            rank(s.rank_determinate),
            percent(s.underdetermined_rate),
            percent(s.pending_rate),
        )?;
    }
    writeln!(
        out,
        "\nKendall's tau-b between the two orders: {}",
        report
            .kendall_tau
            .map_or_else(|| "undefined".to_string(), |t| format!("{t:.3}"))
    )?;
    writeln!(
        out,
        "\npairs (McNemar's exact p; difference in points with its 95% bootstrap interval, {} resamples, seed {}):",
        report.bootstrap, report.seed
    )?;
    for pair in &report.pairs {
        writeln!(
            out,
            "{} vs {} ({}): p = {}, {}{}",
            pair.a,
            pair.b,
            pair.denominator,
            pair.p_value
                .map_or_else(|| "-".to_string(), |p| format!("{p:.4}")),
            pair.difference
                .map_or_else(|| "-".to_string(), |d| format!("{:+.1}", 100.0 * d)),
            interval(pair.difference_ci)
        )?;
    }
    if let Some(ppi) = &report.ppi {
        write_ppi(report, ppi, out)?;
    }
    Ok(())
}

/// The prediction-powered rates and differences beside the labelled tasks' own.
fn write_ppi(report: &ScoresReport, ppi: &ops::ScoresPpi, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "\nfrom few humans: {} labelled tasks of a {} sample and {} on {} more; determinate share {}{}",
        ppi.n_labeled,
        match ppi.sampling {
            ops::Sampling::Uniform => "uniform",
            ops::Sampling::Weighted => "weighted",
        },
        ppi.predictor,
        ppi.n_unlabeled,
        percent(ppi.determinate_share),
        interval(ppi.determinate_share_ci)
    )?;
    writeln!(
        out,
        "system\tdeterminate-only, prediction-powered (95% CI)\tlabelled tasks alone (95% CI)"
    )?;
    for s in &report.systems {
        writeln!(
            out,
            "{}\t{}{}\t{}{}",
            s.system,
            percent(s.determinate_rate_ppi),
            interval(s.determinate_rate_ppi_ci),
            percent(s.determinate_rate_labeled),
            interval(s.determinate_rate_labeled_ci)
        )?;
    }
    let points =
        |d: Option<f64>| d.map_or_else(|| "-".to_string(), |d| format!("{:+.1}", 100.0 * d));
    for pair in report.pairs.iter().filter(|p| p.difference_ppi.is_some()) {
        writeln!(
            out,
            "{} vs {}: {}{} prediction-powered, {}{} labelled alone",
            pair.a,
            pair.b,
            points(pair.difference_ppi),
            interval(pair.difference_ppi_ci),
            points(pair.difference_labeled),
            interval(pair.difference_labeled_ci)
        )?;
    }
    writeln!(out, "assumes:")?;
    for a in &ppi.assumes {
        writeln!(out, "  - {a}")?;
    }
    Ok(())
}
