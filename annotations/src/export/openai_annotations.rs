//! OpenAI's per-annotator file: `instance_id, user_id`, the answers, and `claimed_at,
//! updated_at, submitted_at`; one row per case and rater.

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
pub type Writer<'a> = super::FixedWriter<'a, Row>;

impl super::FixedRow for Row {
    const COLUMNS: &'static [&'static str] = &ANNOTATION_COLUMNS;

    fn cell(&self, column: &str) -> String {
        match column {
            "instance_id" => self.instance_id.clone(),
            "user_id" => self.user_id.clone(),
            _ => self
                .answers
                .get(column)
                .or_else(|| self.times.get(column))
                .map(format_value)
                .unwrap_or_default(),
        }
    }
}
