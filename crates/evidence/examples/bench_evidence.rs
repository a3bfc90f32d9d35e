//! Benchmark driver for `verity_evidence`, run by `bench/evidence.sh` (which builds the
//! corpus and times `git grep` beside it). Subcommands:
//!
//! - `terms PATCH`: print the patch's terms, one a line (the script feeds them to git grep);
//! - `task REPO PATCH BASE NEARBY RUNS THREADS`: one task cold (a fresh engine per run), the
//!   same task again on a warm engine, and the task at a nearby commit; medians in ms;
//! - `once REPO PATCH COMMIT [THREADS]`: one task on a fresh engine, for a profiler
//!   (`valgrind --tool=callgrind`), printing its time;
//! - `reports REPO PATCH COMMITS_FILE TASKS CACHE_MB`: the sweep's reports as JSON lines, from
//!   one engine, to check that a warm or tightly bounded cache gives what a fresh engine gives;
//! - `sweep REPO PATCH COMMITS_FILE TASKS CACHE_MB THREADS`: TASKS tasks spread over the commits
//!   (task i at commit i mod n, each with its own subset of the patch's added lines, so term
//!   sets differ); total time, throughput and peak resident memory.
//!
//! Timing lives here and in the script only; tests never time anything.

use std::path::Path;
use std::time::Instant;

use verity_evidence::{CaseContext, Engine, EvidenceRequest, extract_terms};

fn fail(message: &str) -> ! {
    eprintln!("bench_evidence: {message}");
    std::process::exit(2);
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn request(base: &str, patch: &str) -> EvidenceRequest {
    EvidenceRequest {
        base_commit: base.to_string(),
        prose: "Querysets should support the new lookup and report clear validation errors.".into(),
        gold_patch: String::new(),
        test_patch: patch.to_string(),
        precedents: Vec::new(),
    }
}

fn run(engine: &Engine, repo: &Path, base: &str, patch: &str) -> f64 {
    let context = CaseContext::new("bench", "django/django");
    let started = Instant::now();
    let report = engine
        .compute_evidence(repo, &context, &request(base, patch))
        .unwrap_or_else(|err| fail(&err.to_string()));
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    std::hint::black_box(report);
    elapsed
}

/// A variant of the patch keeping a task-specific subset of its added lines.
fn variant(patch: &str, task: usize) -> String {
    let mut out = String::new();
    let mut added = 0usize;
    for line in patch.lines() {
        if line.starts_with('+') && !line.starts_with("+++") {
            added += 1;
            // A per-task pseudo-random third of the lines is dropped, so term sets differ.
            let mix = (added as u64 ^ (task as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .wrapping_mul(0xBF58_476D_1CE4_E5B9);
            if (mix >> 32).is_multiple_of(3) {
                // Dropped lines become context so the hunk counts stay valid.
                out.push(' ');
                out.push_str(&line[1..]);
                out.push('\n');
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn arg(args: &[String], at: usize, name: &str) -> String {
    args.get(at)
        .cloned()
        .unwrap_or_else(|| fail(&format!("missing argument {name}")))
}

fn number(args: &[String], at: usize, name: &str) -> usize {
    arg(args, at, name)
        .parse()
        .unwrap_or_else(|_| fail(&format!("{name} must be a whole number")))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| fail(&format!("cannot read {path}: {err}")))
}

/// The commit ids of a file, one per line; an empty file is an error.
fn read_commits(path: &str) -> Vec<String> {
    let commits: Vec<String> = read(path).lines().map(str::to_string).collect();
    if commits.is_empty() {
        fail("the commits file is empty");
    }
    commits
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("terms") => {
            for term in extract_terms(&read(&arg(&args, 2, "PATCH")), "", "", &|_| None) {
                println!("{}", term.term);
            }
        }
        Some("task") => {
            let repo = arg(&args, 2, "REPO");
            let patch = read(&arg(&args, 3, "PATCH"));
            let (base, nearby) = (arg(&args, 4, "BASE"), arg(&args, 5, "NEARBY"));
            let runs = number(&args, 6, "RUNS").max(1);
            let threads = number(&args, 7, "THREADS");
            let repo = Path::new(&repo);
            let cold: Vec<f64> = (0..runs)
                .map(|_| {
                    run(
                        &Engine::builder().threads(threads).build(),
                        repo,
                        &base,
                        &patch,
                    )
                })
                .collect();
            let warm = Engine::builder().threads(threads).build();
            run(&warm, repo, &base, &patch);
            let again: Vec<f64> = (0..runs).map(|_| run(&warm, repo, &base, &patch)).collect();
            // Nearby: a fresh engine warmed at the base commit only, for each run.
            let near: Vec<f64> = (0..runs)
                .map(|_| {
                    let engine = Engine::builder().threads(threads).build();
                    run(&engine, repo, &base, &patch);
                    run(&engine, repo, &nearby, &patch)
                })
                .collect();
            let other = variant(&patch, 1);
            let near_other: Vec<f64> = (0..runs)
                .map(|_| {
                    let engine = Engine::builder().threads(threads).build();
                    run(&engine, repo, &base, &patch);
                    run(&engine, repo, &nearby, &other)
                })
                .collect();
            println!(
                "terms={} cold_ms={:.1} again_ms={:.1} nearby_ms={:.1} nearby_other_task_ms={:.1}",
                extract_terms(&patch, "", "", &|_| None).len(),
                median(cold),
                median(again),
                median(near),
                median(near_other)
            );
        }
        Some("once") => {
            let repo = arg(&args, 2, "REPO");
            let patch = read(&arg(&args, 3, "PATCH"));
            let commit = arg(&args, 4, "COMMIT");
            let threads = args.get(5).map_or(2, |_| number(&args, 5, "THREADS"));
            let engine = Engine::builder().threads(threads).build();
            let ms = run(&engine, Path::new(&repo), &commit, &patch);
            println!("cold_ms={ms:.1}");
        }
        Some("reports") => {
            let repo = arg(&args, 2, "REPO");
            let patch = read(&arg(&args, 3, "PATCH"));
            let commits = read_commits(&arg(&args, 4, "COMMITS_FILE"));
            let tasks = number(&args, 5, "TASKS");
            let engine = Engine::builder()
                .cache_bytes(number(&args, 6, "CACHE_MB") << 20)
                .build();
            let context = CaseContext::new("bench", "django/django");
            for task in 0..tasks {
                let commit = &commits[task % commits.len()];
                let report = engine
                    .compute_evidence(
                        Path::new(&repo),
                        &context,
                        &request(commit, &variant(&patch, task)),
                    )
                    .unwrap_or_else(|err| fail(&err.to_string()));
                let json = serde_json::to_string(&report)
                    .unwrap_or_else(|err| fail(&format!("cannot serialize a report: {err}")));
                println!("{json}");
            }
        }
        Some("sweep") => {
            let repo = arg(&args, 2, "REPO");
            let patch = read(&arg(&args, 3, "PATCH"));
            let commits = read_commits(&arg(&args, 4, "COMMITS_FILE"));
            let tasks = number(&args, 5, "TASKS");
            let cache_mb = number(&args, 6, "CACHE_MB");
            let threads = number(&args, 7, "THREADS");
            let engine = Engine::builder()
                .threads(threads)
                .cache_bytes(cache_mb << 20)
                .build();
            let patches: Vec<String> = (0..tasks).map(|task| variant(&patch, task)).collect();
            let started = Instant::now();
            let mut slowest = 0f64;
            for (task, patch) in patches.iter().enumerate() {
                let commit = &commits[task % commits.len()];
                slowest = slowest.max(run(&engine, Path::new(&repo), commit, patch));
            }
            let total = started.elapsed().as_secs_f64();
            let stats = engine.cache_stats();
            println!(
                "tasks={tasks} commits={} total_s={total:.2} tasks_per_s={:.1} mean_ms={:.1} slowest_ms={slowest:.1} peak_rss_mib={:.0} cache_mib={:.0} cache_bound_mib={cache_mb} evictions={}",
                commits.len(),
                tasks as f64 / total,
                total * 1000.0 / tasks as f64,
                peak_rss_kib() as f64 / 1024.0,
                stats.bytes as f64 / 1048576.0,
                stats.evictions
            );
        }
        _ => fail(
            "usage: bench_evidence terms PATCH | once REPO PATCH COMMIT [THREADS] | task REPO PATCH BASE NEARBY RUNS THREADS | reports REPO PATCH COMMITS_FILE TASKS CACHE_MB | sweep REPO PATCH COMMITS_FILE TASKS CACHE_MB THREADS",
        ),
    }
}
