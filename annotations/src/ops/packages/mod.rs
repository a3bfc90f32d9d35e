//! Raters who work offline: a package is a project file cut from the panel's project for one
//! rater (their assigned tasks with materials, the questionnaire, the evidence cache, and their
//! own answers, nobody else's; nothing of an imported audit). The rater opens it like any
//! project and answers; the coordinator merges it back (`merge.rs`).
//!
//! Each package gets a secret of its own when it is made, recorded in the project under the
//! package's id with its rater and time (`package_keys`); the package holds its own secret and
//! seals every answer event its rater saves with it (`seal.rs`), which a merge checks.

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use super::lookup::{find_rater, refuse_model_rater};
use super::seal::{PACKAGE_ID, PACKAGE_SECRET, PackageSeal};
use super::{Overwrite, Project, Result, stamp, write_project_file};
use verity_evidence::{ENGINE_VERSION, EvidenceReport};
use verity_store::prelude::*;
use verity_store::transfer::{Cell, Table, copy_rows};
use verity_store::{PackageKey, Store, StoreError};
use verity_task::case::{AuditNote, SourceKind};

mod checks;
mod merge;
mod read;
pub use merge::{MergeConflict, MergeReport, PackageMerge, SettledBefore, merge_packages};
pub use read::MergedEvent;

pub use verity_store::PACKAGE_RATER;
/// The project setting holding the project's id, which a package shares with its project.
pub const PROJECT_ID: &str = "project_id";

/// What `package` wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PackageReport {
    /// The package file.
    pub file: String,
    /// The rater it is for.
    pub rater: String,
    /// Tasks in it.
    pub tasks: usize,
    /// The rater's own answer events in it.
    pub events: usize,
    /// Cached evidence reports in it.
    pub evidence: usize,
    /// True when it replaced an existing file.
    pub replaced: bool,
}

/// Writes the package of `rater`: a new project file at `out` holding the rater's assigned
/// tasks, the questionnaire, the evidence cached for those tasks and the rater's own answer
/// events, with a secret of its own that the project records first. Written whole or not at
/// all.
pub fn package_for_rater(
    project: &mut Project,
    rater: &str,
    out: &Path,
    overwrite: Overwrite,
    now: OffsetDateTime,
) -> Result<PackageReport> {
    project.require_coordinator("writes a rater's package")?;
    let rater = find_rater(project, rater)?;
    refuse_model_rater(project, &rater, "a package")?;
    let cases: HashSet<i64> = project
        .store
        .list_assignments()?
        .into_iter()
        .filter(|a| a.rater_id == rater.id)
        .map(|a| a.case_id)
        .collect();
    let key = PackageSeal::new();
    // Recorded before the file is written: a package the project has no record of could never
    // be merged, and a record whose file was never written is merely never used.
    project.store.put_package_key(&PackageKey {
        package_id: key.package_id.clone(),
        rater_id: rater.id,
        secret: key.secret.clone(),
        made_at: stamp(now),
    })?;
    let written = write_project_file(out, overwrite, |partial| {
        let mut package = Store::create(partial)?;
        let counts = cut(project.store.as_ref(), &mut package, rater.id, &cases)?;
        package.set_meta(PACKAGE_RATER, &rater.name)?;
        package.set_meta("packaged_at", &stamp(now))?;
        package.set_meta(PACKAGE_ID, &key.package_id)?;
        package.set_meta(PACKAGE_SECRET, &key.secret)?;
        Ok(counts)
    })?;
    let counts = written.value;
    let count = |name: &str| {
        counts
            .iter()
            .find(|(t, _)| *t == name)
            .map_or(0, |(_, n)| *n)
    };
    Ok(PackageReport {
        file: out.display().to_string(),
        rater: rater.name,
        tasks: count("cases"),
        events: count("answer_events"),
        evidence: count("evidence_cache"),
        replaced: written.replaced,
    })
}

/// Copies what the package of rater `rater_id` holds; returns the rows copied per table.
fn cut(
    from: &dyn ProjectStore,
    to: &mut dyn TransferStore,
    rater_id: i64,
    cases: &HashSet<i64>,
) -> Result<Vec<(&'static str, usize)>> {
    let mut revisions: HashSet<i64> = HashSet::new();
    let mut events: HashSet<i64> = HashSet::new();
    let int = |table: &Table, row: &[Cell], column: &str| {
        table
            .column(column)
            .and_then(|i| row.get(i))
            .and_then(Cell::as_int)
    };
    let this_engine = |table: &Table, row: &[Cell]| {
        table
            .column("engine_version")
            .and_then(|i| row.get(i))
            .and_then(Cell::as_text)
            == Some(ENGINE_VERSION)
    };
    let sweeps_shown = from.meta(super::sweep_access::SWEEP_FOR_RATERS)?.as_deref() == Some("on");
    let in_cases = |table: &Table, row: &[Cell]| {
        int(table, row, "case_id").is_some_and(|c| cases.contains(&c))
    };
    Ok(copy_rows(from, to, &mut |table, row| {
        Ok(match table.name {
            // The calibration rate stays with the coordinator, as the calibration tasks do.
            "meta" => table
                .column("key")
                .and_then(|i| row.get(i))
                .is_none_or(|key| *key != Cell::Text(super::calibration::CALIBRATION_RATE.into())),
            "questionnaires" => true,
            "cases" => int(table, row, "id").is_some_and(|c| cases.contains(&c)),
            // What the audit's folder said stays with the coordinator, down to its name.
            "case_sources" => {
                in_cases(table, row)
                    && table
                        .column("kind")
                        .and_then(|i| row.get(i))
                        .and_then(Cell::as_text)
                        != Some(SourceKind::AuditFolder.as_str())
                    && without_audit(table, row)?
            }
            "case_revisions" => {
                let keep = in_cases(table, row);
                if let (true, Some(id)) = (keep, int(table, row, "id")) {
                    revisions.insert(id);
                }
                keep && without_audit(table, row)?
            }
            "raters" => int(table, row, "id") == Some(rater_id),
            "assignments" => in_cases(table, row) && int(table, row, "rater_id") == Some(rater_id),
            "answer_events" => {
                let keep = in_cases(table, row) && int(table, row, "rater_id") == Some(rater_id);
                if let (true, Some(id)) = (keep, int(table, row, "id")) {
                    events.insert(id);
                }
                keep
            }
            "answer_event_fields" => {
                int(table, row, "answer_event_id").is_some_and(|e| events.contains(&e))
            }
            // This engine's reports, without precedents (one cached by an older Verity may hold
            // an audit folder's).
            "evidence_cache" => {
                int(table, row, "case_revision_id").is_some_and(|r| revisions.contains(&r))
                    && this_engine(table, row)
                    && without_precedents(table, row)?
            }
            // Sweeps are close to a verdict: a package carries its tasks' only while the
            // project shows them to raters.
            "sweeps" => sweeps_shown && in_cases(table, row),
            // Adjudications, reference labels, adjudicators, answer conflicts and the
            // coordinator's clones stay with the coordinator.
            _ => false,
        })
    })?)
}

/// Takes everything of the audit out of a task's text (a revision's or a source's `content`):
/// a package goes to a rater. True, so a filter can keep the row.
fn without_audit(table: &Table, row: &mut [Cell]) -> std::result::Result<bool, StoreError> {
    rewrite_json(table, row, "content", "a task text", AuditNote::strip_from)
}

/// Takes the precedents out of a cached evidence report. True, so a filter can keep the row.
fn without_precedents(table: &Table, row: &mut [Cell]) -> std::result::Result<bool, StoreError> {
    rewrite_json(table, row, "report", "an evidence report", |report| {
        if let Ok(mut parsed) = serde_json::from_value::<EvidenceReport>(report.clone()) {
            parsed.take_precedents();
            if let Ok(stripped) = serde_json::to_value(&parsed) {
                *report = stripped;
            }
        }
    })
}

/// Rewrites the JSON text in a row's `column` with `change`. True, so a filter can keep the
/// row.
fn rewrite_json(
    table: &Table,
    row: &mut [Cell],
    column: &str,
    what: &str,
    change: impl FnOnce(&mut Value),
) -> std::result::Result<bool, StoreError> {
    let Some(Cell::Text(content)) = table.column(column).and_then(|i| row.get_mut(i)) else {
        return Ok(true);
    };
    let mut value: Value = serde_json::from_str(content)
        .map_err(|e| StoreError::Rule(format!("{what} in {} is not JSON: {e}", table.name)))?;
    change(&mut value);
    *content = value.to_string();
    Ok(true)
}
