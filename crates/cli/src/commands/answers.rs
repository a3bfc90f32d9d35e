//! Answers: recording and adjudicating them, settling conflicts; the questionnaire's questions.

use std::io::Write;

use annotations::ops::{self, AnswerRequest};
use anyhow::{Context, Result, bail};

use crate::output::print_json;
use crate::schema::answers::{
    AdjudicateArgs, AdjudicatorAction, AnswerArgs, ConflictAction, QuestionsArgs,
};
use crate::session::Session;

pub fn answer(s: &Session, args: AnswerArgs, out: &mut dyn Write) -> Result<()> {
    let AnswerArgs {
        rater,
        case_id,
        file,
        submit,
        reason,
        json,
    } = args;
    let mut p = s.open()?;
    // `--rater` says who answers; the coordinator acts as that rater for this command.
    if p.actor() == Some(&ops::Actor::Coordinator) {
        p.act_as(ops::Actor::Rater {
            name: rater.clone(),
        })?;
    }
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let values: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}, line {}: not valid JSON ({e})",
            file.display(),
            e.line()
        )
    })?;
    let serde_json::Value::Object(values) = values else {
        bail!(
            "{}: expected a JSON object of question ids to answers",
            file.display()
        );
    };
    let req = AnswerRequest {
        rater,
        case: case_id,
        values,
        case_revision: None,
        reason: reason.clone(),
    };
    let view = match (submit, reason.is_some()) {
        (false, true) => bail!("--reason is for revising a submitted answer: add --submit"),
        (false, false) => ops::save_draft(&mut p, &req, s.now)?,
        (true, false) => ops::submit_answer(&mut p, &req, s.now)?,
        (true, true) => ops::revise_answer(&mut p, &req, s.now)?,
    };
    if json {
        print_json(out, &view)?;
    } else if view.unchanged {
        writeln!(
            out,
            "{}'s submitted answer on {} is already this; nothing was saved (answer revision {})",
            view.rater, view.case, view.answer_revision
        )?;
    } else {
        writeln!(
            out,
            "{} {} on {} (answer revision {}, {})",
            view.rater,
            match view.status {
                ops::AnswerStatus::Submitted if view.answer_revision > 1 => "revised",
                ops::AnswerStatus::Submitted => "submitted",
                _ => "saved a draft",
            },
            view.case,
            view.answer_revision,
            view.questionnaire
        )?;
    }
    Ok(())
}

pub fn questions(s: &Session, args: QuestionsArgs, out: &mut dyn Write) -> Result<()> {
    let QuestionsArgs { json } = args;
    let p = s.open()?;
    let questions = ops::list_questions(&p);
    if json {
        print_json(out, &questions)?;
    } else {
        for q in &questions {
            let scale: Vec<String> = q
                .scale
                .iter()
                .map(|v| match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}",
                q.number,
                q.id,
                serde_json::to_value(q.kind)?.as_str().unwrap_or_default(),
                serde_json::to_value(q.level)?.as_str().unwrap_or_default(),
                if scale.is_empty() {
                    "-".to_string()
                } else {
                    scale.join(" | ")
                },
                q.rules.join("; ")
            )?;
        }
        writeln!(
            out,
            "a value is one of its question's scale, in a draft too; a submission (`verity answer --submit`) also meets every rule above"
        )?;
    }
    Ok(())
}

pub fn adjudicate(s: &Session, args: AdjudicateArgs, out: &mut dyn Write) -> Result<()> {
    let AdjudicateArgs {
        case_id,
        question,
        value,
        rationale,
        by,
        json,
    } = args;
    let mut p = s.open()?;
    // A number when the text is one (scale values), otherwise the text (buckets).
    let value = serde_json::from_str::<serde_json::Value>(&value)
        .ok()
        .filter(|v| v.is_number())
        .unwrap_or(serde_json::Value::String(value));
    let req = ops::AdjudicationRequest {
        case: case_id,
        question,
        value,
        rationale,
        by,
    };
    let view = ops::adjudicate(&mut p, &req, s.now)?;
    if json {
        print_json(out, &view)?;
    } else {
        let d = &view.decision;
        writeln!(
            out,
            "{} decided {} = {} on {}",
            d.by, d.question, d.value, d.case
        )?;
    }
    Ok(())
}

pub fn conflicts(s: &Session, action: ConflictAction, out: &mut dyn Write) -> Result<()> {
    match action {
        ConflictAction::List { all, json } => {
            let p = s.open()?;
            let conflicts = ops::list_conflicts(&p, all)?;
            if json {
                print_json(out, &conflicts)?;
            } else {
                for c in &conflicts {
                    write_conflict(out, c)?;
                }
                writeln!(
                    out,
                    "{} {}conflicts",
                    conflicts.len(),
                    if all { "" } else { "open " }
                )?;
            }
        }
        ConflictAction::Resolve {
            id,
            keep,
            note,
            json,
        } => {
            let mut p = s.open()?;
            let keep = if keep == "incoming" {
                ops::Keep::Incoming
            } else {
                ops::Keep::Stored
            };
            let settled = ops::resolve_conflict(&mut p, id, keep, note.as_deref(), s.now)?;
            if json {
                print_json(out, &settled)?;
            } else {
                writeln!(
                    out,
                    "conflict {id} settled: {}",
                    settled.resolution.as_deref().unwrap_or_default()
                )?;
            }
        }
    }
    Ok(())
}

pub fn adjudicators(s: &Session, action: AdjudicatorAction, out: &mut dyn Write) -> Result<()> {
    match action {
        AdjudicatorAction::Add { name } => {
            let mut p = s.open()?;
            ops::add_adjudicator(&mut p, &name, s.now)?;
            writeln!(out, "{} may adjudicate", name.trim())?;
        }
        AdjudicatorAction::Remove { name } => {
            let mut p = s.open()?;
            ops::remove_adjudicator(&mut p, &name)?;
            writeln!(out, "{name} may no longer adjudicate; their decisions stay")?;
        }
        AdjudicatorAction::List => {
            let p = s.open()?;
            let names = ops::list_adjudicators(&p)?;
            writeln!(out, "{} (always)", ops::COORDINATOR)?;
            for name in names {
                writeln!(out, "{name}")?;
            }
        }
    }
    Ok(())
}

/// One conflict as `conflicts list` prints it: who, which task, what each answer says.
fn write_conflict(out: &mut dyn Write, c: &ops::ConflictView) -> Result<()> {
    writeln!(
        out,
        "conflict {}: {} on {}, {} revision {} saved {} in {} ({})",
        c.id,
        c.rater,
        c.instance_id,
        c.kind.as_str(),
        c.answer_revision,
        c.at,
        c.origin,
        c.resolution.as_deref().unwrap_or("open")
    )?;
    let show = |values: &serde_json::Map<String, serde_json::Value>| {
        values
            .iter()
            .filter(|(_, v)| !v.is_string())
            .map(|(q, v)| format!("{q}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    writeln!(out, "  its answer:     {}", show(&c.values))?;
    match (&c.current_revision, &c.current_values) {
        (Some(n), Some(values)) => writeln!(out, "  revision {n} held: {}", show(values))?,
        _ => writeln!(out, "  the project holds no submitted answer")?,
    }
    Ok(())
}
