//! What a prediction-powered estimate stands on: the recorded random sample (its population,
//! each task's inclusion probability), the gold labels of the sampled tasks whose panel is
//! complete, and the refusals when the humans' tasks are not that sample.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::label::LabelRule;
use crate::ops::ensemble::build_ensemble;
use crate::ops::submitted::Panel;
use crate::ops::{Error, ErrorCode, Project, Result};
use verity_stats::natural::thousands;
use verity_stats::ppi::design::combined_probability;
use verity_store::SampleDraw;

/// The fewest complete sampled tasks an estimate is made from.
pub(crate) const MIN_LABELLED: usize = 10;

/// The sample and its labels.
pub(crate) struct Grounds {
    /// The draws, oldest first.
    pub(crate) draws: Vec<SampleDraw>,
    /// Every task some draw offered (the population the estimate is of), by case row id in
    /// increasing order, with its probability of being drawn by one of the draws.
    pub(crate) population: Vec<(i64, f64)>,
    /// The gold label of each complete sampled task, by case row id.
    pub(crate) labels: BTreeMap<i64, f64>,
    /// Tasks drawn.
    pub(crate) sampled: usize,
    /// Drawn tasks whose panel is not complete yet.
    pub(crate) incomplete: usize,
    /// Drawn tasks whose panel is complete but whose answers the rule gives no label (a tie
    /// without a majority): adjudication decides them.
    pub(crate) undecided: usize,
    /// Tasks of the project no draw offered (imported after the draws).
    pub(crate) outside: usize,
    /// Whether every task of the population had the same probability.
    pub(crate) uniform: bool,
    /// The panel with model raters' answers, for the predictor.
    pub(crate) panel: Panel,
    /// The model raters' names.
    pub(crate) models: HashSet<String>,
}

fn refuse(message: String) -> Error {
    Error::refused(ErrorCode::NotRandomSample, message)
}

/// Up to three task ids of `cases`, for a sentence.
fn some_ids(project: &Project, cases: &BTreeMap<i64, ()>) -> Result<String> {
    let ids: HashMap<i64, String> = project.store.case_instance_ids()?.into_iter().collect();
    let mut names: Vec<&str> = cases
        .keys()
        .filter_map(|c| ids.get(c).map(String::as_str))
        .collect();
    names.sort_by(|a, b| crate::ops::natural_cmp(a, b));
    let shown: Vec<&str> = names.iter().take(3).copied().collect();
    Ok(format!(
        "{}{}",
        shown.join(", "),
        if names.len() > 3 { ", …" } else { "" }
    ))
}

/// The recorded sample and the gold labels `rule` gives its complete tasks. Refused, with the
/// reason, when no sample was drawn, when humans rate or adjudicate tasks outside it, or when
/// fewer than [`MIN_LABELLED`] drawn tasks are complete.
pub(crate) fn grounds(project: &Project, rule: &LabelRule) -> Result<Grounds> {
    let draws = project.store.sample_draws()?;
    if draws.is_empty() {
        return Err(refuse(
            "the humans' tasks are not a recorded random sample: draw one with `verity assign --sample N` (a prediction-powered interval from tasks picked another way would be biased, so none is given)".into(),
        ));
    }
    let mut offered: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    let mut drawn: HashSet<i64> = HashSet::new();
    for row in project.store.sample_frame()? {
        offered
            .entry(row.case_id)
            .or_default()
            .push(row.probability);
        if row.drawn {
            drawn.insert(row.case_id);
        }
    }
    let population: Vec<(i64, f64)> = offered
        .into_iter()
        .map(|(case, steps)| (case, combined_probability(steps)))
        .collect();
    let model_raters = project.store.model_raters()?;
    let model_ids: HashSet<i64> = model_raters.iter().map(|m| m.rater.id).collect();
    let models: HashSet<String> = model_raters.into_iter().map(|m| m.rater.name).collect();
    let read = rule.questions(project);
    let questions: Vec<&str> = read.iter().map(String::as_str).collect();
    let panel = Panel::load_questions(project, true, &questions)?;
    let humans = panel.without(&|rater| models.contains(rater));

    // Humans' work outside the sample: assignments, answers, adjudications.
    let mut assigned: HashMap<i64, HashSet<i64>> = HashMap::new();
    let mut outside: BTreeMap<i64, ()> = BTreeMap::new();
    for a in project.store.list_assignments()? {
        if model_ids.contains(&a.rater_id) {
            continue;
        }
        if !drawn.contains(&a.case_id) {
            outside.insert(a.case_id, ());
        }
        assigned.entry(a.case_id).or_default().insert(a.rater_id);
    }
    for case in &humans.latest {
        if !drawn.contains(&case.case_id) {
            outside.insert(case.case_id, ());
        }
    }
    for case_id in humans.adjudications.keys() {
        if !drawn.contains(case_id) {
            outside.insert(*case_id, ());
        }
    }
    if !outside.is_empty() {
        return Err(refuse(format!(
            "humans rate or adjudicate {} task{} outside the recorded random sample ({}): assigned by hand, by `assign --per-case`, as calibration tasks or adjudicated, they would make the labelled tasks a sample that was not drawn at random, so no prediction-powered interval is given",
            thousands(outside.len()),
            if outside.len() == 1 { "" } else { "s" },
            some_ids(project, &outside)?
        )));
    }

    // The gold label of each drawn task whose panel is complete.
    let report = build_ensemble(project, &humans, None)?;
    let case_of: HashMap<&str, i64> = humans
        .instance_ids
        .iter()
        .map(|(id, name)| (name.as_str(), *id))
        .collect();
    let ensembled: HashMap<i64, &crate::ops::ensemble::CaseLabels> = report
        .cases
        .iter()
        .filter_map(|c| case_of.get(c.instance_id.as_str()).map(|id| (*id, c)))
        .collect();
    let submitted: HashMap<i64, HashSet<&str>> = humans
        .latest
        .iter()
        .map(|c| (c.case_id, c.answers.iter().map(|(r, _)| &**r).collect()))
        .collect();
    let names: HashMap<i64, String> = project
        .store
        .list_raters()?
        .into_iter()
        .map(|r| (r.id, r.name))
        .collect();
    let mut labels = BTreeMap::new();
    let (mut incomplete, mut undecided) = (0, 0);
    for &(case_id, _) in &population {
        if !drawn.contains(&case_id) {
            continue;
        }
        let raters = assigned.get(&case_id);
        let done = submitted.get(&case_id);
        let all_submitted = raters.is_some_and(|raters| {
            !raters.is_empty()
                && raters.iter().all(|r| {
                    names
                        .get(r)
                        .is_some_and(|name| done.is_some_and(|d| d.contains(name.as_str())))
                })
        });
        let adjudicated = !read.is_empty()
            && read
                .iter()
                .all(|q| humans.adjudication(case_id, q).is_some());
        if !(all_submitted || adjudicated) {
            incomplete += 1;
            continue;
        }
        let label = ensembled.get(&case_id).and_then(|case| {
            let value_of = |q: &str| {
                case.labels
                    .iter()
                    .find(|l| l.question == q)
                    .and_then(|l| l.value.clone())
            };
            rule.value(project, &value_of)
        });
        match label {
            Some(y) => {
                labels.insert(case_id, y);
            }
            None => undecided += 1,
        }
    }
    let sampled = drawn.len();
    if labels.len() < MIN_LABELLED {
        return Err(refuse(format!(
            "{} of the {} sampled tasks {} complete{}; an estimate needs at least {MIN_LABELLED}",
            labels.len(),
            thousands(sampled),
            if labels.len() == 1 { "is" } else { "are" },
            if undecided > 0 {
                format!(" ({undecided} more complete without a label by the rule: adjudicate them)")
            } else {
                String::new()
            }
        )));
    }
    let first = population.first().map_or(0.0, |p| p.1);
    let uniform = population
        .iter()
        .all(|(_, p)| (p - first).abs() <= 1e-9 * first.max(1e-300));
    let in_population: HashSet<i64> = population.iter().map(|(c, _)| *c).collect();
    let outside = project
        .store
        .list_cases()?
        .iter()
        .filter(|c| c.has_materials && !in_population.contains(&c.case_id))
        .count();
    Ok(Grounds {
        draws,
        population,
        labels,
        sampled,
        incomplete,
        undecided,
        outside,
        uniform,
        panel,
        models,
    })
}
