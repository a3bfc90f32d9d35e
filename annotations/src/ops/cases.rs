//! Cases: the list with each assignment's status, one case in full, and how a case is named
//! (its id, or a unique prefix).

use serde::Serialize;
use serde_json::{Map, Value};
use ts_rs::TS;

use super::access::Actor;
use super::lookup::find_case;
use super::progress::{CaseListItem, CaseOrder, ProgressQuery, all_progress, assignments_of};
use super::status::{AnswerStatus, AssignmentStatus};
use super::{Project, Result};
use verity_store::PairScope;
use verity_task::case::{AuditNote, Case};

/// Everything about one case a rater reads.
#[derive(Debug, Clone, Default, Serialize, TS)]
#[ts(export)]
pub struct CaseDetail {
    /// The task's id.
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The base commit, when known.
    pub base_commit: Option<String>,
    /// The current revision.
    #[ts(type = "number")]
    pub revision: i64,
    /// The first line.
    pub title: String,
    /// The issue text, as imported (untrusted).
    pub problem_statement: String,
    /// Hints (comments before the fix).
    pub hints_text: String,
    /// SWE-bench Pro's requirements.
    pub requirements: Option<String>,
    /// SWE-bench Pro's interface.
    pub interface: Option<String>,
    /// The gold patch.
    pub gold_patch: String,
    /// The test patch.
    pub test_patch: String,
    /// FAIL_TO_PASS.
    pub fail_to_pass: Vec<String>,
    /// PASS_TO_PASS.
    pub pass_to_pass: Vec<String>,
    /// The PR's address, when it can be derived.
    pub pr_url: Option<String>,
    /// Whether issue text and patches are present.
    pub has_materials: bool,
    /// The sources that contributed.
    pub sources: Vec<String>,
    /// The audit's verdict, status and class, when an audit folder was imported.
    pub audit_status: Option<String>,
    /// The audit's witness class.
    pub audit_class: Option<String>,
    /// Other fields, as imported.
    #[ts(type = "Record<string, unknown>")]
    pub extra: Map<String, Value>,
    /// Assignments and their status.
    pub assignments: Vec<AssignmentStatus>,
    /// The case's sweeps (`verity sweep`), every proposal kept at its base commit: the
    /// coordinator's, and a rater's only while the project shows sweeps to raters.
    #[ts(type = "Array<Record<string, unknown>> | null")]
    pub sweep: Option<Vec<super::sweep_access::ProposedSweep>>,
}

/// Which cases `list_cases` returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaseFilter {
    /// Only cases assigned to this rater (or that they answered).
    pub rater: Option<String>,
    /// Only cases with an assignment in this status (the named rater's, when one is given).
    pub status: Option<AnswerStatus>,
    /// Only cases of this repository (`owner/name`).
    pub repo: Option<String>,
    /// In natural id order, or by risk.
    pub order: CaseOrder,
}

/// The cases the filter keeps, with their assignments' status, in the filter's order.
pub fn list_cases(project: &Project, filter: &CaseFilter) -> Result<Vec<CaseListItem>> {
    project.require_coordinator("follows every rater's progress")?;
    all_progress(
        project,
        &ProgressQuery {
            rater: filter.rater.clone(),
            status: filter.status,
            repo: filter.repo.clone(),
            order: filter.order,
            ..ProgressQuery::default()
        },
    )
}

/// One case in full, with its assignments' status (never another rater's answers).
pub fn show_case(project: &Project, instance_id: &str) -> Result<CaseDetail> {
    project.require_actor()?;
    let stored = find_case(project, instance_id)?;
    let assignments = assignments_of(
        project,
        project
            .store
            .pair_progress(PairScope::Cases(&[stored.case_id]))?,
    )?
    .remove(&stored.case_id)
    .unwrap_or_default();
    let sweep = super::sweep_access::visible_sweep(project, stored.case_id)?;
    let case: Case = stored.case;
    let title = case.title();
    let has_materials = case.has_materials();
    // The audit's verdict and where a task came from (an audit folder, a reference set) are
    // the coordinator's: a rater who saw them would not be a blind panel.
    let coordinator = matches!(project.actor(), Some(Actor::Coordinator));
    let (audit_status, audit_class) = match &case.audit {
        Some(AuditNote {
            status,
            witness_class,
            ..
        }) if coordinator => (status.clone(), witness_class.clone()),
        _ => (None, None),
    };
    Ok(CaseDetail {
        instance_id: case.instance_id,
        repo: case.repo,
        base_commit: case.base_commit,
        revision: stored.revision,
        title,
        problem_statement: case.problem_statement,
        hints_text: case.hints_text,
        requirements: case.requirements,
        interface: case.interface,
        gold_patch: case.gold_patch,
        test_patch: case.test_patch,
        fail_to_pass: case.fail_to_pass,
        pass_to_pass: case.pass_to_pass,
        pr_url: case.pr_url,
        has_materials,
        sources: if coordinator {
            case.sources
                .iter()
                .map(|s| s.as_str().to_string())
                .collect()
        } else {
            Vec::new()
        },
        audit_status,
        audit_class,
        extra: case.extra,
        assignments,
        sweep,
    })
}
