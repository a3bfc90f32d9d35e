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

/// Writes the file a row at a time: the header first, then the rows in the order given.
pub struct Writer<'a> {
    rows: super::CsvRows<'a>,
}

impl<'a> Writer<'a> {
    /// Writes the header.
    pub fn new(out: &'a mut dyn Write) -> io::Result<Self> {
        Ok(Writer {
            rows: super::CsvRows::new(out, ANNOTATION_COLUMNS)?,
        })
    }

    /// Writes one row.
    pub fn write(&mut self, row: &Row) -> io::Result<()> {
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
        self.rows.write(&record)
    }

    /// Flushes the file; returns the rows written.
    pub fn finish(self) -> io::Result<usize> {
        self.rows.finish()
    }
}
