//! The codebase-determinacy sweep (`verity sweep`): proposals verified at their tasks' base
//! commits and classified into tiers (`evidence/sweep.rs` says how), each case's latest results
//! stored, and who may read them: the coordinator always, raters only while the project's
//! `sweep_for_raters` setting is on (they are close to a verdict).

use std::collections::BTreeMap;
use std::path::Path;

use time::OffsetDateTime;

use super::evidence::{Target, prose, target};
use super::{Error, Project, Result, stamp};
use crate::evidence::{Engine, Proposal, SweepResult, SweepTask, parse_proposals};

/// Reads a proposals document (one proposal or a list, in the audit's format); `source_name`
/// names it in errors.
pub fn read_proposals(json: &str, source_name: &str) -> Result<Vec<Proposal>> {
    Ok(parse_proposals(json, source_name)?)
}

/// Verifies each proposal at its task's base commit and classifies it; stores each case's
/// results (all of its proposals here, in order), replacing its sweep before. Every proposal's
/// task, base commit and clone are checked before anything is computed: one that cannot be
/// swept refuses the whole run.
pub fn sweep_proposals(
    project: &mut Project,
    engine: &Engine,
    proposals: &[Proposal],
    now: OffsetDateTime,
) -> Result<Vec<SweepResult>> {
    project.require_coordinator("sweeps tasks' codebases")?;
    let targets: Vec<Target> = proposals
        .iter()
        .enumerate()
        .map(|(at, p)| {
            target(project, &p.iid).map_err(|err| {
                Error::NotFound(format!("proposal {at} ({}) cannot be swept: {err}", p.iid))
            })
        })
        .collect::<Result<_>>()?;
    let mut results = Vec::with_capacity(proposals.len());
    let mut by_case: BTreeMap<i64, (String, Vec<usize>)> = BTreeMap::new();
    for (at, (proposal, t)) in proposals.iter().zip(&targets).enumerate() {
        let c = &t.stored.case;
        let prose = prose(c);
        let task = SweepTask {
            base_commit: &t.base_commit,
            prose: &prose,
            gold_patch: &c.gold_patch,
        };
        let started = std::time::Instant::now();
        results.push(engine.sweep(Path::new(&t.repo_path), &t.context, &task, proposal)?);
        tracing::info!(
            case = c.instance_id,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "swept a proposal"
        );
        by_case
            .entry(t.stored.case_id)
            .or_insert_with(|| (t.base_commit.clone(), Vec::new()))
            .1
            .push(at);
    }
    let at = stamp(now);
    for (case_id, (base_commit, indexes)) in by_case {
        let of_case: Vec<&SweepResult> = indexes.iter().map(|&i| &results[i]).collect();
        let json = serde_json::to_string(&of_case).map_err(|source| Error::Encode {
            what: "a sweep",
            source,
        })?;
        project.store.put_sweep(case_id, &base_commit, &json, &at)?;
    }
    Ok(results)
}
