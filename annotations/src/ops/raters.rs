//! Raters and assignments: adding, deactivating and removing raters, the balanced assignment
//! and explicit assignments, a rater's queue and active time.

use std::collections::{BTreeMap, HashMap, HashSet};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use time::OffsetDateTime;
use ts_rs::TS;

use super::calibration::calibration_rate;
use super::lookup::{
    check_name, find_active_rater, find_case, find_rater, not_assigned, resolve_case_id,
};
use super::{Error, ErrorCode, Project, Result, natural_cmp, stamp};
use verity_evidence::shell_quote;
use verity_stats::natural::thousands;
use verity_store::{PairScope, PairState};

/// A rater as the app shows it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct RaterSummary {
    /// The name.
    pub name: String,
    /// False once deactivated: their answers stay, and they have no queue.
    pub active: bool,
    /// Cases assigned.
    pub assigned: usize,
    /// Cases submitted.
    pub submitted: usize,
    /// `human`, or `model` for a model rater (`verity models`).
    pub kind: RaterKind,
}

/// Who gives a rater's answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum RaterKind {
    /// A person.
    Human,
    /// A model behind an endpoint.
    Model,
}

/// Adds a rater. A name that differs from an existing one only in case is refused.
pub fn add_rater(project: &mut Project, name: &str, now: OffsetDateTime) -> Result<RaterSummary> {
    project.require_coordinator("adds raters")?;
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::refused(
            ErrorCode::Empty,
            "a rater's name must not be empty",
        ));
    }
    check_name(name, "a rater's name")?;
    project.store.add_rater(name, &stamp(now))?;
    Ok(RaterSummary {
        name: name.to_string(),
        active: true,
        assigned: 0,
        submitted: 0,
        kind: RaterKind::Human,
    })
}

/// What happened to a rater who left the panel.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct RaterChange {
    /// The rater.
    pub name: String,
    /// Unfinished assignments released for others (`assign` gives them out again).
    pub released: usize,
    /// Submitted answers the rater keeps.
    pub submitted: usize,
}

/// Deactivates a rater: their answers stay (submitted ones count in agreement and ensembles),
/// they leave every queue, and their unfinished assignments are released so that `assign`
/// gives those cases to the active raters, evening out the load.
pub fn deactivate_rater(
    project: &mut Project,
    name: &str,
    now: OffsetDateTime,
) -> Result<RaterChange> {
    project.require_coordinator("deactivates raters")?;
    let rater = find_rater(project, name)?;
    if !rater.active {
        return Err(Error::refused(
            ErrorCode::RaterInactive,
            format!("rater {name:?} is already deactivated"),
        ));
    }
    let released = project
        .store
        .set_rater_active(rater.id, false, &stamp(now))?;
    let submitted = rater_summary(project, &rater.name)?.submitted;
    Ok(RaterChange {
        name: rater.name,
        released,
        submitted,
    })
}

/// Brings a deactivated rater back; `assign` gives them cases again.
pub fn reactivate_rater(
    project: &mut Project,
    name: &str,
    now: OffsetDateTime,
) -> Result<RaterSummary> {
    project.require_coordinator("reactivates raters")?;
    let rater = find_rater(project, name)?;
    if rater.active {
        return Err(Error::refused(
            ErrorCode::RaterActive,
            format!("rater {name:?} is active"),
        ));
    }
    project
        .store
        .set_rater_active(rater.id, true, &stamp(now))?;
    rater_summary(project, &rater.name)
}

/// One rater's line of [`list_raters`].
fn rater_summary(project: &Project, name: &str) -> Result<RaterSummary> {
    list_raters(project)?
        .into_iter()
        .find(|r| r.name == name)
        .ok_or_else(|| Error::NotFound(format!("the project has no rater named {name:?}")))
}

/// Removes a rater who never saved an answer, with their assignments. A rater with answers is
/// refused: answers are never deleted, so deactivate them instead.
pub fn remove_rater(project: &mut Project, name: &str) -> Result<RaterChange> {
    project.require_coordinator("removes raters")?;
    let rater = find_rater(project, name)?;
    let events = project.store.rater_event_count(rater.id)?;
    if events > 0 {
        return Err(Error::refused(
            ErrorCode::HasAnswers,
            format!(
                "rater {name:?} has saved {events} answer event{}, and answers are never deleted; deactivate them instead (`verity raters deactivate {}`)",
                if events == 1 { "" } else { "s" },
                shell_quote(name)
            ),
        ));
    }
    let released = project.store.remove_rater(rater.id)?;
    Ok(RaterChange {
        name: rater.name,
        released,
        submitted: 0,
    })
}

/// Every rater with their load, active or not; a rater acting sees only themselves, as their
/// own login on a server does (no other rater's load, no model rater's name).
pub fn list_raters(project: &Project) -> Result<Vec<RaterSummary>> {
    let models = super::lookup::model_rater_ids(project)?;
    let only = project.acting_rater();
    let mut summaries: BTreeMap<String, RaterSummary> = project
        .store
        .list_raters()?
        .into_iter()
        .filter(|r| only.is_none_or(|name| r.name == name))
        .map(|r| {
            (
                r.name.clone(),
                RaterSummary {
                    kind: if models.contains(&r.id) {
                        RaterKind::Model
                    } else {
                        RaterKind::Human
                    },
                    name: r.name,
                    active: r.active,
                    assigned: 0,
                    submitted: 0,
                },
            )
        })
        .collect();
    for rater in project.store.list_raters()? {
        let Some(summary) = summaries.get_mut(&rater.name) else {
            continue;
        };
        for pair in project.store.pair_progress(PairScope::Rater(rater.id))? {
            summary.assigned += 1;
            if pair.state == PairState::Submitted {
                summary.submitted += 1;
            }
        }
    }
    let mut list: Vec<RaterSummary> = summaries.into_values().collect();
    list.sort_by(|a, b| natural_cmp(&a.name, &b.name));
    Ok(list)
}

/// What `assign` did.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct AssignReport {
    /// New assignments made.
    pub added: usize,
    /// The calibration tasks mixed into raters' queues at the calibration rate, each once, in
    /// natural id order.
    pub calibration: Vec<String>,
    /// Of the new assignments, those of calibration tasks.
    pub calibration_assignments: usize,
    /// Cases considered.
    pub cases: usize,
    /// Tasks left out because they lack materials (a problem statement or a gold patch):
    /// tasks an annotation file created, whose instances were never imported.
    pub without_materials: usize,
    /// Why nothing was assigned, when nothing was.
    pub why_none: Option<String>,
    /// Each active rater's load after assigning.
    pub load: BTreeMap<String, usize>,
}

/// Which cases an assignment covers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CaseSelection {
    /// Every case with materials.
    #[default]
    All,
    /// These cases, by id or unique prefix.
    Ids(Vec<String>),
    /// Every case with materials of one repository (`owner/name`).
    Repo(String),
}

/// The selected cases' rows, each once, in id order, and how many cases of the selection
/// were left out for lacking materials. Named cases must exist and have materials; a
/// repository must have cases with materials, and so must the project.
pub(super) fn selected_cases(
    project: &Project,
    selection: &CaseSelection,
) -> Result<(Vec<verity_store::CaseRow>, usize)> {
    let cases = project.store.list_cases()?;
    match selection {
        CaseSelection::All | CaseSelection::Repo(_) => {
            let in_scope: Vec<_> = cases
                .into_iter()
                .filter(|c| match selection {
                    CaseSelection::Repo(repo) => c.repo == *repo,
                    _ => true,
                })
                .collect();
            let total = in_scope.len();
            let chosen: Vec<_> = in_scope.into_iter().filter(|c| c.has_materials).collect();
            let bare = total - chosen.len();
            if chosen.is_empty() {
                let scope = match selection {
                    CaseSelection::Repo(repo) => format!(" in repository {repo}"),
                    _ => String::new(),
                };
                return Err(if bare == 0 {
                    Error::NotFound(format!("the project has no task{scope} to assign"))
                } else {
                    Error::refused(ErrorCode::CannotAssign, lacking_materials(bare, &scope))
                });
            }
            Ok((chosen, bare))
        }
        CaseSelection::Ids(ids) => {
            let mut wanted = std::collections::BTreeSet::new();
            for id in ids {
                wanted.insert(resolve_case_id(project, id)?);
            }
            let chosen: Vec<_> = cases
                .into_iter()
                .filter(|c| wanted.contains(&c.instance_id))
                .collect();
            if let Some(bare) = chosen.iter().find(|c| !c.has_materials) {
                return Err(Error::refused(
                    ErrorCode::CannotAssign,
                    format!(
                        "case {} has no materials (issue text and patches) yet; import its task first",
                        bare.instance_id
                    ),
                ));
            }
            Ok((chosen, 0))
        }
    }
}

/// Why no task could be assigned: `count` tasks lack materials.
fn lacking_materials(count: usize, scope: &str) -> String {
    let (tasks, verb) = if count == 1 {
        ("task", "lacks")
    } else {
        ("tasks", "lack")
    };
    format!(
        "nothing to assign: {} {tasks}{scope} {verb} a problem statement and gold patch (an annotation file made them): import their instances first",
        thousands(count)
    )
}

/// Gives every selected case `per_case` distinct active raters, keeping existing assignments
/// and evening out the load. Ties between equally loaded raters are broken by a permutation
/// drawn from `seed`, so the same project and seed always give the same assignment.
/// Submitted assignments of deactivated raters still count towards a case's raters.
pub fn assign(
    project: &mut Project,
    per_case: usize,
    seed: u64,
    selection: &CaseSelection,
    now: OffsetDateTime,
) -> Result<AssignReport> {
    project.require_coordinator("assigns cases")?;
    let (pairs, mut report) = plan_assignment(project, per_case, seed, selection)?;
    let added = project.store.add_assignments(&pairs, &stamp(now))?;
    finish_report(&mut report, added, per_case);
    Ok(report)
}

/// The new (case, rater) pairs [`assign`] would make, and its report but for what was added.
pub(super) fn plan_assignment(
    project: &Project,
    per_case: usize,
    seed: u64,
    selection: &CaseSelection,
) -> Result<(Vec<(i64, i64)>, AssignReport)> {
    // Model raters are given their tasks by `verity models rate`, never the panel's share.
    let models = super::lookup::model_rater_ids(project)?;
    let raters: Vec<_> = project
        .store
        .list_raters()?
        .into_iter()
        .filter(|r| r.active && !models.contains(&r.id))
        .collect();
    if per_case == 0 {
        return Err(Error::refused(
            ErrorCode::CannotAssign,
            "--per-case must be at least 1",
        ));
    }
    if per_case > raters.len() {
        return Err(Error::refused(
            ErrorCode::CannotAssign,
            format!(
                "cannot give each case {per_case} distinct raters: the project has {} active (add raters with `verity raters add NAME`)",
                raters.len()
            ),
        ));
    }
    // A calibration task marked before its materials were checked is never handed out bare.
    let calibration: HashMap<i64, String> = {
        let marked: HashSet<String> = project.store.calibration_tasks()?.into_iter().collect();
        project
            .store
            .list_cases()?
            .into_iter()
            .filter(|c| c.has_materials && marked.contains(&c.instance_id))
            .map(|c| (c.case_id, c.instance_id))
            .collect()
    };
    // Calibration tasks are mixed in below, at the rate; named cases are assigned as named.
    let named = matches!(selection, CaseSelection::Ids(_));
    let (selected, without_materials) = selected_cases(project, selection)?;
    let cases: Vec<_> = selected
        .into_iter()
        .filter(|c| named || !calibration.contains_key(&c.case_id))
        .collect();
    let mut existing: HashMap<i64, Vec<i64>> = HashMap::new();
    let mut load: HashMap<i64, usize> = raters.iter().map(|r| (r.id, 0)).collect();
    // A model rater's task (`models rate` assigns it) is none of the panel's K raters.
    for a in project.store.list_assignments()? {
        if models.contains(&a.rater_id) {
            continue;
        }
        existing.entry(a.case_id).or_default().push(a.rater_id);
        *load.entry(a.rater_id).or_default() += 1;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.shuffle(&mut rng);
    let mut pairs = Vec::new();
    for index in order {
        let case = &cases[index];
        let have = existing.get(&case.case_id).cloned().unwrap_or_default();
        let mut candidates: Vec<i64> = raters
            .iter()
            .map(|r| r.id)
            .filter(|id| !have.contains(id))
            .collect();
        candidates.shuffle(&mut rng);
        // Stable sort keeps the seeded order among equally loaded raters.
        candidates.sort_by_key(|id| load.get(id).copied().unwrap_or(0));
        for rater_id in candidates
            .into_iter()
            .take(per_case.saturating_sub(have.len()))
        {
            pairs.push((case.case_id, rater_id));
            *load.entry(rater_id).or_default() += 1;
        }
    }
    let pool: HashSet<i64> = calibration.keys().copied().collect();
    let mixed = match calibration_rate(project)? {
        Some(rate) if !named => mix_calibration(&raters, &pool, &existing, &pairs, rate, &mut rng),
        _ => Vec::new(),
    };
    for (_, rater_id) in &mixed {
        *load.entry(*rater_id).or_default() += 1;
    }
    pairs.extend(mixed.iter().copied());
    let mut report = assign_report(&raters, &load, pairs.len(), cases.len());
    let mut tasks: Vec<String> = mixed
        .iter()
        .filter_map(|(case_id, _)| calibration.get(case_id).cloned())
        .collect();
    tasks.sort_by(|a, b| natural_cmp(a, b));
    tasks.dedup();
    report.calibration = tasks;
    report.calibration_assignments = mixed.len();
    report.without_materials = without_materials;
    Ok((pairs, report))
}

/// Sets what was added, and why nothing was when nothing was.
pub(super) fn finish_report(report: &mut AssignReport, added: usize, per_case: usize) {
    report.added = added;
    let (cases, without_materials) = (report.cases, report.without_materials);
    if added == 0 {
        report.why_none = Some(if cases == 0 {
            "every selected task is a calibration task, and calibration tasks are mixed in only at the calibration rate (`verity calibration rate`)".to_string()
        } else {
            format!(
                "{} already has {per_case} rater{}{}",
                match cases {
                    1 => "the one task".to_string(),
                    n => format!("each of the {} tasks", thousands(n)),
                },
                if per_case == 1 { "" } else { "s" },
                if without_materials > 0 {
                    format!(
                        ", and {} more lack materials (import their instances first)",
                        thousands(without_materials)
                    )
                } else {
                    String::new()
                }
            )
        });
    }
}

/// The calibration assignments that bring each rater's queue to the rate: with `n` other
/// tasks, `round(rate × n / (1 − rate))` calibration tasks, the least-given ones first (ties
/// in the seeded order), never one the rater already has.
fn mix_calibration(
    raters: &[verity_store::Rater],
    calibration: &HashSet<i64>,
    existing: &HashMap<i64, Vec<i64>>,
    new: &[(i64, i64)],
    rate: f64,
    rng: &mut ChaCha8Rng,
) -> Vec<(i64, i64)> {
    let mut held: HashSet<(i64, i64)> = new.iter().copied().collect();
    for (case_id, holders) in existing {
        held.extend(holders.iter().map(|r| (*case_id, *r)));
    }
    let mut given: HashMap<i64, usize> = HashMap::new();
    for (case_id, _) in held.iter().filter(|(c, _)| calibration.contains(c)) {
        *given.entry(*case_id).or_default() += 1;
    }
    let mut pool: Vec<i64> = calibration.iter().copied().collect();
    pool.sort_unstable();
    let mut out = Vec::new();
    for rater in raters {
        let (mut ordinary, mut mine) = (0usize, 0usize);
        for (case_id, _) in held.iter().filter(|(_, r)| *r == rater.id) {
            if calibration.contains(case_id) {
                mine += 1;
            } else {
                ordinary += 1;
            }
        }
        let target = (rate * ordinary as f64 / (1.0 - rate)).round() as usize;
        let mut candidates: Vec<i64> = pool
            .iter()
            .copied()
            .filter(|c| !held.contains(&(*c, rater.id)))
            .collect();
        candidates.shuffle(rng);
        candidates.sort_by_key(|c| given.get(c).copied().unwrap_or(0));
        for case_id in candidates.into_iter().take(target.saturating_sub(mine)) {
            held.insert((case_id, rater.id));
            *given.entry(case_id).or_default() += 1;
            out.push((case_id, rater.id));
        }
    }
    out
}

fn assign_report(
    raters: &[verity_store::Rater],
    load: &HashMap<i64, usize>,
    added: usize,
    cases: usize,
) -> AssignReport {
    AssignReport {
        added,
        calibration: Vec::new(),
        calibration_assignments: 0,
        cases,
        without_materials: 0,
        why_none: None,
        load: raters
            .iter()
            .map(|r| (r.name.clone(), load.get(&r.id).copied().unwrap_or(0)))
            .collect(),
    }
}

/// Assigns the selected cases to the named raters explicitly: the coordinator's way to give a
/// rater a case outside the balanced assignment. Existing assignments stay.
pub fn assign_to(
    project: &mut Project,
    raters: &[String],
    selection: &CaseSelection,
    now: OffsetDateTime,
) -> Result<AssignReport> {
    project.require_coordinator("assigns cases")?;
    if raters.is_empty() {
        return Err(Error::refused(
            ErrorCode::Empty,
            "name at least one rater to assign",
        ));
    }
    let mut chosen = Vec::new();
    for name in raters {
        let rater = find_rater(project, name)?;
        if !rater.active {
            return Err(Error::refused(
                ErrorCode::RaterInactive,
                format!(
                    "rater {name:?} is deactivated; reactivate them first (`verity raters activate {}`)",
                    shell_quote(name)
                ),
            ));
        }
        chosen.push(rater);
    }
    let (cases, without_materials) = selected_cases(project, selection)?;
    let pairs: Vec<(i64, i64)> = cases
        .iter()
        .flat_map(|c| chosen.iter().map(move |r| (c.case_id, r.id)))
        .collect();
    let added = project.store.add_assignments(&pairs, &stamp(now))?;
    let mut load: HashMap<i64, usize> = HashMap::new();
    for a in project.store.list_assignments()? {
        *load.entry(a.rater_id).or_default() += 1;
    }
    let mut report = assign_report(&chosen, &load, added, cases.len());
    report.without_materials = without_materials;
    if added == 0 {
        report.why_none = Some(match cases.len() {
            1 => "the named raters already have the one task".to_string(),
            n => format!(
                "the named raters already have every one of the {} tasks",
                thousands(n)
            ),
        });
    }
    Ok(report)
}

/// Adds active time (the window focused and the rater not idle) to a rater's work on an
/// assigned case.
pub fn record_time(project: &mut Project, rater: &str, case: &str, active_ms: i64) -> Result<()> {
    project.require_rater(rater)?;
    let rater = find_active_rater(project, rater)?;
    let stored = find_case(project, case)?;
    if !project
        .store
        .add_active_time(stored.case_id, rater.id, active_ms)?
    {
        return Err(not_assigned(&rater.name, &stored.case.instance_id));
    }
    Ok(())
}
