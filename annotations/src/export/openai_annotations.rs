//! OpenAI's per-annotator file: `instance_id, user_id`, the answers, and `claimed_at,
//! updated_at, submitted_at`; one row per case and rater.

use std::io::{self, Write};

use serde_json::{Map, Value};

use crate::import::openai_csv::{ANNOTATION_COLUMNS, format_value};

/// One case and rater.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The task.
    pub instance_id: String,
    /// The rater.
    pub user_id: String,
    /// Question id to answer.
    pub answers: Map<String, Value>,
    /// `claimed_at`, `updated_at`, `submitted_at`.
    pub times: Map<String, Value>,
}

/// Writes the header and the rows in the given order; returns the rows written.
pub fn write(out: &mut dyn Write, rows: &[Row]) -> io::Result<usize> {
    let mut writer = super::csv_writer(out);
    writer.write_record(ANNOTATION_COLUMNS)?;
    for row in rows {
        let record: Vec<String> = ANNOTATION_COLUMNS
            .iter()
            .map(|&column| match column {
                "instance_id" => row.instance_id.clone(),
                "user_id" => row.user_id.clone(),
                _ => row
                    .answers
                    .get(column)
                    .or_else(|| row.times.get(column))
                    .map(format_value)
                    .unwrap_or_default(),
            })
            .collect();
        writer.write_record(&record)?;
    }
    writer.flush()?;
    Ok(rows.len())
}
