//! What several commands print with: JSON, progress bars on a terminal, transfers, statuses.

use std::io::{IsTerminal, Write};
use std::sync::atomic::AtomicBool;

use annotations::ops;
use anyhow::Result;
use serde::Serialize;

/// Prints `value` as pretty JSON and a newline.
pub fn print_json<T: Serialize>(out: &mut dyn Write, value: &T) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// What `--force` asks of an output file that exists.
pub fn overwrite(force: bool) -> ops::Overwrite {
    if force {
        ops::Overwrite::Replace
    } else {
        ops::Overwrite::Refuse
    }
}

/// Calls `on_signal` at each Ctrl-C, from a thread of its own; a job's flags are set there.
fn on_ctrl_c(mut on_signal: impl FnMut() + Send + 'static) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    match runtime {
        Ok(runtime) => {
            std::thread::spawn(move || {
                runtime.block_on(async {
                    while tokio::signal::ctrl_c().await.is_ok() {
                        on_signal();
                    }
                });
            });
        }
        Err(err) => tracing::warn!("Ctrl-C will end the process without cleaning up: {err}"),
    }
}

/// Sets the returned flag on the first Ctrl-C, so that a long job stops cleanly; a second
/// Ctrl-C ends the process at once.
pub fn cancel_on_ctrl_c() -> std::sync::Arc<AtomicBool> {
    let cancel = std::sync::Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    on_ctrl_c(move || {
        if flag.swap(true, std::sync::atomic::Ordering::Relaxed) {
            std::process::exit(130);
        }
        eprintln!("verity: stopping; Ctrl-C again to quit at once");
    });
    cancel
}

/// Stops a model run (`models rate`, `sweep --model`) in steps: the first Ctrl-C sends no new
/// request and waits for those in flight, whose replies are stored; the second abandons them
/// (each counted, with its spend estimated from its prompt); a third ends the process at once.
pub fn halt_on_ctrl_c() -> std::sync::Arc<ops::Halt> {
    let halt = std::sync::Arc::new(ops::Halt::new());
    let flag = halt.clone();
    on_ctrl_c(move || {
        if flag.is_abandoned() {
            std::process::exit(130);
        }
        if flag.is_stopping() {
            flag.abandon();
            eprintln!(
                "verity: abandoning the requests in flight (each is counted, its spend estimated from its prompt); Ctrl-C again to quit at once"
            );
        } else {
            flag.stop();
            eprintln!(
                "verity: stopping: no new request is sent, and the replies of those in flight are waited for and stored; Ctrl-C again to abandon them"
            );
        }
    });
    halt
}

/// Runs a clone or a fetch of commits with a bar of objects, bytes and speed, stopped cleanly
/// by Ctrl-C.
pub fn with_transfer_bar<T>(
    run: impl FnOnce(&mut dyn FnMut(&ops::CloneProgress), &AtomicBool) -> ops::Result<T>,
) -> ops::Result<T> {
    let cancel = cancel_on_ctrl_c();
    let bar = progress_bar(0, "{prefix} {bar:30} {pos}/{len} objects, {msg}");
    let result = run(&mut |step| show_transfer(bar.as_ref(), step), &cancel);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}

fn show_transfer(bar: Option<&indicatif::ProgressBar>, step: &ops::CloneProgress) {
    let Some(bar) = bar else { return };
    bar.set_prefix(match (step.stage, &step.commit) {
        (ops::CloneStage::DefaultBranch, _) => "default branch".to_string(),
        (ops::CloneStage::Branches, _) => "branches and tags".to_string(),
        (ops::CloneStage::Commit, Some(c)) => format!("commit {}", &c[..c.len().min(12)]),
        (ops::CloneStage::Commit, None) => "commit".to_string(),
    });
    bar.set_length(step.total_objects as u64);
    bar.set_position(step.received_objects as u64);
    bar.set_message(format!(
        "{}, {}/s, {}/{} deltas",
        bytes(step.received_bytes),
        bytes(step.bytes_per_second),
        step.indexed_deltas,
        step.total_deltas
    ));
}

pub fn bytes(n: usize) -> String {
    indicatif::HumanBytes(n as u64).to_string()
}

pub fn write_commits(out: &mut dyn Write, commits: &ops::CommitsReport) -> Result<()> {
    writeln!(
        out,
        "{} of {} base commits held{}",
        commits.held,
        commits.base_commits,
        if commits.fetched.is_empty() {
            String::new()
        } else {
            format!(
                " ({} fetched by id, {})",
                commits.fetched.len(),
                bytes(commits.received_bytes)
            )
        }
    )?;
    for m in &commits.missing {
        writeln!(out, "missing {}: {}", m.commit, m.reason)?;
    }
    Ok(())
}

/// A progress bar on stderr, only when stderr is a terminal (never in pipes or logs).
pub fn progress_bar(len: u64, template: &str) -> Option<indicatif::ProgressBar> {
    std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(len);
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    })
}

pub fn status_word(status: ops::AnswerStatus) -> &'static str {
    match status {
        ops::AnswerStatus::ToDo => "to do",
        ops::AnswerStatus::InProgress => "in progress",
        ops::AnswerStatus::Submitted => "submitted",
    }
}
