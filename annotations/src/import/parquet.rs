//! Parquet datasets, as the Hugging Face Hub stores them: each row becomes the JSON object the
//! same row has in the dataset's JSON-lines export, so both import alike.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, Row};
use serde_json::{Map, Number, Value};
use time::format_description::well_known::Rfc3339;
use time::{Date, Duration, OffsetDateTime, Time};

use super::ImportError;

/// The four bytes a Parquet file starts (and ends) with.
const MAGIC: &[u8; 4] = b"PAR1";

/// Whether the file starts as a Parquet file does.
pub(crate) fn is_parquet(path: &Path) -> std::io::Result<bool> {
    let mut head = [0u8; 4];
    let mut file = File::open(path)?;
    let mut read = 0;
    while read < head.len() {
        match file.read(&mut head[read..])? {
            0 => return Ok(false),
            n => read += n,
        }
    }
    Ok(&head == MAGIC)
}

/// Hands each row of a Parquet file to `on_row` as a JSON object, located as `row N`.
pub(crate) fn read_rows(
    path: &Path,
    on_row: &mut dyn FnMut(String, Map<String, Value>) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let bad = |reason: String| ImportError::Parquet {
        path: path.to_path_buf(),
        reason,
    };
    let file = File::open(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let reader = SerializedFileReader::new(file).map_err(|e| bad(reader_error(&e)))?;
    let published = Published::of(&reader).map_err(bad)?;
    let rows = reader
        .get_row_iter(None)
        .map_err(|e| bad(reader_error(&e)))?;
    for (index, row) in rows.enumerate() {
        let at = format!("row {}", index + 1);
        let row = row.map_err(|e| bad(format!("{at}: {}", reader_error(&e))))?;
        let mut object = object_of(row).map_err(|reason| ImportError::BadField {
            path: path.to_path_buf(),
            at: at.clone(),
            field: reason.0,
            reason: reason.1,
        })?;
        if let Some(published) = &published {
            published
                .restore(&mut object)
                .map_err(|(field, reason)| ImportError::BadField {
                    path: path.to_path_buf(),
                    at: at.clone(),
                    field,
                    reason,
                })?;
        }
        on_row(at, object)?;
    }
    Ok(())
}

/// The key of the footer entry of a dataset Verity published (`verity export --format hub`):
/// a JSON object that lists the panel's columns (`labels`), which an import leaves out, and the
/// columns holding JSON texts (`json`), which it decodes.
pub const FOOTER_KEY: &str = "verity";

/// What the footer of a dataset Verity published says of its columns: the panel's labels,
/// which are not the task's fields, and the fields held as JSON texts.
struct Published {
    labels: Vec<String>,
    json: Vec<String>,
}

impl Published {
    /// The footer's account, when the file has one.
    fn of(reader: &SerializedFileReader<File>) -> Result<Option<Published>, String> {
        let Some(text) = reader
            .metadata()
            .file_metadata()
            .key_value_metadata()
            .and_then(|kv| kv.iter().find(|kv| kv.key == FOOTER_KEY))
            .and_then(|kv| kv.value.clone())
        else {
            return Ok(None);
        };
        let footer: Value = serde_json::from_str(&text)
            .map_err(|e| format!("its footer's {:?} entry is not JSON ({e})", FOOTER_KEY))?;
        let names = |key: &str| -> Vec<String> {
            footer
                .get(key)
                .and_then(Value::as_array)
                .map(|names| {
                    names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        Ok(Some(Published {
            labels: names("labels"),
            json: names("json"),
        }))
    }

    /// A row as the task was imported: the labels left out, JSON texts decoded, and the
    /// fields a task did not have (null in a table where others had them) dropped.
    fn restore(&self, row: &mut Map<String, Value>) -> Result<(), (String, String)> {
        row.retain(|name, value| !value.is_null() && !self.labels.contains(name));
        for name in &self.json {
            if let Some(value) = row.get_mut(name)
                && let Value::String(text) = value
            {
                *value = serde_json::from_str(text)
                    .map_err(|e| (name.clone(), format!("holds no JSON text ({e})")))?;
            }
        }
        Ok(())
    }
}

/// The reader's message without its "Parquet error: " prefix.
fn reader_error(err: &parquet::errors::ParquetError) -> String {
    let text = err.to_string();
    text.strip_prefix("Parquet error: ")
        .unwrap_or(&text)
        .to_string()
}

/// A field that cannot become JSON: its name and why.
type Unconvertible = (String, String);

fn object_of(row: Row) -> Result<Map<String, Value>, Unconvertible> {
    row.into_columns()
        .into_iter()
        .map(|(name, field)| match json_of(field) {
            Ok(value) => Ok((name, value)),
            Err(reason) => Err((name, reason)),
        })
        .collect()
}

/// A Parquet value as `datasets` writes the same value to JSON lines: lists as arrays, structs
/// and maps as objects, times as RFC 3339 text.
fn json_of(field: Field) -> Result<Value, String> {
    Ok(match field {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(b),
        Field::Byte(n) => n.into(),
        Field::Short(n) => n.into(),
        Field::Int(n) => n.into(),
        Field::Long(n) => n.into(),
        Field::UByte(n) => n.into(),
        Field::UShort(n) => n.into(),
        Field::UInt(n) => n.into(),
        Field::ULong(n) => n.into(),
        Field::Float16(n) => float(f64::from(n)),
        Field::Float(n) => float(f64::from(n)),
        Field::Double(n) => float(n),
        Field::Decimal(d) => Value::String(Field::Decimal(d).to_string()),
        Field::Str(s) => Value::String(s),
        Field::Bytes(bytes) => match std::str::from_utf8(bytes.data()) {
            Ok(text) => Value::String(text.to_string()),
            Err(_) => return Err("holds binary data that is not UTF-8 text".into()),
        },
        Field::Date(days) => Value::String(
            Date::from_calendar_date(1970, time::Month::January, 1)
                .ok()
                .and_then(|epoch| epoch.checked_add(Duration::days(days.into())))
                .map(|d| d.to_string())
                .ok_or_else(|| format!("holds a date out of range ({days} days)"))?,
        ),
        Field::TimeMillis(ms) => time_of_day(i64::from(ms) * 1_000_000)?,
        Field::TimeMicros(us) => time_of_day(us.saturating_mul(1_000))?,
        Field::TimestampMillis(ms) => timestamp(i128::from(ms) * 1_000_000)?,
        Field::TimestampMicros(us) => timestamp(i128::from(us) * 1_000)?,
        Field::Group(row) => {
            Value::Object(object_of(row).map_err(|(name, why)| format!("{name} {why}"))?)
        }
        Field::ListInternal(list) => Value::Array(
            list.elements()
                .iter()
                .cloned()
                .map(json_of)
                .collect::<Result<_, _>>()?,
        ),
        Field::MapInternal(map) => {
            let mut object = Map::new();
            for (key, value) in map.entries().iter().cloned() {
                let key = match json_of(key)? {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                object.insert(key, json_of(value)?);
            }
            Value::Object(object)
        }
    })
}

fn float(n: f64) -> Value {
    Number::from_f64(n).map_or(Value::Null, Value::Number)
}

fn time_of_day(nanos: i64) -> Result<Value, String> {
    let seconds = nanos.div_euclid(1_000_000_000);
    let rest = nanos.rem_euclid(1_000_000_000);
    u8::try_from(seconds / 3600)
        .ok()
        .and_then(|h| {
            Time::from_hms_nano(
                h,
                u8::try_from(seconds / 60 % 60).ok()?,
                u8::try_from(seconds % 60).ok()?,
                u32::try_from(rest).ok()?,
            )
            .ok()
        })
        .map(|t| Value::String(t.to_string()))
        .ok_or_else(|| format!("holds a time of day out of range ({nanos} ns)"))
}

fn timestamp(nanos: i128) -> Result<Value, String> {
    OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .map(Value::String)
        .ok_or_else(|| format!("holds a timestamp out of range ({nanos} ns)"))
}
