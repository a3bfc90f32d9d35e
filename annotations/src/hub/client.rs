//! The Hub client: resolving a split's files at a revision and downloading them with `hf-hub`,
//! resumed, retried on 429 and 5xx with the server's Retry-After, with progress and cancel.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hf_hub::api::tokio::{Api, ApiBuilder, ApiError, Progress};
use hf_hub::{Cache, Repo, RepoType};
use reqwest::StatusCode;
use reqwest::header::RANGE;
use time::OffsetDateTime;

use super::cache::{
    blob_etag, cached_file, is_commit, is_sha256, sha256_of, snapshot_dir, split_files,
};
use super::{FetchedSplit, HubError, HubFile, HubProgress, HubSettings, HubStage, SplitRequest};
use verity_endpoint::retry_after;
#[derive(Clone, Default)]
struct Received {
    size: Arc<AtomicU64>,
    bytes: Arc<AtomicU64>,
}

impl Progress for Received {
    async fn init(&mut self, size: usize, _filename: &str) {
        self.size.store(size as u64, Ordering::Relaxed);
        self.bytes.store(0, Ordering::Relaxed);
    }
    async fn update(&mut self, size: usize) {
        self.bytes.fetch_add(size as u64, Ordering::Relaxed);
    }
    async fn finish(&mut self) {}
}

/// What a try of a request ended in, for the retry loop.
enum Try<T> {
    Done(T),
    /// Try again after the wait the server asked for, or the backoff's; the reason is kept for
    /// the message if no try succeeds.
    Again(Option<Duration>, String),
}

/// What a request's answer is judged against.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    settings: &'a HubSettings,
    request: &'a SplitRequest,
}

/// One fetch: the settings, the api and the caller's progress and cancel.
pub(super) struct Fetch<'a> {
    ctx: Ctx<'a>,
    progress: &'a mut dyn FnMut(&HubProgress),
    cancel: &'a AtomicBool,
    api: Api,
    state: HubProgress,
}

impl<'a> Fetch<'a> {
    pub(super) fn new(
        settings: &'a HubSettings,
        request: &'a SplitRequest,
        progress: &'a mut dyn FnMut(&HubProgress),
        cancel: &'a AtomicBool,
    ) -> Result<Fetch<'a>, HubError> {
        let api = ApiBuilder::from_cache(Cache::new(settings.cache.clone()))
            .with_endpoint(settings.endpoint.clone())
            .with_token(settings.token.clone())
            .with_progress(false)
            .with_chunk_size(Some(settings.chunk_size))
            .with_user_agent("verity", env!("CARGO_PKG_VERSION"))
            .build()
            .map_err(|e| HubError::NotAHub {
                endpoint: settings.endpoint.clone(),
                what: format!("cannot set up the client ({e})"),
            })?;
        Ok(Fetch {
            ctx: Ctx { settings, request },
            progress,
            cancel,
            api,
            state: HubProgress {
                stage: HubStage::Listing,
                file: None,
                files_done: 0,
                files_total: 0,
                bytes_done: 0,
                bytes_total: 0,
                waiting: None,
            },
        })
    }

    fn repo(&self, revision: &str) -> Repo {
        Repo::with_revision(
            self.ctx.request.dataset.clone(),
            RepoType::Dataset,
            revision.to_string(),
        )
    }

    fn report(&mut self) {
        (self.progress)(&self.state);
    }

    pub(super) async fn run(mut self) -> Result<FetchedSplit, HubError> {
        self.report();
        let (commit, listed) = self.list().await?;
        let names = split_files(
            &self.ctx.request.dataset,
            &commit,
            &self.ctx.request.split,
            &listed,
        )?;
        self.state.files_total = names.len();
        let snapshot = snapshot_dir(self.ctx.settings, &self.ctx.request.dataset, &commit);
        let mut files = Vec::new();
        for name in names {
            self.state.file = Some(name.clone());
            self.state.bytes_done = 0;
            self.state.bytes_total = 0;
            let local = snapshot.join(&name);
            let file = if local.exists() {
                tracing::info!(file = %name, "served from the cache");
                cached_file(&name, &local)?
            } else {
                self.download(&commit, &name).await?
            };
            self.state.files_done += 1;
            self.state.stage = HubStage::Downloading;
            self.state.bytes_done = file.bytes;
            self.state.bytes_total = file.bytes;
            self.report();
            files.push(file);
        }
        Ok(FetchedSplit {
            dataset: self.ctx.request.dataset.clone(),
            split: self.ctx.request.split.clone(),
            revision: self.ctx.request.revision.clone(),
            commit,
            files,
            cache: self.ctx.settings.cache.display().to_string(),
        })
    }

    /// The revision's commit and file names.
    async fn list(&mut self) -> Result<(String, Vec<String>), HubError> {
        #[derive(serde::Deserialize)]
        struct Sibling {
            rfilename: String,
        }
        #[derive(serde::Deserialize)]
        struct Info {
            sha: String,
            siblings: Vec<Sibling>,
        }
        let api_repo = self.api.repo(self.repo(&self.ctx.request.revision));
        let url = format!(
            "{}/api/{}",
            self.ctx.settings.endpoint,
            self.repo(&self.ctx.request.revision).api_url()
        );
        let ctx = self.ctx;
        let body = self
            .with_retries(&url, || {
                let request = api_repo.info_request();
                let url = url.clone();
                async move {
                    let started = Instant::now();
                    let response = request.send().await.map_err(|e| unreachable_from(&e))?;
                    tracing::info!(%url, status = %response.status(), ms = started.elapsed().as_millis() as u64, "hub request");
                    match ctx.check(&response, &url, None)? {
                        Try::Again(wait, why) => Ok(Try::Again(wait, why)),
                        Try::Done(()) => match response.bytes().await {
                            Ok(bytes) => Ok(Try::Done(bytes)),
                            Err(e) => Ok(Try::Again(None, transfer_reason(&e))),
                        },
                    }
                }
            })
            .await?;
        let info: Info = serde_json::from_slice(&body).map_err(|e| HubError::NotAHub {
            endpoint: self.ctx.settings.endpoint.clone(),
            what: format!("the dataset's description is not what the Hub sends ({e})"),
        })?;
        if !is_commit(&info.sha) {
            return Err(HubError::NotAHub {
                endpoint: self.ctx.settings.endpoint.clone(),
                what: format!("the revision's commit {:?} is not a commit id", info.sha),
            });
        }
        Ok((
            info.sha,
            info.siblings.into_iter().map(|s| s.rfilename).collect(),
        ))
    }

    /// Downloads one file at `commit` into the cache, resuming a partial copy, and checks it.
    async fn download(&mut self, commit: &str, name: &str) -> Result<HubFile, HubError> {
        // By the revision asked for, as huggingface_hub asks: the cache's ref for it is
        // written, and the commit the file came from is checked against the listed one.
        let api_repo = self.api.repo(self.repo(&self.ctx.request.revision));
        let url = api_repo.url(name);
        let received = Received::default();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            self.state.stage = HubStage::Downloading;
            self.report();
            // A small request first: a 401, 404, 429 or 5xx comes back with its headers
            // (Retry-After), which hf-hub's own requests do not keep.
            let ctx = self.ctx;
            let client = self.api.client().clone();
            self.with_retries(&url, || {
                let request = client.get(&url).header(RANGE, "bytes=0-0");
                let url = url.clone();
                async move {
                    let started = Instant::now();
                    let response = request.send().await.map_err(|e| unreachable_from(&e))?;
                    tracing::info!(%url, status = %response.status(), ms = started.elapsed().as_millis() as u64, "hub request");
                    ctx.check(&response, &url, Some(name))
                }
            })
            .await?;
            let started = Instant::now();
            let download = api_repo.download_with_progress(name, received.clone());
            let outcome = self.watch(download, &received).await?;
            tracing::info!(
                file = name,
                attempt,
                ms = started.elapsed().as_millis() as u64,
                ok = outcome.is_ok(),
                "hub download"
            );
            let expected = snapshot_dir(self.ctx.settings, &self.ctx.request.dataset, commit);
            let why = match outcome {
                Ok(local) if !local.starts_with(&expected) => {
                    return Err(HubError::GaveUp(format!(
                        "the dataset {} changed while it was fetched ({} moved away from {commit}): fetch again",
                        self.ctx.request.dataset, self.ctx.request.revision
                    )));
                }
                Ok(local) => match self.verify(name, &local)? {
                    Ok(file) => return Ok(file),
                    Err(corrupt) if attempt >= self.ctx.settings.attempts => return Err(corrupt),
                    Err(corrupt) => corrupt.to_string(),
                },
                Err(err) => {
                    let why = download_failure(&err);
                    if let Some(fatal) = self.fatal(&err) {
                        return Err(fatal);
                    }
                    if attempt >= self.ctx.settings.attempts {
                        return Err(HubError::GaveUp(format!(
                            "the download of {name} failed {attempt} times ({why}); run the fetch again to resume it"
                        )));
                    }
                    why
                }
            };
            let wait = self.backoff(attempt);
            self.wait(wait, &why).await?;
        }
    }

    /// A download error that no retry mends.
    fn fatal(&self, err: &ApiError) -> Option<HubError> {
        match err {
            ApiError::IoError(e) => Some(HubError::Cache {
                path: self.ctx.settings.cache.display().to_string(),
                reason: e.to_string(),
            }),
            ApiError::LockAcquisition(path) => Some(HubError::Cache {
                path: path.display().to_string(),
                reason: "another process is downloading this file".into(),
            }),
            ApiError::MissingHeader(_)
            | ApiError::InvalidHeader(_)
            | ApiError::ParseIntError(_) => Some(HubError::NotAHub {
                endpoint: self.ctx.settings.endpoint.clone(),
                what: err.to_string(),
            }),
            _ => None,
        }
    }

    /// Checks a downloaded file against the Hub's SHA-256 (its etag for files in LFS, as
    /// datasets' Parquet files are); a mismatch removes the copy.
    fn verify(&mut self, name: &str, local: &Path) -> Result<Result<HubFile, HubError>, HubError> {
        self.state.stage = HubStage::Verifying;
        self.report();
        let cache_error = |e: std::io::Error| HubError::Cache {
            path: local.display().to_string(),
            reason: e.to_string(),
        };
        let bytes = std::fs::metadata(local).map_err(cache_error)?.len();
        let actual = sha256_of(local).map_err(cache_error)?;
        match blob_etag(local) {
            Some(expected) if is_sha256(&expected) && expected != actual => {
                let blob = local.parent().and_then(|p| {
                    std::fs::canonicalize(p.join(std::fs::read_link(local).ok()?)).ok()
                });
                // Neither the link nor the blob may stay: a later fetch would take them as
                // complete.
                std::fs::remove_file(local).map_err(cache_error)?;
                if let Some(blob) = blob {
                    std::fs::remove_file(&blob).map_err(cache_error)?;
                }
                Ok(Err(HubError::Corrupt {
                    file: name.to_string(),
                    expected,
                    actual,
                }))
            }
            _ => Ok(Ok(HubFile {
                path: name.to_string(),
                local: local.display().to_string(),
                sha256: actual,
                bytes,
                cached: false,
            })),
        }
    }

    /// Runs a download, reporting its bytes and stopping at a cancel; a cancelled download
    /// keeps its partial file, which the next fetch resumes.
    async fn watch<T>(
        &mut self,
        work: impl Future<Output = T>,
        received: &Received,
    ) -> Result<T, HubError> {
        let mut work = std::pin::pin!(work);
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        loop {
            tokio::select! {
                out = &mut work => return Ok(out),
                _ = tick.tick() => {
                    if self.cancel.load(Ordering::Relaxed) {
                        return Err(HubError::Cancelled);
                    }
                    self.state.bytes_done = received.bytes.load(Ordering::Relaxed);
                    self.state.bytes_total = received.size.load(Ordering::Relaxed);
                    self.report();
                }
            }
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let doubled = self
            .ctx
            .settings
            .backoff
            .saturating_mul(1 << attempt.min(6));
        doubled.min(Duration::from_secs(30))
    }

    /// Waits, reporting the seconds left, stopping at a cancel.
    async fn wait(&mut self, wait: Duration, why: &str) -> Result<(), HubError> {
        let stage = self.state.stage;
        self.state.stage = HubStage::Waiting;
        let until = Instant::now() + wait;
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                return Err(HubError::Cancelled);
            }
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

    /// Runs a request until it succeeds, a failure no retry mends, or the tries run out.
    async fn with_retries<T, F, Fut>(&mut self, url: &str, mut send: F) -> Result<T, HubError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<Try<T>, HubError>>,
    {
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let outcome = match send().await {
                Ok(done) => done,
                Err(HubError::Unreachable { reason, .. })
                    if attempt < self.ctx.settings.attempts && retryable_connect(&reason) =>
                {
                    Try::Again(None, reason)
                }
                Err(e) => return Err(self.with_proxy(e)),
            };
            match outcome {
                Try::Done(value) => return Ok(value),
                Try::Again(asked, why) => {
                    if let Some(asked) = asked.filter(|a| *a > self.ctx.settings.max_wait) {
                        return Err(HubError::GaveUp(format!(
                            "{url} answered {why} and asks to wait {} s, longer than Verity waits ({} s): try again later",
                            asked.as_secs(),
                            self.ctx.settings.max_wait.as_secs()
                        )));
                    }
                    if attempt >= self.ctx.settings.attempts {
                        return Err(HubError::GaveUp(format!(
                            "{url} answered {why} {attempt} times in a row: try again later"
                        )));
                    }
                    let wait = asked.unwrap_or_else(|| self.backoff(attempt));
                    self.wait(wait, &why).await?;
                }
            }
        }
    }

    /// Names the endpoint and the proxy in a connection failure.
    fn with_proxy(&self, err: HubError) -> HubError {
        match err {
            HubError::Unreachable { reason, .. } => HubError::Unreachable {
                endpoint: self.ctx.settings.endpoint.clone(),
                via: self
                    .ctx
                    .settings
                    .proxy
                    .as_ref()
                    .map(|(var, proxy)| format!(" through the proxy {proxy} ({var})"))
                    .unwrap_or_default(),
                reason,
            },
            other => other,
        }
    }
}

impl Ctx<'_> {
    /// Reads a response's status: fine, worth another try (429, 5xx) with the wait the server
    /// asks for, or a failure in one sentence.
    fn check(
        &self,
        response: &reqwest::Response,
        url: &str,
        file: Option<&str>,
    ) -> Result<Try<()>, HubError> {
        let status = response.status();
        if status.is_success() || status.is_redirection() {
            return Ok(Try::Done(()));
        }
        let headers = response.headers();
        if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
            return Ok(Try::Again(
                retry_after(headers, OffsetDateTime::now_utc()),
                status_text(status),
            ));
        }
        let code = headers
            .get("x-error-code")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let dataset = &self.request.dataset;
        let token_hint = match &self.settings.token_source {
            Some(source) => format!("the token from {source} does not open it"),
            None => {
                "no token was given: set HF_TOKEN or log in with `huggingface-cli login`".into()
            }
        };
        Err(match (status, code) {
            (_, "RevisionNotFound") => HubError::NoRevision {
                dataset: dataset.clone(),
                revision: self.request.revision.clone(),
            },
            (_, "EntryNotFound") => HubError::NotAHub {
                endpoint: self.settings.endpoint.clone(),
                what: format!("it lists {} but does not serve it", file.unwrap_or(url)),
            },
            (_, "GatedRepo") | (StatusCode::FORBIDDEN, _) => HubError::Refused(format!(
                "the dataset {dataset} is gated: accept its conditions on its page on the Hub, and {token_hint}"
            )),
            (StatusCode::UNAUTHORIZED, code)
                if code != "RepoNotFound" && self.settings.token.is_some() =>
            {
                HubError::Refused(format!(
                    "the Hub refused the token from {}: it is invalid or expired, or it does not open {dataset}",
                    self.settings.token_source.as_deref().unwrap_or("HF_TOKEN")
                ))
            }
            (StatusCode::UNAUTHORIZED, _) | (StatusCode::NOT_FOUND, _) => HubError::NoDataset {
                endpoint: self.settings.endpoint.clone(),
                dataset: dataset.clone(),
                hint: if self.settings.token.is_some() {
                    " that this token can see (check the name's spelling)".into()
                } else {
                    " (or it is private or gated, and no token was given: set HF_TOKEN)".into()
                },
            },
            _ => HubError::GaveUp(format!("{url} answered {}", status_text(status))),
        })
    }
}

/// A connection error turned into a failure sentence; the endpoint is named by the caller.
pub(super) fn unreachable_from(err: &reqwest::Error) -> HubError {
    HubError::Unreachable {
        endpoint: String::new(),
        via: String::new(),
        reason: transfer_reason(err),
    }
}

/// Failures that can pass: a connection that broke or timed out. A name that does not resolve,
/// a refused connection or a failed TLS handshake is said at once.
pub(super) fn retryable_connect(reason: &str) -> bool {
    reason.starts_with("the connection broke") || reason.starts_with("the request timed out")
}

/// What went wrong with a request, in words: the name lookup, the connection, the TLS
/// handshake, or the transfer.
pub(super) fn transfer_reason(err: &reqwest::Error) -> String {
    let mut chain = Vec::new();
    let mut source: Option<&dyn std::error::Error> = Some(err);
    while let Some(e) = source {
        chain.push(e.to_string());
        source = e.source();
    }
    let all = chain.join(": ");
    let lower = all.to_ascii_lowercase();
    let host = err
        .url()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    if lower.contains("dns error") || lower.contains("failed to lookup address") {
        format!("the name {host} does not resolve (no network, or no such host)")
    } else if lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("handshake")
        || lower.contains("corrupt message")
        || lower.contains("invalidcontenttype")
    {
        format!(
            "the TLS handshake with {host} failed ({})",
            chain.last().map_or("", String::as_str)
        )
    } else if lower.contains("connection refused") {
        "the connection was refused".into()
    } else if err.is_timeout() {
        "the request timed out".into()
    } else if err.is_body() || err.is_decode() || lower.contains("incomplete") {
        "the connection broke during the transfer".into()
    } else {
        chain.last().cloned().unwrap_or(all)
    }
}

fn download_failure(err: &ApiError) -> String {
    match err {
        ApiError::RequestError(e) => match e.status() {
            Some(status) => format!("answered {}", status_text(status)),
            None => transfer_reason(e),
        },
        ApiError::TooManyRetries(inner) => download_failure(inner),
        other => other.to_string(),
    }
}

pub(super) fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}
