//! Agreement: on a ratings file, and per question of the project over raters' first
//! (blind) submissions, with reference label sets.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::ensemble::build_ensemble;
use super::quality::reference_values;
use super::submitted::{
    CaseAnswers, Panel, categories_of, level_of, option_index, question_table, rated_questions,
    value_text,
};
use super::{Error, ErrorCode, Project, Result, natural_cmp};
use verity_stats::agreement::{
    self, AgreementReport, BootstrapOptions, Level, RatingTable, ReportOptions, Weights,
};
use verity_task::questionnaire::{MeasurementLevel, Question};

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

/// What [`project_agreement`] computes.
#[derive(Debug, Clone, Default, Serialize, Deserialize, TS)]
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
#[ts(export)]
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
    /// The full report, in the `verity agreement --json` shape: Cohen's kappa (and its
    /// interval) only for the rater pairs sharing at least
    /// [`ProjectAgreement::min_shared_cases`] cases, the others counted in
    /// `few_shared_pairs`.
    #[ts(type = "Record<string, unknown>")]
    pub report: AgreementReport,
    /// Cohen's kappa and the shared cases of every rater pair, whatever it shares.
    pub pair_matrix: PairMatrix,
    /// A confusion matrix per rater pair sharing at least
    /// [`ProjectAgreement::min_shared_cases`] cases.
    pub confusion: Vec<PairConfusion>,
    /// Answers and labels per category.
    pub distribution: Vec<CategoryCount>,
    /// Comparison of the panel's ensemble with each reference label set.
    pub reference: Vec<ReferenceAgreement>,
}

/// Agreement per question over the raters' first submissions.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ProjectAgreement {
    /// The questionnaire's id and version.
    pub questionnaire: String,
    /// Cases with at least one submission.
    pub cases: usize,
    /// Raters with at least one submission.
    pub raters: Vec<String>,
    /// A rater pair sharing fewer cases is only counted: no kappa in the report, no interval,
    /// no confusion matrix (the pair matrix keeps its kappa and count).
    pub min_shared_cases: usize,
    /// Per question.
    pub questions: Vec<QuestionAgreement>,
    /// Text questions, which agreement does not cover.
    pub skipped: Vec<String>,
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

/// Rater pairs sharing fewer cases than this are counted, not measured: their kappa on a
/// handful of cases is noise (the heat maps grey them).
pub const MIN_SHARED_CASES: usize = 10;

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
            if shared < MIN_SHARED_CASES {
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
    project.require_coordinator("reads every rater's answers")?;
    let questions = selected_questions(project, req)?;
    let panel = Panel::load_rated(project)?;
    agreement_on_panel(project, req, &questions, &panel)
}

/// The questions `req` asks for: one by id or number (not a text question), else every scale,
/// choice and yes/no question.
fn selected_questions<'a>(
    project: &'a Project,
    req: &AgreementRequest,
) -> Result<Vec<&'a Question>> {
    let questionnaire = &project.questionnaire;
    Ok(match &req.question {
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
            if !q.kind.is_rated() {
                return Err(Error::refused(
                    ErrorCode::FreeTextQuestion,
                    format!(
                        "question {id:?} takes free text; agreement is measured on scale, choice and yes/no questions"
                    ),
                ));
            }
            vec![q]
        }
        None => rated_questions(questionnaire),
    })
}

/// The raters with an answer among `cases`, in natural order.
fn raters_of(cases: &[CaseAnswers]) -> Vec<String> {
    let mut raters: Vec<String> = cases
        .iter()
        .flat_map(|c| c.answers.iter().map(|(r, _)| r.to_string()))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    raters.sort_by(|a, b| natural_cmp(a, b));
    raters
}

/// [`project_agreement`] over a panel already loaded.
fn agreement_on_panel(
    project: &Project,
    req: &AgreementRequest,
    questions: &[&Question],
    panel: &Panel,
) -> Result<ProjectAgreement> {
    let questionnaire = &project.questionnaire;
    let ensemble = if questions.is_empty() {
        None
    } else {
        Some(build_ensemble(project, panel, None)?)
    };
    // Each reference set read once, not once per question.
    let references = project
        .store
        .reference_sets()?
        .into_iter()
        .map(|(set, _)| Ok((reference_values(project, &set)?, set)))
        .collect::<Result<Vec<_>>>()?;
    let bootstrap = req.bootstrap.map(|resamples| BootstrapOptions {
        resamples,
        seed: req.seed,
        confidence: 0.95,
    });
    let mut out = Vec::new();
    for &question in questions {
        let table = question_table(question, &panel.first)?;
        let report = agreement::compute_panel_report(
            &table,
            &ReportOptions { bootstrap },
            MIN_SHARED_CASES,
        )?;
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
        for (values, set) in &references {
            let labels: BTreeMap<String, Value> = values
                .iter()
                .filter_map(|(instance_id, values)| {
                    Some((instance_id.clone(), values.get(&question.id)?.clone()))
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
            report,
            pair_matrix,
            confusion,
            distribution,
            reference,
        });
    }
    Ok(ProjectAgreement {
        questionnaire: format!("{} {}", questionnaire.id, questionnaire.version),
        cases: panel.first.len(),
        raters: raters_of(&panel.first),
        min_shared_cases: MIN_SHARED_CASES,
        questions: out,
        skipped: questionnaire
            .questions()
            .filter(|q| !q.kind.is_rated())
            .map(|q| q.id.clone())
            .collect(),
    })
}

/// Whose answers a figure of agreement is among.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum Among {
    /// The human raters only.
    Humans,
    /// The model raters only.
    Models,
    /// Humans and models together, each model one more rater.
    Pooled,
}

impl Among {
    /// The group's name, as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Among::Humans => "humans",
            Among::Models => "models",
            Among::Pooled => "pooled",
        }
    }
}

/// Agreement on one question within a group of raters.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct GroupQuestion {
    /// The question's id.
    pub question: String,
    /// Its number (`1.1`).
    pub number: String,
    /// The coefficients.
    pub coefficients: Vec<CoefficientRow>,
    /// The full report, in the `verity agreement --json` shape.
    #[ts(type = "Record<string, unknown>")]
    pub report: AgreementReport,
}

/// Agreement among one group of raters: humans, models, or both pooled.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct GroupAgreement {
    /// `humans`, `models` or `pooled`.
    pub among: Among,
    /// The group's raters with at least one submission.
    pub raters: Vec<String>,
    /// Cases with a submission from the group.
    pub cases: usize,
    /// Per question; empty when the group is absent.
    pub questions: Vec<GroupQuestion>,
    /// Why the group has no figures (fewer than two raters submitted), else `null`.
    pub absent: Option<String>,
}

/// `verity agreement`'s answer: the panel's agreement and, when model raters are included,
/// the agreement among humans, among models and pooled, each labelled.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct AgreementView {
    /// Over every rater the project's setting includes: humans only by default, humans and
    /// models pooled with `--include-models`.
    #[serde(flatten)]
    pub panel: ProjectAgreement,
    /// With model raters included: among humans, among models, pooled (in that order).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub groups: Option<Vec<GroupAgreement>>,
}

/// [`project_agreement`], and with model raters included (`--include-models`) the agreement
/// among humans, among models and pooled, over the same first submissions.
pub fn agreement_view(project: &Project, req: &AgreementRequest) -> Result<AgreementView> {
    project.require_coordinator("reads every rater's answers")?;
    let questions = selected_questions(project, req)?;
    let panel = Panel::load_rated(project)?;
    let agreement = agreement_on_panel(project, req, &questions, &panel)?;
    let groups = if project.include_models {
        let models: HashSet<String> = project
            .store
            .model_raters()?
            .into_iter()
            .map(|m| m.rater.name)
            .collect();
        let groups = [Among::Humans, Among::Models, Among::Pooled]
            .into_iter()
            .map(|among| group_agreement(req, &questions, &panel, &models, among))
            .collect::<Result<Vec<_>>>()?;
        Some(groups)
    } else {
        None
    };
    Ok(AgreementView {
        panel: agreement,
        groups,
    })
}

/// Agreement within one group, over the panel's first submissions of its raters.
fn group_agreement(
    req: &AgreementRequest,
    questions: &[&Question],
    panel: &Panel,
    models: &HashSet<String>,
    among: Among,
) -> Result<GroupAgreement> {
    let member = |rater: &str| match among {
        Among::Humans => !models.contains(rater),
        Among::Models => models.contains(rater),
        Among::Pooled => true,
    };
    let cases: Vec<CaseAnswers> = panel
        .first
        .iter()
        .filter_map(|case| {
            let answers: Vec<_> = case
                .answers
                .iter()
                .filter(|(rater, _)| member(rater))
                .cloned()
                .collect();
            (!answers.is_empty()).then(|| CaseAnswers {
                answers,
                ..case.clone()
            })
        })
        .collect();
    let raters = raters_of(&cases);
    let absent = (raters.len() < 2).then(|| {
        let who = match among {
            Among::Humans => "human raters",
            Among::Models => "model raters",
            Among::Pooled => "raters",
        };
        match raters.first() {
            None => format!(
                "no {} has submitted an answer: agreement among {} needs at least two",
                who.trim_end_matches('s'),
                among.name()
            ),
            Some(one) => format!(
                "only one of the {who} ({one}) has submitted answers: agreement among {} needs at least two",
                among.name()
            ),
        }
    });
    let bootstrap = req.bootstrap.map(|resamples| BootstrapOptions {
        resamples,
        seed: req.seed,
        confidence: 0.95,
    });
    let mut out = Vec::new();
    if absent.is_none() {
        for &question in questions {
            let table = question_table(question, &cases)?;
            let report = agreement::compute_panel_report(
                &table,
                &ReportOptions { bootstrap },
                MIN_SHARED_CASES,
            )?;
            out.push(GroupQuestion {
                question: question.id.clone(),
                number: question.number.clone(),
                coefficients: coefficient_rows(&report),
                report,
            });
        }
    }
    Ok(GroupAgreement {
        among,
        raters,
        cases: cases.len(),
        questions: out,
        absent,
    })
}
