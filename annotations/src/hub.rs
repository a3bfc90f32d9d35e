//! Datasets from the Hugging Face Hub: a split's Parquet files, downloaded by `hf-hub` into the
//! cache that Python's `huggingface_hub` shares, resumed after an interruption, retried on 429
//! and 5xx with the server's Retry-After, checked against the Hub's hashes.
//!
//! The environment is read as `huggingface_hub` reads it: `HF_ENDPOINT`, `HF_HOME`,
//! `HF_HUB_CACHE`, `HF_TOKEN`, `HF_TOKEN_PATH`, `HF_HUB_OFFLINE`; proxies from `HTTPS_PROXY`,
//! `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY`, as reqwest honours them.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hf_hub::api::tokio::{Api, ApiBuilder, ApiError, Progress};
use hf_hub::{Cache, Repo, RepoType};
use reqwest::StatusCode;
use reqwest::header::RANGE;
use serde::Serialize;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use ts_rs::TS;

use crate::endpoint::retry_after;

/// Where and how to reach the Hub, read from the environment.
#[derive(Debug, Clone)]
pub struct HubSettings {
    /// The Hub's address, without a trailing slash.
    pub endpoint: String,
    /// The cache folder (`…/huggingface/hub`).
    pub cache: PathBuf,
    /// The access token, if any.
    pub token: Option<String>,
    /// Where the token came from, for messages: `HF_TOKEN` or the token file's path.
    pub token_source: Option<String>,
    /// `HF_HUB_OFFLINE`: only the cache is read.
    pub offline: bool,
    /// Bytes per range request; a resumed download restarts at the last whole chunk.
    pub chunk_size: usize,
    /// Tries per request before giving up on 429, 5xx or a broken connection.
    pub attempts: u32,
    /// The first wait between tries; each further wait doubles it.
    pub backoff: Duration,
    /// The longest Retry-After Verity waits for; a longer one is reported instead.
    pub max_wait: Duration,
    /// The proxy a request to the endpoint goes through, for messages.
    proxy: Option<(String, String)>,
}

impl HubSettings {
    /// The settings this process's environment gives.
    pub fn from_env() -> HubSettings {
        HubSettings::from_vars(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// The settings a lookup of environment variables gives.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> HubSettings {
        let home_dir = std::env::home_dir().unwrap_or_default();
        let hf_home = var("HF_HOME").map(PathBuf::from).unwrap_or_else(|| {
            var("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| home_dir.join(".cache"))
                .join("huggingface")
        });
        let cache = var("HF_HUB_CACHE")
            .or_else(|| var("HUGGINGFACE_HUB_CACHE"))
            .map(PathBuf::from)
            .unwrap_or_else(|| hf_home.join("hub"));
        let token_path = var("HF_TOKEN_PATH")
            .map(PathBuf::from)
            .unwrap_or_else(|| hf_home.join("token"));
        let (token, token_source) = match var("HF_TOKEN").or_else(|| var("HUGGING_FACE_HUB_TOKEN"))
        {
            Some(token) => (Some(token.trim().to_string()), Some("HF_TOKEN".to_string())),
            None => match std::fs::read_to_string(&token_path) {
                Ok(text) if !text.trim().is_empty() => (
                    Some(text.trim().to_string()),
                    Some(token_path.display().to_string()),
                ),
                _ => (None, None),
            },
        };
        let endpoint = var("HF_ENDPOINT")
            .unwrap_or_else(|| "https://huggingface.co".to_string())
            .trim_end_matches('/')
            .to_string();
        let offline = var("HF_HUB_OFFLINE").is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "on" | "yes" | "true"
            )
        });
        let proxy = proxy_for(&endpoint, &var);
        HubSettings {
            endpoint,
            cache,
            token,
            token_source,
            offline,
            chunk_size: 10_000_000,
            attempts: 5,
            backoff: Duration::from_millis(500),
            max_wait: Duration::from_secs(60),
            proxy,
        }
    }
}

/// The proxy variable and address that apply to `endpoint`, as reqwest picks them.
fn proxy_for(endpoint: &str, var: &impl Fn(&str) -> Option<String>) -> Option<(String, String)> {
    let (scheme, rest) = endpoint.split_once("://")?;
    let host = rest
        .split(['/', ':'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let no_proxy = var("NO_PROXY")
        .or_else(|| var("no_proxy"))
        .unwrap_or_default();
    let bypassed = no_proxy.split(',').map(str::trim).any(|entry| {
        let entry = entry.trim_start_matches('.').to_ascii_lowercase();
        entry == "*"
            || (!entry.is_empty() && (host == entry || host.ends_with(&format!(".{entry}"))))
    });
    if bypassed {
        return None;
    }
    let names: &[&str] = if scheme.eq_ignore_ascii_case("https") {
        &["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
    } else {
        &["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
    };
    names
        .iter()
        .find_map(|name| var(name).map(|value| (name.to_string(), value)))
}

/// A dataset's split at a revision.
#[derive(Debug, Clone)]
pub struct SplitRequest {
    /// `OWNER/NAME`.
    pub dataset: String,
    /// The split: `test`, `train`, `dev`…
    pub split: String,
    /// A branch, tag or commit.
    pub revision: String,
}

/// One file of a fetched split.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct HubFile {
    /// The file's path in the dataset's repository.
    pub path: String,
    /// Where it is in the local cache.
    pub local: String,
    /// The SHA-256 of its content.
    pub sha256: String,
    /// Its size.
    #[ts(type = "number")]
    pub bytes: u64,
    /// True when it was already in the cache and nothing was downloaded.
    pub cached: bool,
}

/// A split whose files are all in the local cache.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct FetchedSplit {
    /// `OWNER/NAME`.
    pub dataset: String,
    /// The split.
    pub split: String,
    /// The revision asked for.
    pub revision: String,
    /// The commit it resolved to.
    pub commit: String,
    /// The split's files, in name order.
    pub files: Vec<HubFile>,
    /// The cache folder.
    pub cache: String,
}

impl FetchedSplit {
    /// Whether every file came from the cache.
    pub fn from_cache(&self) -> bool {
        self.files.iter().all(|f| f.cached)
    }
}

/// What a fetch is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
#[serde(rename_all = "snake_case")]
pub enum HubStage {
    /// Asking the Hub for the revision's files.
    Listing,
    /// Downloading a file.
    Downloading,
    /// Waiting before trying again (429, 5xx, a broken connection).
    Waiting,
    /// Checking a file's hash.
    Verifying,
}

/// How far a fetch has got, for a progress bar.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct HubProgress {
    /// What it is doing.
    pub stage: HubStage,
    /// The file, once files are known.
    pub file: Option<String>,
    /// Files finished.
    pub files_done: usize,
    /// Files in all (0 while listing).
    pub files_total: usize,
    /// Bytes of the current file in the cache, a resumed part included.
    #[ts(type = "number")]
    pub bytes_done: u64,
    /// The current file's size (0 until known).
    #[ts(type = "number")]
    pub bytes_total: u64,
    /// While waiting: the seconds left and why.
    pub waiting: Option<String>,
}

/// Why a fetch failed: one sentence each.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// The network did not carry the request.
    #[error("cannot reach {endpoint}{via}: {reason}")]
    Unreachable {
        /// The Hub's address.
        endpoint: String,
        /// ` through the proxy … (VAR)` when one applies.
        via: String,
        /// What failed: the name lookup, the connection, the TLS handshake.
        reason: String,
    },
    /// No such dataset, or one the token cannot see.
    #[error("{endpoint} has no dataset {dataset}{hint}")]
    NoDataset {
        /// The Hub's address.
        endpoint: String,
        /// `OWNER/NAME`.
        dataset: String,
        /// What else it may be.
        hint: String,
    },
    /// The dataset has no such branch, tag or commit.
    #[error("the dataset {dataset} has no revision {revision:?}")]
    NoRevision {
        /// `OWNER/NAME`.
        dataset: String,
        /// The revision asked for.
        revision: String,
    },
    /// A gated or private dataset without a token that opens it.
    #[error("{0}")]
    Refused(String),
    /// No Parquet file of the split at this revision.
    #[error("the dataset {dataset} at {commit} has no Parquet files for split {split:?}{found}")]
    NoSplit {
        /// `OWNER/NAME`.
        dataset: String,
        /// The commit.
        commit: String,
        /// The split asked for.
        split: String,
        /// The splits there are, or why there are none.
        found: String,
    },
    /// Offline, and the cache lacks what is asked.
    #[error(
        "HF_HUB_OFFLINE is set and the cache {cache} holds no copy of {dataset} at revision {revision:?}{missing}"
    )]
    NotCached {
        /// The cache folder.
        cache: String,
        /// `OWNER/NAME`.
        dataset: String,
        /// The revision.
        revision: String,
        /// The file missing, when the revision is known.
        missing: String,
    },
    /// The Hub kept failing, or asked for a longer wait than Verity takes.
    #[error("{0}")]
    GaveUp(String),
    /// A file whose content does not match the Hub's hash after every try.
    #[error(
        "{file} arrived truncated or corrupted: its SHA-256 is {actual}, the Hub gives {expected}; the copy was removed, so a new fetch downloads it again"
    )]
    Corrupt {
        /// The file's path in the dataset.
        file: String,
        /// The Hub's hash.
        expected: String,
        /// The downloaded file's hash.
        actual: String,
    },
    /// A server that does not answer as the Hub does.
    #[error("{endpoint} does not answer as the Hugging Face Hub does: {what}")]
    NotAHub {
        /// The address.
        endpoint: String,
        /// What was odd.
        what: String,
    },
    /// The local cache could not be written or read.
    #[error("the Hub cache {path}: {reason}")]
    Cache {
        /// The file or folder.
        path: String,
        /// What failed.
        reason: String,
    },
    /// The user cancelled.
    #[error("the fetch was cancelled; a partly downloaded file resumes on the next fetch")]
    Cancelled,
}

/// Fetches a split's Parquet files into the cache (or finds them there) without importing them.
pub fn fetch_split(
    settings: &HubSettings,
    request: &SplitRequest,
    progress: &mut dyn FnMut(&HubProgress),
    cancel: &AtomicBool,
) -> Result<FetchedSplit, HubError> {
    if settings.offline {
        return cached_split(settings, request);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| HubError::Cache {
            path: settings.cache.display().to_string(),
            reason: format!("cannot start the download runtime: {e}"),
        })?;
    runtime.block_on(Fetch::new(settings, request, progress, cancel)?.run())
}

/// The files of a split, read from the cache alone (`HF_HUB_OFFLINE`).
fn cached_split(settings: &HubSettings, request: &SplitRequest) -> Result<FetchedSplit, HubError> {
    let folder = repo_folder(settings, &request.dataset);
    let not_cached = |missing: String| HubError::NotCached {
        cache: settings.cache.display().to_string(),
        dataset: request.dataset.clone(),
        revision: request.revision.clone(),
        missing,
    };
    let commit = if is_commit(&request.revision) {
        request.revision.clone()
    } else {
        std::fs::read_to_string(folder.join("refs").join(&request.revision))
            .map_err(|_| not_cached(String::new()))?
            .trim()
            .to_string()
    };
    let snapshot = snapshot_dir(settings, &request.dataset, &commit);
    let mut listed = Vec::new();
    list_files(&snapshot, &snapshot, &mut listed);
    if listed.is_empty() {
        return Err(not_cached(String::new()));
    }
    let files = split_files(&request.dataset, &commit, &request.split, &listed)?;
    let files = files
        .into_iter()
        .map(|path| {
            let local = snapshot.join(&path);
            cached_file(&path, &local)
        })
        .collect::<Result<_, _>>()?;
    Ok(FetchedSplit {
        dataset: request.dataset.clone(),
        split: request.split.clone(),
        revision: request.revision.clone(),
        commit,
        files,
        cache: settings.cache.display().to_string(),
    })
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            list_files(root, &path, out);
        } else if let Ok(relative) = path.strip_prefix(root) {
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// Where the files of a dataset's commit are in the cache.
fn snapshot_dir(settings: &HubSettings, dataset: &str, commit: &str) -> PathBuf {
    repo_folder(settings, dataset)
        .join("snapshots")
        .join(commit)
}

/// The cache's folder for a dataset, as `huggingface_hub` names it.
fn repo_folder(settings: &HubSettings, dataset: &str) -> PathBuf {
    settings
        .cache
        .join(format!("datasets--{}", dataset.replace('/', "--")))
}

fn is_commit(revision: &str) -> bool {
    revision.len() == 40 && revision.bytes().all(|b| b.is_ascii_hexdigit())
}

fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The Parquet files of `split` among a revision's files, in name order: `data/test-….parquet`,
/// `test/….parquet`, `default/test/….parquet` (the Hub's converted layout) or `test.parquet`.
pub fn split_files(
    dataset: &str,
    commit: &str,
    split: &str,
    files: &[String],
) -> Result<Vec<String>, HubError> {
    let parquet: Vec<&String> = files.iter().filter(|f| f.ends_with(".parquet")).collect();
    let mut chosen: Vec<String> = parquet
        .iter()
        .filter(|f| split_of(f).is_some_and(|s| s == split))
        .map(|f| f.to_string())
        .collect();
    chosen.sort();
    if !chosen.is_empty() {
        return Ok(chosen);
    }
    let mut splits: Vec<&str> = parquet.iter().filter_map(|f| split_of(f)).collect();
    splits.sort_unstable();
    splits.dedup();
    Err(HubError::NoSplit {
        dataset: dataset.to_string(),
        commit: commit.to_string(),
        split: split.to_string(),
        found: if parquet.is_empty() {
            "; it holds no Parquet files at all (the Hub's converted copy is at --revision refs/convert/parquet)".to_string()
        } else if splits.is_empty() {
            String::new()
        } else {
            format!("; its splits: {}", splits.join(", "))
        },
    })
}

/// The split a Parquet file belongs to, by the naming conventions `datasets` uses.
fn split_of(path: &str) -> Option<&str> {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop()?;
    let stem = file.strip_suffix(".parquet")?;
    let named = stem.split(['-', '.']).next().filter(|s| !s.is_empty());
    match parts.last() {
        // `test/0000.parquet`, `default/test/0000.parquet`: the folder names the split.
        Some(folder)
            if *folder != "data" && named.is_none_or(|n| n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            Some(folder)
        }
        _ => named,
    }
}

/// A file found in the cache: its hash from the blob's name when that is the Hub's SHA-256,
/// otherwise computed.
fn cached_file(path: &str, local: &Path) -> Result<HubFile, HubError> {
    let cache_error = |e: std::io::Error| HubError::Cache {
        path: local.display().to_string(),
        reason: e.to_string(),
    };
    let bytes = std::fs::metadata(local).map_err(cache_error)?.len();
    let sha256 = match blob_etag(local) {
        Some(etag) if is_sha256(&etag) => etag,
        _ => sha256_of(local).map_err(cache_error)?,
    };
    Ok(HubFile {
        path: path.to_string(),
        local: local.display().to_string(),
        sha256,
        bytes,
        cached: true,
    })
}

/// The etag a snapshot's link points at (`../../blobs/<etag>`).
fn blob_etag(local: &Path) -> Option<String> {
    let target = std::fs::read_link(local).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The file's size and the bytes received, shared with `hf-hub`'s download tasks.
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
struct Fetch<'a> {
    ctx: Ctx<'a>,
    progress: &'a mut dyn FnMut(&HubProgress),
    cancel: &'a AtomicBool,
    api: Api,
    state: HubProgress,
}

impl<'a> Fetch<'a> {
    fn new(
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

    async fn run(mut self) -> Result<FetchedSplit, HubError> {
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
fn unreachable_from(err: &reqwest::Error) -> HubError {
    HubError::Unreachable {
        endpoint: String::new(),
        via: String::new(),
        reason: transfer_reason(err),
    }
}

/// Failures that can pass: a connection that broke or timed out. A name that does not resolve,
/// a refused connection or a failed TLS handshake is said at once.
fn retryable_connect(reason: &str) -> bool {
    reason.starts_with("the connection broke") || reason.starts_with("the request timed out")
}

/// What went wrong with a request, in words: the name lookup, the connection, the TLS
/// handshake, or the transfer.
fn transfer_reason(err: &reqwest::Error) -> String {
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

fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(vars: &[(&str, &str)]) -> HubSettings {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        HubSettings::from_vars(|k| map.get(k).cloned())
    }

    #[test]
    fn the_environment_is_read_as_huggingface_hub_reads_it() {
        let s = settings(&[("HF_HOME", "/h"), ("HF_ENDPOINT", "http://mirror.local/")]);
        assert_eq!(s.cache, PathBuf::from("/h/hub"));
        assert_eq!(s.endpoint, "http://mirror.local");
        assert!(!s.offline);
        let s = settings(&[
            ("HF_HOME", "/h"),
            ("HF_HUB_CACHE", "/c"),
            ("HF_TOKEN", " hf_abc \n"),
            ("HF_HUB_OFFLINE", "YES"),
        ]);
        assert_eq!(s.cache, PathBuf::from("/c"));
        assert_eq!(s.token.as_deref(), Some("hf_abc"));
        assert_eq!(s.token_source.as_deref(), Some("HF_TOKEN"));
        assert!(s.offline);
        let s = settings(&[("XDG_CACHE_HOME", "/x")]);
        assert_eq!(s.cache, PathBuf::from("/x/huggingface/hub"));
    }

    #[test]
    fn a_proxy_applies_by_scheme_unless_no_proxy_names_the_host() {
        let s = settings(&[("HTTPS_PROXY", "http://p:3128")]);
        assert_eq!(
            s.proxy,
            Some(("HTTPS_PROXY".to_string(), "http://p:3128".to_string()))
        );
        let s = settings(&[
            ("HTTPS_PROXY", "http://p:3128"),
            ("NO_PROXY", ".huggingface.co"),
        ]);
        assert_eq!(s.proxy, None);
        let s = settings(&[
            ("HTTP_PROXY", "http://p:3128"),
            ("HF_ENDPOINT", "https://hub"),
        ]);
        assert_eq!(s.proxy, None);
    }

    #[test]
    fn a_split_is_found_by_the_names_datasets_gives_its_files() {
        let files: Vec<String> = [
            "README.md",
            "data/test-00000-of-00002.parquet",
            "data/test-00001-of-00002.parquet",
            "data/dev-00000-of-00001.parquet",
            "default/train/0000.parquet",
            "lite.parquet",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let c = "0".repeat(40);
        assert_eq!(
            split_files("o/n", &c, "test", &files).expect("test split"),
            [
                "data/test-00000-of-00002.parquet",
                "data/test-00001-of-00002.parquet"
            ]
        );
        assert_eq!(
            split_files("o/n", &c, "train", &files).expect("train split"),
            ["default/train/0000.parquet"]
        );
        assert_eq!(
            split_files("o/n", &c, "lite", &files).expect("a file named as the split"),
            ["lite.parquet"]
        );
        let err = split_files("o/n", &c, "validation", &files).expect_err("no such split");
        assert!(
            err.to_string()
                .ends_with("its splits: dev, lite, test, train"),
            "{err}"
        );
        let err = split_files("o/n", &c, "test", &["README.md".to_string()])
            .expect_err("no parquet at all");
        assert!(err.to_string().contains("refs/convert/parquet"), "{err}");
    }
}
