//! What a model's run reports: its progress as it goes, and at its end what it did, why it
//! stopped early if it did, and the tasks left.

use serde::Serialize;

use verity_store::AttemptPurpose;

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
    /// USD paid in this run, to the millionth; `None` when a price is unknown.
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
    /// USD paid in this run, to the millionth; `null` when a price is unknown.
    pub cost_usd: Option<f64>,
    /// Input tokens paid for.
    pub input_tokens: u64,
    /// Output tokens paid for.
    pub output_tokens: u64,
    /// Each task that gave no valid reply in this run, with why.
    pub failures: Vec<RateFailure>,
    /// Requests sent and left in flight by a second stop (their tokens and cost, estimated
    /// from the prompt, are in the totals); absent when none was.
    #[serde(skip_serializing_if = "is_zero")]
    pub abandoned: usize,
    /// Why the run stopped before its end (the budget, a cancel), with the tasks left.
    #[serde(skip)]
    pub stopped: Option<String>,
    /// Whether a cancel (Ctrl-C, the app's Stop) ended the run before its end.
    #[serde(skip)]
    pub cancelled: bool,
    /// Whether the budget ended the run before its end.
    #[serde(skip)]
    pub over_budget: bool,
    /// Tasks the run did not finish (stopped, or over budget).
    #[serde(skip)]
    pub left: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A task that gave no valid reply, and why (the last attempt's reason).
#[derive(Debug, Clone, Serialize)]
pub struct RateFailure {
    /// The task's instance id.
    pub case: String,
    /// Why its last attempt failed.
    pub reason: String,
}

/// Why a run stopped before its end.
pub(super) enum Stop {
    /// A cancel: Ctrl-C, the app's Stop.
    Cancelled,
    /// The budget would not cover the next request; why, in words.
    Budget(String),
}

/// What a run did, from its last progress, the failures, the requests abandoned and why it
/// stopped early, if it did.
pub(super) fn finished(
    progress: &RateProgress,
    purpose: AttemptPurpose,
    failures: Vec<RateFailure>,
    abandoned: usize,
    stopped: Option<Stop>,
) -> RateReport {
    let left = progress.tasks - progress.done;
    let unfinished = match purpose {
        AttemptPurpose::Rate => "unrated",
        AttemptPurpose::Sweep => "unswept",
    };
    let tasks = format!(
        "{left} task{} left {unfinished}",
        if left == 1 { "" } else { "s" }
    );
    RateReport {
        cancelled: matches!(stopped, Some(Stop::Cancelled)),
        over_budget: matches!(stopped, Some(Stop::Budget(_))),
        left,
        rated: progress.rated,
        failed: progress.failed,
        skipped: progress.skipped,
        cost_usd: progress.cost_usd,
        input_tokens: progress.input_tokens,
        output_tokens: progress.output_tokens,
        failures,
        abandoned,
        stopped: stopped.map(|stop| match stop {
            Stop::Cancelled => format!(
                "stopped: {tasks} (run again to go on; nothing paid for is asked again){}",
                match abandoned {
                    0 => String::new(),
                    1 => "; 1 request left in flight is counted with its spend estimated from its prompt".into(),
                    n => format!(
                        "; {n} requests left in flight are counted with their spend estimated from their prompts"
                    ),
                }
            ),
            Stop::Budget(why) => format!(
                "stopped by the budget: {why}; {tasks} (run again with a larger --budget-usd to go on; nothing paid for is asked again)"
            ),
        }),
    }
}
