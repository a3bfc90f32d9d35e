//! Publishing a dataset folder to the Hugging Face Hub as one commit, through the Hub's HTTP API
//! as `huggingface_hub` uses it: the repository made if it is missing (and the branch), the card
//! validated, each file's upload mode asked (`preupload`), large and binary files sent to LFS
//! through the batch API (an object already there is not sent again, so an interrupted upload
//! resumes where it stopped), then the commit as NDJSON on the head it started from (a branch
//! that moved meanwhile is refused, not overwritten). The token goes only to the Hub: an LFS
//! upload address elsewhere (the Hub's storage) gets only the headers the Hub gave for it.

mod files;
mod transfer;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use base64::Engine as _;
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde_json::{Value, json};
use ts_rs::TS;

use super::{HubError, HubSettings};
use files::{CARD, LocalFile, folder_files, git_blob_id};
use transfer::{Body, error_code, json_body};

/// What to publish where.
#[derive(Debug, Clone)]
pub struct Publication {
    /// `OWNER/NAME` of the dataset repository.
    pub repo: String,
    /// The folder (`verity export --format hub` wrote it).
    pub folder: PathBuf,
    /// Make the repository private when it is created.
    pub private: bool,
    /// The branch to commit to (made from `main` when missing).
    pub revision: String,
    /// The commit's message.
    pub message: String,
    /// Only say what would be uploaded.
    pub dry_run: bool,
    /// The text that stands for the repository's name in the card, replaced by it.
    pub placeholder: String,
}

/// How a file reaches the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum UploadMode {
    /// In the commit itself.
    Regular,
    /// Through LFS, the commit naming it by its SHA-256.
    Lfs,
}

/// What happened (or, in a dry run, would happen) to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum FileAction {
    /// Sent: in the commit, or uploaded to LFS.
    Upload,
    /// Already in LFS (an earlier, interrupted upload sent it): only named in the commit.
    AlreadyUploaded,
    /// The same as in the repository: left out of the commit.
    Unchanged,
}

/// One file of the publication.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PublishedFile {
    /// Its path in the repository.
    pub path: String,
    /// Its size.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Its SHA-256.
    pub sha256: String,
    /// How it goes (for a repository yet to be made, by the Hub's default rules: Parquet and
    /// binary files, and any of 10 MB or more, through LFS).
    pub mode: UploadMode,
    /// What happened to it.
    pub action: FileAction,
}

/// What a publication did.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PublishReport {
    /// `OWNER/NAME`.
    pub repo: String,
    /// The branch.
    pub revision: String,
    /// The repository's page.
    pub url: String,
    /// True when the repository was made (or, in a dry run, would be).
    pub created: bool,
    /// True when the branch was made from `main` (or would be).
    pub branch_created: bool,
    /// Whether the repository is private.
    pub private: bool,
    /// The commit made; none in a dry run or when nothing changed.
    pub commit: Option<String>,
    /// The commit's page.
    pub commit_url: Option<String>,
    /// Each file, in path order.
    pub files: Vec<PublishedFile>,
    /// Bytes sent to LFS by this run.
    #[ts(type = "number")]
    pub uploaded_bytes: u64,
    /// True for a dry run.
    pub dry_run: bool,
    /// Something the user should know (a repository that exists public when --private was
    /// asked).
    pub note: Option<String>,
}

/// What a publication is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum PublishStage {
    /// Reading and hashing the folder's files.
    Hashing,
    /// Asking the Hub about the repository and each file.
    Checking,
    /// Sending files to LFS.
    Uploading,
    /// Making the commit.
    Committing,
    /// Waiting before trying again (429, 5xx, a broken connection).
    Waiting,
}

/// How far a publication has got, for a progress bar.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PublishProgress {
    /// What it is doing.
    pub stage: PublishStage,
    /// The file being hashed or sent.
    pub file: Option<String>,
    /// Bytes hashed or sent so far.
    #[ts(type = "number")]
    pub bytes_done: u64,
    /// Bytes to hash or send in all.
    #[ts(type = "number")]
    pub bytes_total: u64,
    /// While waiting: the seconds left and why.
    pub waiting: Option<String>,
}

/// Files per pre-upload and LFS batch request, as `huggingface_hub` sends them.
const BATCH: usize = 256;

/// A try's outcome in the retry loop.
enum Try<T> {
    Done(T),
    Again(Option<Duration>, String),
}

/// One publication's connection to the Hub.
struct Session<'a> {
    settings: &'a HubSettings,
    token: &'a str,
    repo: &'a str,
    client: reqwest::Client,
    progress: &'a mut dyn FnMut(&PublishProgress),
    cancel: &'a AtomicBool,
    state: PublishProgress,
}

/// Publishes `what.folder` to the dataset repository `what.repo`.
pub fn publish(
    settings: &HubSettings,
    what: &Publication,
    progress: &mut dyn FnMut(&PublishProgress),
    cancel: &AtomicBool,
) -> Result<PublishReport, HubError> {
    let Some(token) = settings.token.as_deref() else {
        return Err(HubError::Refused(
            "publishing needs a token that may write to the Hub: set HF_TOKEN or log in with `huggingface-cli login`".into(),
        ));
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| HubError::Local {
            path: what.folder.display().to_string(),
            reason: format!("cannot start the upload runtime: {e}"),
        })?;
    let client = reqwest::Client::builder()
        .user_agent(concat!("verity/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| HubError::NotAHub {
            endpoint: settings.endpoint.clone(),
            what: format!("cannot set up the client ({e})"),
        })?;
    let mut session = Session {
        settings,
        token,
        repo: &what.repo,
        client,
        progress,
        cancel,
        state: PublishProgress {
            stage: PublishStage::Hashing,
            file: None,
            bytes_done: 0,
            bytes_total: 0,
            waiting: None,
        },
    };
    runtime.block_on(session.run(what))
}

impl Session<'_> {
    fn report(&mut self) {
        (self.progress)(&self.state);
    }

    fn api(&self, tail: &str) -> String {
        format!(
            "{}/api/datasets/{}/{tail}",
            self.settings.endpoint, self.repo
        )
    }

    async fn run(&mut self, what: &Publication) -> Result<PublishReport, HubError> {
        let repo = what.repo.clone();
        let quoted = serde_json::Value::from(repo.as_str()).to_string();
        let placeholder = what.placeholder.clone();
        let files = {
            let state = &mut self.state;
            let progress = &mut self.progress;
            folder_files(
                &what.folder,
                |text| text.replace(&placeholder, &quoted),
                &mut |path, done, total| {
                    state.file = Some(path.to_string());
                    state.bytes_done = done;
                    state.bytes_total = total;
                    progress(state);
                },
            )?
        };
        self.check_cancel()?;
        self.state.stage = PublishStage::Checking;
        self.state.file = None;
        self.report();
        let url = format!("{}/datasets/{repo}", self.settings.endpoint);
        let revision = urlencode(&what.revision);
        let mut report = PublishReport {
            repo: repo.clone(),
            revision: what.revision.clone(),
            url,
            created: false,
            branch_created: false,
            private: what.private,
            commit: None,
            commit_url: None,
            files: Vec::new(),
            uploaded_bytes: 0,
            dry_run: what.dry_run,
            note: None,
        };
        let mut head = self.head(&revision).await?;
        if head.is_none() && !self.repo_exists().await? {
            report.created = true;
            if !what.dry_run {
                self.create_repo(what.private).await?;
            }
        }
        if let Some((_, private)) = &head {
            report.private = *private;
            if what.private && !private {
                report.note = Some(format!(
                    "{repo} already exists and is public: --private applies only to a repository Verity makes"
                ));
            }
        } else if !what.dry_run {
            head = self.head(&revision).await?;
            if head.is_none() {
                self.create_branch(&revision).await?;
                report.branch_created = true;
                head = self.head(&revision).await?;
            }
        } else if !report.created {
            report.branch_created = true;
        }
        let card = files.iter().find(|f| f.path == CARD);
        if let Some(card) = card
            && !what.dry_run
        {
            let text = String::from_utf8_lossy(&card.read()?).into_owned();
            self.validate_card(&text).await?;
        }
        let modes = match &head {
            Some(_) => self.preupload(&revision, &files).await?,
            None => files
                .iter()
                .map(|f| (default_mode(f), None))
                .collect::<Vec<_>>(),
        };
        let mut planned = Vec::with_capacity(files.len());
        for (file, (mode, remote)) in files.iter().zip(&modes) {
            let local = match mode {
                UploadMode::Lfs => file.sha256.clone(),
                UploadMode::Regular => git_blob_id(&file.read()?)?,
            };
            let action = if remote.as_deref() == Some(local.as_str()) {
                FileAction::Unchanged
            } else {
                FileAction::Upload
            };
            planned.push(PublishedFile {
                path: file.path.clone(),
                bytes: file.size,
                sha256: file.sha256.clone(),
                mode: *mode,
                action,
            });
        }
        let lfs: Vec<usize> = (0..files.len())
            .filter(|&i| {
                planned[i].mode == UploadMode::Lfs && planned[i].action == FileAction::Upload
            })
            .collect();
        if !what.dry_run && !lfs.is_empty() {
            let sent = self.upload_lfs(&files, &lfs, &mut planned).await?;
            report.uploaded_bytes = sent;
        }
        let changed = planned.iter().any(|f| f.action != FileAction::Unchanged);
        if !what.dry_run && changed {
            let parent = head.as_ref().map(|(commit, _)| commit.clone());
            let (commit, commit_url) = self
                .commit(
                    &revision,
                    &what.message,
                    parent.as_deref(),
                    &files,
                    &planned,
                )
                .await?;
            report.commit = Some(commit);
            report.commit_url = Some(commit_url);
        }
        report.files = planned;
        Ok(report)
    }

    fn check_cancel(&self) -> Result<(), HubError> {
        if self.cancel.load(Ordering::Relaxed) {
            Err(HubError::Stopped)
        } else {
            Ok(())
        }
    }

    /// The branch's head and whether the repository is private; `None` when the repository or
    /// the branch does not exist.
    async fn head(&mut self, revision: &str) -> Result<Option<(String, bool)>, HubError> {
        let url = self.api(&format!("revision/{revision}"));
        let (status, headers, body) = self.send(Method::GET, &url, None, true).await?;
        if status.is_success() {
            let info: Value = serde_json::from_slice(&body)
                .map_err(|e| self.odd(&format!("{url} answered with no JSON ({e})")))?;
            let sha = info
                .get("sha")
                .and_then(Value::as_str)
                .ok_or_else(|| self.odd(&format!("{url} gave no commit")))?;
            return Ok(Some((
                sha.to_string(),
                info.get("private")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            )));
        }
        match (status, error_code(&headers).as_str()) {
            (_, "RevisionNotFound" | "RepoNotFound") | (StatusCode::NOT_FOUND, _) => Ok(None),
            _ => Err(self.refusal(status, &headers, &body, &url)),
        }
    }

    /// Whether the repository exists (its `main`, any branch).
    async fn repo_exists(&mut self) -> Result<bool, HubError> {
        let url = self.api("revision/main");
        let (status, headers, body) = self.send(Method::GET, &url, None, true).await?;
        match (status, error_code(&headers).as_str()) {
            (s, _) if s.is_success() => Ok(true),
            (_, "RevisionNotFound") => Ok(true),
            (_, "RepoNotFound") | (StatusCode::NOT_FOUND, _) => Ok(false),
            _ => Err(self.refusal(status, &headers, &body, &url)),
        }
    }

    async fn create_repo(&mut self, private: bool) -> Result<(), HubError> {
        let (owner, name) = self.repo.split_once('/').unwrap_or(("", self.repo));
        let url = format!("{}/api/repos/create", self.settings.endpoint);
        let body =
            json!({"name": name, "organization": owner, "type": "dataset", "private": private});
        let (status, headers, answer) = self
            .send(Method::POST, &url, Some(json_body(&body)), true)
            .await?;
        // 409: it was made meanwhile, which is as good.
        if status.is_success() || status == StatusCode::CONFLICT {
            tracing::info!(repo = self.repo, private, "repository created");
            return Ok(());
        }
        Err(self.refusal(status, &headers, &answer, &url))
    }

    async fn create_branch(&mut self, revision: &str) -> Result<(), HubError> {
        let url = self.api(&format!("branch/{revision}"));
        let (status, headers, body) = self
            .send(Method::POST, &url, Some(json_body(&json!({}))), true)
            .await?;
        if status.is_success() || status == StatusCode::CONFLICT {
            return Ok(());
        }
        Err(self.refusal(status, &headers, &body, &url))
    }

    async fn validate_card(&mut self, text: &str) -> Result<(), HubError> {
        let url = format!("{}/api/validate-yaml", self.settings.endpoint);
        let body = json!({"content": text, "repoType": "dataset"});
        let (status, headers, answer) = self
            .send(Method::POST, &url, Some(json_body(&body)), true)
            .await?;
        if status.is_success() {
            return Ok(());
        }
        if status == StatusCode::BAD_REQUEST {
            let errors: Vec<String> = serde_json::from_slice::<Value>(&answer)
                .ok()
                .and_then(|v| v.get("errors").and_then(Value::as_array).cloned())
                .unwrap_or_default()
                .iter()
                .filter_map(|e| e.get("message").and_then(Value::as_str).map(str::to_owned))
                .collect();
            return Err(HubError::Rejected(format!(
                "the Hub refused the card's metadata in {CARD}: {}",
                if errors.is_empty() {
                    "no reason given".into()
                } else {
                    errors.join("; ")
                }
            )));
        }
        Err(self.refusal(status, &headers, &answer, &url))
    }

    /// Each file's upload mode and, when the repository has it, its id there.
    async fn preupload(
        &mut self,
        revision: &str,
        files: &[LocalFile],
    ) -> Result<Vec<(UploadMode, Option<String>)>, HubError> {
        let url = self.api(&format!("preupload/{revision}"));
        let mut out = Vec::with_capacity(files.len());
        for chunk in files.chunks(BATCH) {
            let body = json!({
                "files": chunk.iter().map(|f| json!({
                    "path": f.path,
                    "sample": base64::engine::general_purpose::STANDARD.encode(&f.sample),
                    "size": f.size,
                })).collect::<Vec<_>>()
            });
            let (status, headers, answer) = self
                .send(Method::POST, &url, Some(json_body(&body)), true)
                .await?;
            if !status.is_success() {
                return Err(self.refusal(status, &headers, &answer, &url));
            }
            let answer: Value = serde_json::from_slice(&answer)
                .map_err(|e| self.odd(&format!("its pre-upload answer is not JSON ({e})")))?;
            let listed = answer
                .get("files")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for file in chunk {
                let entry = listed
                    .iter()
                    .find(|e| e.get("path").and_then(Value::as_str) == Some(file.path.as_str()))
                    .ok_or_else(|| {
                        self.odd(&format!("its pre-upload answer leaves out {}", file.path))
                    })?;
                let mode = match entry.get("uploadMode").and_then(Value::as_str) {
                    Some("lfs") => UploadMode::Lfs,
                    Some("regular") => UploadMode::Regular,
                    other => {
                        return Err(self.odd(&format!(
                            "its pre-upload answer gives {} the upload mode {other:?}",
                            file.path
                        )));
                    }
                };
                // An empty file cannot go through LFS, as huggingface_hub also has it.
                let mode = if file.size == 0 {
                    UploadMode::Regular
                } else {
                    mode
                };
                let oid = entry.get("oid").and_then(Value::as_str).map(str::to_owned);
                out.push((mode, oid));
            }
        }
        Ok(out)
    }

    /// The commit: a header with the message and the head it starts from, each changed regular
    /// file's content, each LFS file's id.
    async fn commit(
        &mut self,
        revision: &str,
        message: &str,
        parent: Option<&str>,
        files: &[LocalFile],
        planned: &[PublishedFile],
    ) -> Result<(String, String), HubError> {
        self.state.stage = PublishStage::Committing;
        self.state.file = None;
        self.report();
        let mut header = json!({"summary": message, "description": ""});
        if let Some(parent) = parent {
            header["parentCommit"] = Value::from(parent);
        }
        let mut ndjson = json!({"key": "header", "value": header}).to_string();
        ndjson.push('\n');
        for (file, plan) in files.iter().zip(planned) {
            let line = match (plan.action, plan.mode) {
                (FileAction::Unchanged, _) => continue,
                (_, UploadMode::Regular) => json!({"key": "file", "value": {
                    "content": base64::engine::general_purpose::STANDARD.encode(file.read()?),
                    "path": file.path,
                    "encoding": "base64",
                }}),
                (_, UploadMode::Lfs) => json!({"key": "lfsFile", "value": {
                    "path": file.path, "algo": "sha256", "oid": file.sha256, "size": file.size,
                }}),
            };
            ndjson.push_str(&line.to_string());
            ndjson.push('\n');
        }
        let url = self.api(&format!("commit/{revision}"));
        let body = Body {
            bytes: ndjson.into_bytes(),
            content_type: "application/x-ndjson",
        };
        let (status, headers, answer) = self.send(Method::POST, &url, Some(body), true).await?;
        if status == StatusCode::CONFLICT {
            return Err(HubError::Rejected(format!(
                "the branch {} of {} moved while Verity was uploading (someone else committed to it): run publish again; files already uploaded are not sent twice",
                urldecode(revision),
                self.repo
            )));
        }
        if !status.is_success() {
            return Err(self.refusal(status, &headers, &answer, &url));
        }
        let answer: Value = serde_json::from_slice(&answer)
            .map_err(|e| self.odd(&format!("its commit answer is not JSON ({e})")))?;
        let commit = answer
            .get("commitOid")
            .and_then(Value::as_str)
            .ok_or_else(|| self.odd("its commit answer has no commitOid"))?
            .to_string();
        let commit_url = answer.get("commitUrl").and_then(Value::as_str).map_or_else(
            || {
                format!(
                    "{}/datasets/{}/commit/{commit}",
                    self.settings.endpoint, self.repo
                )
            },
            str::to_owned,
        );
        tracing::info!(repo = self.repo, %commit, "committed");
        Ok((commit, commit_url))
    }
}

/// How the Hub stores a file in a repository yet to be made: its default `.gitattributes`
/// sends Parquet and other binary formats to LFS, and so does any file of 10 MB or more.
fn default_mode(file: &LocalFile) -> UploadMode {
    let binary = file.sample.contains(&0) || std::str::from_utf8(&file.sample).is_err();
    if file.size >= 10 << 20 || binary || file.path.ends_with(".parquet") {
        UploadMode::Lfs
    } else {
        UploadMode::Regular
    }
}

/// A branch name as a path segment.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn urldecode(text: &str) -> String {
    text.replace("%2F", "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_names_are_path_segments() {
        assert_eq!(urlencode("main"), "main");
        assert_eq!(urlencode("refs/pr/1"), "refs%2Fpr%2F1");
    }
}
