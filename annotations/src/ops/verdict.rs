//! What a task's labels say under the questionnaire's rules: the `[scores]` section's tiers
//! (determinate, underdetermined, pending) over its filter, from any source of values (the
//! panel's ensemble, a reference set, one model rater's answer). Scores and the
//! prediction-powered estimates read tasks the same way through it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::Project;
use super::submitted::value_text;
use verity_task::questionnaire::{FilterCondition, ScoresSpec};

/// Whether a task counts in a determinate-only score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Determinacy {
    /// Its material selects the graded behaviour: it counts.
    Determinate,
    /// Shown (by the panel's filter, or a proven tier of the audit) not to: left out.
    Underdetermined,
    /// A claim waits for raters (an audit hypothesis, the panel's `unknown`): left out, and
    /// reported apart from the underdetermined.
    Pending,
    /// Nothing labels it: left out, and reported.
    Unlabelled,
}

/// The conditions among `conditions` that the values meet, in words; `None` when a value a
/// condition needs is missing and none is met.
pub(super) fn conditions_met(
    conditions: &[FilterCondition],
    value_of: &dyn Fn(&str) -> Option<Value>,
) -> Option<Vec<String>> {
    let mut met = Vec::new();
    let mut unknown = false;
    for c in conditions {
        let Some(value) = value_of(&c.question) else {
            unknown = true;
            continue;
        };
        let at_least = c
            .at_least
            .is_some_and(|min| value.as_f64().is_some_and(|v| v >= min));
        let one_of = c.one_of.as_ref().is_some_and(|list| list.contains(&value));
        if at_least || one_of {
            met.push(format!("{} = {}", c.question, value_text(&value)));
        }
    }
    if met.is_empty() && unknown {
        None
    } else {
        Some(met)
    }
}

/// A task's determinacy from one source's values: pending when a `pending` condition holds,
/// underdetermined when the filter drops it, determinate when it keeps it; `None` when a label
/// the rule needs is missing.
pub(super) fn judge(
    project: &Project,
    spec: Option<&ScoresSpec>,
    value_of: &dyn Fn(&str) -> Option<Value>,
) -> Option<(Determinacy, String)> {
    if let Some(spec) = spec
        && let Some(met) = conditions_met(&spec.pending, value_of)
        && !met.is_empty()
    {
        return Some((Determinacy::Pending, met.join(", ")));
    }
    let filter = project.questionnaire.filter.as_ref()?;
    let met = conditions_met(&filter.any, value_of)?;
    Some(if met.is_empty() {
        (Determinacy::Determinate, "the filter keeps it".into())
    } else {
        (Determinacy::Underdetermined, met.join(", "))
    })
}

impl Determinacy {
    /// The name used in files and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Determinacy::Determinate => "determinate",
            Determinacy::Underdetermined => "underdetermined",
            Determinacy::Pending => "pending",
            Determinacy::Unlabelled => "unlabelled",
        }
    }
}
