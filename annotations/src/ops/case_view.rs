//! The task as the desktop app shows it: issue text rendered and sanitized
//! ([`crate::markdown`]), patches parsed for the diff view and tests linked to their hunks
//! ([`verity_task::patch`]).

use serde::Serialize;
use ts_rs::TS;

use super::{Project, Result, show_case};
use crate::markdown::{RenderedText, render_markdown};

/// A test id with where the test patch defines or changes it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct TestLink {
    /// The id as listed in FAIL_TO_PASS or PASS_TO_PASS.
    pub id: String,
    /// Its file and hunk in the parsed test patch, when the patch shows it.
    pub location: Option<verity_task::patch::TestLocation>,
}

/// A patch parsed for the diff view, or why it could not be parsed (then the raw text).
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PatchDisplay {
    /// The parsed patch (empty when parsing failed).
    pub view: verity_task::patch::PatchView,
    /// The parse error, a sentence naming the line.
    pub error: Option<String>,
    /// The patch text, shown as is when parsing failed.
    pub raw: Option<String>,
}

/// One case ready for the desktop app: issue text rendered and sanitized, patches parsed,
/// tests linked to their hunks. Holds no answers of any rater.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct CaseView {
    /// The task's id.
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The base commit, when known.
    pub base_commit: Option<String>,
    /// The current revision.
    #[ts(type = "number")]
    pub revision: i64,
    /// The first line.
    pub title: String,
    /// The PR's address, when it can be derived.
    pub pr_url: Option<String>,
    /// The issue text, rendered and as stored.
    pub problem: RenderedText,
    /// The hints, rendered and as stored, when there are any.
    pub hints: Option<RenderedText>,
    /// SWE-bench Pro's requirements, rendered and as stored.
    pub requirements: Option<RenderedText>,
    /// SWE-bench Pro's interface, rendered and as stored.
    pub interface: Option<RenderedText>,
    /// The gold patch.
    pub gold_patch: PatchDisplay,
    /// The test patch.
    pub test_patch: PatchDisplay,
    /// FAIL_TO_PASS, linked to the test patch.
    pub fail_to_pass: Vec<TestLink>,
    /// PASS_TO_PASS, linked to the test patch.
    pub pass_to_pass: Vec<TestLink>,
}

fn display_patch(text: &str) -> PatchDisplay {
    match verity_task::patch::parse_patch(text) {
        Ok(view) => PatchDisplay {
            view,
            error: None,
            raw: None,
        },
        Err(err) => PatchDisplay {
            view: verity_task::patch::PatchView {
                files: Vec::new(),
                added: 0,
                removed: 0,
            },
            error: Some(err.to_string()),
            raw: Some(text.to_string()),
        },
    }
}

/// One case prepared for reading in the app (see [`CaseView`]).
pub fn case_view(project: &Project, instance_id: &str) -> Result<CaseView> {
    project.require_actor()?;
    let detail = show_case(project, instance_id)?;
    let gold_patch = display_patch(&detail.gold_patch);
    let test_patch = display_patch(&detail.test_patch);
    let link = |ids: &[String]| -> Vec<TestLink> {
        ids.iter()
            .map(|id| TestLink {
                id: id.clone(),
                location: verity_task::patch::locate_test(&test_patch.view, id),
            })
            .collect()
    };
    let render = |text: &str| (!text.trim().is_empty()).then(|| render_markdown(text));
    Ok(CaseView {
        fail_to_pass: link(&detail.fail_to_pass),
        pass_to_pass: link(&detail.pass_to_pass),
        problem: render_markdown(&detail.problem_statement),
        hints: render(&detail.hints_text),
        requirements: detail.requirements.as_deref().and_then(render),
        interface: detail.interface.as_deref().and_then(render),
        instance_id: detail.instance_id,
        repo: detail.repo,
        base_commit: detail.base_commit,
        revision: detail.revision,
        title: detail.title,
        pr_url: detail.pr_url,
        gold_patch,
        test_patch,
    })
}
