//! The questionnaire's questions as the commands name them: `verity questions` lists each
//! question's number and id (either names it wherever a command takes a question), its kind,
//! level and scale, and every rule a submission must meet (found otherwise only by being
//! refused).

use serde::Serialize;
use serde_json::Value;

use super::Project;
use super::submitted::value_text;
use verity_stats::natural::thousands;
use verity_task::questionnaire::NOTE_MAX_CHARS;
use verity_task::questionnaire::{MeasurementLevel, Question, QuestionKind, Questionnaire};

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
    /// The fewest characters a submitted text answer holds; `null` when any will do.
    pub min_chars: Option<u32>,
    /// The most characters a text answer holds; `null` for a question that takes a value.
    pub max_chars: Option<usize>,
    /// The answer of another question that makes this one required, when one does.
    pub required_if: Option<RequiredWhen>,
    /// The rules a submission must meet on it beyond its scale, in words: whether it must be
    /// answered (and when), and a text's length.
    pub rules: Vec<String>,
    /// The question itself.
    pub prompt: String,
}

/// Another question's answers that make a question required.
#[derive(Debug, Clone, Serialize)]
pub struct RequiredWhen {
    /// That question's id.
    pub question: String,
    /// Its number.
    pub number: String,
    /// The answers of it that make this one required.
    pub values: Vec<Value>,
}

/// Every question of the project's questionnaire, in its order, with the rules a submission
/// must meet. Raters may read it: it is the form they fill in.
pub fn list_questions(project: &Project) -> Vec<QuestionSummary> {
    let questionnaire = &project.questionnaire;
    questionnaire
        .questions()
        .map(|q| {
            let required_if = q.required_if.as_ref().map(|rule| RequiredWhen {
                number: questionnaire
                    .question(&rule.question)
                    .map_or_else(String::new, |other| other.number.clone()),
                question: rule.question.clone(),
                values: rule.values.clone(),
            });
            let max_chars = (q.kind == QuestionKind::Text).then_some(NOTE_MAX_CHARS);
            QuestionSummary {
                number: q.number.clone(),
                id: q.id.clone(),
                kind: q.kind,
                level: q.level,
                scale: q.options.iter().map(|o| o.value.clone()).collect(),
                required: q.required,
                min_chars: q.min_chars,
                max_chars,
                rules: rules(questionnaire, q, required_if.as_ref(), max_chars),
                required_if,
                prompt: q.prompt.clone(),
            }
        })
        .collect()
}

/// The rules a submitted answer to `q` must meet, in words, beyond its scale (which
/// [`QuestionSummary::scale`] gives): whether it must be answered, and a text's length.
fn rules(
    questionnaire: &Questionnaire,
    q: &Question,
    required_if: Option<&RequiredWhen>,
    max_chars: Option<usize>,
) -> Vec<String> {
    let mut rules = vec![match (q.required, required_if) {
        (true, _) => "required".to_string(),
        (false, Some(when)) => format!(
            "required when {} ({}) is {}, else optional",
            when.number,
            when.question,
            either(
                &when
                    .values
                    .iter()
                    .map(|v| answer_text(questionnaire.question(&when.question), v))
                    .collect::<Vec<_>>()
            )
        ),
        (false, None) => "optional".to_string(),
    }];
    if let Some(min) = q.min_chars {
        rules.push(format!("at least {} characters", thousands(min as usize)));
    }
    if let Some(max) = max_chars {
        rules.push(format!("at most {} characters", thousands(max)));
    }
    rules
}

/// An answer as a rule names it: its value, and for a number its option's label (`1 (Yes)`).
fn answer_text(question: Option<&Question>, value: &Value) -> String {
    let text = value_text(value);
    match question
        .and_then(|q| q.options.iter().find(|o| &o.value == value))
        .map(|o| o.label.as_str())
    {
        Some(label) if value.is_number() && label != text => format!("{text} ({label})"),
        _ => text,
    }
}

/// `a`, `a or b`, `a, b or c`.
fn either(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}
