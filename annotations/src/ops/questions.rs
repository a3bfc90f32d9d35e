//! The questionnaire's questions as the commands name them: `verity questions` lists each
//! question's number and id (either names it wherever a command takes a question), its kind,
//! level and scale.

use serde::Serialize;
use serde_json::Value;

use super::Project;
use verity_task::questionnaire::{MeasurementLevel, QuestionKind};

/// One question of the project's questionnaire.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionSummary {
    /// The number shown, `1.1`.
    pub number: String,
    /// The stable id, `underspecified`.
    pub id: String,
    /// Scale, choice, text or yes/no.
    pub kind: QuestionKind,
    /// The level of measurement agreement uses.
    pub level: MeasurementLevel,
    /// The allowed values in the declared order (empty for a text question).
    pub scale: Vec<Value>,
    /// Whether a submission must answer it.
    pub required: bool,
    /// The question itself.
    pub prompt: String,
}

/// Every question of the project's questionnaire, in its order. Raters may read it: it is the
/// form they fill in.
pub fn list_questions(project: &Project) -> Vec<QuestionSummary> {
    project
        .questionnaire
        .questions()
        .map(|q| QuestionSummary {
            number: q.number.clone(),
            id: q.id.clone(),
            kind: q.kind,
            level: q.level,
            scale: q.options.iter().map(|o| o.value.clone()).collect(),
            required: q.required,
            prompt: q.prompt.clone(),
        })
        .collect()
}
