//! OpenAI's ensembled file: one row per case, the 14 columns of the SWE-bench Verified
//! release in its order, including `*_decided_by`, `difficulty_ensemble_decision_procedure` and
//! `filter_out`.

use std::io::{self, Write};

use crate::import::openai_csv::{
    ENSEMBLED_COLUMNS, ReferenceLabels, format_decided_by, format_value,
};

/// One case's labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The task.
    pub instance_id: String,
    /// Its labels with who decided them.
    pub labels: ReferenceLabels,
}

/// Writes the header and the rows in the given order; returns the rows written.
pub fn write(out: &mut dyn Write, rows: &[Row]) -> io::Result<usize> {
    let mut writer = Writer::new(out)?;
    for row in rows {
        writer.write(row)?;
    }
    writer.finish()
}

/// Writes the file a row at a time: the header first, then the rows in the order given.
pub type Writer<'a> = super::FixedWriter<'a, Row>;

impl super::FixedRow for Row {
    const COLUMNS: &'static [&'static str] = &ENSEMBLED_COLUMNS;

    fn cell(&self, column: &str) -> String {
        let labels = &self.labels;
        match column {
            "instance_id" => self.instance_id.clone(),
            "difficulty_decided_by" => labels
                .decided_by
                .get("difficulty")
                .map(|by| format_decided_by(by))
                .unwrap_or_default(),
            "difficulty_ensemble_decision_procedure" => labels
                .procedures
                .get("difficulty")
                .cloned()
                .unwrap_or_default(),
            "filter_out" => match labels.filter_out {
                Some(true) => "True".into(),
                Some(false) => "False".into(),
                None => String::new(),
            },
            _ => match column.strip_suffix("_decided_by") {
                // A severity label is taken from one annotator.
                Some(question) => labels
                    .decided_by
                    .get(question)
                    .and_then(|by| by.first().cloned())
                    .unwrap_or_default(),
                None => labels
                    .values
                    .get(column)
                    .map(format_value)
                    .unwrap_or_default(),
            },
        }
    }
}
