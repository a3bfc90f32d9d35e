//! Determinacy-aware scores: systems' imported per-task outcomes, and their resolve rates over
//! every task beside the rates over the tasks the panel (or an imported verdict) calls
//! determinate, with Wilson intervals, ranks, Kendall's τ-b between the two orders, and every
//! pair of systems compared by McNemar's exact test and a bootstrap interval of the difference.
//!
//! Which tasks are determinate is the questionnaire's `[scores]` section's to say: the panel's
//! labels first (adjudications over the ensemble, under the questionnaire's filter), then
//! reference label sets, then the determinacy audit's verdicts. A task none of them labels is
//! counted as unlabelled, never guessed.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use ts_rs::TS;

use super::ensemble::build_ensemble;
use super::submitted::Panel;
use super::{Error, ErrorCode, Project, Result, stamp};
use crate::import::results::{ResultsFile, ResultsFormat, read_results};
use crate::questionnaire::{FilterCondition, ScoresSpec};
use crate::rates::{self, Discordance};
use crate::store::{Outcomes, SystemRow};

/// One file of results to import, and the system's name when not the file's.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ResultsSource {
    /// The file, or a folder of `report.json` files.
    #[ts(type = "string")]
    pub path: PathBuf,
    /// The system's name; by default the file's name up to its first dot (a folder's, or for a
    /// file named `results.json`, `report.json` or `eval_results.json`, its folder's).
    #[serde(default)]
    pub system: Option<String>,
}

/// What importing one system's results did.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ResultsImport {
    /// The system.
    pub system: String,
    /// The format the file was read as.
    pub format: String,
    /// The file or folder.
    pub origin: String,
    /// The project's tasks.
    pub tasks: usize,
    /// Tasks of the project the file mentions: the rest count as not resolved.
    pub submitted: usize,
    /// Of those, the ones resolved.
    pub resolved: usize,
    /// Ids in the file that the project does not hold, left out.
    pub unknown_ids: usize,
    /// True when it replaced results stored under the same name.
    pub replaced: bool,
    /// What the user should know (ids left out).
    pub warnings: Vec<String>,
}

/// A system's stored results.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct SystemResults {
    /// The system.
    pub system: String,
    /// The format its file was read as.
    pub format: String,
    /// The file or folder.
    pub origin: String,
    /// Tasks of the project the file mentions.
    pub submitted: usize,
    /// Of those, the ones resolved.
    pub resolved: usize,
    /// When imported.
    pub imported_at: String,
}

/// The default system name for a results file.
fn default_system(path: &Path) -> String {
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let file = name(path);
    let generic = ["results.json", "report.json", "eval_results.json"];
    let own = if generic.contains(&file.as_str()) {
        path.parent()
            .map(name)
            .filter(|n| !n.is_empty())
            .unwrap_or(file)
    } else {
        file
    };
    match own.split_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => own,
    }
}

/// Reads systems' results from files, in parallel, and stores them all in one transaction, or
/// none when any file is refused: a malformed file, a task named twice or both resolved and
/// not, a file matching no task of the project, or two files for one system. Ids the project
/// does not hold are left out, with a warning saying how many. A coordinator function.
pub fn import_results(
    project: &mut Project,
    sources: &[ResultsSource],
    now: OffsetDateTime,
) -> Result<Vec<ResultsImport>> {
    project.require_coordinator("imports systems' results")?;
    if sources.is_empty() {
        return Err(Error::refused(
            ErrorCode::Empty,
            "name a results file to import",
        ));
    }
    let names: Vec<String> = sources
        .iter()
        .map(|s| s.system.clone().unwrap_or_else(|| default_system(&s.path)))
        .collect();
    for (i, name) in names.iter().enumerate() {
        if name.trim().is_empty() {
            return Err(Error::refused(
                ErrorCode::Empty,
                format!(
                    "{}: the system needs a name (--system)",
                    sources[i].path.display()
                ),
            ));
        }
        if let Some(j) = names[..i].iter().position(|n| n == name) {
            return Err(Error::refused(
                ErrorCode::BadInput,
                format!(
                    "{} and {} would both be system {name:?}; name one with --system",
                    sources[j].path.display(),
                    sources[i].path.display()
                ),
            ));
        }
    }
    let ids: TaskIds = project
        .store
        .case_instance_ids()?
        .into_iter()
        .map(|(id, instance)| (instance, id))
        .collect();
    let files = read_all(sources, &ids)?;
    let tasks = ids.len();
    let at = stamp(now);
    let mut reports = Vec::with_capacity(files.len());
    let mut rows = Vec::with_capacity(files.len());
    for ((source, name), file) in sources.iter().zip(&names).zip(files) {
        let origin = source.path.display().to_string();
        let mentioned = file.outcomes.len() + file.unknown;
        if file.outcomes.is_empty() {
            return Err(Error::refused(
                ErrorCode::BadInput,
                format!(
                    "{origin}: none of its {mentioned} tasks is in the project; nothing was stored (import the tasks first)"
                ),
            ));
        }
        let resolved = file.outcomes.iter().filter(|(_, r)| *r).count();
        let mut warnings = Vec::new();
        if file.unknown > 0 {
            warnings.push(format!(
                "{origin}: {} of its {mentioned} task ids are not in the project and were left out",
                file.unknown
            ));
        }
        reports.push(ResultsImport {
            system: name.clone(),
            format: file.format.name().to_string(),
            origin: origin.clone(),
            tasks,
            submitted: file.outcomes.len(),
            resolved,
            unknown_ids: file.unknown,
            replaced: false,
            warnings,
        });
        rows.push((
            SystemRow {
                name: name.clone(),
                format: file.format.name().to_string(),
                origin,
                submitted: file.outcomes.len() as i64,
                resolved: resolved as i64,
                imported_at: at.clone(),
            },
            file.outcomes,
        ));
    }
    let replaced = project.store.put_system_results(&rows)?;
    for (report, replaced) in reports.iter_mut().zip(replaced) {
        report.replaced = replaced;
    }
    Ok(reports)
}

/// The project's task ids to case row ids, hashed with foldhash: looking up five million ids
/// with the standard library's SipHash took a tenth of an import of 100 files.
type TaskIds = HashMap<String, i64, foldhash::fast::FixedState>;

/// A results file matched to the project's cases.
struct MatchedFile {
    format: ResultsFormat,
    /// (case row id, resolved) for each of the project's tasks the file mentions.
    outcomes: Outcomes,
    /// Ids the project does not hold.
    unknown: usize,
}

/// Reads every file and matches its ids to the project's cases, on as many threads as the
/// machine has cores (at most one a file); each file's ids are let go once matched, so a
/// hundred files of 50,000 tasks never sit in memory as text together.
fn read_all(sources: &[ResultsSource], ids: &TaskIds) -> Result<Vec<MatchedFile>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(sources.len())
        .max(1);
    let chunk = sources.len().div_ceil(threads);
    let results: Vec<Result<Vec<MatchedFile>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = sources
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|s| {
                            let file = read_results(&s.path)?;
                            let (outcomes, unknown) = match_ids(ids, &file);
                            Ok(MatchedFile {
                                format: file.format,
                                outcomes,
                                unknown,
                            })
                        })
                        .collect::<Result<Vec<_>>>()
                })
            })
            .collect();
        handles.into_iter().map(joined).collect()
    });
    let mut files = Vec::with_capacity(sources.len());
    for part in results {
        files.extend(part?);
    }
    Ok(files)
}

/// A worker thread's result; a thread that panicked is an internal error, never a silent gap.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, Result<T>>) -> Result<T> {
    handle.join().unwrap_or_else(|_| {
        Err(Error::refused(
            ErrorCode::Internal,
            "a worker thread failed unexpectedly; nothing was stored",
        ))
    })
}

/// The file's outcomes on the project's cases, and how many of its ids the project lacks. A
/// SWE-bench Pro key is tried without its `instance_` prefix when the project has no task by
/// the whole key.
fn match_ids(ids: &TaskIds, file: &ResultsFile) -> (Outcomes, usize) {
    let mut outcomes = Vec::with_capacity(file.outcomes.len());
    let mut unknown = 0;
    for outcome in &file.outcomes {
        let id = &outcome.instance_id;
        let found = ids.get(id).or_else(|| {
            id.strip_prefix("instance_")
                .and_then(|short| ids.get(short))
        });
        match found {
            Some(case_id) => outcomes.push((*case_id, outcome.resolved)),
            None => unknown += 1,
        }
    }
    (outcomes, unknown)
}

/// Every system's stored results, by name. A coordinator function.
pub fn list_results(project: &Project) -> Result<Vec<SystemResults>> {
    project.require_coordinator("reads systems' results")?;
    Ok(project
        .store
        .system_rows()?
        .into_iter()
        .map(|r| SystemResults {
            system: r.name,
            format: r.format,
            origin: r.origin,
            submitted: r.submitted as usize,
            resolved: r.resolved as usize,
            imported_at: r.imported_at,
        })
        .collect())
}

/// Removes a system's results. A coordinator function.
pub fn remove_results(project: &mut Project, system: &str) -> Result<()> {
    project.require_coordinator("removes systems' results")?;
    if project.store.remove_system_results(system)? {
        Ok(())
    } else {
        Err(Error::NotFound(format!(
            "the project holds no results of system {system:?}"
        )))
    }
}

/// Whether a task counts in a determinate-only score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum Determinacy {
    /// Its material selects the graded behaviour: it counts.
    Determinate,
    /// Shown (by the panel's filter, or a proven tier of the audit) not to: left out.
    Underdetermined,
    /// A claim waits for raters (an audit hypothesis, the panel's `unknown`): left out, and
    /// reported apart from the underdetermined.
    Pending,
    /// Nothing labels it: left out, and reported.
    Unlabelled,
}

/// Who decided a task's determinacy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum LabelSource {
    /// An adjudicator's decision on a question the filter reads.
    Adjudication,
    /// The panel's ensemble of raters' answers.
    Ensemble,
    /// An imported reference label set.
    Reference,
    /// The determinacy audit's verdict, imported with its case folder.
    Audit,
}

/// One task's determinacy, who decided it, and why.
#[derive(Debug, Clone)]
struct TaskLabel {
    determinacy: Determinacy,
    source: Option<LabelSource>,
    why: String,
}

/// Every task's determinacy, by case row id, with the tasks' ids.
struct DeterminacyMap {
    /// (case row id, instance id), in instance-id order.
    tasks: Vec<(i64, String)>,
    labels: HashMap<i64, TaskLabel>,
}

/// The conditions among `conditions` that the values meet, in words; `None` when a value a
/// condition needs is missing and none is met.
fn conditions_met(
    conditions: &[FilterCondition],
    value_of: &dyn Fn(&str) -> Option<Value>,
) -> Option<Vec<String>> {
    let mut met = Vec::new();
    let mut unknown = false;
    for c in conditions {
        let Some(value) = value_of(&c.question) else {
            unknown = true;
            continue;
        };
        let at_least = c
            .at_least
            .is_some_and(|min| value.as_f64().is_some_and(|v| v >= min));
        let one_of = c.one_of.as_ref().is_some_and(|list| list.contains(&value));
        if at_least || one_of {
            met.push(format!(
                "{} = {}",
                c.question,
                super::submitted::value_text(&value)
            ));
        }
    }
    if met.is_empty() && unknown {
        None
    } else {
        Some(met)
    }
}

/// A task's determinacy from one source's values: pending when a `pending` condition holds,
/// underdetermined when the filter drops it, determinate when it keeps it; `None` when a label
/// the rule needs is missing.
fn judge(
    project: &Project,
    spec: Option<&ScoresSpec>,
    value_of: &dyn Fn(&str) -> Option<Value>,
) -> Option<(Determinacy, String)> {
    if let Some(spec) = spec
        && let Some(met) = conditions_met(&spec.pending, value_of)
        && !met.is_empty()
    {
        return Some((Determinacy::Pending, met.join(", ")));
    }
    let filter = project.questionnaire.filter.as_ref()?;
    let met = conditions_met(&filter.any, value_of)?;
    Some(if met.is_empty() {
        (Determinacy::Determinate, "the filter keeps it".into())
    } else {
        (Determinacy::Underdetermined, met.join(", "))
    })
}

fn determinacy_map(project: &Project) -> Result<DeterminacyMap> {
    let spec = project.questionnaire.scores.as_ref();
    let tasks = project.store.case_instance_ids()?;
    let by_instance: HashMap<&str, i64> = tasks
        .iter()
        .map(|(id, name)| (name.as_str(), *id))
        .collect();
    let mut labels: HashMap<i64, TaskLabel> = HashMap::new();
    let panel = Panel::load_rated(project)?;
    if !panel.latest.is_empty() || !panel.adjudications.is_empty() {
        let report = build_ensemble(project, &panel, None)?;
        for case in &report.cases {
            let Some(&case_id) = by_instance.get(case.instance_id.as_str()) else {
                continue;
            };
            let value_of = |q: &str| {
                case.labels
                    .iter()
                    .find(|l| l.question == q)
                    .and_then(|l| l.value.clone())
            };
            let Some((determinacy, why)) = judge(project, spec, &value_of) else {
                continue;
            };
            let adjudicated = case
                .labels
                .iter()
                .any(|l| l.procedure.as_deref() == Some("adjudicated"));
            labels.insert(
                case_id,
                TaskLabel {
                    determinacy,
                    source: Some(if adjudicated {
                        LabelSource::Adjudication
                    } else {
                        LabelSource::Ensemble
                    }),
                    why: format!("the panel: {why}"),
                },
            );
        }
    }
    if spec.is_some_and(|s| s.reference) {
        for (set, _) in project.store.reference_sets()? {
            for row in project.store.reference_labels(&set)? {
                if labels.contains_key(&row.case_id) {
                    continue;
                }
                let values = row.labels.get("values").cloned().unwrap_or(Value::Null);
                let value_of = |q: &str| values.get(q).cloned().filter(|v| !v.is_null());
                if let Some((determinacy, why)) = judge(project, spec, &value_of) {
                    labels.insert(
                        row.case_id,
                        TaskLabel {
                            determinacy,
                            source: Some(LabelSource::Reference),
                            why: format!("reference set {set}: {why}"),
                        },
                    );
                }
            }
        }
    }
    if let Some(tiers) = spec.and_then(|s| s.audit.as_ref()) {
        for verdict in project.store.audit_verdicts()? {
            if labels.contains_key(&verdict.case_id) {
                continue;
            }
            let Some(status) = verdict.status.as_deref() else {
                continue;
            };
            let has = |list: &[String]| list.iter().any(|s| s == status);
            let determinacy = if has(&tiers.determinate) {
                Determinacy::Determinate
            } else if has(&tiers.underdetermined) {
                Determinacy::Underdetermined
            } else if has(&tiers.pending) {
                Determinacy::Pending
            } else {
                continue;
            };
            labels.insert(
                verdict.case_id,
                TaskLabel {
                    determinacy,
                    source: Some(LabelSource::Audit),
                    why: format!(
                        "the audit: {status}{}",
                        verdict
                            .witness_class
                            .map(|c| format!(" ({c})"))
                            .unwrap_or_default()
                    ),
                },
            );
        }
    }
    Ok(DeterminacyMap { tasks, labels })
}

impl Determinacy {
    /// The name used in files and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Determinacy::Determinate => "determinate",
            Determinacy::Underdetermined => "underdetermined",
            Determinacy::Pending => "pending",
            Determinacy::Unlabelled => "unlabelled",
        }
    }
}

impl LabelSource {
    /// The name used in files and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            LabelSource::Adjudication => "adjudication",
            LabelSource::Ensemble => "ensemble",
            LabelSource::Reference => "reference",
            LabelSource::Audit => "audit",
        }
    }
}

impl DeterminacyMap {
    fn of(&self, case_id: i64) -> Determinacy {
        self.labels
            .get(&case_id)
            .map_or(Determinacy::Unlabelled, |l| l.determinacy)
    }
}

/// Options of [`scores`].
#[derive(Debug, Clone, Copy, Serialize, Deserialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct ScoresOptions {
    /// Bootstrap resamples for the intervals of the differences (0: none).
    pub bootstrap: u32,
    /// The bootstrap's seed.
    #[ts(type = "number")]
    pub seed: u64,
}

impl Default for ScoresOptions {
    fn default() -> Self {
        ScoresOptions {
            bootstrap: 1000,
            seed: 0,
        }
    }
}

/// How many tasks one source decided, by tier.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
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
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
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
}

/// One system's rates.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
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
}

/// Two systems compared on one denominator.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
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
}

/// The scores of every system.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
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
}

/// A set of task positions as bits.
#[derive(Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    fn count_and(&self, other: &Bits) -> usize {
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
    let pairs = compare_pairs(&names, &resolved_bits, n, &determinate, options)?;
    Ok(ScoresReport {
        coverage,
        systems,
        kendall_tau,
        pairs,
        bootstrap: options.bootstrap,
        seed: options.seed,
    })
}

/// Every pair on both denominators, the bootstraps spread over the machine's cores; each
/// comparison draws from its own stream of the seed, so the result does not depend on them.
fn compare_pairs(
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

/// A task a determinate-only score leaves out, and why.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct LeftOutTask {
    /// The task.
    pub instance_id: String,
    /// `underdetermined`, `pending` or `unlabelled`.
    pub determinacy: Determinacy,
    /// Who decided; `null` for an unlabelled task.
    pub source: Option<LabelSource>,
    /// Why, in words.
    pub why: String,
}

/// Every task a determinate-only score leaves out, in id order. A coordinator function.
pub fn left_out_tasks(project: &Project) -> Result<Vec<LeftOutTask>> {
    project.require_coordinator("reads the panel's labels")?;
    let map = determinacy_map(project)?;
    let mut out: Vec<LeftOutTask> = map
        .tasks
        .iter()
        .filter_map(|(id, instance_id)| {
            let (determinacy, source, why) = match map.labels.get(id) {
                Some(l) if l.determinacy == Determinacy::Determinate => return None,
                Some(l) => (l.determinacy, l.source, l.why.clone()),
                None => (
                    Determinacy::Unlabelled,
                    None,
                    "no panel label and no imported verdict".to_string(),
                ),
            };
            Some(LeftOutTask {
                instance_id: instance_id.clone(),
                determinacy,
                source,
                why,
            })
        })
        .collect();
    out.sort_by(|a, b| super::natural_cmp(&a.instance_id, &b.instance_id));
    Ok(out)
}

/// Writes [`left_out_tasks`] as CSV (`instance_id,determinacy,source,why`); returns the rows.
pub(super) fn write_left_out(
    project: &Project,
    out: &mut dyn std::io::Write,
    out_path: &Path,
) -> Result<usize> {
    let tasks = left_out_tasks(project)?;
    let failed = |e: csv::Error| Error::Write {
        path: out_path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let mut writer = csv::Writer::from_writer(out);
    writer
        .write_record(["instance_id", "determinacy", "source", "why"])
        .map_err(failed)?;
    for t in &tasks {
        writer
            .write_record([
                t.instance_id.as_str(),
                t.determinacy.name(),
                t.source.map_or("", LabelSource::name),
                t.why.as_str(),
            ])
            .map_err(failed)?;
    }
    writer.flush().map_err(|source| Error::Write {
        path: out_path.to_path_buf(),
        source,
    })?;
    Ok(tasks.len())
}
