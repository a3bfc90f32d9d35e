//! Every pair of systems compared on both denominators: McNemar's exact test and a bootstrap
//! interval of the difference in rates, from bit sets of the tasks each resolved.

use super::ScoresOptions;
use serde::Serialize;
use ts_rs::TS;

use super::joined;
use crate::ops::Result;
use verity_stats::rates::{self, Discordance};

/// A set of task positions as bits.
#[derive(Clone)]
pub(super) struct Bits(Vec<u64>);

impl Bits {
    pub(super) fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }
    pub(super) fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub(super) fn get(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    /// Calls `each` with every position in both `self` and `other`.
    pub(super) fn each_common(&self, other: &Bits, each: &mut dyn FnMut(usize)) {
        for (k, (a, b)) in self.0.iter().zip(&other.0).enumerate() {
            let mut both = a & b;
            while both != 0 {
                each(k * 64 + both.trailing_zeros() as usize);
                both &= both - 1;
            }
        }
    }
    pub(super) fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    pub(super) fn count_and(&self, other: &Bits) -> usize {
        self.0
            .iter()
            .zip(&other.0)
            .map(|(a, b)| (a & b).count_ones() as usize)
            .sum()
    }
    /// Positions in `self`, not in `other`, and in `within`.
    fn count_only(&self, other: &Bits, within: Option<&Bits>) -> usize {
        match within {
            None => self
                .0
                .iter()
                .zip(&other.0)
                .map(|(a, b)| (a & !b).count_ones() as usize)
                .sum(),
            Some(w) => self
                .0
                .iter()
                .zip(&other.0)
                .zip(&w.0)
                .map(|((a, b), w)| (a & !b & w).count_ones() as usize)
                .sum(),
        }
    }
}

/// Every pair on both denominators, the bootstraps spread over the machine's cores; each
/// comparison draws from its own stream of the seed, so the result does not depend on them.
pub(super) fn compare_pairs(
    names: &[String],
    bits: &[Bits],
    n: usize,
    determinate: &Bits,
    options: &ScoresOptions,
) -> Result<Vec<PairComparison>> {
    let dn = determinate.count();
    let mut jobs = Vec::new();
    for a in 0..names.len() {
        for b in a + 1..names.len() {
            jobs.push((a, b, false));
            jobs.push((a, b, true));
        }
    }
    let compare = |stream: usize, &(a, b, on_determinate): &(usize, usize, bool)| {
        let within = on_determinate.then_some(determinate);
        let d = Discordance {
            tasks: if on_determinate { dn } else { n } as u64,
            first_only: bits[a].count_only(&bits[b], within) as u64,
            second_only: bits[b].count_only(&bits[a], within) as u64,
        };
        let defined = d.tasks > 0;
        PairComparison {
            a: names[a].clone(),
            b: names[b].clone(),
            denominator: if on_determinate { "determinate" } else { "all" }.into(),
            n: d.tasks as usize,
            a_only: d.first_only as usize,
            b_only: d.second_only as usize,
            p_value: defined.then(|| rates::mcnemar_exact(d.first_only, d.second_only)),
            difference: d.difference(),
            difference_ci: rates::bootstrap_difference(
                d,
                options.bootstrap as usize,
                options.seed,
                stream as u64,
            )
            .map(|(lo, hi)| [lo, hi]),
            difference_ppi: None,
            difference_ppi_ci: None,
            difference_labeled: None,
            difference_labeled_ci: None,
        }
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, jobs.len().max(1));
    let chunk = jobs.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                let compare = &compare;
                scope.spawn(move || {
                    Ok(part
                        .iter()
                        .enumerate()
                        .map(|(i, job)| compare(c * chunk + i, job))
                        .collect::<Vec<_>>())
                })
            })
            .collect();
        let mut pairs = Vec::with_capacity(jobs.len());
        for handle in handles {
            pairs.extend(joined(handle)?);
        }
        Ok(pairs)
    })
}

/// Two systems compared on one denominator.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PairComparison {
    /// The first system.
    pub a: String,
    /// The second system.
    pub b: String,
    /// `all` or `determinate`.
    pub denominator: String,
    /// Tasks compared.
    pub n: usize,
    /// Tasks only `a` resolved.
    pub a_only: usize,
    /// Tasks only `b` resolved.
    pub b_only: usize,
    /// McNemar's exact two-sided p-value; `null` without tasks.
    pub p_value: Option<f64>,
    /// `a`'s rate minus `b`'s.
    pub difference: Option<f64>,
    /// The difference's 95% percentile bootstrap interval, tasks resampled in pairs.
    pub difference_ci: Option<[f64; 2]>,
    /// With `--predictor`, on the determinate denominator: the difference in prediction-powered
    /// determinate-only rates.
    pub difference_ppi: Option<f64>,
    /// Its 95% interval (delta method).
    pub difference_ppi_ci: Option<[f64; 2]>,
    /// The difference over the labelled tasks alone.
    pub difference_labeled: Option<f64>,
    /// Its 95% interval (delta method).
    pub difference_labeled_ci: Option<[f64; 2]>,
}
