//! The prompt a model rater is given for one task, from the versioned template in
//! `assets/prompts/` (embedded as the questionnaires are): what a human rater of the task
//! reads (issue, hints, requirements, interface, gold and test patches, tests, the
//! questionnaire's instructions and questions, and the evidence when the questionnaire shows
//! raters evidence), and nothing a rater cannot see.

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::cases::CaseDetail;
use super::{Error, ErrorCode, Result};
use verity_endpoint::{StructuredRequest, questionnaire_schema};
use verity_evidence::{Proposal, ProposedSnippet};
use verity_task::questionnaire::{Question, QuestionKind, Questionnaire};

/// The prompt templates shipped with Verity: (id, TOML source).
pub const BUILTIN_PROMPTS: &[(&str, &str)] = &[
    (
        "model-rater",
        include_str!("../../../assets/prompts/model-rater.toml"),
    ),
    (
        SWEEP_PROMPT,
        include_str!("../../../assets/prompts/sweep-proposer.toml"),
    ),
];

/// The template model raters are given unless another is named.
pub const DEFAULT_PROMPT: &str = "model-rater";

/// The template the sweep's model proposer is given (`verity sweep --model`).
pub const SWEEP_PROMPT: &str = "sweep-proposer";

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

/// Markdown sections of a task's materials; a section whose body is blank is left out.
struct Sections(String);

impl Sections {
    fn add(&mut self, title: &str, body: &str, fence: Option<&str>) {
        if body.trim().is_empty() {
            return;
        }
        let out = &mut self.0;
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
    }

    /// A task's issue, hints (when `with_hints`), requirements, interface, gold patch and test
    /// patch, those it has.
    fn task(case: &CaseDetail, with_hints: bool) -> Sections {
        let mut out = Sections(String::with_capacity(
            case.problem_statement.len() + case.gold_patch.len() + case.test_patch.len() + 1024,
        ));
        out.add("Issue", &case.problem_statement, None);
        if with_hints {
            out.add("Hints", &case.hints_text, None);
        }
        out.add(
            "Requirements",
            case.requirements.as_deref().unwrap_or(""),
            None,
        );
        out.add("Interface", case.interface.as_deref().unwrap_or(""), None);
        out.add("Gold patch", &case.gold_patch, Some("diff"));
        out.add("Test patch", &case.test_patch, Some("diff"));
        out
    }
}

fn materials(case: &CaseDetail, evidence: Option<&str>) -> String {
    let mut out = Sections::task(case, true);
    let list = |ids: &[String]| {
        ids.iter()
            .map(|t| format!("- {t}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    out.add(
        "Tests that must go from failing to passing (FAIL_TO_PASS)",
        &list(&case.fail_to_pass),
        None,
    );
    out.add(
        "Tests that must keep passing (PASS_TO_PASS)",
        &list(&case.pass_to_pass),
        None,
    );
    if let Some(report) = evidence {
        out.add("Evidence from the repository", report, Some("json"));
    }
    out.0
}

/// The sweep proposer's request for one task: the template filled with the task's issue (and
/// requirements and interface when it has them), gold patch and test patch, and the schema of
/// a proposal ([`proposal_schema`]).
pub fn build_sweep_prompt(template: &PromptTemplate, case: &CaseDetail) -> StructuredRequest {
    let out = Sections::task(case, false);
    let user = template
        .user
        .trim()
        .replace("{instance_id}", &case.instance_id)
        .replace("{repo}", &case.repo)
        .replace(
            "{base_commit}",
            case.base_commit.as_deref().unwrap_or("(not known)"),
        )
        .replace("{materials}", out.0.trim_end());
    StructuredRequest {
        system: template.system.trim().to_string(),
        user,
        schema_name: schema_name(&template.id),
        schema: proposal_schema(),
    }
}

/// The JSON schema of the sweep proposer's reply: the choice, the graded value, and snippets,
/// each with its path, the code verbatim and the way it goes.
pub fn proposal_schema() -> serde_json::Value {
    let text = serde_json::json!({"type": "string"});
    serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["choice", "graded_value", "snippets"],
        "properties": {
            "choice": text,
            "graded_value": text,
            "snippets": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["path", "snippet", "way"],
                    "properties": {"path": text, "snippet": text, "way": text},
                },
            },
        },
    })
}

/// A proposer's reply as a proposal for task `iid`, or why it is off the schema (a missing or
/// non-text field, an unknown key, a blank choice or snippet). The model is not asked whether
/// gold follows the codebase: that step stays judged.
pub fn proposal_from_reply(
    iid: &str,
    reply: &serde_json::Map<String, serde_json::Value>,
) -> std::result::Result<Proposal, String> {
    let text = |object: &serde_json::Map<String, serde_json::Value>, key: &str, at: &str| {
        object
            .get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| format!("{at}{key} is missing or not text"))
    };
    let unknown = |object: &serde_json::Map<String, serde_json::Value>,
                   known: &[&str],
                   at: &str| {
        match object.keys().find(|k| !known.contains(&k.as_str())) {
            Some(key) => Err(format!("{at}has an unknown key {key:?}")),
            None => Ok(()),
        }
    };
    unknown(reply, &["choice", "graded_value", "snippets"], "the reply ")?;
    let choice = text(reply, "choice", "")?;
    if choice.trim().is_empty() {
        return Err("choice is blank".into());
    }
    let graded_value = text(reply, "graded_value", "")?;
    let items = reply
        .get("snippets")
        .and_then(serde_json::Value::as_array)
        .ok_or("snippets is missing or not a list")?;
    let mut snippets = Vec::with_capacity(items.len());
    for (n, item) in items.iter().enumerate() {
        let at = format!("snippet {n}: ");
        let object = item
            .as_object()
            .ok_or_else(|| format!("{at}is not an object"))?;
        unknown(object, &["path", "snippet", "way"], &at)?;
        let snippet = ProposedSnippet {
            path: text(object, "path", &at)?,
            snippet: text(object, "snippet", &at)?,
            way: text(object, "way", &at)?,
        };
        if snippet.path.trim().is_empty() || snippet.snippet.trim().is_empty() {
            return Err(format!("{at}its path or code is blank"));
        }
        snippets.push(snippet);
    }
    Ok(Proposal {
        iid: iid.to_string(),
        choice,
        graded_value: (!graded_value.trim().is_empty()).then_some(graded_value),
        gold_follows: None,
        snippets,
    })
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
        QuestionKind::Scale | QuestionKind::Choice | QuestionKind::YesNo => {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use verity_evidence::parse_proposals;

    fn case() -> CaseDetail {
        CaseDetail {
            instance_id: "owner__repo-1".into(),
            repo: "owner/repo".into(),
            base_commit: Some("0123abcd".into()),
            revision: 1,
            title: "a task".into(),
            problem_statement: "The limit message is unclear.".into(),
            hints_text: "a hint raters see".into(),
            requirements: Some("Return an error naming the limit.".into()),
            gold_patch: "+    return errLimit".into(),
            test_patch: "+    assert err == \"limit reached\"".into(),
            fail_to_pass: vec!["TestLimit".into()],
            has_materials: true,
            ..CaseDetail::default()
        }
    }

    fn reply(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        match value {
            serde_json::Value::Object(map) => map,
            other => panic!("the test's reply is not an object: {other}"),
        }
    }

    #[test]
    fn the_sweep_prompt_gives_issue_requirements_and_patches_and_nothing_else() {
        let template = PromptTemplate::builtin(SWEEP_PROMPT).unwrap();
        assert_eq!(template.id, SWEEP_PROMPT);
        let request = build_sweep_prompt(&template, &case());
        for wanted in [
            "owner__repo-1",
            "base commit 0123abcd",
            "The limit message is unclear.",
            "## Requirements",
            "+    return errLimit",
            "limit reached",
        ] {
            assert!(request.user.contains(wanted), "{wanted:?} missing");
        }
        for unwanted in ["a hint raters see", "TestLimit", "## Interface", "{"] {
            assert!(!request.user.contains(unwanted), "{unwanted:?} present");
        }
        assert_eq!(request.schema_name, "sweep-proposer");
        assert_eq!(request.schema, proposal_schema());
    }

    #[test]
    fn a_reply_on_the_schema_is_the_proposal_a_proposals_file_gives() {
        let snippets = serde_json::json!([
            {"path": "lib/a.go", "snippet": "return errors.New(\"too many\")", "way": "errors.New"},
            {"path": "lib/b.go", "snippet": "return fmt.Errorf(\"over %d\", n)", "way": "fmt.Errorf"},
        ]);
        let from_model = proposal_from_reply(
            "owner__repo-1",
            &reply(serde_json::json!({
                "choice": "how the limit error is built",
                "graded_value": "limit reached",
                "snippets": snippets,
            })),
        )
        .unwrap();
        let file = serde_json::json!({
            "iid": "owner__repo-1",
            "choice": "how the limit error is built",
            "graded_value": "limit reached",
            "proposed": snippets,
        });
        let from_file = parse_proposals(&file.to_string(), "a test file").unwrap();
        assert_eq!(vec![from_model], from_file);
    }

    #[test]
    fn a_reply_off_the_schema_is_refused_with_its_reason() {
        let good = serde_json::json!({
            "choice": "c",
            "graded_value": "",
            "snippets": [{"path": "a.py", "snippet": "x = 1", "way": "w"}],
        });
        let proposal = proposal_from_reply("i", &reply(good.clone())).unwrap();
        assert_eq!(proposal.graded_value, None);
        assert_eq!(proposal.gold_follows, None);
        let cases: [(&str, serde_json::Value, &str); 5] = [
            ("choice", serde_json::json!(""), "choice is blank"),
            (
                "graded_value",
                serde_json::json!(3),
                "graded_value is missing",
            ),
            ("snippets", serde_json::json!("a.py"), "snippets is missing"),
            (
                "snippets",
                serde_json::json!([{"path": "a.py", "snippet": " ", "way": "w"}]),
                "snippet 0: its path or code is blank",
            ),
            (
                "snippets",
                serde_json::json!([{"path": "a.py", "snippet": "x", "way": "w", "verified": true}]),
                "snippet 0: has an unknown key \"verified\"",
            ),
        ];
        for (key, value, reason) in cases {
            let mut bad = reply(good.clone());
            bad.insert(key.into(), value);
            let err = proposal_from_reply("i", &bad).unwrap_err();
            assert!(err.starts_with(reason), "{err:?} is not {reason:?}");
        }
        let mut extra = reply(good);
        extra.insert("tier".into(), serde_json::json!("airtight"));
        assert!(proposal_from_reply("i", &extra).is_err());
    }
}
