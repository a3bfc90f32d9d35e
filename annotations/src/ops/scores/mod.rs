//! Determinacy-aware scores: systems' imported per-task outcomes, and their resolve rates over
//! every task beside the rates over the tasks the panel (or an imported verdict) calls
//! determinate, with Wilson intervals, ranks, Kendall's τ-b between the two orders, and every
//! pair of systems compared by McNemar's exact test and a bootstrap interval of the difference.
//!
//! Which tasks are determinate is the questionnaire's `[scores]` section's to say: the panel's
//! labels first (adjudications over the ensemble, under the questionnaire's filter), then
//! reference label sets, then the determinacy audit's verdicts. A task none of them labels is
//! counted as unlabelled, never guessed.

mod determinacy;
mod pairs;
mod ppi;
mod report;
mod results;
mod section;

pub(in crate::ops) use determinacy::write_left_out;
pub use determinacy::{Determinacy, LabelSource, LeftOutTask, UnreadLabels, left_out_tasks};
pub use pairs::PairComparison;
pub use ppi::ScoresPpi;
pub use report::{Coverage, ScoresReport, SourceCount, SystemScore, scores};
pub use results::{
    ResultsImport, ResultsSource, SystemResults, import_results, list_results, remove_results,
};
pub(in crate::ops) use section::{ReportScores, render_section, report_scores};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Error, ErrorCode, Result};

/// A worker thread's result; a thread that panicked is an internal error, never a silent gap.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, Result<T>>) -> Result<T> {
    handle.join().unwrap_or_else(|_| {
        Err(Error::refused(
            ErrorCode::Internal,
            "a worker thread failed unexpectedly; nothing was stored",
        ))
    })
}

/// Options of [`scores`].
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ScoresOptions {
    /// Bootstrap resamples for the intervals of the differences (0: none).
    pub bootstrap: u32,
    /// The bootstrap's seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// A predictor on every task (`model:NAME`, `models`, `risk`): the determinate-only rates
    /// and differences are also estimated from the panel's labels on the recorded random
    /// sample and the predictor, beside the labelled tasks alone.
    #[serde(default)]
    pub predictor: Option<String>,
}

impl Default for ScoresOptions {
    fn default() -> Self {
        ScoresOptions {
            bootstrap: 1000,
            seed: 0,
            predictor: None,
        }
    }
}
