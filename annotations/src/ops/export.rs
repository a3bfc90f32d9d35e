//! Exports in every format: OpenAI's files, the case table as CSV or JSON lines, and each
//! rater's answers as JSON lines, written atomically.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use super::ensemble::build_ensemble;
use super::export_formats::ExportFormat;
use super::submitted::{Panel, option_index, rated_questions};
use super::{Error, ErrorCode, Project, Result, natural_cmp};
use crate::export;
use crate::import::openai_csv::{self, ReferenceLabels};
use verity_stats::ensemble::Procedure;
use verity_store::{EventKind, SubmissionFilter};

/// Options of an export.
#[derive(Debug, Clone, Default, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ExportOptions {
    /// The ensemble rule; the questionnaire's default when absent.
    #[serde(default)]
    pub rule: Option<String>,
    /// For `openai-ensembled`: write this reference label set instead of the panel's ensemble
    /// (an empty name picks the project's only set).
    #[serde(default)]
    pub reference: Option<String>,
    /// For `answers-jsonl`: every event (drafts, the submission, each revision) instead of
    /// each rater's latest submitted answer.
    #[serde(default)]
    pub history: bool,
    /// For `hub`: the licence the dataset is published under, as the Hub names it; required,
    /// never guessed.
    #[serde(default)]
    pub license: Option<String>,
    /// For `hub`: the split's name; `test` when absent.
    #[serde(default)]
    pub split: Option<String>,
    /// For `hub`: which tasks; the ones the filter keeps when absent.
    #[serde(default)]
    pub subset: Option<super::DatasetSubset>,
    /// For `hub`: raters under their names instead of stable pseudonyms.
    #[serde(default)]
    pub rater_names: bool,
    /// For `hub`: the size past which a Parquet shard is closed and another begun;
    /// [`crate::export::dataset::SHARD_BYTES`] when absent.
    #[serde(default)]
    #[ts(skip)]
    pub shard_bytes: Option<usize>,
}

fn resolve_reference(project: &Project, name: &str) -> Result<String> {
    let sets = project.store.reference_sets()?;
    if name.is_empty() {
        return match sets.as_slice() {
            [(only, _)] => Ok(only.clone()),
            [] => Err(Error::NotFound(
                "the project holds no reference label set; import OpenAI's ensembled file first"
                    .into(),
            )),
            _ => Err(Error::refused(
                ErrorCode::Ambiguous,
                format!(
                    "the project holds {} reference label sets ({}); name one",
                    sets.len(),
                    sets.iter()
                        .map(|(s, _)| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        };
    }
    if sets.iter().any(|(s, _)| s == name) {
        Ok(name.to_string())
    } else {
        Err(Error::NotFound(format!(
            "the project has no reference label set {name:?} (it has: {})",
            sets.iter()
                .map(|(s, _)| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}

/// The panel's ensemble in the shape of OpenAI's ensembled file: each label's notes are those
/// of the rater whose answer was taken (the adjudicator's rationale for an adjudicated label).
fn ensembled_rows(
    project: &Project,
    panel: &Panel,
    rule: Option<&str>,
) -> Result<Vec<export::openai_ensembled::Row>> {
    let report = build_ensemble(project, panel, rule)?;
    let latest = panel.latest_by_case();
    let mut rows = Vec::new();
    for case in report.cases {
        let mut labels = ReferenceLabels {
            filter_out: case.filter_out,
            ..ReferenceLabels::default()
        };
        let answers = latest.get(case.instance_id.as_str());
        for label in &case.labels {
            if let Some(v) = &label.value {
                labels.values.insert(label.question.clone(), v.clone());
            }
            if !label.decided_by.is_empty() {
                labels
                    .decided_by
                    .insert(label.question.clone(), label.decided_by.clone());
            }
            if let Some(p) = &label.procedure {
                labels.procedures.insert(label.question.clone(), p.clone());
            }
            let notes_column = openai_csv::ENSEMBLED_QUESTIONS
                .iter()
                .find(|(q, _)| *q == label.question)
                .and_then(|(_, n)| *n);
            if let Some(notes_column) = notes_column {
                let notes = if label.procedure.as_deref() == Some(Procedure::Adjudicated.name()) {
                    label.rationale.clone()
                } else {
                    label.decided_by.first().and_then(|rater| {
                        answers?
                            .answers
                            .iter()
                            .find(|(r, _)| **r == **rater)?
                            .1
                            .answer
                            .get(notes_column)
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                    })
                };
                if let Some(notes) = notes {
                    labels
                        .values
                        .insert(notes_column.into(), Value::from(notes));
                }
            }
        }
        rows.push(export::openai_ensembled::Row {
            instance_id: case.instance_id,
            labels,
        });
    }
    Ok(rows)
}

fn pair_agreement(positions: &[usize]) -> Option<f64> {
    let m = positions.len();
    if m < 2 {
        return None;
    }
    let mut agreeing = 0usize;
    for i in 0..m {
        for j in 0..m {
            if i != j && positions[i] == positions[j] {
                agreeing += 1;
            }
        }
    }
    Some(agreeing as f64 / (m * (m - 1)) as f64)
}

/// The rows of a slice of the panel; `origins` gives each case's source, taken out as used.
fn case_rows(
    project: &Project,
    panel: &Panel,
    rule: Option<&str>,
    origins: &mut HashMap<String, String>,
) -> Result<Vec<export::case_table::Row>> {
    let report = build_ensemble(project, panel, rule)?;
    let latest = panel.latest_by_case();
    let questions = rated_questions(&project.questionnaire);
    let mut rows = Vec::new();
    for case in report.cases {
        let answers: Vec<(String, Map<String, Value>)> = latest
            .get(case.instance_id.as_str())
            .map(|c| {
                c.answers
                    .iter()
                    .map(|(r, e)| (r.to_string(), e.answer.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let mut agreement = BTreeMap::new();
        for q in &questions {
            let positions: Vec<usize> = answers
                .iter()
                .filter_map(|(_, a)| option_index(q, a.get(&q.id)?))
                .collect();
            agreement.insert(q.id.clone(), pair_agreement(&positions));
        }
        rows.push(export::case_table::Row {
            source: origins.remove(&case.instance_id),
            instance_id: case.instance_id,
            filter_out: case.filter_out,
            labels: case
                .labels
                .into_iter()
                .map(|l| {
                    (
                        l.question.clone(),
                        export::case_table::CaseLabel {
                            value: l.value,
                            procedure: l.procedure,
                            decided_by: l.decided_by,
                            rationale: l.rationale,
                        },
                    )
                })
                .collect(),
            answers,
            agreement,
        });
    }
    Ok(rows)
}

/// The rows of a slice of the panel, with the imported times of answers (`fields`) and the
/// span of each (case, rater)'s events for answers given in Verity.
fn annotation_rows(
    panel: &Panel,
    fields: &HashMap<i64, Map<String, Value>>,
    span: &verity_store::EventSpans,
) -> Vec<export::openai_annotations::Row> {
    let first_at: HashMap<(i64, i64), String> = panel
        .first
        .iter()
        .flat_map(|c| {
            c.answers
                .iter()
                .map(|(_, e)| ((e.case_id, e.rater_id), e.at.clone()))
        })
        .collect();
    let mut rows = Vec::new();
    for case in &panel.latest {
        for (rater, event) in &case.answers {
            let key = (event.case_id, event.rater_id);
            let times = match fields.get(&event.id) {
                Some(kept) => kept.clone(),
                None => {
                    // Answers given in Verity: claimed when the rater first saved, updated at the
                    // latest save, submitted at the first submission.
                    let (claimed, updated) = span.get(&key).cloned().unwrap_or_default();
                    let mut times = Map::new();
                    times.insert("claimed_at".into(), Value::from(claimed));
                    times.insert("updated_at".into(), Value::from(updated));
                    times.insert(
                        "submitted_at".into(),
                        Value::from(first_at.get(&key).cloned().unwrap_or_default()),
                    );
                    times
                }
            };
            rows.push(export::openai_annotations::Row {
                instance_id: case.instance_id.clone(),
                user_id: rater.to_string(),
                answers: event.answer.clone(),
                times,
            });
        }
    }
    rows
}

/// Refuses an OpenAI-format export when the project's questionnaire lacks questions that the
/// format's columns hold: the file would have empty columns and mean nothing.
fn check_openai_columns(project: &Project, format: ExportFormat) -> Result<()> {
    let (name, needed): (&str, Vec<&str>) = match format {
        ExportFormat::OpenaiAnnotations => {
            ("openai-annotations", openai_csv::ANSWER_COLUMNS.to_vec())
        }
        ExportFormat::OpenaiEnsembled => (
            "openai-ensembled",
            openai_csv::ENSEMBLED_COLUMNS
                .iter()
                .copied()
                .filter(|c| {
                    openai_csv::ENSEMBLED_QUESTIONS
                        .iter()
                        .any(|(q, notes)| q == c || *notes == Some(*c))
                })
                .collect(),
        ),
        _ => return Ok(()),
    };
    let missing: Vec<&str> = needed
        .into_iter()
        .filter(|id| project.questionnaire.question(id).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::refused(
        ErrorCode::QuestionnaireMismatch,
        format!(
            "the {name} format needs the questions of OpenAI's SWE-bench Verified annotation, and questionnaire {} {} lacks {}; export csv, jsonl or answers-jsonl instead",
            project.questionnaire.id,
            project.questionnaire.version,
            missing.join(", ")
        ),
    ))
}

/// The refusal to write the hub format as one file.
fn hub_is_a_folder() -> Error {
    Error::refused(
        ErrorCode::BadInput,
        "the hub format is a folder of Parquet files and a card, not one file: export it with `verity export --format hub --out FOLDER`",
    )
}

/// What [`export_to_file`] wrote.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ExportSummary {
    /// Rows written.
    pub rows: usize,
    /// The file.
    pub path: String,
    /// True when it replaced a file that was there.
    pub replaced: bool,
    /// What the user should know of the file: imported labels the questionnaire does not read
    /// (`underdetermined`), each with what to run.
    pub notes: Vec<String>,
}

/// Exports the project in one format into a file, atomically: the file appears whole or not
/// at all. An existing file is refused unless `overwrite` says to replace it.
pub fn export_to_file(
    project: &Project,
    format: ExportFormat,
    options: &ExportOptions,
    path: &Path,
    overwrite: super::Overwrite,
) -> Result<ExportSummary> {
    project.require_coordinator("exports the panel's answers")?;
    check_openai_columns(project, format)?;
    let written = super::write_file(path, overwrite, |out| {
        export_with_notes(project, format, options, out, path)
    })?;
    let (rows, notes) = written.value;
    Ok(ExportSummary {
        rows,
        path: path.display().to_string(),
        replaced: written.replaced,
        notes,
    })
}

/// Writes the project in one format; returns the rows written. `openai-annotations` writes
/// each rater's latest submitted answer (times as imported, or from the project's events);
/// `openai-ensembled` the panel's ensemble, or a reference label set when `options.reference`
/// names one; `csv` and `jsonl` one row per case; `answers-jsonl` one line per case and rater.
pub fn export_project(
    project: &Project,
    format: ExportFormat,
    options: &ExportOptions,
    out: &mut dyn Write,
    out_path: &Path,
) -> Result<usize> {
    export_with_notes(project, format, options, out, out_path).map(|(rows, _)| rows)
}

/// [`export_project`], with the notes of [`ExportSummary::notes`].
fn export_with_notes(
    project: &Project,
    format: ExportFormat,
    options: &ExportOptions,
    out: &mut dyn Write,
    out_path: &Path,
) -> Result<(usize, Vec<String>)> {
    project.require_coordinator("exports the panel's answers")?;
    if options.reference.is_some() && format != ExportFormat::OpenaiEnsembled {
        return Err(Error::refused(
            ErrorCode::BadInput,
            "--reference writes a reference label set, which only --format openai-ensembled holds; the other formats write the panel's answers",
        ));
    }
    if options.history && format != ExportFormat::AnswersJsonl {
        return Err(Error::refused(
            ErrorCode::BadInput,
            "--history writes every answer event, which only --format answers-jsonl holds",
        ));
    }
    if format == ExportFormat::Hub {
        return Err(hub_is_a_folder());
    }
    let hub_only = [
        (options.license.is_some(), "--license"),
        (options.split.is_some(), "--split"),
        (options.subset.is_some(), "--subset"),
        (options.rater_names, "--rater-names"),
    ];
    if let Some((_, flag)) = hub_only.iter().find(|(given, _)| *given) {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "{flag} describes a dataset for the Hugging Face Hub, which only --format hub writes"
            ),
        ));
    }
    let write_err = |source: std::io::Error| Error::Write {
        path: out_path.to_path_buf(),
        source,
    };
    check_openai_columns(project, format)?;
    if format == ExportFormat::AnswersJsonl {
        return super::export_jsonl(project, options.history, out, out_path)
            .map(|rows| (rows, Vec::new()));
    }

    let rule = options.rule.as_deref();
    let io_err = |source: std::io::Error| Error::Write {
        path: out_path.to_path_buf(),
        source,
    };
    let rows = match format {
        ExportFormat::OpenaiAnnotations => {
            let fields = project.store.answer_event_fields()?;
            let span = project.store.answer_event_span()?;
            let mut writer = export::openai_annotations::Writer::new(out).map_err(io_err)?;
            for panel in Panel::slices(project, EXPORT_SLICE)? {
                for row in annotation_rows(&panel?, &fields, &span) {
                    writer.write(&row).map_err(io_err)?;
                }
            }
            writer.finish().map_err(write_err)
        }
        ExportFormat::OpenaiEnsembled => match &options.reference {
            Some(name) => {
                let set = resolve_reference(project, name)?;
                let rows = project
                    .store
                    .reference_labels(&set)?
                    .into_iter()
                    .map(|row| {
                        Ok(export::openai_ensembled::Row {
                            labels: serde_json::from_value(row.labels).map_err(|e| {
                                Error::refused(
                                    ErrorCode::Store,
                                    format!("stored reference labels of {}: {e}", row.instance_id),
                                )
                            })?,
                            instance_id: row.instance_id,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                export::openai_ensembled::write(out, &rows).map_err(write_err)
            }
            None => {
                let mut writer = export::openai_ensembled::Writer::new(out).map_err(io_err)?;
                for panel in Panel::slices(project, EXPORT_SLICE)? {
                    for row in ensembled_rows(project, &panel?, rule)? {
                        writer.write(&row).map_err(io_err)?;
                    }
                }
                writer.finish().map_err(write_err)
            }
        },
        ExportFormat::Csv | ExportFormat::Jsonl => {
            let mut origins: HashMap<String, String> = HashMap::new();
            for (instance_id, origin) in project.store.case_origins()? {
                origins.entry(instance_id).or_insert(origin);
            }
            let questions = project.questionnaire.questions().collect::<Vec<_>>();
            let mut sink = if format == ExportFormat::Csv {
                let slots = most_raters_on_a_case(project)?;
                CaseSink::Csv(Box::new(
                    export::case_table::CsvWriter::new(out, &questions, slots).map_err(io_err)?,
                ))
            } else {
                CaseSink::Jsonl(out, 0)
            };
            for panel in Panel::slices(project, EXPORT_SLICE)? {
                for row in case_rows(project, &panel?, rule, &mut origins)? {
                    sink.write(&row).map_err(io_err)?;
                }
            }
            sink.finish().map_err(write_err)
        }
        ExportFormat::AnswersJsonl => super::export_jsonl(project, options.history, out, out_path),
        ExportFormat::Hub => Err(hub_is_a_folder()),
        ExportFormat::Underdetermined => {
            return super::scores::write_left_out(project, out, out_path);
        }
    };
    rows.map(|rows| (rows, Vec::new()))
}

/// Where the case table goes: the CSV, or JSON lines with the count written.
enum CaseSink<'a> {
    Csv(Box<export::case_table::CsvWriter<'a>>),
    Jsonl(&'a mut dyn Write, usize),
}

impl CaseSink<'_> {
    fn write(&mut self, row: &export::case_table::Row) -> std::io::Result<()> {
        match self {
            CaseSink::Csv(csv) => csv.write(row),
            CaseSink::Jsonl(out, written) => {
                *written += 1;
                export::case_table::write_jsonl_row(&mut **out, row)
            }
        }
    }

    fn finish(self) -> std::io::Result<usize> {
        match self {
            CaseSink::Csv(csv) => csv.finish(),
            CaseSink::Jsonl(out, written) => {
                out.flush()?;
                Ok(written)
            }
        }
    }
}

/// Cases an export reads at a time: its memory holds one slice's whole answers, whatever the
/// project's size.
const EXPORT_SLICE: usize = 500;

/// The most raters with a submitted answer on any one case: the CSV's rater slots.
fn most_raters_on_a_case(project: &Project) -> Result<usize> {
    let submitted = project.store.latest_submissions_by(&SubmissionFilter {
        cases: None,
        questions: Some(&[]),
    })?;
    let mut per_case: HashMap<i64, usize> = HashMap::new();
    for event in &submitted {
        *per_case.entry(event.case_id).or_default() += 1;
    }
    Ok(per_case.into_values().max().unwrap_or(0))
}

/// One line of the JSON-lines export: a case, a rater and their latest submitted answer (or,
/// with the history, one event).
#[derive(Debug, Clone, Serialize)]
pub struct ExportedAnswer {
    /// The task's id.
    pub instance_id: String,
    /// The rater.
    pub rater: String,
    /// The questionnaire id.
    pub questionnaire: String,
    /// The questionnaire version.
    pub questionnaire_version: String,
    /// The case revision the answer was given on.
    pub case_revision: i64,
    /// 0 for a draft before the first submission, 1 for the first submission, more after
    /// revisions.
    pub answer_revision: i64,
    /// The event: `draft`, `submit` or `revise` (history only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<EventKind>,
    /// When it was saved (history only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_at: Option<String>,
    /// When it was submitted or last revised (latest answers only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submitted_at: Option<String>,
    /// The reason of the revision.
    pub revision_reason: Option<String>,
    /// Every answer, each in its question's canonical type.
    pub answers: Map<String, Value>,
    /// A model rater's answer: the model, endpoint, prompt hash, sampling, tokens, latency,
    /// cost and response id it was given with (history only; absent for a human's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Map<String, Value>>,
}

/// Writes one JSON line per case and rater with a submitted answer (their latest revision),
/// or with `history` one line per answer event, drafts and revisions included, in the order
/// they were saved; returns the count.
pub fn export_jsonl(
    project: &Project,
    history: bool,
    out: &mut dyn Write,
    out_path: &Path,
) -> Result<usize> {
    let raters: HashMap<i64, String> = project
        .store
        .list_raters()?
        .into_iter()
        .map(|r| (r.id, r.name))
        .collect();
    let excluded = if project.include_models {
        std::collections::HashSet::new()
    } else {
        super::lookup::model_rater_ids(project)?
    };
    let mut provenance = if history {
        super::models::provenance_by_uid(project)?
    } else {
        HashMap::new()
    };
    let mut revisions: HashMap<i64, (String, i64)> = HashMap::new();
    let mut questionnaires: HashMap<i64, (String, String)> = HashMap::new();
    let events = if history {
        project.store.all_answer_events()?
    } else {
        project.store.latest_submissions()?
    };
    let mut rows = Vec::new();
    for event in events {
        if excluded.contains(&event.rater_id) {
            continue;
        }
        if let std::collections::hash_map::Entry::Vacant(e) =
            revisions.entry(event.case_revision_id)
        {
            let revision = project.store.case_revision(event.case_revision_id)?;
            e.insert((revision.case.instance_id, revision.revision));
        }
        if let std::collections::hash_map::Entry::Vacant(e) =
            questionnaires.entry(event.questionnaire_id)
        {
            let (id, version, _) = project.store.questionnaire_source(event.questionnaire_id)?;
            e.insert((id, version));
        }
        let (instance_id, case_revision) = revisions
            .get(&event.case_revision_id)
            .cloned()
            .unwrap_or_default();
        let (qid, qversion) = questionnaires
            .get(&event.questionnaire_id)
            .cloned()
            .unwrap_or_default();
        rows.push(ExportedAnswer {
            instance_id,
            rater: raters.get(&event.rater_id).cloned().unwrap_or_default(),
            questionnaire: qid,
            questionnaire_version: qversion,
            case_revision,
            answer_revision: event.answer_revision,
            event: history.then_some(event.kind),
            saved_at: history.then(|| event.at.clone()),
            submitted_at: (!history).then(|| event.at.clone()),
            revision_reason: event.reason,
            answers: project.questionnaire.decode_answer(&event.answer),
            provenance: provenance.remove(&event.uid),
        });
    }
    if !history {
        rows.sort_by(|a, b| {
            natural_cmp(&a.instance_id, &b.instance_id)
                .then_with(|| natural_cmp(&a.rater, &b.rater))
        });
    }
    let write_err = |source| Error::Write {
        path: out_path.to_path_buf(),
        source,
    };
    for row in &rows {
        serde_json::to_writer(&mut *out, row).map_err(|e| write_err(e.into()))?;
        writeln!(out).map_err(write_err)?;
    }
    out.flush().map_err(write_err)?;
    Ok(rows.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_agreement_is_the_share_of_agreeing_pairs() {
        assert_eq!(pair_agreement(&[1, 1, 2]), Some(1.0 / 3.0));
        assert_eq!(pair_agreement(&[1]), None);
    }
}
