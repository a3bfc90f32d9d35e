//! What is estimated per task from a set of answers (the panel's ensemble, one model rater's
//! answer): the `[scores]` rule's underdetermined or determinate, the filter's kept, a
//! question's value at a threshold, or a numeric question's value.

use serde_json::Value;

use crate::ops::submitted::find_question;
use crate::ops::verdict::{Determinacy, conditions_met, judge};
use crate::ops::{Error, ErrorCode, Project, Result};

/// A label rule, as `--label` names it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LabelRule {
    /// 1 when the questionnaire's `[scores]` rule (over its filter) calls the task
    /// underdetermined, 0 when determinate or pending.
    Underdetermined,
    /// 1 when the rule calls it determinate, 0 otherwise.
    Determinate,
    /// 1 when the filter keeps the task, 0 when it drops it.
    Kept,
    /// 1 when the question's value is at least the threshold.
    AtLeast { question: String, value: f64 },
    /// The question's value, a number.
    Value { question: String },
}

impl LabelRule {
    /// Reads `underdetermined`, `determinate`, `kept`, `Q>=V` or `Q` (a question's id or
    /// number); refuses a rule the questionnaire cannot serve, saying why.
    pub(crate) fn parse(project: &Project, text: &str) -> Result<LabelRule> {
        let text = text.trim();
        let questionnaire = &project.questionnaire;
        let needs_filter = |label: &str| -> Result<()> {
            if questionnaire.filter.is_none() {
                return Err(Error::refused(
                    ErrorCode::QuestionnaireMismatch,
                    format!(
                        "questionnaire {} has no [filter] to say which tasks are {label}; estimate a question's value instead (--label Q>=V or Q)",
                        questionnaire.id
                    ),
                ));
            }
            Ok(())
        };
        match text {
            "underdetermined" => {
                needs_filter("underdetermined")?;
                return Ok(LabelRule::Underdetermined);
            }
            "determinate" => {
                needs_filter("determinate")?;
                return Ok(LabelRule::Determinate);
            }
            "kept" => {
                needs_filter("kept")?;
                return Ok(LabelRule::Kept);
            }
            _ => {}
        }
        let (question, threshold) = match text.split_once(">=") {
            Some((q, v)) => {
                let v = v.trim();
                let value = v
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        Error::refused(
                            ErrorCode::BadInput,
                            format!(
                                "--label {text}: {v:?} is not a number to compare the answers with"
                            ),
                        )
                    })?;
                (q.trim(), Some(value))
            }
            None => (text, None),
        };
        let q = find_question(questionnaire, question)?;
        let numeric = q.kind.is_rated()
            && !q.options.is_empty()
            && q.options.iter().all(|o| o.value.as_f64().is_some());
        if !numeric {
            return Err(Error::refused(
                ErrorCode::QuestionnaireMismatch,
                format!(
                    "--label {text}: question {} ({}) has no numeric scale to {}; the labels are underdetermined, determinate, kept, Q>=V and Q for a question Q with a numeric scale",
                    q.number,
                    q.id,
                    if threshold.is_some() {
                        "compare"
                    } else {
                        "average"
                    }
                ),
            ));
        }
        Ok(match threshold {
            Some(value) => LabelRule::AtLeast {
                question: q.id.clone(),
                value,
            },
            None => LabelRule::Value {
                question: q.id.clone(),
            },
        })
    }

    /// The rule as `--label` names it, the question by its id.
    pub(crate) fn name(&self) -> String {
        match self {
            LabelRule::Underdetermined => "underdetermined".into(),
            LabelRule::Determinate => "determinate".into(),
            LabelRule::Kept => "kept".into(),
            LabelRule::AtLeast { question, value } => format!("{question}>={value}"),
            LabelRule::Value { question } => question.clone(),
        }
    }

    /// Whether every label is 0 or 1 (a share), rather than a question's value (a mean).
    pub(crate) fn is_share(&self) -> bool {
        !matches!(self, LabelRule::Value { .. })
    }

    /// The questions it reads: a task whose every one is adjudicated is labelled by the
    /// adjudications alone.
    pub(crate) fn questions(&self, project: &Project) -> Vec<String> {
        match self {
            LabelRule::AtLeast { question, .. } | LabelRule::Value { question } => {
                vec![question.clone()]
            }
            _ => {
                let q = &project.questionnaire;
                let mut out: Vec<String> = q
                    .filter
                    .iter()
                    .flat_map(|f| f.any.iter().map(|c| c.question.clone()))
                    .chain(
                        q.scores
                            .iter()
                            .flat_map(|s| s.pending.iter().map(|c| c.question.clone())),
                    )
                    .collect();
                out.sort();
                out.dedup();
                out
            }
        }
    }

    /// The label of a task whose answers give `value_of`; `None` when a value it needs is
    /// missing.
    pub(crate) fn value(
        &self,
        project: &Project,
        value_of: &dyn Fn(&str) -> Option<Value>,
    ) -> Option<f64> {
        let spec = project.questionnaire.scores.as_ref();
        let one = |b: bool| if b { 1.0 } else { 0.0 };
        match self {
            LabelRule::Underdetermined => {
                judge(project, spec, value_of).map(|(d, _)| one(d == Determinacy::Underdetermined))
            }
            LabelRule::Determinate => {
                judge(project, spec, value_of).map(|(d, _)| one(d == Determinacy::Determinate))
            }
            LabelRule::Kept => {
                let filter = project.questionnaire.filter.as_ref()?;
                conditions_met(&filter.any, value_of).map(|met| one(met.is_empty()))
            }
            LabelRule::AtLeast { question, value } => value_of(question)
                .and_then(|v| v.as_f64())
                .map(|v| one(v >= *value)),
            LabelRule::Value { question } => value_of(question).and_then(|v| v.as_f64()),
        }
    }
}
