//! Datasets from and to the Hugging Face Hub: a split's Parquet files, downloaded by `hf-hub`
//! into the cache that Python's `huggingface_hub` shares, resumed after an interruption, retried
//! on 429 and 5xx with the server's Retry-After, checked against the Hub's hashes; and a dataset
//! folder published as one commit (`publish.rs`).
//!
//! The environment is read as `huggingface_hub` reads it: `HF_ENDPOINT`, `HF_HOME`,
//! `HF_HUB_CACHE`, `HF_TOKEN`, `HF_TOKEN_PATH`, `HF_HUB_OFFLINE`; proxies from `HTTPS_PROXY`,
//! `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY`, as reqwest honours them.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::Serialize;
use ts_rs::TS;

mod cache;
mod client;
mod publish;

pub use cache::split_files;
pub use publish::{
    FileAction, Publication, PublishProgress, PublishReport, PublishStage, PublishedFile,
    UploadMode, publish,
};

use cache::cached_split;
use client::Fetch;

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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
    /// The user stopped a publication.
    #[error(
        "the publication was stopped before its commit; publishing again sends only the files not yet uploaded"
    )]
    Stopped,
    /// A local file or folder to publish could not be read, or is not a dataset folder.
    #[error("{path}: {reason}")]
    Local {
        /// The file or folder.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The Hub refused what was sent (a card's metadata, a commit on a moved branch).
    #[error("{0}")]
    Rejected(String),
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

#[cfg(test)]
mod tests;
