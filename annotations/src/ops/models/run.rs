//! A model's run over tasks, whatever it is asked for (a rating, a sweep's proposal): requests
//! at a bounded concurrency within a budget, replies cached by request hash and committed as
//! they come (a rerun after a kill never pays twice), each reply checked and asked for again
//! when refused, each request recorded with what it cost, and each valid reply handed to the
//! [`Asking`] with its provenance.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::client::{endpoint_error, open_client, stored_dialect};
use super::report::{RateFailure, RateProgress, RateReport, Stop, finished};
use super::{cost, known_prices, round_usd};
use crate::ops::model_prompt::{PromptTemplate, prompt_sha256};
use crate::ops::{Error, ErrorCode, Project, Result, stamp};
use verity_endpoint::{
    Client, Completion, Dialect, EndpointError, Halt, Provenance, ReplyCache, StructuredRequest,
};
use verity_stats::natural::thousands;
use verity_store::{AttemptPurpose, CaseRow, ModelAttempt, ModelRater};

/// What a run asks the model for each task, and what it does with a valid reply.
pub(in crate::ops) trait Asking {
    /// A valid reply, as [`Asking::check`] makes it of the reply's object.
    type Valid;
    /// Whether a task needs no request (answered, or swept, before the run): counted skipped.
    fn done_before(&self, project: &Project, case: &CaseRow) -> Result<bool>;
    /// The request for a task.
    fn request(&self, project: &Project, instance_id: &str) -> Result<StructuredRequest>;
    /// The reply made valid, checked once and in the form it is stored in, or why it is
    /// refused (it is then asked for again).
    fn check(
        &self,
        project: &Project,
        instance_id: &str,
        reply: Fields,
    ) -> std::result::Result<Self::Valid, String>;
    /// Stores a valid reply with its provenance.
    fn accept(&mut self, project: &mut Project, reply: Reply<Self::Valid>) -> Result<()>;
}

/// A reply's JSON object.
pub(in crate::ops) type Fields = Map<String, Value>;

/// A valid reply, the task it answers, where it came from and when it was received.
pub(in crate::ops) struct Reply<T> {
    /// The task.
    pub asked: Asked,
    /// The reply, as [`Asking::check`] made it.
    pub valid: T,
    /// Where it came from.
    pub provenance: Provenance,
    /// When it was received.
    pub now: OffsetDateTime,
}

/// The task a reply answers.
pub(in crate::ops) struct Asked {
    /// The case's row id.
    pub case_id: i64,
    /// Its instance id.
    pub instance_id: String,
}

/// How a run is asked: the model, its prompt, what it is for, and its limits.
pub(in crate::ops) struct RunPlan<'a> {
    /// The model rater whose endpoint is asked.
    pub model: &'a ModelRater,
    /// The prompt's template (its id and version go into each provenance).
    pub template: &'a PromptTemplate,
    /// What the requests are for.
    pub purpose: AttemptPurpose,
    /// Requests at once.
    pub concurrency: usize,
    /// Stop before a request that could take the run's cost past this, in USD.
    pub budget_usd: Option<f64>,
    /// How long one request may take before it is retried.
    pub timeout: Duration,
}

/// Validation rounds per task: a reply refused is asked for again, and after this many the
/// task is a failed attempt with the reason.
const ROUNDS: u32 = 3;

/// A few tokens per message, beside its text.
const MESSAGE_TOKENS: u64 = 16;

/// The prompt's size in bytes: its messages and its schema.
fn prompt_bytes(request: &StructuredRequest) -> u64 {
    (request.system.len() + request.user.len() + request.schema.to_string().len()) as u64
}

/// A prompt's tokens, an estimate that errs high: a token for every three bytes (English prose
/// runs about four, code about three), or as many as the endpoint's own counts came to on this
/// run's prompts when those ran denser, and a few tokens for the messages.
fn estimate_tokens(bytes: u64, tokens_per_byte: f64) -> u64 {
    let dense = (bytes as f64 * tokens_per_byte).ceil() as u64;
    bytes.div_ceil(3).max(dense) + MESSAGE_TOKENS
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
    asked: Asked,
    round: u32,
    request: Arc<StructuredRequest>,
    /// Whether its reply was in the project before it was sent (then it costs nothing).
    cached: bool,
    /// Its prompt's estimated tokens (see [`estimate_tokens`]).
    prompt_tokens: u64,
    /// The worst case it could cost, held against the budget while it is in flight.
    reserved: f64,
}

struct Done {
    job: Job,
    result: std::result::Result<Completion, EndpointError>,
}

/// Runs the model over `cases`: asks for each task `asking` does not count done, at the plan's
/// concurrency and within its budget, and hands each valid reply to `asking`. `progress` hears
/// after each request. `halt` stops the run cleanly: a stop sends no new request and waits for
/// those in flight, whose replies are stored and used; an abandon drops those too, each
/// recorded with its spend estimated from its prompt. Nothing is half-written either way.
pub(in crate::ops) fn run_model(
    project: &mut Project,
    plan: &RunPlan<'_>,
    cases: &[CaseRow],
    asking: &mut impl Asking,
    clock: &dyn Fn() -> OffsetDateTime,
    progress: &mut dyn FnMut(&RateProgress),
    halt: &Halt,
) -> Result<RateReport> {
    let client = open_client(plan.model, plan.budget_usd, plan.timeout, plan.purpose)?;
    let mut run = Run {
        plan,
        client: Arc::new(client),
        cache: Arc::new(RunCache::default()),
        halt: Arc::new(Halt::new()),
        dialect: stored_dialect(plan.model),
        progress: RateProgress {
            tasks: cases.len(),
            cost_usd: known_prices(&plan.model.config.settings).then_some(0.0),
            ..RateProgress::default()
        },
        spent: 0.0,
        reserved: 0.0,
        tokens_per_byte: 0.0,
        abandoned: 0,
        failures: Vec::new(),
    };
    let mut queue: VecDeque<(Asked, u32)> = VecDeque::new();
    for case in cases {
        if asking.done_before(project, case)? {
            run.progress.skipped += 1;
            run.progress.done += 1;
        } else {
            let asked = Asked {
                case_id: case.case_id,
                instance_id: case.instance_id.clone(),
            };
            queue.push_back((asked, 0));
        }
    }
    progress(&run.progress);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::refused(ErrorCode::Internal, format!("no async runtime: {e}")))?;
    let (job_tx, mut job_rx) = tokio::sync::mpsc::unbounded_channel::<Job>();
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let (client, cache, inner) = (run.client.clone(), run.cache.clone(), run.halt.clone());
    let http = std::thread::spawn(move || {
        runtime.block_on(async move {
            let mut tasks = tokio::task::JoinSet::new();
            while let Some(job) = job_rx.recv().await {
                let (client, cache, halt, done) = (
                    client.clone(),
                    cache.clone(),
                    inner.clone(),
                    done_tx.clone(),
                );
                tasks.spawn(async move {
                    let result = client
                        .complete(&job.request, job.round, &*cache, &halt)
                        .await;
                    let _ = done.send(Done { job, result });
                });
            }
            while tasks.join_next().await.is_some() {}
        });
    });
    let concurrency = run.plan.concurrency.max(1);
    let mut in_flight = 0usize;
    // The next request, prepared and waiting for the budget that requests in flight hold.
    let mut next: Option<Job> = None;
    let mut stopped: Option<Stop> = None;
    let mut fatal: Option<Error> = None;
    loop {
        run.follow(halt);
        while in_flight < concurrency && stopped.is_none() && fatal.is_none() {
            if halt.is_stopping() {
                // A stop with nothing left to ask ends the run as done.
                if next.is_some() || !queue.is_empty() {
                    stopped = Some(Stop::Cancelled);
                }
                break;
            }
            let job = match next.take() {
                Some(job) => job,
                None => {
                    let Some((asked, round)) = queue.pop_front() else {
                        break;
                    };
                    match run.prepare(project, asking, asked, round) {
                        Ok(job) => job,
                        Err(e) => {
                            fatal = Some(e);
                            break;
                        }
                    }
                }
            };
            if let Some(budget) = run.plan.budget_usd
                && !job.cached
                && run.spent + run.reserved + job.reserved > budget
            {
                // Requests in flight hold their worst cases, which their replies mostly
                // undercut: the run waits for them, and stops only when none is left.
                if in_flight == 0 {
                    stopped = Some(Stop::Budget(run.over_budget(budget, &job)));
                    queue.push_front((job.asked, job.round));
                } else {
                    next = Some(job);
                }
                break;
            }
            run.reserved += job.reserved;
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
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let mut batch = vec![first];
        batch.extend(done_rx.try_iter());
        // Every reply received is committed on its own before anything else is done with
        // it: a kill from here on never pays for it again.
        if let Err(e) = run.store_received(project, clock) {
            run.halt.abandon();
            fatal.get_or_insert(e);
        }
        for done in batch {
            in_flight -= 1;
            run.reserved -= done.job.reserved;
            if fatal.is_some() {
                continue;
            }
            match run.finish(project, asking, done, clock) {
                Ok(Some(retry)) => queue.push_front(retry),
                Ok(None) => {}
                Err(e) => {
                    run.halt.abandon();
                    fatal.get_or_insert(e);
                }
            }
        }
        progress(&run.progress);
    }
    if let Some(job) = next {
        queue.push_front((job.asked, job.round));
    }
    drop(job_tx);
    let _ = http.join();
    if let Some(e) = fatal {
        return Err(e);
    }
    Ok(finished(
        &run.progress,
        run.plan.purpose,
        std::mem::take(&mut run.failures),
        run.abandoned,
        stopped,
    ))
}

struct Run<'a> {
    plan: &'a RunPlan<'a>,
    client: Arc<Client>,
    cache: Arc<RunCache>,
    /// What the requests in flight obey: the caller's halt, followed, and an abandon of its
    /// own on a fatal error.
    halt: Arc<Halt>,
    dialect: Option<Dialect>,
    progress: RateProgress,
    spent: f64,
    reserved: f64,
    /// The most tokens a prompt byte came to on this run, by the endpoint's own counts.
    tokens_per_byte: f64,
    /// Requests left in flight by an abandon.
    abandoned: usize,
    failures: Vec<RateFailure>,
}

impl Run<'_> {
    /// Passes the caller's stop or abandon on to the requests in flight.
    fn follow(&self, halt: &Halt) {
        if halt.is_abandoned() {
            self.halt.abandon();
        } else if halt.is_stopping() {
            self.halt.stop();
        }
    }

    /// Why the budget stops the run before `job`: what is left of it, and the request's worst
    /// case from its prompt's tokens and the reply's token limit at the model's prices.
    fn over_budget(&self, budget: f64, job: &Job) -> String {
        let settings = &self.plan.model.config.settings;
        let price = |p: Option<f64>| p.map_or_else(|| "?".into(), |p| format!("${p}"));
        format!(
            "${:.4} of the ${budget} budget is left, and the next request could cost ${:.4} (about {} prompt tokens at {} and up to {} reply tokens at {} per million)",
            (budget - self.spent).max(0.0),
            job.reserved,
            thousands(usize::try_from(job.prompt_tokens).unwrap_or(usize::MAX)),
            price(settings.price_in),
            thousands(settings.max_output_tokens.unwrap_or(0) as usize),
            price(settings.price_out),
        )
    }

    /// The request for a task's round, with whether the project holds its reply already.
    fn prepare(
        &self,
        project: &Project,
        asking: &impl Asking,
        asked: Asked,
        round: u32,
    ) -> Result<Job> {
        let request = asking.request(project, &asked.instance_id)?;
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
        let settings = &self.plan.model.config.settings;
        let prompt_tokens = estimate_tokens(prompt_bytes(&request), self.tokens_per_byte);
        let reserved = match (
            settings.price_in,
            settings.price_out,
            settings.max_output_tokens,
        ) {
            (Some(pin), Some(pout), Some(max)) if !cached => {
                (prompt_tokens as f64 * pin + f64::from(max) * pout) / 1_000_000.0
            }
            _ => 0.0,
        };
        Ok(Job {
            asked,
            round,
            request: Arc::new(request),
            cached,
            prompt_tokens,
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
            self.plan.model.rater.id,
            &received,
            None,
            &stamp(clock()),
        )?;
        Ok(())
    }

    /// Hands what a request gave to `asking` (its reply is stored already); the task's next
    /// round when its reply was refused.
    fn finish<A: Asking>(
        &mut self,
        project: &mut Project,
        asking: &mut A,
        done: Done,
        clock: &dyn Fn() -> OffsetDateTime,
    ) -> Result<Option<(Asked, u32)>> {
        let Done { job, result } = done;
        let rater_id = self.plan.model.rater.id;
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
        let completion = match result {
            Ok(completion) => completion,
            Err(EndpointError::InvalidReply {
                reason,
                input_tokens,
                output_tokens,
                ..
            }) => {
                if !job.cached {
                    self.learn_density(&job, input_tokens);
                }
                self.record(
                    project,
                    &job,
                    &hash,
                    if last_round { "failed" } else { "invalid" },
                    Some(format!("the model's reply is unusable: {reason}")),
                    (input_tokens, output_tokens, 0),
                    &at,
                )?;
                return Ok(self.next_round(job, last_round));
            }
            Err(EndpointError::Cancelled { sent: false }) => return Ok(None),
            // Sent, and left in flight (or its retry not sent) when the run was stopped: the
            // endpoint may bill it, so it is counted with its prompt's estimated tokens.
            Err(EndpointError::Cancelled { sent: true }) => {
                self.abandoned += 1;
                self.record(
                    project,
                    &job,
                    &hash,
                    "abandoned",
                    Some("the run was stopped before its reply came; its tokens are estimated from the prompt".into()),
                    (job.prompt_tokens, 0, 0),
                    &at,
                )?;
                return Ok(None);
            }
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
        if !job.cached {
            self.learn_density(&job, completion.input_tokens);
        }
        let valid = match asking.check(project, &job.asked.instance_id, completion.value) {
            Ok(valid) => valid,
            Err(reason) => {
                self.record(
                    project,
                    &job,
                    &hash,
                    if last_round { "failed" } else { "invalid" },
                    Some(reason),
                    tokens,
                    &at,
                )?;
                return Ok(self.next_round(job, last_round));
            }
        };
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
        let settings = &self.plan.model.config.settings;
        let provenance = Provenance {
            model: settings.model.clone(),
            endpoint: settings.endpoint.clone(),
            prompt_id: self.plan.template.id.clone(),
            prompt_version: self.plan.template.version.clone(),
            prompt_sha256: prompt_sha256(&job.request),
            temperature: settings.temperature,
            seed: settings.seed,
            input_tokens: completion.input_tokens,
            output_tokens: completion.output_tokens,
            latency_ms,
            cost_usd: cost(settings, completion.input_tokens, completion.output_tokens)
                .map(round_usd),
            response_id: completion.response_id,
            dialect: completion.dialect.as_str().to_string(),
            request_hash: hash,
        };
        let reply = Reply {
            asked: job.asked,
            valid,
            provenance,
            now: clock(),
        };
        asking.accept(project, reply)?;
        self.progress.rated += 1;
        self.progress.done += 1;
        Ok(None)
    }

    /// Raises the tokens a prompt byte is reckoned at when the endpoint counted `input_tokens`
    /// for `job`'s prompt, more than the estimate's three bytes a token.
    fn learn_density(&mut self, job: &Job, input_tokens: u64) {
        let bytes = prompt_bytes(&job.request);
        if bytes > 0 {
            let density = input_tokens.saturating_sub(MESSAGE_TOKENS) as f64 / bytes as f64;
            self.tokens_per_byte = self.tokens_per_byte.max(density);
        }
    }

    fn next_round(&mut self, job: Job, last_round: bool) -> Option<(Asked, u32)> {
        if last_round {
            self.progress.failed += 1;
            self.progress.done += 1;
            None
        } else {
            Some((job.asked, job.round + 1))
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
                case: job.asked.instance_id.clone(),
                reason: reason.clone(),
            });
        }
        let settings = &self.plan.model.config.settings;
        if !job.cached {
            let attempt = ModelAttempt {
                rater_id: self.plan.model.rater.id,
                case_id: job.asked.case_id,
                purpose: self.plan.purpose,
                request_hash: hash.to_string(),
                outcome: outcome.to_string(),
                reason,
                input_tokens: i64::try_from(input).unwrap_or(i64::MAX),
                output_tokens: i64::try_from(output).unwrap_or(i64::MAX),
                latency_ms: i64::try_from(latency_ms).unwrap_or(i64::MAX),
                cost_usd: cost(settings, input, output),
                at: at.to_string(),
            };
            project.store.record_model_exchange(
                self.plan.model.rater.id,
                &[],
                Some(&attempt),
                at,
            )?;
            self.progress.input_tokens += input;
            self.progress.output_tokens += output;
            if let Some(c) = cost(settings, input, output) {
                self.spent += c;
                self.progress.cost_usd = Some(round_usd(self.spent));
            }
        }
        Ok(())
    }
}
