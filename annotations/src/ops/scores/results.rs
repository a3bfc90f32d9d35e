//! Systems' results files: imported in parallel and stored in one transaction, listed, removed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use ts_rs::TS;

use super::joined;
use crate::import::results::{ResultsFile, ResultsFormat, read_results};
use crate::ops::{Error, ErrorCode, Project, Result, stamp};
use verity_store::{EncodedOutcomes, Outcomes, SystemRow};

/// One file of results to import, and the system's name when not the file's.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ResultsSource {
    /// The file, or a folder of `report.json` files.
    #[ts(type = "string")]
    pub path: PathBuf,
    /// The system's name; by default the file's name up to its first dot (a folder's, or for a
    /// file named `results.json`, `report.json` or `eval_results.json`, its folder's).
    #[serde(default)]
    pub system: Option<String>,
}

/// What importing one system's results did.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ResultsImport {
    /// The system.
    pub system: String,
    /// The format the file was read as.
    pub format: String,
    /// The file or folder.
    pub origin: String,
    /// The project's tasks.
    pub tasks: usize,
    /// Tasks of the project the file mentions: the rest count as not resolved.
    pub submitted: usize,
    /// Of those, the ones resolved.
    pub resolved: usize,
    /// Ids in the file that the project does not hold, left out.
    pub unknown_ids: usize,
    /// True when it replaced results stored under the same name.
    pub replaced: bool,
    /// What the user should know (ids left out: how many, and the first three).
    pub warnings: Vec<String>,
}

/// A system's stored results.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct SystemResults {
    /// The system.
    pub system: String,
    /// The format its file was read as.
    pub format: String,
    /// The file or folder.
    pub origin: String,
    /// Tasks of the project the file mentions.
    pub submitted: usize,
    /// Of those, the ones resolved.
    pub resolved: usize,
    /// When imported.
    pub imported_at: String,
}

/// The default system name for a results file.
fn default_system(path: &Path) -> String {
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let file = name(path);
    let generic = ["results.json", "report.json", "eval_results.json"];
    let own = if generic.contains(&file.as_str()) {
        path.parent()
            .map(name)
            .filter(|n| !n.is_empty())
            .unwrap_or(file)
    } else {
        file
    };
    match own.split_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => own,
    }
}

/// Reads systems' results from files, in parallel, and stores them all in one transaction, or
/// none when any file is refused: a malformed file, a task named twice or both resolved and
/// not, a file matching no task of the project, or two files for one system. Ids the project
/// does not hold are left out, with a warning saying how many and naming the first three. A
/// coordinator function.
pub fn import_results(
    project: &mut Project,
    sources: &[ResultsSource],
    now: OffsetDateTime,
) -> Result<Vec<ResultsImport>> {
    project.require_coordinator("imports systems' results")?;
    if sources.is_empty() {
        return Err(Error::refused(
            ErrorCode::Empty,
            "name a results file to import",
        ));
    }
    let names: Vec<String> = sources
        .iter()
        .map(|s| s.system.clone().unwrap_or_else(|| default_system(&s.path)))
        .collect();
    for (i, name) in names.iter().enumerate() {
        if name.trim().is_empty() {
            return Err(Error::refused(
                ErrorCode::Empty,
                format!(
                    "{}: the system needs a name (--system)",
                    sources[i].path.display()
                ),
            ));
        }
        if let Some(j) = names[..i].iter().position(|n| n == name) {
            return Err(Error::refused(
                ErrorCode::BadInput,
                format!(
                    "{} and {} would both be system {name:?}; name one with --system",
                    sources[j].path.display(),
                    sources[i].path.display()
                ),
            ));
        }
    }
    let ids: TaskIds = project
        .store
        .case_instance_ids()?
        .into_iter()
        .map(|(id, instance)| (instance, id))
        .collect();
    let files = read_all(sources, &ids)?;
    let tasks = ids.len();
    let at = stamp(now);
    let mut reports = Vec::with_capacity(files.len());
    let mut rows = Vec::with_capacity(files.len());
    for ((source, name), file) in sources.iter().zip(&names).zip(files) {
        let origin = source.path.display().to_string();
        let mentioned = file.submitted + file.unknown;
        if file.submitted == 0 {
            return Err(Error::refused(
                ErrorCode::BadInput,
                format!(
                    "{origin}: {} in the project; nothing was stored (import the tasks first)",
                    match mentioned {
                        1 => "its one task is not".to_string(),
                        n => format!("none of its {n} tasks is"),
                    }
                ),
            ));
        }
        let resolved = file.resolved;
        let mut warnings = Vec::new();
        if file.unknown > 0 {
            warnings.push(format!(
                "{origin}: {} of its {mentioned} task ids {} not in the project and {} left out: {}{}",
                file.unknown,
                if file.unknown == 1 { "is" } else { "are" },
                if file.unknown == 1 { "was" } else { "were" },
                file.unknown_named.join(", "),
                if file.unknown > file.unknown_named.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        reports.push(ResultsImport {
            system: name.clone(),
            format: file.format.name().to_string(),
            origin: origin.clone(),
            tasks,
            submitted: file.submitted,
            resolved,
            unknown_ids: file.unknown,
            replaced: false,
            warnings,
        });
        rows.push((
            SystemRow {
                name: name.clone(),
                format: file.format.name().to_string(),
                origin,
                submitted: file.submitted as i64,
                resolved: resolved as i64,
                imported_at: at.clone(),
            },
            file.outcomes,
        ));
    }
    let replaced = project.store.put_system_results(&rows)?;
    for (report, replaced) in reports.iter_mut().zip(replaced) {
        report.replaced = replaced;
    }
    Ok(reports)
}

/// The project's task ids to case row ids, hashed with foldhash: looking up five million ids
/// with the standard library's SipHash took a tenth of an import of 100 files.
type TaskIds = HashMap<String, i64, foldhash::fast::FixedState>;

/// A results file matched to the project's cases.
struct MatchedFile {
    format: ResultsFormat,
    /// Its outcomes on the project's tasks, as stored: encoded by the thread that read the
    /// file, so that a hundred systems' outcomes wait for the store at a few bytes a task.
    outcomes: EncodedOutcomes,
    /// The project's tasks the file mentions.
    submitted: usize,
    /// Of those, the ones resolved.
    resolved: usize,
    /// Ids the project does not hold.
    unknown: usize,
    /// The first of them, as a warning names them.
    unknown_named: Vec<String>,
}

/// How many of the ids a project lacks a warning names.
const UNKNOWN_NAMED: usize = 3;

/// Reads every file and matches its ids to the project's cases, on as many threads as the
/// machine has cores (at most one a file); each file's ids are let go once matched, so a
/// hundred files of 50,000 tasks never sit in memory as text together.
fn read_all(sources: &[ResultsSource], ids: &TaskIds) -> Result<Vec<MatchedFile>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(sources.len())
        .max(1);
    let chunk = sources.len().div_ceil(threads);
    let results: Vec<Result<Vec<MatchedFile>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = sources
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    // One buffer for the thread's files, each read over the last.
                    let mut buffer = Vec::new();
                    part.iter()
                        .map(|s| {
                            let file = read_results(&s.path, &mut buffer)?;
                            let (outcomes, unknown, unknown_named) = match_ids(ids, &file);
                            Ok(MatchedFile {
                                format: file.format,
                                outcomes: EncodedOutcomes::new(&outcomes),
                                submitted: outcomes.len(),
                                resolved: outcomes.iter().filter(|(_, r)| *r).count(),
                                unknown,
                                unknown_named,
                            })
                        })
                        .collect::<Result<Vec<_>>>()
                })
            })
            .collect();
        handles.into_iter().map(joined).collect()
    });
    let mut files = Vec::with_capacity(sources.len());
    for part in results {
        files.extend(part?);
    }
    Ok(files)
}

/// The file's outcomes on the project's cases, how many of its ids the project lacks, and the
/// first [`UNKNOWN_NAMED`] of those. A SWE-bench Pro key is tried without its `instance_` prefix
/// when the project has no task by the whole key.
fn match_ids(ids: &TaskIds, file: &ResultsFile<'_>) -> (Outcomes, usize, Vec<String>) {
    let mut outcomes = Vec::with_capacity(file.outcomes.len());
    let mut unknown = 0;
    let mut named = Vec::new();
    for outcome in &file.outcomes {
        let id = &outcome.instance_id[..];
        let found = ids.get(id).or_else(|| {
            id.strip_prefix("instance_")
                .and_then(|short| ids.get(short))
        });
        match found {
            Some(case_id) => outcomes.push((*case_id, outcome.resolved)),
            None => {
                unknown += 1;
                if named.len() < UNKNOWN_NAMED {
                    named.push(id.to_string());
                }
            }
        }
    }
    (outcomes, unknown, named)
}

/// Every system's stored results, by name. A coordinator function.
pub fn list_results(project: &Project) -> Result<Vec<SystemResults>> {
    project.require_coordinator("reads systems' results")?;
    Ok(project
        .store
        .system_rows()?
        .into_iter()
        .map(|r| SystemResults {
            system: r.name,
            format: r.format,
            origin: r.origin,
            submitted: r.submitted as usize,
            resolved: r.resolved as usize,
            imported_at: r.imported_at,
        })
        .collect())
}

/// Removes a system's results. A coordinator function.
pub fn remove_results(project: &mut Project, system: &str) -> Result<()> {
    project.require_coordinator("removes systems' results")?;
    if project.store.remove_system_results(system)? {
        Ok(())
    } else {
        Err(Error::NotFound(format!(
            "the project holds no results of system {system:?}"
        )))
    }
}
