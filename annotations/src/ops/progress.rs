//! Lists that stay fast and small at any size: a rater's queue and the coordinator's progress
//! per task, a page at a time, filtered by status and searched by id, repository or title.
//!
//! The store answers each rater's progress from indexes (`store::ProgressStore`); the case list
//! (ids, repositories, titles) is kept in memory in natural id order, and read again only when
//! a case or a revision is added. A rater's
//! progress is kept while the project file is unchanged, so each keystroke of a search is a scan
//! of memory, not a query: at 50,000 tasks the query takes a few hundred milliseconds, the scan
//! a few. On a server nothing tells cheaply that another session wrote, so progress is read
//! for every page there.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::access::Actor;
use super::adjudication::{Disagreement, list_disagreements};
use super::listing::{
    CaseRisk, Risks, case_risks, catalog, kept_while_unchanged, rater_progress, with_sweeps,
};
use super::lookup::find_rater;
use super::status::{AnswerStatus, AssignmentStatus};
use super::{Project, Result, natural_cmp};
use verity_evidence::ENGINE_VERSION;
use verity_store::{CaseRow, PairProgress, PairScope};

/// What a search keeps: every case when it is blank, else those whose id, repository or title
/// holds it (case-insensitive). The lower-case text is made as the search runs, not kept: at
/// 50,000 tasks that costs a few milliseconds a keystroke and saves megabytes.
fn search_matcher(search: &str) -> impl Fn(&CaseRow) -> bool {
    let needle = search.trim().to_lowercase();
    move |case: &CaseRow| {
        needle.is_empty()
            || format!("{} {} {}", case.instance_id, case.repo, case.title)
                .to_lowercase()
                .contains(&needle)
    }
}

/// A line of a rater's queue.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct QueueItem {
    /// The task's id.
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The first line.
    pub title: String,
    /// How far the rater is.
    pub status: AnswerStatus,
    /// Active time spent, in milliseconds.
    #[ts(type = "number")]
    pub active_ms: i64,
}

/// A page of a rater's queue.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
pub struct QueueQuery {
    /// Whose queue.
    pub rater: String,
    /// How many matching tasks come before the page.
    pub offset: u32,
    /// How many tasks at most the page holds.
    pub limit: u32,
    /// Only tasks in this status.
    pub status: Option<AnswerStatus>,
    /// Only tasks whose id, repository or title holds this (case-insensitive); blank for all.
    pub search: String,
}

/// How many tasks are in each status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct StatusCounts {
    /// Nothing saved yet.
    pub to_do: u32,
    /// A draft saved.
    pub in_progress: u32,
    /// Submitted.
    pub submitted: u32,
}

impl StatusCounts {
    fn add(&mut self, status: AnswerStatus) {
        match status {
            AnswerStatus::ToDo => self.to_do += 1,
            AnswerStatus::InProgress => self.in_progress += 1,
            AnswerStatus::Submitted => self.submitted += 1,
        }
    }
}

/// A page of a rater's queue, in natural id order.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct QueuePage {
    /// Tasks that match the status and the search.
    pub total: u32,
    /// The whole queue's tasks per status, whatever the filter.
    pub counts: StatusCounts,
    /// The page's first task's place among the matching ones.
    pub offset: u32,
    /// The page.
    pub items: Vec<QueueItem>,
}

/// Goes through a rater's queue in natural id order, as `(case, status, active ms)`; nothing
/// for a deactivated rater.
fn each_in_queue(
    project: &Project,
    rater: &str,
    mut visit: impl FnMut(&CaseRow, AnswerStatus, i64),
) -> Result<()> {
    let found = find_rater(project, rater)?;
    if !found.active {
        return Ok(());
    }
    let catalog = catalog(project)?;
    let progress = rater_progress(project, found.id)?;
    for case in &catalog.cases {
        if let Some(&(status, active_ms)) = progress.get(&case.case_id) {
            visit(case, status, active_ms);
        }
    }
    Ok(())
}

fn queue_item(case: &CaseRow, status: AnswerStatus, active_ms: i64) -> QueueItem {
    QueueItem {
        instance_id: case.instance_id.clone(),
        repo: case.repo.clone(),
        title: case.title.clone(),
        status,
        active_ms,
    }
}

/// A page of a rater's queue: the tasks that match the status and the search, and the whole
/// queue's counts per status.
pub fn queue_page(project: &Project, query: &QueueQuery) -> Result<QueuePage> {
    project.require_rater(&query.rater)?;
    let matches = search_matcher(&query.search);
    let (offset, limit) = (query.offset as usize, query.limit as usize);
    let mut page = QueuePage {
        total: 0,
        counts: StatusCounts::default(),
        offset: query.offset,
        items: Vec::new(),
    };
    each_in_queue(project, &query.rater, |case, status, active_ms| {
        page.counts.add(status);
        if query.status.is_some_and(|s| s != status) || !matches(case) {
            return;
        }
        let place = page.total as usize;
        if place >= offset && place < offset.saturating_add(limit) {
            page.items.push(queue_item(case, status, active_ms));
        }
        page.total += 1;
    })?;
    Ok(page)
}

/// A rater's assigned cases, in natural id order; empty for a deactivated rater.
pub fn rater_queue(project: &Project, rater: &str) -> Result<Vec<QueueItem>> {
    project.require_rater(rater)?;
    let mut items = Vec::new();
    each_in_queue(project, rater, |case, status, active_ms| {
        items.push(queue_item(case, status, active_ms));
    })?;
    Ok(items)
}

/// The task a rater works on next. Without `after`: the first one in progress, else the first
/// to do, else the first. After a task: the next one not submitted, going round to the start;
/// `None` when every other task is submitted.
pub fn next_task(project: &Project, rater: &str, after: Option<&str>) -> Result<Option<String>> {
    project.require_rater(rater)?;
    let mut queue: Vec<(String, AnswerStatus)> = Vec::new();
    each_in_queue(project, rater, |case, status, _| {
        queue.push((case.instance_id.clone(), status));
    })?;
    let first_with = |wanted: AnswerStatus| queue.iter().find(|(_, s)| *s == wanted);
    let next = match after {
        None => first_with(AnswerStatus::InProgress)
            .or_else(|| first_with(AnswerStatus::ToDo))
            .or(queue.first()),
        Some(after) => {
            let at = queue.iter().position(|(id, _)| id == after);
            let (before, rest) = queue.split_at(at.map_or(0, |i| i + 1));
            let before = &before[..at.unwrap_or(0)];
            rest.iter()
                .chain(before)
                .find(|(_, s)| *s != AnswerStatus::Submitted)
        }
    };
    Ok(next.map(|(id, _)| id.clone()))
}

/// The order of a task list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum CaseOrder {
    /// Natural id order: `tinylib-2` before `tinylib-10`.
    #[default]
    Id,
    /// The highest risk score first (the evidence's, moved by the task's sweep), then tasks
    /// with neither; ties in natural id order.
    Risk,
}

/// A line of the case list.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct CaseListItem {
    /// The task's id.
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The first line.
    pub title: String,
    /// The base commit, when known.
    pub base_commit: Option<String>,
    /// The current revision.
    #[ts(type = "number")]
    pub revision: i64,
    /// Whether the issue text and patches are present.
    pub has_materials: bool,
    /// Assignments and their status.
    pub assignments: Vec<AssignmentStatus>,
    /// The risk score: the evidence's at the current revision and engine, moved by the task's
    /// sweep when there is one the reader may see; `null` with neither.
    pub risk: Option<f64>,
    /// The evidence's own risk score, before any sweep.
    pub evidence_risk: Option<f64>,
    /// The sweep's tier that moved the score (`codebase-plural`, `misdetermined`, `airtight`
    /// raise it, `determined-codebase` caps it, `unsettled` leaves it), when the task has a
    /// sweep the reader may see.
    pub sweep_tier: Option<String>,
    /// Whether the sweep flags the task red: the codebase makes the choice several live ways,
    /// contradicts the graded value, or has it nowhere.
    pub sweep_red: bool,
}

/// A page of the coordinator's progress per task.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(export)]
pub struct ProgressQuery {
    /// How many matching tasks come before the page.
    pub offset: u32,
    /// How many tasks at most the page holds.
    pub limit: u32,
    /// Only tasks this rater has (in `status`, when given).
    pub rater: Option<String>,
    /// Only tasks with an assignment in this status (the rater's, when one is given).
    pub status: Option<AnswerStatus>,
    /// Only tasks of this repository (`owner/name`).
    pub repo: Option<String>,
    /// Only tasks whose id, repository or title holds this (case-insensitive); blank for all.
    pub search: String,
    /// Natural id order, or the highest risk first.
    #[serde(default)]
    pub order: CaseOrder,
}

/// A page of the progress per task, in the query's order.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ProgressPage {
    /// Tasks that match the query.
    pub total: u32,
    /// The page's first task's place among the matching ones.
    pub offset: u32,
    /// The page, each task with its assignments' status.
    pub items: Vec<CaseListItem>,
}

/// Statuses per case row id, of one rater or of all, for a filter on rater or status.
fn statuses_by_case(
    project: &Project,
    rater: Option<&str>,
) -> Result<HashMap<i64, Vec<AnswerStatus>>> {
    let raters = match rater {
        Some(name) => vec![find_rater(project, name)?],
        None => project.store.list_raters()?,
    };
    let mut out: HashMap<i64, Vec<AnswerStatus>> = HashMap::new();
    for r in raters {
        for p in project.store.pair_progress(PairScope::Rater(r.id))? {
            out.entry(p.case_id).or_default().push(p.state.into());
        }
    }
    Ok(out)
}

/// The assignments of these cases, by case row id, each case's in natural rater order.
pub(super) fn assignments_of(
    project: &Project,
    pairs: Vec<PairProgress>,
) -> Result<HashMap<i64, Vec<AssignmentStatus>>> {
    let names: HashMap<i64, String> = project
        .store
        .list_raters()?
        .into_iter()
        .map(|r| (r.id, r.name))
        .collect();
    // A rater sees their own work only: not who else rates a task, nor how far they are.
    let only = match project.actor() {
        Some(Actor::Rater { name }) => Some(name.as_str()),
        _ => None,
    };
    let mut out: HashMap<i64, Vec<AssignmentStatus>> = HashMap::new();
    for p in pairs {
        if only.is_some_and(|me| names.get(&p.rater_id).map(String::as_str) != Some(me)) {
            continue;
        }
        out.entry(p.case_id).or_default().push(AssignmentStatus {
            rater: names.get(&p.rater_id).cloned().unwrap_or_default(),
            status: p.state.into(),
            active_ms: p.active_ms,
        });
    }
    for list in out.values_mut() {
        list.sort_by(|a, b| natural_cmp(&a.rater, &b.rater));
    }
    Ok(out)
}

fn case_list_item(
    row: &CaseRow,
    assignments: Vec<AssignmentStatus>,
    risks: &Risks,
) -> CaseListItem {
    let risk = risks.get(&row.case_id);
    CaseListItem {
        instance_id: row.instance_id.clone(),
        repo: row.repo.clone(),
        title: row.title.clone(),
        base_commit: row.base_commit.clone(),
        revision: row.revision,
        has_materials: row.has_materials,
        assignments,
        risk: risk.and_then(|r| r.risk()),
        evidence_risk: risk.and_then(|r| r.evidence),
        sweep_tier: risk
            .and_then(|r| r.sweep)
            .map(|s| s.tier.as_str().to_string()),
        sweep_red: risk.and_then(|r| r.sweep).is_some_and(|s| s.red),
    }
}

/// The cases a query keeps, in its order, before paging. In risk order it reads every case's
/// risk score, and returns them.
fn matching_cases(
    project: &Project,
    query: &ProgressQuery,
) -> Result<(Vec<CaseRow>, Option<Arc<Risks>>)> {
    let mut cases = filtered_cases(project, query)?;
    if query.order != CaseOrder::Risk {
        return Ok((cases, None));
    }
    let risks = case_risks(project)?;
    // Stable: ties keep natural id order, and tasks without a score go last.
    cases.sort_by(|a, b| {
        let (a, b) = (
            risks.get(&a.case_id).and_then(CaseRisk::risk),
            risks.get(&b.case_id).and_then(CaseRisk::risk),
        );
        b.is_some()
            .cmp(&a.is_some())
            .then_with(|| b.unwrap_or(0.0).total_cmp(&a.unwrap_or(0.0)))
    });
    Ok((cases, Some(risks)))
}

/// The cases a query keeps, in natural id order.
fn filtered_cases(project: &Project, query: &ProgressQuery) -> Result<Vec<CaseRow>> {
    let catalog = catalog(project)?;
    let by_status = match (&query.rater, query.status) {
        (None, None) => None,
        (rater, _) => Some(statuses_by_case(project, rater.as_deref())?),
    };
    let matches = search_matcher(&query.search);
    Ok(catalog
        .cases
        .iter()
        .filter(|case| query.repo.as_ref().is_none_or(|r| case.repo == *r))
        .filter(|case| {
            by_status.as_ref().is_none_or(|by_case| {
                by_case.get(&case.case_id).is_some_and(|statuses| {
                    query.status.is_none_or(|wanted| statuses.contains(&wanted))
                })
            })
        })
        .filter(|case| matches(case))
        .cloned()
        .collect())
}

/// A page of the progress per task: the tasks the query keeps, each with its assignments'
/// status (never an answer).
pub fn progress_page(project: &Project, query: &ProgressQuery) -> Result<ProgressPage> {
    project.require_coordinator("follows every rater's progress")?;
    let (cases, risks) = matching_cases(project, query)?;
    let page: Vec<&CaseRow> = cases
        .iter()
        .skip(query.offset as usize)
        .take(query.limit as usize)
        .collect();
    let ids: Vec<i64> = page.iter().map(|row| row.case_id).collect();
    // In another order only the page's scores are read: a server project keeps nothing
    // between pages.
    let risks = match risks {
        Some(all) => all,
        None => Arc::new(with_sweeps(
            project,
            project.store.case_risks(ENGINE_VERSION, Some(&ids))?,
            Some(&ids),
        )?),
    };
    let mut assignments = assignments_of(
        project,
        project.store.pair_progress(PairScope::Cases(&ids))?,
    )?;
    Ok(ProgressPage {
        total: u32::try_from(cases.len()).unwrap_or(u32::MAX),
        offset: query.offset,
        items: page
            .into_iter()
            .map(|row| {
                let assignments = assignments.remove(&row.case_id).unwrap_or_default();
                case_list_item(row, assignments, &risks)
            })
            .collect(),
    })
}

/// Every case a query keeps, with its assignments' status and risk score, in the query's
/// order: the progress per task in one list (`verity cases`).
pub(super) fn all_progress(project: &Project, query: &ProgressQuery) -> Result<Vec<CaseListItem>> {
    let (cases, risks) = matching_cases(project, query)?;
    let risks = match risks {
        Some(all) => all,
        None => case_risks(project)?,
    };
    let mut pairs = Vec::new();
    for r in project.store.list_raters()? {
        pairs.extend(project.store.pair_progress(PairScope::Rater(r.id))?);
    }
    let mut assignments = assignments_of(project, pairs)?;
    Ok(cases
        .iter()
        .map(|row| {
            let assignments = assignments.remove(&row.case_id).unwrap_or_default();
            case_list_item(row, assignments, &risks)
        })
        .collect())
}

/// A page of the disagreement queue.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(export)]
pub struct DisagreementQuery {
    /// How many matching disagreements come before the page.
    pub offset: u32,
    /// How many disagreements at most the page holds.
    pub limit: u32,
    /// Only disagreements on this question (its id).
    pub question: Option<String>,
    /// Only those not adjudicated yet.
    pub open_only: bool,
}

/// A question with a disagreement, to filter by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct DisagreedQuestion {
    /// The question's id.
    pub question: String,
    /// Its number.
    pub number: String,
}

/// A page of the disagreement queue, worst first, with the whole queue's figures.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct DisagreementPage {
    /// Disagreements that match the query.
    pub total: u32,
    /// Disagreements in all.
    pub all: u32,
    /// Of all, those not adjudicated.
    pub open: u32,
    /// The questions with a disagreement, in the questionnaire's order.
    pub questions: Vec<DisagreedQuestion>,
    /// The page's first disagreement's place among the matching ones.
    pub offset: u32,
    /// The page.
    pub items: Vec<Disagreement>,
}

/// Every disagreement: working them out reads every submitted answer.
fn all_disagreements(project: &Project) -> Result<Arc<Vec<Disagreement>>> {
    kept_while_unchanged(
        project,
        |k| &mut k.disagreements,
        || list_disagreements(project),
    )
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A page of the disagreement queue (a coordinator function: it shows every rater's answers).
pub fn disagreement_page(project: &Project, query: &DisagreementQuery) -> Result<DisagreementPage> {
    project.require_coordinator("reads every rater's answers")?;
    let all = all_disagreements(project)?;
    let present: std::collections::HashSet<&str> =
        all.iter().map(|d| d.question.as_str()).collect();
    let questions = project
        .questionnaire
        .questions()
        .filter(|q| present.contains(q.id.as_str()))
        .filter_map(|q| {
            let d = all.iter().find(|d| d.question == q.id)?;
            Some(DisagreedQuestion {
                question: d.question.clone(),
                number: d.number.clone(),
            })
        })
        .collect();
    let matching: Vec<&Disagreement> = all
        .iter()
        .filter(|d| query.question.as_ref().is_none_or(|q| d.question == *q))
        .filter(|d| !query.open_only || d.adjudication.is_none())
        .collect();
    Ok(DisagreementPage {
        total: count(matching.len()),
        all: count(all.len()),
        open: count(all.iter().filter(|d| d.adjudication.is_none()).count()),
        questions,
        offset: query.offset,
        items: matching
            .into_iter()
            .skip(query.offset as usize)
            .take(query.limit as usize)
            .cloned()
            .collect(),
    })
}
