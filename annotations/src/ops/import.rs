//! Importing tasks (SWE-bench and SWE-bench Pro rows, audit folders) and OpenAI's annotation
//! files, all or nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use serde_json::{Map, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use ts_rs::TS;

use super::{Error, ErrorCode, Project, Result, stamp};
use crate::import::openai_csv::{self, OpenAiFile};
use crate::import::{self, Format, ImportError};
use verity_store::{EventKind, ImportBatch, NewAnswerEvent, StoreError, new_event_uid};
use verity_task::questionnaire::{Questionnaire, Stage};

/// How far an import has got, for a progress bar.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ImportProgress {
    /// The path being read.
    pub path: String,
    /// Paths finished so far.
    pub paths_done: usize,
    /// Paths in all.
    pub paths_total: usize,
    /// Records read so far.
    pub records: usize,
}

/// What one input path held.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ImportedPath {
    /// The path.
    pub path: String,
    /// The format detected.
    pub format: String,
    /// Records read.
    pub records: usize,
    /// The fields the records carried that Verity keeps (exports and `case show --json` give
    /// them) but no rater is shown, in name order.
    pub kept_fields: Vec<String>,
}

/// The result of an import.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ImportReport {
    /// Cases that did not exist before.
    pub added: usize,
    /// Cases whose content changed (each got a new revision).
    pub updated: usize,
    /// Cases already there with this content.
    pub unchanged: usize,
    /// Per input path.
    pub paths: Vec<ImportedPath>,
}

/// Imports tasks from files and folders, the format of each detected from its content. All or
/// nothing: any bad record, or a cancel, stores nothing.
pub fn import_paths(
    project: &mut Project,
    paths: &[PathBuf],
    now: OffsetDateTime,
    progress: &mut dyn FnMut(&ImportProgress),
    cancel: &AtomicBool,
) -> Result<ImportReport> {
    let inputs: Vec<(PathBuf, Option<String>)> =
        paths.iter().map(|path| (path.clone(), None)).collect();
    import_inputs(project, &inputs, now, progress, cancel)
}

/// Imports files as [`import_paths`] does; a file given with a label is a dataset file (JSON
/// lines or Parquet) whose records name the label as their origin: where it was downloaded from.
pub(super) fn import_inputs(
    project: &mut Project,
    inputs: &[(PathBuf, Option<String>)],
    now: OffsetDateTime,
    progress: &mut dyn FnMut(&ImportProgress),
    cancel: &AtomicBool,
) -> Result<ImportReport> {
    project.require_coordinator("imports tasks")?;
    let now = stamp(now);
    let mut session = project.store.begin_import(&now).map_err(went_away)?;
    let mut reports = Vec::new();
    let mut records = 0usize;
    for (done, (path, label)) in inputs.iter().enumerate() {
        let file = match label {
            Some(_) => None,
            None => import::openai_csv::detect(path)?,
        };
        if let Some(file) = file {
            reports.push(
                import_openai_file(
                    session.as_mut(),
                    &project.questionnaire,
                    project.questionnaire_row,
                    path,
                    file,
                    &now,
                )
                .map_err(went_away)?,
            );
            continue;
        }
        let shown = label.clone().unwrap_or_else(|| path.display().to_string());
        let mut count = 0usize;
        let mut kept = std::collections::BTreeSet::new();
        let format = read_beside(path, label.as_deref(), &mut |sourced| {
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            for field in sourced.record.value.extra.keys() {
                if !kept.contains(field) {
                    kept.insert(field.clone());
                }
            }
            session
                .put_record(sourced.kind, &sourced.origin, &sourced.record)
                .map_err(went_away)?;
            count += 1;
            records += 1;
            if records.is_multiple_of(64) {
                progress(&ImportProgress {
                    path: shown.clone(),
                    paths_done: done,
                    paths_total: inputs.len(),
                    records,
                });
            }
            Ok(())
        })?;
        tracing::info!(path = %shown, ?format, records = count, "read import path");
        reports.push(ImportedPath {
            path: shown.clone(),
            format: match format {
                Format::SweBench => "swe-bench",
                Format::SweBenchPro => "swe-bench-pro",
                Format::AuditFolder => "audit-folder",
                Format::AuditFolders => "audit-folders",
            }
            .into(),
            records: count,
            kept_fields: kept.into_iter().collect(),
        });
        progress(&ImportProgress {
            path: shown,
            paths_done: done + 1,
            paths_total: inputs.len(),
            records,
        });
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Cancelled);
    }
    let summary = session.finish().map_err(|err| match err {
        StoreError::Unavailable { location, reason } => Error::refused(
            ErrorCode::ServerUnavailable,
            format!(
                "the project's server at {location} went away as the import was being committed ({reason}): whether it was stored is unknown until the server is back; importing the same files again is safe"
            ),
        ),
        other => other.into(),
    })?;
    tracing::info!(?summary, "import committed");
    Ok(ImportReport {
        added: summary.added,
        updated: summary.updated,
        unchanged: summary.unchanged,
        paths: reports,
    })
}

/// An import's error, saying that nothing was stored when the server went away before the
/// import's one transaction was committed.
fn went_away(err: impl Into<Error>) -> Error {
    match err.into() {
        Error::Store(StoreError::Unavailable { location, reason }) => Error::refused(
            ErrorCode::ServerUnavailable,
            format!(
                "the project's server at {location} went away during the import ({reason}); nothing was stored: import again once it is back"
            ),
        ),
        other => other,
    }
}

/// Reads the records of `path` on a thread of their own (parsing and encoding each), handing
/// them to `store` on this one as they come: the two halves of an import use two cores. The
/// reader runs at most a few records ahead. The first error wins: a failed store stops the
/// reader, and a failed read ends the import after the records before it were stored.
fn read_beside(
    path: &Path,
    label: Option<&str>,
    store: &mut dyn FnMut(import::SourcedRecord) -> Result<()>,
) -> Result<Format> {
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::sync_channel(16);
        let reader = scope.spawn(move || {
            // A send fails only once the storing side stopped, whose error is the one told.
            let mut sink = |mut sourced: import::SourcedRecord| {
                verity_store::pack_ahead(&mut sourced.record);
                send.send(sourced).map_err(|_| Error::Cancelled)
            };
            match label {
                Some(label) => import::read_dataset_as(path, label, &mut sink),
                None => import::read_path(path, &mut sink),
            }
        });
        let stored = receive.into_iter().try_for_each(&mut *store);
        let read = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        stored.and(read)
    })
}

/// Normalises a time as OpenAI wrote it (`2024-06-12 10:31:05.123+00:00`, with a `T`, a `Z` or
/// ` UTC`) to RFC 3339 for the answer event; the text as written is kept for exports.
fn normalise_time(text: &str) -> Option<String> {
    let text = text.trim();
    if let Ok(t) = OffsetDateTime::parse(text, &Rfc3339) {
        return Some(stamp(t));
    }
    let mut candidate = text.replacen(' ', "T", 1);
    if let Some(stripped) = candidate.strip_suffix(" UTC") {
        candidate = format!("{stripped}Z");
    }
    let has_offset = candidate.ends_with('Z')
        || candidate
            .get(candidate.len().saturating_sub(6)..)
            .is_some_and(|tail| tail.starts_with('+') || tail.starts_with('-'));
    if !has_offset {
        candidate.push('Z');
    }
    OffsetDateTime::parse(&candidate, &Rfc3339).ok().map(stamp)
}

fn violations_error(
    path: &Path,
    line: u64,
    project: &Questionnaire,
    values: &Map<String, Value>,
) -> Option<ImportError> {
    let violations = project.validate(values, Stage::Draft);
    let first = violations.first()?;
    Some(ImportError::BadField {
        path: path.to_path_buf(),
        at: format!("line {line}"),
        field: first.question.clone(),
        reason: format!(
            "does not fit questionnaire {}: {}",
            project.id, first.message
        ),
    })
}

/// Imports one of OpenAI's annotation files inside the running import: the per-annotator file
/// as submitted answers (one rater per `user_id`), the ensembled file as a reference label set
/// named after the file. Tasks the project lacks are created by id alone, marked as lacking
/// materials.
fn import_openai_file(
    session: &mut dyn ImportBatch,
    questionnaire: &Questionnaire,
    questionnaire_row: i64,
    path: &Path,
    file: OpenAiFile,
    now: &str,
) -> Result<ImportedPath> {
    let origin = path.display().to_string();
    let records = match file {
        OpenAiFile::Annotations => {
            let mut seen: HashMap<(String, String), u64> = HashMap::new();
            let mut on_row = |row: openai_csv::AnnotationRow| -> Result<(), Error> {
                let bad = |field: &str, reason: String| ImportError::BadField {
                    path: path.to_path_buf(),
                    at: format!("line {}", row.line),
                    field: field.to_string(),
                    reason,
                };
                if let Some(first) =
                    seen.insert((row.instance_id.clone(), row.user_id.clone()), row.line)
                {
                    return Err(bad(
                        "user_id",
                        format!(
                            "repeats annotator {} on {}, already rated on line {first}",
                            row.user_id, row.instance_id
                        ),
                    )
                    .into());
                }
                if let Some(err) = violations_error(path, row.line, questionnaire, &row.answers) {
                    return Err(err.into());
                }
                let submitted = row
                    .times
                    .get("submitted_at")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if submitted.trim().is_empty() {
                    return Err(bad(
                        "submitted_at",
                        "is empty: an imported rating must be a submitted answer".into(),
                    )
                    .into());
                }
                let at = normalise_time(submitted).unwrap_or_else(|| submitted.to_string());
                session.ensure_case(&row.instance_id, &origin)?;
                let (case_id, revision_id) = session.revision_for_answers(&row.instance_id)?;
                let rater_id = session.ensure_rater(&row.user_id, now)?;
                if let Some((answers, _)) = session.submission_of(case_id, rater_id)? {
                    if answers == row.answers {
                        return Ok(());
                    }
                    return Err(Error::refused(
                        ErrorCode::AlreadySubmitted,
                        format!(
                            "{}, line {}: rater {} already submitted a different answer on {} in this project; a submitted answer is never overwritten",
                            path.display(),
                            row.line,
                            row.user_id,
                            row.instance_id
                        ),
                    ));
                }
                session.append_imported_answer(
                    &NewAnswerEvent {
                        uid: &new_event_uid(),
                        case_id,
                        rater_id,
                        case_revision_id: revision_id,
                        questionnaire_id: questionnaire_row,
                        kind: EventKind::Submit,
                        answer_revision: 1,
                        answer: &row.answers,
                        reason: None,
                        at: &at,
                    },
                    &format!("{origin}:line {}", row.line),
                    &row.times,
                )?;
                Ok(())
            };
            openai_csv::read_annotations(path, &mut on_row)?
        }
        OpenAiFile::Ensembled => {
            let set = path.file_stem().map_or_else(
                || "reference".to_string(),
                |s| s.to_string_lossy().into_owned(),
            );
            let mut seen: HashMap<String, u64> = HashMap::new();
            let mut on_row = |row: openai_csv::EnsembledRow| -> Result<(), Error> {
                if let Some(first) = seen.insert(row.instance_id.clone(), row.line) {
                    return Err(ImportError::Duplicate {
                        path: path.to_path_buf(),
                        at: format!("line {}", row.line),
                        first: format!("line {first}"),
                        instance_id: row.instance_id,
                    }
                    .into());
                }
                if let Some(err) =
                    violations_error(path, row.line, questionnaire, &row.labels.values)
                {
                    return Err(err.into());
                }
                session.ensure_case(&row.instance_id, &origin)?;
                let case_id = session.case_row_id(&row.instance_id)?.ok_or_else(|| {
                    Error::NotFound(format!("the project has no case {:?}", row.instance_id))
                })?;
                let labels = serde_json::to_value(&row.labels).map_err(|source| Error::Encode {
                    what: "reference labels",
                    source,
                })?;
                session.put_reference_label(
                    &set,
                    case_id,
                    &labels,
                    &format!("{origin}:line {}", row.line),
                    now,
                )?;
                Ok(())
            };
            openai_csv::read_ensembled(path, &mut on_row)?
        }
    };
    Ok(ImportedPath {
        path: origin,
        format: match file {
            OpenAiFile::Annotations => "openai-annotations".into(),
            OpenAiFile::Ensembled => format!(
                "openai-ensembled (reference set {})",
                path.file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
            ),
        },
        records,
        kept_fields: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_times_become_rfc3339() {
        assert_eq!(
            normalise_time("2024-06-12 10:31:05.5+00:00").as_deref(),
            Some("2024-06-12T10:31:05.5Z")
        );
        assert_eq!(
            normalise_time("2024-06-12 10:31:05 UTC").as_deref(),
            Some("2024-06-12T10:31:05Z")
        );
        assert_eq!(normalise_time("yesterday"), None);
    }
}
