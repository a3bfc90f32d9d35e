//! Importers: one module per source format, the format detected from content.
//!
//! Every importer streams its input and hands each record to a sink, so a 200 MB dataset is
//! never held in memory at once. The caller writes records into one store transaction, so a
//! file with any bad record stores nothing.

pub mod audit_folder;
pub mod openai_csv;
pub mod parquet;
pub mod pro;
pub mod ratings_csv;
pub mod results;
pub mod swebench;

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::de::{Error as _, SeqAccess, Visitor};
use serde_json::{Map, Value};

use swebench::Family;
use verity_task::case::{CaseRecord, Encoded, SourceKind};

/// Why an input was refused. Every variant names the file and, where there is one, the line or
/// record, and says what is wrong in one sentence.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Bytes that are not UTF-8.
    #[error("{path}, line {line}: the text is not valid UTF-8")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
    },
    /// A line or document that is not valid JSON (a truncated line, for example).
    #[error("{path}, {at}: not valid JSON ({reason})")]
    Json {
        /// The file.
        path: PathBuf,
        /// `line N` or `record N`.
        at: String,
        /// What the parser said.
        reason: String,
    },
    /// A record lacks a field every record of its format has.
    #[error("{path}, {at}: the required field {field:?} is missing")]
    MissingField {
        /// The file.
        path: PathBuf,
        /// `line N` or `record N`.
        at: String,
        /// The field.
        field: &'static str,
    },
    /// A field has the wrong type or an impossible value.
    #[error("{path}, {at}: field {field:?} {reason}")]
    BadField {
        /// The file.
        path: PathBuf,
        /// `line N` or `record N`.
        at: String,
        /// The field.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// The same instance id twice in one file with different content.
    #[error(
        "{path}, {at}: instance {instance_id} appears again with different content (first at {first})"
    )]
    Duplicate {
        /// The file.
        path: PathBuf,
        /// Where the second copy is.
        at: String,
        /// Where the first copy is.
        first: String,
        /// The id.
        instance_id: String,
    },
    /// A case folder without `instance_id.txt`.
    #[error("{path}: this case folder has no instance_id.txt")]
    NoInstanceId {
        /// The folder.
        path: PathBuf,
    },
    /// A case folder lacks a file every case folder has.
    #[error("{path}: this case folder has no {file}")]
    MissingFile {
        /// The folder.
        path: PathBuf,
        /// The missing file's name.
        file: &'static str,
    },
    /// The consumer of the records stopped the reading; [`read_path`] returns the consumer's
    /// own error instead.
    #[error("reading stopped before the end of the input")]
    Stopped,
    /// A Parquet file that cannot be read: truncated, corrupt, or of a layout Verity does not
    /// read.
    #[error("{path}: not a readable Parquet file ({reason})")]
    Parquet {
        /// The file.
        path: PathBuf,
        /// What the reader said.
        reason: String,
    },
    /// Content whose format Verity does not know.
    #[error("{path}: {reason}")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// Why no format matched.
        reason: String,
    },
    /// A results file names a task twice.
    #[error(
        "{path}: task {instance_id} is named again {place}; a results file names each task once, and nothing was stored"
    )]
    RepeatedTask {
        /// The file.
        path: PathBuf,
        /// The task.
        instance_id: String,
        /// Where it appears again.
        place: String,
    },
    /// A results file says a task was both resolved and not.
    #[error(
        "{path}: task {instance_id} is in {first} and in {second}, which contradict each other; nothing was stored"
    )]
    Contradiction {
        /// The file.
        path: PathBuf,
        /// The task.
        instance_id: String,
        /// The first list naming it.
        first: String,
        /// The list that contradicts it.
        second: String,
    },
}

/// A record read from a source, with where it came from.
#[derive(Debug, Clone)]
pub struct SourcedRecord {
    /// Which kind of source.
    pub kind: SourceKind,
    /// The file or folder and line, for messages and the project's provenance.
    pub origin: String,
    /// The record, encoded as it is stored.
    pub record: Encoded<CaseRecord>,
}

/// The formats Verity reads tasks from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// SWE-bench, Lite, Verified: a JSON array, JSON lines or one JSON object.
    SweBench,
    /// SWE-bench Pro: a JSON array, JSON lines or one JSON object.
    SweBenchPro,
    /// One determinacy-audit case folder.
    AuditFolder,
    /// A folder of audit case folders (or one with a `cases/` folder inside).
    AuditFolders,
}

/// Runs a reader with a consumer that fails in its own terms: the consumer's error comes back
/// as it was raised, and the reader's own errors as `E`. Readers see a consumer that stops them
/// with [`ImportError::Stopped`].
pub(crate) fn with_consumer<R, T, E: From<ImportError>>(
    consumer: &mut dyn FnMut(R) -> Result<(), E>,
    read: impl FnOnce(&mut dyn FnMut(R) -> Result<(), ImportError>) -> Result<T, ImportError>,
) -> Result<T, E> {
    let mut failure: Option<E> = None;
    let result = read(&mut |record| {
        consumer(record).map_err(|err| {
            failure = Some(err);
            ImportError::Stopped
        })
    });
    match failure {
        Some(err) => Err(err),
        None => result.map_err(E::from),
    }
}

/// Reads every record from `path`, detecting its format from content, and hands each to `sink`.
/// Returns the format found. An error of `sink` comes back as it is.
pub fn read_path<E: From<ImportError>>(
    path: &Path,
    sink: &mut dyn FnMut(SourcedRecord) -> Result<(), E>,
) -> Result<Format, E> {
    with_consumer(sink, |sink| read_records(path, None, sink))
}

/// Reads a dataset file (JSON, JSON lines or Parquet) as [`read_path`] does, each record's
/// origin naming `label` instead of the file's local path: where a downloaded file came from.
pub fn read_dataset_as<E: From<ImportError>>(
    path: &Path,
    label: &str,
    sink: &mut dyn FnMut(SourcedRecord) -> Result<(), E>,
) -> Result<Format, E> {
    with_consumer(sink, |sink| read_records(path, Some(label), sink))
}

fn read_records(
    path: &Path,
    label: Option<&str>,
    sink: &mut dyn FnMut(SourcedRecord) -> Result<(), ImportError>,
) -> Result<Format, ImportError> {
    let io = |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        if path.join("instance_id.txt").exists() || path.join("spec.md").exists() {
            sink(audit_folder::read_folder(path)?)?;
            return Ok(Format::AuditFolder);
        }
        let cases = path.join("cases");
        let root = if cases.is_dir() {
            cases
        } else {
            path.to_path_buf()
        };
        audit_folder::read_folders(&root, sink)?;
        return Ok(Format::AuditFolders);
    }
    let shown = path.display().to_string();
    let mut rows = DatasetRows {
        path,
        label: label.unwrap_or(&shown),
        format: None,
        seen: HashMap::new(),
        sink,
    };
    if parquet::is_parquet(path).map_err(io)? {
        parquet::read_rows(path, &mut |at, row| rows.row(at, row))?;
    } else {
        read_json_rows(path, &mut |at, row| rows.row(at, row))?;
    }
    rows.format.ok_or_else(|| ImportError::UnknownFormat {
        path: path.to_path_buf(),
        reason: "the file holds no task records".into(),
    })
}

/// Turns a dataset's rows into records: the format told by the first row, an instance id seen
/// again with other content refused.
struct DatasetRows<'a> {
    path: &'a Path,
    /// Names the file in each record's origin.
    label: &'a str,
    format: Option<Format>,
    /// Each instance id's first place and content hash.
    seen: HashMap<String, (String, String)>,
    sink: &'a mut dyn FnMut(SourcedRecord) -> Result<(), ImportError>,
}

impl DatasetRows<'_> {
    fn row(&mut self, at: String, row: Map<String, Value>) -> Result<(), ImportError> {
        let format = match self.format {
            Some(format) => format,
            None => *self.format.insert(dataset_format(self.path, &row)?),
        };
        let record = match format {
            Format::SweBenchPro => swebench::record_from_row(self.path, &at, row, Family::Pro)?,
            _ => swebench::record_from_row(self.path, &at, row, Family::SweBench)?,
        };
        let record = Encoded::new(record);
        match self.seen.get(&record.value.instance_id) {
            Some((first, h)) if *h != record.hash => {
                return Err(ImportError::Duplicate {
                    path: self.path.to_path_buf(),
                    at,
                    first: first.clone(),
                    instance_id: record.value.instance_id,
                });
            }
            Some(_) => return Ok(()),
            None => {
                self.seen.insert(
                    record.value.instance_id.clone(),
                    (at.clone(), record.hash.clone()),
                );
            }
        }
        (self.sink)(SourcedRecord {
            kind: SourceKind::Dataset,
            origin: format!("{}:{at}", self.label),
            record,
        })
    }
}

/// Tells SWE-bench from SWE-bench Pro by a dataset's first record.
fn dataset_format(path: &Path, row: &Map<String, Value>) -> Result<Format, ImportError> {
    if !row.contains_key("instance_id") {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: "the first record has no \"instance_id\": this is not a SWE-bench or SWE-bench Pro dataset".into(),
        });
    }
    let pro = ["requirements", "interface", "fail_to_pass", "pass_to_pass"]
        .iter()
        .any(|k| row.contains_key(*k));
    Ok(if pro {
        Format::SweBenchPro
    } else {
        Format::SweBench
    })
}

/// Streams the objects of a JSON array, a JSON-lines file or a file of JSON objects in any
/// layout (one pretty-printed task), each with `line N` (JSON lines) or `record N` for messages.
fn read_json_rows(
    path: &Path,
    on_row: &mut dyn FnMut(String, Map<String, Value>) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let io = |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path).map_err(io)?);
    let first = loop {
        let buf = reader.fill_buf().map_err(io)?;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let b = buf[i];
                reader.consume(i);
                break Some(b);
            }
            None if buf.is_empty() => break None,
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    };
    match first {
        None => Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: "the file is empty".into(),
        }),
        Some(b'[') => read_json_array(path, reader, on_row),
        Some(b'{') => match read_json_lines(path, reader, on_row)? {
            Lines::Read => Ok(()),
            // A first record that runs past its line is a pretty-printed document, not JSON
            // lines: read the file again as a sequence of JSON values.
            Lines::NotLines => read_json_document(path, on_row),
        },
        Some(_) => Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: match csv_header(path) {
                Some(header) => openai_csv::not_openai(&header),
                None => "not a JSON array or JSON-lines file of tasks, nor a case folder".into(),
            },
        }),
    }
}

/// A file's first line as a CSV header, when it reads as one of two columns or more.
fn csv_header(path: &Path) -> Option<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .ok()?;
    let first = reader.records().next()?.ok()?;
    (first.len() >= 2).then(|| first.iter().map(|c| c.trim().to_string()).collect())
}

/// How reading a file as JSON lines ended.
enum Lines {
    /// Every line was a record.
    Read,
    /// The first record does not end on its line; nothing was handed on.
    NotLines,
}

fn read_json_lines(
    path: &Path,
    mut reader: impl BufRead,
    on_row: &mut dyn FnMut(String, Map<String, Value>) -> Result<(), ImportError>,
) -> Result<Lines, ImportError> {
    let mut buf = Vec::new();
    let mut line = 0;
    let mut records = 0;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| ImportError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if n == 0 {
            return Ok(Lines::Read);
        }
        line += 1;
        let text = std::str::from_utf8(&buf).map_err(|_| ImportError::NotUtf8 {
            path: path.to_path_buf(),
            line,
        })?;
        if text.trim().is_empty() {
            continue;
        }
        let at = format!("line {line}");
        let value: Value = match serde_json::from_str(text) {
            Ok(value) => value,
            Err(e) if e.is_eof() && records == 0 => return Ok(Lines::NotLines),
            Err(e) => {
                return Err(ImportError::Json {
                    path: path.to_path_buf(),
                    at,
                    reason: if e.is_eof() {
                        "the line ends before its record does: it is truncated".into()
                    } else {
                        e.to_string()
                    },
                });
            }
        };
        let Value::Object(row) = value else {
            return Err(ImportError::Json {
                path: path.to_path_buf(),
                at,
                reason: "expected an object".into(),
            });
        };
        records += 1;
        on_row(at, row)?;
    }
}

/// Reads a file of JSON objects in any layout (one pretty-printed task, or several one after
/// another), each located as `record N`; a parse error names its line.
fn read_json_document(
    path: &Path,
    on_row: &mut dyn FnMut(String, Map<String, Value>) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let file = File::open(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let values = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 16, file))
        .into_iter::<Value>();
    for (index, value) in values.enumerate() {
        let at = format!("record {}", index + 1);
        let value = value.map_err(|e| json_error(path, &e, "the record"))?;
        let Value::Object(row) = value else {
            return Err(ImportError::Json {
                path: path.to_path_buf(),
                at,
                reason: "expected an object".into(),
            });
        };
        on_row(at, row)?;
    }
    Ok(())
}

/// A parse error of a whole-file reader, located at its line. `what` is what the file ended
/// inside of when it is truncated.
fn json_error(path: &Path, e: &serde_json::Error, what: &str) -> ImportError {
    let line = e.line();
    let text = e.to_string();
    if text.contains("invalid unicode") || text.contains("UTF-8") {
        ImportError::NotUtf8 {
            path: path.to_path_buf(),
            line,
        }
    } else {
        ImportError::Json {
            path: path.to_path_buf(),
            at: format!("line {line}"),
            reason: if e.is_eof() {
                format!("the file ends before {what} does: it is truncated")
            } else {
                text
            },
        }
    }
}

fn read_json_array(
    path: &Path,
    reader: impl Read,
    on_row: &mut dyn FnMut(String, Map<String, Value>) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    struct Rows<'a> {
        on_row: &'a mut dyn FnMut(String, Map<String, Value>) -> Result<(), ImportError>,
        failed: &'a mut Option<ImportError>,
    }
    impl<'de> Visitor<'de> for Rows<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an array of task objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut index = 0;
            while let Some(row) = seq.next_element::<Map<String, Value>>()? {
                index += 1;
                if let Err(err) = (self.on_row)(format!("record {index}"), row) {
                    *self.failed = Some(err);
                    return Err(A::Error::custom("stopped"));
                }
            }
            Ok(())
        }
    }
    let mut failed = None;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let result = serde::Deserializer::deserialize_seq(
        &mut de,
        Rows {
            on_row,
            failed: &mut failed,
        },
    )
    .and_then(|()| de.end());
    if let Some(err) = failed {
        return Err(err);
    }
    result.map_err(|e| json_error(path, &e, "the array"))
}

/// Fields shared by the dataset formats.
pub(crate) struct Row<'a> {
    path: &'a Path,
    at: &'a str,
    fields: Map<String, Value>,
}

impl<'a> Row<'a> {
    pub(crate) fn new(path: &'a Path, at: &'a str, fields: Map<String, Value>) -> Row<'a> {
        Row { path, at, fields }
    }

    /// A string field that must be present and non-empty.
    pub(crate) fn required(&mut self, field: &'static str) -> Result<String, ImportError> {
        match self.fields.remove(field) {
            None | Some(Value::Null) => Err(ImportError::MissingField {
                path: self.path.to_path_buf(),
                at: self.at.to_string(),
                field,
            }),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(self.bad(field, format!("must be text, not {}", kind_of(&other)))),
        }
    }

    /// A string field that may be absent or null.
    pub(crate) fn optional(&mut self, field: &str) -> Result<Option<String>, ImportError> {
        match self.fields.remove(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.bad(field, format!("must be text, not {}", kind_of(&other)))),
        }
    }

    /// A list of test ids: a JSON array of strings, or a string holding one (as the Hugging
    /// Face export of SWE-bench stores it).
    pub(crate) fn test_list(&mut self, field: &str) -> Result<Option<Vec<String>>, ImportError> {
        let value = match self.fields.remove(field) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(s)) => serde_json::from_str::<Value>(&s).map_err(|_| {
                self.bad(
                    field,
                    "is text that does not hold a JSON list of test ids".into(),
                )
            })?,
            Some(v) => v,
        };
        let Value::Array(items) = value else {
            return Err(self.bad(field, "must be a list of test ids".into()));
        };
        items
            .into_iter()
            .map(|item| match item {
                Value::String(s) => Ok(s),
                other => Err(self.bad(
                    field,
                    format!("must list test ids as text, not {}", kind_of(&other)),
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    pub(crate) fn bad(&self, field: &str, reason: String) -> ImportError {
        ImportError::BadField {
            path: self.path.to_path_buf(),
            at: self.at.to_string(),
            field: field.to_string(),
            reason,
        }
    }

    /// The fields not taken, kept as they came.
    pub(crate) fn rest(self) -> Map<String, Value> {
        self.fields
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Checks a full 40-hex commit id.
pub(crate) fn check_commit(row: &Row<'_>, field: &str, commit: &str) -> Result<(), ImportError> {
    if commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        Err(row.bad(
            field,
            format!("must be a full 40-hex-digit commit id, not {commit:?}"),
        ))
    }
}
