//! Model raters: an LLM behind an OpenAI-compatible endpoint, a rater of the panel like any
//! other (its assignments, its submissions through the path a human's take, the same events
//! and exports), with the provenance of each answer, a budget and a reply cache, so a rerun
//! after a kill never pays twice. `models compare` (the alternative annotator test) and the
//! app's Models section build on this.

mod client;
mod compare;
mod rate;
mod report;
mod run;

pub use compare::{AgreementFigure, CompareRequest, HumanResult, ModelComparison, compare_models};
pub use rate::{RateRequest, rate_model};
pub use report::{RateFailure, RateProgress, RateReport};
pub(super) use run::{Asking, Fields, Reply, RunPlan, run_model};

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use ts_rs::TS;

use super::lookup::find_rater;
use super::model_prompt::{DEFAULT_PROMPT, PromptTemplate};
use super::{Error, ErrorCode, Project, Result, stamp};
use verity_evidence::shell_quote;
use verity_store::{AttemptPurpose, ModelConfig, ModelRater, ModelSettings, PairScope, PairState};

/// What `verity models add` is given: a name and the model's settings, side by side in JSON.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(export)]
pub struct ModelAddRequest {
    /// The rater's name.
    pub name: String,
    /// Where and how the model is asked.
    #[serde(flatten)]
    #[ts(flatten)]
    pub settings: ModelSettings,
}

/// The environment variable a model added without `--api-key-env` reads its key from, as
/// OpenAI's own clients do.
pub const DEFAULT_KEY_VAR: &str = "OPENAI_API_KEY";

/// The environment variable a model reads its key from: the one it was added with, or
/// [`DEFAULT_KEY_VAR`].
pub(super) fn key_var(settings: &ModelSettings) -> &str {
    settings.api_key_env.as_deref().unwrap_or(DEFAULT_KEY_VAR)
}

/// A model rater as listed: its configuration (prices `null` when unknown), the variable it
/// reads its key from, its answers and failed tasks, and what its requests cost so far.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ModelSummary {
    /// The rater's name.
    pub name: String,
    /// False once deactivated.
    pub active: bool,
    /// How it is asked.
    #[serde(flatten)]
    #[ts(flatten)]
    pub config: ModelConfig,
    /// The environment variable it reads its API key from: `api_key_env`, or
    /// `OPENAI_API_KEY` when none was named. Never the key.
    pub api_key_var: String,
    /// The structured-output form its endpoint takes, once a run found it.
    pub dialect: Option<String>,
    /// Requests recorded.
    pub requests: usize,
    /// Tasks it has submitted an answer on.
    pub answers: usize,
    /// Tasks whose last run gave no valid answer (each retry refused), not answered since.
    pub failures: usize,
    /// What its requests cost, in USD to the millionth; `null` when a price is unknown.
    pub cost_usd: Option<f64>,
    /// When it was added.
    pub added_at: String,
}

/// Adds a model rater.
pub fn add_model(
    project: &mut Project,
    req: &ModelAddRequest,
    now: OffsetDateTime,
) -> Result<ModelSummary> {
    project.require_coordinator("adds model raters")?;
    let bad = |sentence: String| Err(Error::refused(ErrorCode::BadInput, sentence));
    if req.name.trim().is_empty() {
        return bad("a model rater needs a name".into());
    }
    let given = &req.settings;
    let endpoint = given.endpoint.trim().trim_end_matches('/');
    if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
        return bad(format!(
            "--endpoint {:?} is not an http:// or https:// URL (e.g. https://api.openai.com/v1)",
            given.endpoint
        ));
    }
    if given.model.trim().is_empty() {
        return bad("--model names no model".into());
    }
    if let Some(var) = &given.api_key_env
        && (var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        return bad(format!(
            "--api-key-env {var:?} is not an environment variable's name (letters, digits and _): give the variable's name, never the key"
        ));
    }
    for (flag, price) in [
        ("--price-in", given.price_in),
        ("--price-out", given.price_out),
    ] {
        if price.is_some_and(|p| !p.is_finite() || p < 0.0) {
            return bad(format!(
                "{flag} must be a number of USD per million tokens, 0 or more"
            ));
        }
    }
    if given
        .temperature
        .is_some_and(|t| !t.is_finite() || !(0.0..=2.0).contains(&t))
    {
        return bad("--temperature must be between 0 and 2".into());
    }
    if given.max_output_tokens == Some(0) {
        return bad("--max-output-tokens must be at least 1".into());
    }
    let template = PromptTemplate::builtin(DEFAULT_PROMPT)?;
    let config = ModelConfig {
        settings: ModelSettings {
            endpoint: endpoint.to_string(),
            model: given.model.trim().to_string(),
            ..given.clone()
        },
        prompt_id: template.id,
        prompt_version: template.version,
    };
    project
        .store
        .add_model_rater(req.name.trim(), &config, &stamp(now))?;
    list_models(project)?
        .into_iter()
        .find(|m| m.name == req.name.trim())
        .ok_or_else(|| Error::NotFound(format!("model rater {:?} was not stored", req.name)))
}

/// Every model rater, with what its requests cost so far.
pub fn list_models(project: &Project) -> Result<Vec<ModelSummary>> {
    project.require_coordinator("lists model raters")?;
    project
        .store
        .model_raters()?
        .into_iter()
        .map(|m| {
            let attempts = project.store.model_attempts(m.rater.id)?;
            let answered: HashSet<i64> = project
                .store
                .pair_progress(PairScope::Rater(m.rater.id))?
                .into_iter()
                .filter(|pair| pair.state == PairState::Submitted)
                .map(|pair| pair.case_id)
                .collect();
            let failed: HashSet<i64> = attempts
                .iter()
                .filter(|a| {
                    a.purpose == AttemptPurpose::Rate
                        && a.outcome == "failed"
                        && !answered.contains(&a.case_id)
                })
                .map(|a| a.case_id)
                .collect();
            let cost = attempts
                .iter()
                .try_fold(0.0, |sum, a| a.cost_usd.map(|c| sum + c))
                .filter(|_| known_prices(&m.config.settings))
                .map(round_usd);
            Ok(ModelSummary {
                name: m.rater.name,
                active: m.rater.active,
                api_key_var: key_var(&m.config.settings).to_string(),
                config: m.config,
                dialect: m.dialect,
                requests: attempts.len(),
                answers: answered.len(),
                failures: failed.len(),
                cost_usd: cost,
                added_at: m.created_at,
            })
        })
        .collect()
}

/// Removes a model rater that never answered, with its configuration, requests and replies.
/// One with answers is refused: answers are never deleted (deactivate it instead).
pub fn remove_model(project: &mut Project, name: &str) -> Result<()> {
    project.require_coordinator("removes model raters")?;
    let model = find_model(project, name)?;
    let events = project.store.rater_event_count(model.rater.id)?;
    if events > 0 {
        return Err(Error::refused(
            ErrorCode::HasAnswers,
            format!(
                "model rater {name:?} has saved {events} answer event{}, and answers are never deleted; deactivate it instead (`verity raters deactivate {}`)",
                if events == 1 { "" } else { "s" },
                shell_quote(name)
            ),
        ));
    }
    project.store.remove_model_config(model.rater.id)?;
    project.store.remove_rater(model.rater.id)?;
    Ok(())
}

pub(super) fn find_model(project: &Project, name: &str) -> Result<ModelRater> {
    let rater = find_rater(project, name)?;
    project
        .store
        .model_raters()?
        .into_iter()
        .find(|m| m.rater.id == rater.id)
        .ok_or_else(|| {
            Error::refused(
                ErrorCode::NotFound,
                format!(
                    "{name:?} is a human rater, not a model rater (`verity models list` lists those)"
                ),
            )
        })
}

fn known_prices(settings: &ModelSettings) -> bool {
    settings.price_in.is_some() && settings.price_out.is_some()
}

/// A cost in USD to the millionth of a dollar, with no negative zero: what the JSON outputs
/// give.
pub(super) fn round_usd(usd: f64) -> f64 {
    let rounded = (usd * 1e6).round() / 1e6;
    if rounded == 0.0 { 0.0 } else { rounded }
}

/// What a request cost in USD, `None` when a price is unknown.
fn cost(settings: &ModelSettings, input_tokens: u64, output_tokens: u64) -> Option<f64> {
    Some(
        (input_tokens as f64 * settings.price_in? + output_tokens as f64 * settings.price_out?)
            / 1_000_000.0,
    )
}

/// Each model answer event's provenance, by event uid, as JSON objects.
pub(super) fn provenance_by_uid(project: &Project) -> Result<HashMap<String, Map<String, Value>>> {
    Ok(project
        .store
        .provenance()?
        .into_iter()
        .filter_map(|(uid, text)| match serde_json::from_str(&text) {
            Ok(Value::Object(map)) => Some((uid, map)),
            _ => None,
        })
        .collect())
}
