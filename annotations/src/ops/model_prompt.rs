//! The prompt a model rater is given for one task, from the versioned template in
//! `assets/prompts/` (embedded as the questionnaires are): what a human rater of the task
//! reads (issue, hints, requirements, interface, gold and test patches, tests, the
//! questionnaire's instructions and questions, and the evidence when the questionnaire shows
//! raters evidence), and nothing a rater cannot see.

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::cases::CaseDetail;
use super::{Error, ErrorCode, Result};
use crate::endpoint::{StructuredRequest, questionnaire_schema};
use crate::questionnaire::{Question, QuestionKind, Questionnaire};

/// The prompt templates shipped with Verity: (id, TOML source).
pub const BUILTIN_PROMPTS: &[(&str, &str)] = &[(
    "model-rater",
    include_str!("../../../assets/prompts/model-rater.toml"),
)];

/// The template model raters are given unless another is named.
pub const DEFAULT_PROMPT: &str = "model-rater";

/// A prompt template: a system and a user message with placeholders.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptTemplate {
    /// Its id, recorded in each model rater's configuration.
    pub id: String,
    /// Its version, recorded beside the id.
    pub version: String,
    /// The system message: `{instructions}`.
    pub system: String,
    /// The user message: `{instance_id}`, `{repo}`, `{materials}`, `{questions}`.
    pub user: String,
}

impl PromptTemplate {
    /// The shipped template `id`.
    pub fn builtin(id: &str) -> Result<PromptTemplate> {
        let (_, source) = BUILTIN_PROMPTS
            .iter()
            .find(|(name, _)| *name == id)
            .ok_or_else(|| {
                Error::refused(
                    ErrorCode::NotFound,
                    format!(
                        "Verity ships no prompt template {id:?} (it ships {})",
                        BUILTIN_PROMPTS
                            .iter()
                            .map(|(n, _)| *n)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?;
        toml::from_str(source).map_err(|e| {
            Error::refused(
                ErrorCode::Internal,
                format!("the shipped prompt template {id} cannot be read: {e}"),
            )
        })
    }
}

/// The request for one task: the template filled, and the questionnaire's schema.
pub fn build_prompt(
    template: &PromptTemplate,
    questionnaire: &Questionnaire,
    case: &CaseDetail,
    evidence: Option<&str>,
) -> StructuredRequest {
    let fill = |text: &str| {
        text.replace("{repo}", &case.repo)
            .replace("{sample_id}", &case.instance_id)
            .replace("{url}", case.pr_url.as_deref().unwrap_or("(not known)"))
    };
    let mut instructions = fill(questionnaire.intro.trim());
    for section in &questionnaire.sections {
        instructions.push_str("\n\n# ");
        instructions.push_str(&section.title);
        if !section.text.trim().is_empty() {
            instructions.push_str("\n\n");
            instructions.push_str(&fill(section.text.trim()));
        }
    }
    for note in &questionnaire.footnotes {
        instructions.push_str("\n\n");
        instructions.push_str(note);
    }
    let shows_evidence = questionnaire
        .sections
        .iter()
        .any(|s| s.shows.iter().any(|m| m == "evidence"));
    let materials = materials(case, evidence.filter(|_| shows_evidence));
    let mut questions = String::new();
    for question in questionnaire.questions() {
        describe_question(&mut questions, question, &fill);
    }
    let system = template
        .system
        .trim()
        .replace("{instructions}", &instructions);
    let user = template
        .user
        .trim()
        .replace("{instance_id}", &case.instance_id)
        .replace("{repo}", &case.repo)
        .replace("{questions}", questions.trim_end())
        .replace("{materials}", materials.trim_end());
    StructuredRequest {
        system,
        user,
        schema_name: schema_name(&questionnaire.id),
        schema: questionnaire_schema(questionnaire),
    }
}

/// The SHA-256 of the messages sent, in hex: the provenance's `prompt_sha256`.
pub fn prompt_sha256(request: &StructuredRequest) -> String {
    let mut hasher = Sha256::new();
    hasher.update(request.system.as_bytes());
    hasher.update([0]);
    hasher.update(request.user.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A schema name as OpenAI takes it: letters, digits, `_` and `-`.
fn schema_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn materials(case: &CaseDetail, evidence: Option<&str>) -> String {
    let mut out = String::with_capacity(
        case.problem_statement.len() + case.gold_patch.len() + case.test_patch.len() + 1024,
    );
    let mut section = |title: &str, body: &str, fence: Option<&str>| {
        if body.trim().is_empty() {
            return;
        }
        out.push_str("## ");
        out.push_str(title);
        out.push_str("\n\n");
        match fence {
            Some(lang) => {
                out.push_str("```");
                out.push_str(lang);
                out.push('\n');
                out.push_str(body.trim_end());
                out.push_str("\n```\n\n");
            }
            None => {
                out.push_str(body.trim());
                out.push_str("\n\n");
            }
        }
    };
    section("Issue", &case.problem_statement, None);
    section("Hints", &case.hints_text, None);
    section(
        "Requirements",
        case.requirements.as_deref().unwrap_or(""),
        None,
    );
    section("Interface", case.interface.as_deref().unwrap_or(""), None);
    section("Gold patch", &case.gold_patch, Some("diff"));
    section("Test patch", &case.test_patch, Some("diff"));
    let list = |ids: &[String]| {
        ids.iter()
            .map(|t| format!("- {t}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    section(
        "Tests that must go from failing to passing (FAIL_TO_PASS)",
        &list(&case.fail_to_pass),
        None,
    );
    section(
        "Tests that must keep passing (PASS_TO_PASS)",
        &list(&case.pass_to_pass),
        None,
    );
    if let Some(report) = evidence {
        section("Evidence from the repository", report, Some("json"));
    }
    out
}

fn describe_question(out: &mut String, question: &Question, fill: &dyn Fn(&str) -> String) {
    out.push_str(&format!("### {} ({})\n", question.id, question.number));
    for text in [&question.heading, &question.preamble]
        .into_iter()
        .flatten()
    {
        out.push_str(&fill(text.trim()));
        out.push('\n');
    }
    out.push_str(&fill(question.prompt.trim()));
    out.push('\n');
    if let Some(note) = &question.note {
        out.push_str(&fill(note.trim()));
        out.push('\n');
    }
    match question.kind {
        QuestionKind::Text => {
            out.push_str("Answer with a plain-text note");
            if let Some(min) = question.min_chars {
                out.push_str(&format!(" of at least {min} characters"));
            }
            out.push_str(".\n");
        }
        QuestionKind::YesNo if question.options.is_empty() => {
            out.push_str("Answer 1 for yes or 0 for no.\n");
        }
        _ => {
            out.push_str("Answer with one of these values:\n");
            for option in &question.options {
                out.push_str(&format!("- {}: {}", option.value, option.label));
                if let Some(description) = &option.description {
                    out.push_str(&format!(" ({})", description.trim()));
                }
                out.push('\n');
            }
        }
    }
    match (&question.required, &question.required_if) {
        (true, _) => out.push_str("Required.\n"),
        (false, Some(rule)) => out.push_str(&format!(
            "Required when {} is one of {}; otherwise null.\n",
            rule.question,
            rule.values
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        (false, None) => out.push_str("Optional: null when there is nothing to say.\n"),
    }
    out.push('\n');
}
