//! `verity models`: model raters (an LLM behind an OpenAI-compatible endpoint) added, listed,
//! removed and run over tasks with a bar of tasks, tokens and dollars on stderr.

use std::io::Write;
use std::time::Duration;

use annotations::ops::{self, CaseSelection, ModelAddRequest, ModelSummary, Project, RateRequest};
use anyhow::{Result, bail};
use clap::Subcommand;
use time::OffsetDateTime;

#[derive(Subcommand)]
pub enum ModelsAction {
    /// Add a model rater. The API key is never given: name the environment variable that
    /// holds it (--api-key-env), read when the model rates.
    Add {
        /// The rater's name.
        name: String,
        /// The API's base URL, to which /chat/completions is appended
        /// (https://api.openai.com/v1, http://127.0.0.1:8080/v1).
        #[arg(long)]
        endpoint: String,
        /// The model id sent in each request.
        #[arg(long)]
        model: String,
        /// The environment variable holding the API key.
        #[arg(long, value_name = "VAR")]
        api_key_env: Option<String>,
        /// Sampling temperature.
        #[arg(long, value_name = "T")]
        temperature: Option<f64>,
        /// Sampling seed.
        #[arg(long, value_name = "N")]
        seed: Option<i64>,
        /// The most tokens a reply may have.
        #[arg(long, value_name = "N")]
        max_output_tokens: Option<u32>,
        /// USD per million input tokens (unknown when not given, never taken as zero).
        #[arg(long, value_name = "USD_PER_MTOK")]
        price_in: Option<f64>,
        /// USD per million output tokens.
        #[arg(long, value_name = "USD_PER_MTOK")]
        price_out: Option<f64>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the model raters with their configuration and what their requests cost.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a model rater that never answered.
    Remove {
        /// The rater's name.
        name: String,
    },
    /// Ask a model rater for each task not yet submitted and store each valid answer as its
    /// submission, with provenance. Replies are cached, so a rerun pays nothing twice; Ctrl-C
    /// stops cleanly.
    Rate {
        /// The rater's name.
        name: String,
        /// The tasks, by id or unique prefix.
        #[arg(long = "case", value_name = "ID", num_args = 1.., required_unless_present = "all", conflicts_with = "all")]
        cases: Vec<String>,
        /// Every task with materials.
        #[arg(long)]
        all: bool,
        /// Requests at once.
        #[arg(long, default_value_t = 4)]
        concurrency: usize,
        /// Stop before a request that could take the run's cost past this many USD.
        #[arg(long, value_name = "X")]
        budget_usd: Option<f64>,
        /// Seconds one request may take before it is retried.
        #[arg(long, default_value_t = 120)]
        timeout: u64,
        /// Print JSON: {"rated", "failed", "skipped", "cost_usd", "input_tokens", "output_tokens"}.
        #[arg(long)]
        json: bool,
    },
}

fn print_json<T: serde::Serialize>(out: &mut dyn Write, value: &T) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// A price or a cost: its value, or `unknown`.
fn usd(value: Option<f64>) -> String {
    value.map_or_else(|| "unknown".to_string(), |v| format!("${v:.4}"))
}

fn write_summary(out: &mut dyn Write, m: &ModelSummary) -> Result<()> {
    writeln!(
        out,
        "{}{}\t{} at {}\tkey from {}\tprice in {} / out {} per Mtok\t{} requests, {} spent\tprompt {} {}{}",
        m.name,
        if m.active { "" } else { " (deactivated)" },
        m.config.model,
        m.config.endpoint,
        m.config.api_key_env.as_deref().unwrap_or("(none)"),
        usd(m.config.price_in),
        usd(m.config.price_out),
        m.requests,
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

pub fn run(
    p: &mut Project,
    action: ModelsAction,
    now: OffsetDateTime,
    out: &mut dyn Write,
) -> Result<()> {
    match action {
        ModelsAction::Add {
            name,
            endpoint,
            model,
            api_key_env,
            temperature,
            seed,
            max_output_tokens,
            price_in,
            price_out,
            json,
        } => {
            let added = ops::add_model(
                p,
                &ModelAddRequest {
                    name,
                    endpoint,
                    model,
                    api_key_env,
                    temperature,
                    seed,
                    max_output_tokens,
                    price_in,
                    price_out,
                },
                now,
            )?;
            if json {
                return print_json(out, &added);
            }
            write!(out, "added model rater ")?;
            write_summary(out, &added)
        }
        ModelsAction::List { json } => {
            let models = ops::list_models(p)?;
            if json {
                return print_json(out, &models);
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
            rate(p, &request, json, out)
        }
    }
}

fn rate(p: &mut Project, request: &RateRequest, json: bool, out: &mut dyn Write) -> Result<()> {
    let cancel = super::cancel_on_ctrl_c();
    let bar = super::progress_bar(
        0,
        "{prefix} {bar:30} {pos}/{len} tasks, {msg} [{elapsed_precise}]",
    );
    if let Some(bar) = &bar {
        bar.set_prefix(request.name.clone());
    }
    let result = ops::rate_model(
        p,
        request,
        &OffsetDateTime::now_utc,
        &mut |step| {
            if let Some(bar) = &bar {
                bar.set_length(step.tasks as u64);
                bar.set_position(step.done as u64);
                bar.set_message(format!(
                    "{} rated, {} failed, {} skipped, {} tokens in, {} out, {}",
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
    let report = result?;
    if let Some(why) = &report.stopped {
        eprintln!("verity: {why}");
    }
    if json {
        return print_json(out, &report);
    }
    writeln!(
        out,
        "{}: {} rated, {} failed, {} skipped (already submitted); {} input and {} output tokens, {}",
        request.name,
        report.rated,
        report.failed,
        report.skipped,
        report.input_tokens,
        report.output_tokens,
        usd(report.cost_usd)
    )?;
    Ok(())
}
