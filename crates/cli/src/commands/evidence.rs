//! Evidence: what a case's repository says at its base commit, searches, files, precedents.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use annotations::ops::{self, Engine};
use anyhow::{Context, Result, bail};

use crate::output::{print_json, progress_bar, with_transfer_bar};
use crate::schema::evidence::{EvidenceArgs, GrepArgs, PrecedentArgs, ShowArgs};
use crate::session::Session;

pub fn evidence(s: &Session, args: EvidenceArgs, out: &mut dyn Write) -> Result<()> {
    let EvidenceArgs {
        case_id,
        all,
        refresh,
        cache_mb,
        fetch_missing,
        json,
    } = args;
    let mut p = s.open()?;
    let engine = Engine::builder().cache_bytes(cache_mb << 20).build();
    if all {
        let bar = progress_bar(0, "{bar:30} {pos}/{len} cases {msg}");
        let mut progress = |step: &ops::EvidenceProgress| {
            if let Some(bar) = &bar {
                bar.set_length(step.total as u64);
                bar.set_position(step.done as u64);
                bar.set_message(step.case.clone());
            }
        };
        let report = ops::evidence_all(
            &mut p,
            &engine,
            refresh,
            s.now,
            &mut progress,
            &AtomicBool::new(false),
        )?;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        if json {
            print_json(out, &report)?;
        } else {
            writeln!(
                out,
                "computed {}, already cached {}, skipped {}",
                report.computed,
                report.cached,
                report.skipped.len()
            )?;
            // Hundreds of tasks share a handful of reasons: one line unless asked.
            if let Some(summary) = report.skipped_summary() {
                writeln!(out, "{summary}")?;
            }
            if s.verbose > 0 {
                for s in &report.skipped {
                    writeln!(out, "skipped {}: {}", s.case, s.reason)?;
                }
                let stats = engine.cache_stats();
                writeln!(
                    out,
                    "cache: {} of {} MiB ({} MiB of contents, {} MiB of listings), {} blobs, {} listings, {} hits, {} misses, {} evictions",
                    stats.bytes >> 20,
                    stats.bound >> 20,
                    stats.content_bytes >> 20,
                    stats.listing_bytes >> 20,
                    stats.blobs,
                    stats.listings,
                    stats.hits,
                    stats.misses,
                    stats.evictions
                )?;
            }
        }
    } else {
        let case_id = case_id.context("name a case or pass --all")?;
        let view = match ops::case_evidence(&mut p, &engine, &case_id, refresh, s.now) {
            Err(err) if err.missing_base_commit().is_some() => {
                let repo = err.missing_base_commit().unwrap_or_default().to_string();
                if !(fetch_missing || ask_to_fetch(&err)?) {
                    bail!(
                        "{} (run `verity repo fetch-missing {repo}`, or pass --fetch-missing)",
                        err.to_string().trim_end_matches('.')
                    );
                }
                // SAFETY: the command runs on one thread, and its fetch below opens the first
                // connection.
                #[allow(unsafe_code)]
                unsafe {
                    ops::load_trust_store()
                };
                with_transfer_bar(|progress, cancel| {
                    ops::fetch_missing_commits(&mut p, &repo, None, progress, cancel)
                })?;
                ops::case_evidence(&mut p, &engine, &case_id, refresh, s.now)?
            }
            other => other?,
        };
        if json {
            print_json(out, &view.report)?;
        } else {
            write!(out, "{}", ops::render_evidence_text(&view.report))?;
        }
    }
    Ok(())
}

pub fn grep(s: &Session, args: GrepArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let GrepArgs {
        case_id,
        pattern,
        regex,
        ignore_case,
        context,
        live,
        json,
    } = args;
    let p = s.open()?;
    let query = ops::GrepQuery {
        pattern,
        fixed_strings: !regex,
        case_insensitive: ignore_case,
        context_lines: context,
        live_only: live,
        ..Default::default()
    };
    let report = ops::grep_case(&p, &Engine::default(), &case_id, &query)?;
    if json {
        print_json(out, &report)?;
    } else {
        for file in &report.files {
            writeln!(out, "{}", file.path)?;
            let mut last = 0;
            for line in &file.lines {
                if last != 0 && line.line > last + 1 {
                    writeln!(out, "--")?;
                }
                let mark = if line.is_match { ':' } else { '-' };
                writeln!(out, "{}{mark}{}", line.line, line.text)?;
                last = line.line;
            }
        }
        writeln!(
            out,
            "{} in {}{}\nreceipt: {}",
            ops::counted(report.matches, "matching line"),
            ops::counted(report.files.len(), "file"),
            if report.truncated { " (cut short)" } else { "" },
            report.receipt
        )?;
        write_not_searched(out, &report.missing_objects)?;
        if report.matches == 0 {
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn show(s: &Session, args: ShowArgs, out: &mut dyn Write) -> Result<()> {
    let ShowArgs { case_id, path } = args;
    let p = s.open()?;
    let file = ops::show_file(&p, &Engine::default(), &case_id, &path)?;
    write!(out, "{}", file.text)?;
    Ok(())
}

pub fn precedent(s: &Session, args: PrecedentArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let PrecedentArgs {
        case_id,
        snippets,
        json,
    } = args;
    let p = s.open()?;
    let snippets: Vec<ops::Snippet> = snippets
        .into_iter()
        .map(|snippet| ops::Snippet {
            snippet,
            ..Default::default()
        })
        .collect();
    let check = ops::check_precedents(&p, &Engine::default(), &case_id, &snippets)?;
    if json {
        print_json(out, &check)?;
    } else {
        let findings = &check.findings;
        for f in findings {
            let first = f.snippet.lines().next().unwrap_or_default();
            if f.found {
                let places: Vec<String> = f
                    .locations
                    .iter()
                    .map(|l| format!("{}:{}", l.path, l.line))
                    .collect();
                writeln!(
                    out,
                    "found in live code: {first}\n  at {}",
                    places.join(", ")
                )?;
            } else {
                writeln!(out, "not found in live code: {first}")?;
            }
            if !f.non_live_paths.is_empty() {
                writeln!(
                    out,
                    "  also in non-live paths: {}",
                    f.non_live_paths.join(", ")
                )?;
            }
            writeln!(out, "  receipt: {}", f.receipt)?;
        }
        write_not_searched(out, &check.missing_objects)?;
        if findings.iter().any(|f| !f.found) {
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The files and folders an incomplete clone lacks at the commit searched, when it lacks any.
fn write_not_searched(out: &mut dyn Write, missing: &[ops::MissingObject]) -> std::io::Result<()> {
    if missing.is_empty() {
        return Ok(());
    }
    let noun = if missing.len() == 1 {
        "file or folder"
    } else {
        "files or folders"
    };
    writeln!(
        out,
        "not searched: the clone lacks {} {noun} (a partial clone):",
        missing.len()
    )?;
    for object in missing {
        writeln!(out, "  {} ({})", object.path, object.id)?;
    }
    Ok(())
}

/// On a terminal, asks whether to fetch the missing base commit the error names.
fn ask_to_fetch(err: &ops::Error) -> Result<bool> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Ok(false);
    }
    eprint!("verity: {} Fetch it now? [y/N] ", err);
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}
