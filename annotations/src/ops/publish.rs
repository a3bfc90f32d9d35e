//! Publishing a dataset folder (`verity export --format hub`) to the Hugging Face Hub as one
//! commit: the repository made if needed, large files through LFS, an interrupted upload resumed
//! (`hub/publish.rs`); or, as a dry run, what would be uploaded.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use ts_rs::TS;

use super::dataset::{DatasetSummary, export_dataset};
use super::export::ExportOptions;
use super::hub::check_dataset;
use super::{Error, ErrorCode, Overwrite, Project, Result};
use crate::export::card::REPO_PLACEHOLDER;
use crate::hub::{self, HubSettings, Publication, PublishProgress, PublishReport};
use crate::markdown::render_markdown;

/// The commit message when none is given.
pub const DEFAULT_MESSAGE: &str = "Publish the panel's dataset with Verity";

/// What a publication asks for.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
pub struct PublishRequest {
    /// `OWNER/NAME` of the dataset repository.
    pub repo: String,
    /// The dataset folder.
    pub folder: String,
    /// Make the repository private when it is created.
    #[serde(default)]
    pub private: bool,
    /// The branch; `main` when absent.
    #[serde(default)]
    pub revision: Option<String>,
    /// The commit message; [`DEFAULT_MESSAGE`] when absent.
    #[serde(default)]
    pub message: Option<String>,
    /// Only say what would be uploaded.
    #[serde(default)]
    pub dry_run: bool,
}

/// Refuses a branch name git would refuse.
fn check_branch(branch: &str) -> Result<()> {
    let bad = branch.is_empty()
        || branch.starts_with(['-', '/'])
        || branch.ends_with(['/', '.'])
        || branch.contains("..")
        || branch.contains("//")
        || branch.ends_with(".lock")
        || branch
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "~^:?*[\\".contains(c));
    if bad {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "--revision {branch:?} is not a branch name git takes (no spaces, '..', '~', '^', ':', '?', '*', '[' or '\\')"
            ),
        ));
    }
    Ok(())
}

/// Uploads the folder to the dataset repository as one commit, or with `dry_run` says what
/// would be uploaded. The card's loading example gets the repository's name. The token comes
/// from `settings` (HF_TOKEN or huggingface_hub's token file) and goes nowhere else.
pub fn publish_dataset(
    request: &PublishRequest,
    settings: &HubSettings,
    progress: &mut dyn FnMut(&PublishProgress),
    cancel: &AtomicBool,
) -> Result<PublishReport> {
    check_dataset(&request.repo)?;
    let revision = request.revision.clone().unwrap_or_else(|| "main".into());
    check_branch(&revision)?;
    let message = request
        .message
        .clone()
        .unwrap_or_else(|| DEFAULT_MESSAGE.into());
    if message.trim().is_empty() {
        return Err(Error::refused(
            ErrorCode::BadInput,
            "--message is empty: a commit needs a message",
        ));
    }
    let publication = Publication {
        repo: request.repo.clone(),
        folder: PathBuf::from(&request.folder),
        private: request.private,
        revision,
        message,
        dry_run: request.dry_run,
        placeholder: REPO_PLACEHOLDER.to_string(),
    };
    let report = hub::publish(settings, &publication, progress, cancel)?;
    tracing::info!(
        repo = %report.repo,
        commit = ?report.commit,
        files = report.files.len(),
        uploaded_bytes = report.uploaded_bytes,
        dry_run = report.dry_run,
        "published"
    );
    Ok(report)
}

/// A dataset folder made ready to publish, with its card as the Hub will show it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PublicationPreview {
    /// What was written, and where.
    pub dataset: DatasetSummary,
    /// The card's YAML metadata, as written.
    pub metadata: String,
    /// The card's body as sanitized HTML, with the repository's name in its loading example.
    pub html: String,
}

/// The card as published to `repo`: its loading example names the repository.
fn card_for(card: &str, repo: &str) -> String {
    card.replace(REPO_PLACEHOLDER, &serde_json::Value::from(repo).to_string())
}

/// Exports the project as a dataset folder for `repo` under `folders` (one folder per
/// repository, replaced on each preparation) and returns the card as the Hub will show it:
/// what the desktop app shows before the upload.
pub fn prepare_publication(
    project: &Project,
    options: &ExportOptions,
    repo: &str,
    folders: &Path,
    now: OffsetDateTime,
) -> Result<PublicationPreview> {
    check_dataset(repo)?;
    let folder = folders.join(repo.replace('/', "--"));
    let dataset = export_dataset(project, options, &folder, Overwrite::Replace, now)?;
    let card = card_for(&dataset.card, repo);
    let (metadata, body) = match card
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
    {
        Some((yaml, body)) => (yaml.to_string(), body.to_string()),
        None => (String::new(), card.clone()),
    };
    Ok(PublicationPreview {
        dataset,
        metadata,
        html: render_markdown(&body).html,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_names_are_checked_as_git_checks_them() {
        for good in ["main", "panel-2", "refs-v1.0", "a/b"] {
            assert!(check_branch(good).is_ok(), "{good}");
        }
        for bad in ["", "-x", "a..b", "a b", "x.lock", "a:b", "a/"] {
            assert!(check_branch(bad).is_err(), "{bad:?}");
        }
    }
}
