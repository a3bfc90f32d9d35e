//! The predictor a prediction-powered estimate takes on every task: one model rater's answer
//! through the label's rule, the mean of every model rater's, or Verity's evidence risk (moved
//! by the task's sweep).

use std::collections::{HashMap, HashSet};

use super::label::LabelRule;
use crate::ops::listing::case_risks;
use crate::ops::submitted::Panel;
use crate::ops::{Error, ErrorCode, Project, Result};

/// A predictor, as `--predictor` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Predictor {
    /// One model rater's answers through the label's rule.
    Model(String),
    /// The mean over the model raters that answered each task.
    Models,
    /// The evidence's risk score with the sweep, in [0, 1].
    Risk,
}

impl Predictor {
    /// Reads `model:NAME`, `models` or `risk`.
    pub(crate) fn parse(text: &str) -> Result<Predictor> {
        let text = text.trim();
        match text {
            "models" => Ok(Predictor::Models),
            "risk" => Ok(Predictor::Risk),
            _ => match text.strip_prefix("model:") {
                Some(name) if !name.trim().is_empty() => {
                    Ok(Predictor::Model(name.trim().to_string()))
                }
                _ => Err(Error::refused(
                    ErrorCode::BadInput,
                    format!(
                        "--predictor {text:?}: a predictor is model:NAME (one model rater), models (the mean of every model rater) or risk (the evidence's risk with the sweep)"
                    ),
                )),
            },
        }
    }

    /// The predictor as `--predictor` names it.
    pub(crate) fn name(&self) -> String {
        match self {
            Predictor::Model(name) => format!("model:{name}"),
            Predictor::Models => "models".into(),
            Predictor::Risk => "risk".into(),
        }
    }

    /// Whether its values are 0 or 1 only (one model's answers on a share), saying nothing of
    /// its uncertainty.
    pub(crate) fn is_one_answer(&self) -> bool {
        matches!(self, Predictor::Model(_))
    }
}

/// The predictor's value for `rule` on every task it speaks to, by case row id, from the panel
/// loaded with model raters' answers (`panel`) and the names of the model raters (`models`).
pub(crate) fn predictions(
    project: &Project,
    predictor: &Predictor,
    rule: &LabelRule,
    panel: &Panel,
    models: &HashSet<String>,
) -> Result<HashMap<i64, f64>> {
    match predictor {
        Predictor::Risk => {
            let flip = match rule {
                LabelRule::Underdetermined => false,
                LabelRule::Determinate | LabelRule::Kept => true,
                _ => {
                    return Err(Error::refused(
                        ErrorCode::BadInput,
                        format!(
                            "--predictor risk scores how likely a task is underdetermined, so it predicts the labels underdetermined, determinate and kept, not {}",
                            rule.name()
                        ),
                    ));
                }
            };
            Ok(case_risks(project)?
                .iter()
                .filter_map(|(case_id, r)| {
                    r.risk()
                        .map(|risk| (*case_id, if flip { 1.0 - risk } else { risk }))
                })
                .collect())
        }
        Predictor::Model(_) | Predictor::Models => {
            let only = match predictor {
                Predictor::Model(name) => {
                    let Some(found) = models.iter().find(|m| m.eq_ignore_ascii_case(name)) else {
                        return Err(Error::NotFound(format!(
                            "the project has no model rater named {name:?} (`verity models list` names them)"
                        )));
                    };
                    Some(found.as_str())
                }
                _ => {
                    if models.is_empty() {
                        return Err(Error::NotFound(
                            "the project has no model rater to predict with (`verity models add`)"
                                .into(),
                        ));
                    }
                    None
                }
            };
            let mut sums: HashMap<i64, (f64, usize)> = HashMap::new();
            for case in &panel.latest {
                for (rater, event) in &case.answers {
                    let wanted = match only {
                        Some(name) => &**rater == name,
                        None => models.contains(&**rater),
                    };
                    if !wanted {
                        continue;
                    }
                    let value_of = |q: &str| event.answer.get(q).cloned().filter(|v| !v.is_null());
                    if let Some(v) = rule.value(project, &value_of) {
                        let entry = sums.entry(case.case_id).or_insert((0.0, 0));
                        entry.0 += v;
                        entry.1 += 1;
                    }
                }
            }
            Ok(sums
                .into_iter()
                .map(|(case, (sum, count))| (case, sum / count as f64))
                .collect())
        }
    }
}
