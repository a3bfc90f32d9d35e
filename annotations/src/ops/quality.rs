//! Each rater's quality, per question: against a reference label set on the calibration tasks
//! (or, when none are marked, on every task the set labels), against the rest of the panel, and
//! their pace.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use super::submitted::{
    CaseAnswers, Panel, level_of, option_index, question_table, rated_questions,
};
use super::{Error, ErrorCode, Project, Result};
use crate::import::openai_csv::ReferenceLabels;
use verity_stats::agreement::quality::{
    AgainstReference, PanelLeaveOneOut, ReferenceFigures, against_reference, leave_one_out, pace,
};
use verity_stats::agreement::{BootstrapOptions, Category, Undefined};
use verity_stats::natural::natural_cmp;
use verity_task::questionnaire::Question;

/// What to measure.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(export)]
pub struct QualityRequest {
    /// One question (id or number); every rated question when absent.
    pub question: Option<String>,
    /// The reference label set; the project's only one when absent.
    pub reference: Option<String>,
    /// Bootstrap resamples for the bias intervals (1,000 when absent).
    pub bootstrap: Option<usize>,
    /// The bootstrap's seed.
    #[serde(default)]
    #[ts(type = "number")]
    pub seed: u64,
}

/// A figure over some tasks: accuracy, kappa and bias, `null` with a reason when undefined.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct BlockFigures {
    /// Tasks in the block.
    pub tasks: usize,
    /// Share of tasks where the rater gave the reference's label.
    pub accuracy: Option<f64>,
    /// Cohen's kappa against the reference, linear on ordered scales.
    pub weighted_kappa: Option<f64>,
    /// Mean of (rater − reference).
    pub bias: Option<f64>,
}

/// A mean with its interval.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct BiasFigure {
    /// The mean of (rater − reference), in the scale's values (positions where options carry
    /// no number, as the difficulty buckets).
    pub mean: Option<f64>,
    /// Its 95% percentile bootstrap interval.
    #[ts(type = "[number, number] | null")]
    pub ci95: Option<[f64; 2]>,
}

/// One rater's figures on one question beyond the headline ones.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct QuestionDetail {
    /// The question's categories, in scale order.
    pub categories: Vec<String>,
    /// `confusion[i][j]`: tasks where the rater chose category `i` and the reference `j`.
    #[ts(type = "number[][]")]
    pub confusion: Vec<Vec<u64>>,
    /// The figures over successive blocks of 20 reference tasks, in answering order.
    pub drift: Vec<BlockFigures>,
    /// Krippendorff's alpha of the panel without this rater (compare with `panel_alpha`).
    pub alpha_without: Option<f64>,
    /// Krippendorff's alpha of the whole panel.
    pub panel_alpha: Option<f64>,
    /// Tasks the rater shares with another rater.
    pub shared_tasks: usize,
    /// Cohen's kappa (linear on ordered scales) against the other raters' consensus.
    pub kappa_vs_consensus: Option<f64>,
}

/// One rater's quality.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct RaterQuality {
    /// The rater.
    pub rater: String,
    /// Tasks the rater submitted.
    pub tasks: usize,
    /// Of those, the reference tasks the figures against the reference rest on.
    pub calibration_tasks: usize,
    /// Question id to accuracy against the reference.
    pub accuracy: BTreeMap<String, Option<f64>>,
    /// Question id to weighted kappa against the reference.
    pub weighted_kappa: BTreeMap<String, Option<f64>>,
    /// Question id to signed bias.
    pub bias: BTreeMap<String, BiasFigure>,
    /// Median active seconds per submitted task (tasks with recorded time).
    pub median_active_seconds: Option<f64>,
    /// Tasks submitted much faster than both the panel's and the rater's own median.
    pub fast_submissions: Vec<String>,
    /// Question id to the confusion matrix, drift and agreement with the panel.
    pub questions: BTreeMap<String, QuestionDetail>,
    /// Why a value is `null`, by its key (`accuracy.underspecified`, `median_active_seconds`).
    pub reasons: BTreeMap<String, String>,
}

/// Every rater's quality, in natural name order (rater 2 before rater 10).
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct QualityReport {
    /// The reference set the figures use, if the project has one.
    pub reference: Option<String>,
    /// True when they rest on tasks marked as calibration tasks, false when on every task the
    /// set labels.
    pub calibration_marked: bool,
    /// The questions measured.
    pub questions: Vec<String>,
    /// The panel's median active seconds per submitted task.
    pub panel_median_active_seconds: Option<f64>,
    /// One entry per rater.
    pub raters: Vec<RaterQuality>,
}

/// Each stored reference label of a set: task id to question id to value.
pub(super) fn reference_values(
    project: &Project,
    set: &str,
) -> Result<HashMap<String, Map<String, Value>>> {
    project
        .store
        .reference_labels(set)?
        .into_iter()
        .map(|row| {
            let stored: ReferenceLabels = serde_json::from_value(row.labels).map_err(|e| {
                Error::refused(
                    ErrorCode::Store,
                    format!(
                        "the stored labels of {} in reference set {set} cannot be read: {e}",
                        row.instance_id
                    ),
                )
            })?;
            Ok((row.instance_id, stored.values))
        })
        .collect()
}

fn pick_questions<'a>(project: &'a Project, id: Option<&str>) -> Result<Vec<&'a Question>> {
    let rated = rated_questions(&project.questionnaire);
    match id {
        None => Ok(rated),
        Some(id) => rated
            .iter()
            .find(|q| q.id == id || q.number == id)
            .map(|q| vec![*q])
            .ok_or_else(|| {
                Error::NotFound(format!(
                    "questionnaire {} has no rated question {id:?}; its rated questions are {}",
                    project.questionnaire.id,
                    rated
                        .iter()
                        .map(|q| format!("{} ({})", q.id, q.number))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }),
    }
}

fn pick_reference(project: &Project, asked: Option<&str>) -> Result<Option<String>> {
    let sets: Vec<String> = project
        .store
        .reference_sets()?
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    match asked {
        Some(name) if sets.iter().any(|s| s == name) => Ok(Some(name.to_string())),
        Some(name) => Err(Error::NotFound(format!(
            "the project has no reference set {name:?}{}",
            if sets.is_empty() {
                String::new()
            } else {
                format!(" (its sets: {})", sets.join(", "))
            }
        ))),
        None if sets.len() > 1 => Err(Error::refused(
            ErrorCode::Ambiguous,
            format!(
                "the project holds {} reference sets ({}): name one with --reference",
                sets.len(),
                sets.join(", ")
            ),
        )),
        None => Ok(sets.into_iter().next()),
    }
}

fn categories_of(question: &Question) -> Vec<Category> {
    question
        .options
        .iter()
        .map(|o| match o.value.as_f64() {
            Some(v) => Category::labelled_number(o.label.clone(), v),
            None => Category::label(o.label.clone()),
        })
        .collect()
}

fn block(figures: &ReferenceFigures) -> BlockFigures {
    BlockFigures {
        tasks: figures.units,
        accuracy: figures.accuracy.as_ref().ok().copied(),
        weighted_kappa: figures.weighted_kappa.as_ref().ok().copied(),
        bias: figures.bias.mean.as_ref().ok().copied(),
    }
}

/// Records a value and, when it is undefined, its reason under `key`.
fn keep<T: Clone>(
    reasons: &mut BTreeMap<String, String>,
    key: String,
    value: &std::result::Result<T, Undefined>,
) -> Option<T> {
    match value {
        Ok(v) => Some(v.clone()),
        Err(u) => {
            reasons.insert(key, u.reason.clone());
            None
        }
    }
}

/// Each rater's quality. Figures against the reference use each rater's first submission on
/// the calibration tasks (every task the reference labels when none is marked); agreement with
/// the panel uses every first submission; pace uses the active time of submitted tasks.
pub fn rater_quality(project: &Project, req: &QualityRequest) -> Result<QualityReport> {
    project.require_coordinator("reads every rater's answers")?;
    let questions = pick_questions(project, req.question.as_deref())?;
    let reference = pick_reference(project, req.reference.as_deref())?;
    let labels = match &reference {
        Some(set) => reference_values(project, set)?,
        None => HashMap::new(),
    };
    let marked: Vec<String> = project.store.calibration_tasks()?;
    let calibration_marked = !marked.is_empty();
    let on_calibration = |instance_id: &str| {
        labels.contains_key(instance_id)
            && (!calibration_marked || marked.iter().any(|m| m == instance_id))
    };
    let options = BootstrapOptions {
        resamples: req.bootstrap.unwrap_or(1000),
        seed: req.seed,
        confidence: 0.95,
    };
    let panel = Panel::load_rated(project)?;

    // Who submitted what, when: drift follows each rater's order of first submissions.
    let mut submitted: BTreeMap<String, Vec<(String, &str, i64)>> = BTreeMap::new();
    for case in &panel.first {
        for (rater, event) in &case.answers {
            submitted.entry(rater.to_string()).or_default().push((
                event.at.clone(),
                case.instance_id.as_str(),
                event.case_id,
            ));
        }
    }
    for list in submitted.values_mut() {
        list.sort();
    }
    let mut names: Vec<String> = submitted.keys().cloned().collect();
    names.sort_by(|a, b| natural_cmp(a, b));

    // Pace: active time of submitted tasks with recorded time.
    let rater_ids: HashMap<i64, String> = project
        .store
        .list_raters()?
        .into_iter()
        .map(|r| (r.id, r.name))
        .collect();
    let active: HashMap<(i64, String), i64> = project
        .store
        .list_assignments()?
        .into_iter()
        .filter_map(|a| {
            Some((
                (a.case_id, rater_ids.get(&a.rater_id)?.clone()),
                a.active_ms,
            ))
        })
        .collect();
    let times: Vec<(String, Vec<(String, f64)>)> = names
        .iter()
        .map(|name| {
            let tasks = submitted[name]
                .iter()
                .filter_map(|(_, instance_id, case_id)| {
                    let ms = *active.get(&(*case_id, name.clone()))?;
                    (ms > 0).then(|| (instance_id.to_string(), ms as f64 / 1000.0))
                })
                .collect();
            (name.clone(), tasks)
        })
        .collect();
    let all_times: Vec<f64> = times
        .iter()
        .flat_map(|(_, t)| t.iter().map(|(_, s)| *s))
        .collect();
    let paces: HashMap<String, _> = pace(&times).into_iter().collect();

    // Per question: the panel table, leave-one-out, and each rater's pairs with the reference.
    struct PerQuestion<'q> {
        question: &'q Question,
        categories: Vec<Category>,
        loo: PanelLeaveOneOut,
        against: HashMap<String, AgainstReference>,
    }
    let by_case: HashMap<i64, &CaseAnswers> = panel.first.iter().map(|c| (c.case_id, c)).collect();
    let mut per_question = Vec::new();
    for question in &questions {
        let table = question_table(question, &panel.first)?;
        let loo = leave_one_out(&table)?;
        let categories = categories_of(question);
        let level = level_of(question.level);
        let mut against = HashMap::new();
        for name in &names {
            let pairs: Vec<(u32, u32)> = submitted[name]
                .iter()
                .filter(|(_, instance_id, _)| on_calibration(instance_id))
                .filter_map(|(_, instance_id, case_id)| {
                    let answer = by_case
                        .get(case_id)?
                        .answers
                        .iter()
                        .find(|(r, _)| **r == **name)?;
                    let own = option_index(question, answer.1.answer.get(&question.id)?)?;
                    let truth =
                        option_index(question, labels.get(*instance_id)?.get(&question.id)?)?;
                    Some((own as u32, truth as u32))
                })
                .collect();
            against.insert(
                name.clone(),
                against_reference(&pairs, &categories, level, &options)?,
            );
        }
        per_question.push(PerQuestion {
            question,
            categories,
            loo,
            against,
        });
    }

    let mut raters = Vec::new();
    for name in &names {
        let mut reasons = BTreeMap::new();
        let mut accuracy = BTreeMap::new();
        let mut weighted_kappa = BTreeMap::new();
        let mut bias = BTreeMap::new();
        let mut details = BTreeMap::new();
        let no_reference = Undefined {
            reason: "the project holds no reference labels: import a reference set (OpenAI's ensembled file, say)".into(),
        };
        for pq in &per_question {
            let id = &pq.question.id;
            let figures = pq.against.get(name);
            let overall = figures.map(|f| &f.overall);
            let pick =
                |value: Option<&std::result::Result<f64, Undefined>>| match (&reference, value) {
                    (Some(_), Some(v)) => v.clone(),
                    _ => Err(no_reference.clone()),
                };
            accuracy.insert(
                id.clone(),
                keep(
                    &mut reasons,
                    format!("accuracy.{id}"),
                    &pick(overall.map(|o| &o.accuracy)),
                ),
            );
            weighted_kappa.insert(
                id.clone(),
                keep(
                    &mut reasons,
                    format!("weighted_kappa.{id}"),
                    &pick(overall.map(|o| &o.weighted_kappa)),
                ),
            );
            let mean = keep(
                &mut reasons,
                format!("bias.{id}"),
                &pick(overall.map(|o| &o.bias.mean)),
            );
            let ci95 = overall.and_then(|o| o.bias.ci95.as_ref().ok().copied());
            bias.insert(id.clone(), BiasFigure { mean, ci95 });
            let mine = pq.loo.raters.iter().find(|r| r.rater == *name);
            details.insert(
                id.clone(),
                QuestionDetail {
                    categories: pq.categories.iter().map(|c| c.label.clone()).collect(),
                    confusion: figures.map(|f| f.confusion.clone()).unwrap_or_default(),
                    drift: figures
                        .map(|f| f.drift.iter().map(block).collect())
                        .unwrap_or_default(),
                    alpha_without: mine.and_then(|m| {
                        keep(
                            &mut reasons,
                            format!("alpha_without.{id}"),
                            &m.alpha_without,
                        )
                    }),
                    panel_alpha: pq.loo.alpha.as_ref().ok().copied(),
                    shared_tasks: mine.map_or(0, |m| m.shared_units),
                    kappa_vs_consensus: mine.and_then(|m| {
                        keep(
                            &mut reasons,
                            format!("kappa_vs_consensus.{id}"),
                            &m.kappa_vs_consensus,
                        )
                    }),
                },
            );
        }
        let rater_pace = paces.get(name);
        let median_active_seconds = rater_pace.and_then(|p| {
            keep(
                &mut reasons,
                "median_active_seconds".into(),
                &p.median_active_seconds,
            )
        });
        raters.push(RaterQuality {
            rater: name.clone(),
            tasks: submitted[name].len(),
            calibration_tasks: submitted[name]
                .iter()
                .filter(|(_, instance_id, _)| on_calibration(instance_id))
                .count(),
            accuracy,
            weighted_kappa,
            bias,
            median_active_seconds,
            fast_submissions: rater_pace
                .map(|p| p.fast_submissions.clone())
                .unwrap_or_default(),
            questions: details,
            reasons,
        });
    }
    Ok(QualityReport {
        reference,
        calibration_marked,
        questions: questions.iter().map(|q| q.id.clone()).collect(),
        panel_median_active_seconds: verity_stats::agreement::quality::median(&all_times),
        raters,
    })
}
