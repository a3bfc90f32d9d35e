//! The Hub cache on disk, laid out as `huggingface_hub` lays it out: a dataset's snapshots by
//! commit, the files of a split in one, and each file checked against its blob's hash.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{FetchedSplit, HubError, HubFile, HubSettings, SplitRequest};
/// The files of a split, read from the cache alone (`HF_HUB_OFFLINE`).
pub(super) fn cached_split(
    settings: &HubSettings,
    request: &SplitRequest,
) -> Result<FetchedSplit, HubError> {
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
pub(super) fn snapshot_dir(settings: &HubSettings, dataset: &str, commit: &str) -> PathBuf {
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

pub(super) fn is_commit(revision: &str) -> bool {
    revision.len() == 40 && revision.bytes().all(|b| b.is_ascii_hexdigit())
}

pub(super) fn is_sha256(text: &str) -> bool {
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
    // A dataset of several configs (a Verity dataset's tasks and annotations) keeps its default
    // config under `data/`, as `datasets` lays one out: those files are the split's.
    if chosen.iter().any(|f| f.starts_with("data/")) {
        chosen.retain(|f| f.starts_with("data/"));
    }
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
pub(super) fn cached_file(path: &str, local: &Path) -> Result<HubFile, HubError> {
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
pub(super) fn blob_etag(local: &Path) -> Option<String> {
    let target = std::fs::read_link(local).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

pub(super) fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
