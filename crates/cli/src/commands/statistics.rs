//! Statistics: agreement, the ensemble, disagreements, the report.

use std::io::Write;

use annotations::ops::{self, BootstrapOptions, Level, render_agreement_text};
use anyhow::Result;

use crate::output::{overwrite, print_json};
use crate::schema::statistics::{AgreementArgs, DisagreementsArgs, EnsembleArgs, ReportArgs};
use crate::session::Session;

/// `verity agreement`: on a ratings file, or per question of the project.
pub fn agreement(session: &Session, args: AgreementArgs, out: &mut dyn Write) -> Result<()> {
    if let Some(path) = &args.ratings {
        if args.question.is_some() {
            anyhow::bail!(
                "--question is for a project's questionnaire; a ratings file has one scale"
            );
        }
        let level = args.level.as_deref().map(str::parse::<Level>).transpose()?;
        let categories = args
            .categories
            .as_deref()
            .map(|c| c.split(',').map(|s| s.trim().to_owned()).collect());
        let bootstrap = args.bootstrap.map(|resamples| BootstrapOptions {
            resamples,
            seed: args.seed,
            confidence: 0.95,
        });
        let report = ops::agreement_on_ratings(path, level, categories, bootstrap)?;
        if args.json {
            print_json(out, &report)?;
        } else {
            write!(out, "{}", render_agreement_text(&report))?;
        }
        return Ok(());
    }
    if args.level.is_some() || args.categories.is_some() {
        anyhow::bail!(
            "--level and --categories are for --ratings; a project's questions declare their own"
        );
    }
    if session.path.is_none() {
        anyhow::bail!("give --ratings FILE, or a project with --project FILE");
    }
    let p = session.open()?;
    let view = ops::agreement_view(
        &p,
        &ops::AgreementRequest {
            question: args.question.clone(),
            bootstrap: args.bootstrap,
            seed: args.seed,
        },
    )?;
    if args.json {
        return print_json(out, &view);
    }
    let result = &view.panel;
    if result.cases == 0 {
        writeln!(
            out,
            "no rater has submitted an answer yet: agreement is measured on submitted answers"
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "{}: {}, {}{}, first submissions",
        result.questionnaire,
        ops::counted(result.cases, "case"),
        ops::counted(result.raters.len(), "rater"),
        if view.groups.is_some() {
            " (humans and models pooled)"
        } else {
            ""
        }
    )?;
    for q in &result.questions {
        writeln!(
            out,
            "\n== {} {} ({:?}; categories {})",
            q.number,
            q.question,
            q.level,
            q.categories.join(", ")
        )?;
        write!(out, "{}", render_agreement_text(&q.report))?;
        for r in &q.reference {
            writeln!(
                out,
                "against reference {}: {}, agreement {}, kappa {}",
                r.set,
                ops::counted(r.units, "case"),
                r.percent_agreement
                    .map_or_else(|| "undefined".into(), |v| format!("{v:.4}")),
                r.kappa
                    .map_or_else(|| "undefined".into(), |v| format!("{v:.4}"))
            )?;
        }
        if args.question.is_some() {
            for c in &q.confusion {
                writeln!(
                    out,
                    "\nconfusion {} (rows) x {} (columns), {}",
                    c.rater_a,
                    c.rater_b,
                    ops::counted(c.units, "case")
                )?;
                writeln!(
                    out,
                    "{:>16} {}",
                    "",
                    q.categories
                        .iter()
                        .map(|c| format!("{c:>16}"))
                        .collect::<String>()
                )?;
                for (label, row) in q.categories.iter().zip(&c.counts) {
                    writeln!(
                        out,
                        "{label:>16} {}",
                        row.iter().map(|n| format!("{n:>16}")).collect::<String>()
                    )?;
                }
            }
        }
    }
    if !result.skipped.is_empty() {
        writeln!(
            out,
            "\ntext questions, not measured: {}",
            result.skipped.join(", ")
        )?;
    }
    for group in view.groups.iter().flatten() {
        write_group(out, group)?;
    }
    Ok(())
}

/// One group of `verity agreement --include-models`: among humans, among models, or pooled.
fn write_group(out: &mut dyn Write, group: &ops::GroupAgreement) -> Result<()> {
    writeln!(
        out,
        "\n== agreement among {}: {} ({}), {}",
        group.among.name(),
        ops::counted(group.raters.len(), "rater"),
        group.raters.join(", "),
        ops::counted(group.cases, "case")
    )?;
    if let Some(why) = &group.absent {
        writeln!(out, "not measured: {why}")?;
    }
    for q in &group.questions {
        let figure = |key: &str| {
            q.coefficients
                .iter()
                .find(|c| c.key == key)
                .and_then(|c| c.value)
                .map_or_else(|| "undefined".into(), |v| format!("{v:.4}"))
        };
        let alpha = format!("krippendorff_alpha.{}", q.report.level.name());
        writeln!(
            out,
            "{} {}: {} units, percent agreement {}, Krippendorff's alpha {}",
            q.number,
            q.question,
            q.report.units,
            figure("percent_agreement"),
            figure(&alpha)
        )?;
    }
    Ok(())
}

/// `verity ensemble`.
pub fn ensemble(s: &Session, args: EnsembleArgs, out: &mut dyn Write) -> Result<()> {
    let report = ops::ensemble_labels(&s.open()?, args.rule.as_deref())?;
    if args.json {
        return print_json(out, &report);
    }
    for case in &report.cases {
        let labels: Vec<String> = case
            .labels
            .iter()
            .map(|l| match &l.value {
                Some(v) => format!(
                    "{}={} ({} by {})",
                    l.question,
                    match v {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    },
                    l.procedure.as_deref().unwrap_or(""),
                    l.decided_by.join(",")
                ),
                None => format!("{}=none", l.question),
            })
            .collect();
        let verdict = match case.filter_out {
            Some(true) => "filtered out",
            Some(false) => "kept",
            None => "undecided",
        };
        writeln!(
            out,
            "{}\t{verdict}\t{}",
            case.instance_id,
            labels.join("  ")
        )?;
    }
    writeln!(
        out,
        "rule {}: {}, {} kept, {} filtered out, {} undecided",
        report.rule,
        ops::counted(report.cases.len(), "case"),
        report.kept,
        report.filtered_out,
        report.undecided
    )?;
    if let Some(filter) = &report.filter {
        writeln!(out, "filter: {filter}")?;
    }
    Ok(())
}

/// `verity disagreements`.
pub fn disagreements(s: &Session, args: DisagreementsArgs, out: &mut dyn Write) -> Result<()> {
    let p = s.open()?;
    let list = match args.question.as_deref() {
        Some(q) => ops::disagreements_on(&p, q)?,
        None => ops::list_disagreements(&p)?,
    };
    if args.json {
        return print_json(out, &list);
    }
    for d in &list {
        let answers: Vec<String> = d
            .answers
            .iter()
            .map(|a| {
                format!(
                    "{}:{}",
                    a.rater,
                    match &a.value {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    }
                )
            })
            .collect();
        writeln!(
            out,
            "{}\t{} {}\tspread {}\t{} distinct\t{}{}",
            d.case,
            d.number,
            d.question,
            d.spread,
            d.distinct,
            answers.join("  "),
            d.adjudication
                .as_ref()
                .map(|a| format!("\tadjudicated {} by {}", a.decision.value, a.decision.by))
                .unwrap_or_default()
        )?;
    }
    writeln!(out, "{} disagreements", list.len())?;
    Ok(())
}

/// `verity report`.
pub fn report(s: &Session, args: ReportArgs, out: &mut dyn Write) -> Result<()> {
    let p = s.open()?;
    let summary = ops::write_report(
        &p,
        &args.out,
        args.bootstrap,
        args.seed,
        overwrite(args.force),
    )?;
    writeln!(
        out,
        "wrote {} and {} ({} kept, {} filtered out)",
        summary.markdown,
        ops::counted(summary.charts.len(), "chart"),
        ops::counted(summary.kept, "case"),
        summary.filtered_out
    )?;
    Ok(())
}
