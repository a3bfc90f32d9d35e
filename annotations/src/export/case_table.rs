//! One row per case: the ensemble's label for each question with who decided it, the share of
//! agreeing rater pairs per question, and each rater's answers; as CSV or JSON lines.
//!
//! In the CSV, raters take numbered slots in the order they first submitted (`rater_1`,
//! `rater_1_underspecified`, ...), so the header does not grow with the panel's size.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_json::{Map, Value, json};

use verity_task::questionnaire::Question;

/// An ensemble label as exported.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseLabel {
    /// The label, when the rule gives one.
    pub value: Option<Value>,
    /// How it was reached.
    pub procedure: Option<String>,
    /// Who decided.
    pub decided_by: Vec<String>,
    /// The adjudicator's rationale.
    pub rationale: Option<String>,
}

/// One case.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The task.
    pub instance_id: String,
    /// Where its content came from: a dataset file and row (for a fetched dataset, its commit
    /// and the file's SHA-256), or an audit folder.
    pub source: Option<String>,
    /// Whether the filter drops it.
    pub filter_out: Option<bool>,
    /// Question id to label, in questionnaire order.
    pub labels: Vec<(String, CaseLabel)>,
    /// Rater to answers, in the order raters first submitted.
    pub answers: Vec<(String, Map<String, Value>)>,
    /// Question id to the share of agreeing rater pairs on this case (`None` with fewer than
    /// two answers).
    pub agreement: BTreeMap<String, Option<f64>>,
}

fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn share(value: Option<f64>) -> String {
    value.map_or_else(String::new, |v| format!("{v:.4}"))
}

fn rated<'q>(questions: &'q [&'q Question]) -> impl Iterator<Item = &'q &'q Question> {
    questions.iter().filter(|q| q.kind.is_rated())
}

/// Writes the CSV a row at a time: the header first, then the rows in the order given.
pub struct CsvWriter<'a> {
    questions: &'a [&'a Question],
    slots: usize,
    rows: super::CsvRows<'a>,
}

impl<'a> CsvWriter<'a> {
    /// Writes the header: every question, then `slots` numbered rater slots (the most raters
    /// any row has).
    pub fn new(
        out: &'a mut dyn Write,
        questions: &'a [&'a Question],
        slots: usize,
    ) -> io::Result<Self> {
        let mut header = vec![
            "instance_id".to_string(),
            "raters".into(),
            "filter_out".into(),
            "source".into(),
        ];
        for q in rated(questions) {
            for suffix in ["", "_procedure", "_decided_by", "_agreement"] {
                header.push(format!("{}{suffix}", q.id));
            }
        }
        for slot in 1..=slots {
            header.push(format!("rater_{slot}"));
            for q in questions {
                header.push(format!("rater_{slot}_{}", q.id));
            }
        }
        Ok(CsvWriter {
            questions,
            slots,
            rows: super::CsvRows::new(out, &header)?,
        })
    }

    /// Writes one row.
    pub fn write(&mut self, row: &Row) -> io::Result<()> {
        let mut record = vec![
            row.instance_id.clone(),
            row.answers
                .iter()
                .map(|(r, _)| r.as_str())
                .collect::<Vec<_>>()
                .join(";"),
            match row.filter_out {
                Some(true) => "true".into(),
                Some(false) => "false".into(),
                None => String::new(),
            },
            row.source.clone().unwrap_or_default(),
        ];
        for q in rated(self.questions) {
            let label = row
                .labels
                .iter()
                .find(|(id, _)| *id == q.id)
                .map(|(_, l)| l);
            record.push(cell(label.and_then(|l| l.value.as_ref())));
            record.push(label.and_then(|l| l.procedure.clone()).unwrap_or_default());
            record.push(label.map(|l| l.decided_by.join(";")).unwrap_or_default());
            record.push(share(row.agreement.get(&q.id).copied().flatten()));
        }
        for slot in 0..self.slots {
            let answers = row.answers.get(slot);
            record.push(answers.map(|(r, _)| r.clone()).unwrap_or_default());
            for q in self.questions {
                record.push(cell(answers.and_then(|(_, a)| a.get(&q.id))));
            }
        }
        self.rows.write(&record)
    }

    /// Flushes the file; returns the rows written.
    pub fn finish(self) -> io::Result<usize> {
        self.rows.finish()
    }
}

/// Writes one row as a JSON object on a line.
pub fn write_jsonl_row(out: &mut dyn Write, row: &Row) -> io::Result<()> {
    let mut ensemble = Map::new();
    for (question, label) in &row.labels {
        ensemble.insert(
            question.clone(),
            json!({
                "value": label.value,
                "procedure": label.procedure,
                "decided_by": label.decided_by,
                "rationale": label.rationale,
            }),
        );
    }
    let answers: Map<String, Value> = row
        .answers
        .iter()
        .map(|(r, a)| (r.clone(), Value::Object(a.clone())))
        .collect();
    let line = json!({
        "instance_id": row.instance_id,
        "raters": row.answers.iter().map(|(r, _)| r).collect::<Vec<_>>(),
        "filter_out": row.filter_out,
        "source": row.source,
        "ensemble": ensemble,
        "agreement": row.agreement,
        "answers": answers,
    });
    serde_json::to_writer(&mut *out, &line)?;
    out.write_all(b"\n")
}
