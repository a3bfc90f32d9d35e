//! OpenAI's SWE-bench Verified annotation files: the per-annotator file (one row per task and
//! annotator) and the ensembled file (one row per task, the three annotators combined).
//!
//! Both are CSV with notes that hold newlines (and once U+2028), so they are parsed as CSV
//! records, never split by lines; a record's line is where it starts. Numeric ratings are
//! written `1.0` in the published files (pandas wrote them as floats because a few are missing);
//! `1` is read the same way. A missing rating is an empty field.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ImportError;

/// The per-annotator file's columns, in its order.
pub const ANNOTATION_COLUMNS: [&str; 14] = [
    "instance_id",
    "user_id",
    "underspecified",
    "underspecified_notes",
    "false_negative",
    "false_negative_notes",
    "other_major_issues",
    "other_notes",
    "difficulty",
    "difficulty_notes",
    "annotator_confidence",
    "claimed_at",
    "updated_at",
    "submitted_at",
];

/// The ensembled file's columns, in its order.
pub const ENSEMBLED_COLUMNS: [&str; 14] = [
    "instance_id",
    "underspecified",
    "underspecified_notes",
    "false_negative",
    "false_negative_notes",
    "other_major_issues",
    "other_notes",
    "difficulty",
    "underspecified_decided_by",
    "false_negative_decided_by",
    "other_major_issues_decided_by",
    "difficulty_decided_by",
    "difficulty_ensemble_decision_procedure",
    "filter_out",
];

/// Columns that hold a whole-number rating.
pub const NUMERIC_COLUMNS: [&str; 4] = [
    "underspecified",
    "false_negative",
    "other_major_issues",
    "annotator_confidence",
];

/// Columns of the per-annotator file that are answers to questions.
pub const ANSWER_COLUMNS: [&str; 9] = [
    "underspecified",
    "underspecified_notes",
    "false_negative",
    "false_negative_notes",
    "other_major_issues",
    "other_notes",
    "difficulty",
    "difficulty_notes",
    "annotator_confidence",
];

/// Columns of the per-annotator file kept as written, outside the answers.
pub const TIME_COLUMNS: [&str; 3] = ["claimed_at", "updated_at", "submitted_at"];

/// The questions the ensembled file labels, each with its notes column and its decided-by
/// column.
pub const ENSEMBLED_QUESTIONS: [(&str, Option<&str>); 4] = [
    ("underspecified", Some("underspecified_notes")),
    ("false_negative", Some("false_negative_notes")),
    ("other_major_issues", Some("other_notes")),
    ("difficulty", None),
];

/// Which of the two files a CSV is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenAiFile {
    /// One row per task and annotator.
    Annotations,
    /// One row per task, combined.
    Ensembled,
}

/// One annotator's row.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotationRow {
    /// The line the record starts on.
    pub line: u64,
    /// The task.
    pub instance_id: String,
    /// The annotator.
    pub user_id: String,
    /// Question id to answer; a missing rating or empty note is absent.
    pub answers: Map<String, Value>,
    /// `claimed_at`, `updated_at`, `submitted_at` as written.
    pub times: Map<String, Value>,
}

/// One case's labels in a reference set: what the ensembled file says about a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReferenceLabels {
    /// Question id to label, and notes columns to their text.
    pub values: Map<String, Value>,
    /// Question id to the annotators whose rating was taken.
    pub decided_by: BTreeMap<String, Vec<String>>,
    /// Question id to how its label was reached, where the file says (`majority`, `median`).
    pub procedures: BTreeMap<String, String>,
    /// Whether the task is filtered out.
    pub filter_out: Option<bool>,
}

/// One task's row of the ensembled file.
#[derive(Debug, Clone, PartialEq)]
pub struct EnsembledRow {
    /// The line the record starts on.
    pub line: u64,
    /// The task.
    pub instance_id: String,
    /// Its labels.
    pub labels: ReferenceLabels,
}

fn csv_reader(path: &Path) -> Result<csv::Reader<std::fs::File>, ImportError> {
    let file = std::fs::File::open(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(file))
}

fn csv_error(path: &Path, err: csv::Error) -> ImportError {
    let line = err.position().map_or(0, |p| p.line());
    match err.kind() {
        csv::ErrorKind::Utf8 { .. } => ImportError::NotUtf8 {
            path: path.to_path_buf(),
            line: line as usize,
        },
        csv::ErrorKind::Io(_) => ImportError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(err.to_string()),
        },
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => ImportError::BadField {
            path: path.to_path_buf(),
            at: format!("line {line}"),
            field: "(row)".into(),
            reason: format!("has {len} fields where the header has {expected_len}"),
        },
        _ => ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!("line {line}: this is not valid CSV ({err})"),
        },
    }
}

/// Tells whether a file is one of OpenAI's annotation files by its CSV header; `None` for any
/// other file (JSON, folders, other CSVs).
pub fn detect(path: &Path) -> Result<Option<OpenAiFile>, ImportError> {
    if !path.is_file() {
        return Ok(None);
    }
    let mut head = [0u8; 1];
    let n = {
        use std::io::Read;
        let mut f = std::fs::File::open(path).map_err(|source| ImportError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        f.read(&mut head).map_err(|source| ImportError::Io {
            path: path.to_path_buf(),
            source,
        })?
    };
    if n == 0 || head[0] == b'{' || head[0] == b'[' || head[0].is_ascii_whitespace() {
        return Ok(None);
    }
    let mut reader = csv_reader(path)?;
    let Ok(headers) = reader.headers() else {
        return Ok(None);
    };
    let has = |name: &str| headers.iter().any(|h| h == name);
    if has("instance_id") && has("user_id") && NUMERIC_COLUMNS[..3].iter().all(|c| has(c)) {
        return Ok(Some(OpenAiFile::Annotations));
    }
    if ENSEMBLED_COLUMNS.iter().all(|c| has(c)) {
        return Ok(Some(OpenAiFile::Ensembled));
    }
    Ok(None)
}

/// Why a CSV with `header` is none of OpenAI's annotation files: the columns each is told by,
/// and what this header has.
pub fn not_openai(header: &[String]) -> String {
    let shown: Vec<&str> = header.iter().take(8).map(String::as_str).collect();
    format!(
        "a CSV that is none of OpenAI's annotation files, which Verity tells by their headers: the per-annotator file has the columns instance_id, user_id, {} (and the notes), the ensembled file the columns {}; this file's header is {}{} (a CSV of systems' results, instance_id and resolved, goes to `verity results import`; ratings as unit,rater,value to `verity agreement --ratings`)",
        NUMERIC_COLUMNS[..3].join(", "),
        ENSEMBLED_COLUMNS.join(", "),
        shown.join(", "),
        if header.len() > shown.len() {
            ", …"
        } else {
            ""
        }
    )
}

/// The columns a header lacks, as a readable list.
fn missing_columns(
    path: &Path,
    headers: &csv::StringRecord,
    wanted: &[&str],
) -> Result<(), ImportError> {
    let missing: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|c| !headers.iter().any(|h| h == *c))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!(
                "line 1: the header lacks the column{} {}",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", ")
            ),
        })
    }
}

/// A whole-number rating written `1.0` or `1`; `None` for an empty field.
fn parse_rating(
    path: &Path,
    line: u64,
    field: &str,
    text: &str,
) -> Result<Option<i64>, ImportError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let bad = |reason: String| ImportError::BadField {
        path: path.to_path_buf(),
        at: format!("line {line}"),
        field: field.to_string(),
        reason,
    };
    let number: f64 = text
        .parse()
        .map_err(|_| bad(format!("is {text:?}, which is not a number")))?;
    if !number.is_finite() || number.fract() != 0.0 || number.abs() > 1e9 {
        return Err(bad(format!("is {text}, which is not a whole number")));
    }
    Ok(Some(number as i64))
}

fn field<'r>(headers: &csv::StringRecord, record: &'r csv::StringRecord, name: &str) -> &'r str {
    headers
        .iter()
        .position(|h| h == name)
        .and_then(|i| record.get(i))
        .unwrap_or("")
}

/// Reads the CSV file at `path`, whose header must hold the `required` columns, handing each
/// record to `row` with the header and the line the record starts on: the number of records.
/// A file of a header alone is refused, `what` naming the kind of file.
fn each_record(
    path: &Path,
    required: &[&str],
    what: &str,
    row: &mut dyn FnMut(&csv::StringRecord, &csv::StringRecord, u64) -> Result<(), ImportError>,
) -> Result<usize, ImportError> {
    let mut reader = csv_reader(path)?;
    let headers = reader.headers().map_err(|e| csv_error(path, e))?.clone();
    missing_columns(path, &headers, required)?;
    let mut count = 0;
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(csv_error(path, e)),
        }
        count += 1;
        row(&headers, &record, record.position().map_or(0, |p| p.line()))?;
    }
    if count == 0 {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!("the {what} file has a header but no rows"),
        });
    }
    Ok(count)
}

/// Reads the per-annotator file, handing each row to `sink` in file order.
/// An error of `sink` comes back as it is.
pub fn read_annotations<E: From<ImportError>>(
    path: &Path,
    sink: &mut dyn FnMut(AnnotationRow) -> Result<(), E>,
) -> Result<usize, E> {
    super::with_consumer(sink, |sink| {
        each_record(
            path,
            &["instance_id", "user_id"],
            "annotation",
            &mut |headers, record, line| {
                let at = format!("line {line}");
                let instance_id = field(headers, record, "instance_id").trim().to_string();
                let user_id = field(headers, record, "user_id").trim().to_string();
                for (name, value) in [("instance_id", &instance_id), ("user_id", &user_id)] {
                    if value.is_empty() {
                        return Err(ImportError::BadField {
                            path: path.to_path_buf(),
                            at: at.clone(),
                            field: name.into(),
                            reason: "is empty".into(),
                        });
                    }
                }
                let mut answers = Map::new();
                for column in ANSWER_COLUMNS {
                    let text = field(headers, record, column);
                    if NUMERIC_COLUMNS.contains(&column) {
                        if let Some(n) = parse_rating(path, line, column, text)? {
                            answers.insert(column.into(), Value::from(n));
                        }
                    } else if !text.is_empty() {
                        answers.insert(column.into(), Value::from(text));
                    }
                }
                let mut times = Map::new();
                for column in TIME_COLUMNS {
                    times.insert(column.into(), Value::from(field(headers, record, column)));
                }
                sink(AnnotationRow {
                    line,
                    instance_id,
                    user_id,
                    answers,
                    times,
                })
            },
        )
    })
}

/// Parses a `difficulty_decided_by` list (`[17, 72, 69]`, or quoted names) or a single
/// annotator id.
fn parse_decided_by(text: &str) -> Vec<String> {
    let text = text.trim();
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(text);
    inner
        .split(',')
        .map(|s| s.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Reads the ensembled file, handing each row to `sink` in file order.
/// An error of `sink` comes back as it is.
pub fn read_ensembled<E: From<ImportError>>(
    path: &Path,
    sink: &mut dyn FnMut(EnsembledRow) -> Result<(), E>,
) -> Result<usize, E> {
    super::with_consumer(sink, |sink| {
        each_record(
            path,
            &ENSEMBLED_COLUMNS,
            "ensembled",
            &mut |headers, record, line| {
                let at = format!("line {line}");
                let bad = |field: &str, reason: String| ImportError::BadField {
                    path: path.to_path_buf(),
                    at: at.clone(),
                    field: field.to_string(),
                    reason,
                };
                let instance_id = field(headers, record, "instance_id").trim().to_string();
                if instance_id.is_empty() {
                    return Err(bad("instance_id", "is empty".into()));
                }
                let mut labels = ReferenceLabels::default();
                for (question, notes) in ENSEMBLED_QUESTIONS {
                    let text = field(headers, record, question);
                    let value = if NUMERIC_COLUMNS.contains(&question) {
                        parse_rating(path, line, question, text)?.map(Value::from)
                    } else {
                        Some(text).filter(|t| !t.is_empty()).map(Value::from)
                    };
                    if let Some(v) = value {
                        labels.values.insert(question.into(), v);
                    }
                    if let Some(notes) = notes {
                        let text = field(headers, record, notes);
                        if !text.is_empty() {
                            labels.values.insert(notes.into(), Value::from(text));
                        }
                    }
                    let by =
                        parse_decided_by(field(headers, record, &format!("{question}_decided_by")));
                    if !by.is_empty() {
                        labels.decided_by.insert(question.into(), by);
                    }
                }
                let procedure =
                    field(headers, record, "difficulty_ensemble_decision_procedure").trim();
                if !procedure.is_empty() {
                    labels
                        .procedures
                        .insert("difficulty".into(), procedure.to_string());
                }
                labels.filter_out = match field(headers, record, "filter_out").trim() {
                    "" => None,
                    "True" | "true" | "1" => Some(true),
                    "False" | "false" | "0" => Some(false),
                    other => {
                        return Err(bad(
                            "filter_out",
                            format!("is {other:?}, where True or False was expected"),
                        ));
                    }
                };
                sink(EnsembledRow {
                    line,
                    instance_id,
                    labels,
                })
            },
        )
    })
}

/// Writes a rating as the published files do (`1.0`); text as it is.
pub fn format_value(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => format!("{i}.0"),
            None => n.to_string(),
        },
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        other => other.to_string(),
    }
}

/// Writes a list of annotators as the ensembled file does: `[17, 72, 69]` for numeric ids,
/// a JSON list of strings otherwise.
pub fn format_decided_by(raters: &[String]) -> String {
    if raters
        .iter()
        .all(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
    {
        format!("[{}]", raters.join(", "))
    } else {
        serde_json::to_string(raters).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn notes_with_newlines_and_line_separators_stay_in_their_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ann.csv");
        let mut text = ANNOTATION_COLUMNS.join(",");
        text.push('\n');
        text.push_str(
            "a__a-1,7,1.0,\"two\nlines\u{2028}here\",2.0,x,0.0,,15 min - 1 hour,d,4.0,c,u,s\n",
        );
        text.push_str("a__a-1,8,,,,,,,<15 min fix,,,c,u,s\n");
        std::fs::write(&path, text).unwrap();
        assert_eq!(detect(&path).unwrap(), Some(OpenAiFile::Annotations));
        let mut rows = Vec::new();
        read_annotations::<ImportError>(&path, &mut |r| {
            rows.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[0].answers["underspecified_notes"],
            "two\nlines\u{2028}here"
        );
        assert_eq!(rows[0].answers["underspecified"], 1);
        assert_eq!(rows[1].line, 4, "a record's line is where it starts");
        assert!(!rows[1].answers.contains_key("underspecified"));
    }

    #[test]
    fn a_fractional_rating_is_refused_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ann.csv");
        let mut text = ANNOTATION_COLUMNS.join(",");
        text.push_str("\na__a-1,7,1.5,,2.0,,0.0,,<15 min fix,,4.0,c,u,s\n");
        std::fs::write(&path, text).unwrap();
        let err = read_annotations::<ImportError>(&path, &mut |_| Ok(())).unwrap_err();
        assert!(
            err.to_string()
                .contains("line 2: field \"underspecified\" is 1.5, which is not a whole number"),
            "{err}"
        );
    }

    #[test]
    fn decided_by_lists_are_read_and_written_back() {
        assert_eq!(parse_decided_by("[17, 72, 69]"), ["17", "72", "69"]);
        assert_eq!(parse_decided_by("17"), ["17"]);
        assert_eq!(format_decided_by(&["17".into(), "72".into()]), "[17, 72]");
        assert_eq!(format_decided_by(&["ann".into()]), "[\"ann\"]");
        assert_eq!(format_value(&Value::from(3)), "3.0");
    }
}
