//! A model endpoint on 127.0.0.1 speaking OpenAI's Chat Completions format: `POST
//! .../chat/completions` answered with `choices[].message.content`, `finish_reason` and `usage`,
//! errors as `{"error": {"message", "type", "param", "code"}}` with `Retry-After` where OpenAI
//! sends it. The answer is built from the request's own JSON schema (or by a function the test
//! gives), so it is valid unless a fault says otherwise.
//!
//! Faults, served once each in order (`fault`) or per request by an `x-test-fault` header (the
//! `openai` package's check sends those): `429`, `500`, `503` (a status with OpenAI's error body),
//! `400` (OpenAI's `context_length_exceeded`), `delay:MS`, `malformed` (content that is not
//! JSON), `off-scale` (an integer no enum allows), `cut-off` (`finish_reason: "length"` and half
//! the JSON), `drop` (headers, then half the body and the connection closed). `partial` mode
//! answers `json_schema` as llama.cpp's server does (a 500 naming the types it takes) and takes
//! `json_object` with a schema. A key, when set, must come as `Authorization: Bearer KEY`; a
//! wrong one gets OpenAI's 401. `hold` keeps every request it has read waiting for its answer
//! until `release`: requests in flight, for as long as a test needs them.
//! Also serves `examples/chat_serve.rs`.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::loopback::{Loopback, read_headers};

/// A fault served instead of, or inside, an answer.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatFault {
    /// This status with OpenAI's error body, and `Retry-After` when given.
    Status(u16, Option<String>),
    /// The answer, after this wait.
    Delay(Duration),
    /// Content that is not JSON.
    Malformed,
    /// The first enum property given a value its enum lacks.
    OffScale,
    /// `finish_reason: "length"` with the content cut in half.
    CutOff,
    /// The headers and half the body, then the connection closes.
    Drop,
}

impl ChatFault {
    /// Reads a fault's name as the `x-test-fault` header gives it.
    pub fn parse(name: &str) -> Option<ChatFault> {
        let name = name.trim();
        if let Some(ms) = name.strip_prefix("delay:") {
            return ms
                .parse()
                .ok()
                .map(|ms| ChatFault::Delay(Duration::from_millis(ms)));
        }
        if let Some(rest) = name.strip_prefix("429:") {
            return Some(ChatFault::Status(429, Some(rest.to_string())));
        }
        match name {
            "malformed" => Some(ChatFault::Malformed),
            "off-scale" => Some(ChatFault::OffScale),
            "cut-off" => Some(ChatFault::CutOff),
            "drop" => Some(ChatFault::Drop),
            code => code.parse().ok().map(|c| ChatFault::Status(c, None)),
        }
    }
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub struct ChatLogged {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
    /// The status answered.
    pub status: u16,
    /// When the whole answer was written to the connection (never for one the client left
    /// before it came).
    pub answered_at: Option<std::time::Instant>,
}

type Answerer = Box<dyn Fn(&Value) -> Value + Send>;

#[derive(Default)]
struct State {
    key: Option<String>,
    partial: bool,
    latency: Duration,
    faults: VecDeque<ChatFault>,
    log: Vec<ChatLogged>,
    answer: Option<Answerer>,
    served: u64,
    held: bool,
}

pub struct ChatServer {
    pub port: u16,
    state: Arc<Mutex<State>>,
    _loopback: Loopback,
}

impl ChatServer {
    pub fn start() -> ChatServer {
        ChatServer::start_on("127.0.0.1:0")
    }

    pub fn start_on(address: &str) -> ChatServer {
        let state = Arc::new(Mutex::new(State::default()));
        let served = state.clone();
        let loopback = Loopback::serve(address, move |stream, stop| serve(stream, &served, stop));
        ChatServer {
            port: loopback.port,
            state,
            _loopback: loopback,
        }
    }

    /// The base URL a client is given (`/chat/completions` is appended to it).
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn require_key(&self, key: &str) {
        self.state.lock().unwrap().key = Some(key.to_string());
    }

    /// Answers `json_schema` as llama.cpp's server does.
    pub fn partial(&self) {
        self.state.lock().unwrap().partial = true;
    }

    /// Every answer waits this long, as a model's generation does.
    pub fn latency(&self, latency: Duration) {
        self.state.lock().unwrap().latency = latency;
    }

    /// Every request read from now on waits for its answer until [`ChatServer::release`].
    pub fn hold(&self) {
        self.state.lock().unwrap().held = true;
    }

    /// Lets the requests held, and those to come, be answered.
    pub fn release(&self) {
        self.state.lock().unwrap().held = false;
    }

    pub fn fault(&self, fault: ChatFault) {
        self.state.lock().unwrap().faults.push_back(fault);
    }

    /// Answers with what `answer` makes of the request body (a JSON object) instead of the
    /// schema's first values.
    pub fn answer_with(&self, answer: impl Fn(&Value) -> Value + Send + 'static) {
        self.state.lock().unwrap().answer = Some(Box::new(answer));
    }

    pub fn log(&self) -> Vec<ChatLogged> {
        self.state.lock().unwrap().log.clone()
    }
}

/// Serves one connection's requests (keep-alive) until the client closes it.
fn serve(stream: TcpStream, state: &Mutex<State>, stop: &AtomicBool) {
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut stream = stream;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                continue;
            }
            Err(_) => return,
        }
        let headers = read_headers(&mut reader);
        let length: usize = headers
            .get("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
        if !answer_one(&mut stream, state, &path, &headers, &body) {
            return;
        }
    }
}

/// Answers one request; false when the connection is to close.
fn answer_one(
    stream: &mut TcpStream,
    state: &Mutex<State>,
    path: &str,
    headers: &HashMap<String, String>,
    body: &[u8],
) -> bool {
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let mut st = state.lock().unwrap();
    let authorization = headers.get("authorization").cloned();
    let log = |st: &mut State, status: u16| {
        st.log.push(ChatLogged {
            path: path.to_string(),
            authorization: authorization.clone(),
            body: request.clone(),
            status,
            answered_at: None,
        });
    };
    if !path.ends_with("/chat/completions") {
        log(&mut st, 404);
        drop(st);
        return error(
            stream,
            404,
            "Not found",
            "invalid_request_error",
            None,
            None,
        );
    }
    if let Some(key) = st.key.clone()
        && authorization.as_deref() != Some(&format!("Bearer {key}"))
    {
        log(&mut st, 401);
        drop(st);
        let given = authorization.unwrap_or_default();
        let shown: String = given
            .trim_start_matches("Bearer ")
            .chars()
            .take(6)
            .collect();
        let message = format!(
            "Incorrect API key provided: {shown}****. You can find your API key in your settings."
        );
        return error(
            stream,
            401,
            &message,
            "invalid_request_error",
            Some("invalid_api_key"),
            None,
        );
    }
    let format = request
        .pointer("/response_format/type")
        .and_then(Value::as_str);
    if st.partial && format == Some("json_schema") {
        log(&mut st, 500);
        drop(st);
        let message = "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), \
                       'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]";
        return error(stream, 500, message, "internal_server_error", None, None);
    }
    let fault = headers
        .get("x-test-fault")
        .and_then(|f| ChatFault::parse(f))
        .or_else(|| st.faults.pop_front());
    let status = match &fault {
        Some(ChatFault::Status(code, _)) => *code,
        _ => 200,
    };
    log(&mut st, status);
    let logged = st.log.len() - 1;
    let latency = st.latency;
    let schema = match format {
        Some("json_schema") => request.pointer("/response_format/json_schema/schema"),
        Some("json_object") => request.pointer("/response_format/schema"),
        _ => None,
    }
    .cloned()
    .unwrap_or(Value::Null);
    let mut content = match &st.answer {
        Some(answer) => answer(&request),
        None => answer_from_schema(&schema),
    };
    st.served += 1;
    let id = format!("chatcmpl-test{:06}", st.served);
    drop(st);
    while state.lock().unwrap().held {
        std::thread::sleep(Duration::from_millis(1));
    }
    if !latency.is_zero() {
        std::thread::sleep(latency);
    }
    let mut finish = "stop";
    let mut text = content.to_string();
    match fault {
        Some(ChatFault::Status(code, retry_after)) => {
            let (message, kind, code_name) = match code {
                429 => (
                    "Rate limit reached for requests. Please try again later.",
                    "requests",
                    Some("rate_limit_exceeded"),
                ),
                400 => (
                    "This model's maximum context length is 8192 tokens. However, your \
                     messages resulted in 9000 tokens. Please reduce the length of the messages.",
                    "invalid_request_error",
                    Some("context_length_exceeded"),
                ),
                500 => (
                    "The server had an error while processing your request.",
                    "server_error",
                    None,
                ),
                _ => (
                    "The engine is currently overloaded, please try again later.",
                    "server_error",
                    None,
                ),
            };
            return error(
                stream,
                code,
                message,
                kind,
                code_name,
                retry_after.as_deref(),
            );
        }
        Some(ChatFault::Delay(wait)) => std::thread::sleep(wait),
        Some(ChatFault::Malformed) => {
            text = "Sure! Here is my assessment: the issue is clear.".into()
        }
        Some(ChatFault::OffScale) => {
            if let Some(map) = content.as_object_mut()
                && let Some(key) = first_enum_property(&schema)
            {
                map.insert(key, json!(9));
            }
            text = content.to_string();
        }
        Some(ChatFault::CutOff) => {
            text = text.chars().take(text.chars().count() / 2).collect();
            finish = "length";
        }
        Some(ChatFault::Drop) | None => {}
    }
    let prompt_tokens = request
        .get("messages")
        .and_then(Value::as_array)
        .map(|m| {
            m.iter()
                .filter_map(|m| m.get("content").and_then(Value::as_str))
                .map(|c| c.len() as u64 / 4 + 4)
                .sum::<u64>()
        })
        .unwrap_or(0);
    let completion_tokens = text.len() as u64 / 4 + 1;
    let reply = json!({
        "id": id,
        "object": "chat.completion",
        "created": 1_764_158_400,
        "model": request.get("model").cloned().unwrap_or(Value::Null),
        "system_fingerprint": "fp_verity_test",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text, "refusal": null},
            "logprobs": null,
            "finish_reason": finish,
        }],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    });
    let body = reply.to_string();
    if fault == Some(ChatFault::Drop) {
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&body.as_bytes()[..body.len() / 2]);
        return false;
    }
    let written = respond(stream, 200, "", body.as_bytes());
    if written {
        let mut st = state.lock().unwrap();
        if let Some(entry) = st.log.get_mut(logged) {
            entry.answered_at = Some(std::time::Instant::now());
        }
    }
    written
}

/// A valid answer: each property's first allowed value, or a value of its type (a sentence for
/// a string).
fn answer_from_schema(schema: &Value) -> Value {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .find(|v| !v.is_null())
            .cloned()
            .unwrap_or(Value::Null);
    }
    let kind = match schema.get("type") {
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        Some(Value::String(t)) => Some(t.as_str()),
        _ if schema.get("properties").is_some() => Some("object"),
        _ => None,
    };
    match kind {
        Some("object") => {
            let mut answer = Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, property) in properties {
                    answer.insert(name.clone(), answer_from_schema(property));
                }
            }
            Value::Object(answer)
        }
        Some("integer") => json!(0),
        Some("number") => json!(0.5),
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("null") => Value::Null,
        _ => json!(
            "The issue names the failing call, the input that triggers it and the result it \
             should give, so a reader knows what a successful fix must do."
        ),
    }
}

fn first_enum_property(schema: &Value) -> Option<String> {
    schema
        .get("properties")?
        .as_object()?
        .iter()
        .find(|(_, p)| p.get("enum").is_some())
        .map(|(name, _)| name.clone())
}

fn error(
    stream: &mut TcpStream,
    status: u16,
    message: &str,
    kind: &str,
    code: Option<&str>,
    retry_after: Option<&str>,
) -> bool {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    let extra = retry_after
        .map(|s| format!("Retry-After: {s}\r\n"))
        .unwrap_or_default();
    respond(stream, status, &extra, body.to_string().as_bytes())
}

fn respond(stream: &mut TcpStream, status: u16, extra: &str, body: &[u8]) -> bool {
    let reason = match status {
        200 => "OK",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Error",
    };
    let mut response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    // One write: the body written after the head would wait for the client's delayed
    // acknowledgement of it (Nagle's algorithm), 40 ms on Linux, as no real server makes it.
    response.extend_from_slice(body);
    stream.write_all(&response).is_ok()
}
