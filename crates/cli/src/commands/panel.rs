//! Raters and the panel: raters and their quality, assignments, server logins.

use std::io::Write;
use std::path::Path;

use annotations::ops;
use anyhow::{Context, Result, bail};

use crate::output::print_json;
use crate::schema::panel::{AssignArgs, PanelAction, RaterAction};
use crate::session::Session;

pub fn raters(s: &Session, action: RaterAction, out: &mut dyn Write) -> Result<()> {
    match action {
        RaterAction::Add { name } => {
            let mut p = s.open()?;
            let rater = ops::add_rater(&mut p, &name, s.now)?;
            writeln!(out, "added rater {}", rater.name)?;
        }
        RaterAction::Deactivate { name } => {
            let mut p = s.open()?;
            let change = ops::deactivate_rater(&mut p, &name, s.now)?;
            writeln!(
                out,
                "deactivated {}: {} kept, {} released (give them to others with `verity assign --per-case K`)",
                change.name,
                ops::counted(change.submitted, "submitted answer"),
                ops::counted(change.released, "unfinished case"),
            )?;
        }
        RaterAction::Activate { name } => {
            let mut p = s.open()?;
            let rater = ops::reactivate_rater(&mut p, &name, s.now)?;
            let quoted = ops::shell_quote(&rater.name);
            writeln!(
                out,
                "reactivated {}: the cases released when they left are not given back; `verity assign --per-case K` gives them a share of the cases still short of raters, and `verity assign --rater {quoted} --case ID` gives them named ones",
                rater.name
            )?;
        }
        RaterAction::Remove { name } => {
            let mut p = s.open()?;
            let change = ops::remove_rater(&mut p, &name)?;
            writeln!(
                out,
                "removed rater {} and {}",
                change.name,
                ops::counted(change.released, "assignment")
            )?;
        }
        RaterAction::Quality {
            question,
            reference,
            bootstrap,
            seed,
            json,
        } => {
            let p = s.open()?;
            let report = ops::rater_quality(
                &p,
                &ops::QualityRequest {
                    question,
                    reference,
                    bootstrap: Some(bootstrap),
                    seed,
                },
            )?;
            if json {
                print_json(out, &report.raters)?;
            } else if report.raters.iter().all(|r| r.tasks == 0) {
                if ops::list_raters(&p)?.is_empty() {
                    writeln!(
                        out,
                        "no raters yet: add them with `verity raters add NAME`, and their quality is measured once they submit"
                    )?;
                } else {
                    writeln!(
                        out,
                        "no rater has submitted an answer yet: quality is measured on submitted answers"
                    )?;
                }
            } else {
                write!(out, "{}", quality_text(&report))?;
            }
        }
        RaterAction::List { json } => {
            let p = s.open()?;
            let raters = ops::list_raters(&p)?;
            if json {
                print_json(out, &raters)?;
            } else {
                if raters.is_empty() {
                    writeln!(out, "no raters yet: add one with `verity raters add NAME`")?;
                }
                for r in &raters {
                    writeln!(
                        out,
                        "{}\t{} assigned\t{} submitted{}",
                        r.name,
                        r.assigned,
                        r.submitted,
                        if r.active { "" } else { "\tdeactivated" }
                    )?;
                }
            }
        }
    }
    Ok(())
}

pub fn assign(s: &Session, args: AssignArgs, out: &mut dyn Write) -> Result<()> {
    let AssignArgs {
        per_case,
        rater,
        case_ids,
        cases_file,
        repo,
        seed,
        sample,
        by,
        predictor,
        label,
        floor,
        json,
    } = args;
    let mut p = s.open()?;
    if let Some(size) = sample {
        let method = match by.as_str() {
            "uniform" => ops::SampleMethod::Uniform,
            "uncertainty" => ops::SampleMethod::Uncertainty {
                predictor: predictor.ok_or_else(|| {
                    anyhow::anyhow!("--by uncertainty needs --predictor (models or risk)")
                })?,
                label,
                floor,
            },
            other => bail!("--by {other:?}: a sample is drawn uniform or by uncertainty"),
        };
        let request = ops::SampleRequest {
            size,
            seed,
            per_case: per_case.unwrap_or(3),
            method,
        };
        let report = ops::draw_sample(&mut p, &request, s.now)?;
        if json {
            return print_json(out, &report);
        }
        let [low, high] = report.probability_range;
        writeln!(
            out,
            "draw {}: {} of {} tasks{}, seed {}; {} in the sample now",
            report.number,
            report.drawn.len(),
            report.offered,
            if report.draw.method == "uniform" {
                format!(", uniformly (each with probability {low:.4})")
            } else {
                format!(
                    ", by the uncertainty of {} (probabilities {low:.4} to {high:.4})",
                    report.draw.predictor.as_deref().unwrap_or("")
                )
            },
            report.draw.seed,
            report.sampled
        )?;
        writeln!(
            out,
            "{}, {} per task",
            ops::counted(report.assign.added, "new assignment"),
            ops::counted(request.per_case, "rater")
        )?;
        for (name, load) in &report.assign.load {
            writeln!(out, "{name}\t{load}")?;
        }
        return Ok(());
    }
    let selection = if let Some(file) = cases_file {
        ops::CaseSelection::Ids(read_case_list(&file)?)
    } else if let Some(repo) = repo {
        ops::CaseSelection::Repo(repo)
    } else if !case_ids.is_empty() {
        ops::CaseSelection::Ids(case_ids)
    } else {
        ops::CaseSelection::All
    };
    let report = match per_case {
        Some(k) => ops::assign(&mut p, k, seed, &selection, s.now)?,
        None => ops::assign_to(&mut p, &rater, &selection, s.now)?,
    };
    if json {
        print_json(out, &report)?;
    } else {
        writeln!(
            out,
            "{} over {}{}{}",
            ops::counted(report.added, "new assignment"),
            ops::counted(report.cases, "case"),
            if report.calibration_assignments > 0 {
                format!(
                    ", {} of them of {}",
                    report.calibration_assignments,
                    ops::counted(report.calibration.len(), "calibration task")
                )
            } else {
                String::new()
            },
            if report.without_materials > 0 {
                format!(
                    " ({} without materials left out: import their instances first)",
                    ops::counted(report.without_materials, "task")
                )
            } else {
                String::new()
            }
        )?;
        if let Some(why) = &report.why_none {
            writeln!(out, "nothing assigned: {why}")?;
        }
        for (name, load) in &report.load {
            writeln!(out, "{name}\t{load}")?;
        }
    }
    Ok(())
}

pub fn panel(s: &Session, action: PanelAction, out: &mut dyn Write) -> Result<()> {
    match action {
        PanelAction::Grant { name, reset, json } => {
            let mut p = s.open()?;
            let login = ops::panel_grant(&mut p, &name, reset, s.now)?;
            if json {
                print_json(out, &login)?;
            } else {
                writeln!(
                    out,
                    "{} connects as role {} with the password {} (shown once; give it to them privately){}",
                    login.rater,
                    login.role,
                    login.password,
                    if login.reset {
                        "; the old password no longer works"
                    } else {
                        ""
                    }
                )?;
            }
        }
        PanelAction::Revoke { name } => {
            let mut p = s.open()?;
            let role = ops::panel_revoke(&mut p, &name)?;
            writeln!(
                out,
                "removed the login {role} of {name}; their answers stay"
            )?;
        }
        PanelAction::List { json } => {
            let mut p = s.open()?;
            let members = ops::panel_members(&mut p)?;
            if json {
                print_json(out, &members)?;
            } else {
                for m in members {
                    writeln!(out, "{}\t{}", m.rater, m.role)?;
                }
            }
        }
    }
    Ok(())
}

/// The case ids in a file, one per line; blank lines and `#` comments are skipped.
fn read_case_list(file: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read the case list {}", file.display()))?;
    let ids: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    if ids.is_empty() {
        bail!("{} lists no case id (one per line)", file.display());
    }
    Ok(ids)
}

/// The quality report as a table per question: one line per rater.
fn quality_text(report: &ops::QualityReport) -> String {
    let num = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
    let mut text = format!(
        "reference: {}{}; panel median {} s per task\n",
        report.reference.as_deref().unwrap_or("none"),
        if report.calibration_marked {
            " on the calibration tasks"
        } else {
            " on every task it labels"
        },
        num(report.panel_median_active_seconds)
    );
    text.push_str("rater\ttasks\tcalibration\tmedian s\tfast\n");
    for r in &report.raters {
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\n",
            r.rater,
            r.tasks,
            r.calibration_tasks,
            num(r.median_active_seconds),
            if r.fast_submissions.is_empty() {
                "-".to_string()
            } else {
                r.fast_submissions.join(" ")
            }
        ));
    }
    for q in &report.questions {
        text.push_str(&format!(
            "\n{q}\nrater\taccuracy\tkappa_w\tbias [95%]\tkappa vs others\talpha without\n"
        ));
        for r in &report.raters {
            let detail = r.questions.get(q);
            let bias = r.bias.get(q);
            text.push_str(&format!(
                "{}\t{}\t{}\t{}{}\t{}\t{}\n",
                r.rater,
                num(r.accuracy.get(q).copied().flatten()),
                num(r.weighted_kappa.get(q).copied().flatten()),
                num(bias.and_then(|b| b.mean)),
                bias.and_then(|b| b.ci95)
                    .map(|[l, h]| format!(" [{l:.2}, {h:.2}]"))
                    .unwrap_or_default(),
                num(detail.and_then(|d| d.kappa_vs_consensus)),
                num(detail.and_then(|d| d.alpha_without)),
            ));
        }
    }
    text
}
