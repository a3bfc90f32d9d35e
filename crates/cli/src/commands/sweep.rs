//! `verity sweep`: proposals from a file, or from a model rater's endpoint, verified at each
//! task's base commit and tiered; and whether raters see sweeps.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use annotations::ops::{
    self, Engine, ModelSweepRequest, Project, SweepChange, SweepResult, SweepSelection,
    SweepStanding,
};
use anyhow::{Context, Result, bail};
use time::OffsetDateTime;

use super::models::{run_status, usd, with_run_bar};
use crate::output::print_json;
use crate::schema::evidence::SweepArgs;
use crate::session::Session;

/// `verity sweep --proposals FILE`, `verity sweep (ID... | --all) --model NAME` (stopped by
/// Ctrl-C or its budget, it exits as `models rate` does) or `verity sweep --for-raters on|off`.
pub fn sweep(s: &Session, args: SweepArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let SweepArgs {
        cases,
        all,
        proposals,
        model,
        concurrency,
        budget_usd,
        timeout,
        for_raters,
        json,
    } = args;
    let mut p = s.open()?;
    if let Some(setting) = for_raters {
        ops::set_sweep_for_raters(&mut p, setting == "on")?;
        writeln!(
            out,
            "sweeps are {} raters",
            if setting == "on" {
                "shown to"
            } else {
                "hidden from"
            }
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(name) = model {
        if cases.is_empty() && !all {
            bail!("sweep --model needs the tasks: their ids, or --all");
        }
        if concurrency == 0 {
            bail!("--concurrency must be at least 1");
        }
        let request = ModelSweepRequest {
            name,
            cases: if all {
                SweepSelection::All
            } else {
                SweepSelection::Ids(cases)
            },
            concurrency,
            budget_usd,
            timeout: Duration::from_secs(timeout.max(1)),
        };
        return with_model(&mut p, &request, json, out);
    }
    let Some(file) = proposals else {
        return Ok(ExitCode::SUCCESS);
    };
    let name = file.display().to_string();
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read the proposals file {name}"))?;
    let proposals = ops::read_proposals(&text, &name)?;
    if proposals.is_empty() {
        let said = format!("{name} holds no proposals; nothing was swept");
        if json {
            print_json(out, &proposals)?;
            eprintln!("verity: {said}");
        } else {
            writeln!(out, "{said}")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let run = ops::sweep_proposals(&mut p, &Engine::default(), &proposals, &name, s.now)?;
    if json {
        print_json(out, &run.results)?;
        for change in &run.changes {
            eprintln!("verity: {}", describe_change(change));
        }
    } else {
        write_results(out, run.results.iter())?;
        for change in &run.changes {
            writeln!(out, "{}", describe_change(change))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What a sweep changed for a task, in a line: the proposals it keeps, and its standing before
/// and after.
fn describe_change(c: &SweepChange) -> String {
    let standing = |s: &Option<SweepStanding>| match s {
        None => "not swept".to_string(),
        Some(s) => format!(
            "{}, risk {}, {}",
            s.tier.as_str(),
            s.risk.map_or("unknown".into(), |r| format!("{r:.2}")),
            if s.red { "red" } else { "not red" }
        ),
    };
    let kept = format!(
        "{} proposal{} kept ({} added by this sweep{})",
        c.kept,
        if c.kept == 1 { "" } else { "s" },
        c.added,
        match c.dropped {
            0 => String::new(),
            n => format!(", {n} made at another base commit dropped"),
        }
    );
    if c.before == c.after {
        format!("{}: {kept}; still {}", c.instance_id, standing(&c.after))
    } else {
        format!(
            "{}: {kept}; {} (was {})",
            c.instance_id,
            standing(&c.after),
            standing(&c.before)
        )
    }
}

fn with_model(
    p: &mut Project,
    request: &ModelSweepRequest,
    json: bool,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let report = with_run_bar(
        format!("sweep by {}", request.name),
        ("swept", "swept before"),
        |progress, cancel| {
            ops::sweep_with_model(
                p,
                &Engine::default(),
                request,
                &OffsetDateTime::now_utc,
                progress,
                cancel,
            )
        },
    )?;
    let run = &report.run;
    let summary = format!(
        "{}: {} swept, {} failed, {} swept before by this model{}; {} input and {} output tokens, {}{}",
        request.name,
        run.rated,
        run.failed,
        run.skipped,
        if run.stopped.is_some() {
            format!(", {} left", run.left)
        } else {
            String::new()
        },
        run.input_tokens,
        run.output_tokens,
        usd(run.cost_usd),
        match report.left_out {
            0 => String::new(),
            n => format!(
                "; {n} task{} left out (no base commit, or no clone registered)",
                if n == 1 { "" } else { "s" }
            ),
        }
    );
    if json {
        print_json(out, &report.results)?;
        for change in &report.changes {
            eprintln!("verity: {}", describe_change(change));
        }
        eprintln!("verity: {summary}");
    } else {
        write_results(out, report.results.iter().map(|r| &r.result))?;
        for change in &report.changes {
            writeln!(out, "{}", describe_change(change))?;
        }
        writeln!(out, "{summary}")?;
    }
    for failure in &run.failures {
        eprintln!(
            "verity: no proposal for {}: {}",
            failure.case, failure.reason
        );
    }
    if let Some(why) = &run.stopped {
        eprintln!("verity: {why}");
    }
    Ok(run_status(run))
}

fn write_results<'a>(
    out: &mut dyn Write,
    results: impl Iterator<Item = &'a SweepResult>,
) -> Result<()> {
    for r in results {
        writeln!(
            out,
            "{}: {} ({} of {} verified, {}): {}",
            r.iid,
            r.tier.as_str(),
            r.n_verified,
            ops::counted(r.snippets.len(), "snippet"),
            ops::counted(r.ways_verified, "live way"),
            r.rests_on
        )?;
        for snippet in &r.snippets {
            let first = snippet.snippet.trim().lines().next().unwrap_or_default();
            match (&snippet.verified_path, snippet.line) {
                (Some(path), Some(line)) => writeln!(out, "  verified at {path}:{line}: {first}")?,
                _ => writeln!(out, "  not verified: {first}")?,
            }
            writeln!(out, "    receipt: {}", snippet.receipt.command)?;
        }
        for step in &r.judged {
            writeln!(
                out,
                "  judged, not mechanical: {} {} (by {})",
                step.step,
                match step.judgment {
                    Some(true) => "yes",
                    Some(false) => "no",
                    None => "not answered",
                },
                step.by
            )?;
        }
    }
    Ok(())
}
