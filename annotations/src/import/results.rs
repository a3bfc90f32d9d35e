//! One system's per-task outcomes on a benchmark, in the formats they are published in, told
//! apart by content:
//! - the SWE-bench harness's run summary, every version `swebench/harness/reporting.py` (and
//!   `run_evaluation.py` before it) has written: `resolved_ids`, `completed_ids`, `error_ids`,
//!   with or without `unresolved_ids`, `empty_patch_ids`, `submitted_ids`, `incomplete_ids` (the
//!   dataset's tasks that got no prediction), `infra_failure_ids`, `ambiguous_failure_ids`,
//!   `failure_reasons`, the containers and images left over, and `schema_version`;
//! - the harness's per-task `report.json` maps (`{iid: {"resolved": bool, ...}}`), one file or
//!   a folder of them at any depth;
//! - the experiments repository's `results.json` (`{"resolved": [...], "no_generation": [...],
//!   ...}`, with or without its older keys);
//! - Scale's SWE-bench Pro `eval_results.json` (`{"instance_<id>": true | false}`);
//! - CSV or JSON lines with `instance_id` and `resolved` (true/false, 1/0).
//!
//! Every task a file mentions was submitted, but for a summary's `incomplete_ids`; whether it
//! was resolved is what the file says, and a task not submitted counts as not resolved. A task
//! named twice, resolved in one list and failed in another, or both submitted and not, refuses
//! the whole file.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::ImportError;

mod json;

use json::{Entries, Json, Scalar, parse_object};

/// The formats a system's outcomes are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultsFormat {
    /// The SWE-bench harness's run summary.
    HarnessSummary,
    /// Per-task `report.json` maps, one file or a folder.
    TaskReports,
    /// The experiments repository's `results.json`.
    ExperimentsResults,
    /// SWE-bench Pro's `eval_results.json`.
    ProEvalResults,
    /// CSV with `instance_id` and `resolved` columns.
    Csv,
    /// JSON lines with `instance_id` and `resolved`.
    JsonLines,
}

impl ResultsFormat {
    /// The name shown to users and stored with the results.
    pub fn name(self) -> &'static str {
        match self {
            ResultsFormat::HarnessSummary => "swe-bench-run-summary",
            ResultsFormat::TaskReports => "swe-bench-reports",
            ResultsFormat::ExperimentsResults => "experiments-results",
            ResultsFormat::ProEvalResults => "swe-bench-pro-eval-results",
            ResultsFormat::Csv => "csv",
            ResultsFormat::JsonLines => "jsonl",
        }
    }
}

/// One task's outcome as a file states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome<'a> {
    /// The task's id as written, borrowed from the file's text unless it had escapes.
    pub instance_id: Cow<'a, str>,
    /// Whether the system resolved it.
    pub resolved: bool,
}

/// A system's outcomes read from a file or folder: each task once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultsFile<'a> {
    /// The format found.
    pub format: ResultsFormat,
    /// Every task the file mentions, in the file's order.
    pub outcomes: Vec<Outcome<'a>>,
}

/// What a list of a summary says of the tasks it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListRole {
    /// Submitted, and resolved (`true`) or not.
    Verdict(bool),
    /// Submitted, nothing more (the list of predictions, the tasks evaluated).
    Submitted,
    /// Not submitted: the dataset's tasks that got no prediction.
    NotSubmitted,
    /// Not tasks (containers, images left over).
    Ignored,
}

/// The harness summary's lists. The failure classes (`infra_failure_ids`,
/// `ambiguous_failure_ids`) name tasks of `unresolved_ids` or `error_ids` again.
const SUMMARY_LISTS: &[(&str, ListRole)] = &[
    ("resolved_ids", ListRole::Verdict(true)),
    ("unresolved_ids", ListRole::Verdict(false)),
    ("error_ids", ListRole::Verdict(false)),
    ("empty_patch_ids", ListRole::Verdict(false)),
    ("infra_failure_ids", ListRole::Verdict(false)),
    ("ambiguous_failure_ids", ListRole::Verdict(false)),
    ("completed_ids", ListRole::Submitted),
    ("submitted_ids", ListRole::Submitted),
    ("incomplete_ids", ListRole::NotSubmitted),
    ("unstopped_containers", ListRole::Ignored),
    ("unremoved_images", ListRole::Ignored),
];

/// The experiments repository's lists, new and old.
const EXPERIMENT_LISTS: &[(&str, ListRole)] = &[
    ("resolved", ListRole::Verdict(true)),
    ("no_generation", ListRole::Verdict(false)),
    ("no_logs", ListRole::Verdict(false)),
    ("no_apply", ListRole::Verdict(false)),
    ("install_fail", ListRole::Verdict(false)),
    ("reset_failed", ListRole::Verdict(false)),
    ("test_errored", ListRole::Verdict(false)),
    ("test_timeout", ListRole::Verdict(false)),
    ("generated", ListRole::Submitted),
    ("with_logs", ListRole::Submitted),
    ("applied", ListRole::Submitted),
];

/// Reads a system's outcomes from `path` (a file, or a folder of `report.json` files). A
/// file's text goes into `buffer`, whose room is kept for the next file, and the ids are
/// borrowed from it.
pub fn read_results<'a>(
    path: &Path,
    buffer: &'a mut Vec<u8>,
) -> Result<ResultsFile<'a>, ImportError> {
    let io = |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.is_dir() {
        return read_report_folder(path);
    }
    buffer.clear();
    file.read_to_end(buffer).map_err(io)?;
    let text = std::str::from_utf8(buffer).map_err(|e| ImportError::NotUtf8 {
        path: path.to_path_buf(),
        line: line_at(buffer, e.valid_up_to()),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text.trim_start();
    if body.is_empty() {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: "the file is empty".into(),
        });
    }
    if !body.starts_with('{') {
        return read_csv(path, text);
    }
    // The first line is the first row of JSON lines, or the whole of a one-line object: read
    // once either way.
    let first_line = body.lines().next().unwrap_or_default();
    let entries = match parse_object(first_line) {
        Ok(row) if row.iter().any(|(k, _)| k == "instance_id") => {
            return read_json_lines(path, text);
        }
        Ok(entries) if first_line.len() == body.trim_end().len() => no_repeated_key(path, entries)?,
        _ => read_object(path, text)?,
    };
    let has = |key: &str| entries.iter().any(|(k, _)| k == key);
    if has("resolved_ids") {
        return from_lists(path, ResultsFormat::HarnessSummary, SUMMARY_LISTS, entries);
    }
    if entries
        .iter()
        .any(|(k, v)| k == "resolved" && matches!(v, Json::List(_)))
    {
        return from_lists(
            path,
            ResultsFormat::ExperimentsResults,
            EXPERIMENT_LISTS,
            entries,
        );
    }
    if !entries.is_empty()
        && entries
            .iter()
            .all(|(_, v)| matches!(v, Json::Scalar(Scalar::Bool(_))))
    {
        let outcomes = entries
            .into_iter()
            .map(|(instance_id, v)| Outcome {
                instance_id,
                resolved: matches!(v, Json::Scalar(Scalar::Bool(true))),
            })
            .collect();
        return Ok(ResultsFile {
            format: ResultsFormat::ProEvalResults,
            outcomes,
        });
    }
    if !entries.is_empty()
        && entries
            .iter()
            .all(|(_, v)| matches!(v, Json::Object { .. }))
    {
        let mut outcomes = Vec::with_capacity(entries.len());
        task_reports(path, entries, &mut outcomes)?;
        return Ok(ResultsFile {
            format: ResultsFormat::TaskReports,
            outcomes,
        });
    }
    Err(ImportError::UnknownFormat {
        path: path.to_path_buf(),
        reason: "this JSON object is no results format Verity knows: not a SWE-bench run summary (resolved_ids), a report.json map, an experiments results.json (resolved: [...]) or a SWE-bench Pro eval_results.json (id: true/false)".into(),
    })
}

/// The 1-based line of byte `offset`.
fn line_at(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1
}

/// A JSON document that must be one object, its keys in order and each key once.
fn read_object<'a>(path: &Path, text: &'a str) -> Result<Entries<'a>, ImportError> {
    let entries = parse_object(text).map_err(|e| ImportError::Json {
        path: path.to_path_buf(),
        at: format!("line {}", e.line()),
        reason: e.to_string(),
    })?;
    no_repeated_key(path, entries)
}

/// The entries, refused when a key comes twice.
fn no_repeated_key<'a>(path: &Path, entries: Entries<'a>) -> Result<Entries<'a>, ImportError> {
    let mut keys = FastSet::with_capacity_and_hasher(entries.len(), Default::default());
    if let Some((key, _)) = entries.iter().find(|(k, _)| !keys.insert(&k[..])) {
        return Err(ImportError::RepeatedTask {
            path: path.to_path_buf(),
            instance_id: key.to_string(),
            place: "as a key of the object".into(),
        });
    }
    Ok(entries)
}

/// A set hashed with foldhash, quicker than the standard library's SipHash on long ids.
type FastSet<'a> = std::collections::HashSet<&'a str, foldhash::fast::FixedState>;

/// What a summary's lists said of one task so far.
struct Seen {
    /// The first list that named it.
    first: usize,
    /// Its verdict, and the list that gave it.
    verdict: Option<(bool, usize)>,
}

/// A summary of id lists: each list's ids must be strings, named once in the list; no task
/// both resolved and failed, and none both submitted and not. A task of `submitted_ids`, when
/// the summary has it, is the only kind another list may name; one in a list of tasks not
/// submitted is left out (it counts as not resolved).
fn from_lists<'a>(
    path: &Path,
    format: ResultsFormat,
    known: &[(&str, ListRole)],
    entries: Entries<'a>,
) -> Result<ResultsFile<'a>, ImportError> {
    let mut lists: Vec<(Cow<'a, str>, ListRole, Vec<Scalar<'a>>)> = Vec::new();
    for (key, value) in entries {
        let Some(&(_, role)) = known.iter().find(|(k, _)| *k == key) else {
            if matches!(value, Json::List(_)) || key.ends_with("_ids") {
                return Err(ImportError::BadField {
                    path: path.to_path_buf(),
                    at: "the top-level object".into(),
                    field: key.into_owned(),
                    reason: format!(
                        "is not a list of the {} format (it has {})",
                        format.name(),
                        known.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
                    ),
                });
            }
            continue;
        };
        if role == ListRole::Ignored {
            continue;
        }
        let Json::List(ids) = value else {
            return Err(ImportError::BadField {
                path: path.to_path_buf(),
                at: "the top-level object".into(),
                field: key.into_owned(),
                reason: "must be a list of task ids".into(),
            });
        };
        lists.push((key, role, ids));
    }
    // Each submitted task's verdict and the lists that gave it, borrowing the ids from the
    // lists; the tasks not submitted, with their list.
    let mut order: Vec<&Cow<'a, str>> = Vec::new();
    let mut seen: HashMap<&str, Seen, foldhash::fast::FixedState> = Default::default();
    let mut not_submitted: Vec<(&str, usize)> = Vec::new();
    let mut submitted: Option<FastSet<'_>> = None;
    for (l, (key, role, ids)) in lists.iter().enumerate() {
        let mut in_list = FastSet::with_capacity_and_hasher(ids.len(), Default::default());
        for (i, item) in ids.iter().enumerate() {
            let Scalar::Str(cow) = item else {
                return Err(ImportError::BadField {
                    path: path.to_path_buf(),
                    at: format!("item {}", i + 1),
                    field: key.to_string(),
                    reason: "must hold task ids as strings".into(),
                });
            };
            let id = cow.as_ref();
            if !in_list.insert(id) {
                return Err(ImportError::RepeatedTask {
                    path: path.to_path_buf(),
                    instance_id: id.to_string(),
                    place: format!("in {key}"),
                });
            }
            if *role == ListRole::NotSubmitted {
                not_submitted.push((id, l));
                continue;
            }
            if key == "submitted_ids" {
                submitted.get_or_insert_with(Default::default).insert(id);
            }
            let slot = seen.entry(id).or_insert_with(|| {
                order.push(cow);
                Seen {
                    first: l,
                    verdict: None,
                }
            });
            if let ListRole::Verdict(resolved) = *role {
                match slot.verdict {
                    Some((earlier, first)) if earlier != resolved => {
                        return Err(ImportError::Contradiction {
                            path: path.to_path_buf(),
                            instance_id: id.to_string(),
                            first: lists[first].0.to_string(),
                            second: key.to_string(),
                        });
                    }
                    Some(_) => {}
                    None => slot.verdict = Some((resolved, l)),
                }
            }
        }
    }
    // A task no prediction was made for is in no other list.
    for (id, l) in not_submitted {
        if let Some(other) = seen.get(id) {
            let (first, second) = (other.first.min(l), other.first.max(l));
            return Err(ImportError::Contradiction {
                path: path.to_path_buf(),
                instance_id: id.to_string(),
                first: lists[first].0.to_string(),
                second: lists[second].0.to_string(),
            });
        }
    }
    if let Some(submitted) = &submitted
        && let Some(outside) = order.iter().find(|id| !submitted.contains(&id[..]))
    {
        return Err(ImportError::BadField {
            path: path.to_path_buf(),
            at: "the top-level object".into(),
            field: "submitted_ids".into(),
            reason: format!(
                "lacks {outside}, which another list of the summary names as submitted"
            ),
        });
    }
    let outcomes = order
        .into_iter()
        .map(|id| Outcome {
            resolved: seen
                .get(&id[..])
                .and_then(|s| s.verdict)
                .is_some_and(|(r, _)| r),
            instance_id: id.clone(),
        })
        .collect();
    Ok(ResultsFile { format, outcomes })
}

/// Entries of a `report.json` map: each value an object with a boolean `resolved`.
fn task_reports<'a>(
    path: &Path,
    entries: Entries<'a>,
    out: &mut Vec<Outcome<'a>>,
) -> Result<(), ImportError> {
    for (instance_id, value) in entries {
        let Json::Object {
            resolved: Some(Scalar::Bool(resolved)),
            ..
        } = value
        else {
            return Err(ImportError::BadField {
                path: path.to_path_buf(),
                at: format!("task {instance_id}"),
                field: "resolved".into(),
                reason: "must be true or false in every task's report".into(),
            });
        };
        out.push(Outcome {
            instance_id,
            resolved,
        });
    }
    Ok(())
}

/// Every `report.json` under `root`, at any depth, in path order; without any, every `.json`
/// file directly inside. The ids are copied out of each file's text.
fn read_report_folder<'a>(root: &Path) -> Result<ResultsFile<'a>, ImportError> {
    let mut files = Vec::new();
    collect_reports(root, &mut files)?;
    if files.is_empty() {
        let entries = std::fs::read_dir(root).map_err(|source| ImportError::Io {
            path: root.to_path_buf(),
            source,
        })?;
        for entry in entries {
            let path = entry
                .map_err(|source| ImportError::Io {
                    path: root.to_path_buf(),
                    source,
                })?
                .path();
            if path.is_file() && path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(ImportError::UnknownFormat {
            path: root.to_path_buf(),
            reason: "this folder holds no report.json and no .json file".into(),
        });
    }
    let mut outcomes = Vec::new();
    let mut first_file: HashMap<String, PathBuf> = HashMap::new();
    let mut buffer = Vec::new();
    for file in files {
        let read = read_results(&file, &mut buffer)?;
        if read.format != ResultsFormat::TaskReports {
            return Err(ImportError::UnknownFormat {
                path: file,
                reason: format!(
                    "a folder of results holds report.json maps only, and this file is {}",
                    read.format.name()
                ),
            });
        }
        for outcome in read.outcomes {
            let instance_id = outcome.instance_id.into_owned();
            if let Some(first) = first_file.get(&instance_id) {
                return Err(ImportError::RepeatedTask {
                    path: file,
                    instance_id,
                    place: format!("after {}", first.display()),
                });
            }
            first_file.insert(instance_id.clone(), file.clone());
            outcomes.push(Outcome {
                instance_id: Cow::Owned(instance_id),
                resolved: outcome.resolved,
            });
        }
    }
    Ok(ResultsFile {
        format: ResultsFormat::TaskReports,
        outcomes,
    })
}

fn collect_reports(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ImportError> {
    let io = |source| ImportError::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        if entry.file_type().map_err(io)?.is_dir() {
            collect_reports(&path, out)?;
        } else if entry.file_name() == "report.json" {
            out.push(path);
        }
    }
    Ok(())
}

/// A `resolved` cell: true/false (any case) or 1/0.
fn parse_resolved(text: &str) -> Option<bool> {
    let text = text.trim();
    if text == "1" || text.eq_ignore_ascii_case("true") {
        Some(true)
    } else if text == "0" || text.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// Refuses a task named on two lines, naming the lines of the first repeat: `lines[i]` is the
/// line of `outcomes[i]`.
fn no_repeated_line(
    path: &Path,
    outcomes: &[Outcome<'_>],
    lines: &[usize],
) -> Result<(), ImportError> {
    let mut seen: HashMap<&str, usize, foldhash::fast::FixedState> =
        HashMap::with_capacity_and_hasher(outcomes.len(), Default::default());
    for (i, outcome) in outcomes.iter().enumerate() {
        if let Some(first) = seen.insert(&outcome.instance_id[..], i) {
            return Err(ImportError::RepeatedTask {
                path: path.to_path_buf(),
                instance_id: outcome.instance_id.to_string(),
                place: format!("on line {} (first on line {})", lines[i], lines[first]),
            });
        }
    }
    Ok(())
}

fn read_json_lines<'a>(path: &Path, text: &'a str) -> Result<ResultsFile<'a>, ImportError> {
    let mut outcomes = Vec::new();
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |field: &str, reason: &str| ImportError::BadField {
            path: path.to_path_buf(),
            at: format!("line {at}"),
            field: field.into(),
            reason: reason.into(),
        };
        let missing = |field| ImportError::MissingField {
            path: path.to_path_buf(),
            at: format!("line {at}"),
            field,
        };
        let row: Json<'a> = serde_json::from_str(line).map_err(|e| ImportError::Json {
            path: path.to_path_buf(),
            at: format!("line {at}"),
            reason: e.to_string(),
        })?;
        let Json::Object {
            instance_id,
            resolved,
        } = row
        else {
            return Err(missing("instance_id"));
        };
        let Scalar::Str(instance_id) = instance_id.ok_or_else(|| missing("instance_id"))? else {
            return Err(bad("instance_id", "must be a string"));
        };
        let resolved = match resolved.ok_or_else(|| missing("resolved"))? {
            Scalar::Bool(b) => Some(b),
            Scalar::Count(1) => Some(true),
            Scalar::Count(0) => Some(false),
            Scalar::Str(s) => parse_resolved(&s),
            Scalar::Count(_) | Scalar::Other => None,
        }
        .ok_or_else(|| bad("resolved", "must be true or false (or 1 or 0)"))?;
        outcomes.push(Outcome {
            instance_id,
            resolved,
        });
        lines.push(at);
    }
    no_repeated_line(path, &outcomes, &lines)?;
    Ok(ResultsFile {
        format: ResultsFormat::JsonLines,
        outcomes,
    })
}

fn read_csv<'a>(path: &Path, text: &'a str) -> Result<ResultsFile<'a>, ImportError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let csv_err = |e: csv::Error| ImportError::Json {
        path: path.to_path_buf(),
        at: format!("line {}", e.position().map_or(0, |p| p.line())),
        reason: format!("not valid CSV: {e}"),
    };
    let headers = reader.headers().map_err(csv_err)?.clone();
    let column = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (Some(id_col), Some(resolved_col)) = (column("instance_id"), column("resolved")) else {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: "no results format Verity knows: a CSV of results needs the columns instance_id and resolved in its first line".into(),
        });
    };
    let mut outcomes = Vec::new();
    let mut lines = Vec::new();
    // One record, read into again for each line.
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record).map_err(csv_err)? {
        let line = record.position().map_or(0, |p| p.line() as usize);
        let id = record.get(id_col).unwrap_or_default().trim();
        if id.is_empty() {
            return Err(ImportError::BadField {
                path: path.to_path_buf(),
                at: format!("line {line}"),
                field: "instance_id".into(),
                reason: "is empty".into(),
            });
        }
        let cell = record.get(resolved_col).unwrap_or_default();
        let resolved = parse_resolved(cell).ok_or_else(|| ImportError::BadField {
            path: path.to_path_buf(),
            at: format!("line {line}"),
            field: "resolved".into(),
            reason: format!("is {cell:?}, and must be true or false (or 1 or 0)"),
        })?;
        outcomes.push(Outcome {
            instance_id: Cow::Owned(id.to_string()),
            resolved,
        });
        lines.push(line);
    }
    if outcomes.is_empty() {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: "the CSV has a header and no task".into(),
        });
    }
    no_repeated_line(path, &outcomes, &lines)?;
    Ok(ResultsFile {
        format: ResultsFormat::Csv,
        outcomes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's format and outcomes, the ids copied out of its text.
    #[derive(Debug)]
    struct Read {
        format: ResultsFormat,
        outcomes: Vec<(String, bool)>,
    }

    fn read_path(path: &Path) -> Result<Read, ImportError> {
        let mut buffer = Vec::new();
        let file = read_results(path, &mut buffer)?;
        Ok(Read {
            format: file.format,
            outcomes: file
                .outcomes
                .into_iter()
                .map(|o| (o.instance_id.into_owned(), o.resolved))
                .collect(),
        })
    }

    fn read(name: &str, text: &str) -> Result<Read, ImportError> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        read_path(&path)
    }

    fn pairs(file: &Read) -> Vec<(&str, bool)> {
        file.outcomes
            .iter()
            .map(|(id, resolved)| (id.as_str(), *resolved))
            .collect()
    }

    #[test]
    fn each_format_is_told_by_its_content() {
        let summary = read(
            "run.json",
            r#"{"schema_version": 2, "submitted_ids": ["a", "b", "c", "d"], "resolved_ids": ["a"],
                "unresolved_ids": ["b"], "error_ids": ["c"], "empty_patch_ids": ["d"],
                "infra_failure_ids": [], "total_instances": 500}"#,
        )
        .expect("summary");
        assert_eq!(summary.format, ResultsFormat::HarnessSummary);
        assert_eq!(
            pairs(&summary),
            [("a", true), ("b", false), ("c", false), ("d", false)]
        );
        let reports = read(
            "report.json",
            r#"{"x": {"resolved": true, "tests_status": {}}, "y": {"resolved": false}}"#,
        )
        .expect("reports");
        assert_eq!(reports.format, ResultsFormat::TaskReports);
        assert_eq!(pairs(&reports), [("x", true), ("y", false)]);
        let experiments = read(
            "results.json",
            r#"{"no_generation": ["n"], "no_logs": [], "resolved": ["r"], "generated": ["r"]}"#,
        )
        .expect("experiments");
        assert_eq!(experiments.format, ResultsFormat::ExperimentsResults);
        assert_eq!(pairs(&experiments), [("n", false), ("r", true)]);
        let pro = read(
            "eval_results.json",
            r#"{"instance_a": true, "instance_b": false}"#,
        )
        .expect("pro");
        assert_eq!(pro.format, ResultsFormat::ProEvalResults);
        let csv = read("r.csv", "instance_id,resolved,model\na,1,m\nb,False,m\n").expect("csv");
        assert_eq!(csv.format, ResultsFormat::Csv);
        assert_eq!(pairs(&csv), [("a", true), ("b", false)]);
        let jsonl = read(
            "r.jsonl",
            "{\"instance_id\": \"a\", \"resolved\": 0}\n{\"instance_id\": \"b\", \"resolved\": true}\n",
        )
        .expect("jsonl");
        assert_eq!(jsonl.format, ResultsFormat::JsonLines);
        assert_eq!(pairs(&jsonl), [("a", false), ("b", true)]);
    }

    #[test]
    fn repeated_and_contradictory_tasks_refuse_the_file() {
        let err = read("r.csv", "instance_id,resolved\na,1\nb,0\na,1\n").expect_err("twice");
        assert!(
            err.to_string().contains("a") && err.to_string().contains("line 4"),
            "{err}"
        );
        let err =
            read("e.json", r#"{"instance_a": true, "instance_a": false}"#).expect_err("key twice");
        assert!(err.to_string().contains("instance_a"), "{err}");
        let err = read(
            "run.json",
            r#"{"submitted_ids": ["a"], "resolved_ids": ["a"], "error_ids": ["a"]}"#,
        )
        .expect_err("both");
        assert!(
            err.to_string().contains("resolved_ids") && err.to_string().contains("error_ids"),
            "{err}"
        );
        let err = read(
            "run.json",
            r#"{"submitted_ids": ["a"], "resolved_ids": ["a", "b"]}"#,
        )
        .expect_err("not submitted");
        assert!(err.to_string().contains("submitted_ids"), "{err}");
        let err = read(
            "r.jsonl",
            "{\"instance_id\": \"a\", \"resolved\": \"maybe\"}\n",
        )
        .expect_err("bad value");
        assert!(err.to_string().contains("line 1"), "{err}");
        let err = read("x.json", r#"{"a": 1}"#).expect_err("unknown");
        assert!(err.to_string().contains("no results format"), "{err}");
        let err = read("x.json", "{\"a\": true,").expect_err("truncated");
        assert!(err.to_string().contains("not valid JSON"), "{err}");
    }

    /// Summaries as each version of the harness writes them (`swebench/harness/reporting.py`,
    /// `run_evaluation.py` before it), over a dataset of tasks a to g: a resolved, b not, c an
    /// error (its report empty, so completed too), d an empty patch, e and f without a
    /// prediction, g an error of the environment; `x` a prediction outside the dataset.
    const SUMMARIES: [(&str, &str); 5] = [
        (
            "schema 2 with failure classes",
            r#"{"total_instances": 7, "submitted_instances": 5, "completed_instances": 3,
                "resolved_instances": 1, "unresolved_instances": 1, "infra_failure_instances": 1,
                "ambiguous_failure_instances": 1, "empty_patch_instances": 1, "error_instances": 2,
                "completed_ids": ["a", "b", "c"], "incomplete_ids": ["e", "f"],
                "empty_patch_ids": ["d"], "submitted_ids": ["a", "b", "c", "d", "g", "x"],
                "resolved_ids": ["a"], "unresolved_ids": ["b"], "infra_failure_ids": ["g"],
                "ambiguous_failure_ids": ["b"], "failure_reasons": {"b": "timeout", "g": "docker"},
                "error_ids": ["c", "g"], "schema_version": 2}"#,
        ),
        (
            "schema 2 with the containers left",
            r#"{"total_instances": 7, "submitted_instances": 5, "completed_instances": 3,
                "resolved_instances": 1, "unresolved_instances": 1, "empty_patch_instances": 1,
                "error_instances": 2, "unstopped_instances": 0, "completed_ids": ["a", "b", "c"],
                "incomplete_ids": ["e", "f"], "empty_patch_ids": ["d"],
                "submitted_ids": ["a", "b", "c", "d", "g", "x"], "resolved_ids": ["a"],
                "unresolved_ids": ["b"], "error_ids": ["c", "g"], "unstopped_containers": [],
                "unremoved_images": ["sweb.eval.x86_64.a:latest"], "schema_version": 2}"#,
        ),
        (
            "July 2024, before schema_version",
            r#"{"total_instances": 7, "submitted_instances": 5, "completed_instances": 3,
                "resolved_instances": 1, "unresolved_instances": 1, "empty_patch_instances": 1,
                "error_instances": 2, "unstopped_instances": 0, "completed_ids": ["a", "b", "c"],
                "incomplete_ids": ["e", "f"], "empty_patch_ids": ["d"],
                "submitted_ids": ["a", "b", "c", "d", "g", "x"], "resolved_ids": ["a"],
                "unresolved_ids": ["b"], "error_ids": ["c", "g"], "unstopped_containers": [],
                "unremoved_images": []}"#,
        ),
        (
            "July 2024, without submitted_ids",
            r#"{"total_instances": 5, "completed_instances": 3, "resolved_instances": 1,
                "unresolved_instances": 1, "error_instances": 2, "unstopped_instances": 0,
                "completed_ids": ["a", "b", "c"], "resolved_ids": ["a"], "unresolved_ids": ["b"],
                "error_ids": ["c", "g"], "unstopped_containers": [], "unremoved_images": []}"#,
        ),
        (
            "June 2024, without unresolved_ids",
            r#"{"total_instances": 5, "completed_instances": 3, "resolved_instances": 1,
                "error_instances": 2, "unstopped_instances": 0, "completed_ids": ["a", "b", "c"],
                "resolved_ids": ["a"], "error_ids": ["c", "g"], "unstopped_containers": [],
                "unremoved_images": []}"#,
        ),
    ];

    #[test]
    fn every_summary_the_harness_writes_is_read_and_a_task_without_a_prediction_is_not_submitted() {
        for (version, text) in SUMMARIES {
            let summary = read("run.json", text).unwrap_or_else(|e| panic!("{version}: {e}"));
            assert_eq!(summary.format, ResultsFormat::HarnessSummary, "{version}");
            let mut outcomes = pairs(&summary);
            outcomes.sort_unstable();
            let submitted: Vec<&str> = outcomes.iter().map(|(id, _)| *id).collect();
            let resolved: Vec<&str> = outcomes
                .iter()
                .filter(|(_, r)| *r)
                .map(|(id, _)| *id)
                .collect();
            assert_eq!(resolved, ["a"], "{version}");
            // The tasks without a prediction are in no outcome: not submitted.
            assert!(
                !submitted.contains(&"e") && !submitted.contains(&"f"),
                "{version}"
            );
            let expected: &[&str] = if text.contains("submitted_ids") {
                &["a", "b", "c", "d", "g", "x"]
            } else {
                &["a", "b", "c", "g"]
            };
            assert_eq!(submitted, expected, "{version}");
        }
    }

    #[test]
    fn a_summary_that_contradicts_itself_is_still_refused() {
        let refused = [
            (
                r#"{"submitted_ids": ["a", "e"], "resolved_ids": ["a"], "incomplete_ids": ["e"]}"#,
                "task e is in submitted_ids and in incomplete_ids",
            ),
            (
                r#"{"incomplete_ids": ["a"], "submitted_ids": ["b"], "resolved_ids": ["b"], "error_ids": ["a"]}"#,
                "task a is in incomplete_ids and in error_ids",
            ),
            (
                r#"{"submitted_ids": ["a", "b"], "resolved_ids": ["a"], "infra_failure_ids": ["a"]}"#,
                "task a is in resolved_ids and in infra_failure_ids",
            ),
            (
                r#"{"submitted_ids": ["a"], "resolved_ids": ["a"], "completed_ids": ["a", "b"]}"#,
                "submitted_ids",
            ),
            (
                r#"{"resolved_ids": ["a"], "incomplete_ids": ["e", "e"]}"#,
                "task e is named again in incomplete_ids",
            ),
            (
                r#"{"resolved_ids": ["a"], "incomplete_ids": "e"}"#,
                "must be a list of task ids",
            ),
        ];
        for (text, says) in refused {
            let err = read("run.json", text).expect_err(text);
            assert!(err.to_string().contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn ids_with_escapes_are_read_and_a_row_that_is_no_object_is_refused() {
        let pro = read(
            "e.json",
            r#"{"instance_caf\u00e9": true, "instance_b": false}"#,
        )
        .expect("escaped");
        assert_eq!(
            pairs(&pro),
            [("instance_café", true), ("instance_b", false)]
        );
        let err = read(
            "r.jsonl",
            "{\"instance_id\": \"a\", \"resolved\": 1}\n[1, 2]\n",
        )
        .expect_err("a list");
        assert!(
            err.to_string().contains("line 2") && err.to_string().contains("instance_id"),
            "{err}"
        );
    }

    #[test]
    fn a_folder_of_reports_is_read_at_any_depth_and_a_task_twice_refuses_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        for (task, resolved) in [("a", true), ("b", false)] {
            let sub = dir.path().join("model").join(task);
            std::fs::create_dir_all(&sub).expect("dir");
            std::fs::write(
                sub.join("report.json"),
                format!("{{\"{task}\": {{\"resolved\": {resolved}}}}}"),
            )
            .expect("write");
        }
        let read = read_path(dir.path()).expect("folder");
        assert_eq!(pairs(&read), [("a", true), ("b", false)]);
        std::fs::write(
            dir.path().join("model").join("report.json"),
            "{\"a\": {\"resolved\": false}}",
        )
        .expect("write");
        let err = read_path(dir.path()).expect_err("a twice");
        assert!(err.to_string().contains("a"), "{err}");
    }
}
