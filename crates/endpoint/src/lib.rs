//! One client for model endpoints that speak OpenAI's Chat Completions format: model raters and
//! the codebase-determinacy sweep both ask a model for a JSON object that a schema describes.
//!
//! What the client owns, so that its callers don't:
//! - **the dialect**: structured outputs as `json_schema` (OpenAI, vLLM) or, where an endpoint
//!   refuses that, `json_object` with the schema beside it (llama.cpp's servers); found on the
//!   first request and kept (see [`Dialect`]);
//! - **faults**: 429, 5xx, timeouts and dropped connections are retried with exponential backoff
//!   and full jitter, honouring `Retry-After`; a refused key or a refused request is not;
//! - **cut-off and malformed replies**: a reply that stopped for length or is not one JSON object
//!   is an [`EndpointError::InvalidReply`], never a value;
//! - **secrets**: the API key lives in an [`ApiKey`] whose `Debug` hides it; no error, log line
//!   or stored field carries it, nor the server's own message on a refused key (OpenAI's echoes
//!   part of the key).
//!
//! The caller decides what a valid answer is (a questionnaire's rules, the sweep's proposal
//! schema), what it costs and whether the budget allows it, and where replies are cached.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod client;
mod retry;
mod schema;
mod wire;

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use client::{Client, Halt, ReplyCache};
pub use retry::{Backoff, retry_after};
pub use schema::questionnaire_schema;
pub use wire::request_body;

/// An API key, read from the environment at run time. Its `Debug` and `Display` never show it.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// Reads the key from the environment variable `var`; `None` when unset or empty.
    pub fn from_env(var: &str) -> Option<ApiKey> {
        std::env::var(var)
            .ok()
            .filter(|k| !k.trim().is_empty())
            .map(|k| ApiKey(k.trim().to_string()))
    }

    fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(hidden)")
    }
}

/// How an endpoint takes a JSON schema for its reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    /// `response_format: {"type": "json_schema", "json_schema": {"name", "strict", "schema"}}`,
    /// OpenAI's structured outputs.
    JsonSchema,
    /// `response_format: {"type": "json_object", "schema": ...}`: JSON mode with the schema
    /// beside it, as llama.cpp's servers take it.
    JsonObject,
}

impl Dialect {
    /// The name recorded in provenance.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::JsonSchema => "json_schema",
            Dialect::JsonObject => "json_object",
        }
    }
}

/// Where and how to reach a model.
#[derive(Debug, Clone)]
pub struct EndpointConfig {
    /// The API's base URL, to which `/chat/completions` is appended (e.g.
    /// `https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`).
    pub endpoint: String,
    /// The model id sent in each request.
    pub model: String,
    /// The key sent as a bearer token, when the endpoint needs one.
    pub api_key: Option<ApiKey>,
    /// Where the key came from, named in a refusal (`OPENAI_API_KEY`), never the key itself.
    pub api_key_source: Option<String>,
    /// Sampling temperature; the endpoint's default when `None`.
    pub temperature: Option<f64>,
    /// The sampling seed, for endpoints that honour one.
    pub seed: Option<i64>,
    /// The most tokens a reply may have.
    pub max_output_tokens: Option<u32>,
    /// How long one request may take before it counts as timed out and is retried.
    pub timeout: Duration,
    /// Retries after transient faults (429, 5xx, timeouts).
    pub backoff: Backoff,
    /// Whose replies a cached reply is: the same request to the same endpoint is answered from
    /// the cache only within one scope (a model rater), so two raters asking one model alike
    /// each get replies of their own.
    pub cache_scope: String,
}

impl EndpointConfig {
    /// A configuration with a 120 s timeout and the default backoff.
    pub fn new(endpoint: impl Into<String>, model: impl Into<String>) -> EndpointConfig {
        EndpointConfig {
            endpoint: endpoint.into(),
            model: model.into(),
            api_key: None,
            api_key_source: None,
            temperature: None,
            seed: None,
            max_output_tokens: None,
            timeout: Duration::from_secs(120),
            backoff: Backoff::default(),
            cache_scope: String::new(),
        }
    }

    /// The URL requests are posted to.
    pub fn completions_url(&self) -> String {
        format!("{}/chat/completions", self.endpoint.trim_end_matches('/'))
    }
}

/// What the model is asked: a system and a user message, and the schema its reply must follow.
#[derive(Debug, Clone)]
pub struct StructuredRequest {
    /// The system message: the task's instructions.
    pub system: String,
    /// The user message: the materials.
    pub user: String,
    /// The schema's name (letters, digits, `_` and `-`, as OpenAI requires).
    pub schema_name: String,
    /// The JSON schema of the reply.
    pub schema: serde_json::Value,
}

/// A reply the endpoint gave, parsed: one JSON object, complete.
#[derive(Debug, Clone)]
pub struct Completion {
    /// The reply's JSON object.
    pub value: serde_json::Map<String, serde_json::Value>,
    /// The endpoint's whole response body, as received, kept as the raw reply.
    pub raw: String,
    /// The response's `id`.
    pub response_id: Option<String>,
    /// `usage.prompt_tokens`.
    pub input_tokens: u64,
    /// `usage.completion_tokens`.
    pub output_tokens: u64,
    /// The form the schema was sent in.
    pub dialect: Dialect,
    /// Time from sending the request that succeeded to its full response.
    pub latency_ms: u64,
    /// Requests sent for it, the successful one included.
    pub attempts: u32,
}

/// Why a request gave no usable reply. Each message is one sentence and never holds a key.
#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    /// The endpoint could not be reached at all (no connection, TLS refused, bad URL).
    #[error("the model endpoint {endpoint} could not be reached: {reason}")]
    Unreachable {
        /// The URL.
        endpoint: String,
        /// What failed.
        reason: String,
    },
    /// The endpoint refused the key (401 or 403).
    #[error("the model endpoint {endpoint} refused the API key{source_note} (HTTP {status})")]
    Unauthorized {
        /// The URL.
        endpoint: String,
        /// The status.
        status: u16,
        /// ` from VAR`, or ` (none was given)`.
        source_note: String,
    },
    /// The endpoint refused the request itself (an unknown model, a bad parameter).
    #[error("the model endpoint {endpoint} refused the request (HTTP {status}): {message}")]
    Refused {
        /// The URL.
        endpoint: String,
        /// The status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// This task's prompt does not fit the model's context; other tasks may.
    #[error("the task's prompt does not fit the model's context (HTTP {status}): {message}")]
    TooLong {
        /// The status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// Transient faults outlasted every retry.
    #[error("the model endpoint {endpoint} kept failing after {attempts} attempts: {last}")]
    Exhausted {
        /// The URL.
        endpoint: String,
        /// Requests sent.
        attempts: u32,
        /// The last fault.
        last: String,
    },
    /// The reply is not one complete JSON object.
    #[error("the model's reply is unusable: {reason}")]
    InvalidReply {
        /// What is wrong with it.
        reason: String,
        /// The response body, when there was one.
        raw: Option<String>,
        /// Tokens billed for it.
        input_tokens: u64,
        /// Tokens billed for it.
        output_tokens: u64,
    },
    /// The run was stopped (Ctrl-C, the app's Stop) before a reply came: before the request
    /// was sent, or (`sent`) after, when it was abandoned in flight or its retry was not sent.
    #[error("the request was cancelled")]
    Cancelled {
        /// Whether the request had gone to the endpoint, which may bill it.
        sent: bool,
    },
}

/// Where a model's reply came from: the model, the prompt sent (its template and SHA-256),
/// the sampling, what the request cost and how long it took, the response's id and the hash
/// its reply is cached under. Never the API key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Provenance {
    /// The model id.
    pub model: String,
    /// The API's base URL.
    pub endpoint: String,
    /// The prompt template's id.
    pub prompt_id: String,
    /// The prompt template's version.
    pub prompt_version: String,
    /// SHA-256 of the prompt sent.
    pub prompt_sha256: String,
    /// Sampling temperature, when set.
    pub temperature: Option<f64>,
    /// Sampling seed, when set.
    #[ts(type = "number | null")]
    pub seed: Option<i64>,
    /// Input tokens billed.
    #[ts(type = "number")]
    pub input_tokens: u64,
    /// Output tokens billed.
    #[ts(type = "number")]
    pub output_tokens: u64,
    /// Time to the reply, when known.
    #[ts(type = "number | null")]
    pub latency_ms: Option<i64>,
    /// What it cost in USD; `null` when a price is unknown.
    pub cost_usd: Option<f64>,
    /// The response's `id`.
    pub response_id: Option<String>,
    /// The structured-output form the schema was sent in.
    pub dialect: String,
    /// The hash the reply is cached under.
    pub request_hash: String,
}
