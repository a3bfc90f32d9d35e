//! The endpoint client a model's run asks through: made from the model's settings, with the
//! dialect its endpoint was found to speak, and refused before anything is sent when the
//! budget cannot be kept or the key is missing; and the endpoint's errors as the use cases'.

use std::time::Duration;

use verity_endpoint::{ApiKey, Client, Dialect, EndpointConfig, EndpointError};
use verity_store::{AttemptPurpose, ModelRater};

use super::{DEFAULT_KEY_VAR, key_var};
use crate::ops::{Error, ErrorCode, Result};

/// The model's endpoint client for a run, refused before anything is sent when a budget is
/// given that unknown prices make impossible to keep or the key's named variable is unset. A
/// model added without a variable sends `OPENAI_API_KEY`'s key when it is set, as OpenAI's
/// clients do, and none otherwise.
pub(super) fn open_client(
    model: &ModelRater,
    budget_usd: Option<f64>,
    timeout: Duration,
    purpose: AttemptPurpose,
) -> Result<Client> {
    let settings = &model.config.settings;
    if let Some(budget) = budget_usd {
        if !budget.is_finite() || budget < 0.0 {
            return Err(Error::refused(
                ErrorCode::BadInput,
                "--budget-usd must be a number of USD, 0 or more",
            ));
        }
        let unknown: Vec<&str> = [
            settings.price_in.is_none().then_some("--price-in"),
            settings.price_out.is_none().then_some("--price-out"),
            settings
                .max_output_tokens
                .is_none()
                .then_some("--max-output-tokens"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !unknown.is_empty() {
            return Err(Error::refused(
                ErrorCode::BudgetUnknown,
                format!(
                    "a budget cannot be kept for {:?}: it was added without {}, so the worst case of a request is unknown; add it again with them, or run without --budget-usd",
                    model.rater.name,
                    unknown.join(" and ")
                ),
            ));
        }
    }
    // A variable named is required; OpenAI's own, read by default, only when set (an endpoint
    // on this machine may take no key).
    let api_key = match &settings.api_key_env {
        Some(var) => Some(ApiKey::from_env(var).ok_or_else(|| {
            Error::refused(
                ErrorCode::ModelEndpoint,
                format!(
                    "the environment variable {var}, which holds the API key of {:?}, is not set: set it and run again (nothing was sent)",
                    model.rater.name
                ),
            )
        })?),
        None => ApiKey::from_env(DEFAULT_KEY_VAR),
    };
    let mut endpoint = EndpointConfig::new(settings.endpoint.clone(), settings.model.clone());
    endpoint.api_key = api_key;
    endpoint.api_key_source = Some(key_var(settings).to_string());
    endpoint.temperature = settings.temperature;
    endpoint.seed = settings.seed;
    endpoint.max_output_tokens = settings.max_output_tokens;
    endpoint.timeout = timeout;
    endpoint.cache_scope = match purpose {
        AttemptPurpose::Rate => format!("rater {}", model.rater.id),
        AttemptPurpose::Sweep => format!("sweep by rater {}", model.rater.id),
    };
    let client = Client::new(endpoint).map_err(endpoint_error)?;
    Ok(match stored_dialect(model) {
        Some(dialect) => client.with_dialect(dialect),
        None => client,
    })
}

/// The dialect the model's endpoint was found to speak on an earlier run, if any.
pub(super) fn stored_dialect(model: &ModelRater) -> Option<Dialect> {
    match model.dialect.as_deref() {
        Some("json_schema") => Some(Dialect::JsonSchema),
        Some("json_object") => Some(Dialect::JsonObject),
        _ => None,
    }
}

/// The endpoint's error as a use case's: a cancelled request is the run's cancellation.
pub(in crate::ops) fn endpoint_error(e: EndpointError) -> Error {
    match e {
        EndpointError::Cancelled { .. } => Error::Cancelled,
        e => Error::refused(ErrorCode::ModelEndpoint, e.to_string()),
    }
}
