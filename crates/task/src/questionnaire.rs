//! Questionnaires as data: loading TOML questionnaire files, checking them, and validating
//! answers against them.
//!
//! ```
//! use verity_task::questionnaire::{Questionnaire, Stage};
//! let q = Questionnaire::builtin("swe-bench-verified").expect("shipped questionnaire");
//! let answer = serde_json::json!({"underspecified": 5});
//! let problems = q.validate(answer.as_object().expect("object"), Stage::Draft);
//! assert_eq!(problems[0].question, "underspecified");
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

mod answers;

pub use answers::{Decoded, NOTE_MAX_CHARS, RuleKind, Stage, Violation, check_reason, same_value};

/// The questionnaires shipped with Verity: (id, TOML source).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "swe-bench-verified",
        include_str!("../../../assets/questionnaires/swe-bench-verified.toml"),
    ),
    (
        "determinacy",
        include_str!("../../../assets/questionnaires/determinacy.toml"),
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
#[ts(export)]
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
#[ts(export)]
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

impl QuestionKind {
    /// Whether its answer is one of the question's options, so that raters' answers can be
    /// compared: agreement, disagreements, adjudication, ensembles and the case tables count
    /// it, a model answers it from an enum, and a server checks the value against the options.
    /// Free text is not rated. A new kind must decide here.
    pub fn is_rated(self) -> bool {
        match self {
            QuestionKind::Scale | QuestionKind::Choice | QuestionKind::YesNo => true,
            QuestionKind::Text => false,
        }
    }
}

/// One allowed answer of a scale, choice or yes/no question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
pub struct FilterRule {
    /// The rule in words.
    pub description: String,
    /// A case is filtered out when any condition holds.
    pub any: Vec<FilterCondition>,
}

/// How raters' answers are combined by default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
pub struct AuditTiers {
    /// Verdicts of determinate tasks.
    pub determinate: Vec<String>,
    /// Verdicts proving a task underdetermined.
    pub underdetermined: Vec<String>,
    /// Verdicts that wait for raters.
    pub pending: Vec<String>,
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
            match (question.kind.is_rated(), question.options.is_empty()) {
                (false, false) => {
                    return Err(malformed(
                        &needle,
                        format!("text question {:?} must not have options", question.id),
                    ));
                }
                (true, true) => {
                    return Err(malformed(
                        &needle,
                        format!("question {:?} needs at least one option", question.id),
                    ));
                }
                (true, false) | (false, true) => {}
            }
            let mut seen = BTreeSet::new();
            for option in &question.options {
                let ok = match question.kind {
                    QuestionKind::Scale | QuestionKind::YesNo => option.value.is_i64(),
                    QuestionKind::Choice | QuestionKind::Text => {
                        option.value.is_i64() || option.value.is_string()
                    }
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
}

fn line_of(source: &str, offset: usize) -> usize {
    source[..offset.min(source.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests;
