//! The codebase-determinacy sweep (`verity sweep`): proposals, from a file or from a model
//! rater's endpoint, verified at their tasks' base commits and classified into tiers
//! (`evidence/sweep.rs` says how), each case's latest results stored. Who may read them is
//! `sweep_access.rs`'s.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

use time::OffsetDateTime;

use super::evidence::{Target, prose, target};
use super::model_prompt::{PromptTemplate, SWEEP_PROMPT, build_sweep_prompt, proposal_from_reply};
use super::models::{
    Asking, Fields, RateProgress, RateReport, Reply, RunPlan, find_model, run_model,
};
use super::sweep_access::{ProposedSweep, Proposer, stored_sweep};
use super::{Error, ErrorCode, Project, Result, show_case, stamp};
use serde::Serialize;
use verity_endpoint::{Halt, StructuredRequest};
use verity_evidence::{
    ENGINE_VERSION, Engine, Proposal, SweepResult, SweepTask, Tier, parse_proposals, with_sweep,
};
use verity_store::{AttemptPurpose, CaseRow};

/// Reads a proposals document (one proposal or a list, in the audit's format); `source_name`
/// names it in errors.
pub fn read_proposals(json: &str, source_name: &str) -> Result<Vec<Proposal>> {
    Ok(parse_proposals(json, source_name)?)
}

/// What a sweep changed for one task: the proposals it keeps across its sweeps, and where its
/// tier, risk and flag stood before and after (`None`: not swept).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepChange {
    /// The task's id.
    pub instance_id: String,
    /// Proposals this sweep added to the task's (a sweep kept already adds none).
    pub added: usize,
    /// Proposals the task keeps now, across all its sweeps at its base commit.
    pub kept: usize,
    /// Proposals made at another base commit, no longer kept.
    pub dropped: usize,
    /// The task's standing before.
    pub before: Option<SweepStanding>,
    /// The task's standing after.
    pub after: Option<SweepStanding>,
}

/// A task's standing after its sweeps (`docs/sweep.md`, "Into triage"): the tier that decides
/// it across every proposal kept, its risk and whether it is flagged red.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SweepStanding {
    /// The deciding tier.
    pub tier: Tier,
    /// The risk after the sweeps; `None` without an evidence report or a raising tier.
    pub risk: Option<f64>,
    /// Whether the sweeps flag the task red.
    pub red: bool,
}

/// What `verity sweep --proposals` did: each proposal's result, in order, and what changed for
/// each task.
#[derive(Debug, Clone)]
pub struct SweepRun {
    /// Each proposal swept, its task's id resolved.
    pub results: Vec<SweepResult>,
    /// Task by task, in the order of their first proposal.
    pub changes: Vec<SweepChange>,
}

/// Verifies each proposal at its task's base commit (a task named by a unique prefix of its id,
/// as every command takes it) and classifies it; keeps each task's results beside its earlier
/// sweeps at that base commit, with `source` (the proposals file) as their proposer. Every
/// proposal's task, base commit and clone are checked before anything is computed: one that
/// cannot be swept refuses the whole run.
pub fn sweep_proposals(
    project: &mut Project,
    engine: &Engine,
    proposals: &[Proposal],
    source: &str,
    now: OffsetDateTime,
) -> Result<SweepRun> {
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
    let at = stamp(now);
    let mut results = Vec::with_capacity(proposals.len());
    let mut by_case: BTreeMap<i64, Vec<ProposedSweep>> = BTreeMap::new();
    let mut order: Vec<&Target> = Vec::new();
    for (proposal, t) in proposals.iter().zip(&targets) {
        let proposal = Proposal {
            iid: t.stored.case.instance_id.clone(),
            ..proposal.clone()
        };
        let result = sweep_one(engine, t, &proposal)?;
        if !by_case.contains_key(&t.stored.case_id) {
            order.push(t);
        }
        by_case
            .entry(t.stored.case_id)
            .or_default()
            .push(ProposedSweep {
                result: result.clone(),
                proposer: None,
                proposals_file: Some(source.to_string()),
                swept_at: Some(at.clone()),
            });
        results.push(result);
    }
    let mut changes = Vec::with_capacity(order.len());
    for t in order {
        let swept = by_case.remove(&t.stored.case_id).unwrap_or_default();
        changes.push(keep_sweeps(project, t, swept, &at)?);
    }
    Ok(SweepRun { results, changes })
}

/// Keeps `swept` beside the task's earlier sweeps at its base commit (one the same proposer
/// made with the same result is kept once; those made at another base commit no longer hold),
/// and says what changed. A later proposal that verifies nothing erases nothing: the task's
/// standing follows from every proposal kept (`with_sweep`).
fn keep_sweeps(
    project: &mut Project,
    t: &Target,
    swept: Vec<ProposedSweep>,
    at: &str,
) -> Result<SweepChange> {
    let case_id = t.stored.case_id;
    let (mut kept, dropped) = match stored_sweep(project, case_id)? {
        Some((base, earlier)) if base == t.base_commit => (earlier, 0),
        Some((_, earlier)) => (Vec::new(), earlier.len()),
        None => (Vec::new(), 0),
    };
    let evidence_risk = project
        .store
        .case_risks(ENGINE_VERSION, Some(&[case_id]))?
        .first()
        .map(|(_, risk)| *risk);
    let standing = |kept: &[ProposedSweep]| {
        let tiers: Vec<Tier> = kept.iter().map(|s| s.result.tier).collect();
        with_sweep(evidence_risk, &tiers).map(|e| SweepStanding {
            tier: e.tier,
            risk: e.risk,
            red: e.red,
        })
    };
    let before = standing(&kept);
    let mut added = 0;
    for s in swept {
        if !kept.iter().any(|k| k.same_as(&s)) {
            kept.push(s);
            added += 1;
        }
    }
    if added > 0 || dropped > 0 {
        let json = serde_json::to_string(&kept).map_err(|source| Error::Encode {
            what: "a sweep",
            source,
        })?;
        project
            .store
            .put_sweep(case_id, &t.base_commit, &json, at)?;
    }
    Ok(SweepChange {
        instance_id: t.stored.case.instance_id.clone(),
        added,
        kept: kept.len(),
        dropped,
        before,
        after: standing(&kept),
    })
}

/// One proposal verified and tiered at its task's base commit (Verity's own part of a sweep,
/// logged with its time).
fn sweep_one(engine: &Engine, t: &Target, proposal: &Proposal) -> Result<SweepResult> {
    let c = &t.stored.case;
    let prose = prose(c);
    let task = SweepTask {
        base_commit: &t.base_commit,
        prose: &prose,
        gold_patch: &c.gold_patch,
        test_patch: &c.test_patch,
    };
    let started = std::time::Instant::now();
    let result = engine.sweep(Path::new(&t.repo_path), &t.context, &task, proposal)?;
    tracing::info!(
        case = c.instance_id,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "swept a proposal"
    );
    Ok(result)
}

/// The tasks `verity sweep --model` is asked about.
#[derive(Debug, Clone)]
pub enum SweepSelection {
    /// Every task with materials, a base commit and a registered clone.
    All,
    /// These tasks, by id or unique prefix: each must be sweepable.
    Ids(Vec<String>),
}

/// What `verity sweep --model` is asked.
#[derive(Debug, Clone)]
pub struct ModelSweepRequest {
    /// The model rater whose endpoint proposes.
    pub name: String,
    /// The tasks.
    pub cases: SweepSelection,
    /// Requests at once.
    pub concurrency: usize,
    /// Stop before a request that could take the run's cost past this, in USD.
    pub budget_usd: Option<f64>,
    /// How long one request may take before it is retried.
    pub timeout: Duration,
}

/// What `verity sweep --model` did.
#[derive(Debug, Clone)]
pub struct ModelSweepReport {
    /// The run: sweeps stored (`rated`), failures, tasks swept by this model before (skipped),
    /// tokens and cost.
    pub run: RateReport,
    /// Every selected task's sweep by this model and prompt, new or from before, in task order.
    pub results: Vec<ProposedSweep>,
    /// Tasks `--all` left out: no base commit, or no clone of their repository registered.
    pub left_out: usize,
    /// What each task swept now changed, in the order its reply came.
    pub changes: Vec<SweepChange>,
}

/// The model proposes, Verity verifies: asks a model rater's endpoint, with the sweep
/// proposer's prompt, for each selected task's discriminating choice and verbatim snippets of
/// how the codebase makes it, then verifies and tiers each valid reply exactly as a proposals
/// file's and stores it as the task's sweep with its provenance. A task this model swept before
/// at the same base commit with the same prompt is not asked again (a run resumes); its reply
/// cache, budget, concurrency and retries are the model raters' (`ops::models`). Every named
/// task's base commit and clone are checked before anything is sent.
pub fn sweep_with_model(
    project: &mut Project,
    engine: &Engine,
    req: &ModelSweepRequest,
    clock: &dyn Fn() -> OffsetDateTime,
    progress: &mut dyn FnMut(&RateProgress),
    halt: &Halt,
) -> Result<ModelSweepReport> {
    project.require_coordinator("sweeps tasks' codebases")?;
    let model = find_model(project, &req.name)?;
    let template = PromptTemplate::builtin(SWEEP_PROMPT)?;
    let (cases, left_out) = sweep_cases(project, &req.cases)?;
    let mut targets = HashMap::with_capacity(cases.len());
    for case in &cases {
        targets.insert(case.case_id, target(project, &case.instance_id)?);
    }
    let plan = RunPlan {
        model: &model,
        template: &template,
        purpose: AttemptPurpose::Sweep,
        concurrency: req.concurrency,
        budget_usd: req.budget_usd,
        timeout: req.timeout,
    };
    let mut sweeping = Sweeping {
        engine,
        rater: &model.rater.name,
        template: &template,
        targets: &targets,
        changes: Vec::new(),
    };
    let run = run_model(project, &plan, &cases, &mut sweeping, clock, progress, halt)?;
    let mut results = Vec::new();
    for case in &cases {
        if let Some(swept) = sweeping.stored(project, case)? {
            results.extend(swept);
        }
    }
    Ok(ModelSweepReport {
        run,
        results,
        left_out,
        changes: sweeping.changes,
    })
}

/// The selected tasks, in id order, and how many of `--all` were left out (no base commit, no
/// clone registered). A named task that cannot be swept is refused by its target, before the
/// run.
fn sweep_cases(project: &Project, selection: &SweepSelection) -> Result<(Vec<CaseRow>, usize)> {
    match selection {
        SweepSelection::Ids(ids) => {
            let (cases, _) = super::raters::selected_cases(
                project,
                &super::raters::CaseSelection::Ids(ids.clone()),
            )?;
            Ok((cases, 0))
        }
        SweepSelection::All => {
            let cloned: HashSet<String> = project
                .store
                .list_repositories()?
                .into_iter()
                .map(|r| r.name)
                .collect();
            let with_materials: Vec<CaseRow> = project
                .store
                .list_cases()?
                .into_iter()
                .filter(|c| c.has_materials)
                .collect();
            let total = with_materials.len();
            let cases: Vec<CaseRow> = with_materials
                .into_iter()
                .filter(|c| c.base_commit.is_some() && cloned.contains(&c.repo))
                .collect();
            if cases.is_empty() {
                return Err(Error::NotFound(
                    "no task can be swept: none has both a base commit and a registered clone of its repository (`verity repo add OWNER/NAME PATH`)".into(),
                ));
            }
            let left_out = total - cases.len();
            Ok((cases, left_out))
        }
    }
}

/// The sweep proposer's requests and what becomes of a reply.
struct Sweeping<'a> {
    engine: &'a Engine,
    rater: &'a str,
    template: &'a PromptTemplate,
    targets: &'a HashMap<i64, Target>,
    /// What each reply kept changed.
    changes: Vec<SweepChange>,
}

impl Sweeping<'_> {
    /// The case's sweeps this model, with this prompt, proposed at the case's base commit, when
    /// there is one.
    fn stored(&self, project: &Project, case: &CaseRow) -> Result<Option<Vec<ProposedSweep>>> {
        let Some((base_commit, swept)) = stored_sweep(project, case.case_id)? else {
            return Ok(None);
        };
        if case.base_commit.as_deref() != Some(base_commit.as_str()) {
            return Ok(None);
        }
        let ours: Vec<ProposedSweep> = swept
            .into_iter()
            .filter(|s| {
                s.proposer.as_ref().is_some_and(|p| {
                    p.rater == self.rater
                        && p.provenance.prompt_id == self.template.id
                        && p.provenance.prompt_version == self.template.version
                })
            })
            .collect();
        Ok((!ours.is_empty()).then_some(ours))
    }

    fn target(&self, case_id: i64) -> Result<&Target> {
        self.targets.get(&case_id).ok_or_else(|| {
            Error::refused(
                ErrorCode::Internal,
                format!("case row {case_id} was not among the run's tasks"),
            )
        })
    }
}

impl Asking for Sweeping<'_> {
    type Valid = Proposal;

    fn done_before(&self, project: &Project, case: &CaseRow) -> Result<bool> {
        Ok(self.stored(project, case)?.is_some())
    }

    fn request(&self, project: &Project, instance_id: &str) -> Result<StructuredRequest> {
        Ok(build_sweep_prompt(
            self.template,
            &show_case(project, instance_id)?,
        ))
    }

    fn check(
        &self,
        _project: &Project,
        instance_id: &str,
        reply: Fields,
    ) -> std::result::Result<Proposal, String> {
        proposal_from_reply(instance_id, &reply)
            .map_err(|why| format!("the reply is not a proposal: {why}"))
    }

    fn accept(&mut self, project: &mut Project, reply: Reply<Proposal>) -> Result<()> {
        let t = self.target(reply.asked.case_id)?;
        let result = sweep_one(self.engine, t, &reply.valid)?;
        let at = stamp(reply.now);
        let swept = vec![ProposedSweep {
            result,
            proposer: Some(Proposer {
                rater: self.rater.to_string(),
                provenance: reply.provenance,
            }),
            proposals_file: None,
            swept_at: Some(at.clone()),
        }];
        self.changes.push(keep_sweeps(project, t, swept, &at)?);
        Ok(())
    }
}
