//! A panel's load on a server project, for `bench/panel.sh`: simulated raters, each a thread
//! with its own login, save drafts and submit answers through Verity's own use cases, as the
//! app does. Prints the save latencies and then counts, as the coordinator, what the server
//! holds: events lost and events stored twice.
//!
//! `panel_load URL [--raters N] [--drafts N] [--submits N] [--pace MS] [--fault-command CMD]`
//!
//! With `--pace`, a rater starts a save at most every MS milliseconds, as people do (the app
//! saves a draft half a second after the last keystroke); without it, every rater saves again
//! the moment the last save returns, which measures what the server can take at most.
//!
//! URL is a database the caller may create a schema in (the coordinator's, or a superuser's).
//! With `--fault-command`, CMD runs through `sh -c` once half the saves are done (the
//! benchmark restarts the server with it). A save the server could not take is kept by the
//! simulated rater and tried again, as the app keeps a draft while the server is away.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use annotations::ops::{self, AnswerRequest, CaseSelection, ErrorCode, QuestionnaireChoice};
use serde_json::json;
use time::OffsetDateTime;
use verity_store::postgres::{Environment, ServerConfig};

struct Options {
    url: String,
    raters: usize,
    drafts: usize,
    submits: usize,
    pace: Duration,
    fault: Option<String>,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut o = Options {
        url: String::new(),
        raters: 50,
        drafts: 200,
        submits: 20,
        pace: Duration::ZERO,
        fault: None,
    };
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<usize, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--raters" => o.raters = number("--raters")?,
            "--drafts" => o.drafts = number("--drafts")?,
            "--submits" => o.submits = number("--submits")?,
            "--pace" => o.pace = Duration::from_millis(number("--pace")? as u64),
            "--fault-command" => o.fault = args.next(),
            url if o.url.is_empty() && !url.starts_with("--") => o.url = url.to_string(),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if o.url.is_empty() {
        return Err(
            "usage: panel_load URL [--raters N] [--drafts N] [--submits N] [--pace MS] [--fault-command CMD]"
                .into(),
        );
    }
    if o.submits == 0 || !o.drafts.is_multiple_of(o.submits) {
        return Err("--drafts must be a multiple of --submits (drafts per task)".into());
    }
    Ok(o)
}

/// A task of the synthetic panel, as a SWE-bench row.
fn task(i: usize) -> String {
    json!({
        "instance_id": format!("load__panel-{i}"),
        "repo": "load/panel",
        "base_commit": "a".repeat(40),
        "problem_statement": format!("Task {i}: dividing by zero crashes instead of raising a clear error."),
        "patch": "diff --git a/src/calc.py b/src/calc.py\n--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1 +1,2 @@\n def div(a, b):\n+    if b == 0: raise ZeroDivisionError('cannot divide by zero')\n",
        "test_patch": "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n@@ -1 +1,2 @@\n import calc\n+def test_div(): pass\n",
        "FAIL_TO_PASS": "[\"tests/test_calc.py::test_div\"]",
        "PASS_TO_PASS": "[]"
    })
    .to_string()
}

fn answer(rater: &str, case: &str, n: usize) -> AnswerRequest {
    let notes = format!(
        "Save {n} by {rater}: the issue names the failing call but not the message the test pins, so a reader cannot know it."
    );
    AnswerRequest {
        rater: rater.into(),
        case: case.into(),
        values: json!({
            "underspecified": n % 4, "underspecified_notes": notes,
            "false_negative": 1, "false_negative_notes": notes,
            "difficulty": "<15 min fix", "difficulty_notes": "One guard.",
            "other_major_issues": 0, "annotator_confidence": 4
        })
        .as_object()
        .cloned()
        .unwrap_or_default(),
        case_revision: None,
        reason: None,
    }
}

/// Sets up the panel: tasks, raters with a login each, assignments. Returns the logins.
fn setup(o: &Options, now: OffsetDateTime) -> Result<Vec<ops::PanelLogin>, ops::Error> {
    let mut p = ops::init_project(
        Path::new(&o.url),
        &QuestionnaireChoice::Builtin("swe-bench-verified".into()),
        now,
    )?;
    let per_task = 5.min(o.raters);
    let tasks = (o.raters * o.submits).div_ceil(per_task);
    let dir = tempfile::tempdir().map_err(|source| ops::Error::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let file = dir.path().join("tasks.jsonl");
    let rows: Vec<String> = (1..=tasks).map(task).collect();
    std::fs::write(&file, rows.join("\n")).map_err(|source| ops::Error::Write {
        path: file.clone(),
        source,
    })?;
    ops::import_paths(&mut p, &[file], now, &mut |_| {}, &AtomicBool::new(false))?;
    let mut logins = Vec::new();
    for r in 1..=o.raters {
        ops::add_rater(&mut p, &format!("rater {r}"), now)?;
    }
    ops::assign(&mut p, per_task, 1, &CaseSelection::All, now)?;
    for r in 1..=o.raters {
        logins.push(ops::panel_grant(&mut p, &format!("rater {r}"), false, now)?);
    }
    Ok(logins)
}

/// One rater's session: drafts on each of their tasks, then the submission; every save timed.
/// A save refused because the server is away is tried again until it lands.
fn rate(
    url: &str,
    index: usize,
    login: &ops::PanelLogin,
    o: &Options,
    saves: &AtomicUsize,
    kept: &AtomicUsize,
) -> Result<Vec<Duration>, String> {
    let mut config = ServerConfig::parse(url, &Environment::current())?;
    config.user = login.role.clone();
    let location = config.location();
    let mut project = ops::open_project_with_password(Path::new(&location), Some(&login.password))
        .map_err(|e| e.to_string())?;
    let queue = ops::rater_queue(&project, &login.rater).map_err(|e| e.to_string())?;
    let per_task = o.drafts / o.submits;
    let mut times = Vec::with_capacity(o.drafts + o.submits);
    // Raters start spread over one pace, as people do not all type at the same instant.
    let mut next = Instant::now() + o.pace.mul_f64(index as f64 / o.raters as f64);
    for item in queue.iter().take(o.submits) {
        for n in 0..=per_task {
            let req = answer(&login.rater, &item.instance_id, n);
            if let Some(wait) = next.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            next = Instant::now() + o.pace;
            loop {
                let started = Instant::now();
                let now = OffsetDateTime::now_utc();
                let saved = if n < per_task {
                    ops::save_draft(&mut project, &req, now)
                } else {
                    ops::submit_answer(&mut project, &req, now)
                };
                match saved {
                    Ok(_) => {
                        times.push(started.elapsed());
                        saves.fetch_add(1, Ordering::Relaxed);
                        break;
                    }
                    Err(e) if e.code() == ErrorCode::ServerUnavailable => {
                        kept.fetch_add(1, Ordering::Relaxed);
                        std::thread::sleep(Duration::from_millis(500));
                    }
                    Err(e) => return Err(format!("{}: {e}", login.rater)),
                }
            }
        }
    }
    Ok(times)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn run(o: Options) -> Result<(), String> {
    let now = OffsetDateTime::now_utc();
    let logins = setup(&o, now).map_err(|e| e.to_string())?;
    let expected = o.raters * (o.drafts + o.submits);
    let saves = Arc::new(AtomicUsize::new(0));
    let kept = Arc::new(AtomicUsize::new(0));
    let url = Arc::new(o.url.clone());
    let o = Arc::new(o);
    let started = Instant::now();
    let workers: Vec<_> = logins
        .into_iter()
        .enumerate()
        .map(|(index, login)| {
            let (url, o, saves, kept) = (url.clone(), o.clone(), saves.clone(), kept.clone());
            std::thread::spawn(move || rate(&url, index, &login, &o, &saves, &kept))
        })
        .collect();
    let fault = o.fault.clone().map(|cmd| {
        let saves = saves.clone();
        std::thread::spawn(move || {
            while saves.load(Ordering::Relaxed) < expected / 2 {
                std::thread::sleep(Duration::from_millis(20));
            }
            let t = Instant::now();
            let status = std::process::Command::new("sh")
                .arg("-c")
                .arg(&cmd)
                .status();
            (status.map(|s| s.success()).unwrap_or(false), t.elapsed())
        })
    });
    let mut times = Vec::new();
    for w in workers {
        times.extend(
            w.join()
                .map_err(|_| "a rater's thread panicked".to_string())??,
        );
    }
    let elapsed = started.elapsed();
    times.sort();
    // What the server holds, read as the coordinator: each save is one distinct answer of one
    // rater on one task, so a save stored twice shows as two events with the same content.
    let store = verity_store::open(Path::new(url.as_str()), None).map_err(|e| e.to_string())?;
    let events = store.all_answer_events().map_err(|e| e.to_string())?;
    let distinct: std::collections::HashSet<(i64, i64, String)> = events
        .iter()
        .map(|e| {
            (
                e.case_id,
                e.rater_id,
                serde_json::Value::Object(e.answer.clone()).to_string(),
            )
        })
        .collect();
    let mut out = std::io::stdout().lock();
    let write = |out: &mut std::io::StdoutLock<'_>, line: String| {
        writeln!(out, "{line}").map_err(|e| e.to_string())
    };
    if let Some(fault) = fault {
        let (ok, took) = fault
            .join()
            .map_err(|_| "the fault thread panicked".to_string())?;
        write(
            &mut out,
            format!(
                "fault: the server restarted mid-run ({}, {:.1} s); saves tried again by the raters: {}",
                if ok { "ok" } else { "the command failed" },
                took.as_secs_f64(),
                kept.load(Ordering::Relaxed)
            ),
        )?;
    }
    write(
        &mut out,
        format!(
            "raters {}{}, saves {} ({} drafts + {} submissions each) in {:.1} s: {:.0} saves/s",
            o.raters,
            if o.pace.is_zero() {
                ", no pause between saves".to_string()
            } else {
                format!(", a save every {} ms at most", o.pace.as_millis())
            },
            times.len(),
            o.drafts,
            o.submits,
            elapsed.as_secs_f64(),
            times.len() as f64 / elapsed.as_secs_f64()
        ),
    )?;
    write(
        &mut out,
        format!(
            "save latency: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            percentile(&times, 0.5),
            percentile(&times, 0.95),
            percentile(&times, 1.0)
        ),
    )?;
    write(
        &mut out,
        format!(
            "events expected {expected}, stored {}, lost {}, stored twice {}",
            events.len(),
            expected.saturating_sub(distinct.len()),
            events.len() - distinct.len()
        ),
    )?;
    Ok(())
}

fn main() -> ExitCode {
    match options().and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("panel_load: {e}");
            ExitCode::from(2)
        }
    }
}
