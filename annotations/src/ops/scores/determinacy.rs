//! Which tasks are determinate: the panel's labels first, then reference label sets, then the
//! determinacy audit's verdicts, under the questionnaire's `[scores]` section; and the tasks a
//! determinate-only score leaves out.

use std::collections::HashMap;
use std::path::Path;

pub use crate::ops::verdict::Determinacy;
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::ops::ensemble::build_ensemble;
use crate::ops::submitted::Panel;
use crate::ops::verdict::judge;
use crate::ops::{Error, Project, Result};
use verity_task::questionnaire::{BUILTIN, Questionnaire, ScoresSpec};

/// Who decided a task's determinacy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum LabelSource {
    /// An adjudicator's decision on a question the filter reads.
    Adjudication,
    /// The panel's ensemble of raters' answers.
    Ensemble,
    /// An imported reference label set.
    Reference,
    /// The determinacy audit's verdict, imported with its case folder.
    Audit,
}

/// One task's determinacy, who decided it, and why.
#[derive(Debug, Clone)]
pub(super) struct TaskLabel {
    pub(super) determinacy: Determinacy,
    pub(super) source: Option<LabelSource>,
    pub(super) why: String,
}

/// Imported labels the questionnaire's `[scores]` does not read, so the tasks they would
/// decide are left unlabelled: which, on how many tasks, and what to run instead.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct UnreadLabels {
    /// The audit's verdicts, or a reference label set.
    pub source: LabelSource,
    /// The reference set's name; `null` for the audit.
    pub set: Option<String>,
    /// Tasks nothing else labels that these would.
    pub tasks: usize,
    /// Why they are not read and what to run, in one sentence.
    pub note: String,
}

/// Every task's determinacy, by case row id, with the tasks' ids.
pub(super) struct DeterminacyMap {
    /// (case row id, instance id), in instance-id order.
    pub(super) tasks: Vec<(i64, String)>,
    pub(super) labels: HashMap<i64, TaskLabel>,
    /// Imported labels the questionnaire does not read.
    pub(super) unread: Vec<UnreadLabels>,
    /// Why an unlabelled task is, when an unread label names it.
    pub(super) unread_why: HashMap<i64, String>,
}

pub(super) fn determinacy_map(project: &Project) -> Result<DeterminacyMap> {
    let spec = project.questionnaire.scores.as_ref();
    let tasks = project.store.case_instance_ids()?;
    let by_instance: HashMap<&str, i64> = tasks
        .iter()
        .map(|(id, name)| (name.as_str(), *id))
        .collect();
    let mut labels: HashMap<i64, TaskLabel> = HashMap::new();
    let panel = Panel::load_rated(project)?;
    if !panel.latest.is_empty() || !panel.adjudications.is_empty() {
        let report = build_ensemble(project, &panel, None)?;
        for case in &report.cases {
            let Some(&case_id) = by_instance.get(case.instance_id.as_str()) else {
                continue;
            };
            let value_of = |q: &str| {
                case.labels
                    .iter()
                    .find(|l| l.question == q)
                    .and_then(|l| l.value.clone())
            };
            let Some((determinacy, why)) = judge(project, spec, &value_of) else {
                continue;
            };
            let adjudicated = case
                .labels
                .iter()
                .any(|l| l.procedure.as_deref() == Some("adjudicated"));
            labels.insert(
                case_id,
                TaskLabel {
                    determinacy,
                    source: Some(if adjudicated {
                        LabelSource::Adjudication
                    } else {
                        LabelSource::Ensemble
                    }),
                    why: format!("the panel: {why}"),
                },
            );
        }
    }
    if spec.is_some_and(|s| s.reference) {
        // One row's labels at a time: a set of 50,000 rows held whole as JSON was most of the
        // 229 MB that scores of 100 systems on 50,000 tasks peaked at.
        for (set, _) in project.store.reference_sets()? {
            project.store.each_reference_label(&set, &mut |row| {
                if labels.contains_key(&row.case_id) {
                    return;
                }
                let values = row.labels.get("values").unwrap_or(&Value::Null);
                let value_of = |q: &str| values.get(q).cloned().filter(|v| !v.is_null());
                if let Some((determinacy, why)) = judge(project, spec, &value_of) {
                    labels.insert(
                        row.case_id,
                        TaskLabel {
                            determinacy,
                            source: Some(LabelSource::Reference),
                            why: format!("reference set {set}: {why}"),
                        },
                    );
                }
            })?;
        }
    }
    let tiers = spec.and_then(|s| s.audit.as_ref());
    if let Some(tiers) = tiers {
        for verdict in project.store.audit_verdicts()? {
            if labels.contains_key(&verdict.case_id) {
                continue;
            }
            let Some(status) = verdict.status.as_deref() else {
                continue;
            };
            let has = |list: &[String]| list.iter().any(|s| s == status);
            let determinacy = if has(&tiers.determinate) {
                Determinacy::Determinate
            } else if has(&tiers.underdetermined) {
                Determinacy::Underdetermined
            } else if has(&tiers.pending) {
                Determinacy::Pending
            } else {
                continue;
            };
            labels.insert(
                verdict.case_id,
                TaskLabel {
                    determinacy,
                    source: Some(LabelSource::Audit),
                    why: format!(
                        "the audit: {status}{}",
                        verdict
                            .witness_class
                            .map(|c| format!(" ({c})"))
                            .unwrap_or_default()
                    ),
                },
            );
        }
    }
    let mut unread = Vec::new();
    let mut unread_why = HashMap::new();
    if !spec.is_some_and(|s| s.reference) {
        for (set, _) in project.store.reference_sets()? {
            let mut tasks = 0;
            project.store.each_reference_label(&set, &mut |row| {
                if !labels.contains_key(&row.case_id) {
                    tasks += 1;
                    unread_why.entry(row.case_id).or_insert_with(|| {
                        format!(
                            "no panel label; reference set {set} labels it, which {} does not read (`verity scores` says what to run)",
                            questionnaire_name(project)
                        )
                    });
                }
            })?;
            if tasks > 0 {
                unread.push(UnreadLabels {
                    source: LabelSource::Reference,
                    note: unread_note(
                        project,
                        (
                            &format!("reference set {set}'s labels"),
                            "the reference file",
                        ),
                        tasks,
                        |s| s.reference,
                    ),
                    set: Some(set),
                    tasks,
                });
            }
        }
    }
    if tiers.is_none() {
        let mut tasks = 0;
        for verdict in project.store.audit_verdicts()? {
            if let Some(status) = &verdict.status
                && !labels.contains_key(&verdict.case_id)
            {
                tasks += 1;
                unread_why.insert(
                    verdict.case_id,
                    format!(
                        "no panel label; the audit's verdict ({status}) is not read by {} (`verity scores` says what to run)",
                        questionnaire_name(project)
                    ),
                );
            }
        }
        if tasks > 0 {
            unread.push(UnreadLabels {
                source: LabelSource::Audit,
                set: None,
                tasks,
                note: unread_note(
                    project,
                    ("the audit's verdicts", "the audit's folders"),
                    tasks,
                    |s| s.audit.is_some(),
                ),
            });
        }
    }
    Ok(DeterminacyMap {
        tasks,
        labels,
        unread,
        unread_why,
    })
}

/// The project's questionnaire as a sentence names it: `questionnaire swe-bench-verified 1.0.0`.
fn questionnaire_name(project: &Project) -> String {
    format!(
        "questionnaire {} {}",
        project.questionnaire.id, project.questionnaire.version
    )
}

/// One sentence on imported labels the questionnaire does not read: `what` on `tasks` tasks,
/// what the questionnaire reads instead, and the shipped questionnaire that `reads` them, in a
/// new project that imports `source` again.
fn unread_note(
    project: &Project,
    (what, source): (&str, &str),
    tasks: usize,
    reads: impl Fn(&ScoresSpec) -> bool,
) -> String {
    let spec = project.questionnaire.scores.as_ref();
    let mut sources = vec!["the panel's labels"];
    if spec.is_some_and(|s| s.reference) {
        sources.push("reference label sets");
    }
    if spec.is_some_and(|s| s.audit.is_some()) {
        sources.push("the audit's verdicts");
    }
    let instead = BUILTIN
        .iter()
        .filter_map(|(id, _)| Questionnaire::builtin(id).ok())
        .find(|q| q.scores.as_ref().is_some_and(&reads))
        .map_or_else(
            || "; no questionnaire Verity ships reads them".to_string(),
            |q| {
                format!(
                    "; to score by them, make a project with `verity init --questionnaire {}` and import the tasks, {source} and the results into it",
                    q.id
                )
            },
        );
    format!(
        "{what} on {} are not read: {} decides which tasks are determinate by {} alone{instead}",
        crate::ops::counted(tasks, "task"),
        questionnaire_name(project),
        sources.join(" and "),
    )
}

impl LabelSource {
    /// The name used in files and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            LabelSource::Adjudication => "adjudication",
            LabelSource::Ensemble => "ensemble",
            LabelSource::Reference => "reference",
            LabelSource::Audit => "audit",
        }
    }
}

impl DeterminacyMap {
    pub(super) fn of(&self, case_id: i64) -> Determinacy {
        self.labels
            .get(&case_id)
            .map_or(Determinacy::Unlabelled, |l| l.determinacy)
    }
}
/// A task a determinate-only score leaves out, and why.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct LeftOutTask {
    /// The task.
    pub instance_id: String,
    /// `underdetermined`, `pending` or `unlabelled`.
    pub determinacy: Determinacy,
    /// Who decided; `null` for an unlabelled task.
    pub source: Option<LabelSource>,
    /// Why, in words.
    pub why: String,
}

/// Every task a determinate-only score leaves out, in id order, and the imported labels the
/// questionnaire does not read (which leave tasks unlabelled). A coordinator function.
pub fn left_out_tasks(project: &Project) -> Result<(Vec<LeftOutTask>, Vec<UnreadLabels>)> {
    project.require_coordinator("reads the panel's labels")?;
    let map = determinacy_map(project)?;
    let mut out: Vec<LeftOutTask> =
        map.tasks
            .iter()
            .filter_map(|(id, instance_id)| {
                let (determinacy, source, why) = match map.labels.get(id) {
                    Some(l) if l.determinacy == Determinacy::Determinate => return None,
                    Some(l) => (l.determinacy, l.source, l.why.clone()),
                    None => (
                        Determinacy::Unlabelled,
                        None,
                        map.unread_why.get(id).cloned().unwrap_or_else(|| {
                            "no panel label and no imported verdict".to_string()
                        }),
                    ),
                };
                Some(LeftOutTask {
                    instance_id: instance_id.clone(),
                    determinacy,
                    source,
                    why,
                })
            })
            .collect();
    out.sort_by(|a, b| crate::ops::natural_cmp(&a.instance_id, &b.instance_id));
    Ok((out, map.unread))
}

/// Writes [`left_out_tasks`] as CSV (`instance_id,determinacy,source,why`); returns the rows
/// and the notes on imported labels the questionnaire does not read.
pub(in crate::ops) fn write_left_out(
    project: &Project,
    out: &mut dyn std::io::Write,
    out_path: &Path,
) -> Result<(usize, Vec<String>)> {
    let (tasks, unread) = left_out_tasks(project)?;
    let failed = |e: csv::Error| Error::Write {
        path: out_path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let mut writer = csv::Writer::from_writer(out);
    writer
        .write_record(["instance_id", "determinacy", "source", "why"])
        .map_err(failed)?;
    for t in &tasks {
        writer
            .write_record([
                t.instance_id.as_str(),
                t.determinacy.name(),
                t.source.map_or("", LabelSource::name),
                t.why.as_str(),
            ])
            .map_err(failed)?;
    }
    writer.flush().map_err(|source| Error::Write {
        path: out_path.to_path_buf(),
        source,
    })?;
    Ok((tasks.len(), unread.into_iter().map(|u| u.note).collect()))
}
