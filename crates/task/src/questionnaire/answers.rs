//! Answers against a questionnaire: the rules an answer may break, checking and storing it in
//! its questions' canonical types, and decoding what a reader finds stored.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use super::{Question, QuestionKind, Questionnaire};

/// Whether answers are checked as a draft (only what is there must be valid) or a submission
/// (every rule applies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// A draft: values present must be on the scale; nothing is required yet.
    Draft,
    /// A submission: required answers, minimum lengths and conditional rules apply.
    Submit,
}

/// The rule an answer breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum RuleKind {
    /// The question must be answered.
    Required,
    /// The text is shorter than the minimum.
    MinChars,
    /// The text (a note, or a revision's reason) is longer than [`NOTE_MAX_CHARS`].
    MaxChars,
    /// The value is not one of the options.
    OffScale,
    /// The value has the wrong type for the question.
    WrongType,
    /// The answer names a question the questionnaire does not have.
    UnknownQuestion,
}

/// The most characters a note (a text answer) or a revision's reason may hold, at every stage
/// and on every path that stores an answer. OpenAI's longest published note has 1,819; a pasted
/// log or file belongs in the repository, not in every export and package of the panel. A
/// server's `save_my_answer` reads it from the rules the coordinator's Verity writes.
pub const NOTE_MAX_CHARS: usize = 20_000;

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Violation {
    /// The question's id.
    pub question: String,
    /// The rule broken.
    pub rule: RuleKind,
    /// A sentence saying what is wrong, naming the question.
    pub message: String,
}

impl Questionnaire {
    /// Checks answers and returns them in their questions' canonical types: a scale, choice or
    /// yes/no value becomes its option's own value (`"2"` and `2.0` are stored as `2`), a text
    /// stays text. Refused, with every broken rule, when a value has the wrong type or is off
    /// the scale, or (at submission) a rule is broken.
    pub fn check_answer(
        &self,
        values: &Map<String, Value>,
        stage: Stage,
    ) -> Result<Map<String, Value>, Vec<Violation>> {
        let violations = self.validate(values, stage);
        if !violations.is_empty() {
            return Err(violations);
        }
        Ok(self.canonical(values))
    }

    /// Values already checked, each in its question's canonical type.
    fn canonical(&self, values: &Map<String, Value>) -> Map<String, Value> {
        values
            .iter()
            .map(|(id, value)| {
                let canonical = self
                    .question(id)
                    .and_then(|q| q.canonical(value))
                    .unwrap_or_else(|| value.clone());
                (id.clone(), canonical)
            })
            .collect()
    }

    /// The one check of what a save stores, whichever path stores it (a rater's save on a file
    /// or a server, a package's event at merge, a model rater's reply): the values at `stage`
    /// ([`Self::check_answer`]) and a revision's reason ([`check_reason`]), every broken rule
    /// listed. The values come back in their canonical types.
    pub fn check_save(
        &self,
        values: &Map<String, Value>,
        reason: Option<&str>,
        stage: Stage,
    ) -> Result<Map<String, Value>, Vec<Violation>> {
        let mut violations = self.validate(values, stage);
        violations.extend(reason.and_then(check_reason));
        if !violations.is_empty() {
            return Err(violations);
        }
        Ok(self.canonical(values))
    }

    /// A stored answer as its readers use it: every value of a question in the question's
    /// canonical type, whatever type an older Verity stored it in. A value its question cannot
    /// take (never written by this Verity) is left out; values of questions this questionnaire
    /// does not have are kept as they are.
    pub fn decode_answer(&self, values: &Map<String, Value>) -> Map<String, Value> {
        let mut decoded = values.clone();
        self.decode_answer_in_place(&mut decoded);
        decoded
    }

    /// [`Self::decode_answer`] on an answer owned: its values replaced where they are.
    pub fn decode_answer_in_place(&self, values: &mut Map<String, Value>) {
        values.retain(|id, value| {
            let Some(question) = self.question(id) else {
                return true;
            };
            match question.decode(value) {
                Decoded::Wrong => {
                    tracing::warn!(question = %id, %value, "stored value its question cannot take; left out");
                    false
                }
                Decoded::Blank => true,
                Decoded::Text(_) | Decoded::Option(_) => match question.canonical(value) {
                    Some(canonical) => {
                        *value = canonical;
                        true
                    }
                    None => false,
                },
            }
        });
    }

    /// Checks answers against the questionnaire; an empty list means they are acceptable.
    pub fn validate(&self, values: &Map<String, Value>, stage: Stage) -> Vec<Violation> {
        let mut problems = Vec::new();
        for name in values.keys() {
            if self.question(name).is_none() {
                problems.push(Violation {
                    question: name.clone(),
                    rule: RuleKind::UnknownQuestion,
                    message: format!(
                        "{name:?} is not a question of {} {}.",
                        self.id, self.version
                    ),
                });
            }
        }
        for question in self.questions() {
            let value = values.get(&question.id).filter(|v| !is_blank(v));
            let required = question.required
                || question.required_if.as_ref().is_some_and(|rule| {
                    values
                        .get(&rule.question)
                        .is_some_and(|v| rule.values.iter().any(|w| same_value(v, w)))
                });
            let label = format!("Question {} ({})", question.number, question.id);
            let Some(value) = value else {
                if stage == Stage::Submit && required {
                    let why = match (&question.required_if, question.required) {
                        (Some(rule), false) => format!(
                            " because {} is {}",
                            rule.question,
                            values
                                .get(&rule.question)
                                .map(Value::to_string)
                                .unwrap_or_default()
                        ),
                        _ => String::new(),
                    };
                    problems.push(Violation {
                        question: question.id.clone(),
                        rule: RuleKind::Required,
                        message: format!("{label} must be answered{why}."),
                    });
                }
                continue;
            };
            match question.kind {
                QuestionKind::Text => {
                    let Decoded::Text(text) = question.decode(value) else {
                        problems.push(Violation {
                            question: question.id.clone(),
                            rule: RuleKind::WrongType,
                            message: format!("{label} takes text, not {value}."),
                        });
                        continue;
                    };
                    let stored = text.chars().count();
                    if stored > NOTE_MAX_CHARS {
                        problems.push(Violation {
                            question: question.id.clone(),
                            rule: RuleKind::MaxChars,
                            message: format!(
                                "{label} holds {stored} characters; a note may hold at most {NOTE_MAX_CHARS}."
                            ),
                        });
                        continue;
                    }
                    let count = text.trim().chars().count();
                    if let Some(min) = question.min_chars
                        && stage == Stage::Submit
                        && count < min as usize
                    {
                        problems.push(Violation {
                            question: question.id.clone(),
                            rule: RuleKind::MinChars,
                            message: format!(
                                "{label} needs at least {min} characters; it has {count}."
                            ),
                        });
                    }
                }
                _ => {
                    if question.decode(value) == Decoded::Wrong {
                        let allowed: Vec<String> = question
                            .options
                            .iter()
                            .map(|o| o.value.to_string())
                            .collect();
                        // A number or a text can name an option; any other JSON type never can.
                        let rule = if value.is_number() || value.is_string() {
                            RuleKind::OffScale
                        } else {
                            RuleKind::WrongType
                        };
                        problems.push(Violation {
                            question: question.id.clone(),
                            rule,
                            message: format!(
                                "{label} must be one of {}; {value} is not.",
                                allowed.join(", ")
                            ),
                        });
                    }
                }
            }
        }
        problems
    }
}

/// The rule a revision's reason breaks, if any: it may hold at most [`NOTE_MAX_CHARS`]
/// characters, as a note. (That a revision has a reason at all is the save's rule, not the
/// questionnaire's.)
pub fn check_reason(reason: &str) -> Option<Violation> {
    let stored = reason.chars().count();
    (stored > NOTE_MAX_CHARS).then(|| Violation {
        question: "reason".into(),
        rule: RuleKind::MaxChars,
        message: format!(
            "The reason holds {stored} characters; a reason may hold at most {NOTE_MAX_CHARS}."
        ),
    })
}

/// What a value means for its question. Every reader and writer of answers decodes values
/// through [`Question::decode`], so a value means the same everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// No answer: null, or a blank text.
    Blank,
    /// The option at this position of the question's options.
    Option(usize),
    /// A text answer.
    Text(&'a str),
    /// A value the question cannot take: the wrong JSON type, or not one of the options.
    Wrong,
}

impl Question {
    /// Decodes a value: a scale, choice or yes/no question takes one of its options, given as
    /// the option's value or as a number or numeric text equal to it (`2`, `2.0`, `"2"`); a
    /// text question takes a JSON string. Booleans, arrays, objects, fractions between options
    /// and words are [`Decoded::Wrong`].
    pub fn decode<'a>(&self, value: &'a Value) -> Decoded<'a> {
        if is_blank(value) {
            return Decoded::Blank;
        }
        match self.kind {
            QuestionKind::Text => value.as_str().map_or(Decoded::Wrong, Decoded::Text),
            QuestionKind::Scale | QuestionKind::Choice | QuestionKind::YesNo => self
                .options
                .iter()
                .position(|o| same_value(&o.value, value))
                .map_or(Decoded::Wrong, Decoded::Option),
        }
    }

    /// The position of a value among the options, when it picks one.
    pub fn option_index(&self, value: &Value) -> Option<usize> {
        match self.decode(value) {
            Decoded::Option(index) => Some(index),
            _ => None,
        }
    }

    /// The value in the question's canonical type: the option's own value, or the text. `None`
    /// for a blank or wrong value.
    pub fn canonical(&self, value: &Value) -> Option<Value> {
        match self.decode(value) {
            Decoded::Option(index) => self.options.get(index).map(|o| o.value.clone()),
            Decoded::Text(text) => Some(Value::from(text)),
            Decoded::Blank | Decoded::Wrong => None,
        }
    }
}

/// An empty string or null counts as no answer.
fn is_blank(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

/// Compares answer values so that `1`, `1.0` and `"1"` from a CSV or a form are the same
/// option as the integer `1`.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (as_number(a), as_number(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn as_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
}
