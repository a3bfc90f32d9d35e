//! Questionnaires as data: loading TOML questionnaire files, checking them, and validating
//! answers against them.
//!
//! ```
//! use annotations::questionnaire::{Questionnaire, Stage};
//! let q = Questionnaire::builtin("swe-bench-verified").expect("shipped questionnaire");
//! let answer = serde_json::json!({"underspecified": 5});
//! let problems = q.validate(answer.as_object().expect("object"), Stage::Draft);
//! assert_eq!(problems[0].question, "underspecified");
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

/// The questionnaires shipped with Verity: (id, TOML source).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "swe-bench-verified",
        include_str!("../../assets/questionnaires/swe-bench-verified.toml"),
    ),
    (
        "determinacy",
        include_str!("../../assets/questionnaires/determinacy.toml"),
    ),
];

/// Why a questionnaire file was refused.
#[derive(Debug, thiserror::Error)]
pub enum QuestionnaireError {
    /// The file could not be read.
    #[error("cannot read questionnaire {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is not valid TOML or does not have the questionnaire's shape.
    #[error("questionnaire {path}, line {line}: {reason}")]
    Malformed {
        /// The file (or `builtin:<id>`).
        path: PathBuf,
        /// The 1-based line of the problem.
        line: usize,
        /// What is wrong, as a sentence fragment.
        reason: String,
    },
    /// No shipped questionnaire has this id.
    #[error(
        "there is no built-in questionnaire named {0:?} (known: swe-bench-verified, determinacy)"
    )]
    UnknownBuiltin(String),
}

/// How a question's answers are compared when measuring agreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum MeasurementLevel {
    /// Categories without order.
    Nominal,
    /// Ordered categories.
    Ordinal,
    /// Numbers with meaningful differences.
    Interval,
    /// Numbers with a meaningful zero.
    Ratio,
}

/// What sort of answer a question takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum QuestionKind {
    /// A numbered scale: one of the options' integer values.
    Scale,
    /// One of the options' values (strings or integers).
    Choice,
    /// Free text.
    Text,
    /// 0 for No, 1 for Yes.
    YesNo,
}

/// One allowed answer of a scale, choice or yes/no question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct AnswerOption {
    /// The stored value: an integer or a string.
    #[ts(type = "number | string")]
    pub value: Value,
    /// The text shown.
    pub label: String,
    /// A longer explanation, when the questionnaire gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    /// The example the instructions cite for this option (e.g. `pylint #5201`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub example: Option<String>,
}

/// A rule that makes a question required when another question has one of some values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct RequiredIf {
    /// The id of the question this depends on.
    pub question: String,
    /// The values of that question that make this one required.
    #[ts(type = "Array<number | string>")]
    pub values: Vec<Value>,
}

/// One question of a questionnaire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct Question {
    /// The stable id (the OpenAI column name where one exists).
    pub id: String,
    /// The number shown, e.g. `1.1`.
    pub number: String,
    /// What sort of answer it takes.
    pub kind: QuestionKind,
    /// The level of measurement used for agreement.
    pub level: MeasurementLevel,
    /// A heading shown above the question, when the instructions give one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub heading: Option<String>,
    /// Text shown before the question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub preamble: Option<String>,
    /// The question itself.
    pub prompt: String,
    /// Text shown after the question and before its options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub note: Option<String>,
    /// The hint shown in an empty text box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub placeholder: Option<String>,
    /// The allowed answers (empty for text questions).
    #[serde(default)]
    pub options: Vec<AnswerOption>,
    /// Whether a submission must answer it.
    #[serde(default)]
    pub required: bool,
    /// The fewest characters a text answer may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub min_chars: Option<u32>,
    /// Required when another question has one of some values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub required_if: Option<RequiredIf>,
}

/// A group of questions shown together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct Section {
    /// The section's id (`1`, `2`, ...).
    pub id: String,
    /// Its title.
    pub title: String,
    /// The instructions shown at its top.
    #[serde(default)]
    pub text: String,
    /// Which materials the section asks the rater to study (`issue`, `gold_patch`,
    /// `test_patch`, `evidence`).
    #[serde(default)]
    pub shows: Vec<String>,
    /// Its questions, in order.
    pub questions: Vec<Question>,
}

/// A lower bound that puts a case in the filtered-out set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct FilterCondition {
    /// The question whose label is tested.
    pub question: String,
    /// The label filters the case out when it is at least this number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub at_least: Option<f64>,
    /// The label filters the case out when it is one of these values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Array<number | string>")]
    pub one_of: Option<Vec<Value>>,
}

/// Which cases a questionnaire's labels exclude from a benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct FilterRule {
    /// The rule in words.
    pub description: String,
    /// A case is filtered out when any condition holds.
    pub any: Vec<FilterCondition>,
}

/// How raters' answers are combined by default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct EnsembleSpec {
    /// The rule used when none is named (`max-severity`, `majority`, `median`).
    pub default_rule: String,
    /// Questions the maximum decides under `max-severity`.
    #[serde(default)]
    pub max: Vec<String>,
    /// Questions a majority decides, or the median when all differ, under `max-severity`.
    #[serde(default)]
    pub majority_then_median: Vec<String>,
}

/// A questionnaire: what raters answer for each case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct Questionnaire {
    /// The stable id, e.g. `swe-bench-verified`.
    pub id: String,
    /// The version; answers record the id and version they were given under.
    pub version: String,
    /// The title.
    pub title: String,
    /// The text shown before the first section.
    #[serde(default)]
    pub intro: String,
    /// Footnotes the sections refer to.
    #[serde(default)]
    pub footnotes: Vec<String>,
    /// The sections, in order.
    pub sections: Vec<Section>,
    /// The default ensemble.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub ensemble: Option<EnsembleSpec>,
    /// The filter rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub filter: Option<FilterRule>,
    /// Which tasks a determinacy-aware score counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub scores: Option<ScoresSpec>,
}

/// Which tasks are determinate, for `verity scores`: the panel's labels first (a task the
/// filter drops is underdetermined, one it keeps determinate, one meeting a `pending`
/// condition waits for raters), then imported verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ScoresSpec {
    /// The rule in words.
    pub description: String,
    /// Panel labels that make no claim: the task is pending, not decided either way.
    #[serde(default)]
    pub pending: Vec<FilterCondition>,
    /// Imported reference label sets (OpenAI's ensembled file) decide under the filter too.
    #[serde(default)]
    pub reference: bool,
    /// The determinacy audit's verdicts, imported with its case folders, by tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub audit: Option<AuditTiers>,
}

/// The determinacy audit's verdicts (`entailed`, `determined`, `proven`, `rater-pending`) in
/// the three tiers a score tells apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct AuditTiers {
    /// Verdicts of determinate tasks.
    pub determinate: Vec<String>,
    /// Verdicts proving a task underdetermined.
    pub underdetermined: Vec<String>,
    /// Verdicts that wait for raters.
    pub pending: Vec<String>,
}

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
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum RuleKind {
    /// The question must be answered.
    Required,
    /// The text is shorter than the minimum.
    MinChars,
    /// The value is not one of the options.
    OffScale,
    /// The value has the wrong type for the question.
    WrongType,
    /// The answer names a question the questionnaire does not have.
    UnknownQuestion,
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct Violation {
    /// The question's id.
    pub question: String,
    /// The rule broken.
    pub rule: RuleKind,
    /// A sentence saying what is wrong, naming the question.
    pub message: String,
}

impl Questionnaire {
    /// Loads and checks a questionnaire file.
    pub fn load(path: &Path) -> Result<Questionnaire, QuestionnaireError> {
        let source = std::fs::read_to_string(path).map_err(|source| QuestionnaireError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Questionnaire::parse(&source, path)
    }

    /// A questionnaire shipped with Verity, by id.
    pub fn builtin(id: &str) -> Result<Questionnaire, QuestionnaireError> {
        let (_, source) = BUILTIN
            .iter()
            .find(|(name, _)| *name == id)
            .ok_or_else(|| QuestionnaireError::UnknownBuiltin(id.to_string()))?;
        Questionnaire::parse(source, Path::new(&format!("builtin:{id}")))
    }

    /// Parses and checks TOML source; `path` names it in errors.
    pub fn parse(source: &str, path: &Path) -> Result<Questionnaire, QuestionnaireError> {
        let questionnaire: Questionnaire = toml::from_str(source).map_err(|err| {
            let line = err
                .span()
                .map(|span| line_of(source, span.start))
                .unwrap_or(1);
            QuestionnaireError::Malformed {
                path: path.to_path_buf(),
                line,
                reason: err.message().trim_end_matches('\n').to_string(),
            }
        })?;
        questionnaire.check(source, path)?;
        Ok(questionnaire)
    }

    fn check(&self, source: &str, path: &Path) -> Result<(), QuestionnaireError> {
        // Semantic problems have no parser span: point at the last line that mentions the
        // offending name, which for a duplicate is its second use.
        let malformed = |needle: &str, reason: String| QuestionnaireError::Malformed {
            path: path.to_path_buf(),
            line: source
                .rfind(needle)
                .map(|at| line_of(source, at))
                .unwrap_or(1),
            reason,
        };
        if self.id.trim().is_empty() || self.version.trim().is_empty() {
            return Err(malformed(
                "id",
                "the id and version must not be empty".into(),
            ));
        }
        let mut ids = BTreeSet::new();
        for question in self.questions() {
            let needle = format!("id = \"{}\"", question.id);
            if !ids.insert(question.id.as_str()) {
                return Err(malformed(
                    &needle,
                    format!("question id {:?} is used twice", question.id),
                ));
            }
            match question.kind {
                QuestionKind::Text if !question.options.is_empty() => {
                    return Err(malformed(
                        &needle,
                        format!("text question {:?} must not have options", question.id),
                    ));
                }
                QuestionKind::Scale | QuestionKind::Choice | QuestionKind::YesNo
                    if question.options.is_empty() =>
                {
                    return Err(malformed(
                        &needle,
                        format!("question {:?} needs at least one option", question.id),
                    ));
                }
                _ => {}
            }
            let mut seen = BTreeSet::new();
            for option in &question.options {
                let ok = match question.kind {
                    QuestionKind::Scale | QuestionKind::YesNo => option.value.is_i64(),
                    _ => option.value.is_i64() || option.value.is_string(),
                };
                if !ok {
                    return Err(malformed(
                        &needle,
                        format!(
                            "option {} of question {:?} must be an integer{}",
                            option.value,
                            question.id,
                            if question.kind == QuestionKind::Choice {
                                " or a string"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
                if !seen.insert(option.value.to_string()) {
                    return Err(malformed(
                        &needle,
                        format!(
                            "option {} of question {:?} is listed twice",
                            option.value, question.id
                        ),
                    ));
                }
            }
        }
        for question in self.questions() {
            if let Some(rule) = &question.required_if
                && !ids.contains(rule.question.as_str())
            {
                return Err(malformed(
                    &format!("id = \"{}\"", question.id),
                    format!(
                        "question {:?} is required if {:?}, which is not a question of this questionnaire",
                        question.id, rule.question
                    ),
                ));
            }
        }
        let conditions = self
            .filter
            .iter()
            .flat_map(|f| f.any.iter())
            .chain(self.scores.iter().flat_map(|s| s.pending.iter()));
        let ensemble = self
            .ensemble
            .iter()
            .flat_map(|e| e.max.iter().chain(e.majority_then_median.iter()));
        for name in conditions.map(|c| &c.question).chain(ensemble) {
            if !ids.contains(name.as_str()) {
                return Err(malformed(
                    &format!("\"{name}\""),
                    format!(
                        "the ensemble, filter or scores section names {name:?}, which is not a question of this questionnaire"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Every question, in order.
    pub fn questions(&self) -> impl Iterator<Item = &Question> {
        self.sections.iter().flat_map(|s| s.questions.iter())
    }

    /// The question with this id.
    pub fn question(&self, id: &str) -> Option<&Question> {
        self.questions().find(|q| q.id == id)
    }

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
        Ok(values
            .iter()
            .map(|(id, value)| {
                let canonical = self
                    .question(id)
                    .and_then(|q| q.canonical(value))
                    .unwrap_or_else(|| value.clone());
                (id.clone(), canonical)
            })
            .collect())
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

fn line_of(source: &str, offset: usize) -> usize {
    source[..offset.min(source.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn verified() -> Questionnaire {
        Questionnaire::builtin("swe-bench-verified").unwrap()
    }

    fn full_answer() -> Map<String, Value> {
        let text = "x".repeat(120);
        json!({
            "underspecified": 1, "underspecified_notes": text,
            "false_negative": 0, "false_negative_notes": text,
            "difficulty": "15 min - 1 hour", "difficulty_notes": "small change",
            "other_major_issues": 0, "annotator_confidence": 4
        })
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn shipped_questionnaires_load() {
        let q = verified();
        let numbers: Vec<&str> = q.questions().map(|q| q.number.as_str()).collect();
        assert_eq!(
            numbers,
            [
                "1.1", "1.2", "2.1", "2.2", "3.1", "3.2", "3.3", "3.4", "3.5"
            ]
        );
        let ids: Vec<&str> = q.questions().map(|q| q.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "underspecified",
                "underspecified_notes",
                "false_negative",
                "false_negative_notes",
                "difficulty",
                "difficulty_notes",
                "other_major_issues",
                "other_notes",
                "annotator_confidence"
            ]
        );
        Questionnaire::builtin("determinacy").unwrap();
    }

    #[test]
    fn a_complete_answer_passes() {
        assert_eq!(verified().validate(&full_answer(), Stage::Submit), vec![]);
    }

    #[test]
    fn a_forty_character_justification_is_refused() {
        let mut answer = full_answer();
        answer.insert("underspecified_notes".into(), json!("y".repeat(40)));
        let problems = verified().validate(&answer, Stage::Submit);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].question, "underspecified_notes");
        assert_eq!(problems[0].rule, RuleKind::MinChars);
        assert!(
            problems[0].message.contains("at least 100"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn other_notes_are_required_when_other_issues_is_yes() {
        let mut answer = full_answer();
        answer.insert("other_major_issues".into(), json!(1));
        let problems = verified().validate(&answer, Stage::Submit);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].question, "other_notes");
        assert_eq!(problems[0].rule, RuleKind::Required);
    }

    #[test]
    fn values_off_the_scale_are_refused_even_in_drafts() {
        let answer =
            json!({"underspecified": 4, "annotator_confidence": 0, "difficulty": "a week"});
        let problems = verified().validate(answer.as_object().unwrap(), Stage::Draft);
        let rules: Vec<(&str, &RuleKind)> = problems
            .iter()
            .map(|p| (p.question.as_str(), &p.rule))
            .collect();
        assert_eq!(
            rules,
            [
                ("underspecified", &RuleKind::OffScale),
                ("difficulty", &RuleKind::OffScale),
                ("annotator_confidence", &RuleKind::OffScale)
            ]
        );
    }

    #[test]
    fn every_question_kind_refuses_every_wrong_json_type() {
        let verified = verified();
        let determinacy = Questionnaire::builtin("determinacy").unwrap();
        // (questionnaire, question, its kind) for every kind the shipped questionnaires use.
        let cases = [
            (&verified, "underspecified", QuestionKind::Scale),
            (&verified, "difficulty", QuestionKind::Choice),
            (&verified, "other_major_issues", QuestionKind::YesNo),
            (&verified, "underspecified_notes", QuestionKind::Text),
            (&determinacy, "verdict", QuestionKind::Choice),
            (&determinacy, "confidence", QuestionKind::Scale),
        ];
        for (q, id, kind) in cases {
            assert_eq!(q.question(id).unwrap().kind, kind);
            let wrong: Vec<Value> = match kind {
                QuestionKind::Text => vec![json!(2), json!(1.5), json!(true), json!([]), json!({})],
                _ => vec![
                    json!(true),
                    json!(false),
                    json!(1.5),
                    json!("two"),
                    json!("1.5"),
                    json!([1]),
                    json!({"value": 1}),
                    json!(-1),
                    json!(99),
                ],
            };
            for value in wrong {
                let answer = json!({ id: value.clone() });
                for stage in [Stage::Draft, Stage::Submit] {
                    let refused = q
                        .check_answer(answer.as_object().unwrap(), stage)
                        .unwrap_err();
                    assert!(
                        refused.iter().any(|v| v.question == id
                            && matches!(v.rule, RuleKind::OffScale | RuleKind::WrongType)),
                        "{id} accepted {value} at {stage:?}: {refused:?}"
                    );
                }
                assert_eq!(q.question(id).unwrap().decode(&value), Decoded::Wrong);
                let decoded = q.decode_answer(answer.as_object().unwrap());
                assert!(!decoded.contains_key(id), "{id}: {value} was decoded");
            }
        }
    }

    #[test]
    fn values_are_stored_in_their_questions_canonical_type() {
        let answer = json!({
            "underspecified": "2", "false_negative": 1.0, "other_major_issues": " 1 ",
            "annotator_confidence": 4, "difficulty": "<15 min fix", "underspecified_notes": "n"
        });
        let stored = verified()
            .check_answer(answer.as_object().unwrap(), Stage::Draft)
            .unwrap();
        assert_eq!(
            Value::Object(stored),
            json!({
                "underspecified": 2, "false_negative": 1, "other_major_issues": 1,
                "annotator_confidence": 4, "difficulty": "<15 min fix", "underspecified_notes": "n"
            })
        );
        // What an older Verity stored as text reads back as the option it names.
        let decoded = verified().decode_answer(answer.as_object().unwrap());
        assert_eq!(decoded["underspecified"], json!(2));
        assert_eq!(decoded["other_major_issues"], json!(1));
    }

    /// Answers that exercise every rule of a questionnaire at submission: nothing, a complete
    /// answer, and for each question each option, a value off the scale, the wrong JSON type,
    /// a text too short, and each value of a condition that makes it required while it is blank.
    fn rule_cases(q: &Questionnaire) -> Vec<Map<String, Value>> {
        let mut complete = Map::new();
        for question in q.questions() {
            let value = match question.kind {
                QuestionKind::Text => {
                    Value::from("w".repeat(question.min_chars.unwrap_or(1) as usize))
                }
                _ => question.options[0].value.clone(),
            };
            complete.insert(question.id.clone(), value);
        }
        let mut cases = vec![Map::new(), complete.clone()];
        for question in q.questions() {
            let mut variants: Vec<Value> =
                question.options.iter().map(|o| o.value.clone()).collect();
            variants.extend(match question.kind {
                QuestionKind::Text => vec![json!("short"), json!(7), json!(null), json!("   ")],
                QuestionKind::Choice => vec![json!("no such option"), json!(99), json!(true)],
                _ => vec![
                    json!(99),
                    json!(-1),
                    json!(1.5),
                    json!("two"),
                    json!(false),
                    json!([1]),
                ],
            });
            for value in variants {
                let mut answer = complete.clone();
                answer.insert(question.id.clone(), value);
                cases.push(answer);
            }
            if let Some(rule) = &question.required_if {
                for trigger in &rule.values {
                    let mut answer = complete.clone();
                    answer.insert(rule.question.clone(), trigger.clone());
                    answer.remove(&question.id);
                    cases.push(answer);
                }
            }
        }
        cases
    }

    /// Writes, for the desktop app's form rules (`ui/src/lib/form/rules.ts`), every shipped
    /// questionnaire with the violations Rust finds at submission in each of its rule cases;
    /// the UI's unit test checks that its rules find exactly these. Regenerated by every test
    /// run like the TypeScript bindings, and checked committed the same way.
    #[test]
    fn the_ui_rule_cases_are_written_from_the_rust_rules() {
        let mut out = Vec::new();
        for (id, _) in BUILTIN {
            let q = Questionnaire::builtin(id).unwrap();
            let cases: Vec<Value> = rule_cases(&q)
                .into_iter()
                .map(|values| {
                    let violations = q.validate(&values, Stage::Submit);
                    json!({ "values": values, "violations": violations })
                })
                .collect();
            out.push(json!({ "questionnaire": q, "cases": cases }));
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ui/src/lib/api/bindings/rule-cases.json");
        let text = serde_json::to_string_pretty(&out).unwrap() + "\n";
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text).unwrap();
        }
    }

    #[test]
    fn drafts_need_nothing_yet() {
        assert_eq!(verified().validate(&Map::new(), Stage::Draft), vec![]);
        assert_eq!(verified().validate(&Map::new(), Stage::Submit).len(), 8);
    }

    #[test]
    fn a_malformed_file_names_the_line() {
        let source = "id = \"x\"\nversion = \"1\"\ntitle = \"t\"\n[[sections]]\nid = 1\n";
        let err = Questionnaire::parse(source, Path::new("q.toml")).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("questionnaire q.toml, line 5:"),
            "{message}"
        );
    }

    #[test]
    fn a_duplicate_question_id_is_refused_with_its_line() {
        let source = r#"id = "x"
version = "1"
title = "t"
[[sections]]
id = "1"
title = "s"
[[sections.questions]]
id = "a"
number = "1"
kind = "text"
level = "nominal"
prompt = "p"
[[sections.questions]]
id = "a"
number = "2"
kind = "text"
level = "nominal"
prompt = "p"
"#;
        let err = Questionnaire::parse(source, Path::new("q.toml")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "questionnaire q.toml, line 14: question id \"a\" is used twice"
        );
    }
}
