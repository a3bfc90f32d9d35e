//! Repositories: the clones registered for the tasks, cloned and fetched.

use std::io::Write;

use annotations::ops;
use anyhow::{Context, Result};

use crate::output::{bytes, print_json, with_transfer_bar, write_commits};
use crate::schema::repositories::RepoAction;
use crate::session::Session;

pub fn repo(s: &Session, action: RepoAction, out: &mut dyn Write) -> Result<()> {
    match action {
        RepoAction::Add { name, path } => {
            let mut p = s.open()?;
            let status = ops::add_repository(&mut p, &name, &path, s.now)?;
            writeln!(
                out,
                "registered {} at {} ({} of {} base commits held)",
                status.name, status.path, status.held, status.base_commits
            )?;
            let missing = status.base_commits - status.held;
            if missing > 0 {
                writeln!(
                    out,
                    "{missing} base commits are missing: their tasks get no evidence until `verity repo fetch-missing {}` fetches them",
                    status.name
                )?;
            }
        }
        RepoAction::Remove { name } => {
            let mut p = s.open()?;
            ops::remove_repository(&mut p, &name)?;
            writeln!(
                out,
                "forgot the clone of {name}; the clone itself is untouched"
            )?;
        }
        RepoAction::List { json } => {
            let p = s.open()?;
            let repos = ops::list_repositories(&p)?;
            if json {
                print_json(out, &repos)?;
            } else {
                for r in &repos {
                    writeln!(
                        out,
                        "{}\t{}\t{} of {} base commits held{}",
                        r.name,
                        r.path,
                        r.held,
                        r.base_commits,
                        r.problem
                            .as_deref()
                            .map(|p| format!(" ({p})"))
                            .unwrap_or_default()
                    )?;
                }
            }
        }
        RepoAction::Clone {
            name,
            url,
            into,
            json,
        } => {
            let mut p = s.open()?;
            let cache = ops::default_repository_cache().context(
                "no folder to clone into: set VERITY_REPO_CACHE or HOME, or pass --into DIR",
            )?;
            let request = ops::CloneRequest { name, url, into };
            let report = with_transfer_bar(|progress, cancel| {
                ops::clone_repository(&mut p, &request, &cache, s.now, progress, cancel)
            })?;
            if json {
                print_json(out, &report)?;
            } else {
                let how = if report.reused {
                    "reused the clone".to_string()
                } else {
                    format!(
                        "{} {} from {} ({}, {:.1} s)",
                        if report.resumed {
                            "resumed and finished the clone of"
                        } else {
                            "cloned"
                        },
                        report.name,
                        report.url,
                        bytes(report.received_bytes),
                        report.elapsed_ms as f64 / 1000.0
                    )
                };
                writeln!(out, "{how} at {}, registered", report.path)?;
                write_commits(out, &report.commits)?;
            }
        }
        RepoAction::FetchMissing { name, url, json } => {
            let mut p = s.open()?;
            let report = with_transfer_bar(|progress, cancel| {
                ops::fetch_missing_commits(&mut p, &name, url.as_deref(), progress, cancel)
            })?;
            if json {
                print_json(out, &report)?;
            } else {
                write_commits(out, &report)?;
            }
        }
    }
    Ok(())
}
