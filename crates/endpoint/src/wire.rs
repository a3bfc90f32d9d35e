//! The Chat Completions format on the wire: the request body, and reading a response or an
//! error body.

use serde_json::{Map, Value, json};

use super::{Dialect, EndpointConfig, StructuredRequest};

/// The request body for `request` in `dialect`. Keys are written in a fixed order (serde_json's
/// maps are sorted), so one request always has one body and one hash.
pub fn request_body(
    config: &EndpointConfig,
    request: &StructuredRequest,
    dialect: Dialect,
) -> Value {
    let response_format = match dialect {
        Dialect::JsonSchema => json!({
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name,
                "strict": true,
                "schema": request.schema,
            },
        }),
        Dialect::JsonObject => json!({
            "type": "json_object",
            "schema": request.schema,
        }),
    };
    let mut body = Map::new();
    body.insert("model".into(), Value::String(config.model.clone()));
    body.insert(
        "messages".into(),
        json!([
            {"role": "system", "content": request.system},
            {"role": "user", "content": request.user},
        ]),
    );
    body.insert("response_format".into(), response_format);
    if let Some(t) = config.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(seed) = config.seed {
        body.insert("seed".into(), json!(seed));
    }
    if let Some(n) = config.max_output_tokens {
        body.insert("max_tokens".into(), json!(n));
    }
    Value::Object(body)
}

/// A successful response, read.
pub(super) struct Response {
    pub id: Option<String>,
    pub content: Option<String>,
    pub finish_reason: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Reads a 200 response's body; `Err` says why it is not a Chat Completions response.
pub(super) fn read_response(body: &[u8]) -> Result<Response, String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("the response is not JSON ({e})"))?;
    let choice = value
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("the response has no choices[0]")?;
    let usage = value.get("usage");
    let tokens = |key: &str| {
        usage
            .and_then(|u| u.get(key))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Ok(Response {
        id: value.get("id").and_then(Value::as_str).map(str::to_string),
        content: choice
            .pointer("/message/content")
            .and_then(Value::as_str)
            .map(str::to_string),
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        input_tokens: tokens("prompt_tokens"),
        output_tokens: tokens("completion_tokens"),
    })
}

/// The message of an error body: OpenAI's `{"error": {"message"}}`, FastAPI's `{"detail"}`, or
/// the start of the text; at most 300 characters, on one line.
pub(super) fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let from_json = serde_json::from_str::<Value>(&text).ok().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("detail"))
            .or_else(|| v.get("message"))
            .map(|m| match m {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
    });
    let message = from_json.unwrap_or_else(|| text.into_owned());
    let one_line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        return "no message".into();
    }
    match one_line.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

/// Whether an error says the endpoint does not take this `response_format`: llama.cpp's
/// servers answer `json_schema` with a 500 (or 400/422) naming the types they do take.
pub(super) fn refuses_response_format(status: u16, message: &str) -> bool {
    if !matches!(status, 400 | 422 | 500) {
        return false;
    }
    let m = message.to_ascii_lowercase();
    m.contains("response_format") || m.contains("json_schema") || m.contains("'json_object'")
}

/// Whether an error says the task's prompt does not fit the model's context: OpenAI's
/// `context_length_exceeded`, llama.cpp's and vLLM's "maximum context length". Only this task
/// is affected: a shorter prompt would be taken.
pub(super) fn exceeds_context(status: u16, body: &[u8], message: &str) -> bool {
    if !matches!(status, 400 | 413 | 422) {
        return false;
    }
    let code = serde_json::from_slice::<Value>(body).ok().and_then(|v| {
        v.pointer("/error/code")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let m = message.to_ascii_lowercase();
    code.as_deref() == Some("context_length_exceeded")
        || m.contains("maximum context length")
        || m.contains("context window")
        || m.contains("exceeds the context")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> StructuredRequest {
        StructuredRequest {
            system: "s".into(),
            user: "u".into(),
            schema_name: "answer".into(),
            schema: json!({"type": "object"}),
        }
    }

    #[test]
    fn bodies_carry_the_schema_in_each_dialect_and_only_the_parameters_set() {
        let mut config = EndpointConfig::new("http://h/v1", "m");
        let strict = request_body(&config, &request(), Dialect::JsonSchema);
        assert_eq!(strict["response_format"]["json_schema"]["strict"], true);
        assert_eq!(strict["response_format"]["json_schema"]["name"], "answer");
        assert!(strict.get("temperature").is_none());
        config.temperature = Some(0.0);
        config.seed = Some(7);
        config.max_output_tokens = Some(900);
        let loose = request_body(&config, &request(), Dialect::JsonObject);
        assert_eq!(loose["response_format"]["type"], "json_object");
        assert_eq!(loose["response_format"]["schema"]["type"], "object");
        assert_eq!(
            (&loose["temperature"], &loose["seed"], &loose["max_tokens"]),
            (&json!(0.0), &json!(7), &json!(900))
        );
        assert_eq!(loose["messages"][1]["content"], "u");
    }

    #[test]
    fn error_messages_come_from_each_known_shape_on_one_line() {
        assert_eq!(
            error_message(br#"{"error": {"message": "Rate limit\nreached", "type": "x"}}"#),
            "Rate limit reached"
        );
        assert_eq!(error_message(br#"{"detail": "Not found"}"#), "Not found");
        assert_eq!(error_message(b"Bad Gateway"), "Bad Gateway");
        assert_eq!(error_message(b""), "no message");
        assert_eq!(
            error_message("é".repeat(400).as_bytes()).chars().count(),
            301
        );
    }

    #[test]
    fn a_prompt_longer_than_the_context_is_told_from_other_refusals() {
        let openai = br#"{"error": {"message": "too long", "code": "context_length_exceeded"}}"#;
        assert!(exceeds_context(400, openai, "too long"));
        let llama = "This model's maximum context length is 8192 tokens. However, you requested 11435 tokens";
        assert!(exceeds_context(400, llama.as_bytes(), llama));
        assert!(!exceeds_context(400, b"{}", "The model `x` does not exist"));
        assert!(!exceeds_context(500, llama.as_bytes(), llama));
    }

    #[test]
    fn a_refused_response_format_is_told_from_other_errors() {
        let llama = "Input should be 'text' or 'json_object'";
        assert!(refuses_response_format(500, llama));
        assert!(refuses_response_format(
            400,
            "response_format.json_schema is not supported"
        ));
        assert!(!refuses_response_format(500, "CUDA out of memory"));
        assert!(!refuses_response_format(503, llama));
    }

    #[test]
    fn responses_are_read_with_usage_and_their_faults_named() {
        let ok = br#"{"id": "c1", "choices": [{"index": 0, "message": {"role": "assistant",
            "content": "{}"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 12,
            "completion_tokens": 3, "total_tokens": 15}}"#;
        let r = read_response(ok).expect("a response");
        assert_eq!(
            (
                r.id.as_deref(),
                r.content.as_deref(),
                r.input_tokens,
                r.output_tokens
            ),
            (Some("c1"), Some("{}"), 12, 3)
        );
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        assert!(read_response(b"{\"choices\": []}").is_err());
        assert!(read_response(b"<html>").is_err());
    }
}
