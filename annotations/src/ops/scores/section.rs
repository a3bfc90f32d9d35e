//! The scores in the coordinator's report: the table of raw beside determinate-only rates, a
//! chart of each rate with its interval, the pairs compared, and the tasks left out as CSV.

use std::fmt::Write as _;
use std::path::Path;

use super::report::{ScoresReport, SystemScore};
use super::{ScoresOptions, scores, write_left_out};
use crate::export::svg::{self, Bar};
use crate::ops::report::cell;
use crate::ops::{Project, Result};

/// The list of tasks a determinate-only score leaves out, beside the report.
const LEFT_OUT_FILE: &str = "underdetermined.csv";

/// What the report shows of the scores: the figures and the left-out list's CSV text.
pub(in crate::ops) struct ReportScores {
    report: ScoresReport,
    left_out_csv: String,
}

/// The scores for a report written into `dir`, when the project holds any system's results;
/// the bootstrap intervals of the differences take `bootstrap` resamples from `seed`; with a
/// predictor, the determinate-only rates from the sample too.
pub(in crate::ops) fn report_scores(
    project: &Project,
    dir: &Path,
    bootstrap: usize,
    seed: u64,
    predictor: Option<String>,
) -> Result<Option<ReportScores>> {
    if super::list_results(project)?.is_empty() {
        return Ok(None);
    }
    let report = scores(
        project,
        &ScoresOptions {
            bootstrap: u32::try_from(bootstrap).unwrap_or(u32::MAX),
            seed,
            predictor,
        },
    )?;
    let mut csv = Vec::new();
    // The notes on labels the questionnaire does not read are the report's coverage's too.
    write_left_out(project, &mut csv, &dir.join(LEFT_OUT_FILE))?;
    Ok(Some(ReportScores {
        report,
        left_out_csv: String::from_utf8_lossy(&csv).into_owned(),
    }))
}

fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "undefined".into(), |r| format!("{:.1}%", 100.0 * r))
}

fn rate_cell(rate: Option<f64>, ci: Option<[f64; 2]>, rank: Option<f64>) -> String {
    let mut cell = percent(rate);
    if let Some([lo, hi]) = ci {
        let _ = write!(cell, " [{:.1}, {:.1}]", 100.0 * lo, 100.0 * hi);
    }
    if let Some(rank) = rank {
        let _ = write!(cell, " ({rank})");
    }
    cell
}

fn rank_text(rank: Option<f64>) -> String {
    rank.map_or_else(|| "no rank".into(), |r| format!("rank {r}"))
}

/// Appends the Scores section to `md` and its chart and CSV to `files`.
pub(in crate::ops) fn render_section(
    scores: &ReportScores,
    md: &mut String,
    files: &mut Vec<(String, String)>,
) {
    let report = &scores.report;
    let c = &report.coverage;
    let _ = writeln!(md, "\n## Scores\n");
    let _ = writeln!(
        md,
        "Each system's resolve rate over every task beside its rate over the determinate tasks, with 95% Wilson intervals and the rank under each (1 is best). A task a system's results do not mention counts as not resolved.\n"
    );
    let sources: Vec<String> = c
        .sources
        .iter()
        .map(|s| format!("{} by {}", s.tasks, s.source.name()))
        .collect();
    let _ = writeln!(
        md,
        "{}: {} determinate, {} underdetermined, {} pending raters, {} unlabelled; decided: {}.{}\n",
        crate::ops::counted(c.tasks, "task"),
        c.determinate,
        c.underdetermined,
        c.pending,
        c.unlabelled,
        if sources.is_empty() {
            "nothing".into()
        } else {
            sources.join(", ")
        },
        c.rule
            .as_ref()
            .map_or_else(String::new, |rule| format!(" {rule}"))
    );
    for unread in &c.unread {
        let _ = writeln!(md, "Not read: {}.\n", unread.note);
    }
    let _ = writeln!(
        md,
        "| system | submitted | raw ({}) | determinate-only ({}) | underdetermined ({}) | pending ({}) |",
        c.tasks, c.determinate, c.underdetermined, c.pending
    );
    let _ = writeln!(md, "|---|---:|---|---|---|---|");
    let mut ordered: Vec<&SystemScore> = report.systems.iter().collect();
    ordered.sort_by(|a, b| {
        a.rank_raw
            .unwrap_or(f64::INFINITY)
            .total_cmp(&b.rank_raw.unwrap_or(f64::INFINITY))
            .then_with(|| a.system.cmp(&b.system))
    });
    let mut bars = Vec::new();
    for s in &ordered {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&s.system),
            s.submitted,
            rate_cell(s.rate, s.rate_ci, s.rank_raw),
            rate_cell(
                s.determinate_rate,
                s.determinate_rate_ci,
                s.rank_determinate
            ),
            rate_cell(s.underdetermined_rate, s.underdetermined_rate_ci, None),
            percent(s.pending_rate)
        );
        bars.push(Bar {
            label: format!("{} raw ({})", s.system, rank_text(s.rank_raw)),
            value: s.rate,
            interval: s.rate_ci,
        });
        bars.push(Bar {
            label: format!(
                "{} determinate-only ({})",
                s.system,
                rank_text(s.rank_determinate)
            ),
            value: s.determinate_rate,
            interval: s.determinate_rate_ci,
        });
    }
    let _ = writeln!(
        md,
        "\nKendall's τ-b between the two orders: {}.",
        report
            .kendall_tau
            .map_or_else(|| "undefined".into(), |t| format!("{t:.3}"))
    );
    files.push((
        "scores.svg".into(),
        svg::interval_bars(
            "Resolve rate, raw beside determinate-only (95% Wilson)",
            &bars,
            0.0,
            1.0,
        ),
    ));
    let _ = writeln!(md, "\n![rates raw and determinate-only](scores.svg)");
    if !report.pairs.is_empty() {
        let _ = writeln!(
            md,
            "\nEvery pair on the same tasks: the difference in rates (points), {}, and McNemar's exact p-value.\n",
            if report.bootstrap > 0 {
                format!(
                    "its 95% bootstrap interval ({} resamples, seed {})",
                    report.bootstrap, report.seed
                )
            } else {
                "no bootstrap interval asked for".into()
            }
        );
        let _ = writeln!(md, "| a | b | tasks | difference | interval | p |");
        let _ = writeln!(md, "|---|---|---|---:|---|---:|");
        for p in &report.pairs {
            let _ = writeln!(
                md,
                "| {} | {} | {} ({}) | {} | {} | {} |",
                cell(&p.a),
                cell(&p.b),
                p.denominator,
                p.n,
                p.difference
                    .map_or_else(String::new, |d| format!("{:+.1}", 100.0 * d)),
                p.difference_ci.map_or_else(String::new, |[lo, hi]| format!(
                    "[{:.1}, {:.1}]",
                    100.0 * lo,
                    100.0 * hi
                )),
                p.p_value
                    .map_or_else(|| "undefined".into(), |v| format!("{v:.4}"))
            );
        }
    }
    if let Some(ppi) = &report.ppi {
        ppi_rates(report, ppi, md, files);
    }
    let _ = writeln!(
        md,
        "\nThe {} tasks a determinate-only score leaves out, each with who decided and why: [{LEFT_OUT_FILE}]({LEFT_OUT_FILE}).",
        c.tasks - c.determinate
    );
    files.push((LEFT_OUT_FILE.into(), scores.left_out_csv.clone()));
}

/// Each system's determinate-only rate from the sample and the predictor beside the labelled
/// tasks alone, in a table and a chart.
fn ppi_rates(
    report: &ScoresReport,
    ppi: &super::ScoresPpi,
    md: &mut String,
    files: &mut Vec<(String, String)>,
) {
    let _ = writeln!(
        md,
        "\nFrom few humans: each determinate-only rate from the panel's labels on the random sample ({} labelled tasks) and `{}` on the {} others (PPI++, a ratio of two prediction-powered means with its delta-method interval), beside the labelled tasks alone; 95% intervals.\n",
        ppi.n_labeled, ppi.predictor, ppi.n_unlabeled
    );
    let _ = writeln!(md, "| system | prediction-powered | labelled tasks alone |");
    let _ = writeln!(md, "|---|---|---|");
    let mut bars = Vec::new();
    for s in &report.systems {
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            cell(&s.system),
            rate_cell(s.determinate_rate_ppi, s.determinate_rate_ppi_ci, None),
            rate_cell(
                s.determinate_rate_labeled,
                s.determinate_rate_labeled_ci,
                None
            )
        );
        bars.push(Bar {
            label: format!("{} prediction-powered", s.system),
            value: s.determinate_rate_ppi,
            interval: s.determinate_rate_ppi_ci,
        });
        bars.push(Bar {
            label: format!("{} labelled alone", s.system),
            value: s.determinate_rate_labeled,
            interval: s.determinate_rate_labeled_ci,
        });
    }
    files.push((
        "scores-few-humans.svg".into(),
        svg::interval_bars(
            "Determinate-only rate from the sample, beside the labelled tasks alone (95%)",
            &bars,
            0.0,
            1.0,
        ),
    ));
    let _ = writeln!(
        md,
        "\n![determinate-only rates from few humans](scores-few-humans.svg)"
    );
}
