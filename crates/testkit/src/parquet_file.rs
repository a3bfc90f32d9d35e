//! Writes dataset rows as a Parquet file the way `datasets` does for SWE-bench: text columns,
//! and lists of text as Parquet LIST columns.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use serde_json::{Map, Value};

/// Reads a JSON-lines file's rows.
pub fn jsonl_rows(path: &Path) -> Vec<Map<String, Value>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The rows as Parquet bytes: one column per key of the first row, a list column where its
/// value is a list, in row groups of `group` rows.
pub fn parquet_bytes(rows: &[Map<String, Value>], group: usize) -> Vec<u8> {
    let columns: Vec<(String, bool)> = rows[0]
        .iter()
        .map(|(k, v)| (k.clone(), v.is_array()))
        .collect();
    let fields: Vec<String> = columns
        .iter()
        .map(|(name, list)| {
            if *list {
                format!(
                    "OPTIONAL group {name} (LIST) {{ REPEATED group list {{ OPTIONAL BYTE_ARRAY element (UTF8); }} }}"
                )
            } else {
                format!("OPTIONAL BYTE_ARRAY {name} (UTF8);")
            }
        })
        .collect();
    let schema = Arc::new(
        parse_message_type(&format!("message schema {{ {} }}", fields.join(" "))).unwrap(),
    );
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build(),
    );
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema, props).unwrap();
    for chunk in rows.chunks(group.max(1)) {
        let mut row_group = writer.next_row_group().unwrap();
        for (name, list) in &columns {
            let mut column = row_group.next_column().unwrap().unwrap();
            let mut values = Vec::new();
            let mut defs = Vec::new();
            let mut reps = Vec::new();
            for row in chunk {
                match (row.get(name), list) {
                    (None | Some(Value::Null), _) => {
                        defs.push(0);
                        reps.push(0);
                    }
                    (Some(Value::Array(items)), true) if items.is_empty() => {
                        defs.push(1);
                        reps.push(0);
                    }
                    (Some(Value::Array(items)), true) => {
                        for (i, item) in items.iter().enumerate() {
                            values.push(ByteArray::from(item.as_str().unwrap()));
                            defs.push(3);
                            reps.push(i16::from(i > 0));
                        }
                    }
                    (Some(Value::String(s)), false) => {
                        values.push(ByteArray::from(s.as_str()));
                        defs.push(1);
                    }
                    (Some(other), _) => panic!("column {name}: cannot write {other}"),
                }
            }
            let reps = list.then_some(reps.as_slice());
            column
                .typed::<ByteArrayType>()
                .write_batch(&values, Some(&defs), reps)
                .unwrap();
            column.close().unwrap();
        }
        row_group.close().unwrap();
    }
    writer.close().unwrap();
    out
}

/// A file's rows as JSON objects, and its footer's key-value pairs.
pub type ReadRows = (Vec<Map<String, Value>>, Vec<(String, String)>);

/// A Parquet file's rows as JSON objects, and its footer's key-value pairs.
pub fn read_rows(path: &Path) -> ReadRows {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let footer = reader
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .map(|kv| (kv.key.clone(), kv.value.clone().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    let rows = reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            row.unwrap()
                .into_columns()
                .into_iter()
                .map(|(name, field)| (name, json_of(field)))
                .collect()
        })
        .collect();
    (rows, footer)
}

/// The JSON value of a Parquet value of the kinds Verity's datasets hold.
fn json_of(field: parquet::record::Field) -> Value {
    use parquet::record::{Field, ListAccessor};
    match field {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(b),
        Field::Long(n) => n.into(),
        Field::Int(n) => n.into(),
        Field::Double(x) => x.into(),
        Field::Str(s) => Value::String(s),
        Field::ListInternal(list) => Value::Array(
            (0..list.len())
                .map(|i| Value::String(list.get_string(i).unwrap().clone()))
                .collect(),
        ),
        other => panic!("a value Verity's datasets do not hold: {other}"),
    }
}
