//! The panel's submitted answers, loaded once and decoded through the questionnaire, for the
//! coordinator's use cases (agreement, ensembles, disagreements, exports).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::{Project, Result};
use crate::agreement::Level;
use crate::questionnaire::{MeasurementLevel, Question, QuestionKind, Questionnaire};
use crate::store::AnswerEvent;

/// A position on a question's declared scale, shown as the option's value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Choice {
    pub(super) index: usize,
    pub(super) text: String,
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

pub(super) fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The index of an answer among the question's options, through the questionnaire's one
/// decoder (an imported `1.0`, a typed `1` and an older Verity's `"1"` are the same option).
pub(super) fn option_index(question: &Question, value: &Value) -> Option<usize> {
    question.option_index(value)
}

pub(super) fn rated_questions(questionnaire: &Questionnaire) -> Vec<&Question> {
    questionnaire
        .questions()
        .filter(|q| q.kind != QuestionKind::Text)
        .collect()
}

pub(super) fn level_of(level: MeasurementLevel) -> Level {
    match level {
        MeasurementLevel::Nominal => Level::Nominal,
        MeasurementLevel::Ordinal => Level::Ordinal,
        MeasurementLevel::Interval => Level::Interval,
        MeasurementLevel::Ratio => Level::Ratio,
    }
}

/// The answers of one case, rater by rater in the order they first submitted.
#[derive(Debug, Clone)]
pub(super) struct CaseAnswers {
    pub(super) case_id: i64,
    pub(super) instance_id: String,
    /// (rater, event) in first-submission order.
    pub(super) answers: Vec<(String, AnswerEvent)>,
}

/// Everything the coordinator's functions read, loaded once.
pub(super) struct Panel {
    pub(super) instance_ids: HashMap<i64, String>,
    pub(super) first: Vec<CaseAnswers>,
    pub(super) latest: Vec<CaseAnswers>,
    pub(super) adjudications: HashMap<(i64, String), crate::store::AdjudicationRow>,
}

fn group(
    events: Vec<AnswerEvent>,
    order: &HashMap<(i64, i64), String>,
    raters: &HashMap<i64, String>,
    instance_ids: &HashMap<i64, String>,
) -> Vec<CaseAnswers> {
    let mut by_case: BTreeMap<String, CaseAnswers> = BTreeMap::new();
    for event in events {
        let Some(instance_id) = instance_ids.get(&event.case_id) else {
            continue;
        };
        let entry = by_case
            .entry(instance_id.clone())
            .or_insert_with(|| CaseAnswers {
                case_id: event.case_id,
                instance_id: instance_id.clone(),
                answers: Vec::new(),
            });
        let rater = raters.get(&event.rater_id).cloned().unwrap_or_default();
        entry.answers.push((rater, event));
    }
    for case in by_case.values_mut() {
        case.answers.sort_by(|(_, a), (_, b)| {
            let first = |e: &AnswerEvent| {
                order
                    .get(&(e.case_id, e.rater_id))
                    .cloned()
                    .unwrap_or_else(|| e.uid.clone())
            };
            first(a).cmp(&first(b))
        });
    }
    by_case.into_values().collect()
}

impl Panel {
    /// Each case's latest submitted answers, by task id.
    pub(super) fn latest_by_case(&self) -> HashMap<&str, &CaseAnswers> {
        self.latest
            .iter()
            .map(|c| (c.instance_id.as_str(), c))
            .collect()
    }

    pub(super) fn load(project: &Project) -> Result<Panel> {
        let store = &project.store;
        let names: HashMap<i64, String> = store
            .list_raters()?
            .into_iter()
            .map(|r| (r.id, r.name))
            .collect();
        let instance_ids: HashMap<i64, String> = store
            .list_cases()?
            .into_iter()
            .map(|c| (c.case_id, c.instance_id))
            .collect();
        let decode = |mut events: Vec<AnswerEvent>| {
            for event in &mut events {
                event.answer = project.questionnaire.decode_answer(&event.answer);
            }
            events
        };
        let first = decode(store.first_submissions()?);
        let order: HashMap<(i64, i64), String> = first
            .iter()
            .map(|e| ((e.case_id, e.rater_id), e.uid.clone()))
            .collect();
        let latest = decode(store.latest_submissions()?);
        let adjudications = store
            .latest_adjudications()?
            .into_iter()
            .map(|a| ((a.case_id, a.question.clone()), a))
            .collect();
        Ok(Panel {
            first: group(first, &order, &names, &instance_ids),
            latest: group(latest, &order, &names, &instance_ids),
            instance_ids,
            adjudications,
        })
    }
}
