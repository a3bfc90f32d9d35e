//! Who reads the tasks' sweeps: the coordinator always, raters only while the project's
//! `sweep_for_raters` setting is on (a sweep is close to a verdict). A task keeps every sweep
//! made of it at its base commit, each with its proposer. Below `ops::sweep`, which
//! makes sweeps, and `ops::evidence`, `ops::cases` and `ops::progress`, which show them.

use std::collections::HashMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::access::Actor;
use super::{Error, Project, Result};
use verity_endpoint::Provenance;
use verity_evidence::{SweepResult, Tier};

/// A proposal swept, with who proposed it when a model did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ProposedSweep {
    /// The sweep's result: the contract keys (`iid`, `choice`, `snippets`, `n_verified`,
    /// `ways_verified`, `tier`) and the rest.
    #[serde(flatten)]
    #[ts(flatten)]
    pub result: SweepResult,
    /// The model rater that proposed it and its reply's provenance; absent for a proposals
    /// file's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposer: Option<Proposer>,
    /// The proposals file it came from, as it was named; absent for a model's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposals_file: Option<String>,
    /// When it was swept; absent for a sweep stored before every sweep of a task was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swept_at: Option<String>,
}

impl ProposedSweep {
    /// Whether `other` is this very sweep again: the same proposer (the same model rater and
    /// prompt, or the same file) and the same result.
    pub(super) fn same_as(&self, other: &ProposedSweep) -> bool {
        let proposer = |s: &ProposedSweep| {
            s.proposer.as_ref().map(|p| {
                (
                    p.rater.clone(),
                    p.provenance.prompt_id.clone(),
                    p.provenance.prompt_version.clone(),
                )
            })
        };
        self.result == other.result
            && proposer(self) == proposer(other)
            && self.proposals_file == other.proposals_file
    }
}

/// The model rater that proposed a sweep, and where its reply came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Proposer {
    /// The model rater's name.
    pub rater: String,
    /// The reply's provenance.
    #[serde(flatten)]
    #[ts(flatten)]
    pub provenance: Provenance,
}

/// The project setting that shows sweeps to raters: `on`, or anything else (or unset) for off.
pub const SWEEP_FOR_RATERS: &str = "sweep_for_raters";

/// Shows sweeps to raters (`on`) or hides them (the default).
pub fn set_sweep_for_raters(project: &mut Project, on: bool) -> Result<()> {
    project.require_coordinator("decides what raters see")?;
    project
        .store
        .set_meta(SWEEP_FOR_RATERS, if on { "on" } else { "off" })?;
    Ok(())
}

/// Whether the project shows sweeps to raters.
pub fn sweep_for_raters(project: &Project) -> Result<bool> {
    Ok(project.store.meta(SWEEP_FOR_RATERS)?.as_deref() == Some("on"))
}

/// Whether the actor may read sweeps: the coordinator always, a rater only while the project
/// shows sweeps to raters.
fn sweeps_visible(project: &Project) -> Result<bool> {
    Ok(matches!(project.actor(), Some(Actor::Coordinator)) || sweep_for_raters(project)?)
}

/// A case's stored sweep as the actor may read it: the coordinator's always, a rater's only
/// while the project shows sweeps to raters; `None` when there is none to show.
pub(super) fn visible_sweep(project: &Project, case_id: i64) -> Result<Option<Vec<ProposedSweep>>> {
    if !sweeps_visible(project)? {
        return Ok(None);
    }
    Ok(stored_sweep(project, case_id)?.map(|(_, results)| results))
}

/// A case's stored sweep with the base commit it was made at, whoever asks: for the
/// coordinator's own use (`ops::sweep`).
pub(super) fn stored_sweep(
    project: &Project,
    case_id: i64,
) -> Result<Option<(String, Vec<ProposedSweep>)>> {
    let Some(stored) = project.store.sweep(case_id)? else {
        return Ok(None);
    };
    Ok(Some((stored.base_commit, read(case_id, &stored.results)?)))
}

/// A stored sweep's JSON, or the sentence saying it cannot be read.
fn read<T: DeserializeOwned>(case_id: i64, json: &str) -> Result<T> {
    serde_json::from_str(json).map_err(|err| {
        Error::NotFound(format!(
            "the sweep stored for case row {case_id} cannot be read ({err}); run `verity sweep` again"
        ))
    })
}

/// Each swept case's tiers (one per proposal) as the actor may read them, of every case or of
/// `cases` only (a page): none for a rater unless the project shows sweeps to raters.
pub(super) fn visible_sweep_tiers(
    project: &Project,
    cases: Option<&[i64]>,
) -> Result<HashMap<i64, Vec<Tier>>> {
    #[derive(Deserialize)]
    struct Tiered {
        tier: Tier,
    }
    if !sweeps_visible(project)? {
        return Ok(HashMap::new());
    }
    project
        .store
        .sweeps(cases)?
        .into_iter()
        .map(|(case_id, json)| {
            let results: Vec<Tiered> = read(case_id, &json)?;
            Ok((case_id, results.into_iter().map(|r| r.tier).collect()))
        })
        .collect()
}
