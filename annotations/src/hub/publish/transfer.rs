//! The transfers of a publication: each request to the Hub with its retries and waits, the
//! LFS uploads streamed from disk, and the sentences a refusal is said in.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reqwest::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, HeaderMap};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::super::HubError;
use super::super::client::{retryable_connect, status_text, transfer_reason, unreachable_from};
use super::files::{LocalFile, local_error};
use super::{BATCH, FileAction, PublishStage, PublishedFile, Session, Try};
use verity_endpoint::retry_after;

impl Session<'_> {
    /// Sends the LFS files the batch API asks for; returns the bytes sent. A file the Hub
    /// already holds is marked so and not sent.
    pub(super) async fn upload_lfs(
        &mut self,
        files: &[LocalFile],
        lfs: &[usize],
        planned: &mut [PublishedFile],
    ) -> Result<u64, HubError> {
        let url = format!(
            "{}/datasets/{}.git/info/lfs/objects/batch",
            self.settings.endpoint, self.repo
        );
        let mut actions: Vec<(usize, Value)> = Vec::new();
        for chunk in lfs.chunks(BATCH) {
            let body = json!({
                "operation": "upload",
                "transfers": ["basic"],
                "hash_algo": "sha256",
                "objects": chunk.iter().map(|&i| json!({"oid": files[i].sha256, "size": files[i].size})).collect::<Vec<_>>(),
            });
            let (status, headers, answer) = self
                .send(Method::POST, &url, Some(lfs_body(&body)), true)
                .await?;
            if !status.is_success() {
                return Err(self.refusal(status, &headers, &answer, &url));
            }
            let answer: Value = serde_json::from_slice(&answer)
                .map_err(|e| self.odd(&format!("its LFS batch answer is not JSON ({e})")))?;
            let objects = answer
                .get("objects")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for &i in chunk {
                let object = objects
                    .iter()
                    .find(|o| {
                        o.get("oid").and_then(Value::as_str) == Some(files[i].sha256.as_str())
                    })
                    .ok_or_else(|| {
                        self.odd(&format!(
                            "its LFS batch answer leaves out {}",
                            files[i].path
                        ))
                    })?;
                if let Some(error) = object.get("error") {
                    return Err(HubError::Rejected(format!(
                        "the Hub's LFS storage refused {}: {}",
                        files[i].path,
                        error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("no reason given")
                    )));
                }
                match object.get("actions").and_then(|a| a.get("upload")) {
                    Some(_) => actions.push((i, object.clone())),
                    None => planned[i].action = FileAction::AlreadyUploaded,
                }
            }
        }
        self.state.stage = PublishStage::Uploading;
        self.state.bytes_total = actions.iter().map(|(i, _)| files[*i].size).sum();
        self.state.bytes_done = 0;
        let mut sent = 0;
        for (i, object) in actions {
            let file = &files[i];
            self.state.file = Some(file.path.clone());
            self.put(file, &object).await?;
            sent += file.size;
            if let Some(verify) = object.get("actions").and_then(|a| a.get("verify")) {
                self.verify(file, verify).await?;
            }
            tracing::info!(file = %file.path, bytes = file.size, "uploaded to LFS");
        }
        Ok(sent)
    }

    /// One file's PUT to the address the batch API gave, its bytes streamed from disk.
    pub(super) async fn put(&mut self, file: &LocalFile, object: &Value) -> Result<(), HubError> {
        let upload = object
            .get("actions")
            .and_then(|a| a.get("upload"))
            .cloned()
            .unwrap_or(Value::Null);
        let Some(href) = upload
            .get("href")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(self.odd(&format!(
                "its LFS batch answer gives {} no upload address",
                file.path
            )));
        };
        if upload
            .get("header")
            .and_then(|h| h.get("chunk_size"))
            .is_some()
        {
            return Err(self.odd(&format!(
                "it asks for {} in parts, which Verity does not send (it asked for single uploads)",
                file.path
            )));
        }
        let base = self.state.bytes_done;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let counter = Arc::new(AtomicU64::new(0));
            let mut request = self
                .client
                .put(&href)
                .header(CONTENT_LENGTH, file.size)
                .body(file_body(file, counter.clone())?);
            for (name, value) in upload
                .get("header")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if let Some(value) = value.as_str() {
                    request = request.header(name.as_str(), value);
                }
            }
            if same_host(&href, &self.settings.endpoint) {
                request = request.header(AUTHORIZATION, format!("Bearer {}", self.token));
            }
            let started = Instant::now();
            let outcome = {
                let send = request.send();
                let mut send = std::pin::pin!(send);
                let mut tick = tokio::time::interval(Duration::from_millis(100));
                loop {
                    tokio::select! {
                        out = &mut send => break out,
                        _ = tick.tick() => {
                            self.check_cancel()?;
                            self.state.bytes_done = base + counter.load(Ordering::Relaxed);
                            self.report();
                        }
                    }
                }
            };
            let why = match outcome {
                Ok(response) if response.status().is_success() => {
                    tracing::info!(file = %file.path, ms = started.elapsed().as_millis() as u64, "lfs upload");
                    self.state.bytes_done = base + file.size;
                    self.report();
                    return Ok(());
                }
                Ok(response) => {
                    let status = response.status();
                    if status != StatusCode::TOO_MANY_REQUESTS && !status.is_server_error() {
                        let headers = response.headers().clone();
                        let body = response.bytes().await.unwrap_or_default();
                        return Err(self.refusal(status, &headers, &body, &href));
                    }
                    Try::<()>::Again(
                        retry_after(response.headers(), OffsetDateTime::now_utc()),
                        status_text(status),
                    )
                }
                Err(e) => match unreachable_from(&e) {
                    HubError::Unreachable { reason, .. } if retryable_connect(&reason) => {
                        Try::Again(None, reason)
                    }
                    HubError::Unreachable { reason, .. } => return Err(self.unreachable(reason)),
                    other => return Err(other),
                },
            };
            if let Try::Again(asked, why) = why {
                self.pause(attempt, asked, &why, &href).await?;
            }
        }
    }

    pub(super) async fn verify(
        &mut self,
        file: &LocalFile,
        verify: &Value,
    ) -> Result<(), HubError> {
        let Some(href) = verify
            .get("href")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(self.odd(&format!(
                "its LFS batch answer gives {} no verify address",
                file.path
            )));
        };
        let body = json!({"oid": file.sha256, "size": file.size});
        let ours = same_host(&href, &self.settings.endpoint);
        let (status, headers, answer) = self
            .send(Method::POST, &href, Some(lfs_body(&body)), ours)
            .await?;
        if status.is_success() {
            return Ok(());
        }
        Err(self.refusal(status, &headers, &answer, &href))
    }

    /// Sends a request, again after a 429 or 5xx (with the server's Retry-After) or a broken
    /// connection; `ours` adds the token (only for the Hub's own addresses).
    pub(super) async fn send(
        &mut self,
        method: Method,
        url: &str,
        body: Option<Body>,
        ours: bool,
    ) -> Result<(StatusCode, HeaderMap, Vec<u8>), HubError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.check_cancel()?;
            let mut request = self.client.request(method.clone(), url);
            if ours {
                request = request.header(AUTHORIZATION, format!("Bearer {}", self.token));
            }
            if let Some(body) = &body {
                request = request
                    .header(CONTENT_TYPE, body.content_type)
                    .body(body.bytes.clone());
            }
            let started = Instant::now();
            let outcome = match request.send().await {
                Ok(response) => {
                    let status = response.status();
                    tracing::info!(%url, %status, ms = started.elapsed().as_millis() as u64, "hub request");
                    let headers = response.headers().clone();
                    if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
                        Try::Again(
                            retry_after(&headers, OffsetDateTime::now_utc()),
                            status_text(status),
                        )
                    } else {
                        match response.bytes().await {
                            Ok(bytes) => Try::Done((status, headers, bytes.to_vec())),
                            Err(e) => Try::Again(None, transfer_reason(&e)),
                        }
                    }
                }
                Err(e) => match unreachable_from(&e) {
                    HubError::Unreachable { reason, .. } if retryable_connect(&reason) => {
                        Try::Again(None, reason)
                    }
                    HubError::Unreachable { reason, .. } => return Err(self.unreachable(reason)),
                    other => return Err(other),
                },
            };
            match outcome {
                Try::Done(done) => return Ok(done),
                Try::Again(asked, why) => self.pause(attempt, asked, &why, url).await?,
            }
        }
    }

    /// Waits before another try, or gives up after the last.
    pub(super) async fn pause(
        &mut self,
        attempt: u32,
        asked: Option<Duration>,
        why: &str,
        url: &str,
    ) -> Result<(), HubError> {
        let settings = self.settings;
        if let Some(asked) = asked.filter(|a| *a > settings.max_wait) {
            return Err(HubError::GaveUp(format!(
                "{url} answered {why} and asks to wait {} s, longer than Verity waits ({} s): try again later",
                asked.as_secs(),
                settings.max_wait.as_secs()
            )));
        }
        if attempt >= settings.attempts {
            return Err(HubError::GaveUp(format!(
                "{url} answered {why} {attempt} times in a row: try again later; files already uploaded are not sent twice"
            )));
        }
        let wait = asked.unwrap_or_else(|| {
            settings
                .backoff
                .saturating_mul(1 << attempt.min(6))
                .min(Duration::from_secs(30))
        });
        let stage = self.state.stage;
        self.state.stage = PublishStage::Waiting;
        let until = Instant::now() + wait;
        loop {
            self.check_cancel()?;
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            self.state.waiting = Some(format!("{why}; trying again in {} s", left.as_secs() + 1));
            self.report();
            tokio::time::sleep(left.min(Duration::from_millis(200))).await;
        }
        self.state.waiting = None;
        self.state.stage = stage;
        Ok(())
    }

    pub(super) fn odd(&self, what: &str) -> HubError {
        HubError::NotAHub {
            endpoint: self.settings.endpoint.clone(),
            what: what.to_string(),
        }
    }

    pub(super) fn unreachable(&self, reason: String) -> HubError {
        HubError::Unreachable {
            endpoint: self.settings.endpoint.clone(),
            via: self
                .settings
                .proxy
                .as_ref()
                .map(|(var, proxy)| format!(" through the proxy {proxy} ({var})"))
                .unwrap_or_default(),
            reason,
        }
    }

    /// A status that no retry mends, in one sentence.
    pub(super) fn refusal(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        body: &[u8],
        url: &str,
    ) -> HubError {
        let source = self.settings.token_source.as_deref().unwrap_or("HF_TOKEN");
        let said = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_owned))
            .filter(|s| !s.is_empty())
            .map(|s| format!(" ({s})"))
            .unwrap_or_default();
        match status {
            StatusCode::UNAUTHORIZED => HubError::Refused(format!(
                "the Hub refused the token from {source}{said}: it is invalid or expired; publishing needs a token with the write role"
            )),
            StatusCode::FORBIDDEN => HubError::Refused(format!(
                "the token from {source} may not write to {}{said}: it needs the write role, and the account must own the repository or belong to its organisation",
                self.repo
            )),
            _ if error_code(headers) == "RepoNotFound" => HubError::Refused(format!(
                "the Hub has no dataset {} that the token from {source} can see, and did not make it{said}",
                self.repo
            )),
            _ => HubError::Rejected(format!("{url} answered {}{said}", status_text(status))),
        }
    }
}

/// A request's body and its type.
pub(super) struct Body {
    pub(super) bytes: Vec<u8>,
    pub(super) content_type: &'static str,
}

pub(super) fn json_body(value: &Value) -> Body {
    Body {
        bytes: value.to_string().into_bytes(),
        content_type: "application/json",
    }
}

pub(super) fn lfs_body(value: &Value) -> Body {
    Body {
        bytes: value.to_string().into_bytes(),
        content_type: "application/vnd.git-lfs+json",
    }
}

pub(super) fn error_code(headers: &HeaderMap) -> String {
    headers
        .get("x-error-code")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// A file's content as a request body read from disk a chunk at a time, counting the bytes
/// handed to the connection.
pub(super) fn file_body(
    file: &LocalFile,
    counter: Arc<AtomicU64>,
) -> Result<reqwest::Body, HubError> {
    if let Some(bytes) = &file.content {
        counter.store(bytes.len() as u64, Ordering::Relaxed);
        return Ok(reqwest::Body::from(bytes.clone()));
    }
    let reader = std::fs::File::open(&file.local).map_err(|e| local_error(&file.local, &e))?;
    let path = file.local.clone();
    let chunks = futures_util::stream::unfold(Some(reader), move |reader| {
        let counter = counter.clone();
        let path = path.clone();
        async move {
            use std::io::Read as _;
            let mut reader = reader?;
            let mut buffer = vec![0u8; 1 << 20];
            match reader.read(&mut buffer) {
                Ok(0) => None,
                Ok(n) => {
                    buffer.truncate(n);
                    counter.fetch_add(n as u64, Ordering::Relaxed);
                    Some((Ok::<Vec<u8>, std::io::Error>(buffer), Some(reader)))
                }
                Err(e) => Some((
                    Err(std::io::Error::other(format!("{}: {e}", path.display()))),
                    None,
                )),
            }
        }
    });
    Ok(reqwest::Body::wrap_stream(chunks))
}

/// Whether an address is on the Hub's own host (the token may go there).
pub(super) fn same_host(url: &str, endpoint: &str) -> bool {
    let host = |u: &str| {
        u.split_once("://")
            .map(|(scheme, rest)| {
                format!(
                    "{scheme}://{}",
                    rest.split('/')
                        .next()
                        .unwrap_or_default()
                        .to_ascii_lowercase()
                )
            })
            .unwrap_or_default()
    };
    host(url) == host(endpoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_goes_to_the_hubs_own_host_only() {
        assert!(same_host("http://127.0.0.1:9/lfs/x", "http://127.0.0.1:9"));
        assert!(!same_host(
            "https://cdn.example/x",
            "https://huggingface.co"
        ));
        assert!(!same_host("http://127.0.0.1:10/x", "http://127.0.0.1:9"));
    }
}
