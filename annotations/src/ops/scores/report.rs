//! Every system's rates over all tasks and over the determinate ones, with intervals, ranks
//! and Kendall's τ-b, gathered with the pairwise comparisons into one report.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use ts_rs::TS;

use super::ScoresOptions;
use super::determinacy::{Determinacy, LabelSource, UnreadLabels, determinacy_map};
use super::pairs::{Bits, PairComparison, compare_pairs};
use super::ppi::ppi_scores;
use crate::ops::{Project, Result};
use verity_stats::rates;

/// How many tasks one source decided, by tier.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct SourceCount {
    /// The source.
    pub source: LabelSource,
    /// Tasks it decided.
    pub tasks: usize,
    /// Of those, determinate.
    pub determinate: usize,
    /// Underdetermined.
    pub underdetermined: usize,
    /// Pending.
    pub pending: usize,
}

/// How the project's tasks divide.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Coverage {
    /// The project's tasks.
    pub tasks: usize,
    /// Determinate tasks: the determinate-only denominator.
    pub determinate: usize,
    /// Underdetermined tasks (the panel's filter, the audit's proven tiers).
    pub underdetermined: usize,
    /// Tasks waiting for raters (the audit's hypotheses, the panel's `unknown`).
    pub pending: usize,
    /// Tasks nothing labels.
    pub unlabelled: usize,
    /// Which source decided how many, panel first.
    pub sources: Vec<SourceCount>,
    /// The questionnaire's rule in words, when it has a `[scores]` section.
    pub rule: Option<String>,
    /// Imported labels the questionnaire does not read, each with why and what to run.
    pub unread: Vec<UnreadLabels>,
}

/// One system's rates.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct SystemScore {
    /// The system.
    pub system: String,
    /// The denominator: every task of the project.
    pub n: usize,
    /// Tasks its file mentions; the rest count as not resolved.
    pub submitted: usize,
    /// Tasks resolved.
    pub resolved: usize,
    /// `resolved / n`; `null` without tasks.
    pub rate: Option<f64>,
    /// Its 95% Wilson interval.
    pub rate_ci: Option<[f64; 2]>,
    /// Determinate tasks.
    pub determinate_n: usize,
    /// Determinate tasks resolved.
    pub determinate_resolved: usize,
    /// The determinate-only rate.
    pub determinate_rate: Option<f64>,
    /// Its 95% Wilson interval.
    pub determinate_rate_ci: Option<[f64; 2]>,
    /// The rate on the underdetermined tasks.
    pub underdetermined_rate: Option<f64>,
    /// Underdetermined tasks.
    pub underdetermined_n: usize,
    /// Underdetermined tasks resolved.
    pub underdetermined_resolved: usize,
    /// The underdetermined rate's 95% Wilson interval.
    pub underdetermined_rate_ci: Option<[f64; 2]>,
    /// Pending tasks.
    pub pending_n: usize,
    /// Pending tasks resolved.
    pub pending_resolved: usize,
    /// The rate on the pending tasks.
    pub pending_rate: Option<f64>,
    /// Rank by `rate`, 1 the highest, ties sharing their mean rank.
    pub rank_raw: Option<f64>,
    /// Rank by `determinate_rate`.
    pub rank_determinate: Option<f64>,
    /// With `--predictor`: the determinate-only rate over the sampled population, from the
    /// panel's labels on the random sample and the predictor on every task (PPI++).
    pub determinate_rate_ppi: Option<f64>,
    /// Its 95% interval (delta method).
    pub determinate_rate_ppi_ci: Option<[f64; 2]>,
    /// The determinate-only rate over the labelled tasks alone, weighted as sampled.
    pub determinate_rate_labeled: Option<f64>,
    /// Its 95% interval (delta method).
    pub determinate_rate_labeled_ci: Option<[f64; 2]>,
}

/// The scores of every system.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ScoresReport {
    /// How the tasks divide, and who decided.
    pub coverage: Coverage,
    /// Each system, by name.
    pub systems: Vec<SystemScore>,
    /// Kendall's τ-b between the raw and the determinate-only rates; `null` with fewer than two
    /// systems or no order in either.
    pub kendall_tau: Option<f64>,
    /// Every pair of systems, on both denominators.
    pub pairs: Vec<PairComparison>,
    /// Bootstrap resamples.
    pub bootstrap: u32,
    /// The bootstrap's seed.
    #[ts(type = "number")]
    pub seed: u64,
    /// With `--predictor`: what the prediction-powered rates stand on.
    pub ppi: Option<super::ppi::ScoresPpi>,
}

fn interval(successes: usize, n: usize) -> Option<[f64; 2]> {
    rates::wilson_interval(successes as u64, n as u64).map(|(lo, hi)| [lo, hi])
}

fn rate(successes: usize, n: usize) -> Option<f64> {
    (n > 0).then(|| successes as f64 / n as f64)
}

/// Every system's raw and determinate-only rates, ranks, τ-b, and pairwise comparisons. A
/// coordinator function.
pub fn scores(project: &Project, options: &ScoresOptions) -> Result<ScoresReport> {
    project.require_coordinator("reads systems' results")?;
    let map = determinacy_map(project)?;
    let position: HashMap<i64, usize> = map
        .tasks
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (*id, i))
        .collect();
    let n = map.tasks.len();
    let mut tiers: BTreeMap<Determinacy, Bits> = BTreeMap::new();
    for (i, (id, _)) in map.tasks.iter().enumerate() {
        tiers
            .entry(map.of(*id))
            .or_insert_with(|| Bits::new(n))
            .set(i);
    }
    let tier = |d: Determinacy| tiers.get(&d).cloned().unwrap_or_else(|| Bits::new(n));
    let (determinate, underdetermined, pending) = (
        tier(Determinacy::Determinate),
        tier(Determinacy::Underdetermined),
        tier(Determinacy::Pending),
    );
    let mut sources: BTreeMap<LabelSource, SourceCount> = BTreeMap::new();
    for label in map.labels.values() {
        let Some(source) = label.source else { continue };
        let count = sources.entry(source).or_insert(SourceCount {
            source,
            tasks: 0,
            determinate: 0,
            underdetermined: 0,
            pending: 0,
        });
        count.tasks += 1;
        match label.determinacy {
            Determinacy::Determinate => count.determinate += 1,
            Determinacy::Underdetermined => count.underdetermined += 1,
            Determinacy::Pending => count.pending += 1,
            Determinacy::Unlabelled => {}
        }
    }
    let coverage = Coverage {
        tasks: n,
        determinate: determinate.count(),
        underdetermined: underdetermined.count(),
        pending: pending.count(),
        unlabelled: tier(Determinacy::Unlabelled).count(),
        sources: sources.into_values().collect(),
        rule: project
            .questionnaire
            .scores
            .as_ref()
            .map(|s| s.description.clone()),
        unread: map.unread.clone(),
    };
    let mut names = Vec::new();
    let mut resolved_bits = Vec::new();
    let mut submitted = Vec::new();
    project.store.system_outcomes(&mut |name, outcomes| {
        let mut bits = Bits::new(n);
        let mut mentioned = 0;
        for (case_id, resolved) in outcomes {
            let Some(&i) = position.get(&case_id) else {
                continue;
            };
            mentioned += 1;
            if resolved {
                bits.set(i);
            }
        }
        names.push(name);
        resolved_bits.push(bits);
        submitted.push(mentioned);
    })?;
    let dn = coverage.determinate;
    let (un, pn) = (coverage.underdetermined, coverage.pending);
    let mut systems: Vec<SystemScore> = names
        .iter()
        .zip(&resolved_bits)
        .zip(&submitted)
        .map(|((name, bits), &submitted)| {
            let resolved = bits.count();
            let d = bits.count_and(&determinate);
            let u = bits.count_and(&underdetermined);
            let p = bits.count_and(&pending);
            SystemScore {
                system: name.clone(),
                n,
                submitted,
                resolved,
                rate: rate(resolved, n),
                rate_ci: interval(resolved, n),
                determinate_n: dn,
                determinate_resolved: d,
                determinate_rate: rate(d, dn),
                determinate_rate_ci: interval(d, dn),
                underdetermined_rate: rate(u, un),
                underdetermined_n: un,
                underdetermined_resolved: u,
                underdetermined_rate_ci: interval(u, un),
                pending_n: pn,
                pending_resolved: p,
                pending_rate: rate(p, pn),
                rank_raw: None,
                rank_determinate: None,
                determinate_rate_ppi: None,
                determinate_rate_ppi_ci: None,
                determinate_rate_labeled: None,
                determinate_rate_labeled_ci: None,
            }
        })
        .collect();
    let raw: Vec<f64> = systems.iter().filter_map(|s| s.rate).collect();
    let det: Vec<f64> = systems.iter().filter_map(|s| s.determinate_rate).collect();
    let mut kendall_tau = None;
    if raw.len() == systems.len() {
        for (s, r) in systems.iter_mut().zip(rates::ranks_descending(&raw)) {
            s.rank_raw = Some(r);
        }
    }
    if det.len() == systems.len() {
        for (s, r) in systems.iter_mut().zip(rates::ranks_descending(&det)) {
            s.rank_determinate = Some(r);
        }
        if raw.len() == det.len() {
            kendall_tau = rates::kendall_tau_b(&raw, &det);
        }
    }
    let mut pairs = compare_pairs(&names, &resolved_bits, n, &determinate, options)?;
    let ppi = match &options.predictor {
        None => None,
        Some(predictor) => {
            let found = ppi_scores(project, predictor, &names, &resolved_bits, &position)?;
            let interval =
                |e: &Option<verity_stats::ppi::RatioEstimate>| e.map(|e| [e.ci.0, e.ci.1]);
            for (s, p) in systems.iter_mut().zip(&found.systems) {
                s.determinate_rate_ppi = p.rate.map(|e| e.estimate);
                s.determinate_rate_ppi_ci = interval(&p.rate);
                s.determinate_rate_labeled = p.labeled.map(|e| e.estimate);
                s.determinate_rate_labeled_ci = interval(&p.labeled);
            }
            let index: HashMap<&str, usize> = names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), i))
                .collect();
            for pair in pairs.iter_mut().filter(|p| p.denominator == "determinate") {
                let (Some(&a), Some(&b)) = (index.get(pair.a.as_str()), index.get(pair.b.as_str()))
                else {
                    continue;
                };
                if let Some(p) = found.pairs.get(&(a, b)) {
                    pair.difference_ppi = p.rate.map(|e| e.estimate);
                    pair.difference_ppi_ci = interval(&p.rate);
                    pair.difference_labeled = p.labeled.map(|e| e.estimate);
                    pair.difference_labeled_ci = interval(&p.labeled);
                }
            }
            Some(found.summary)
        }
    };
    Ok(ScoresReport {
        coverage,
        systems,
        kendall_tau,
        pairs,
        bootstrap: options.bootstrap,
        seed: options.seed,
        ppi,
    })
}
