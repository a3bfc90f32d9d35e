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
pub struct Writer<'a> {
    rows: super::CsvRows<'a>,
}

impl<'a> Writer<'a> {
    /// Writes the header.
    pub fn new(out: &'a mut dyn Write) -> io::Result<Self> {
        Ok(Writer {
            rows: super::CsvRows::new(out, ENSEMBLED_COLUMNS)?,
        })
    }

    /// Writes one row.
    pub fn write(&mut self, row: &Row) -> io::Result<()> {
        let labels = &row.labels;
        let record: Vec<String> = ENSEMBLED_COLUMNS
            .iter()
            .map(|&column| match column {
                "instance_id" => row.instance_id.clone(),
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
            })
            .collect();
        self.rows.write(&record)
    }

    /// Flushes the file; returns the rows written.
    pub fn finish(self) -> io::Result<usize> {
        self.rows.finish()
    }
}
