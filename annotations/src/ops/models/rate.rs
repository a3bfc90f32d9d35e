//! `verity models rate`: a model rater's run over tasks (`run.rs`), each reply checked by the
//! questionnaire and each valid answer submitted as the rater's, with its provenance.

use std::time::Duration;

use time::OffsetDateTime;

use super::find_model;
use super::report::{RateProgress, RateReport};
use super::run::{Asking, Fields, Reply, RunPlan, run_model};
use crate::ops::access::Actor;
use crate::ops::answers::{CheckedAnswer, check_answer_values, submit_model_answer};
use crate::ops::model_prompt::{PromptTemplate, build_prompt};
use crate::ops::raters::{CaseSelection, selected_cases};
use crate::ops::{Error, ErrorCode, Project, Result, show_case};
use verity_endpoint::{Halt, StructuredRequest};
use verity_store::{AttemptPurpose, CaseRow, EventKind, ModelRater};
use verity_task::questionnaire::Stage;

/// What `verity models rate` is asked.
#[derive(Debug, Clone)]
pub struct RateRequest {
    /// The model rater.
    pub name: String,
    /// The tasks.
    pub cases: CaseSelection,
    /// Requests at once.
    pub concurrency: usize,
    /// Stop before a request that could take the run's cost past this, in USD.
    pub budget_usd: Option<f64>,
    /// How long one request may take before it is retried.
    pub timeout: Duration,
}

/// Runs a model rater over tasks: assigns them, asks the model for each task not yet
/// submitted, and stores each valid answer as the rater's submission with its provenance.
/// `progress` hears after each request; `halt` stops the run cleanly: a stop waits for the
/// requests in flight and stores their answers, an abandon drops them (counted, with their
/// spend estimated), and nothing is half-written. Refused before anything is sent when a named
/// key's variable is unset or a budget is given that unknown prices make impossible to keep.
pub fn rate_model(
    project: &mut Project,
    req: &RateRequest,
    clock: &dyn Fn() -> OffsetDateTime,
    progress: &mut dyn FnMut(&RateProgress),
    halt: &Halt,
) -> Result<RateReport> {
    project.require_coordinator("runs model raters")?;
    let model = find_model(project, &req.name)?;
    let config = &model.config;
    let template = PromptTemplate::builtin(&config.prompt_id)?;
    if template.version != config.prompt_version {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "{:?} was added with prompt {} {}, and this Verity ships {} {}: add the model again under a new name to use the new prompt",
                model.rater.name,
                config.prompt_id,
                config.prompt_version,
                template.id,
                template.version
            ),
        ));
    }
    // Tasks are assigned as their answers are stored, so a run refused at its first request
    // (a wrong key, an unreachable endpoint) leaves nothing behind.
    let (cases, _) = selected_cases(project, &req.cases)?;
    let plan = RunPlan {
        model: &model,
        template: &template,
        purpose: AttemptPurpose::Rate,
        concurrency: req.concurrency,
        budget_usd: req.budget_usd,
        timeout: req.timeout,
    };
    let previous = project.actor().cloned();
    project.act_as(Actor::Rater {
        name: model.rater.name.clone(),
    })?;
    let mut rating = Rating {
        model: &model,
        template: &template,
    };
    let result = run_model(project, &plan, &cases, &mut rating, clock, progress, halt);
    project.act_as(previous.unwrap_or(Actor::Coordinator))?;
    result
}

/// A rating: the questionnaire's prompt, its answer checked and submitted.
struct Rating<'a> {
    model: &'a ModelRater,
    template: &'a PromptTemplate,
}

impl Asking for Rating<'_> {
    type Valid = CheckedAnswer;

    fn done_before(&self, project: &Project, case: &CaseRow) -> Result<bool> {
        let events = project
            .store
            .answer_events(case.case_id, self.model.rater.id)?;
        Ok(events.iter().any(|e| e.kind != EventKind::Draft))
    }

    fn request(&self, project: &Project, instance_id: &str) -> Result<StructuredRequest> {
        let detail = show_case(project, instance_id)?;
        let evidence = crate::ops::evidence::cached_evidence_json(project, instance_id)?;
        Ok(build_prompt(
            self.template,
            project.questionnaire(),
            &detail,
            evidence.as_deref(),
        ))
    }

    fn check(
        &self,
        project: &Project,
        _instance_id: &str,
        reply: Fields,
    ) -> std::result::Result<CheckedAnswer, String> {
        check_answer_values(project, &reply, None, Stage::Submit).map_err(|e| match e {
            Error::Invalid { violations } => {
                let reason = violations
                    .iter()
                    .map(|v| format!("{}: {}", v.question, v.message))
                    .collect::<Vec<_>>()
                    .join("; ");
                format!("the questionnaire refused the reply ({reason})")
            }
            other => format!("the reply was refused: {other}"),
        })
    }

    fn accept(&mut self, project: &mut Project, reply: Reply<CheckedAnswer>) -> Result<()> {
        let provenance =
            serde_json::to_string(&reply.provenance).map_err(|source| Error::Encode {
                what: "a model answer's provenance",
                source,
            })?;
        submit_model_answer(
            project,
            &self.model.rater.name,
            &reply.asked.instance_id,
            &reply.valid,
            &provenance,
            reply.now,
        )?;
        Ok(())
    }
}
