//! Fetching a dataset's split from the Hugging Face Hub and importing it: the import starts only
//! when every file is in the cache, and is all or nothing as any import is.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use serde::Serialize;
use time::OffsetDateTime;
use ts_rs::TS;

use super::import::import_inputs;
use super::{Error, ErrorCode, ImportProgress, ImportReport, Project, Result};
use crate::hub::{self, FetchedSplit, HubProgress, HubSettings, SplitRequest};

/// What a fetch asks for.
#[derive(Debug, Clone, serde::Deserialize, TS)]
#[ts(export)]
pub struct FetchRequest {
    /// `OWNER/NAME`, as the Hub names the dataset.
    pub dataset: String,
    /// The split; `test` when absent.
    pub split: Option<String>,
    /// A branch, tag or commit; `main` when absent.
    pub revision: Option<String>,
}

/// How far a fetch has got: downloading, then importing.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum FetchProgress {
    /// Files coming from the Hub.
    Download(HubProgress),
    /// Rows going into the project.
    Import(ImportProgress),
}

/// What a fetch brought and imported.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct FetchReport {
    /// The files and the commit they came from.
    pub fetched: FetchedSplit,
    /// True when every file came from the local cache.
    pub from_cache: bool,
    /// The import of their rows.
    pub import: ImportReport,
}

/// Where a record of a fetched file came from: the dataset, its commit, the file and its hash.
pub fn hub_origin(dataset: &str, commit: &str, path: &str, sha256: &str) -> String {
    format!("hf://datasets/{dataset}@{commit}/{path}#sha256={sha256}")
}

/// Checks a dataset id: `OWNER/NAME`.
pub(super) fn check_dataset(dataset: &str) -> Result<()> {
    let parts: Vec<&str> = dataset.split('/').collect();
    let ok = parts.len() == 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        });
    if ok {
        Ok(())
    } else {
        Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "{dataset:?} is not a dataset id: give OWNER/NAME as the Hub names it, for example princeton-nlp/SWE-bench_Verified"
            ),
        ))
    }
}

/// Downloads a split's Parquet files (or finds them in the cache) and imports their rows,
/// each record's origin naming the dataset, commit, file and the file's SHA-256.
pub fn fetch_dataset(
    project: &mut Project,
    request: &FetchRequest,
    settings: &HubSettings,
    now: OffsetDateTime,
    progress: &mut dyn FnMut(&FetchProgress),
    cancel: &AtomicBool,
) -> Result<FetchReport> {
    project.require_coordinator("imports tasks")?;
    check_dataset(&request.dataset)?;
    let split = SplitRequest {
        dataset: request.dataset.clone(),
        split: request.split.clone().unwrap_or_else(|| "test".into()),
        revision: request.revision.clone().unwrap_or_else(|| "main".into()),
    };
    let fetched = hub::fetch_split(
        settings,
        &split,
        &mut |p| progress(&FetchProgress::Download(p.clone())),
        cancel,
    )?;
    let inputs: Vec<(PathBuf, Option<String>)> = fetched
        .files
        .iter()
        .map(|f| {
            (
                PathBuf::from(&f.local),
                Some(hub_origin(
                    &fetched.dataset,
                    &fetched.commit,
                    &f.path,
                    &f.sha256,
                )),
            )
        })
        .collect();
    let import = import_inputs(
        project,
        &inputs,
        now,
        &mut |p| progress(&FetchProgress::Import(p.clone())),
        cancel,
    )?;
    tracing::info!(
        dataset = %fetched.dataset,
        commit = %fetched.commit,
        files = fetched.files.len(),
        from_cache = fetched.from_cache(),
        "fetched and imported"
    );
    Ok(FetchReport {
        from_cache: fetched.from_cache(),
        fetched,
        import,
    })
}
