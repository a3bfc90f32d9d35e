//! What the dataset card says of the project: where the tasks came from, how they were
//! assigned, the agreement with its intervals, and the scores when the project holds results.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::export::card::{CardAgreement, CardScore};
use crate::ops::submitted::{TableBuilder, level_of};
use crate::ops::{Project, Result, ScoresOptions};
use verity_stats::agreement::{
    BootstrapOptions, Method, RatingTable, bootstrap_ci, krippendorff_alpha, percent_agreement,
};
use verity_task::questionnaire::Question;

/// Resamples and seed of the card's agreement intervals.
pub(super) const BOOTSTRAP: (usize, u64) = (1000, 0);

/// The datasets and files the tasks came from, each once: `OWNER/NAME` for a fetch from the
/// Hub, the file's name otherwise.
pub(super) fn sources(project: &Project) -> Result<Vec<String>> {
    let mut sources = BTreeSet::new();
    for (_, origin) in project.store.case_origins()? {
        let source = match origin.strip_prefix("hf://datasets/") {
            Some(rest) => rest.split('@').next().unwrap_or(rest).to_string(),
            None => {
                let file = origin.rsplit_once(':').map_or(origin.as_str(), |(f, _)| f);
                std::path::Path::new(file)
                    .file_name()
                    .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned())
            }
        };
        sources.insert(source);
    }
    Ok(sources.into_iter().collect())
}

/// The name a person reads: the one Hub dataset the tasks came from, else the project's file.
pub(super) fn pretty_name(project: &Project, sources: &[String]) -> String {
    let name = match sources {
        [only] if only.contains('/') => only.rsplit('/').next().unwrap_or(only).to_string(),
        _ => project
            .path()
            .file_stem()
            .map_or_else(|| "tasks".into(), |s| s.to_string_lossy().into_owned()),
    };
    format!("{name}, as rated by a panel")
}

/// Tasks by the number of raters assigned to each, fewest raters first.
pub(super) fn assigned(project: &Project) -> Result<Vec<(usize, usize)>> {
    let mut per_case: HashMap<i64, usize> = HashMap::new();
    for a in project.store.list_assignments()? {
        *per_case.entry(a.case_id).or_default() += 1;
    }
    let mut by_count: BTreeMap<usize, usize> = BTreeMap::new();
    for raters in per_case.into_values() {
        *by_count.entry(raters).or_default() += 1;
    }
    Ok(by_count.into_iter().collect())
}

/// Agreement per rated question on each rater's first submission (`tables`, one per rated
/// question, built from every case's first submissions): percent agreement and
/// Krippendorff's alpha at the question's level, with a percentile bootstrap interval.
pub(super) fn agreement(tables: Vec<TableBuilder<'_>>) -> Result<Vec<CardAgreement>> {
    let tables = tables
        .into_iter()
        .map(|table| Ok((table.question(), table.finish()?)))
        .collect::<Result<Vec<_>>>()?;
    // A question a thread: the bootstraps are independent, and one after another they took
    // about a second of a 50,000-task export.
    std::thread::scope(|scope| {
        let rows: Vec<_> = tables
            .iter()
            .map(|(question, table)| scope.spawn(move || question_agreement(question, table)))
            .collect();
        rows.into_iter()
            .map(|row| {
                row.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// The card's agreement on one question.
fn question_agreement(question: &Question, table: &RatingTable) -> Result<CardAgreement> {
    let (resamples, seed) = BOOTSTRAP;
    let options = BootstrapOptions {
        resamples,
        seed,
        confidence: 0.95,
    };
    let level = level_of(question.level);
    let alpha = krippendorff_alpha(table, level);
    let interval = bootstrap_ci(table, Method::KrippendorffAlpha(level), None, &options)?;
    let note = alpha.reason().map(str::to_owned).or_else(|| {
        interval
            .as_ref()
            .err()
            .filter(|_| alpha.value().is_some())
            .map(|why| format!("no interval: {}", why.reason))
    });
    Ok(CardAgreement {
        question: format!("{} `{}`", question.number, question.id),
        level: format!("{:?}", question.level).to_lowercase(),
        units: table.units().len(),
        percent: percent_agreement(table).value(),
        alpha: alpha.value(),
        interval: interval.ok().map(|ci| [ci.low, ci.high]),
        note,
    })
}

/// The systems' scores when the project holds results: the project's tasks, the determinate
/// ones, and each system's two rates.
pub(super) fn scores(project: &Project) -> Result<Option<(usize, usize, Vec<CardScore>)>> {
    if crate::ops::list_results(project)?.is_empty() {
        return Ok(None);
    }
    let report = crate::ops::scores(
        project,
        &ScoresOptions {
            bootstrap: 0,
            seed: BOOTSTRAP.1,
            predictor: None,
        },
    )?;
    let mut systems: Vec<CardScore> = report
        .systems
        .iter()
        .map(|s| CardScore {
            system: s.system.clone(),
            raw: (s.rate, s.rate_ci),
            determinate: (s.determinate_rate, s.determinate_rate_ci),
        })
        .collect();
    systems.sort_by(|a, b| {
        b.raw
            .0
            .unwrap_or(f64::NEG_INFINITY)
            .total_cmp(&a.raw.0.unwrap_or(f64::NEG_INFINITY))
            .then_with(|| a.system.cmp(&b.system))
    });
    Ok(Some((
        report.coverage.tasks,
        report.coverage.determinate,
        systems,
    )))
}
