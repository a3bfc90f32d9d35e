//! The project as a Hugging Face dataset folder (`verity export --format hub`): the tasks with
//! their SWE-bench fields as imported and the panel's labels, each rater's annotations as a
//! second config, and a dataset card made from the project; written whole or not at all.

mod facts;
mod read;
mod rows;
mod survey;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use ts_rs::TS;

use super::ensemble::{EnsembleReport, build_ensemble, filter_reasons};
use super::export::ExportOptions;
use super::submitted::{Panel, TableBuilder, option_index, rated_questions};
use super::{Error, ErrorCode, Overwrite, Project, Result};
use crate::export::card::{self, Card, CardConfig};
use crate::export::dataset::{BackgroundTable, SHARD_BYTES, Shard, ShardedTable};
use rows::{Annotation, AnnotationTable, Pseudonyms, TaskPanel, TaskTable};

pub use crate::import::parquet::FOOTER_KEY;

/// Which tasks a dataset holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum DatasetSubset {
    /// The tasks the questionnaire's filter keeps.
    #[default]
    Kept,
    /// Every task, kept or filtered out or not yet decided.
    All,
}

/// One file of a dataset folder.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct DatasetFile {
    /// Its path in the folder.
    pub path: String,
    /// Its rows (0 for the card).
    pub rows: usize,
    /// Its size.
    #[ts(type = "number")]
    pub bytes: u64,
}

/// What [`export_dataset`] wrote.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct DatasetSummary {
    /// The folder.
    pub folder: String,
    /// Its files: the card, then each config's shards.
    pub files: Vec<DatasetFile>,
    /// Tasks in it.
    pub tasks: usize,
    /// Annotations in it.
    pub annotations: usize,
    /// Tasks left out because they have no SWE-bench fields (imported from an audit folder or
    /// an annotation file alone).
    pub without_fields: usize,
    /// True when it replaced a folder that was there.
    pub replaced: bool,
    /// The card (`README.md`), as written.
    pub card: String,
}

/// The card's file.
pub const CARD_FILE: &str = "README.md";

/// The options a dataset takes, checked.
struct Settings<'a> {
    license: &'a str,
    split: &'a str,
    subset: DatasetSubset,
    rater_names: bool,
    rule: Option<&'a str>,
    shard_bytes: usize,
}

fn settings(options: &ExportOptions) -> Result<Settings<'_>> {
    let refuse = |text: String| Err(Error::refused(ErrorCode::BadInput, text));
    let Some(license) = options.license.as_deref().map(str::trim) else {
        return refuse(
            "--license is required with --format hub: the licence the dataset is published under, as the Hub names it (mit, apache-2.0, cc-by-4.0, other…); Verity does not guess it".into(),
        );
    };
    if license.is_empty()
        || !license
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '+'))
    {
        return refuse(format!(
            "--license {license:?} is not a licence id as the Hub names them: lower-case letters, digits, '-', '.' and '+' (mit, apache-2.0, cc-by-4.0, other)"
        ));
    }
    let split = options.split.as_deref().unwrap_or("test");
    if split.is_empty() || !split.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return refuse(format!(
            "--split {split:?} is not a split name: letters, digits and '_' (test, train, validation)"
        ));
    }
    Ok(Settings {
        license,
        split,
        subset: options.subset.unwrap_or_default(),
        rater_names: options.rater_names,
        rule: options.rule.as_deref(),
        shard_bytes: options.shard_bytes.unwrap_or(SHARD_BYTES).max(1),
    })
}

/// Writes the project as a dataset folder at `dir`: `data/<split>-….parquet` (the tasks and
/// the panel's labels), `annotations/<split>-….parquet` (each rater's latest submitted answer
/// on those tasks) and `README.md` (the card). The folder appears whole or not at all; one that
/// holds anything is refused unless `overwrite` says to replace it.
pub fn export_dataset(
    project: &Project,
    options: &ExportOptions,
    dir: &Path,
    overwrite: Overwrite,
    now: OffsetDateTime,
) -> Result<DatasetSummary> {
    project.require_coordinator("exports the panel's answers")?;
    if options.reference.is_some() || options.history {
        return Err(Error::refused(
            ErrorCode::BadInput,
            "--reference and --history write other formats; --format hub writes the panel's labels and each rater's latest answers",
        ));
    }
    let settings = settings(options)?;
    let written = super::write_folder(dir, overwrite, |partial| {
        write_dataset(project, &settings, partial, now)
    })?;
    let mut summary = written.value;
    summary.folder = dir.display().to_string();
    summary.replaced = written.replaced;
    tracing::info!(
        folder = %summary.folder,
        tasks = summary.tasks,
        annotations = summary.annotations,
        files = summary.files.len(),
        "dataset written"
    );
    Ok(summary)
}

/// Cases read at a time in the second pass.
const SLICE: usize = 500;

/// The share of agreeing pairs among the raters' answers to a question: (agreeing, pairs).
fn pairs(positions: &[usize]) -> (usize, usize) {
    let m = positions.len();
    let mut agreeing = 0;
    for i in 0..m {
        for j in i + 1..m {
            if positions[i] == positions[j] {
                agreeing += 1;
            }
        }
    }
    (agreeing, m * m.saturating_sub(1) / 2)
}

/// Tallies of the second pass, for the card.
#[derive(Default)]
struct Tally {
    /// Kept, filtered out, undecided, not rated.
    counts: [usize; 4],
    adjudicated: usize,
    humans: BTreeSet<String>,
    models: BTreeSet<String>,
    annotations: usize,
}

/// A slice of the panel with its ensemble, and the tasks of it that get a row, in instance-id
/// order.
struct Slice {
    panel: Panel,
    report: EnsembleReport,
    rows: Vec<String>,
}

impl Slice {
    /// Counts the slice's tasks by their verdict in `tally` and picks those the subset takes
    /// that have their SWE-bench fields.
    fn new(
        panel: Panel,
        report: EnsembleReport,
        subset: DatasetSubset,
        exportable: &HashSet<i64>,
        tally: &mut Tally,
    ) -> Slice {
        let verdicts: HashMap<&str, Option<bool>> = report
            .cases
            .iter()
            .map(|c| (c.instance_id.as_str(), c.filter_out))
            .collect();
        let mut ids: Vec<(&i64, &String)> = panel.instance_ids.iter().collect();
        ids.sort_unstable_by(|a, b| a.1.cmp(b.1));
        let mut rows = Vec::new();
        for (case_id, instance_id) in ids {
            let verdict = verdicts.get(instance_id.as_str()).copied();
            let slot = match verdict {
                None => 3,
                Some(Some(false)) => 0,
                Some(Some(true)) => 1,
                Some(None) => 2,
            };
            tally.counts[slot] += 1;
            let wanted = subset == DatasetSubset::All || verdict == Some(Some(false));
            if wanted && exportable.contains(case_id) {
                rows.push(instance_id.clone());
            }
        }
        Slice {
            panel,
            report,
            rows,
        }
    }
}

fn write_dataset(
    project: &Project,
    settings: &Settings<'_>,
    root: &Path,
    now: OffsetDateTime,
) -> Result<DatasetSummary> {
    let store = &project.store;
    let write_err = |source: std::io::Error| Error::Write {
        path: root.to_path_buf(),
        source,
    };
    let started = std::time::Instant::now();
    // First pass: which tasks have their SWE-bench fields, and what their other fields hold.
    let survey::Surveyed {
        seen,
        pro,
        without_fields,
        exportable,
    } = survey::survey(store.as_ref())?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        tasks = exportable.len(),
        "dataset: fields surveyed"
    );
    let questionnaire = &project.questionnaire;
    let tasks_table = TaskTable::new(questionnaire, &seen, pro);
    let notes_table = AnnotationTable::new(questionnaire);
    let mut tasks = BackgroundTable::start(
        ShardedTable::new(
            root,
            "data",
            settings.split,
            tasks_table.columns(),
            vec![tasks_table.footer()],
            settings.shard_bytes,
        )
        .map_err(write_err)?,
    )
    .map_err(write_err)?;
    let mut notes = BackgroundTable::start(
        ShardedTable::new(
            root,
            "annotations",
            settings.split,
            notes_table.columns(),
            Vec::new(),
            settings.shard_bytes,
        )
        .map_err(write_err)?,
    )
    .map_err(write_err)?;
    let models: HashMap<i64, String> = store
        .model_raters()?
        .into_iter()
        .map(|m| (m.rater.id, m.config.settings.model))
        .collect();
    let raters = store.list_raters()?;
    let model_names: HashMap<&str, &str> = raters
        .iter()
        .filter_map(|r| Some((r.name.as_str(), models.get(&r.id)?.as_str())))
        .collect();
    let people: Vec<(String, bool)> = raters
        .iter()
        .map(|r| (r.name.clone(), models.contains_key(&r.id)))
        .collect();
    let project_id = store.meta(super::PROJECT_ID)?.unwrap_or_default();
    let names = Pseudonyms::new(&project_id, &people, settings.rater_names);
    let questions = rated_questions(questionnaire);
    // The card's agreement, on each rater's first submissions, from the answers this pass reads.
    let mut first_tables: Vec<TableBuilder<'_>> =
        questions.iter().map(|q| TableBuilder::new(q)).collect();
    let mut versions: HashMap<i64, (String, String)> = HashMap::new();
    let mut tally = Tally::default();
    let mut rule = String::new();
    let mut filter = None;

    // Second pass: a slice of cases at a time, with their whole answers and the ensemble. The
    // tasks of a slice are read ahead while the rows of the slice before are written.
    let mut reader = read::Reader::start(store.as_ref())?;
    let mut slices = Panel::slices(project, SLICE)?;
    let mut pending: Option<Slice> = None;
    loop {
        let next = match slices.next() {
            Some(panel) => {
                let panel = panel?;
                for table in &mut first_tables {
                    table.add(&panel.first);
                }
                let report = build_ensemble(project, &panel, settings.rule)?;
                rule.clone_from(&report.rule);
                filter.clone_from(&report.filter);
                let slice = Slice::new(panel, report, settings.subset, &exportable, &mut tally);
                reader.ask(slice.rows.clone());
                Some(slice)
            }
            None => None,
        };
        let Some(slice) = std::mem::replace(&mut pending, next) else {
            if pending.is_none() {
                break;
            }
            continue;
        };
        let labels: HashMap<&str, _> = slice
            .report
            .cases
            .iter()
            .map(|c| (c.instance_id.as_str(), c))
            .collect();
        let latest = slice.panel.latest_by_case();
        for instance_id in &slice.rows {
            let Some(case) = reader.take()? else {
                continue;
            };
            let case_labels = labels.get(instance_id.as_str()).copied();
            let answers = latest.get(instance_id.as_str());
            let mut agreement = HashMap::new();
            for q in &questions {
                let positions: Vec<usize> = answers
                    .iter()
                    .flat_map(|c| c.answers.iter())
                    .filter_map(|(_, e)| option_index(q, e.answer.get(&q.id)?))
                    .collect();
                agreement.insert(q.id.as_str(), pairs(&positions));
            }
            let because = case_labels
                .map(|l| filter_reasons(questionnaire, &l.labels))
                .unwrap_or_default();
            if let Some(l) = case_labels {
                tally.adjudicated += l
                    .labels
                    .iter()
                    .filter(|l| l.procedure.as_deref() == Some("adjudicated"))
                    .count();
            }
            let task_panel = TaskPanel {
                labels: case_labels,
                because,
                pairs: agreement,
                names: &names,
            };
            tasks
                .write_row(tasks_table.row(case, &task_panel))
                .map_err(write_err)?;
            for (rater, event) in answers.iter().flat_map(|c| c.answers.iter()) {
                if let std::collections::hash_map::Entry::Vacant(e) =
                    versions.entry(event.questionnaire_id)
                {
                    let (id, version, _) = store.questionnaire_source(event.questionnaire_id)?;
                    e.insert((id, version));
                }
                let (qid, qversion) = &versions[&event.questionnaire_id];
                let model = model_names.get(&**rater).copied();
                match model {
                    Some(m) => tally.models.insert(m.to_string()),
                    None => tally.humans.insert(rater.to_string()),
                };
                let published = names.person(rater);
                notes
                    .write_row(notes_table.row(&Annotation {
                        instance_id,
                        rater: &published,
                        model,
                        questionnaire: (qid, qversion),
                        answer_revision: event.answer_revision,
                        submitted_at: &event.at,
                        answer: &event.answer,
                    }))
                    .map_err(write_err)?;
                tally.annotations += 1;
            }
        }
    }
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "dataset: rows made"
    );
    // The card's facts are gathered while the writing threads write the last rows.
    let sources = facts::sources(project)?;
    let assigned = facts::assigned(project)?;
    let calibration = store.calibration_tasks()?.len();
    let agreement = facts::agreement(first_tables)?;
    let scores = facts::scores(project)?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "dataset: card's facts gathered"
    );
    let task_shards = tasks.finish().map_err(write_err)?;
    let note_shards = notes.finish().map_err(write_err)?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "dataset: rows written"
    );
    let rows = |shards: &[Shard]| shards.iter().map(|s| s.rows).sum::<usize>();
    let card = Card {
        pretty_name: facts::pretty_name(project, &sources),
        license: settings.license.to_string(),
        split: settings.split.to_string(),
        kept_only: settings.subset == DatasetSubset::Kept,
        sources,
        questionnaire: (
            questionnaire.id.clone(),
            questionnaire.version.clone(),
            questionnaire.title.clone(),
        ),
        human_raters: tally.humans.len(),
        models: tally.models.into_iter().collect(),
        pseudonyms: !settings.rater_names,
        assigned,
        calibration,
        adjudicated: tally.adjudicated,
        rule,
        filter,
        counts: tally.counts,
        without_fields,
        agreement,
        bootstrap: facts::BOOTSTRAP,
        scores,
        configs: vec![
            CardConfig {
                name: "default".into(),
                folder: "data".into(),
                row: "a task: its SWE-bench fields as imported, then the panel's labels".into(),
                rows: rows(&task_shards),
                columns: tasks_table.fields.iter().map(|f| f.describe()).collect(),
            },
            CardConfig {
                name: "annotations".into(),
                folder: "annotations".into(),
                row: "one rater's latest submitted answer on one of the tasks".into(),
                rows: rows(&note_shards),
                columns: notes_table.fields.iter().map(|f| f.describe()).collect(),
            },
        ],
        made: (
            env!("CARGO_PKG_VERSION").to_string(),
            now.date().to_string(),
        ),
    };
    let text = card::render(&card);
    let card_path = root.join(CARD_FILE);
    std::fs::write(&card_path, &text).map_err(|source| Error::Write {
        path: card_path.clone(),
        source,
    })?;
    let mut files = vec![DatasetFile {
        path: CARD_FILE.into(),
        rows: 0,
        bytes: text.len() as u64,
    }];
    for shard in task_shards.iter().chain(&note_shards) {
        files.push(DatasetFile {
            path: shard.path.clone(),
            rows: shard.rows,
            bytes: shard.bytes,
        });
    }
    Ok(DatasetSummary {
        folder: root.display().to_string(),
        files,
        tasks: rows(&task_shards),
        annotations: tally.annotations,
        without_fields,
        replaced: false,
        card: text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_count_each_pair_of_raters_once() {
        assert_eq!(pairs(&[1, 1, 2]), (1, 3));
        assert_eq!(pairs(&[0]), (0, 0));
        assert_eq!(pairs(&[]), (0, 0));
    }
}
