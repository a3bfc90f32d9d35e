//! A model rater's run over tasks: requests at a bounded concurrency within a budget, replies
//! cached by request hash, each reply checked by the questionnaire, each valid answer submitted
//! with its provenance, and each failure recorded with its reason.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde::Serialize;
use serde_json::json;
use time::OffsetDateTime;

use super::{cost, find_model, known_prices};
use crate::endpoint::{
    ApiKey, Client, Completion, Dialect, EndpointConfig, EndpointError, ReplyCache,
    StructuredRequest,
};
use crate::ops::access::Actor;
use crate::ops::answers::{AnswerRequest, submit_model_answer};
use crate::ops::model_prompt::{PromptTemplate, build_prompt, prompt_sha256};
use crate::ops::raters::{CaseSelection, selected_cases};
use crate::ops::{Error, ErrorCode, Project, Result, show_case, stamp};
use crate::questionnaire::Stage;
use crate::store::{EventKind, ModelAttempt, ModelRater, new_event_uid};

/// What `verity models rate` is asked.
#[derive(Debug, Clone)]
pub struct RateRequest {
    /// The model rater.
    pub name: String,
    /// The tasks.
    pub cases: CaseSelection,
    /// Requests at once.
    pub concurrency: usize,
    /// Stop before a request that could take the run's cost past this, in USD.
    pub budget_usd: Option<f64>,
    /// How long one request may take before it is retried.
    pub timeout: Duration,
}

/// How far a run is.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RateProgress {
    /// Tasks in the run.
    pub tasks: usize,
    /// Tasks finished (rated, failed or skipped).
    pub done: usize,
    /// Answers stored.
    pub rated: usize,
    /// Tasks that gave no valid answer.
    pub failed: usize,
    /// Tasks already submitted before the run.
    pub skipped: usize,
    /// Input tokens paid for in this run.
    pub input_tokens: u64,
    /// Output tokens paid for in this run.
    pub output_tokens: u64,
    /// USD paid in this run; `None` when a price is unknown.
    pub cost_usd: Option<f64>,
}

/// What a run did. Serialised with exactly the keys `verity models rate --json` promises.
#[derive(Debug, Clone, Serialize)]
pub struct RateReport {
    /// Answers stored.
    pub rated: usize,
    /// Tasks that gave no valid answer.
    pub failed: usize,
    /// Tasks already submitted.
    pub skipped: usize,
    /// USD paid in this run; `null` when a price is unknown.
    pub cost_usd: Option<f64>,
    /// Input tokens paid for.
    pub input_tokens: u64,
    /// Output tokens paid for.
    pub output_tokens: u64,
    /// Each task that gave no valid answer in this run, with why.
    pub failures: Vec<RateFailure>,
    /// Why the run stopped before its end (the budget, a cancel), with the tasks left.
    #[serde(skip)]
    pub stopped: Option<String>,
    /// Whether a cancel (Ctrl-C, the app's Stop) ended the run before its end.
    #[serde(skip)]
    pub cancelled: bool,
}

/// A task that gave no valid answer, and why (the last attempt's reason).
#[derive(Debug, Clone, Serialize)]
pub struct RateFailure {
    /// The task's instance id.
    pub case: String,
    /// Why its last attempt failed.
    pub reason: String,
}

/// Why a run stopped on a cancel (Ctrl-C, the app's Stop).
const STOPPED: &str = "stopped";

/// Validation rounds per task: a reply off the scale or not valid JSON is asked for again, and
/// after this many the task is a failed attempt with the reason.
const ROUNDS: u32 = 3;

/// A token estimate that errs high: three bytes a token (English prose runs about four, code
/// about three), and a few tokens per message.
fn estimate_tokens(request: &StructuredRequest) -> u64 {
    let bytes = request.system.len() + request.user.len() + request.schema.to_string().len();
    (bytes as u64).div_ceil(3) + 16
}

/// Replies by request hash: those the project holds for the requests in flight, looked up
/// before each is sent, and those received, which the run stores as they come.
#[derive(Default)]
struct RunCache {
    known: Mutex<HashMap<String, String>>,
    received: Mutex<Vec<(String, String)>>,
}

impl ReplyCache for RunCache {
    fn get(&self, hash: &str) -> Option<String> {
        self.known.lock().ok()?.remove(hash)
    }

    fn put(&self, hash: &str, raw: &str) {
        if let Ok(mut received) = self.received.lock() {
            received.push((hash.to_string(), raw.to_string()));
        }
    }
}

/// One request of the run.
struct Job {
    case_id: i64,
    instance_id: String,
    round: u32,
    request: Arc<StructuredRequest>,
    /// Whether its reply was in the project before it was sent (then it costs nothing).
    cached: bool,
    /// The worst case it could cost, held against the budget while it is in flight.
    reserved: f64,
}

struct Done {
    job: Job,
    result: std::result::Result<Completion, EndpointError>,
}

/// Runs a model rater over tasks: assigns them, asks the model for each task not yet
/// submitted, and stores each valid answer as the rater's submission with its provenance.
/// `progress` hears after each request; `cancel` stops the run cleanly (requests in flight are
/// dropped, nothing half-written). Refused before anything is sent when the key's variable is
/// unset or a budget is given that unknown prices make impossible to keep.
pub fn rate_model(
    project: &mut Project,
    req: &RateRequest,
    clock: &dyn Fn() -> OffsetDateTime,
    progress: &mut dyn FnMut(&RateProgress),
    cancel: &AtomicBool,
) -> Result<RateReport> {
    project.require_coordinator("runs model raters")?;
    let model = find_model(project, &req.name)?;
    let config = &model.config;
    if let Some(budget) = req.budget_usd {
        if !budget.is_finite() || budget < 0.0 {
            return Err(Error::refused(
                ErrorCode::BadInput,
                "--budget-usd must be a number of USD, 0 or more",
            ));
        }
        let unknown: Vec<&str> = [
            config.price_in.is_none().then_some("--price-in"),
            config.price_out.is_none().then_some("--price-out"),
            config
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
    let api_key = match &config.api_key_env {
        Some(var) => Some(ApiKey::from_env(var).ok_or_else(|| {
            Error::refused(
                ErrorCode::ModelEndpoint,
                format!(
                    "the environment variable {var}, which holds the API key of {:?}, is not set: set it and run again (nothing was sent)",
                    model.rater.name
                ),
            )
        })?),
        None => None,
    };
    let template = PromptTemplate::builtin(&config.prompt_id)?;
    if template.version != config.prompt_version {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "{:?} was added with prompt {} {}, and this Verity ships {} {}: add the model again under a new name to use the new prompt",
                model.rater.name,
                config.prompt_id,
                config.prompt_version,
                template.id,
                template.version
            ),
        ));
    }
    // Tasks are assigned as their answers are stored, so a run refused at its first request
    // (a wrong key, an unreachable endpoint) leaves nothing behind.
    let (cases, _) = selected_cases(project, &req.cases)?;
    let mut endpoint = EndpointConfig::new(config.endpoint.clone(), config.model.clone());
    endpoint.api_key = api_key;
    endpoint.api_key_source = config.api_key_env.clone();
    endpoint.temperature = config.temperature;
    endpoint.seed = config.seed;
    endpoint.max_output_tokens = config.max_output_tokens;
    endpoint.timeout = req.timeout;
    endpoint.cache_scope = format!("rater {}", model.rater.id);
    let mut client = Client::new(endpoint).map_err(endpoint_error)?;
    let stored_dialect = match model.dialect.as_deref() {
        Some("json_schema") => Some(Dialect::JsonSchema),
        Some("json_object") => Some(Dialect::JsonObject),
        _ => None,
    };
    if let Some(dialect) = stored_dialect {
        client = client.with_dialect(dialect);
    }
    let previous = project.actor().cloned();
    project.act_as(Actor::Rater {
        name: model.rater.name.clone(),
    })?;
    let run = Run {
        model: &model,
        template: &template,
        client: Arc::new(client),
        cache: Arc::new(RunCache::default()),
        abort: Arc::new(AtomicBool::new(false)),
        dialect: stored_dialect,
        budget: req.budget_usd,
        progress: RateProgress {
            tasks: cases.len(),
            cost_usd: known_prices(config).then_some(0.0),
            ..RateProgress::default()
        },
        spent: 0.0,
        reserved: 0.0,
        failures: Vec::new(),
    };
    let result = run.go(
        project,
        &cases,
        req.concurrency.max(1),
        clock,
        progress,
        cancel,
    );
    project.act_as(previous.unwrap_or(Actor::Coordinator))?;
    result
}

struct Run<'a> {
    model: &'a ModelRater,
    template: &'a PromptTemplate,
    client: Arc<Client>,
    cache: Arc<RunCache>,
    abort: Arc<AtomicBool>,
    dialect: Option<Dialect>,
    budget: Option<f64>,
    progress: RateProgress,
    spent: f64,
    reserved: f64,
    failures: Vec<RateFailure>,
}

impl Run<'_> {
    fn go(
        mut self,
        project: &mut Project,
        cases: &[crate::store::CaseRow],
        concurrency: usize,
        clock: &dyn Fn() -> OffsetDateTime,
        progress: &mut dyn FnMut(&RateProgress),
        cancel: &AtomicBool,
    ) -> Result<RateReport> {
        let rater_id = self.model.rater.id;
        let mut queue: VecDeque<(i64, String, u32)> = VecDeque::new();
        for case in cases {
            let events = project.store.answer_events(case.case_id, rater_id)?;
            if events.iter().any(|e| e.kind != EventKind::Draft) {
                self.progress.skipped += 1;
                self.progress.done += 1;
            } else {
                queue.push_back((case.case_id, case.instance_id.clone(), 0));
            }
        }
        progress(&self.progress);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::refused(ErrorCode::Internal, format!("no async runtime: {e}")))?;
        let (job_tx, mut job_rx) = tokio::sync::mpsc::unbounded_channel::<Job>();
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        let (client, cache, abort) = (self.client.clone(), self.cache.clone(), self.abort.clone());
        let http = std::thread::spawn(move || {
            runtime.block_on(async move {
                let mut tasks = tokio::task::JoinSet::new();
                while let Some(job) = job_rx.recv().await {
                    let (client, cache, abort, done) = (
                        client.clone(),
                        cache.clone(),
                        abort.clone(),
                        done_tx.clone(),
                    );
                    tasks.spawn(async move {
                        let result = client
                            .complete(&job.request, job.round, &*cache, &abort)
                            .await;
                        let _ = done.send(Done { job, result });
                    });
                }
                while tasks.join_next().await.is_some() {}
            });
        });
        let mut in_flight = 0usize;
        let mut stopped: Option<String> = None;
        let mut fatal: Option<Error> = None;
        loop {
            while in_flight < concurrency && stopped.is_none() && fatal.is_none() {
                if cancel.load(Ordering::Relaxed) {
                    stopped = Some(STOPPED.into());
                    break;
                }
                let Some((case_id, instance_id, round)) = queue.pop_front() else {
                    break;
                };
                let job = match self.prepare(project, case_id, &instance_id, round) {
                    Ok(job) => job,
                    Err(e) => {
                        fatal = Some(e);
                        break;
                    }
                };
                if let Some(budget) = self.budget
                    && !job.cached
                    && self.spent + self.reserved + job.reserved > budget
                {
                    stopped = Some(format!(
                        "the budget of {budget} USD would not cover the next request (worst case {:.6} USD)",
                        job.reserved
                    ));
                    queue.push_front((case_id, instance_id, round));
                    break;
                }
                self.reserved += job.reserved;
                in_flight += 1;
                if job_tx.send(job).is_err() {
                    fatal = Some(Error::refused(
                        ErrorCode::Internal,
                        "the model requests' thread stopped",
                    ));
                    break;
                }
            }
            if in_flight == 0 {
                break;
            }
            let first = match done_rx.recv_timeout(Duration::from_millis(50)) {
                Ok(done) => done,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if cancel.load(Ordering::Relaxed) {
                        self.abort.store(true, Ordering::Relaxed);
                        stopped.get_or_insert_with(|| STOPPED.into());
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let mut batch = vec![first];
            batch.extend(done_rx.try_iter());
            // Every reply received is committed on its own before anything else is done with
            // it: a kill from here on never pays for it again.
            if let Err(e) = self.store_received(project, clock) {
                self.abort.store(true, Ordering::Relaxed);
                fatal.get_or_insert(e);
            }
            for done in batch {
                in_flight -= 1;
                self.reserved -= done.job.reserved;
                if fatal.is_some() {
                    continue;
                }
                match self.finish(project, done, clock) {
                    Ok(Some(retry)) => queue.push_front(retry),
                    Ok(None) => {}
                    Err(e) => {
                        self.abort.store(true, Ordering::Relaxed);
                        fatal.get_or_insert(e);
                    }
                }
            }
            progress(&self.progress);
        }
        drop(job_tx);
        let _ = http.join();
        if let Some(e) = fatal {
            return Err(e);
        }
        let left = self.progress.tasks - self.progress.done;
        Ok(RateReport {
            cancelled: stopped.as_deref() == Some(STOPPED),
            rated: self.progress.rated,
            failed: self.progress.failed,
            skipped: self.progress.skipped,
            cost_usd: self.progress.cost_usd,
            input_tokens: self.progress.input_tokens,
            output_tokens: self.progress.output_tokens,
            failures: std::mem::take(&mut self.failures),
            stopped: stopped.map(|why| {
                format!(
                    "{why}: {left} task{} left unrated (run again to go on; nothing paid for is asked again)",
                    if left == 1 { "" } else { "s" }
                )
            }),
        })
    }

    /// The request for a task's round, with whether the project holds its reply already.
    fn prepare(
        &self,
        project: &Project,
        case_id: i64,
        instance_id: &str,
        round: u32,
    ) -> Result<Job> {
        let detail = show_case(project, instance_id)?;
        let evidence = crate::ops::evidence::cached_evidence_json(project, instance_id)?;
        let request = build_prompt(
            self.template,
            project.questionnaire(),
            &detail,
            evidence.as_deref(),
        );
        let dialects = match self.client.dialect() {
            Some(d) => vec![d],
            None => vec![Dialect::JsonSchema, Dialect::JsonObject],
        };
        let mut cached = false;
        for dialect in dialects {
            let hash = self.client.request_hash(&request, dialect, round);
            if let Some(raw) = project.store.model_reply(&hash)? {
                if let Ok(mut known) = self.cache.known.lock() {
                    known.insert(hash, raw);
                }
                cached = true;
            }
        }
        let config = &self.model.config;
        let reserved = match (config.price_in, config.price_out, config.max_output_tokens) {
            (Some(pin), Some(pout), Some(max)) if !cached => {
                (estimate_tokens(&request) as f64 * pin + f64::from(max) * pout) / 1_000_000.0
            }
            _ => 0.0,
        };
        Ok(Job {
            case_id,
            instance_id: instance_id.to_string(),
            round,
            request: Arc::new(request),
            cached,
            reserved,
        })
    }

    /// Commits the replies received so far, in a transaction of their own.
    fn store_received(
        &self,
        project: &mut Project,
        clock: &dyn Fn() -> OffsetDateTime,
    ) -> Result<()> {
        let received = std::mem::take(&mut *self.cache.received.lock().map_err(|_| {
            Error::refused(ErrorCode::Internal, "the reply cache's lock was poisoned")
        })?);
        if received.is_empty() {
            return Ok(());
        }
        project.store.record_model_exchange(
            self.model.rater.id,
            &received,
            None,
            &stamp(clock()),
        )?;
        Ok(())
    }

    /// Stores what a request gave (its reply is stored already); the task's next round when
    /// its reply was invalid.
    fn finish(
        &mut self,
        project: &mut Project,
        done: Done,
        clock: &dyn Fn() -> OffsetDateTime,
    ) -> Result<Option<(i64, String, u32)>> {
        let Done { job, result } = done;
        let rater_id = self.model.rater.id;
        if let Some(dialect) = self.client.dialect()
            && self.dialect != Some(dialect)
        {
            project
                .store
                .set_model_dialect(rater_id, dialect.as_str())?;
            self.dialect = Some(dialect);
        }
        let dialect = self.client.dialect().unwrap_or(Dialect::JsonSchema);
        let hash = self.client.request_hash(&job.request, dialect, job.round);
        let at = stamp(clock());
        let last_round = job.round + 1 >= ROUNDS;
        let (completion, invalid) = match result {
            Ok(completion) => {
                let values = project
                    .questionnaire()
                    .check_answer(&completion.value, Stage::Submit);
                match values {
                    Ok(_) => (completion, None),
                    Err(violations) => {
                        let reason = violations
                            .iter()
                            .map(|v| format!("{}: {}", v.question, v.message))
                            .collect::<Vec<_>>()
                            .join("; ");
                        let reason = format!("the questionnaire refused the reply ({reason})");
                        let tokens = (completion.input_tokens, completion.output_tokens);
                        (completion, Some((reason, tokens)))
                    }
                }
            }
            Err(EndpointError::InvalidReply {
                reason,
                input_tokens,
                output_tokens,
                ..
            }) => {
                self.record(
                    project,
                    &job,
                    &hash,
                    if last_round { "failed" } else { "invalid" },
                    Some(format!("the model's reply is unusable: {reason}")),
                    (input_tokens, output_tokens, 0),
                    &at,
                )?;
                return Ok(self.next_round(&job, last_round));
            }
            Err(EndpointError::Cancelled) => return Ok(None),
            Err(e @ (EndpointError::Exhausted { .. } | EndpointError::TooLong { .. })) => {
                self.record(
                    project,
                    &job,
                    &hash,
                    "failed",
                    Some(e.to_string()),
                    (0, 0, 0),
                    &at,
                )?;
                self.progress.failed += 1;
                self.progress.done += 1;
                return Ok(None);
            }
            // A refused key or request, an unreachable endpoint: every other request would
            // end alike, so the run stops with the one sentence and stores nothing.
            Err(e) => return Err(endpoint_error(e)),
        };
        let tokens = (
            completion.input_tokens,
            completion.output_tokens,
            completion.latency_ms,
        );
        if let Some((reason, _)) = invalid {
            self.record(
                project,
                &job,
                &hash,
                if last_round { "failed" } else { "invalid" },
                Some(reason),
                tokens,
                &at,
            )?;
            return Ok(self.next_round(&job, last_round));
        }
        self.record(project, &job, &hash, "ok", None, tokens, &at)?;
        let latency_ms = if job.cached {
            project
                .store
                .model_attempts(rater_id)?
                .into_iter()
                .rfind(|a| a.request_hash == hash)
                .map(|a| a.latency_ms)
        } else {
            i64::try_from(completion.latency_ms).ok()
        };
        let config = &self.model.config;
        let provenance = json!({
            "model": config.model,
            "endpoint": config.endpoint,
            "prompt_id": config.prompt_id,
            "prompt_version": config.prompt_version,
            "prompt_sha256": prompt_sha256(&job.request),
            "temperature": config.temperature,
            "seed": config.seed,
            "input_tokens": completion.input_tokens,
            "output_tokens": completion.output_tokens,
            "latency_ms": latency_ms,
            "cost_usd": cost(config, completion.input_tokens, completion.output_tokens),
            "response_id": completion.response_id,
            "dialect": completion.dialect.as_str(),
            "request_hash": hash,
        });
        let uid = new_event_uid();
        project
            .store
            .put_provenance(&uid, &provenance.to_string())?;
        let answer = AnswerRequest {
            rater: self.model.rater.name.clone(),
            case: job.instance_id.clone(),
            values: completion.value,
            case_revision: None,
            reason: None,
        };
        project
            .store
            .add_assignments(&[(job.case_id, rater_id)], &at)?;
        submit_model_answer(project, &answer, &uid, clock())?;
        self.progress.rated += 1;
        self.progress.done += 1;
        Ok(None)
    }

    fn next_round(&mut self, job: &Job, last_round: bool) -> Option<(i64, String, u32)> {
        if last_round {
            self.progress.failed += 1;
            self.progress.done += 1;
            None
        } else {
            Some((job.case_id, job.instance_id.clone(), job.round + 1))
        }
    }

    /// Stores the request's attempt and counts what it cost (a reply the project held before
    /// the run costs nothing again, and is not recorded as a request again).
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        project: &mut Project,
        job: &Job,
        hash: &str,
        outcome: &str,
        reason: Option<String>,
        (input, output, latency_ms): (u64, u64, u64),
        at: &str,
    ) -> Result<()> {
        if outcome == "failed"
            && let Some(reason) = &reason
        {
            self.failures.push(RateFailure {
                case: job.instance_id.clone(),
                reason: reason.clone(),
            });
        }
        let config = &self.model.config;
        let attempt = (!job.cached).then(|| ModelAttempt {
            rater_id: self.model.rater.id,
            case_id: job.case_id,
            request_hash: hash.to_string(),
            outcome: outcome.to_string(),
            reason,
            input_tokens: i64::try_from(input).unwrap_or(i64::MAX),
            output_tokens: i64::try_from(output).unwrap_or(i64::MAX),
            latency_ms: i64::try_from(latency_ms).unwrap_or(i64::MAX),
            cost_usd: cost(config, input, output),
            at: at.to_string(),
        });
        if let Some(attempt) = &attempt {
            project
                .store
                .record_model_exchange(self.model.rater.id, &[], Some(attempt), at)?;
        }
        if !job.cached {
            self.progress.input_tokens += input;
            self.progress.output_tokens += output;
            if let Some(c) = cost(config, input, output) {
                self.spent += c;
                self.progress.cost_usd = Some(self.progress.cost_usd.unwrap_or(0.0) + c);
            }
        }
        Ok(())
    }
}

fn endpoint_error(e: EndpointError) -> Error {
    match e {
        EndpointError::Cancelled => Error::Cancelled,
        e => Error::refused(ErrorCode::ModelEndpoint, e.to_string()),
    }
}
