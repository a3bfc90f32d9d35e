//! The coordinator's report: Markdown with SVG charts from the agreement and the ensemble.

use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use super::agreement::{
    AgreementRequest, AgreementView, CoefficientRow, GroupAgreement, MIN_SHARED_CASES,
    QuestionAgreement, agreement_view,
};
use super::ensemble::{EnsembleReport, ensemble_labels};
use super::ppi::{FewHumansSection, render_few_humans, report_few_humans};
use super::quality::{QualityReport, QualityRequest, RaterQuality, rater_quality};
use super::scores::{ReportScores, render_section, report_scores};
use super::{Error, ErrorCode, Project, Result};
use crate::export::svg::{self, Bar};
use std::fmt::Write as _;
use verity_stats::agreement::AgreementReport;

/// What `write_report` wrote.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ReportSummary {
    /// The Markdown file.
    pub markdown: String,
    /// The SVG charts.
    pub charts: Vec<String>,
    /// Cases the filter keeps.
    pub kept: usize,
    /// Cases the filter drops.
    pub filtered_out: usize,
}

/// The report's Markdown file, beside its charts.
const REPORT_FILE: &str = "report.md";

/// Writes `report.md` and its SVG charts into `dir`: agreement per question with bootstrap
/// intervals (`bootstrap` resamples from `seed`), the rater-pair matrix, label distributions
/// and the count the filter keeps. Each file is written atomically; a folder that already
/// holds a report is refused unless `overwrite` says to replace it.
pub fn write_report(
    project: &Project,
    dir: &Path,
    bootstrap: usize,
    seed: u64,
    overwrite: super::Overwrite,
) -> Result<ReportSummary> {
    project.require_coordinator("writes the report")?;
    // The Markdown file stands for the whole report: refuse before computing or writing any of it.
    if overwrite == super::Overwrite::Refuse && dir.join(REPORT_FILE).exists() {
        return Err(Error::refused(
            ErrorCode::AlreadyExists,
            format!(
                "{} already holds a report; Verity will not overwrite it (pass --force to replace it)",
                dir.display()
            ),
        ));
    }
    let agreement = agreement_view(
        project,
        &AgreementRequest {
            question: None,
            bootstrap: (bootstrap > 0).then_some(bootstrap),
            seed,
        },
    )?;
    let ensemble = ensemble_labels(project, None)?;
    // The first reference set, when the project holds several.
    let reference = project
        .store
        .reference_sets()?
        .into_iter()
        .next()
        .map(|(name, _)| name);
    let quality = rater_quality(
        project,
        &QualityRequest {
            question: None,
            reference,
            bootstrap: Some(if bootstrap > 0 { bootstrap } else { 1000 }),
            seed,
        },
    )?;
    let few = report_few_humans(project)?;
    let predictor = few.as_ref().and_then(|f| f.predictor()).map(str::to_string);
    let scores = report_scores(project, dir, bootstrap, seed, predictor)?;
    let write_err = |path: PathBuf| move |source| Error::Write { path, source };
    let files = render(
        &agreement,
        &ensemble,
        &quality,
        scores.as_ref(),
        few.as_ref(),
        bootstrap,
        seed,
    );
    std::fs::create_dir_all(dir).map_err(write_err(dir.to_path_buf()))?;
    let mut charts = Vec::new();
    let mut markdown = String::new();
    for (name, content) in files {
        let path = dir.join(&name);
        super::write_file(&path, super::Overwrite::Replace, |out| {
            out.write_all(content.as_bytes())
                .map_err(write_err(path.clone()))
        })?;
        if name.ends_with(".svg") {
            charts.push(path.display().to_string());
        } else if name == REPORT_FILE {
            markdown = path.display().to_string();
        }
    }
    Ok(ReportSummary {
        markdown,
        charts,
        kept: ensemble.kept,
        filtered_out: ensemble.filtered_out,
    })
}

fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "undefined".into(), |x| format!("{x:.3}"))
}

fn fmt_ci(v: Option<[f64; 2]>) -> String {
    v.map_or_else(String::new, |[lo, hi]| format!("[{lo:.3}, {hi:.3}]"))
}

/// A file name part from a question id.
fn slug(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Escapes a table cell.
pub(in crate::ops) fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A question's percent agreement and its Krippendorff's alpha at the question's level: the
/// figures the summary tables show.
fn headline<'a>(
    coefficients: &'a [CoefficientRow],
    report: &AgreementReport,
) -> (Option<&'a CoefficientRow>, Option<&'a CoefficientRow>) {
    let alpha_key = format!("krippendorff_alpha.{}", report.level.name());
    let find = |key: &str| coefficients.iter().find(|c| c.key == key);
    (find("percent_agreement"), find(&alpha_key))
}

/// Agreement among humans, among models and pooled, side by side per question.
fn groups_section(groups: &[GroupAgreement], md: &mut String) {
    let _ = writeln!(md, "\n## Humans and models\n");
    let _ = writeln!(
        md,
        "Model raters are included: agreement among the human raters, among the model raters, and of both pooled (each model one more rater), on the same first submissions.\n"
    );
    for g in groups {
        let _ = writeln!(
            md,
            "- among {}: {} ({}), {}{}",
            g.among.name(),
            super::counted(g.raters.len(), "rater"),
            cell(&g.raters.join(", ")),
            super::counted(g.cases, "case"),
            g.absent
                .as_ref()
                .map_or_else(String::new, |why| format!("; not measured: {why}"))
        );
    }
    let _ = writeln!(
        md,
        "\n| question | among | units | percent agreement | Krippendorff's alpha | interval |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---|");
    let Some(questions) = groups.iter().map(|g| &g.questions).max_by_key(|q| q.len()) else {
        return;
    };
    for question in questions {
        for g in groups {
            let Some(q) = g.questions.iter().find(|q| q.question == question.question) else {
                let _ = writeln!(
                    md,
                    "| {} `{}` | {} | | not measured | | |",
                    question.number,
                    question.question,
                    g.among.name()
                );
                continue;
            };
            let (percent, alpha) = headline(&q.coefficients, &q.report);
            let _ = writeln!(
                md,
                "| {} `{}` | {} | {} | {} | {} | {} |",
                q.number,
                q.question,
                g.among.name(),
                q.report.units,
                fmt(percent.and_then(|p| p.value)),
                fmt(alpha.and_then(|a| a.value)),
                fmt_ci(alpha.and_then(|a| a.ci95))
            );
        }
    }
}

fn question_section(q: &QuestionAgreement, md: &mut String, files: &mut Vec<(String, String)>) {
    let name = slug(&q.question);
    let _ = writeln!(md, "\n## {} `{}` ({:?})\n", q.number, q.question, q.level);
    let _ = writeln!(
        md,
        "Categories, in the questionnaire's order: {}.\n",
        q.categories
            .iter()
            .map(|c| format!("`{}`", cell(c)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(md, "| coefficient | value | 95% interval | note |");
    let _ = writeln!(md, "|---|---:|---|---|");
    for row in &q.coefficients {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            cell(&row.name),
            fmt(row.value),
            fmt_ci(row.ci95),
            cell(row.reason.as_deref().unwrap_or(""))
        );
    }
    let bars: Vec<Bar> = q
        .coefficients
        .iter()
        .map(|row| Bar {
            label: row.name.clone(),
            value: row.value,
            interval: row.ci95,
        })
        .collect();
    let file = format!("{name}-agreement.svg");
    files.push((
        file.clone(),
        svg::interval_bars(
            &format!("{} {}: agreement", q.number, q.question),
            &bars,
            -1.0,
            1.0,
        ),
    ));
    let _ = writeln!(md, "\n![agreement on {}]({file})\n", q.question);

    let m = &q.pair_matrix;
    let _ = writeln!(
        md,
        "### Rater pairs\n\nCohen's kappa ({} weights) for each pair of raters on the cases both rated; pairs sharing fewer than {MIN_SHARED_CASES} cases are grey.\n",
        m.weights
    );
    let file = format!("{name}-pairs.svg");
    files.push((
        file.clone(),
        svg::pair_heatmap(
            &format!("{} {}: Cohen's kappa by rater pair", q.number, q.question),
            &m.raters,
            &m.kappa,
            &m.units,
            MIN_SHARED_CASES,
        ),
    ));
    let _ = writeln!(md, "![rater pairs on {}]({file})\n", q.question);
    if m.raters.len() <= 12 && !m.raters.is_empty() {
        let _ = writeln!(
            md,
            "| | {} |",
            m.raters
                .iter()
                .map(|r| cell(r))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(md, "|---|{}", "---:|".repeat(m.raters.len()));
        for (i, rater) in m.raters.iter().enumerate() {
            let cells: Vec<String> = (0..m.raters.len())
                .map(|j| {
                    if i == j {
                        "".into()
                    } else if m.units[i][j] == 0 {
                        "no shared case".into()
                    } else {
                        format!("{} (n={})", fmt(m.kappa[i][j]), m.units[i][j])
                    }
                })
                .collect();
            let _ = writeln!(md, "| {} | {} |", cell(rater), cells.join(" | "));
        }
    }

    let _ = writeln!(md, "\n### Label distribution\n");
    let _ = writeln!(md, "| category | raters' first answers | ensemble labels |");
    let _ = writeln!(md, "|---|---:|---:|");
    for c in &q.distribution {
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            cell(&c.category),
            c.answers,
            c.labels
        );
    }
    let file = format!("{name}-distribution.svg");
    files.push((
        file.clone(),
        svg::grouped_counts(
            &format!("{} {}: answers and labels", q.number, q.question),
            &q.distribution
                .iter()
                .map(|c| c.category.clone())
                .collect::<Vec<_>>(),
            &[
                (
                    "raters' first answers",
                    q.distribution.iter().map(|c| c.answers).collect(),
                ),
                (
                    "ensemble labels",
                    q.distribution.iter().map(|c| c.labels).collect(),
                ),
            ],
        ),
    ));
    let _ = writeln!(md, "\n![distribution of {}]({file})", q.question);

    for r in &q.reference {
        let _ = writeln!(
            md,
            "\nAgainst reference set `{}`: {} with both labels, the same label on {}, Cohen's kappa {} (linear {}).",
            r.set,
            super::counted(r.units, "case"),
            r.percent_agreement
                .map_or_else(|| "undefined".into(), |p| format!("{:.1}%", p * 100.0)),
            fmt(r.kappa),
            fmt(r.kappa_linear)
        );
    }
}

/// Active seconds, or that none were recorded (imported answers carry no active time).
fn seconds(v: Option<f64>) -> String {
    v.map_or_else(|| "not recorded".into(), |s| format!("{s:.0} s"))
}

/// One page per rater: their figures per question against the reference and the panel, their
/// confusion matrices and drift, and their pace.
fn rater_page(r: &RaterQuality, quality: &QualityReport) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", r.rater);
    let _ = writeln!(
        md,
        "{} submitted tasks; {} against the reference{}. Median active time {} (the panel's: {}).\n",
        r.tasks,
        r.calibration_tasks,
        match &quality.reference {
            Some(set) if quality.calibration_marked => format!(" set `{set}` (calibration tasks)"),
            Some(set) => format!(" set `{set}` (every task it labels)"),
            None => " (the project holds no reference labels)".into(),
        },
        seconds(r.median_active_seconds),
        seconds(quality.panel_median_active_seconds)
    );
    if r.fast_submissions.is_empty() {
        let _ = writeln!(md, "No submission much faster than usual.\n");
    } else {
        let _ = writeln!(
            md,
            "Submitted much faster than usual (under a quarter of the panel's median and half the rater's own), kept in every figure: {}.\n",
            r.fast_submissions.join(", ")
        );
    }
    let _ = writeln!(
        md,
        "| question | accuracy | weighted kappa | bias | bias interval | kappa vs the others | alpha without | alpha of the panel |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---|---:|---:|---:|");
    for q in &quality.questions {
        let d = r.questions.get(q);
        let bias = r.bias.get(q);
        let _ = writeln!(
            md,
            "| `{q}` | {} | {} | {} | {} | {} | {} | {} |",
            fmt(r.accuracy.get(q).copied().flatten()),
            fmt(r.weighted_kappa.get(q).copied().flatten()),
            fmt(bias.and_then(|b| b.mean)),
            fmt_ci(bias.and_then(|b| b.ci95)),
            fmt(d.and_then(|d| d.kappa_vs_consensus)),
            fmt(d.and_then(|d| d.alpha_without)),
            fmt(d.and_then(|d| d.panel_alpha)),
        );
    }
    if !r.reasons.is_empty() {
        let _ = writeln!(md, "\nUndefined values:\n");
        for (key, reason) in &r.reasons {
            let _ = writeln!(md, "- `{key}`: {reason}");
        }
    }
    for q in &quality.questions {
        let Some(d) = r.questions.get(q) else {
            continue;
        };
        if d.confusion.iter().flatten().all(|n| *n == 0) {
            continue;
        }
        let _ = writeln!(
            md,
            "\n## `{q}` against the reference\n\nRows: {}; columns: the reference.\n",
            r.rater
        );
        let _ = writeln!(
            md,
            "| | {} |",
            d.categories
                .iter()
                .map(|c| cell(c))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(md, "|---|{}", "---:|".repeat(d.categories.len()));
        for (label, row) in d.categories.iter().zip(&d.confusion) {
            let _ = writeln!(
                md,
                "| {} | {} |",
                cell(label),
                row.iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        let _ = writeln!(
            md,
            "\nDrift, by blocks of 20 reference tasks in the order answered:\n"
        );
        let _ = writeln!(md, "| block | tasks | accuracy | weighted kappa | bias |");
        let _ = writeln!(md, "|---:|---:|---:|---:|---:|");
        for (i, b) in d.drift.iter().enumerate() {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                i + 1,
                b.tasks,
                fmt(b.accuracy),
                fmt(b.weighted_kappa),
                fmt(b.bias)
            );
        }
    }
    md
}

/// Renders `report.md`, its charts and one page per rater, and the scores when the project
/// holds systems' results.
fn render(
    view: &AgreementView,
    ensemble: &EnsembleReport,
    quality: &QualityReport,
    scores: Option<&ReportScores>,
    few: Option<&FewHumansSection>,
    bootstrap: usize,
    seed: u64,
) -> Vec<(String, String)> {
    let agreement = &view.panel;
    let mut files = Vec::new();
    let mut md = String::new();
    let _ = writeln!(md, "# Agreement report\n");
    let _ = writeln!(
        md,
        "Questionnaire {}; {} with submitted answers; {} ({}){}.\n",
        agreement.questionnaire,
        super::counted(agreement.cases, "case"),
        super::counted(agreement.raters.len(), "rater"),
        agreement.raters.join(", "),
        if view.groups.is_some() {
            ", humans and model raters pooled"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "Agreement is measured on each rater's first submission (blind, before any discussion), at each question's level of measurement. {}\n",
        if bootstrap > 0 {
            format!(
                "Intervals: 95% percentile bootstrap over cases, {bootstrap} resamples, seed {seed}."
            )
        } else {
            "No intervals were asked for.".into()
        }
    );
    let _ = writeln!(md, "## Kept by the filter\n");
    let _ = writeln!(
        md,
        "Labels combined by the `{}` rule from each rater's latest submitted answer, adjudications overriding.\n",
        ensemble.rule
    );
    match &ensemble.filter {
        Some(filter) => {
            let _ = writeln!(md, "Filter: {filter}\n");
            let _ = writeln!(
                md,
                "| kept | filtered out | undecided (a label is missing) |"
            );
            let _ = writeln!(md, "|---:|---:|---:|");
            let _ = writeln!(
                md,
                "| {} | {} | {} |\n",
                ensemble.kept, ensemble.filtered_out, ensemble.undecided
            );
            files.push((
                "kept.svg".into(),
                svg::grouped_counts(
                    "Cases kept by the filter",
                    &["kept".into(), "filtered out".into(), "undecided".into()],
                    &[(
                        "cases",
                        vec![ensemble.kept, ensemble.filtered_out, ensemble.undecided],
                    )],
                ),
            ));
            let _ = writeln!(md, "![cases kept](kept.svg)");
        }
        None => {
            let _ = writeln!(md, "The questionnaire has no filter rule.");
        }
    }
    let _ = writeln!(md, "\n## Summary\n");
    let _ = writeln!(
        md,
        "| question | level | units | percent agreement | Krippendorff's alpha | interval |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---|");
    let mut summary_bars = Vec::new();
    for q in &agreement.questions {
        let (percent, alpha) = headline(&q.coefficients, &q.report);
        let units = q.report.units;
        let _ = writeln!(
            md,
            "| {} `{}` | {:?} | {} | {} | {} | {} |",
            q.number,
            q.question,
            q.level,
            units,
            fmt(percent.and_then(|p| p.value)),
            fmt(alpha.and_then(|a| a.value)),
            fmt_ci(alpha.and_then(|a| a.ci95))
        );
        summary_bars.push(Bar {
            label: format!("{} {}", q.number, q.question),
            value: alpha.and_then(|a| a.value),
            interval: alpha.and_then(|a| a.ci95),
        });
    }
    files.push((
        "summary.svg".into(),
        svg::interval_bars(
            "Krippendorff's alpha per question (at its level)",
            &summary_bars,
            -1.0,
            1.0,
        ),
    ));
    let _ = writeln!(md, "\n![alpha per question](summary.svg)");
    if let Some(groups) = &view.groups {
        groups_section(groups, &mut md);
    }
    if !agreement.skipped.is_empty() {
        let _ = writeln!(
            md,
            "\nText questions, not measured: {}.",
            agreement.skipped.join(", ")
        );
    }
    for q in &agreement.questions {
        question_section(q, &mut md, &mut files);
    }
    if !quality.raters.is_empty() {
        let _ = writeln!(md, "\n## Raters\n");
        let _ = writeln!(
            md,
            "Each rater against the reference and the rest of the panel, and their pace; one page each.\n"
        );
        let _ = writeln!(
            md,
            "| rater | tasks | reference tasks | median active s | fast submissions |"
        );
        let _ = writeln!(md, "|---|---:|---:|---:|---:|");
        for r in &quality.raters {
            let page = format!("rater-{}.md", slug(&r.rater));
            let _ = writeln!(
                md,
                "| [{}]({page}) | {} | {} | {} | {} |",
                cell(&r.rater),
                r.tasks,
                r.calibration_tasks,
                fmt(r.median_active_seconds),
                r.fast_submissions.len()
            );
            files.push((page, rater_page(r, quality)));
        }
    }
    if let Some(few) = few {
        render_few_humans(few, &mut md, &mut files);
    }
    if let Some(scores) = scores {
        render_section(scores, &mut md, &mut files);
    }
    files.push((REPORT_FILE.into(), md));
    files
}
