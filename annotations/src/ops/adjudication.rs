//! Disagreements, worst first, and the adjudications that settle them.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use ts_rs::TS;

use super::lookup::{check_name, find_case};
use super::submitted::{Panel, find_question, option_index, rated_questions, value_text};
use super::{Error, ErrorCode, Project, Result, stamp};
use verity_stats::ensemble::Procedure;
use verity_store::NewAdjudication;
use verity_task::questionnaire::MeasurementLevel;

/// A rater's answer to one question.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct RaterValue {
    /// The rater.
    pub rater: String,
    /// The answer.
    #[ts(type = "number | string")]
    pub value: Value,
}

/// An adjudicator's decision, as recorded.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct AdjudicationView {
    /// The task, the question, the final value, why and who decided.
    #[serde(flatten)]
    #[ts(flatten)]
    pub decision: AdjudicationRequest,
    /// When.
    pub at: String,
}

/// A case and question on which raters' current answers differ.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Disagreement {
    /// The task's id (`instance_id` in JSON, as everywhere).
    #[serde(rename = "instance_id")]
    pub case: String,
    /// The question's id.
    pub question: String,
    /// Its number.
    pub number: String,
    /// Its level of measurement.
    pub level: MeasurementLevel,
    /// For ordered questions, the distance between the lowest and highest answer in scale
    /// positions; for nominal questions 1.
    pub spread: usize,
    /// How many different answers were given.
    pub distinct: usize,
    /// Every rater's current answer, in the order they first submitted.
    pub answers: Vec<RaterValue>,
    /// The adjudication, when one was recorded.
    pub adjudication: Option<AdjudicationView>,
}

/// Every case and question where raters' current (latest submitted) answers differ, worst
/// first: the widest spread on the scale first, then the most distinct answers, then by case
/// and question order. A coordinator function: it shows every rater's answers.
pub fn list_disagreements(project: &Project) -> Result<Vec<Disagreement>> {
    project.require_coordinator("reads every rater's answers")?;
    let panel = Panel::load_rated(project)?;
    let questions = rated_questions(&project.questionnaire);
    let mut out: Vec<(usize, Disagreement)> = Vec::new();
    for case in &panel.latest {
        for (qi, question) in questions.iter().enumerate() {
            let mut answers = Vec::new();
            let mut positions = Vec::new();
            for (rater, event) in &case.answers {
                let Some(value) = event.answer.get(&question.id) else {
                    continue;
                };
                let Some(position) = option_index(question, value) else {
                    continue;
                };
                answers.push(RaterValue {
                    rater: rater.to_string(),
                    value: value.clone(),
                });
                positions.push(position);
            }
            let distinct = positions.iter().collect::<HashSet<_>>().len();
            if distinct < 2 {
                continue;
            }
            let spread = if question.level == MeasurementLevel::Nominal {
                1
            } else {
                positions.iter().max().copied().unwrap_or(0)
                    - positions.iter().min().copied().unwrap_or(0)
            };
            let adjudication =
                panel
                    .adjudication(case.case_id, &question.id)
                    .map(|a| AdjudicationView {
                        decision: AdjudicationRequest {
                            case: case.instance_id.clone(),
                            question: a.question.clone(),
                            value: a.value.clone(),
                            rationale: a.rationale.clone(),
                            by: a.decided_by.clone(),
                        },
                        at: a.at.clone(),
                    });
            out.push((
                qi,
                Disagreement {
                    case: case.instance_id.clone(),
                    question: question.id.clone(),
                    number: question.number.clone(),
                    level: question.level,
                    spread,
                    distinct,
                    answers,
                    adjudication,
                },
            ));
        }
    }
    out.sort_by(|(qa, a), (qb, b)| {
        b.spread
            .cmp(&a.spread)
            .then(b.distinct.cmp(&a.distinct))
            .then(a.case.cmp(&b.case))
            .then(qa.cmp(qb))
    });
    Ok(out.into_iter().map(|(_, d)| d).collect())
}

/// The disagreements on one question, named by its id or number, worst first.
pub fn disagreements_on(project: &Project, question: &str) -> Result<Vec<Disagreement>> {
    project.require_coordinator("reads every rater's answers")?;
    let question = find_question(&project.questionnaire, question)?;
    if !question.kind.is_rated() {
        return Err(Error::refused(
            ErrorCode::FreeTextQuestion,
            format!(
                "question {} ({}) takes free text; raters' texts always differ, and only scale, choice and yes/no questions have disagreements",
                question.number, question.id
            ),
        ));
    }
    let id = question.id.clone();
    Ok(list_disagreements(project)?
        .into_iter()
        .filter(|d| d.question == id)
        .collect())
}

/// An adjudicator's decision to record.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AdjudicationRequest {
    /// The task's id (`instance_id` in JSON, as everywhere).
    #[serde(rename = "instance_id")]
    pub case: String,
    /// The question's id.
    pub question: String,
    /// The final value: one of the question's options.
    #[ts(type = "number | string")]
    pub value: Value,
    /// Why.
    pub rationale: String,
    /// Who decides.
    pub by: String,
}

/// Records an adjudicator's decision on one question of one case; it overrides every ensemble
/// rule from then on. The value must be one of the question's options; the rationale and the
/// adjudicator's name must not be empty. Earlier decisions stay in the project as history.
pub fn adjudicate(
    project: &mut Project,
    req: &AdjudicationRequest,
    now: OffsetDateTime,
) -> Result<AdjudicationView> {
    project.require_coordinator("adjudicates")?;
    let stored = find_case(project, &req.case)?;
    let question = find_question(&project.questionnaire, &req.question)?;
    if !question.kind.is_rated() {
        return Err(Error::refused(
            ErrorCode::FreeTextQuestion,
            format!(
                "question {:?} takes free text; only scale, choice and yes/no questions are adjudicated",
                question.id
            ),
        ));
    }
    let Some(index) = option_index(question, &req.value) else {
        let options: Vec<String> = question
            .options
            .iter()
            .map(|o| value_text(&o.value))
            .collect();
        return Err(Error::refused(
            ErrorCode::NotAnOption,
            format!(
                "{} is not an option of question {:?} (options: {})",
                value_text(&req.value),
                question.id,
                options.join(", ")
            ),
        ));
    };
    let value = question.options[index].value.clone();
    if req.rationale.trim().is_empty() {
        return Err(Error::refused(
            ErrorCode::Empty,
            "an adjudication needs its rationale",
        ));
    }
    let by = req.by.trim();
    if by.is_empty() {
        return Err(Error::refused(
            ErrorCode::Empty,
            "an adjudication needs the adjudicator's name",
        ));
    }
    let adjudicators = project.store.list_adjudicators()?;
    if by != COORDINATOR && !adjudicators.iter().any(|a| a == by) {
        return Err(Error::refused(
            ErrorCode::NotAdjudicator,
            format!(
                "{by:?} may not adjudicate: only the {COORDINATOR} or a named adjudicator ({}) decides; name one with `verity adjudicators add NAME`",
                if adjudicators.is_empty() {
                    "none named yet".to_string()
                } else {
                    adjudicators.join(", ")
                }
            ),
        ));
    }
    let rated = project
        .store
        .latest_submissions()?
        .iter()
        .any(|e| e.case_id == stored.case_id);
    if !rated {
        return Err(Error::refused(
            ErrorCode::NothingToAdjudicate,
            format!(
                "nobody has submitted an answer on case {}; there is nothing to adjudicate yet",
                stored.case.instance_id
            ),
        ));
    }
    let at = stamp(now);
    project.store.add_adjudication(&NewAdjudication {
        case_id: stored.case_id,
        question: &question.id,
        value: &value,
        rationale: req.rationale.trim(),
        decided_by: by,
        rule: Procedure::Adjudicated.name(),
        at: &at,
    })?;
    Ok(AdjudicationView {
        decision: AdjudicationRequest {
            case: stored.case.instance_id,
            question: question.id.clone(),
            value,
            rationale: req.rationale.trim().to_string(),
            by: by.to_string(),
        },
        at,
    })
}

/// The name that stands for the project's coordinator, who may always adjudicate.
pub const COORDINATOR: &str = "coordinator";

/// Names an adjudicator: someone besides the coordinator who may record adjudications.
pub fn add_adjudicator(project: &mut Project, name: &str, now: OffsetDateTime) -> Result<()> {
    project.require_coordinator("names adjudicators")?;
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::refused(
            ErrorCode::Empty,
            "an adjudicator's name must not be empty",
        ));
    }
    check_name(name, "an adjudicator's name")?;
    if name == COORDINATOR {
        return Err(Error::refused(
            ErrorCode::NameTaken,
            format!("the {COORDINATOR} always adjudicates and needs no naming"),
        ));
    }
    project.store.add_adjudicator(name, &stamp(now))?;
    Ok(())
}

/// Removes a named adjudicator; their decisions stay.
pub fn remove_adjudicator(project: &mut Project, name: &str) -> Result<()> {
    project.require_coordinator("names adjudicators")?;
    if project.store.remove_adjudicator(name)? {
        Ok(())
    } else {
        Err(Error::NotFound(format!(
            "{name:?} is not a named adjudicator of this project"
        )))
    }
}

/// The named adjudicators (the coordinator adjudicates without being named).
pub fn list_adjudicators(project: &Project) -> Result<Vec<String>> {
    project.require_coordinator("reads who may adjudicate")?;
    Ok(project.store.list_adjudicators()?)
}
