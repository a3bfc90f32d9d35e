//! The coordinator's use cases: agreement, ensembles, disagreements, adjudication, OpenAI's
//! annotation files, exports and the report.
//!
//! Blindness: every function here that returns raters' answers ([`list_disagreements`],
//! [`ensemble_labels`], the exports, [`project_agreement`]'s confusion matrices) is for the
//! coordinator; a rater's view calls only [`super::current_answer`] and the queue, which never
//! show another rater's answers.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use ts_rs::TS;

use super::{Error, ImportedPath, Project, Result, find_case, stamp};
use crate::agreement::{
    self, AgreementReport, BootstrapOptions, Category, Level, RatingTable, ReportOptions, Weights,
};
use crate::ensemble::{self, Decision, EnsembleRule, Procedure, RaterAnswer};
use crate::export;
use crate::import::ImportError;
use crate::import::openai_csv::{self, OpenAiFile, ReferenceLabels};
use crate::questionnaire::{MeasurementLevel, Question, QuestionKind, Questionnaire, Stage};
use crate::store::{AnswerEvent, EventKind, ImportSession, NewAnswerEvent};

// ---------------------------------------------------------------------------------------------
// Ratings files

/// Agreement on a long-format ratings file (`unit,rater,value`): every coefficient, with
/// bootstrap intervals when `bootstrap` is given.
pub fn agreement_on_ratings(
    path: &Path,
    level: Option<Level>,
    categories: Option<Vec<String>>,
    bootstrap: Option<BootstrapOptions>,
) -> Result<AgreementReport> {
    let table = crate::import::ratings_csv::read_ratings(path, level, categories)?;
    Ok(agreement::compute_report(
        &table,
        &ReportOptions { bootstrap },
    )?)
}

// ---------------------------------------------------------------------------------------------
// Shared reading of the panel's answers

/// A position on a question's declared scale, shown as the option's value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Choice {
    index: usize,
    text: String,
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The index of an answer among the question's options, through the questionnaire's one
/// decoder (an imported `1.0`, a typed `1` and an older Verity's `"1"` are the same option).
fn option_index(question: &Question, value: &Value) -> Option<usize> {
    question.option_index(value)
}

fn rated_questions(questionnaire: &Questionnaire) -> Vec<&Question> {
    questionnaire
        .questions()
        .filter(|q| q.kind != QuestionKind::Text)
        .collect()
}

fn level_of(level: MeasurementLevel) -> Level {
    match level {
        MeasurementLevel::Nominal => Level::Nominal,
        MeasurementLevel::Ordinal => Level::Ordinal,
        MeasurementLevel::Interval => Level::Interval,
        MeasurementLevel::Ratio => Level::Ratio,
    }
}

/// The answers of one case, rater by rater in the order they first submitted.
#[derive(Debug, Clone)]
struct CaseAnswers {
    case_id: i64,
    instance_id: String,
    /// (rater, event) in first-submission order.
    answers: Vec<(String, AnswerEvent)>,
}

/// Everything the coordinator's functions read, loaded once.
struct Panel {
    instance_ids: HashMap<i64, String>,
    first: Vec<CaseAnswers>,
    latest: Vec<CaseAnswers>,
    adjudications: HashMap<(i64, String), crate::store::AdjudicationRow>,
}

fn group(
    events: Vec<AnswerEvent>,
    order: &HashMap<(i64, i64), i64>,
    raters: &HashMap<i64, String>,
    instance_ids: &HashMap<i64, String>,
) -> Vec<CaseAnswers> {
    let mut by_case: BTreeMap<String, CaseAnswers> = BTreeMap::new();
    for event in events {
        let Some(instance_id) = instance_ids.get(&event.case_id) else {
            continue;
        };
        let entry = by_case
            .entry(instance_id.clone())
            .or_insert_with(|| CaseAnswers {
                case_id: event.case_id,
                instance_id: instance_id.clone(),
                answers: Vec::new(),
            });
        let rater = raters.get(&event.rater_id).cloned().unwrap_or_default();
        entry.answers.push((rater, event));
    }
    for case in by_case.values_mut() {
        case.answers
            .sort_by_key(|(_, e)| order.get(&(e.case_id, e.rater_id)).copied().unwrap_or(e.id));
    }
    by_case.into_values().collect()
}

impl Panel {
    fn load(project: &Project) -> Result<Panel> {
        let store = &project.store;
        let names: HashMap<i64, String> = store
            .list_raters()?
            .into_iter()
            .map(|r| (r.id, r.name))
            .collect();
        let instance_ids: HashMap<i64, String> = store
            .list_cases()?
            .into_iter()
            .map(|c| (c.case_id, c.instance_id))
            .collect();
        let decode = |mut events: Vec<AnswerEvent>| {
            for event in &mut events {
                event.answer = project.questionnaire.decode_answer(&event.answer);
            }
            events
        };
        let first = decode(store.first_submissions()?);
        let order: HashMap<(i64, i64), i64> = first
            .iter()
            .map(|e| ((e.case_id, e.rater_id), e.id))
            .collect();
        let latest = decode(store.latest_submissions()?);
        let adjudications = store
            .latest_adjudications()?
            .into_iter()
            .map(|a| ((a.case_id, a.question.clone()), a))
            .collect();
        Ok(Panel {
            first: group(first, &order, &names, &instance_ids),
            latest: group(latest, &order, &names, &instance_ids),
            instance_ids,
            adjudications,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Agreement per question of the project

/// What [`project_agreement`] computes.
#[derive(Debug, Clone, Default, Serialize, Deserialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct AgreementRequest {
    /// One question only, by id; every scale, choice and yes/no question when absent.
    #[serde(default)]
    pub question: Option<String>,
    /// Bootstrap resamples for 95% intervals; none when absent.
    #[serde(default)]
    pub bootstrap: Option<usize>,
    /// The bootstrap's seed.
    #[serde(default)]
    #[ts(type = "number")]
    pub seed: u64,
}

/// One coefficient of a question, for the dashboard's table.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct CoefficientRow {
    /// The key path in the report (`krippendorff_alpha.ordinal`).
    pub key: String,
    /// The name shown.
    pub name: String,
    /// The value, or `null` when undefined.
    pub value: Option<f64>,
    /// The 95% interval `[low, high]` when bootstrapped and defined.
    #[ts(type = "[number, number] | null")]
    pub ci95: Option<[f64; 2]>,
    /// Why the value (or interval) is undefined.
    pub reason: Option<String>,
}

/// Cohen's kappa of every rater pair, in the sorted rater order.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct PairMatrix {
    /// Rater names; rows and columns follow this order.
    pub raters: Vec<String>,
    /// `unweighted` for nominal questions, `linear` for ordered ones.
    pub weights: String,
    /// `kappa[i][j]`; `null` on the diagonal and where undefined.
    pub kappa: Vec<Vec<Option<f64>>>,
    /// Units both raters rated.
    pub units: Vec<Vec<usize>>,
}

/// The counts of category pairs of two raters on the units both rated.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct PairConfusion {
    /// Rows.
    pub rater_a: String,
    /// Columns.
    pub rater_b: String,
    /// `counts[i][j]`: units where the first rater chose category `i` and the second `j`.
    pub counts: Vec<Vec<usize>>,
    /// Units both rated.
    pub units: usize,
}

/// How often a category was chosen.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct CategoryCount {
    /// The category, as the option's value.
    pub category: String,
    /// Raters' first submissions choosing it.
    pub answers: usize,
    /// Cases whose ensemble label it is.
    pub labels: usize,
}

/// How the panel's ensemble compares with a reference label set on one question.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ReferenceAgreement {
    /// The reference set's name.
    pub set: String,
    /// Cases with both a panel label and a reference label.
    pub units: usize,
    /// The share of those cases with the same label.
    pub percent_agreement: Option<f64>,
    /// Cohen's kappa, unweighted.
    pub kappa: Option<f64>,
    /// Cohen's kappa, linear weights (ordered questions).
    pub kappa_linear: Option<f64>,
    /// Why values are undefined.
    pub reasons: BTreeMap<String, String>,
}

/// Agreement on one question.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct QuestionAgreement {
    /// The question's id.
    pub question: String,
    /// Its number (`1.1`).
    pub number: String,
    /// The level agreement is measured at.
    pub level: MeasurementLevel,
    /// The categories, in the questionnaire's order.
    pub categories: Vec<String>,
    /// The coefficients.
    pub coefficients: Vec<CoefficientRow>,
    /// The full report, in the `verity agreement --json` shape.
    #[ts(type = "Record<string, unknown>")]
    pub report: Value,
    /// Cohen's kappa per rater pair.
    pub pair_matrix: PairMatrix,
    /// A confusion matrix per rater pair with at least one shared case.
    pub confusion: Vec<PairConfusion>,
    /// Answers and labels per category.
    pub distribution: Vec<CategoryCount>,
    /// Comparison of the panel's ensemble with each reference label set.
    pub reference: Vec<ReferenceAgreement>,
}

/// Agreement per question over the raters' first submissions.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ProjectAgreement {
    /// The questionnaire's id and version.
    pub questionnaire: String,
    /// Cases with at least one submission.
    pub cases: usize,
    /// Raters with at least one submission.
    pub raters: Vec<String>,
    /// Per question.
    pub questions: Vec<QuestionAgreement>,
    /// Text questions, which agreement does not cover.
    pub skipped: Vec<String>,
}

fn categories_of(question: &Question) -> Vec<Category> {
    question
        .options
        .iter()
        .map(|o| match o.value.as_f64() {
            Some(v) => Category::labelled_number(value_text(&o.value), v),
            None => Category::label(value_text(&o.value)),
        })
        .collect()
}

/// The units × raters table of one question over some answers.
fn question_table(question: &Question, cases: &[CaseAnswers]) -> Result<RatingTable> {
    let mut raters: Vec<String> = cases
        .iter()
        .flat_map(|c| c.answers.iter())
        .filter(|(_, e)| {
            e.answer
                .get(&question.id)
                .is_some_and(|v| option_index(question, v).is_some())
        })
        .map(|(r, _)| r.clone())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    raters.sort();
    let column: HashMap<&str, usize> = raters
        .iter()
        .enumerate()
        .map(|(i, r)| (r.as_str(), i))
        .collect();
    let mut units = Vec::new();
    let mut cells = Vec::new();
    for case in cases {
        let mut row = vec![None; raters.len()];
        let mut any = false;
        for (rater, event) in &case.answers {
            let Some(value) = event.answer.get(&question.id) else {
                continue;
            };
            let Some(index) = option_index(question, value) else {
                continue;
            };
            if let Some(&col) = column.get(rater.as_str()) {
                row[col] = Some(index as u32);
                any = true;
            }
        }
        if any {
            units.push(case.instance_id.clone());
            cells.extend(row);
        }
    }
    Ok(RatingTable::new(
        units,
        raters,
        categories_of(question),
        level_of(question.level),
        cells,
    )?)
}

fn coefficient_rows(report: &AgreementReport) -> Vec<CoefficientRow> {
    let ci = report.ci95.as_ref();
    let mut rows = Vec::new();
    let mut push = |key: String, name: String, value: Option<f64>, interval: Option<[f64; 2]>| {
        let reason = report
            .reasons
            .get(&key)
            .or_else(|| report.reasons.get(&format!("ci95.{key}")))
            .cloned();
        rows.push(CoefficientRow {
            key,
            name,
            value,
            ci95: interval,
            reason,
        });
    };
    push(
        "percent_agreement".into(),
        "percent agreement".into(),
        report.percent_agreement,
        ci.and_then(|c| c.percent_agreement),
    );
    push(
        "fleiss_kappa".into(),
        format!(
            "Fleiss' kappa ({} complete units)",
            report.fleiss_kappa.units
        ),
        report.fleiss_kappa.value,
        ci.and_then(|c| c.fleiss_kappa),
    );
    push(
        "fleiss_kappa_all_units".into(),
        "Fleiss' kappa, all units (Gwet)".into(),
        report.fleiss_kappa_all_units,
        ci.and_then(|c| c.fleiss_kappa_all_units),
    );
    for (metric, value) in &report.krippendorff_alpha {
        push(
            format!("krippendorff_alpha.{metric}"),
            format!("Krippendorff's alpha, {metric}"),
            *value,
            ci.and_then(|c| c.krippendorff_alpha.get(metric).copied().flatten()),
        );
    }
    push(
        "gwet_ac1".into(),
        "Gwet's AC1".into(),
        report.gwet_ac1,
        ci.and_then(|c| c.gwet_ac1),
    );
    if report.level != Level::Nominal {
        push(
            "gwet_ac2.linear".into(),
            "Gwet's AC2, linear".into(),
            report.gwet_ac2.linear,
            ci.and_then(|c| c.gwet_ac2.linear),
        );
        push(
            "gwet_ac2.quadratic".into(),
            "Gwet's AC2, quadratic".into(),
            report.gwet_ac2.quadratic,
            ci.and_then(|c| c.gwet_ac2.quadratic),
        );
    }
    rows
}

fn pair_views(table: &RatingTable) -> Result<(PairMatrix, Vec<PairConfusion>)> {
    let weights = if table.level() == Level::Nominal {
        Weights::Unweighted
    } else {
        Weights::Linear
    };
    let matrix = agreement::cohen_kappa_matrix(table, weights);
    let r = table.raters().len();
    let mut kappa = vec![vec![None; r]; r];
    let mut units = vec![vec![0; r]; r];
    for (a, row) in matrix.kappa.iter().enumerate() {
        for (b, coefficient) in row.iter().enumerate() {
            if let Some(c) = coefficient {
                kappa[a][b] = c.value();
                units[a][b] = c.units;
            }
        }
    }
    let mut confusion = Vec::new();
    for (a, row) in units.iter().enumerate() {
        for (b, &shared) in row.iter().enumerate().skip(a + 1) {
            if shared == 0 {
                continue;
            }
            let m = agreement::confusion_matrix(table, a, b)?;
            confusion.push(PairConfusion {
                rater_a: m.rater_a,
                rater_b: m.rater_b,
                counts: m
                    .counts
                    .iter()
                    .map(|row| row.iter().map(|&n| n as usize).collect())
                    .collect(),
                units: m.units,
            });
        }
    }
    Ok((
        PairMatrix {
            raters: table.raters().to_vec(),
            weights: weights.name().into(),
            kappa,
            units,
        },
        confusion,
    ))
}

/// The panel's labels against a reference set's, as a two-rater table.
fn reference_agreement(
    question: &Question,
    set: &str,
    panel: &BTreeMap<String, Value>,
    reference: &BTreeMap<String, Value>,
) -> Result<ReferenceAgreement> {
    let mut units = Vec::new();
    let mut cells = Vec::new();
    for (id, label) in panel {
        let (Some(a), Some(b)) = (
            option_index(question, label),
            reference.get(id).and_then(|v| option_index(question, v)),
        ) else {
            continue;
        };
        units.push(id.clone());
        cells.push(Some(a as u32));
        cells.push(Some(b as u32));
    }
    let table = RatingTable::new(
        units,
        vec!["panel".into(), format!("reference:{set}")],
        categories_of(question),
        level_of(question.level),
        cells,
    )?;
    let n = table.units().len();
    let report = agreement::compute_report(&table, &ReportOptions::default())?;
    let pair = report.cohen_kappa.values().next();
    let mut reasons = BTreeMap::new();
    for (key, reason) in &report.reasons {
        if key == "percent_agreement" || key.starts_with("cohen_kappa.") {
            reasons.insert(key.clone(), reason.clone());
        }
    }
    Ok(ReferenceAgreement {
        set: set.to_string(),
        units: n,
        percent_agreement: report.percent_agreement,
        kappa: pair.and_then(|p| p.unweighted),
        kappa_linear: pair.and_then(|p| p.linear),
        reasons,
    })
}

/// Agreement per scale, choice and yes/no question of the project's questionnaire, at each
/// question's level of measurement with its categories in the declared order, over every
/// rater's first submission (blind, before any discussion or revision). Text questions are
/// listed in `skipped`. A coordinator function: confusion matrices show raters' answers.
pub fn project_agreement(project: &Project, req: &AgreementRequest) -> Result<ProjectAgreement> {
    let questionnaire = &project.questionnaire;
    let questions: Vec<&Question> = match &req.question {
        Some(id) => {
            let q = questionnaire
                .questions()
                .find(|q| q.id == *id || q.number == *id)
                .ok_or_else(|| {
                    Error::NotFound(format!(
                        "questionnaire {} has no question {id:?}; its rated questions are {}",
                        questionnaire.id,
                        rated_questions(questionnaire)
                            .iter()
                            .map(|q| format!("{} ({})", q.id, q.number))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?;
            if q.kind == QuestionKind::Text {
                return Err(Error::Rule(format!(
                    "question {id:?} takes free text; agreement is measured on scale, choice and yes/no questions"
                )));
            }
            vec![q]
        }
        None => rated_questions(questionnaire),
    };
    let panel = Panel::load(project)?;
    let ensemble = if questions.is_empty() {
        None
    } else {
        Some(build_ensemble(project, &panel, None)?)
    };
    let references = project.store.reference_sets()?;
    let bootstrap = req.bootstrap.map(|resamples| BootstrapOptions {
        resamples,
        seed: req.seed,
        confidence: 0.95,
    });
    let mut out = Vec::new();
    for question in questions {
        let table = question_table(question, &panel.first)?;
        let report = agreement::compute_report(&table, &ReportOptions { bootstrap })?;
        let (pair_matrix, confusion) = pair_views(&table)?;
        let mut distribution: Vec<CategoryCount> = question
            .options
            .iter()
            .map(|o| CategoryCount {
                category: value_text(&o.value),
                answers: 0,
                labels: 0,
            })
            .collect();
        for cell in table.cells().iter().flatten() {
            distribution[*cell as usize].answers += 1;
        }
        let mut panel_labels = BTreeMap::new();
        if let Some(ensemble) = &ensemble {
            for case in &ensemble.cases {
                if let Some(label) = case.labels.iter().find(|l| l.question == question.id)
                    && let Some(value) = &label.value
                {
                    if let Some(i) = option_index(question, value) {
                        distribution[i].labels += 1;
                    }
                    panel_labels.insert(case.instance_id.clone(), value.clone());
                }
            }
        }
        let mut reference = Vec::new();
        for (set, _) in &references {
            let labels: BTreeMap<String, Value> = project
                .store
                .reference_labels(set)?
                .into_iter()
                .filter_map(|row| {
                    let labels: ReferenceLabels = serde_json::from_value(row.labels).ok()?;
                    Some((row.instance_id, labels.values.get(&question.id)?.clone()))
                })
                .collect();
            if labels.is_empty() {
                continue;
            }
            reference.push(reference_agreement(question, set, &panel_labels, &labels)?);
        }
        out.push(QuestionAgreement {
            question: question.id.clone(),
            number: question.number.clone(),
            level: question.level,
            categories: table.categories().iter().map(|c| c.label.clone()).collect(),
            coefficients: coefficient_rows(&report),
            report: serde_json::to_value(&report).map_err(|e| Error::Rule(e.to_string()))?,
            pair_matrix,
            confusion,
            distribution,
            reference,
        });
    }
    let mut raters: Vec<String> = panel
        .first
        .iter()
        .flat_map(|c| c.answers.iter().map(|(r, _)| r.clone()))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    raters.sort();
    Ok(ProjectAgreement {
        questionnaire: format!("{} {}", questionnaire.id, questionnaire.version),
        cases: panel.first.len(),
        raters,
        questions: out,
        skipped: questionnaire
            .questions()
            .filter(|q| q.kind == QuestionKind::Text)
            .map(|q| q.id.clone())
            .collect(),
    })
}

// ---------------------------------------------------------------------------------------------
// Ensembles

/// One case's label for one question, and who or what decided it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct Label {
    /// The question's id.
    pub question: String,
    /// The label, or `null` when the rule gives none.
    #[ts(type = "number | string | null")]
    pub value: Option<Value>,
    /// How it was reached: `maximum`, `majority`, `median` or `adjudicated`.
    pub procedure: Option<String>,
    /// The raters whose answer was taken, or the adjudicator.
    pub decided_by: Vec<String>,
    /// The adjudicator's rationale.
    pub rationale: Option<String>,
    /// Why there is no label.
    pub reason: Option<String>,
}

/// One case's labels.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct CaseLabels {
    /// The task's id.
    pub instance_id: String,
    /// The raters whose latest submitted answers were combined, in the order they first
    /// submitted.
    pub raters: Vec<String>,
    /// One label per scale, choice and yes/no question.
    pub labels: Vec<Label>,
    /// Whether the questionnaire's filter rule drops the case; `null` when a label it needs is
    /// missing or the questionnaire has no filter.
    pub filter_out: Option<bool>,
}

/// Every case's labels under one rule, and what the filter keeps.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct EnsembleReport {
    /// The rule.
    pub rule: String,
    /// The filter rule in words, when the questionnaire has one.
    pub filter: Option<String>,
    /// Cases with at least one submitted answer or adjudication.
    pub cases: Vec<CaseLabels>,
    /// Cases the filter keeps.
    pub kept: usize,
    /// Cases the filter drops.
    pub filtered_out: usize,
    /// Cases the filter cannot decide yet (a label is missing).
    pub undecided: usize,
}

fn rule_of(project: &Project, rule: Option<&str>) -> Result<EnsembleRule> {
    let name = match rule {
        Some(r) => r.to_string(),
        None => project
            .questionnaire
            .ensemble
            .as_ref()
            .map_or_else(|| "majority".to_string(), |e| e.default_rule.clone()),
    };
    Ok(name.parse::<EnsembleRule>()?)
}

/// The procedure a rule applies to a question; `None` for `adjudicated`.
fn procedure_for(
    project: &Project,
    rule: EnsembleRule,
    question: &str,
) -> Result<Option<(Procedure, bool)>> {
    Ok(match rule {
        EnsembleRule::MaxSeverity => {
            let spec = project.questionnaire.ensemble.as_ref().ok_or_else(|| {
                Error::Rule(format!(
                    "questionnaire {} has no [ensemble] section to say which questions take the maximum; use --rule majority or median",
                    project.questionnaire.id
                ))
            })?;
            if spec.max.iter().any(|q| q == question) {
                Some((Procedure::Maximum, false))
            } else {
                // The release's rule for difficulty, and Verity's for questions the section
                // does not name: the majority, or the median when there is none.
                Some((Procedure::Majority, true))
            }
        }
        EnsembleRule::Majority => Some((Procedure::Majority, false)),
        EnsembleRule::Median => Some((Procedure::Median, false)),
        EnsembleRule::Adjudicated => None,
    })
}

fn label_from(question: &Question, decision: Decision<Choice>) -> Label {
    Label {
        question: question.id.clone(),
        value: question
            .options
            .get(decision.value.index)
            .map(|o| o.value.clone()),
        procedure: Some(decision.procedure.name().to_string()),
        decided_by: decision.decided_by,
        rationale: decision.rationale,
        reason: None,
    }
}

fn no_label(question: &Question, reason: String) -> Label {
    Label {
        question: question.id.clone(),
        value: None,
        procedure: None,
        decided_by: Vec::new(),
        rationale: None,
        reason: Some(reason),
    }
}

fn filter_verdict(questionnaire: &Questionnaire, labels: &[Label]) -> Option<bool> {
    let filter = questionnaire.filter.as_ref()?;
    let mut unknown = false;
    for condition in &filter.any {
        let Some(value) = labels
            .iter()
            .find(|l| l.question == condition.question)
            .and_then(|l| l.value.as_ref())
        else {
            unknown = true;
            continue;
        };
        let at_least = condition
            .at_least
            .is_some_and(|min| value.as_f64().is_some_and(|v| v >= min));
        let one_of = condition
            .one_of
            .as_ref()
            .is_some_and(|list| list.contains(value));
        if at_least || one_of {
            return Some(true);
        }
    }
    if unknown { None } else { Some(false) }
}

fn build_ensemble(project: &Project, panel: &Panel, rule: Option<&str>) -> Result<EnsembleReport> {
    let rule = rule_of(project, rule)?;
    let questions = rated_questions(&project.questionnaire);
    let mut procedures = HashMap::new();
    for q in &questions {
        procedures.insert(q.id.as_str(), procedure_for(project, rule, &q.id)?);
    }
    let mut by_case: BTreeMap<String, (i64, Vec<(String, AnswerEvent)>)> = panel
        .latest
        .iter()
        .map(|c| (c.instance_id.clone(), (c.case_id, c.answers.clone())))
        .collect();
    for (case_id, _) in panel.adjudications.keys() {
        if let Some(id) = panel.instance_ids.get(case_id) {
            by_case.entry(id.clone()).or_insert((*case_id, Vec::new()));
        }
    }
    let mut cases = Vec::new();
    let (mut kept, mut dropped, mut undecided) = (0, 0, 0);
    for (instance_id, (case_id, answers)) in by_case {
        let mut labels = Vec::new();
        for question in &questions {
            if let Some(adj) = panel.adjudications.get(&(case_id, question.id.clone())) {
                labels.push(Label {
                    question: question.id.clone(),
                    value: Some(adj.value.clone()),
                    procedure: Some(Procedure::Adjudicated.name().into()),
                    decided_by: vec![adj.decided_by.clone()],
                    rationale: Some(adj.rationale.clone()),
                    reason: None,
                });
                continue;
            }
            let given: Vec<RaterAnswer<Choice>> = answers
                .iter()
                .filter_map(|(rater, event)| {
                    let value = event.answer.get(&question.id)?;
                    let index = option_index(question, value)?;
                    Some(RaterAnswer::new(
                        rater.clone(),
                        Choice {
                            index,
                            text: value_text(&question.options[index].value),
                        },
                    ))
                })
                .collect();
            let label = match procedures.get(question.id.as_str()).copied().flatten() {
                None => no_label(
                    question,
                    format!(
                        "question '{}' has not been adjudicated yet, and the rule is 'adjudicated'",
                        question.id
                    ),
                ),
                Some((procedure, median_on_tie)) => {
                    match ensemble::decide(procedure, &question.id, &given) {
                        Ok(d) => label_from(question, d),
                        Err(ensemble::EnsembleError::NoMajority { .. }) if median_on_tie => {
                            match ensemble::decide(Procedure::Median, &question.id, &given) {
                                Ok(d) => label_from(question, d),
                                Err(e) => no_label(question, e.to_string()),
                            }
                        }
                        Err(e) => no_label(question, e.to_string()),
                    }
                }
            };
            labels.push(label);
        }
        let filter_out = filter_verdict(&project.questionnaire, &labels);
        match filter_out {
            Some(true) => dropped += 1,
            Some(false) => kept += 1,
            None => undecided += 1,
        }
        cases.push(CaseLabels {
            instance_id,
            raters: answers.iter().map(|(r, _)| r.clone()).collect(),
            labels,
            filter_out,
        });
    }
    Ok(EnsembleReport {
        rule: rule.name().into(),
        filter: project
            .questionnaire
            .filter
            .as_ref()
            .map(|f| f.description.clone()),
        cases,
        kept,
        filtered_out: dropped,
        undecided,
    })
}

/// Combines every case's latest submitted answers into one label per scale, choice and yes/no
/// question by `rule` (`max-severity` as the questionnaire's `[ensemble]` section defines it,
/// `majority`, `median` or `adjudicated`; the questionnaire's default when `None`), an
/// adjudication overriding any rule; then applies the questionnaire's filter and counts what
/// it keeps. Answers are ordered by when each rater first submitted, which decides ties for
/// the maximum. A coordinator function.
pub fn ensemble_labels(project: &Project, rule: Option<&str>) -> Result<EnsembleReport> {
    let panel = Panel::load(project)?;
    build_ensemble(project, &panel, rule)
}

// ---------------------------------------------------------------------------------------------
// Disagreements and adjudication

/// A rater's answer to one question.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct RaterValue {
    /// The rater.
    pub rater: String,
    /// The answer.
    #[ts(type = "number | string")]
    pub value: Value,
}

/// An adjudicator's decision.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct AdjudicationView {
    /// The task's id.
    pub case: String,
    /// The question's id.
    pub question: String,
    /// The final value.
    #[ts(type = "number | string")]
    pub value: Value,
    /// Why.
    pub rationale: String,
    /// Who decided.
    pub by: String,
    /// When.
    pub at: String,
}

/// A case and question on which raters' current answers differ.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct Disagreement {
    /// The task's id.
    pub case: String,
    /// The question's id.
    pub question: String,
    /// Its number.
    pub number: String,
    /// Its level of measurement.
    pub level: MeasurementLevel,
    /// For ordered questions, the distance between the lowest and highest answer in scale
    /// positions; for nominal questions 1.
    pub spread: usize,
    /// How many different answers were given.
    pub distinct: usize,
    /// Every rater's current answer, in the order they first submitted.
    pub answers: Vec<RaterValue>,
    /// The adjudication, when one was recorded.
    pub adjudication: Option<AdjudicationView>,
}

/// Every case and question where raters' current (latest submitted) answers differ, worst
/// first: the widest spread on the scale first, then the most distinct answers, then by case
/// and question order. A coordinator function: it shows every rater's answers.
pub fn list_disagreements(project: &Project) -> Result<Vec<Disagreement>> {
    let panel = Panel::load(project)?;
    let questions = rated_questions(&project.questionnaire);
    let mut out: Vec<(usize, Disagreement)> = Vec::new();
    for case in &panel.latest {
        for (qi, question) in questions.iter().enumerate() {
            let mut answers = Vec::new();
            let mut positions = Vec::new();
            for (rater, event) in &case.answers {
                let Some(value) = event.answer.get(&question.id) else {
                    continue;
                };
                let Some(position) = option_index(question, value) else {
                    continue;
                };
                answers.push(RaterValue {
                    rater: rater.clone(),
                    value: value.clone(),
                });
                positions.push(position);
            }
            let distinct = positions.iter().collect::<HashSet<_>>().len();
            if distinct < 2 {
                continue;
            }
            let spread = if question.level == MeasurementLevel::Nominal {
                1
            } else {
                positions.iter().max().copied().unwrap_or(0)
                    - positions.iter().min().copied().unwrap_or(0)
            };
            let adjudication = panel
                .adjudications
                .get(&(case.case_id, question.id.clone()))
                .map(|a| AdjudicationView {
                    case: case.instance_id.clone(),
                    question: a.question.clone(),
                    value: a.value.clone(),
                    rationale: a.rationale.clone(),
                    by: a.decided_by.clone(),
                    at: a.at.clone(),
                });
            out.push((
                qi,
                Disagreement {
                    case: case.instance_id.clone(),
                    question: question.id.clone(),
                    number: question.number.clone(),
                    level: question.level,
                    spread,
                    distinct,
                    answers,
                    adjudication,
                },
            ));
        }
    }
    out.sort_by(|(qa, a), (qb, b)| {
        b.spread
            .cmp(&a.spread)
            .then(b.distinct.cmp(&a.distinct))
            .then(a.case.cmp(&b.case))
            .then(qa.cmp(qb))
    });
    Ok(out.into_iter().map(|(_, d)| d).collect())
}

/// An adjudicator's decision to record.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct AdjudicationRequest {
    /// The task's id.
    pub case: String,
    /// The question's id.
    pub question: String,
    /// The final value: one of the question's options.
    #[ts(type = "number | string")]
    pub value: Value,
    /// Why.
    pub rationale: String,
    /// Who decides.
    pub by: String,
}

/// Records an adjudicator's decision on one question of one case; it overrides every ensemble
/// rule from then on. The value must be one of the question's options; the rationale and the
/// adjudicator's name must not be empty. Earlier decisions stay in the project as history.
pub fn adjudicate(
    project: &mut Project,
    req: &AdjudicationRequest,
    now: OffsetDateTime,
) -> Result<AdjudicationView> {
    let stored = find_case(project, &req.case)?;
    let question = project
        .questionnaire
        .questions()
        .find(|q| q.id == req.question)
        .ok_or_else(|| {
            Error::NotFound(format!(
                "questionnaire {} has no question {:?}",
                project.questionnaire.id, req.question
            ))
        })?;
    if question.kind == QuestionKind::Text {
        return Err(Error::Rule(format!(
            "question {:?} takes free text; only scale, choice and yes/no questions are adjudicated",
            req.question
        )));
    }
    let Some(index) = option_index(question, &req.value) else {
        let options: Vec<String> = question
            .options
            .iter()
            .map(|o| value_text(&o.value))
            .collect();
        return Err(Error::Rule(format!(
            "{} is not an option of question {:?} (options: {})",
            value_text(&req.value),
            req.question,
            options.join(", ")
        )));
    };
    let value = question.options[index].value.clone();
    if req.rationale.trim().is_empty() {
        return Err(Error::Rule("an adjudication needs its rationale".into()));
    }
    let by = req.by.trim();
    if by.is_empty() {
        return Err(Error::Rule(
            "an adjudication needs the adjudicator's name".into(),
        ));
    }
    let adjudicators = project.store.list_adjudicators()?;
    if by != COORDINATOR && !adjudicators.iter().any(|a| a == by) {
        return Err(Error::Rule(format!(
            "{by:?} may not adjudicate: only the {COORDINATOR} or a named adjudicator ({}) decides; name one with `verity adjudicators add NAME`",
            if adjudicators.is_empty() {
                "none named yet".to_string()
            } else {
                adjudicators.join(", ")
            }
        )));
    }
    let rated = project
        .store
        .latest_submissions()?
        .iter()
        .any(|e| e.case_id == stored.case_id);
    if !rated {
        return Err(Error::Rule(format!(
            "nobody has submitted an answer on case {}; there is nothing to adjudicate yet",
            stored.case.instance_id
        )));
    }
    let at = stamp(now);
    project.store.add_adjudication(
        stored.case_id,
        &req.question,
        &value,
        req.rationale.trim(),
        by,
        Procedure::Adjudicated.name(),
        &at,
    )?;
    Ok(AdjudicationView {
        case: stored.case.instance_id,
        question: req.question.clone(),
        value,
        rationale: req.rationale.trim().to_string(),
        by: by.to_string(),
        at,
    })
}

/// The name that stands for the project's coordinator, who may always adjudicate.
pub const COORDINATOR: &str = "coordinator";

/// Names an adjudicator: someone besides the coordinator who may record adjudications.
pub fn add_adjudicator(project: &mut Project, name: &str, now: OffsetDateTime) -> Result<()> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::Rule(
            "an adjudicator's name must not be empty".into(),
        ));
    }
    if name == COORDINATOR {
        return Err(Error::Rule(format!(
            "the {COORDINATOR} always adjudicates and needs no naming"
        )));
    }
    project.store.add_adjudicator(name, &stamp(now))?;
    Ok(())
}

/// Removes a named adjudicator; their decisions stay.
pub fn remove_adjudicator(project: &mut Project, name: &str) -> Result<()> {
    if project.store.remove_adjudicator(name)? {
        Ok(())
    } else {
        Err(Error::NotFound(format!(
            "{name:?} is not a named adjudicator of this project"
        )))
    }
}

/// The named adjudicators (the coordinator adjudicates without being named).
pub fn list_adjudicators(project: &Project) -> Result<Vec<String>> {
    Ok(project.store.list_adjudicators()?)
}

// ---------------------------------------------------------------------------------------------
// Importing OpenAI's files

/// Normalises a time as OpenAI wrote it (`2024-06-12 10:31:05.123+00:00`, with a `T`, a `Z` or
/// ` UTC`) to RFC 3339 for the answer event; the text as written is kept for exports.
fn normalise_time(text: &str) -> Option<String> {
    let text = text.trim();
    if let Ok(t) = OffsetDateTime::parse(text, &Rfc3339) {
        return Some(stamp(t));
    }
    let mut candidate = text.replacen(' ', "T", 1);
    if let Some(stripped) = candidate.strip_suffix(" UTC") {
        candidate = format!("{stripped}Z");
    }
    let has_offset = candidate.ends_with('Z')
        || candidate
            .get(candidate.len().saturating_sub(6)..)
            .is_some_and(|tail| tail.starts_with('+') || tail.starts_with('-'));
    if !has_offset {
        candidate.push('Z');
    }
    OffsetDateTime::parse(&candidate, &Rfc3339).ok().map(stamp)
}

fn violations_error(
    path: &Path,
    line: u64,
    project: &Questionnaire,
    values: &Map<String, Value>,
) -> Option<ImportError> {
    let violations = project.validate(values, Stage::Draft);
    let first = violations.first()?;
    Some(ImportError::BadField {
        path: path.to_path_buf(),
        at: format!("line {line}"),
        field: first.question.clone(),
        reason: format!(
            "does not fit questionnaire {}: {}",
            project.id, first.message
        ),
    })
}

/// Imports one of OpenAI's annotation files inside the running import: the per-annotator file
/// as submitted answers (one rater per `user_id`), the ensembled file as a reference label set
/// named after the file. Tasks the project lacks are created by id alone, marked as lacking
/// materials.
pub(super) fn import_openai_file(
    session: &mut ImportSession<'_>,
    questionnaire: &Questionnaire,
    questionnaire_row: i64,
    path: &Path,
    file: OpenAiFile,
    now: &str,
) -> Result<ImportedPath> {
    let origin = path.display().to_string();
    let mut failure: Option<Error> = None;
    let records = match file {
        OpenAiFile::Annotations => {
            let mut seen: HashMap<(String, String), u64> = HashMap::new();
            let mut on_row = |row: openai_csv::AnnotationRow| -> Result<(), ImportError> {
                let bad = |field: &str, reason: String| ImportError::BadField {
                    path: path.to_path_buf(),
                    at: format!("line {}", row.line),
                    field: field.to_string(),
                    reason,
                };
                if let Some(first) =
                    seen.insert((row.instance_id.clone(), row.user_id.clone()), row.line)
                {
                    return Err(bad(
                        "user_id",
                        format!(
                            "repeats annotator {} on {}, already rated on line {first}",
                            row.user_id, row.instance_id
                        ),
                    ));
                }
                if let Some(err) = violations_error(path, row.line, questionnaire, &row.answers) {
                    return Err(err);
                }
                let submitted = row
                    .times
                    .get("submitted_at")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if submitted.trim().is_empty() {
                    return Err(bad(
                        "submitted_at",
                        "is empty: an imported rating must be a submitted answer".into(),
                    ));
                }
                let at = normalise_time(submitted).unwrap_or_else(|| submitted.to_string());
                let mut store = || -> Result<(), Error> {
                    session.ensure_case(&row.instance_id, &origin)?;
                    let (case_id, revision_id) = session.revision_for_answers(&row.instance_id)?;
                    let rater_id = session.ensure_rater(&row.user_id, now)?;
                    if let Some((answers, _)) = session.submission_of(case_id, rater_id)? {
                        if answers == row.answers {
                            return Ok(());
                        }
                        return Err(Error::Rule(format!(
                            "{}, line {}: rater {} already submitted a different answer on {} in this project; a submitted answer is never overwritten",
                            path.display(),
                            row.line,
                            row.user_id,
                            row.instance_id
                        )));
                    }
                    session.append_imported_answer(
                        &NewAnswerEvent {
                            case_id,
                            rater_id,
                            case_revision_id: revision_id,
                            questionnaire_id: questionnaire_row,
                            kind: EventKind::Submit,
                            answer_revision: 1,
                            answer: &row.answers,
                            reason: None,
                            at: &at,
                        },
                        &format!("{origin}:line {}", row.line),
                        &row.times,
                    )?;
                    Ok(())
                };
                store().map_err(|e| {
                    failure = Some(e);
                    ImportError::UnknownFormat {
                        path: path.to_path_buf(),
                        reason: "store failed".into(),
                    }
                })
            };
            openai_csv::read_annotations(path, &mut on_row)
        }
        OpenAiFile::Ensembled => {
            let set = path.file_stem().map_or_else(
                || "reference".to_string(),
                |s| s.to_string_lossy().into_owned(),
            );
            let mut seen: HashMap<String, u64> = HashMap::new();
            let mut on_row = |row: openai_csv::EnsembledRow| -> Result<(), ImportError> {
                if let Some(first) = seen.insert(row.instance_id.clone(), row.line) {
                    return Err(ImportError::Duplicate {
                        path: path.to_path_buf(),
                        at: format!("line {}", row.line),
                        first: format!("line {first}"),
                        instance_id: row.instance_id,
                    });
                }
                if let Some(err) =
                    violations_error(path, row.line, questionnaire, &row.labels.values)
                {
                    return Err(err);
                }
                let mut store = || -> Result<(), Error> {
                    session.ensure_case(&row.instance_id, &origin)?;
                    let case_id = session.case_row_id(&row.instance_id)?.ok_or_else(|| {
                        Error::NotFound(format!("the project has no case {:?}", row.instance_id))
                    })?;
                    let labels = serde_json::to_value(&row.labels)
                        .map_err(|e| Error::Rule(e.to_string()))?;
                    session.put_reference_label(
                        &set,
                        case_id,
                        &labels,
                        &format!("{origin}:line {}", row.line),
                        now,
                    )?;
                    Ok(())
                };
                store().map_err(|e| {
                    failure = Some(e);
                    ImportError::UnknownFormat {
                        path: path.to_path_buf(),
                        reason: "store failed".into(),
                    }
                })
            };
            openai_csv::read_ensembled(path, &mut on_row)
        }
    };
    if let Some(err) = failure {
        return Err(err);
    }
    let records = records?;
    Ok(ImportedPath {
        path: origin,
        format: match file {
            OpenAiFile::Annotations => "openai-annotations".into(),
            OpenAiFile::Ensembled => format!(
                "openai-ensembled (reference set {})",
                path.file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
            ),
        },
        records,
    })
}

// ---------------------------------------------------------------------------------------------
// Exports

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum ExportFormat {
    /// OpenAI's per-annotator file: one row per case and rater.
    OpenaiAnnotations,
    /// OpenAI's ensembled file: one row per case, 14 columns.
    OpenaiEnsembled,
    /// One CSV row per case: the ensemble, each rater's answers, the agreement per question.
    Csv,
    /// One JSON line per case, with the same content as `csv`.
    Jsonl,
    /// One JSON line per case and rater with their latest submitted answer.
    AnswersJsonl,
}

/// Options of an export.
#[derive(Debug, Clone, Default, Serialize, Deserialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
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
            _ => Err(Error::Rule(format!(
                "the project holds {} reference label sets ({}); name one",
                sets.len(),
                sets.iter()
                    .map(|(s, _)| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
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
    let latest: HashMap<&str, &CaseAnswers> = panel
        .latest
        .iter()
        .map(|c| (c.instance_id.as_str(), c))
        .collect();
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
                            .find(|(r, _)| r == rater)?
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

fn case_rows(
    project: &Project,
    panel: &Panel,
    rule: Option<&str>,
) -> Result<Vec<export::case_table::CaseRow>> {
    let report = build_ensemble(project, panel, rule)?;
    let latest: HashMap<&str, &CaseAnswers> = panel
        .latest
        .iter()
        .map(|c| (c.instance_id.as_str(), c))
        .collect();
    let questions = rated_questions(&project.questionnaire);
    let mut rows = Vec::new();
    for case in report.cases {
        let answers: Vec<(String, Map<String, Value>)> = latest
            .get(case.instance_id.as_str())
            .map(|c| {
                c.answers
                    .iter()
                    .map(|(r, e)| (r.clone(), e.answer.clone()))
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
        rows.push(export::case_table::CaseRow {
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

fn annotation_rows(
    project: &Project,
    panel: &Panel,
) -> Result<Vec<export::openai_annotations::Row>> {
    let fields = project.store.answer_event_fields()?;
    let span = project.store.answer_event_span()?;
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
                user_id: rater.clone(),
                answers: event.answer.clone(),
                times,
            });
        }
    }
    Ok(rows)
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
    Err(Error::Rule(format!(
        "the {name} format needs the questions of OpenAI's SWE-bench Verified annotation, and questionnaire {} {} lacks {}; export csv, jsonl or answers-jsonl instead",
        project.questionnaire.id,
        project.questionnaire.version,
        missing.join(", ")
    )))
}

/// What [`export_to_file`] wrote.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ExportSummary {
    /// Rows written.
    pub rows: usize,
    /// The file.
    pub path: String,
    /// True when it replaced a file that was there.
    pub replaced: bool,
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
    check_openai_columns(project, format)?;
    let written = super::write_file(path, overwrite, |out| {
        export_project(project, format, options, out, path)
    })?;
    Ok(ExportSummary {
        rows: written.value,
        path: path.display().to_string(),
        replaced: written.replaced,
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
    let write_err = |source: std::io::Error| Error::Write {
        path: out_path.to_path_buf(),
        source,
    };
    check_openai_columns(project, format)?;
    if format == ExportFormat::AnswersJsonl {
        return super::export_jsonl(project, options.history, out, out_path);
    }
    let panel = Panel::load(project)?;
    let rule = options.rule.as_deref();
    match format {
        ExportFormat::OpenaiAnnotations => {
            let rows = annotation_rows(project, &panel)?;
            export::openai_annotations::write(out, &rows).map_err(write_err)
        }
        ExportFormat::OpenaiEnsembled => {
            let rows = match &options.reference {
                Some(name) => {
                    let set = resolve_reference(project, name)?;
                    project
                        .store
                        .reference_labels(&set)?
                        .into_iter()
                        .map(|row| {
                            Ok(export::openai_ensembled::Row {
                                labels: serde_json::from_value(row.labels).map_err(|e| {
                                    Error::Rule(format!(
                                        "stored reference labels of {}: {e}",
                                        row.instance_id
                                    ))
                                })?,
                                instance_id: row.instance_id,
                            })
                        })
                        .collect::<Result<Vec<_>>>()?
                }
                None => ensembled_rows(project, &panel, rule)?,
            };
            export::openai_ensembled::write(out, &rows).map_err(write_err)
        }
        ExportFormat::Csv | ExportFormat::Jsonl => {
            let rows = case_rows(project, &panel, rule)?;
            let questions = project.questionnaire.questions().collect::<Vec<_>>();
            let table = export::case_table::CaseTable {
                questions: &questions,
                rows: &rows,
            };
            if format == ExportFormat::Csv {
                table.write_csv(out).map_err(write_err)
            } else {
                table.write_jsonl(out).map_err(write_err)
            }
        }
        ExportFormat::AnswersJsonl => super::export_jsonl(project, options.history, out, out_path),
    }
}

// ---------------------------------------------------------------------------------------------
// The report

/// What `write_report` wrote.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ReportSummary {
    /// The Markdown file.
    pub markdown: String,
    /// The SVG charts.
    pub charts: Vec<String>,
    /// Cases the filter keeps.
    pub kept: usize,
    /// Cases the filter drops.
    pub filtered_out: usize,
}

/// Writes `report.md` and its SVG charts into `dir`: agreement per question with bootstrap
/// intervals (`bootstrap` resamples from `seed`), the rater-pair matrix, label distributions
/// and the count the filter keeps. Each file is written atomically; a folder that already
/// holds a report is refused unless `overwrite` says to replace it.
pub fn write_report(
    project: &Project,
    dir: &Path,
    bootstrap: usize,
    seed: u64,
    overwrite: super::Overwrite,
) -> Result<ReportSummary> {
    let agreement = project_agreement(
        project,
        &AgreementRequest {
            question: None,
            bootstrap: (bootstrap > 0).then_some(bootstrap),
            seed,
        },
    )?;
    let ensemble = ensemble_labels(project, None)?;
    let write_err = |path: PathBuf| move |source| Error::Write { path, source };
    let files = export::report::render(&agreement, &ensemble, bootstrap, seed);
    // The Markdown file stands for the whole report: refuse before writing any chart.
    if overwrite == super::Overwrite::Refuse
        && let Some((name, _)) = files.iter().find(|(name, _)| name.ends_with(".md"))
        && dir.join(name).exists()
    {
        return Err(Error::Rule(format!(
            "{} already holds a report; Verity will not overwrite it (pass --force to replace it)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(write_err(dir.to_path_buf()))?;
    let mut charts = Vec::new();
    let mut markdown = String::new();
    for (name, content) in files {
        let path = dir.join(&name);
        super::write_file(&path, super::Overwrite::Replace, |out| {
            out.write_all(content.as_bytes())
                .map_err(write_err(path.clone()))
        })?;
        if name.ends_with(".svg") {
            charts.push(path.display().to_string());
        } else {
            markdown = path.display().to_string();
        }
    }
    Ok(ReportSummary {
        markdown,
        charts,
        kept: ensemble.kept,
        filtered_out: ensemble.filtered_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_times_become_rfc3339() {
        assert_eq!(
            normalise_time("2024-06-12 10:31:05.5+00:00").as_deref(),
            Some("2024-06-12T10:31:05.5Z")
        );
        assert_eq!(
            normalise_time("2024-06-12 10:31:05 UTC").as_deref(),
            Some("2024-06-12T10:31:05Z")
        );
        assert_eq!(normalise_time("yesterday"), None);
    }

    #[test]
    fn pair_agreement_is_the_share_of_agreeing_pairs() {
        assert_eq!(pair_agreement(&[1, 1, 2]), Some(1.0 / 3.0));
        assert_eq!(pair_agreement(&[1]), None);
    }
}
