//! The model endpoint client against a Chat Completions server on 127.0.0.1 with faults: the
//! dialect found once, retries that honour `Retry-After`, timeouts, cut-off and malformed
//! replies, a refused key that is never repeated, the reply cache, cancelling.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;
use verity_endpoint::{
    ApiKey, Backoff, Client, Completion, Dialect, EndpointConfig, EndpointError, Halt, ReplyCache,
    StructuredRequest, questionnaire_schema,
};
use verity_task::questionnaire::{Questionnaire, Stage};

use verity_testkit::chat_server::{ChatFault, ChatServer};

#[derive(Default)]
struct MemoryCache(Mutex<HashMap<String, String>>);

impl ReplyCache for MemoryCache {
    fn get(&self, hash: &str) -> Option<String> {
        self.0.lock().expect("cache").get(hash).cloned()
    }
    fn put(&self, hash: &str, raw: &str) {
        self.0
            .lock()
            .expect("cache")
            .insert(hash.to_string(), raw.to_string());
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn config(server: &ChatServer) -> EndpointConfig {
    let mut config = EndpointConfig::new(server.endpoint(), "test-model");
    config.timeout = Duration::from_secs(5);
    config.backoff = Backoff {
        max_attempts: 4,
        base: Duration::from_millis(20),
        cap: Duration::from_millis(200),
        max_retry_after: Duration::from_secs(5),
    };
    config
}

fn request(task: &str) -> StructuredRequest {
    let questionnaire = Questionnaire::builtin("swe-bench-verified").expect("shipped");
    StructuredRequest {
        system: "Rate the task with the questionnaire.".into(),
        user: format!("Task {task}: the issue text, the patches and the tests."),
        schema_name: "answer".into(),
        schema: questionnaire_schema(&questionnaire),
    }
}

fn complete(
    client: &Client,
    request: &StructuredRequest,
    cache: &MemoryCache,
) -> Result<Completion, EndpointError> {
    runtime().block_on(client.complete(request, 0, cache, &Halt::new()))
}

#[test]
fn a_reply_is_one_json_object_with_usage_and_the_key_sent_as_a_bearer_token() {
    let server = ChatServer::start();
    server.require_key("sk-test-1234");
    let mut config = config(&server);
    config.api_key = Some(ApiKey::new("sk-test-1234"));
    config.temperature = Some(0.0);
    config.seed = Some(42);
    let client = Client::new(config).expect("client");
    let done = complete(&client, &request("a"), &MemoryCache::default()).expect("a reply");
    assert_eq!(done.dialect, Dialect::JsonSchema);
    assert_eq!(client.dialect(), Some(Dialect::JsonSchema));
    assert!(
        done.input_tokens > 10 && done.output_tokens > 10,
        "{done:?}"
    );
    assert_eq!(done.response_id.as_deref(), Some("chatcmpl-test000001"));
    assert_eq!(done.attempts, 1);
    let questionnaire = Questionnaire::builtin("swe-bench-verified").expect("shipped");
    questionnaire
        .check_answer(&done.value, Stage::Submit)
        .expect("the server's answer follows the schema, and so the questionnaire");
    let log = server.log();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].authorization.as_deref(), Some("Bearer sk-test-1234"));
    assert_eq!(log[0].body["seed"], 42);
    assert_eq!(
        log[0].body["response_format"]["json_schema"]["strict"],
        true
    );
}

#[test]
fn rate_limits_and_server_errors_are_retried_and_retry_after_is_honoured() {
    let server = ChatServer::start();
    server.fault(ChatFault::Status(429, Some("1".into())));
    server.fault(ChatFault::Status(500, None));
    server.fault(ChatFault::Status(503, None));
    let client = Client::new(config(&server)).expect("client");
    let started = Instant::now();
    let done = complete(&client, &request("a"), &MemoryCache::default()).expect("a reply");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited as Retry-After asked"
    );
    assert_eq!(done.attempts, 4);
    let statuses: Vec<u16> = server.log().iter().map(|l| l.status).collect();
    assert_eq!(statuses, [429, 500, 503, 200]);
}

#[test]
fn faults_that_outlast_the_retries_fail_with_the_last_one_named() {
    let server = ChatServer::start();
    for _ in 0..4 {
        server.fault(ChatFault::Status(500, None));
    }
    let client = Client::new(config(&server)).expect("client");
    let err = complete(&client, &request("a"), &MemoryCache::default()).expect_err("fails");
    let text = err.to_string();
    assert!(
        matches!(err, EndpointError::Exhausted { attempts: 4, .. }),
        "{text}"
    );
    assert!(text.contains("HTTP 500"), "{text}");
    server.fault(ChatFault::Status(429, Some("3600".into())));
    let err = complete(&client, &request("b"), &MemoryCache::default()).expect_err("fails");
    assert!(err.to_string().contains("3600 s"), "{err}");
}

#[test]
fn a_timeout_and_a_reply_broken_off_are_retried() {
    let server = ChatServer::start();
    server.fault(ChatFault::Delay(Duration::from_secs(3)));
    server.fault(ChatFault::Drop);
    let mut config = config(&server);
    config.timeout = Duration::from_millis(800);
    let client = Client::new(config).expect("client");
    let done = complete(&client, &request("a"), &MemoryCache::default()).expect("a reply");
    assert_eq!(done.attempts, 3);
}

#[test]
fn malformed_and_cut_off_replies_are_invalid_and_an_off_scale_one_fails_the_questionnaire() {
    let server = ChatServer::start();
    server.fault(ChatFault::Malformed);
    server.fault(ChatFault::CutOff);
    server.fault(ChatFault::OffScale);
    let client = Client::new(config(&server)).expect("client");
    let cache = MemoryCache::default();
    let malformed = complete(&client, &request("a"), &cache).expect_err("not JSON");
    assert!(malformed.to_string().contains("not JSON"), "{malformed}");
    let cut = complete(&client, &request("b"), &cache).expect_err("cut off");
    assert!(
        matches!(&cut, EndpointError::InvalidReply { reason, output_tokens, raw: Some(_), .. }
            if reason.contains("cut off") && *output_tokens > 0),
        "{cut}"
    );
    let off = complete(&client, &request("c"), &cache).expect("JSON");
    let questionnaire = Questionnaire::builtin("swe-bench-verified").expect("shipped");
    let violations = questionnaire
        .check_answer(&off.value, Stage::Submit)
        .expect_err("9 is on no scale");
    assert!(
        violations.iter().any(|v| v.message.contains('9')),
        "{violations:?}"
    );
}

#[test]
fn a_wrong_key_is_refused_in_one_sentence_that_never_holds_the_key() {
    let server = ChatServer::start();
    server.require_key("sk-right");
    let mut config = config(&server);
    config.api_key = Some(ApiKey::new("sk-wrong-secret-value"));
    config.api_key_source = Some("VERITY_TEST_KEY".into());
    assert!(!format!("{config:?}").contains("sk-wrong"));
    let client = Client::new(config).expect("client");
    let err = complete(&client, &request("a"), &MemoryCache::default()).expect_err("refused");
    let text = err.to_string();
    assert!(matches!(
        err,
        EndpointError::Unauthorized { status: 401, .. }
    ));
    assert!(text.contains("VERITY_TEST_KEY"), "{text}");
    assert!(!text.contains("sk-wrong"), "{text}");
    assert!(!format!("{err:?}").contains("sk-wrong"));
    assert_eq!(server.log().len(), 1, "a refused key is not retried");
    assert_eq!(client.dialect(), None, "nothing was learnt of the dialect");
}

#[test]
fn an_endpoint_that_takes_only_json_object_is_found_once_and_then_asked_that_way() {
    let server = ChatServer::start();
    server.partial();
    let client = Client::new(config(&server)).expect("client");
    let cache = MemoryCache::default();
    let rt = runtime();
    let never = Halt::new();
    let requests: Vec<StructuredRequest> = (0..8).map(|i| request(&format!("task {i}"))).collect();
    let results = rt.block_on(async {
        let calls = requests
            .iter()
            .map(|r| client.complete(r, 0, &cache, &never));
        futures_util::future::join_all(calls).await
    });
    for result in &results {
        let done = result.as_ref().expect("a reply");
        assert_eq!(done.dialect, Dialect::JsonObject);
    }
    let log = server.log();
    let refused = log.iter().filter(|l| l.status == 500).count();
    assert_eq!(refused, 1, "one probe, not a blind retry per request");
    assert_eq!(log.len(), 9);
    let last = &log[8].body;
    assert_eq!(last["response_format"]["type"], "json_object");
    assert_eq!(last["response_format"]["schema"]["type"], "object");
}

#[test]
fn a_reply_already_paid_for_is_taken_from_the_cache_and_each_round_asked_anew() {
    let server = ChatServer::start();
    let client = Client::new(config(&server)).expect("client");
    let cache = MemoryCache::default();
    let first = complete(&client, &request("a"), &cache).expect("a reply");
    let again = complete(&client, &request("a"), &cache).expect("a reply");
    assert_eq!(server.log().len(), 1, "the second came from the cache");
    assert_eq!((first.attempts, again.attempts), (1, 0));
    assert_eq!(first.value, again.value);
    let rt = runtime();
    rt.block_on(client.complete(&request("a"), 1, &cache, &Halt::new()))
        .expect("round 1");
    assert_eq!(server.log().len(), 2, "a new round is a new request");
}

#[test]
fn an_endpoint_nobody_listens_on_is_unreachable_at_once() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = free.local_addr().expect("an address").port();
    drop(free);
    let mut config = EndpointConfig::new(format!("http://127.0.0.1:{port}/v1"), "m");
    config.backoff.base = Duration::from_secs(5);
    let client = Client::new(config).expect("client");
    let started = Instant::now();
    let err = complete(&client, &request("a"), &MemoryCache::default()).expect_err("nobody");
    assert!(matches!(err, EndpointError::Unreachable { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5), "not retried");
}

#[test]
fn abandoning_drops_a_request_in_flight() {
    let server = ChatServer::start();
    server.fault(ChatFault::Delay(Duration::from_secs(30)));
    let client = Client::new(config(&server)).expect("client");
    let halt = Halt::new();
    let cache = MemoryCache::default();
    let started = Instant::now();
    let rt = runtime();
    let slow = request("a");
    let err = rt.block_on(async {
        let call = client.complete(&slow, 0, &cache, &halt);
        let stop = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            halt.abandon();
            std::future::pending::<()>().await
        };
        tokio::select! {
            result = call => result,
            () = stop => unreachable!("pending forever"),
        }
    });
    assert!(
        matches!(err, Err(EndpointError::Cancelled { sent: true })),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(cache.0.lock().expect("cache").is_empty());
}

#[test]
fn a_stop_lets_the_request_in_flight_finish_and_sends_nothing_more() {
    let server = ChatServer::start();
    server.fault(ChatFault::Delay(Duration::from_millis(600)));
    let client = Client::new(config(&server)).expect("client");
    let halt = Halt::new();
    let cache = MemoryCache::default();
    let rt = runtime();
    let (first, second) = (request("a"), request("b"));
    let reply = rt.block_on(async {
        let call = client.complete(&first, 0, &cache, &halt);
        let stop = async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            halt.stop();
            std::future::pending::<()>().await
        };
        tokio::select! {
            result = call => result,
            () = stop => unreachable!("pending forever"),
        }
    });
    assert!(reply.is_ok(), "the reply in flight was kept: {reply:?}");
    assert_eq!(cache.0.lock().expect("cache").len(), 1, "and cached");
    // Stopped: a new request is not sent, and says so.
    let after = rt.block_on(client.complete(&second, 0, &cache, &halt));
    assert!(
        matches!(after, Err(EndpointError::Cancelled { sent: false })),
        "{after:?}"
    );
    assert_eq!(server.log().len(), 1);
    // A request whose first try failed is not tried again once stopped: the server asks for
    // 30 s before the retry, and the stop comes during the wait.
    server.fault(ChatFault::Status(503, Some("30".into())));
    let mut patient = config(&server);
    patient.backoff.max_retry_after = Duration::from_secs(60);
    let patient = Client::new(patient).expect("client");
    let fresh = Halt::new();
    let retried = rt.block_on(async {
        let call = patient.complete(&second, 0, &cache, &fresh);
        let stop = async {
            while server.log().len() < 2 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            fresh.stop();
            std::future::pending::<()>().await
        };
        tokio::select! {
            result = call => result,
            () = stop => unreachable!("pending forever"),
        }
    });
    assert!(
        matches!(retried, Err(EndpointError::Cancelled { sent: true })),
        "{retried:?}"
    );
    assert_eq!(server.log().len(), 2, "no retry after the stop");
}

#[test]
fn request_bodies_follow_the_chat_completions_format() {
    let server = ChatServer::start();
    let mut config = config(&server);
    config.max_output_tokens = Some(1200);
    let client = Client::new(config).expect("client");
    complete(&client, &request("a"), &MemoryCache::default()).expect("a reply");
    let body = &server.log()[0].body;
    assert_eq!(body["model"], "test-model");
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert_eq!(roles, ["system", "user"]);
    assert_eq!(body["max_tokens"], 1200);
    assert!(body.get("temperature").is_none());
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["properties"]["underspecified"]["enum"],
        Value::from(vec![0, 1, 2, 3])
    );
}
