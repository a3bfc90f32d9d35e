//! `verity models compare`: each model rater against the panel's humans, question by question,
//! by the alternative annotator test (`agreement/alt_test.rs` computes it and documents each
//! step), over every rater's first (blind) submissions.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use ts_rs::TS;

use crate::ops::submitted::{CaseAnswers, Panel, find_question, question_table, rated_questions};
use crate::ops::{Project, Result};
use verity_stats::agreement::alt_test::{
    AltTest, AltTestOptions, DEFAULT_EPSILON, Figure, alt_test,
};
use verity_stats::agreement::{BootstrapOptions, Undefined};

/// What `verity models compare` is asked.
#[derive(Debug, Clone)]
pub struct CompareRequest {
    /// One question by id or number; every rated question when `None`.
    pub question: Option<String>,
    /// The margin ε; the paper's 0.2 when `None`.
    pub epsilon: Option<f64>,
    /// The bootstrap of the agreement figures' intervals.
    pub bootstrap: BootstrapOptions,
}

/// One coefficient of the model's agreement with the panel: its value and 95% interval, or why
/// there is none.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct AgreementFigure {
    /// The value; `null` when undefined.
    pub estimate: Option<f64>,
    /// The 95% percentile bootstrap interval.
    pub ci: Option<[f64; 2]>,
    /// Why the value or its interval is undefined.
    pub undefined: Option<String>,
}

/// One human of the panel in a model's test.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct HumanResult {
    /// The human rater.
    pub rater: String,
    /// Usable tasks this human rated.
    pub tasks: usize,
    /// The share of them on which the model aligned at least as well as this human.
    pub model_wins: Option<f64>,
    /// The share on which this human aligned at least as well as the model.
    pub human_wins: Option<f64>,
    /// The one-sided p-value of H0 `p_model ≤ p_human − ε`.
    pub p_value: Option<f64>,
    /// Whether Benjamini–Yekutieli rejects the null: the model wins against this human.
    pub rejected: bool,
    /// Why this human was left out of the test, or why their p-value is undefined.
    pub note: Option<String>,
}

/// One model on one question.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ModelComparison {
    /// The model rater.
    pub model: String,
    /// The question's id.
    pub question: String,
    /// The margin ε.
    pub epsilon: f64,
    /// The share of tested humans the model wins against; `null` when the test was refused.
    pub winning_rate: Option<f64>,
    /// Whether the winning rate is at least 0.5; `null` when the test was refused.
    pub passed: Option<bool>,
    /// Tasks with the model's label and at least two humans' labels.
    pub n_cases: usize,
    /// Why the test was refused (a panel too small for it).
    pub refused: Option<String>,
    /// How the test was run, in one sentence.
    pub method: String,
    /// Each human of the panel: tested, or why not.
    pub humans: Vec<HumanResult>,
    /// Weighted kappa of the model against the humans' consensus label.
    pub kappa_vs_consensus: AgreementFigure,
    /// Krippendorff's alpha of the humans alone.
    pub alpha_humans: AgreementFigure,
    /// Krippendorff's alpha with the model as one more rater.
    pub alpha_with_model: AgreementFigure,
}

/// Runs the alternative annotator test for every model rater on every rated question (or the
/// one asked for). Model raters' answers are read here whatever `--include-models` says: they
/// are what is compared; the humans are every other rater.
pub fn compare_models(
    project: &mut Project,
    request: &CompareRequest,
) -> Result<Vec<ModelComparison>> {
    let models = project.store.model_raters()?;
    let names: HashSet<&str> = models.iter().map(|m| m.rater.name.as_str()).collect();
    let panel = Panel::load_rated_of(project, true)?;
    let questions = match &request.question {
        Some(key) => vec![find_question(&project.questionnaire, key)?],
        None => rated_questions(&project.questionnaire),
    };
    let humans_only: Vec<CaseAnswers> = panel
        .first
        .iter()
        .map(|case| CaseAnswers {
            answers: case
                .answers
                .iter()
                .filter(|(rater, _)| !names.contains(&**rater))
                .cloned()
                .collect(),
            ..case.clone()
        })
        .collect();
    let by_id: HashMap<&str, &CaseAnswers> = panel
        .first
        .iter()
        .map(|c| (c.instance_id.as_str(), c))
        .collect();
    let options = AltTestOptions {
        epsilon: request.epsilon.unwrap_or(DEFAULT_EPSILON),
        bootstrap: request.bootstrap,
    };
    let mut out = Vec::new();
    for question in questions {
        let humans = question_table(question, &humans_only)?;
        for model in &models {
            let labels: Vec<Option<u32>> = humans
                .units()
                .iter()
                .map(|unit| {
                    let case = by_id.get(unit.as_str())?;
                    let (_, event) = case
                        .answers
                        .iter()
                        .find(|(rater, _)| **rater == *model.rater.name)?;
                    let index = question.option_index(event.answer.get(&question.id)?)?;
                    u32::try_from(index).ok()
                })
                .collect();
            let test = alt_test(&humans, &model.rater.name, &labels, &options)?;
            out.push(comparison(&model.rater.name, &question.id, &test));
        }
    }
    Ok(out)
}

fn comparison(model: &str, question: &str, test: &AltTest) -> ModelComparison {
    let (winning_rate, passed, refused) = match &test.verdict {
        Ok(v) => (Some(v.winning_rate), Some(v.passed), None),
        Err(why) => (None, None, Some(why.reason.clone())),
    };
    ModelComparison {
        model: model.to_string(),
        question: question.to_string(),
        epsilon: test.epsilon,
        winning_rate,
        passed,
        n_cases: test.n_cases,
        refused,
        method: test.method(),
        humans: test
            .humans
            .iter()
            .map(|h| match &h.test {
                Ok(t) => HumanResult {
                    rater: h.rater.clone(),
                    tasks: h.tasks,
                    model_wins: Some(t.model_wins),
                    human_wins: Some(t.human_wins),
                    p_value: t.p_value.as_ref().ok().copied(),
                    rejected: t.rejected,
                    note: t.p_value.as_ref().err().map(|u| u.reason.clone()),
                },
                Err(why) => HumanResult {
                    rater: h.rater.clone(),
                    tasks: h.tasks,
                    model_wins: None,
                    human_wins: None,
                    p_value: None,
                    rejected: false,
                    note: Some(why.reason.clone()),
                },
            })
            .collect(),
        kappa_vs_consensus: figure(&test.agreement.kappa_vs_consensus),
        alpha_humans: figure(&test.agreement.alpha_humans),
        alpha_with_model: figure(&test.agreement.alpha_with_model),
    }
}

fn figure(f: &Figure) -> AgreementFigure {
    let undefined = |u: &Undefined| Some(u.reason.clone());
    AgreementFigure {
        estimate: f.estimate.estimate.as_ref().ok().copied(),
        ci: f.ci.as_ref().ok().map(|ci| [ci.low, ci.high]),
        undefined: f
            .estimate
            .estimate
            .as_ref()
            .err()
            .and_then(undefined)
            .or_else(|| f.ci.as_ref().err().and_then(undefined)),
    }
}
