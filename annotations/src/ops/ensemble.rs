//! Ensembles: one label per case and question by a rule, and the questionnaire's filter.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::submitted::{Choice, Panel, RaterEvent, option_index, rated_questions, value_text};
use super::{Error, ErrorCode, Project, Result};
use verity_stats::ensemble::{self, Decision, EnsembleRule, Procedure, RaterAnswer};
use verity_task::questionnaire::{FilterCondition, Question, Questionnaire};

/// One case's label for one question, and who or what decided it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Label {
    /// The question's id.
    pub question: String,
    /// The label, or `null` when the rule gives none.
    #[ts(type = "number | string | null")]
    pub value: Option<Value>,
    /// How it was reached: `maximum`, `majority`, `median` or `adjudicated`.
    pub procedure: Option<String>,
    /// The raters whose answer was taken, or the adjudicator.
    pub decided_by: Vec<String>,
    /// The adjudicator's rationale.
    pub rationale: Option<String>,
    /// Why there is no label.
    pub reason: Option<String>,
}

/// One case's labels.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct CaseLabels {
    /// The task's id.
    pub instance_id: String,
    /// The raters whose latest submitted answers were combined, in the order they first
    /// submitted.
    pub raters: Vec<String>,
    /// One label per scale, choice and yes/no question.
    pub labels: Vec<Label>,
    /// Whether the questionnaire's filter rule drops the case; `null` when a label it needs is
    /// missing or the questionnaire has no filter.
    pub filter_out: Option<bool>,
}

/// Every case's labels under one rule, and what the filter keeps.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct EnsembleReport {
    /// The rule.
    pub rule: String,
    /// The filter rule in words, when the questionnaire has one.
    pub filter: Option<String>,
    /// Cases with at least one submitted answer or adjudication.
    pub cases: Vec<CaseLabels>,
    /// Cases the filter keeps.
    pub kept: usize,
    /// Cases the filter drops.
    pub filtered_out: usize,
    /// Cases the filter cannot decide yet (a label is missing).
    pub undecided: usize,
}

fn rule_of(project: &Project, rule: Option<&str>) -> Result<EnsembleRule> {
    let name = match rule {
        Some(r) => r.to_string(),
        None => project
            .questionnaire
            .ensemble
            .as_ref()
            .map_or_else(|| "majority".to_string(), |e| e.default_rule.clone()),
    };
    Ok(name.parse::<EnsembleRule>()?)
}

/// The procedure a rule applies to a question; `None` for `adjudicated`.
fn procedure_for(
    project: &Project,
    rule: EnsembleRule,
    question: &str,
) -> Result<Option<(Procedure, bool)>> {
    Ok(match rule {
        EnsembleRule::MaxSeverity => {
            let spec = project.questionnaire.ensemble.as_ref().ok_or_else(|| {
                Error::refused(ErrorCode::QuestionnaireMismatch, format!(
                    "questionnaire {} has no [ensemble] section to say which questions take the maximum; use --rule majority or median",
                    project.questionnaire.id
                ))
            })?;
            if spec.max.iter().any(|q| q == question) {
                Some((Procedure::Maximum, false))
            } else {
                // The release's rule for difficulty, and Verity's for questions the section
                // does not name: the majority, or the median when there is none.
                Some((Procedure::Majority, true))
            }
        }
        EnsembleRule::Majority => Some((Procedure::Majority, false)),
        EnsembleRule::Median => Some((Procedure::Median, false)),
        EnsembleRule::Adjudicated => None,
    })
}

fn label_from(question: &Question, decision: Decision<Choice>) -> Label {
    Label {
        question: question.id.clone(),
        value: question
            .options
            .get(decision.value.index)
            .map(|o| o.value.clone()),
        procedure: Some(decision.procedure.name().to_string()),
        decided_by: decision.decided_by,
        rationale: decision.rationale,
        reason: None,
    }
}

fn no_label(question: &Question, reason: String) -> Label {
    Label {
        question: question.id.clone(),
        value: None,
        procedure: None,
        decided_by: Vec::new(),
        rationale: None,
        reason: Some(reason),
    }
}

/// The label a filter condition tests, when the case has one.
fn condition_label<'a>(condition: &FilterCondition, labels: &'a [Label]) -> Option<&'a Value> {
    labels
        .iter()
        .find(|l| l.question == condition.question)
        .and_then(|l| l.value.as_ref())
}

/// Whether a label meets a filter condition.
fn condition_holds(condition: &FilterCondition, value: &Value) -> bool {
    let at_least = condition
        .at_least
        .is_some_and(|min| value.as_f64().is_some_and(|v| v >= min));
    let one_of = condition
        .one_of
        .as_ref()
        .is_some_and(|list| list.contains(value));
    at_least || one_of
}

fn filter_verdict(questionnaire: &Questionnaire, labels: &[Label]) -> Option<bool> {
    let filter = questionnaire.filter.as_ref()?;
    let mut unknown = false;
    for condition in &filter.any {
        let Some(value) = condition_label(condition, labels) else {
            unknown = true;
            continue;
        };
        if condition_holds(condition, value) {
            return Some(true);
        }
    }
    if unknown { None } else { Some(false) }
}

/// The filter's conditions a case's labels meet, each in words (`underspecified = 2, at least
/// 2`): why the filter drops it.
pub(super) fn filter_reasons(questionnaire: &Questionnaire, labels: &[Label]) -> Vec<String> {
    let Some(filter) = questionnaire.filter.as_ref() else {
        return Vec::new();
    };
    filter
        .any
        .iter()
        .filter_map(|condition| {
            let value = condition_label(condition, labels)?;
            if !condition_holds(condition, value) {
                return None;
            }
            let test = match (&condition.at_least, &condition.one_of) {
                (Some(min), _) if value.as_f64().is_some_and(|v| v >= *min) => {
                    format!("at least {min}")
                }
                (_, Some(list)) => format!(
                    "one of {}",
                    list.iter().map(value_text).collect::<Vec<_>>().join(", ")
                ),
                _ => String::new(),
            };
            Some(format!(
                "{} = {}, {test}",
                condition.question,
                value_text(value)
            ))
        })
        .collect()
}

pub(super) fn build_ensemble(
    project: &Project,
    panel: &Panel,
    rule: Option<&str>,
) -> Result<EnsembleReport> {
    let rule = rule_of(project, rule)?;
    let questions = rated_questions(&project.questionnaire);
    let mut procedures = HashMap::new();
    for q in &questions {
        procedures.insert(q.id.as_str(), procedure_for(project, rule, &q.id)?);
    }
    let mut by_case: BTreeMap<&str, (i64, &[RaterEvent])> = panel
        .latest
        .iter()
        .map(|c| (c.instance_id.as_str(), (c.case_id, c.answers.as_slice())))
        .collect();
    for case_id in panel.adjudications.keys() {
        if let Some(id) = panel.instance_ids.get(case_id) {
            by_case.entry(id.as_str()).or_insert((*case_id, &[]));
        }
    }
    let mut cases = Vec::new();
    let (mut kept, mut dropped, mut undecided) = (0, 0, 0);
    for (instance_id, (case_id, answers)) in by_case {
        let mut labels = Vec::new();
        for question in &questions {
            if let Some(adj) = panel.adjudication(case_id, &question.id) {
                labels.push(Label {
                    question: question.id.clone(),
                    value: Some(adj.value.clone()),
                    procedure: Some(Procedure::Adjudicated.name().into()),
                    decided_by: vec![adj.decided_by.clone()],
                    rationale: Some(adj.rationale.clone()),
                    reason: None,
                });
                continue;
            }
            let given: Vec<RaterAnswer<Choice>> = answers
                .iter()
                .filter_map(|(rater, event)| {
                    let value = event.answer.get(&question.id)?;
                    let index = option_index(question, value)?;
                    Some(RaterAnswer::new(
                        rater.to_string(),
                        Choice {
                            index,
                            text: value_text(&question.options[index].value),
                        },
                    ))
                })
                .collect();
            let label = match procedures.get(question.id.as_str()).copied().flatten() {
                None => no_label(
                    question,
                    format!(
                        "question '{}' has not been adjudicated yet, and the rule is 'adjudicated'",
                        question.id
                    ),
                ),
                Some((procedure, median_on_tie)) => {
                    match ensemble::decide(procedure, &question.id, &given) {
                        Ok(d) => label_from(question, d),
                        Err(ensemble::EnsembleError::NoMajority { .. }) if median_on_tie => {
                            match ensemble::decide(Procedure::Median, &question.id, &given) {
                                Ok(d) => label_from(question, d),
                                Err(e) => no_label(question, e.to_string()),
                            }
                        }
                        Err(e) => no_label(question, e.to_string()),
                    }
                }
            };
            labels.push(label);
        }
        let filter_out = filter_verdict(&project.questionnaire, &labels);
        match filter_out {
            Some(true) => dropped += 1,
            Some(false) => kept += 1,
            None => undecided += 1,
        }
        cases.push(CaseLabels {
            instance_id: instance_id.to_string(),
            raters: answers.iter().map(|(r, _)| r.to_string()).collect(),
            labels,
            filter_out,
        });
    }
    Ok(EnsembleReport {
        rule: rule.name().into(),
        filter: project
            .questionnaire
            .filter
            .as_ref()
            .map(|f| f.description.clone()),
        cases,
        kept,
        filtered_out: dropped,
        undecided,
    })
}

/// Combines every case's latest submitted answers into one label per scale, choice and yes/no
/// question by `rule` (`max-severity` as the questionnaire's `[ensemble]` section defines it,
/// `majority`, `median` or `adjudicated`; the questionnaire's default when `None`), an
/// adjudication overriding any rule; then applies the questionnaire's filter and counts what
/// it keeps. Answers are ordered by when each rater first submitted, which decides ties for
/// the maximum. A coordinator function.
pub fn ensemble_labels(project: &Project, rule: Option<&str>) -> Result<EnsembleReport> {
    project.require_coordinator("reads every rater's answers")?;
    let panel = Panel::load_rated(project)?;
    build_ensemble(project, &panel, rule)
}
