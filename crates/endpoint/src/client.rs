//! The client: one request at a time per call, as many calls at once as the caller allows.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use tokio::sync::{Mutex, OnceCell};

use super::wire::{
    error_message, exceeds_context, read_response, refuses_response_format, request_body,
};
use super::{Completion, Dialect, EndpointConfig, EndpointError, StructuredRequest, retry_after};

/// Where replies already paid for are kept, by request hash (the project's reply cache).
pub trait ReplyCache: Sync {
    /// The raw response body stored for `hash`.
    fn get(&self, hash: &str) -> Option<String>;
    /// Stores a raw response body; a failure to store is the caller's to log, never a reason to
    /// lose the reply in hand.
    fn put(&self, hash: &str, raw: &str);
}

/// How a caller stops its requests, in two steps: [`Halt::stop`] sends no new request (a
/// retry included) and lets those in flight finish, so their replies are kept;
/// [`Halt::abandon`] drops those in flight too.
#[derive(Debug, Default)]
pub struct Halt {
    stop: AtomicBool,
    abandon: AtomicBool,
}

impl Halt {
    /// A halt not yet asked for.
    pub fn new() -> Halt {
        Halt::default()
    }

    /// No new request is sent; those in flight go on.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// No new request is sent, and those in flight are dropped.
    pub fn abandon(&self) {
        self.stop();
        self.abandon.store(true, Ordering::Relaxed);
    }

    /// Clears both, for the next run.
    pub fn clear(&self) {
        self.stop.store(false, Ordering::Relaxed);
        self.abandon.store(false, Ordering::Relaxed);
    }

    /// Whether a stop (or an abandon) was asked for.
    pub fn is_stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether the requests in flight are to be dropped.
    pub fn is_abandoned(&self) -> bool {
        self.abandon.load(Ordering::Relaxed)
    }
}

/// A Chat Completions client for one endpoint and model.
#[derive(Debug)]
pub struct Client {
    config: EndpointConfig,
    http: reqwest::Client,
    dialect: OnceCell<Dialect>,
    /// Held while the first request finds the dialect, so that the others wait for it instead of
    /// each being refused once.
    probing: Mutex<()>,
    /// Whether any response came back from the endpoint: until one has, a refused connection
    /// means a wrong URL and is not retried.
    contacted: AtomicBool,
}

/// What one exchange ended with, before the dialect is settled.
enum Outcome {
    Done(Result<Completion, EndpointError>),
    /// The endpoint does not take this `response_format`.
    FormatRefused {
        status: u16,
        message: String,
    },
}

/// One request's result within the retry loop.
enum Attempt {
    Reply {
        raw: String,
        latency: Duration,
    },
    Transient {
        reason: String,
        wait: Option<Duration>,
    },
    Final(Outcome),
}

impl Client {
    /// A client for `config`, with the dialect still to be found.
    pub fn new(config: EndpointConfig) -> Result<Client, EndpointError> {
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(Duration::from_secs(10).min(config.timeout))
            .build()
            .map_err(|e| EndpointError::Unreachable {
                endpoint: config.endpoint.clone(),
                reason: format!("the HTTP client could not be set up ({e})"),
            })?;
        Ok(Client {
            config,
            http,
            dialect: OnceCell::new(),
            probing: Mutex::new(()),
            contacted: AtomicBool::new(false),
        })
    }

    /// A client that already knows its endpoint's dialect (found by an earlier run).
    pub fn with_dialect(self, dialect: Dialect) -> Client {
        // A fresh cell takes the value; the `Err` of a second set cannot happen here.
        let _ = self.dialect.set(dialect);
        self
    }

    /// The dialect, once found.
    pub fn dialect(&self) -> Option<Dialect> {
        self.dialect.get().copied()
    }

    /// The configuration.
    pub fn config(&self) -> &EndpointConfig {
        &self.config
    }

    /// The hash a request's reply is cached under: SHA-256 of its body with keys sorted, of the
    /// validation round (a reply found invalid is asked for again as round 1, 2, ...), and of the
    /// endpoint and the cache's scope, so a rerun finds every reply it already paid for, in the
    /// order it got them, and never one another endpoint or another rater was given.
    pub fn request_hash(
        &self,
        request: &StructuredRequest,
        dialect: Dialect,
        round: u32,
    ) -> String {
        let body = request_body(&self.config, request, dialect);
        let mut hasher = Sha256::new();
        write_canonical(&body, &mut hasher);
        hasher.update(format!("\u{0}round={round}").as_bytes());
        for part in [&self.config.endpoint, &self.config.cache_scope] {
            hasher.update(b"\0");
            hasher.update(part.as_bytes());
        }
        hex(&hasher.finalize())
    }

    /// Asks for one reply: from the cache when it holds this request's, else from the endpoint,
    /// retrying transient faults. `round` is the validation round (see [`Self::request_hash`]).
    /// `halt` stops it: a stop sends nothing more (no first request, no retry) and waits for
    /// the request in flight; an abandon drops that too.
    pub async fn complete(
        &self,
        request: &StructuredRequest,
        round: u32,
        cache: &dyn ReplyCache,
        cancel: &Halt,
    ) -> Result<Completion, EndpointError> {
        if let Some(dialect) = self.dialect() {
            return self.finish(self.exchange(request, round, dialect, cache, cancel).await);
        }
        let _probe = self.probing.lock().await;
        if let Some(dialect) = self.dialect() {
            return self.finish(self.exchange(request, round, dialect, cache, cancel).await);
        }
        match self
            .exchange(request, round, Dialect::JsonSchema, cache, cancel)
            .await
        {
            Outcome::FormatRefused { .. } => {
                tracing::info!(
                    endpoint = %self.config.endpoint,
                    "the endpoint refuses json_schema; asking with json_object and the schema"
                );
                let outcome = self
                    .exchange(request, round, Dialect::JsonObject, cache, cancel)
                    .await;
                if reached_model(&outcome) {
                    let _ = self.dialect.set(Dialect::JsonObject);
                }
                self.finish(outcome)
            }
            outcome => {
                if reached_model(&outcome) {
                    let _ = self.dialect.set(Dialect::JsonSchema);
                }
                self.finish(outcome)
            }
        }
    }

    fn finish(&self, outcome: Outcome) -> Result<Completion, EndpointError> {
        match outcome {
            Outcome::Done(result) => result,
            Outcome::FormatRefused { status, message } => Err(EndpointError::Refused {
                endpoint: self.config.endpoint.clone(),
                status,
                message: format!(
                    "it takes neither json_schema nor json_object with a schema ({message})"
                ),
            }),
        }
    }

    /// One reply in one dialect: the cache, else requests until one is final.
    async fn exchange(
        &self,
        request: &StructuredRequest,
        round: u32,
        dialect: Dialect,
        cache: &dyn ReplyCache,
        cancel: &Halt,
    ) -> Outcome {
        let hash = self.request_hash(request, dialect, round);
        if let Some(raw) = cache.get(&hash) {
            return Outcome::Done(completion(raw, dialect, Duration::ZERO, 0));
        }
        let body = match serde_json::to_vec(&request_body(&self.config, request, dialect)) {
            Ok(body) => body,
            Err(e) => {
                return Outcome::Done(Err(EndpointError::InvalidReply {
                    reason: format!("the request could not be written ({e})"),
                    raw: None,
                    input_tokens: 0,
                    output_tokens: 0,
                }));
            }
        };
        let backoff = self.config.backoff;
        let mut last = String::new();
        for attempt in 1..=backoff.max_attempts {
            let sent = attempt > 1;
            if cancel.is_stopping() {
                return Outcome::Done(Err(EndpointError::Cancelled { sent }));
            }
            let step = tokio::select! {
                step = self.attempt(&body) => step,
                () = abandoned(cancel) => {
                    return Outcome::Done(Err(EndpointError::Cancelled { sent: true }));
                }
            };
            match step {
                Attempt::Reply { raw, latency } => {
                    cache.put(&hash, &raw);
                    return Outcome::Done(completion(raw, dialect, latency, attempt));
                }
                Attempt::Final(outcome) => return outcome,
                Attempt::Transient { reason, wait } => {
                    tracing::debug!(attempt, %reason, "transient fault from the model endpoint");
                    if attempt == backoff.max_attempts {
                        last = reason;
                        break;
                    }
                    let wait = match wait {
                        Some(asked) if asked > backoff.max_retry_after => {
                            return Outcome::Done(Err(EndpointError::Exhausted {
                                endpoint: self.config.endpoint.clone(),
                                attempts: attempt,
                                last: format!(
                                    "{reason}, and it asks to wait {} s, longer than {} s",
                                    asked.as_secs(),
                                    backoff.max_retry_after.as_secs()
                                ),
                            }));
                        }
                        Some(asked) => asked,
                        None => backoff.delay(attempt, &hash),
                    };
                    if sleep_unless_stopped(wait, cancel).await {
                        return Outcome::Done(Err(EndpointError::Cancelled { sent: true }));
                    }
                    last = reason;
                }
            }
        }
        Outcome::Done(Err(EndpointError::Exhausted {
            endpoint: self.config.endpoint.clone(),
            attempts: backoff.max_attempts,
            last,
        }))
    }

    /// Sends one request and sorts its result.
    async fn attempt(&self, body: &[u8]) -> Attempt {
        let endpoint = &self.config.endpoint;
        let mut post = self
            .http
            .post(self.config.completions_url())
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        if let Some(key) = &self.config.api_key {
            post = post.header(AUTHORIZATION, format!("Bearer {}", key.expose()));
        }
        let started = Instant::now();
        let response = match post.send().await {
            Ok(response) => response,
            Err(e) => {
                let reason = transport_reason(&e, self.config.timeout);
                if !self.contacted.load(Ordering::Relaxed) && !e.is_timeout() {
                    return Attempt::Final(Outcome::Done(Err(EndpointError::Unreachable {
                        endpoint: endpoint.clone(),
                        reason,
                    })));
                }
                return Attempt::Transient { reason, wait: None };
            }
        };
        self.contacted.store(true, Ordering::Relaxed);
        let status = response.status();
        let wait = retry_after(response.headers(), OffsetDateTime::now_utc());
        let bytes = match response.bytes().await {
            Ok(bytes) => bytes,
            Err(e) => {
                return Attempt::Transient {
                    reason: format!(
                        "the reply broke off ({})",
                        transport_reason(&e, self.config.timeout)
                    ),
                    wait: None,
                };
            }
        };
        if status.is_success() {
            return Attempt::Reply {
                raw: String::from_utf8_lossy(&bytes).into_owned(),
                latency: started.elapsed(),
            };
        }
        let code = status.as_u16();
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            // The server's message is not repeated: OpenAI's names part of the key it refused.
            let source_note = match (&self.config.api_key, &self.config.api_key_source) {
                (None, Some(var)) => format!(" (none was given: {var} is not set)"),
                (None, None) => " (none was given)".to_string(),
                (Some(_), Some(var)) => format!(" from {var}"),
                (Some(_), None) => String::new(),
            };
            return Attempt::Final(Outcome::Done(Err(EndpointError::Unauthorized {
                endpoint: endpoint.clone(),
                status: code,
                source_note,
            })));
        }
        let message = error_message(&bytes);
        if refuses_response_format(code, &message) {
            return Attempt::Final(Outcome::FormatRefused {
                status: code,
                message,
            });
        }
        if exceeds_context(code, &bytes, &message) {
            return Attempt::Final(Outcome::Done(Err(EndpointError::TooLong {
                status: code,
                message,
            })));
        }
        if status == StatusCode::TOO_MANY_REQUESTS
            || status == StatusCode::REQUEST_TIMEOUT
            || status.is_server_error()
        {
            return Attempt::Transient {
                reason: format!("HTTP {code}: {message}"),
                wait,
            };
        }
        Attempt::Final(Outcome::Done(Err(EndpointError::Refused {
            endpoint: endpoint.clone(),
            status: code,
            message,
        })))
    }
}

/// Whether an outcome shows that the endpoint took the request's form (a reply came, usable or
/// not).
fn reached_model(outcome: &Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Done(Ok(_)) | Outcome::Done(Err(EndpointError::InvalidReply { .. }))
    )
}

/// A raw 200 response made into a completion, or why it is unusable.
fn completion(
    raw: String,
    dialect: Dialect,
    latency: Duration,
    attempts: u32,
) -> Result<Completion, EndpointError> {
    let invalid =
        |reason: String, input: u64, output: u64, raw: &str| EndpointError::InvalidReply {
            reason,
            raw: Some(raw.to_string()),
            input_tokens: input,
            output_tokens: output,
        };
    let response = read_response(raw.as_bytes()).map_err(|reason| invalid(reason, 0, 0, &raw))?;
    let (input, output) = (response.input_tokens, response.output_tokens);
    if response.finish_reason.as_deref() == Some("length") {
        return Err(invalid(
            format!("it was cut off after {output} tokens (finish_reason \"length\")"),
            input,
            output,
            &raw,
        ));
    }
    let Some(content) = response.content else {
        return Err(invalid(
            "it has no message content".into(),
            input,
            output,
            &raw,
        ));
    };
    let value = match serde_json::from_str::<Value>(strip_fence(&content)) {
        Ok(Value::Object(map)) => map,
        Ok(other) => {
            return Err(invalid(
                format!(
                    "its content is JSON but not an object ({})",
                    json_kind(&other)
                ),
                input,
                output,
                &raw,
            ));
        }
        Err(e) => {
            return Err(invalid(
                format!("its content is not JSON ({e})"),
                input,
                output,
                &raw,
            ));
        }
    };
    Ok(Completion {
        value,
        response_id: response.id,
        input_tokens: input,
        output_tokens: output,
        dialect,
        latency_ms: u64::try_from(latency.as_millis()).unwrap_or(u64::MAX),
        attempts,
        raw,
    })
}

/// The content inside a Markdown code fence, which some models put around JSON even in JSON
/// mode; other content as it is.
fn strip_fence(content: &str) -> &str {
    let trimmed = content.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn transport_reason(e: &reqwest::Error, timeout: Duration) -> String {
    if e.is_timeout() {
        return format!("no reply within {} s", timeout.as_secs_f64());
    }
    let mut reason = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        reason = inner.to_string();
        source = inner.source();
    }
    reason
}

/// Resolves once `halted` holds.
async fn until(halted: impl Fn() -> bool) {
    while !halted() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Resolves once the requests in flight are to be dropped.
async fn abandoned(halt: &Halt) {
    until(|| halt.is_abandoned()).await;
}

/// Sleeps for `wait` before a retry; true when a stop came meanwhile (the retry is not sent).
async fn sleep_unless_stopped(wait: Duration, halt: &Halt) -> bool {
    tokio::select! {
        () = tokio::time::sleep(wait) => false,
        () = until(|| halt.is_stopping()) => true,
    }
}

/// JSON with object keys sorted at every level, into a hasher: one request, one hash, whatever
/// order a map iterates in.
fn write_canonical(value: &Value, hasher: &mut Sha256) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            hasher.update(b"{");
            for key in keys {
                hasher.update(Value::String(key.clone()).to_string().as_bytes());
                hasher.update(b":");
                write_canonical(&map[key.as_str()], hasher);
                hasher.update(b",");
            }
            hasher.update(b"}");
        }
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                write_canonical(item, hasher);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        scalar => hasher.update(scalar.to_string().as_bytes()),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_json_is_read_and_other_content_left_alone() {
        assert_eq!(strip_fence("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(strip_fence(" {\"a\": 1} "), "{\"a\": 1}");
    }

    #[test]
    fn a_cut_off_or_malformed_reply_is_invalid_with_its_tokens() {
        let reply = |content: &str, finish: &str| {
            serde_json::json!({
                "id": "x", "choices": [{"index": 0, "finish_reason": finish,
                "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 4},
            })
            .to_string()
        };
        let cut = completion(
            reply("{\"a\": ", "length"),
            Dialect::JsonObject,
            Duration::ZERO,
            1,
        );
        assert!(matches!(
            cut,
            Err(EndpointError::InvalidReply { ref reason, input_tokens: 10, output_tokens: 4, .. })
                if reason.contains("cut off")
        ));
        let list = completion(reply("[1]", "stop"), Dialect::JsonSchema, Duration::ZERO, 1);
        assert!(
            matches!(list, Err(EndpointError::InvalidReply { ref reason, .. }) if reason.contains("a list"))
        );
        let ok = completion(
            reply("{\"a\": 1}", "stop"),
            Dialect::JsonSchema,
            Duration::ZERO,
            2,
        )
        .expect("a completion");
        assert_eq!((ok.value["a"].as_i64(), ok.attempts), (Some(1), 2));
    }

    #[test]
    fn the_request_hash_ignores_key_order_and_tells_rounds_and_dialects_apart() {
        let client =
            Client::new(EndpointConfig::new("http://127.0.0.1:9/v1", "m")).expect("client");
        let request = StructuredRequest {
            system: "s".into(),
            user: "u".into(),
            schema_name: "a".into(),
            schema: serde_json::json!({"b": 1, "a": 2}),
        };
        let mut reordered = request.clone();
        reordered.schema = serde_json::json!({"a": 2, "b": 1});
        let h = |r: &StructuredRequest, d, n| client.request_hash(r, d, n);
        assert_eq!(
            h(&request, Dialect::JsonSchema, 0),
            h(&reordered, Dialect::JsonSchema, 0)
        );
        assert_ne!(
            h(&request, Dialect::JsonSchema, 0),
            h(&request, Dialect::JsonSchema, 1)
        );
        assert_ne!(
            h(&request, Dialect::JsonSchema, 0),
            h(&request, Dialect::JsonObject, 0)
        );
        let mut scoped = EndpointConfig::new("http://127.0.0.1:9/v1", "m");
        scoped.cache_scope = "rater 2".into();
        let scoped = Client::new(scoped).expect("client");
        let elsewhere =
            Client::new(EndpointConfig::new("http://127.0.0.1:10/v1", "m")).expect("client");
        for other in [scoped, elsewhere] {
            assert_ne!(
                h(&request, Dialect::JsonSchema, 0),
                other.request_hash(&request, Dialect::JsonSchema, 0)
            );
        }
    }
}
