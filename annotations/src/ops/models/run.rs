//! A model's run over tasks, whatever it is asked for (a rating, a sweep's proposal): requests
//! at a bounded concurrency within a budget, replies cached by request hash and committed as
//! they come (a rerun after a kill never pays twice), each reply checked and asked for again
//! when refused, each request recorded with what it cost, and each valid reply handed to the
//! [`Asking`] with its provenance.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::client::{endpoint_error, open_client, stored_dialect};
use super::{cost, known_prices};
use crate::ops::model_prompt::{PromptTemplate, prompt_sha256};
use crate::ops::{Error, ErrorCode, Project, Result, stamp};
use verity_endpoint::{
    Client, Completion, Dialect, EndpointError, Provenance, ReplyCache, StructuredRequest,
};
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

/// How far a run is.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RateProgress {
    /// Tasks in the run.
    pub tasks: usize,
    /// Tasks finished (done, failed or skipped).
    pub done: usize,
    /// Valid replies stored (answers, or sweeps).
    pub rated: usize,
    /// Tasks that gave no valid reply.
    pub failed: usize,
    /// Tasks done before the run.
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
    /// Valid replies stored (answers, or sweeps).
    pub rated: usize,
    /// Tasks that gave no valid reply.
    pub failed: usize,
    /// Tasks done before the run.
    pub skipped: usize,
    /// USD paid in this run; `null` when a price is unknown.
    pub cost_usd: Option<f64>,
    /// Input tokens paid for.
    pub input_tokens: u64,
    /// Output tokens paid for.
    pub output_tokens: u64,
    /// Each task that gave no valid reply in this run, with why.
    pub failures: Vec<RateFailure>,
    /// Why the run stopped before its end (the budget, a cancel), with the tasks left.
    #[serde(skip)]
    pub stopped: Option<String>,
    /// Whether a cancel (Ctrl-C, the app's Stop) ended the run before its end.
    #[serde(skip)]
    pub cancelled: bool,
}

/// A task that gave no valid reply, and why (the last attempt's reason).
#[derive(Debug, Clone, Serialize)]
pub struct RateFailure {
    /// The task's instance id.
    pub case: String,
    /// Why its last attempt failed.
    pub reason: String,
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

/// Why a run stopped on a cancel (Ctrl-C, the app's Stop).
const STOPPED: &str = "stopped";

/// Validation rounds per task: a reply refused is asked for again, and after this many the
/// task is a failed attempt with the reason.
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
    asked: Asked,
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

/// Runs the model over `cases`: asks for each task `asking` does not count done, at the plan's
/// concurrency and within its budget, and hands each valid reply to `asking`. `progress` hears
/// after each request; `cancel` stops the run cleanly (requests in flight are dropped, nothing
/// half-written).
pub(in crate::ops) fn run_model(
    project: &mut Project,
    plan: &RunPlan<'_>,
    cases: &[CaseRow],
    asking: &mut impl Asking,
    clock: &dyn Fn() -> OffsetDateTime,
    progress: &mut dyn FnMut(&RateProgress),
    cancel: &AtomicBool,
) -> Result<RateReport> {
    let client = open_client(plan.model, plan.budget_usd, plan.timeout, plan.purpose)?;
    let mut run = Run {
        plan,
        client: Arc::new(client),
        cache: Arc::new(RunCache::default()),
        abort: Arc::new(AtomicBool::new(false)),
        dialect: stored_dialect(plan.model),
        progress: RateProgress {
            tasks: cases.len(),
            cost_usd: known_prices(&plan.model.config.settings).then_some(0.0),
            ..RateProgress::default()
        },
        spent: 0.0,
        reserved: 0.0,
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
    let (client, cache, abort) = (run.client.clone(), run.cache.clone(), run.abort.clone());
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
    let concurrency = run.plan.concurrency.max(1);
    let mut in_flight = 0usize;
    let mut stopped: Option<String> = None;
    let mut fatal: Option<Error> = None;
    loop {
        while in_flight < concurrency && stopped.is_none() && fatal.is_none() {
            if cancel.load(Ordering::Relaxed) {
                stopped = Some(STOPPED.into());
                break;
            }
            let Some((asked, round)) = queue.pop_front() else {
                break;
            };
            let job = match run.prepare(project, asking, asked, round) {
                Ok(job) => job,
                Err(e) => {
                    fatal = Some(e);
                    break;
                }
            };
            if let Some(budget) = run.plan.budget_usd
                && !job.cached
                && run.spent + run.reserved + job.reserved > budget
            {
                stopped = Some(format!(
                    "the budget of {budget} USD would not cover the next request (worst case {:.6} USD)",
                    job.reserved
                ));
                queue.push_front((job.asked, job.round));
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
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if cancel.load(Ordering::Relaxed) {
                    run.abort.store(true, Ordering::Relaxed);
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
        if let Err(e) = run.store_received(project, clock) {
            run.abort.store(true, Ordering::Relaxed);
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
                    run.abort.store(true, Ordering::Relaxed);
                    fatal.get_or_insert(e);
                }
            }
        }
        progress(&run.progress);
    }
    drop(job_tx);
    let _ = http.join();
    if let Some(e) = fatal {
        return Err(e);
    }
    let left = run.progress.tasks - run.progress.done;
    Ok(RateReport {
        cancelled: stopped.as_deref() == Some(STOPPED),
        rated: run.progress.rated,
        failed: run.progress.failed,
        skipped: run.progress.skipped,
        cost_usd: run.progress.cost_usd,
        input_tokens: run.progress.input_tokens,
        output_tokens: run.progress.output_tokens,
        failures: std::mem::take(&mut run.failures),
        stopped: stopped.map(|why| {
            format!(
                "{why}: {left} task{} left {} (run again to go on; nothing paid for is asked again)",
                if left == 1 { "" } else { "s" },
                match run.plan.purpose {
                    AttemptPurpose::Rate => "unrated",
                    AttemptPurpose::Sweep => "unswept",
                }
            )
        }),
    })
}

struct Run<'a> {
    plan: &'a RunPlan<'a>,
    client: Arc<Client>,
    cache: Arc<RunCache>,
    abort: Arc<AtomicBool>,
    dialect: Option<Dialect>,
    progress: RateProgress,
    spent: f64,
    reserved: f64,
    failures: Vec<RateFailure>,
}

impl Run<'_> {
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
        let reserved = match (
            settings.price_in,
            settings.price_out,
            settings.max_output_tokens,
        ) {
            (Some(pin), Some(pout), Some(max)) if !cached => {
                (estimate_tokens(&request) as f64 * pin + f64::from(max) * pout) / 1_000_000.0
            }
            _ => 0.0,
        };
        Ok(Job {
            asked,
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
            cost_usd: cost(settings, completion.input_tokens, completion.output_tokens),
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
                self.progress.cost_usd = Some(self.progress.cost_usd.unwrap_or(0.0) + c);
            }
        }
        Ok(())
    }
}
