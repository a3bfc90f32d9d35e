//! `verity models`: model raters (an LLM behind an OpenAI-compatible endpoint) added, listed,
//! removed and run over tasks with a bar of tasks, tokens and dollars on stderr.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use annotations::ops::{
    self, AgreementFigure, BootstrapOptions, CaseSelection, CompareRequest, Halt, ModelComparison,
    ModelSummary, Project, RateProgress, RateReport, RateRequest,
};
use anyhow::{Result, bail};
use time::OffsetDateTime;

use crate::output::print_json;
use crate::schema::models::ModelsAction;
use crate::session::Session;

/// A price or a cost: its value, or `unknown`. Never `-0.0000`.
pub(super) fn usd(value: Option<f64>) -> String {
    value.map_or_else(
        || "unknown".to_string(),
        |v| format!("${:.4}", if v == 0.0 { 0.0 } else { v }),
    )
}

fn write_summary(out: &mut dyn Write, m: &ModelSummary) -> Result<()> {
    writeln!(
        out,
        "{}{}\t{} at {}\tkey from {}{}\tprice in {} / out {} per Mtok\t{}, {} spent\tprompt {} {}{}",
        m.name,
        if m.active { "" } else { " (deactivated)" },
        m.config.settings.model,
        m.config.settings.endpoint,
        m.api_key_var,
        if m.config.settings.api_key_env.is_none() {
            " (the default)"
        } else {
            ""
        },
        usd(m.config.settings.price_in),
        usd(m.config.settings.price_out),
        ops::counted(m.requests, "request"),
        usd(m.cost_usd),
        m.config.prompt_id,
        m.config.prompt_version,
        m.dialect
            .as_deref()
            .map(|d| format!("\t{d}"))
            .unwrap_or_default(),
    )?;
    Ok(())
}

/// The exit status of a model run (`models rate`, `sweep --model`) that Ctrl-C stopped (128 +
/// SIGINT, as shells give it).
pub(super) const STOPPED_STATUS: u8 = 130;

/// The exit status of a model run that its budget stopped with tasks left.
pub(super) const BUDGET_STATUS: u8 = 3;

/// A model run's exit status: [`STOPPED_STATUS`] when Ctrl-C stopped it, [`BUDGET_STATUS`] when
/// its budget did, else success.
pub(super) fn run_status(report: &RateReport) -> ExitCode {
    if report.cancelled {
        ExitCode::from(STOPPED_STATUS)
    } else if report.over_budget {
        ExitCode::from(BUDGET_STATUS)
    } else {
        ExitCode::SUCCESS
    }
}

/// `verity models add|list|remove|rate|compare`; `rate` stopped by Ctrl-C exits
/// [`STOPPED_STATUS`], by its budget [`BUDGET_STATUS`].
pub fn models(s: &Session, action: ModelsAction, out: &mut dyn Write) -> Result<ExitCode> {
    let p = &mut s.open()?;
    let now = s.now;
    match action {
        ModelsAction::Add(add) => {
            let json = add.json;
            let added = ops::add_model(p, &add.request()?, now)?;
            if json {
                print_json(out, &added)?;
                return Ok(ExitCode::SUCCESS);
            }
            write!(out, "added model rater ")?;
            write_summary(out, &added)
        }
        ModelsAction::List { json } => {
            let models = ops::list_models(p)?;
            if json {
                print_json(out, &models)?;
                return Ok(ExitCode::SUCCESS);
            }
            if models.is_empty() {
                writeln!(
                    out,
                    "no model raters yet: `verity models add NAME --endpoint URL --model MODEL`"
                )?;
            }
            for m in &models {
                write_summary(out, m)?;
            }
            Ok(())
        }
        ModelsAction::Remove { name } => {
            ops::remove_model(p, &name)?;
            writeln!(out, "removed model rater {name}")?;
            Ok(())
        }
        ModelsAction::Rate {
            name,
            cases,
            all,
            concurrency,
            budget_usd,
            timeout,
            json,
        } => {
            if concurrency == 0 {
                bail!("--concurrency must be at least 1");
            }
            let request = RateRequest {
                name,
                cases: if all {
                    CaseSelection::All
                } else {
                    CaseSelection::Ids(cases)
                },
                concurrency,
                budget_usd,
                timeout: Duration::from_secs(timeout.max(1)),
            };
            return rate(p, &request, json, out);
        }
        ModelsAction::Compare {
            question,
            epsilon,
            bootstrap,
            seed,
            json,
        } => {
            let request = CompareRequest {
                question,
                epsilon,
                bootstrap: BootstrapOptions {
                    resamples: bootstrap,
                    seed,
                    ..BootstrapOptions::default()
                },
            };
            compare(&ops::compare_models(p, &request)?, json, out)
        }
    }
    .map(|()| ExitCode::SUCCESS)
}

/// A figure with its interval, or why there is none.
fn figure(f: &AgreementFigure) -> String {
    match (f.estimate, f.ci) {
        (Some(e), Some([lo, hi])) => format!("{e:.3} [{lo:.3}, {hi:.3}]"),
        (Some(e), None) => format!("{e:.3}"),
        _ => "undefined".to_string(),
    }
}

fn compare(results: &[ModelComparison], json: bool, out: &mut dyn Write) -> Result<()> {
    if json {
        return print_json(out, &results);
    }
    if results.is_empty() {
        writeln!(
            out,
            "no model rater to compare: add one with `verity models add`"
        )?;
        return Ok(());
    }
    for r in results {
        let verdict = match (r.winning_rate, r.passed, &r.refused) {
            (Some(w), Some(passed), _) => format!(
                "winning rate {w:.2}: {}",
                if passed { "passed" } else { "not passed" }
            ),
            (_, _, Some(why)) => format!("refused: {why}"),
            _ => "refused".to_string(),
        };
        writeln!(
            out,
            "{}\t{}\tε = {}\t{}\t{verdict}\tκw vs consensus {}\tα humans {}\tα with model {}",
            r.model,
            r.question,
            r.epsilon,
            ops::counted(r.n_cases, "task"),
            figure(&r.kappa_vs_consensus),
            figure(&r.alpha_humans),
            figure(&r.alpha_with_model),
        )?;
    }
    let mut methods: Vec<&str> = results.iter().map(|r| r.method.as_str()).collect();
    methods.sort_unstable();
    methods.dedup();
    for method in methods {
        writeln!(out, "method: {method}")?;
    }
    Ok(())
}

/// Runs a model over tasks with a bar of tasks, tokens and dollars on stderr (on a terminal),
/// Ctrl-C stopping it in steps (`output::halt_on_ctrl_c`); `done` and `skipped` name the bar's
/// counts ("rated", "skipped").
pub(super) fn with_run_bar<T>(
    prefix: String,
    (done, skipped): (&str, &str),
    run: impl FnOnce(&mut dyn FnMut(&RateProgress), &Halt) -> ops::Result<T>,
) -> Result<T> {
    let cancel = crate::output::halt_on_ctrl_c();
    let bar = crate::output::progress_bar(
        0,
        "{prefix} {bar:30} {pos}/{len} tasks, {msg} [{elapsed_precise}]",
    );
    if let Some(bar) = &bar {
        bar.set_prefix(prefix);
    }
    let result = run(
        &mut |step| {
            if let Some(bar) = &bar {
                bar.set_length(step.tasks as u64);
                bar.set_position(step.done as u64);
                bar.set_message(format!(
                    "{} {done}, {} failed, {} {skipped}, {} tokens in, {} out, {}",
                    step.rated,
                    step.failed,
                    step.skipped,
                    step.input_tokens,
                    step.output_tokens,
                    usd(step.cost_usd)
                ));
            }
        },
        &cancel,
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(result?)
}

fn rate(
    p: &mut Project,
    request: &RateRequest,
    json: bool,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let report = with_run_bar(
        request.name.clone(),
        ("rated", "skipped"),
        |progress, cancel| ops::rate_model(p, request, &OffsetDateTime::now_utc, progress, cancel),
    )?;
    if let Some(why) = &report.stopped {
        eprintln!("verity: {why}");
    }
    let status = run_status(&report);
    if json {
        print_json(out, &report)?;
        return Ok(status);
    }
    writeln!(
        out,
        "{}: {} rated, {} failed, {} skipped (already submitted){}; {} input and {} output tokens, {}",
        request.name,
        report.rated,
        report.failed,
        report.skipped,
        if report.stopped.is_some() {
            format!(", {} left", report.left)
        } else {
            String::new()
        },
        report.input_tokens,
        report.output_tokens,
        usd(report.cost_usd)
    )?;
    for failure in &report.failures {
        writeln!(out, "  failed {}: {}", failure.case, failure.reason)?;
    }
    Ok(status)
}
