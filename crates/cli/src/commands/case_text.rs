//! `verity case show` as text: what a reader needs to judge the task, then the answers.

use std::io::Write;

use annotations::ops::{self, CaseDetail, RaterAnswerHistory, parse_patch};
use anyhow::Result;

/// PASS_TO_PASS lists run to hundreds of tests; the text shows this many and counts the rest.
const PASS_TO_PASS_SHOWN: usize = 20;

pub fn write_case(
    out: &mut dyn Write,
    case: &CaseDetail,
    answers: &[RaterAnswerHistory],
    questions: &[&str],
) -> Result<()> {
    writeln!(out, "{}  (revision {})", case.instance_id, case.revision)?;
    writeln!(out, "title: {}", case.title)?;
    writeln!(out, "repository: {}", case.repo)?;
    writeln!(
        out,
        "base commit: {}",
        case.base_commit.as_deref().unwrap_or("unknown")
    )?;
    if let Some(url) = &case.pr_url {
        writeln!(out, "pull request: {url}")?;
    }
    // A rater's view carries no sources (where a task came from can name the audit).
    if !case.sources.is_empty() {
        writeln!(out, "sources: {}", case.sources.join(", "))?;
    }
    if !case.has_materials {
        writeln!(
            out,
            "materials: none (no problem statement or gold patch): import the task's instance before assigning it"
        )?;
    }
    if let Some(status) = &case.audit_status {
        writeln!(
            out,
            "audit: {status}{}",
            case.audit_class
                .as_deref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default()
        )?;
    }
    for a in &case.assignments {
        writeln!(
            out,
            "rater {}: {} ({} s active)",
            a.rater,
            crate::output::status_word(a.status),
            a.active_ms / 1000
        )?;
    }
    section(out, "Issue", &case.problem_statement)?;
    if !case.hints_text.trim().is_empty() {
        section(out, "Hints", &case.hints_text)?;
    }
    if let Some(text) = &case.requirements {
        section(out, "Requirements", text)?;
    }
    if let Some(text) = &case.interface {
        section(out, "Interface", text)?;
    }
    write_patch(out, "Gold patch", &case.gold_patch)?;
    write_patch(out, "Test patch", &case.test_patch)?;
    writeln!(out, "\n== Tests")?;
    writeln!(out, "FAIL_TO_PASS ({}):", case.fail_to_pass.len())?;
    for test in &case.fail_to_pass {
        writeln!(out, "  {test}")?;
    }
    writeln!(out, "PASS_TO_PASS ({}):", case.pass_to_pass.len())?;
    for test in case.pass_to_pass.iter().take(PASS_TO_PASS_SHOWN) {
        writeln!(out, "  {test}")?;
    }
    if case.pass_to_pass.len() > PASS_TO_PASS_SHOWN {
        writeln!(
            out,
            "  … and {} more (--json lists them all)",
            case.pass_to_pass.len() - PASS_TO_PASS_SHOWN
        )?;
    }
    writeln!(out, "\n== Answers")?;
    if answers.is_empty() {
        writeln!(out, "none saved yet")?;
    }
    for rater in answers {
        writeln!(
            out,
            "{} ({}):",
            rater.rater,
            crate::output::status_word(rater.status)
        )?;
        for event in &rater.events {
            let what = match event.event {
                ops::EventKind::Draft => "draft".to_string(),
                ops::EventKind::Submit => "submitted (revision 1)".to_string(),
                ops::EventKind::Revise => format!("revised (revision {})", event.answer_revision),
            };
            writeln!(
                out,
                "  {} {what}, on case revision {}{}",
                event.at,
                event.case_revision,
                event
                    .reason
                    .as_deref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            )?;
            // The questionnaire's order, then any value of a question it no longer has.
            let ordered = questions
                .iter()
                .filter_map(|q| event.values.get_key_value(*q))
                .chain(
                    event
                        .values
                        .iter()
                        .filter(|(q, _)| !questions.contains(&q.as_str())),
                );
            for (question, value) in ordered {
                let shown = match value {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                writeln!(out, "    {question}: {shown}")?;
            }
        }
        for c in &rater.conflicts {
            writeln!(
                out,
                "  conflict {} ({}): {} revision {} saved {} in {}, set aside at {}",
                c.id,
                c.resolution
                    .as_deref()
                    .unwrap_or("open: verity conflicts resolve"),
                c.kind.as_str(),
                c.answer_revision,
                c.at,
                c.origin,
                c.found_at
            )?;
            for (question, value) in &c.values {
                let shown = match value {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                writeln!(out, "    {question}: {shown}")?;
            }
        }
    }
    Ok(())
}

fn section(out: &mut dyn Write, title: &str, text: &str) -> Result<()> {
    writeln!(out, "\n== {title}\n{}", text.trim_end())?;
    Ok(())
}

/// The files a patch touches with their added and removed lines.
fn write_patch(out: &mut dyn Write, title: &str, text: &str) -> Result<()> {
    if text.trim().is_empty() {
        writeln!(out, "\n== {title}: none")?;
        return Ok(());
    }
    match parse_patch(text) {
        Ok(patch) => {
            writeln!(
                out,
                "\n== {title}: {}, +{} -{}",
                ops::counted(patch.files.len(), "file"),
                patch.added,
                patch.removed
            )?;
            for file in &patch.files {
                writeln!(out, "  {}  +{} -{}", file.path(), file.added, file.removed)?;
            }
        }
        Err(e) => writeln!(
            out,
            "\n== {title}: {} lines (not a readable diff: {e})",
            text.lines().count()
        )?,
    }
    Ok(())
}
